/* rt_csv: CSV as RFC 4180 has it, for every CSV rooftune writes (export, replay's --csv): a field
 * holding a comma, a double quote, CR or LF is quoted and its quotes doubled, so a label such as
 * "a,b" or one with a line break reads back as one field.
 *
 * Adding rows to an existing file (replay --csv) is safe: the file must be a CSV this command
 * wrote, recognised by its first line being exactly the same header, whole (it ends in a line
 * break) and text (no NUL byte); anything else (a JSON file, a SQLite store, a CSV of another
 * command or version) is refused with its first line quoted, and is never changed. The old rows and
 * the new ones are written to a temporary file that replaces the old one only when complete
 * (rt_outfile), so a failure leaves the file as it was. */
#ifndef RT_CSV_H
#define RT_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_outfile.h"

/* Files larger than this are not read back to be appended to. */
#define RT_CSV_APPEND_MAX_BYTES ((long long)64 << 20)

/* Writes s[0..n) as one field. */
void rt_csv_field(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string. */
void rt_csv_text(FILE *f, const char *s);

/* Opens path for rows under header (given without its line break): a new or empty file gets the
 * header; an existing one with the same header keeps its rows, and the caller's rows follow them.
 * Write rows to o->f, then rt_outfile_commit (or rt_outfile_abort). Refusals and errors name path.
 * *refused is 1 when the file exists but is not one to append to (bad input), 0 otherwise. */
int rt_csv_append_open(rt_outfile *o, const char *path, const char *header, int *refused,
                       rt_err *err);

#endif
