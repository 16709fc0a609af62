/* rt_infile: opening a file rooftune reads whole or seeks in (a recorded space, a Matrix Market
 * file, a CSV to append to). Only a regular file will do: a folder would read as garbage (or fail
 * with a confusing message), and opening a FIFO that nobody writes would block forever, so the
 * open itself does not wait (O_NONBLOCK) and anything but a regular file is refused with a message
 * saying what it is. */
#ifndef RT_INFILE_H
#define RT_INFILE_H

#include <stdint.h>

#include "rt_error.h"

/* Opens path for reading; *fd is a blocking descriptor of a regular file, *size its length.
 * Fails (nothing left open) with err naming path and what it is instead. what names the kind of
 * file expected, for the message ("a Matrix Market file"). */
int rt_infile_open(const char *path, const char *what, int *fd, int64_t *size, rt_err *err);

#endif
