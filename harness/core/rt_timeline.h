/* rt_timeline: the records of a device activity timeline (`rooftune run --timeline`): what ran on
 * which GPU, on which stream, from when to when. The CUDA plugin fills them from CUPTI's activity
 * API (roofline/cuda/rt_cupti_timeline.c), the runner writes them to a CSV with the point each
 * belongs to (app/runner/rt_trace.c), and the report reads the CSV back to draw the figure and the
 * overlap numbers (report/rt_timeline_*.c). Plain data, so every layer can hold it. */
#ifndef RT_TIMELINE_H
#define RT_TIMELINE_H

#include <stdint.h>

#include "rt_error.h"

/* What a record is: one kernel execution or one copy, by direction. The names below are the CSV's
 * `kind` column. */
typedef enum rt_timeline_kind {
    RT_TIMELINE_KERNEL = 0, /* "kernel": a kernel execution */
    RT_TIMELINE_H2D,        /* "h2d": host to device (arrays included) */
    RT_TIMELINE_D2H,        /* "d2h": device to host */
    RT_TIMELINE_D2D,        /* "d2d": within one device */
    RT_TIMELINE_P2P,        /* "p2p": between two devices (peer copies) */
    RT_TIMELINE_KIND_COUNT
} rt_timeline_kind;

/* Kernel names are cut to this many bytes (with the NUL): mangled template names run to
 * hundreds of characters, and the figure only needs to tell kernels apart. */
#define RT_TIMELINE_NAME_MAX 64
/* The highest device ordinal a record may carry (the CSV's `device` column reads 0 to this), so
 * a record the runner keeps is one the CSV reads back. */
#define RT_TIMELINE_DEVICE_MAX 1023
/* The point a record belongs to: the store's points.point_key (16 hex digits). */
#define RT_TIMELINE_POINT_MAX 24

typedef struct rt_timeline_record {
    char point[RT_TIMELINE_POINT_MAX]; /* "" until the runner knows the point */
    int device;                        /* CUDA device ordinal the work ran on */
    uint32_t stream;                   /* CUPTI's stream id (unique within a context) */
    rt_timeline_kind kind;
    char name[RT_TIMELINE_NAME_MAX]; /* kernels: the (mangled) name, cut; copies: "" */
    uint64_t start_ns, end_ns;       /* CUPTI timestamps; start_ns <= end_ns */
    uint64_t bytes;                  /* copies: bytes moved; kernels: 0 */
} rt_timeline_record;

/* A growable array of records. Start it as {0}. */
typedef struct rt_timeline_list {
    rt_timeline_record *v;
    int64_t n, cap;
} rt_timeline_list;

/* "kernel", "h2d", "d2h", "d2d", "p2p"; "?" for a value out of range. */
const char *rt_timeline_kind_name(rt_timeline_kind kind);
/* The kind named s (exactly as rt_timeline_kind_name writes it): 0, or -1 when s names none. */
int rt_timeline_kind_parse(const char *s, rt_timeline_kind *kind);

/* Appends a copy of r; a record that ends before it starts, has a kind out of range or a device
 * outside 0..RT_TIMELINE_DEVICE_MAX is refused (err says which), as is running out of memory. */
int rt_timeline_add(rt_timeline_list *l, const rt_timeline_record *r, rt_err *err);
/* Empties the list (keeps its room). */
void rt_timeline_clear(rt_timeline_list *l);
/* Frees the records; l is {0} again. */
void rt_timeline_free(rt_timeline_list *l);

/* Copies name into out[RT_TIMELINE_NAME_MAX], cut to fit, with every byte that is not printable
 * ASCII, and every comma and double quote, replaced by '_': a record's name is a label, and this
 * keeps each CSV row on one line whatever a kernel is called. */
void rt_timeline_set_name(char out[RT_TIMELINE_NAME_MAX], const char *name);

#endif
