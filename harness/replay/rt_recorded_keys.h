/* rt_recorded_keys: duplicate keys in a JSON text. JSON parsers (json-c among them) keep the last
 * of two equal keys of an object and drop the other without a word; in a Kernel Tuner cache that
 * is a configuration recorded twice with different times, in a T4 file a parameter given twice.
 * This scan finds them so the reader can refuse the file, naming the key and both places.
 *
 * It runs on text json-c has already accepted (so it assumes balanced brackets and closed strings)
 * and knows json-c's extensions: // and block comments, single-quoted strings, bare words such as
 * NaN. Keys are compared after their escapes are decoded ("a" and "\u0061" are the same key). */
#ifndef RT_RECORDED_KEYS_H
#define RT_RECORDED_KEYS_H

#include <stddef.h>

#include "rt_error.h"

/* Returns 0 when no object of text[0..len) has a key twice; -1 with err naming path, the key and
 * the byte offsets of both, or saying it ran out of memory. */
int rt_recorded_check_keys(const char *path, const char *text, size_t len, rt_err *err);

#endif
