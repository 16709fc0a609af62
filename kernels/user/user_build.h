/* user_build: a user's C code built into a shared object by the system compiler.
 *
 * A generated wrapper, rooftune_user_call(void *const *args), calls the user's function with the
 * spec's arguments in order: arrays as pointers of their type, scalars by value. It #includes the
 * user's source (or, for a prebuilt library, declares the function and links the library), so the
 * compiler checks the call against the user's own signature (-Werror=int-conversion,
 * incompatible-pointer-types) and its messages name the user's file:line:col. The build is
 *
 *     cc -O2 -fPIC -shared -Wl,--no-undefined -iquote . [cflags] -DNAME=VALUE... wrapper.c -lm
 *
 * run from the current folder. With a cache folder the object is kept there as
 * user-<hash>.so, the hash covering the wrapper, the user's source text, the flags, the defines
 * and the compiler's version, so a second run builds nothing; a failed build is kept too
 * (user-<hash>.err, its log), so a sweep does not run the compiler again for every point of a
 * source that does not compile. Headers the source includes are not part of the hash. */
#ifndef USER_BUILD_H
#define USER_BUILD_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_params.h"
#include "user_spec.h"
#include "user_worker.h"

typedef struct user_build_req {
    const user_spec *spec;   /* the arguments' types */
    const char *source;      /* a C source, or NULL with library */
    const char *source_text; /* its text (hashed) */
    const char *library;     /* a shared object to link instead of a source */
    const char *function;    /* the function called */
    const rt_params *defines;
    const char (*cflags)[128];
    int n_cflags;
    const char *cache_dir; /* NULL: built into out_dir, which the caller then owns */
    const char *out_dir;   /* without a cache: the folder to build in */
} user_build_req;

typedef struct user_build_result {
    char so_path[1100];
    int from_cache;
    double build_s;
} user_build_result;

/* Builds (or finds) the object. A compiler failure returns -1 with err holding the compiler's
 * first error lines (they name the user's file:line:col) and where the whole log is. A compiler
 * ended by a signal leaves no cached failure (the source is not at fault); SIGINT or SIGTERM
 * returns RT_INTERRUPTED (rt_registry.h). */
int user_build(const user_build_req *req, user_build_result *out, rt_err *err);

/* Runs argv (argv[0] looked up in PATH) and waits; *status gets its exit status (or 128 + signal)
 * and *signo the signal that ended it (0 when it exited); what it writes to stdout and stderr goes
 * to out (cut at len - 1). -1 only when it cannot start. */
int user_run_capture(char *const argv[], int *status, int *signo, char *out, size_t len,
                     rt_err *err);

#endif
