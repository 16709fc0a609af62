/* rt_strutil: small string helpers shared by several modules. */
#ifndef RT_STRUTIL_H
#define RT_STRUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Edit distance (insert, delete, substitute), for "did you mean" suggestions. */
int rt_levenshtein(const char *a, const char *b);
/* The candidate closest to word within max(2, strlen/3) edits, or NULL. */
const char *rt_suggest(const char *word, const char *const *candidates, int n);
/* 64-bit FNV-1a over bytes; used for config and point hashes (not cryptographic). */
uint64_t rt_hash64(const void *data, size_t len, uint64_t seed);
/* Writes the hash as 16 lowercase hex digits plus NUL into out[17]. */
void rt_hash_hex(uint64_t h, char out[17]);
/* The fewest significant digits, from 3 up to 9, at which "%.*g" prints a and b differently (9
 * when they print alike even then), so a message comparing two numbers never shows "5% missed 5%"
 * of values that differ. */
int rt_distinct_digits(double a, double b);

#endif
