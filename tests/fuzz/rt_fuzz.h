/* The libFuzzer harnesses of rooftune (issue 13): each takes one input and feeds it to one parser
 * the way a user's file reaches it. All five live in one instrumented binary (the sources are
 * compiled once); RT_FUZZ_TARGET picks the harness (see rt_fuzz_main.c). */
#ifndef RT_FUZZ_H
#define RT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Writes the input to a file in the harness's scratch folder (made once, under $TMPDIR) and
 * returns its path, or NULL when it cannot. name is the file name within the folder. */
const char *rt_fuzz_write_file(const char *name, const uint8_t *data, size_t size);

/* The config loader, with includes: the input is the main file; a fixed fragment (inc.yaml) and
 * a Matrix Market file (a.mtx) sit beside it, then the loaded config is checked against a small
 * test registry. */
void rt_fuzz_config(const uint8_t *data, size_t size);
/* Constraint expressions: parse, list identifiers, evaluate with every identifier bound. */
void rt_fuzz_expr(const uint8_t *data, size_t size);
/* The Matrix Market reader. */
void rt_fuzz_mmio(const uint8_t *data, size_t size);
/* The store opener: the input is the database file, opened read-only and read-write. */
void rt_fuzz_store(const uint8_t *data, size_t size);
/* Recorded tuning spaces: the input is a Kernel Tuner cache or a T4 file, plain or gzip; what
 * loads must round-trip through T4. */
void rt_fuzz_recorded(const uint8_t *data, size_t size);

#endif
