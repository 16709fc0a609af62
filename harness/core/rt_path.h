/* rt_path: building file-system paths in fixed-size buffers without silent truncation. A path cut
 * to fit names a different file (or a directory instead of a file); every path rooftune builds goes
 * through here, so a deep directory gives an error naming the path instead. */
#ifndef RT_PATH_H
#define RT_PATH_H

#include <stddef.h>

#include "rt_error.h"

/* Formats a path into buf (len bytes, printf-style). Returns 0, or -1 with err saying how long the
 * path would be, the limit and how it starts; buf then holds an empty string, never a prefix. */
int rt_path_format(char *buf, size_t len, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The folder of the running executable (/proc/self/exe without its file name) into buf (len
 * bytes), for files installed next to it. Returns -1 when the link cannot be read; callers then
 * fall back to a path relative to the working folder. */
int rt_path_exe_dir(char *buf, size_t len);

/* mkdir -p of the folder that holds path (mode 0777 before the umask). Fails (-1, err set) only
 * when path does not fit PATH_MAX; mkdir's own errors show when the file is opened there. */
int rt_path_make_parent(const char *path, rt_err *err);

/* For a message of limited room: path itself when it has at most `room` characters, else its
 * last part of at most room - 4 characters starting at a '/' (the end names the file), with
 * *cut set so the caller writes "..." before it. */
const char *rt_path_tail(const char *path, size_t room, int *cut);

/* text into out (len bytes) for a message of limited room (a point's reason): as it is when it
 * fits, else with every absolute path of more than 48 characters in it written as ".../" and its
 * last two parts ("/a/b/c/work/zero.mtx:2: ..." becomes ".../work/zero.mtx:2: ..."), so that a
 * deep checkout's paths do not push the message's point (what failed, and why) past the end; cut
 * at len - 1 if it still does not fit. */
void rt_path_fit_text(const char *text, char *out, size_t len);

#endif
