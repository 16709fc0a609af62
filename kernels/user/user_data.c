#include "user_data.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_rng.h"

typedef struct type_info {
    const char *name;
    const char *c_type;
    size_t size;
    int is_float;
} type_info;

static const type_info k_types[USER_T_COUNT] = {
    [USER_T_F32] = {"float", "float", 4, 1},     [USER_T_F64] = {"double", "double", 8, 1},
    [USER_T_I32] = {"int32", "int32_t", 4, 0},   [USER_T_I64] = {"int64", "int64_t", 8, 0},
    [USER_T_U32] = {"uint32", "uint32_t", 4, 0}, [USER_T_U8] = {"uint8", "uint8_t", 1, 0},
};

/* The spec's words, aliases last (parallel to k_word_types). */
static const char *const k_words[] = {"float",  "double", "int32",   "int64",
                                      "uint32", "uint8",  "float32", "float64"};
static const user_type k_word_types[] = {USER_T_F32, USER_T_F64, USER_T_I32, USER_T_I64,
                                         USER_T_U32, USER_T_U8,  USER_T_F32, USER_T_F64};

const char *user_type_name(user_type t)
{
    return t < USER_T_COUNT ? k_types[t].name : "?";
}

const char *user_type_c(user_type t)
{
    return t < USER_T_COUNT ? k_types[t].c_type : "void";
}

size_t user_type_size(user_type t)
{
    return t < USER_T_COUNT ? k_types[t].size : 0;
}

int user_type_is_float(user_type t)
{
    return t < USER_T_COUNT && k_types[t].is_float;
}

int user_type_parse(const char *word, user_type *t)
{
    for (size_t i = 0; i < sizeof k_words / sizeof k_words[0]; ++i)
        if (strcmp(word, k_words[i]) == 0) {
            *t = k_word_types[i];
            return 0;
        }
    return -1;
}

const char *const *user_type_words(int *n)
{
    *n = (int)(sizeof k_words / sizeof k_words[0]);
    return k_words;
}

double user_value_get(user_type t, const void *base, int64_t i)
{
    switch (t) {
    case USER_T_F32: return ((const float *)base)[i];
    case USER_T_F64: return ((const double *)base)[i];
    case USER_T_I32: return ((const int32_t *)base)[i];
    case USER_T_I64: return (double)((const int64_t *)base)[i];
    case USER_T_U32: return ((const uint32_t *)base)[i];
    case USER_T_U8: return ((const uint8_t *)base)[i];
    case USER_T_COUNT: break;
    }
    return NAN;
}

/* Integer conversion that never invokes undefined behaviour: NaN becomes 0, values beyond the
 * type's range its limit. */
static double clamp_integral(double v, double lo, double hi)
{
    if (isnan(v))
        return 0.0;
    v = trunc(v);
    return v < lo ? lo : (v > hi ? hi : v);
}

void user_value_set(user_type t, void *base, int64_t i, double v)
{
    switch (t) {
    case USER_T_F32: ((float *)base)[i] = (float)v; break;
    case USER_T_F64: ((double *)base)[i] = v; break;
    case USER_T_I32: ((int32_t *)base)[i] = (int32_t)clamp_integral(v, INT32_MIN, INT32_MAX); break;
    case USER_T_I64:
        /* 2^63 itself is not representable: stop at the largest double below it. */
        ((int64_t *)base)[i] =
            (int64_t)clamp_integral(v, -9223372036854775808.0, 9223372036854774784.0);
        break;
    case USER_T_U32: ((uint32_t *)base)[i] = (uint32_t)clamp_integral(v, 0, UINT32_MAX); break;
    case USER_T_U8: ((uint8_t *)base)[i] = (uint8_t)clamp_integral(v, 0, UINT8_MAX); break;
    case USER_T_COUNT: break;
    }
}

int user_data_fill(const user_init *init, int output, user_type t, void *data, int64_t count,
                   rt_err *err)
{
    const size_t bytes = (size_t)count * user_type_size(t);
    switch (init->kind) {
    case USER_INIT_DEFAULT:
        if (!output) {
            memset(data, 0, bytes);
        } else if (user_type_is_float(t)) {
            for (int64_t i = 0; i < count; ++i)
                user_value_set(t, data, i, NAN);
        } else {
            memset(data, 0xA5, bytes);
        }
        return 0;
    case USER_INIT_RANDOM: {
        rt_rng g;
        rt_rng_seed(&g, init->seed, 0);
        const double span = init->hi - init->lo;
        for (int64_t i = 0; i < count; ++i) {
            double v = init->lo + span * rt_rng_uniform(&g);
            /* Integers draw from [lo, hi), each value equally likely. */
            if (!user_type_is_float(t))
                v = floor(v);
            user_value_set(t, data, i, v);
        }
        return 0;
    }
    case USER_INIT_CONSTANT:
        for (int64_t i = 0; i < count; ++i)
            user_value_set(t, data, i, init->constant);
        return 0;
    case USER_INIT_FILE: break;
    }
    return rt_err_set(err, "initialisation from a file is user_npy_fill's (user_npy.h)");
}
