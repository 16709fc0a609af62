/* user_npy: arrays from files, for a user kernel's inputs and stored expected outputs.
 *
 * A .npy file (NumPy's format, versions 1 to 3) gives its element type and shape in its header; its
 * elements are converted to the array's type, and their count must equal the array's size (the
 * shape is not otherwise checked: a 64 x 64 file fills an array of 4096). Little-endian float32,
 * float64, int32, int64, uint32, uint8 (and int8, int16, uint16, uint64) in C order are read;
 * anything else (Fortran order, big-endian, structured or object arrays) is refused, saying which.
 * A raw file holds exactly count elements of the array's own type, in this machine's byte order. */
#ifndef USER_NPY_H
#define USER_NPY_H

#include <stdint.h>

#include "rt_error.h"
#include "user_data.h"

/* Reads count elements of type t from path into dst. */
int user_npy_read(const char *path, user_type t, int64_t count, void *dst, rt_err *err);
int user_raw_read(const char *path, user_type t, int64_t count, void *dst, rt_err *err);

/* Fills an array as init says: from its file (.npy by the extension, else raw) for
 * USER_INIT_FILE, else by user_data_fill. Errors name the file. */
int user_npy_fill(const user_init *init, int output, user_type t, void *data, int64_t count,
                  rt_err *err);

/* Writes count elements of type t as a one-dimensional .npy file (tests and users who store an
 * expected output from rooftune's own reference). */
int user_npy_write(const char *path, user_type t, int64_t count, const void *src, rt_err *err);

#endif
