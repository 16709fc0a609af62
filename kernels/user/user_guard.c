#include "user_guard.h"

#include <string.h>

#define ALIGN 256

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

int user_layout_make(const user_spec *spec, const int64_t *counts, user_layout *l, rt_err *err)
{
    memset(l, 0, sizeof *l);
    size_t at = 0;
    for (int i = 0; i < spec->n_args; ++i) {
        const user_arg *a = &spec->args[i];
        if (!a->is_array)
            continue;
        const size_t elem = user_type_size(a->type);
        if (counts[i] < 0 || (uint64_t)counts[i] > (SIZE_MAX / 2) / elem)
            return rt_err_set(err, "argument '%s': %lld elements cannot be allocated", a->name,
                              (long long)counts[i]);
        l->count[i] = counts[i];
        l->bytes[i] = (size_t)counts[i] * elem;
        l->offset[i] = at + USER_GUARD_BYTES;
        at = l->offset[i] + round_up(l->bytes[i], ALIGN) + USER_GUARD_BYTES;
    }
    for (int i = 0; i < spec->n_args; ++i) {
        if (spec->args[i].is_array)
            continue;
        l->count[i] = 1;
        l->bytes[i] = user_type_size(spec->args[i].type);
        l->offset[i] = at;
        at += USER_SCALAR_SLOT;
    }
    l->total = at > 0 ? at : USER_SCALAR_SLOT;
    return 0;
}

void user_guard_pattern(unsigned char *guard, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        guard[i] = (unsigned char)(0xA5u ^ (i * 37u));
}

size_t user_guard_tail_bytes(const user_layout *l, int i)
{
    return round_up(l->bytes[i], ALIGN) - l->bytes[i] + USER_GUARD_BYTES;
}

void user_guard_fill_all(const user_spec *spec, const user_layout *l, unsigned char *base)
{
    for (int i = 0; i < spec->n_args; ++i) {
        if (!spec->args[i].is_array)
            continue;
        user_guard_pattern(base + l->offset[i] - USER_GUARD_BYTES, USER_GUARD_BYTES);
        user_guard_pattern(base + l->offset[i] + l->bytes[i], user_guard_tail_bytes(l, i));
    }
}

/* Bytes of the n-byte zone that differ from the pattern; the nearest one to the array in *near. */
static size_t damaged(const unsigned char *zone, size_t n, int before, size_t *near)
{
    unsigned char want[USER_GUARD_BYTES + ALIGN];
    user_guard_pattern(want, n);
    size_t count = 0;
    *near = 0;
    for (size_t i = 0; i < n; ++i) {
        if (zone[i] == want[i])
            continue;
        const size_t dist = before ? n - i : i;
        if (count == 0 || dist < *near)
            *near = dist;
        ++count;
    }
    return count;
}

int user_guard_check(const user_spec *spec, const user_layout *l, int arg,
                     const unsigned char *before, const unsigned char *after, const char *kernel,
                     rt_err *err)
{
    const user_arg *a = &spec->args[arg];
    size_t near;
    size_t n = damaged(before, USER_GUARD_BYTES, 1, &near);
    if (n)
        return rt_err_set(err,
                          "out-of-bounds write by %s: %zu byte(s) before the start of argument "
                          "'%s' changed, the nearest %zu byte(s) before it (guard zone of %d "
                          "bytes)",
                          kernel, n, a->name, near, USER_GUARD_BYTES);
    n = damaged(after, user_guard_tail_bytes(l, arg), 0, &near);
    if (n)
        return rt_err_set(err,
                          "out-of-bounds write by %s: %zu byte(s) after the end of argument '%s' "
                          "changed, the nearest %zu byte(s) past its end (as if %s[%lld] had "
                          "been written; guard zone of %d bytes)",
                          kernel, n, a->name, near, a->name,
                          (long long)(l->count[arg] + (int64_t)(near / user_type_size(a->type))),
                          USER_GUARD_BYTES);
    return 0;
}

int user_guard_check_all(const user_spec *spec, const user_layout *l, const unsigned char *base,
                         const char *kernel, rt_err *err)
{
    for (int i = 0; i < spec->n_args; ++i) {
        if (!spec->args[i].is_array)
            continue;
        if (user_guard_check(spec, l, i, base + l->offset[i] - USER_GUARD_BYTES,
                             base + l->offset[i] + l->bytes[i], kernel, err) != 0)
            return -1;
    }
    return 0;
}
