/* rt_outfile: how rooftune writes a file. The text goes to a temporary file beside the target
 * (".<name>.rt-XXXXXX", same folder, so same filesystem) and is renamed over the target only when
 * every byte is written, flushed and, with fsync, on the disk. A failure at any point (a full
 * disk, a quota, a killed process) therefore leaves the old file or no file, never a cut or empty
 * one that passes for a result; and the caller prints its success line only after commit.
 *
 * Targets that are not regular files (/dev/null, /dev/stdout, a FIFO a reader holds open) cannot be
 * renamed over: they are written in place, and a FIFO without a reader is an error instead of a
 * wait. A symbolic link is followed: the file it names is replaced, the link stays. A folder is an
 * error. Every error names the file and says why (the system's reason, e.g. "No space left on
 * device"), captured where the write failed rather than read from errno later. */
#ifndef RT_OUTFILE_H
#define RT_OUTFILE_H

#include <stdio.h>

#include "rt_error.h"

#define RT_OUTFILE_PATH_MAX 4096

typedef struct rt_outfile {
    FILE *f;                        /* write through this (fprintf, fwrite, ...) */
    char name[RT_OUTFILE_PATH_MAX]; /* the path as given, for messages */
    char path[RT_OUTFILE_PATH_MAX]; /* the file that will hold the text (a link's target) */
    char tmp[RT_OUTFILE_PATH_MAX];  /* the temporary name; "" when written in place */
    int fd;
    int write_errno; /* the first write error, 0 while none */
    int existed;     /* 1: path was there before (commit replaces it) */
} rt_outfile;

/* An rt_outfile that is not open: abort and commit-free clean-up paths may be run on it. */
#define RT_OUTFILE_NONE                                                                            \
    {                                                                                              \
        .f = NULL, .fd = -1                                                                        \
    }

/* Starts writing path. o must stay where it is until commit or abort (o->f refers to it). On
 * failure nothing is created and o->f is NULL. */
int rt_outfile_open(rt_outfile *o, const char *path, rt_err *err);
/* Finishes: flush, check every write, fsync, close, rename over path (and fsync the folder, so the
 * new name survives a crash). Returns 0, or -1 with err naming path and the reason; the temporary
 * is removed and path is untouched on failure. o->f is NULL afterwards either way. */
int rt_outfile_commit(rt_outfile *o, rt_err *err);
/* Gives up: closes and removes the temporary; path is untouched. Safe after commit or a failed
 * open (does nothing then). */
void rt_outfile_abort(rt_outfile *o);

/* The whole file at once: open, write len bytes of data, commit. */
int rt_outfile_write_all(const char *path, const void *data, size_t len, rt_err *err);

#endif
