/* rt_timeline_csv: the timeline's file, one record a row (rt_timeline.h), written by `rooftune run
 * --timeline` and read by `rooftune figures --timeline`:
 *
 *   point,device,stream,kind,name,start_ns,end_ns,bytes
 *   3f2a9c0d11e4b7a5,0,13,h2d,,1718000000000,1718000350000,33554432
 *   3f2a9c0d11e4b7a5,0,14,kernel,sm90_xmma_gemm_f64f64_...,1718000100000,1718000900000,0
 *
 * point is the store's points.point_key of the point whose repetitions were traced; device the
 * CUDA device ordinal; stream CUPTI's stream id; kind one of kernel, h2d, d2h, d2d, p2p; name the
 * kernel's (cut, rt_timeline_set_name) or empty; start_ns and end_ns CUPTI's timestamps in
 * nanoseconds (one clock for the whole process); bytes what a copy moved (0 for kernels). Fields
 * follow RFC 4180 (report/rt_csv.h), so a quoted field reads back too. */
#ifndef RT_TIMELINE_CSV_H
#define RT_TIMELINE_CSV_H

#include <stdio.h>

#include "rt_error.h"
#include "rt_timeline.h"

/* The first line of every timeline CSV, without its line break. */
#define RT_TIMELINE_CSV_HEADER "point,device,stream,kind,name,start_ns,end_ns,bytes"

/* The header and one row per record, to f. */
void rt_timeline_csv_write(FILE *f, const rt_timeline_list *l);
/* The same into path, written whole or not at all (rt_outfile); err names path. */
int rt_timeline_csv_save(const char *path, const rt_timeline_list *l, rt_err *err);

/* Appends the records of the CSV at path to *l. A file that is not a timeline CSV (another
 * header), a row with the wrong number of fields, a number that is not one, a kind that is none
 * of the five, a record that ends before it starts, a NUL byte or a line longer than a record
 * can be: -1 with err naming "path:line" and the column; *l then holds what came before. */
int rt_timeline_csv_load(const char *path, rt_timeline_list *l, rt_err *err);

#endif
