/* user_data: the element types of a user kernel's arrays and scalars, and how an array gets its
 * first contents (random with a seed, a constant, a .npy or raw file, zeros, or NaN for an output
 * nobody initialises, so an element the kernel never writes fails verification).
 *
 * Types are named as in C and NumPy: float (float32), double (float64), int32, int64, uint32,
 * uint8. Every value crosses into the harness as a double (the verification gate compares
 * doubles), which is exact for all of them but int64 and uint32 beyond 2^53. */
#ifndef USER_DATA_H
#define USER_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef enum user_type {
    USER_T_F32 = 0,
    USER_T_F64,
    USER_T_I32,
    USER_T_I64,
    USER_T_U32,
    USER_T_U8,
    USER_T_COUNT
} user_type;

/* "float", "double", "int32", ... (the spec's spelling). */
const char *user_type_name(user_type t);
/* The C type of the generated call ("float", "int32_t", ...). */
const char *user_type_c(user_type t);
size_t user_type_size(user_type t);
int user_type_is_float(user_type t);
/* Parses a type word (float32 and float64 are accepted for float and double); -1 when unknown. */
int user_type_parse(const char *word, user_type *t);
/* Every accepted word, for "did you mean". */
const char *const *user_type_words(int *n);

/* Element i of an array of type t, as a double. */
double user_value_get(user_type t, const void *base, int64_t i);
/* Stores v, converted to t (rounded toward zero for the integer types, saturated at their
 * limits), as element i. */
void user_value_set(user_type t, void *base, int64_t i, double v);

typedef enum user_init_kind {
    USER_INIT_DEFAULT = 0, /* zeros for inputs, NaN (or a byte pattern) for outputs */
    USER_INIT_RANDOM,      /* uniform in [lo, hi) from a seed */
    USER_INIT_CONSTANT,
    USER_INIT_FILE /* .npy (by its extension) or raw bytes of the array's type */
} user_init_kind;

typedef struct user_init {
    user_init_kind kind;
    uint64_t seed;
    double lo, hi;
    double constant;
    char file[1024]; /* resolved against the spec's folder */
} user_init;

/* Fills count elements of type t at data as init says, but for USER_INIT_FILE (user_npy.h's
 * user_npy_fill takes every kind). output says how DEFAULT fills: NaN for floating-point outputs,
 * 0xA5 bytes for integer outputs, zeros for inputs. */
int user_data_fill(const user_init *init, int output, user_type t, void *data, int64_t count,
                   rt_err *err);

#endif
