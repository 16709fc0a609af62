/* rt_compare_write: the comparison and the history as text and Markdown. */
#ifndef RT_COMPARE_WRITE_H
#define RT_COMPARE_WRITE_H

#include <stdio.h>

#include "rt_compare_types.h"

/* The summary as plain text (stdout of `rooftune compare`) and as Markdown. */
void rt_compare_write_text(FILE *f, const rt_compare_report *r, const char *base_label,
                           const char *new_label);

void rt_compare_write_markdown(FILE *f, const rt_compare_report *r, const char *base_label,
                               const char *new_label);

void rt_history_write_text(FILE *f, const rt_history_report *h, const char *const *labels);

void rt_history_write_markdown(FILE *f, const rt_history_report *h, const char *const *labels);

#endif
