/* rt_compare_device: the device class rules of point matching; see rt_compare.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_compare_device.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------- */
/* Device class */

static int is_hex(char c)
{
    return isxdigit((unsigned char)c) != 0;
}

/* The token without the brackets, parentheses and punctuation that wrap it. */
static void strip_wrapping(const char *tok, size_t len, const char **core, size_t *core_len)
{
    size_t a = 0, b = len;
    while (a < b && strchr("([{<", tok[a]))
        ++a;
    while (b > a && strchr(")]}>,;", tok[b - 1]))
        --b;
    *core = tok + a;
    *core_len = b - a;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* 8-4-4-4-12 hex digits. */
static int is_uuid(const char *s, size_t n)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    size_t i = 0;
    for (int g = 0; g < 5; ++g) {
        for (int k = 0; k < groups[g]; ++k, ++i)
            if (i >= n || !is_hex(s[i]))
                return 0;
        if (g < 4) {
            if (i >= n || s[i] != '-')
                return 0;
            ++i;
        }
    }
    return i == n;
}

/* [dddd:]bb:dd.f with hex digits. */
static int is_pci_bus_id(const char *s, size_t n)
{
    size_t i = 0, run = 0;
    int colons = 0, dot = 0;
    for (; i < n; ++i) {
        if (is_hex(s[i])) {
            ++run;
        } else if (s[i] == ':' && run > 0 && !dot) {
            ++colons;
            run = 0;
        } else if (s[i] == '.' && run > 0 && colons > 0 && !dot) {
            dot = 1;
            run = 0;
        } else {
            return 0;
        }
    }
    return dot && run == 1 && (colons == 1 || colons == 2);
}

static int is_serialish(const char *s, size_t n)
{
    if (n >= 4 && (strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0))
        return 1;
    if (is_uuid(s, n) || is_pci_bus_id(s, n))
        return 1;
    if (n >= 2 && s[0] == '#' && all_digits(s + 1, n - 1))
        return 1;
    /* A long hex word with a digit in it is a serial number or a hash, not a model name. */
    if (n >= 8) {
        int hex = 1, digit = 0;
        for (size_t i = 0; i < n; ++i) {
            hex &= is_hex(s[i]);
            digit |= isdigit((unsigned char)s[i]) != 0;
        }
        if (hex && digit)
            return 1;
    }
    return 0;
}

static int starts_serial_label(const char *s, size_t n)
{
    return (n >= 2 && (s[0] == 'S' || s[0] == 's') && (s[1] == 'N' || s[1] == 'n') &&
            (n == 2 || s[2] == ':' || s[2] == '=' || isdigit((unsigned char)s[2]))) ||
           (n >= 3 && strncmp(s, "S/N", 3) == 0);
}

void rt_compare_device_class(const char *device, char *out, size_t len)
{
    if (!out || len == 0)
        return;
    out[0] = '\0';
    if (!device)
        return;
    /* Tokens kept, in order; their count lets a trailing index be dropped afterwards. */
    size_t used = 0, last_start = 0;
    int kept = 0, last_is_index = 0, in_serial_bracket = 0;
    const char *p = device;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            ++p;
        if (!*p)
            break;
        const char *tok = p;
        while (*p && !isspace((unsigned char)*p))
            ++p;
        const size_t tlen = (size_t)(p - tok);
        const char *core;
        size_t clen;
        strip_wrapping(tok, tlen, &core, &clen);
        const int opens = strchr("([{", tok[0]) != NULL;
        const int closes = tlen > 0 && strchr(")]}", tok[tlen - 1]) != NULL;
        if (in_serial_bracket) {
            /* "(S/N: 1234 5678)": everything up to the closing bracket goes. */
            if (closes)
                in_serial_bracket = 0;
            continue;
        }
        if (starts_serial_label(core, clen)) {
            in_serial_bracket = opens && !closes;
            continue;
        }
        if (clen == 0 || is_serialish(core, clen))
            continue;
        /* ":0", "[0]", "(0)" and a bare number are an index only at the end: remember. */
        const char *digits = core;
        size_t dlen = clen;
        if (dlen > 0 && digits[0] == ':') {
            ++digits;
            --dlen;
        }
        /* Bracketed or after a colon up to 3 digits; bare only up to 2, since a bare 3-digit
         * number ends many model names ("... Processor 248"). */
        const int marked = opens || core[0] == ':';
        const int index_like =
            all_digits(digits, dlen) && dlen <= (marked ? 3u : 2u) && (marked || kept > 0);
        if (used + tlen + 2 > len)
            break;
        last_start = used;
        if (used)
            out[used++] = ' ';
        memcpy(out + used, tok, tlen);
        used += tlen;
        out[used] = '\0';
        ++kept;
        last_is_index = index_like;
    }
    /* A model name never ends in a bare small number after a model word ("H100 0"), while a
     * device index often does. */
    if (kept > 1 && last_is_index)
        out[last_start] = '\0';
}
