#include "rt_phases.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC 0x52545048u /* "RTPH" */

/* What travels before a process's phases (the same build on both ends: plain structs). */
typedef struct pack_head {
    uint32_t magic;
    int32_t n;
    rt_phase_process process;
} pack_head;

static int add_process(rt_phases *ph, const char *name, const char *gpu, double origin)
{
    if (ph->n_procs == ph->cap_procs) {
        const int cap = ph->cap_procs ? 2 * ph->cap_procs : 8;
        rt_phase_process *p = realloc(ph->procs, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        ph->procs = p;
        ph->cap_procs = cap;
    }
    rt_phase_process *p = &ph->procs[ph->n_procs];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->gpu, sizeof p->gpu, "%s", gpu ? gpu : "");
    p->origin = origin;
    return ph->n_procs++;
}

int rt_phases_init(rt_phases *ph, const char *process, double origin, rt_err *err)
{
    memset(ph, 0, sizeof *ph);
    if (add_process(ph, process, "", origin) < 0)
        return rt_err_set(err, "out of memory for the phase record");
    return 0;
}

void rt_phases_free(rt_phases *ph)
{
    if (!ph)
        return;
    free(ph->procs);
    free(ph->items);
    memset(ph, 0, sizeof *ph);
}

void rt_phases_rename(rt_phases *ph, const char *process)
{
    if (ph && ph->n_procs > 0)
        snprintf(ph->procs[0].name, sizeof ph->procs[0].name, "%s", process);
}

void rt_phases_set_gpu(rt_phases *ph, const char *gpu)
{
    if (ph && ph->n_procs > 0)
        snprintf(ph->procs[0].gpu, sizeof ph->procs[0].gpu, "%s", gpu ? gpu : "");
}

static int add_item(rt_phases *ph, int process, const char *name, const char *point_key,
                    double begin, double end)
{
    if (ph->n == ph->cap) {
        const int cap = ph->cap ? 2 * ph->cap : 64;
        rt_phase *items = realloc(ph->items, (size_t)cap * sizeof *items);
        if (!items) {
            ph->lost++;
            return -1;
        }
        ph->items = items;
        ph->cap = cap;
    }
    rt_phase *it = &ph->items[ph->n++];
    memset(it, 0, sizeof *it);
    it->process = process;
    snprintf(it->name, sizeof it->name, "%s", name);
    snprintf(it->point_key, sizeof it->point_key, "%s", point_key ? point_key : "");
    it->begin = begin;
    it->end = end;
    return 0;
}

int rt_phases_add(rt_phases *ph, const char *name, const char *point_key, double begin, double end)
{
    if (!ph)
        return 0;
    return add_item(ph, 0, name, point_key, begin, end);
}

static int find_process(const rt_phases *ph, const char *name)
{
    for (int i = 0; i < ph->n_procs; ++i)
        if (strcmp(ph->procs[i].name, name) == 0)
            return i;
    return -1;
}

int rt_phases_add_for(rt_phases *ph, const char *process, const char *name, double begin,
                      double end)
{
    if (!ph)
        return 0;
    int k = find_process(ph, process);
    if (k < 0 && (k = add_process(ph, process, "", NAN)) < 0) {
        ph->lost++;
        return -1;
    }
    return add_item(ph, k, name, NULL, begin, end);
}

int rt_phases_pack(const rt_phases *ph, void **data, size_t *n, rt_err *err)
{
    int mine = 0;
    for (int i = 0; i < ph->n; ++i)
        mine += ph->items[i].process == 0;
    pack_head head;
    memset(&head, 0, sizeof head);
    head.magic = PACK_MAGIC;
    head.n = mine;
    head.process = ph->procs[0];
    const size_t bytes = sizeof head + (size_t)mine * sizeof(rt_phase);
    char *out = malloc(bytes);
    if (!out)
        return rt_err_set(err, "out of memory packing the phase record (%d phases)", mine);
    memcpy(out, &head, sizeof head);
    char *at = out + sizeof head;
    for (int i = 0; i < ph->n; ++i)
        if (ph->items[i].process == 0) {
            memcpy(at, &ph->items[i], sizeof(rt_phase));
            at += sizeof(rt_phase);
        }
    *data = out;
    *n = bytes;
    return 0;
}

int rt_phases_merge(rt_phases *ph, const void *data, size_t n, rt_err *err)
{
    pack_head head;
    if (n < sizeof head)
        return rt_err_set(err, "a phase record of %zu bytes, too short", n);
    memcpy(&head, data, sizeof head);
    if (head.magic != PACK_MAGIC || head.n < 0 ||
        n != sizeof head + (size_t)head.n * sizeof(rt_phase))
        return rt_err_set(err, "a phase record that is not ours (%zu bytes)", n);
    head.process.name[sizeof head.process.name - 1] = '\0';
    head.process.gpu[sizeof head.process.gpu - 1] = '\0';
    int k = find_process(ph, head.process.name);
    if (k >= 0 && !isnan(ph->procs[k].origin))
        return rt_err_set(err, "two phase records of process '%s'", head.process.name);
    if (k < 0)
        k = add_process(ph, head.process.name, head.process.gpu, head.process.origin);
    else {
        ph->procs[k] = head.process; /* named before by rt_phases_add_for */
    }
    if (k < 0)
        return rt_err_set(err, "out of memory for the phase record of %s", head.process.name);
    const char *at = (const char *)data + sizeof head;
    for (int i = 0; i < head.n; ++i, at += sizeof(rt_phase)) {
        rt_phase it;
        memcpy(&it, at, sizeof it);
        it.name[sizeof it.name - 1] = '\0';
        it.point_key[sizeof it.point_key - 1] = '\0';
        if (add_item(ph, k, it.name, it.point_key, it.begin, it.end) != 0)
            return rt_err_set(err, "out of memory for the phase record of %s", head.process.name);
    }
    return 0;
}

int rt_phases_rows(const rt_phases *ph, rt_store_phase_row **rows, int *n, rt_err *err)
{
    *rows = NULL;
    *n = 0;
    if (ph->lost > 0)
        return rt_err_set(err, "the phase record lost %d phase(s): out of memory", ph->lost);
    const int extra = ph->n_procs; /* a "start" row per process */
    rt_store_phase_row *out = calloc((size_t)(ph->n + extra), sizeof *out);
    if (!out)
        return rt_err_set(err, "out of memory for %d phase rows", ph->n + extra);
    const double zero = ph->procs[0].origin;
    int k = 0;
    for (int p = 0; p < ph->n_procs; ++p) {
        if (isnan(ph->procs[p].origin))
            continue; /* a process only named (its own record never came) */
        out[k++] = (rt_store_phase_row){.process = ph->procs[p].name,
                                        .gpu = ph->procs[p].gpu,
                                        .phase = "start",
                                        .begin_s = ph->procs[p].origin - zero,
                                        .end_s = NAN};
    }
    for (int i = 0; i < ph->n; ++i) {
        const rt_phase *it = &ph->items[i];
        out[k++] = (rt_store_phase_row){.process = ph->procs[it->process].name,
                                        .gpu = ph->procs[it->process].gpu,
                                        .phase = it->name,
                                        .point_key = it->point_key,
                                        .begin_s = it->begin - zero,
                                        .end_s = isnan(it->end) ? NAN : it->end - zero};
    }
    *rows = out;
    *n = k;
    return 0;
}

void rt_phases_summarize(const rt_phases *ph, int process, rt_phase_summary *out)
{
    const double zero = ph->procs[0].origin;
    *out = (rt_phase_summary){.start = ph->procs[process].origin - zero,
                              .ready = NAN,
                              .first_point = NAN,
                              .last_point = NAN,
                              .exit = NAN};
    for (int i = 0; i < ph->n; ++i) {
        const rt_phase *it = &ph->items[i];
        if (it->process != process)
            continue;
        const double b = it->begin - zero, e = isnan(it->end) ? b : it->end - zero;
        if (strcmp(it->name, "backend") == 0 || strcmp(it->name, "check") == 0 ||
            strcmp(it->name, "go") == 0)
            out->ready = isnan(out->ready) || e > out->ready ? e : out->ready;
        else if (strcmp(it->name, "point") == 0) {
            out->first_point =
                isnan(out->first_point) || b < out->first_point ? b : out->first_point;
            out->last_point = isnan(out->last_point) || e > out->last_point ? e : out->last_point;
            out->points++;
            out->busy += e - b;
        } else if (strcmp(it->name, "exit") == 0 || strcmp(it->name, "end") == 0 ||
                   strcmp(it->name, "bye") == 0)
            /* The last that process or its coordinator saw of it: a worker process's exit (after
             * its bye), a rank's bye, the main process's end. */
            out->exit = isnan(out->exit) || b > out->exit ? b : out->exit;
    }
}

static void print_time(FILE *out, const char *label, double t, int *first)
{
    if (isnan(t))
        return;
    fprintf(out, "%s%s %.2f s", *first ? " " : ", ", label, t);
    *first = 0;
}

/* Process order in a printout: this process first, then by kind and number ("worker 2" before
 * "worker 10"), not in the order their records arrived. */
static int before(const rt_phase_process *a, const rt_phase_process *b)
{
    const size_t la = strcspn(a->name, " "), lb = strcspn(b->name, " ");
    const int kind = strncmp(a->name, b->name, la < lb ? la : lb);
    if (kind != 0 || la != lb)
        return kind != 0 ? kind < 0 : la < lb;
    return atoi(a->name + la) < atoi(b->name + lb);
}

void rt_phases_print(const rt_phases *ph, FILE *out)
{
    if (!out)
        return;
    int *order = malloc((size_t)ph->n_procs * sizeof *order);
    if (!order)
        return; /* the store has the record; the printout is a convenience */
    for (int i = 0; i < ph->n_procs; ++i) {
        int j = i;
        while (j > 1 && before(&ph->procs[i], &ph->procs[order[j - 1]])) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = i;
    }
    for (int q = 0; q < ph->n_procs; ++q) {
        const int p = order[q];
        rt_phase_summary s;
        rt_phases_summarize(ph, p, &s);
        fprintf(out, "phases: %s", ph->procs[p].name);
        if (ph->procs[p].gpu[0])
            fprintf(out, " (GPU %s)", ph->procs[p].gpu);
        fprintf(out, ":");
        int first = 1;
        print_time(out, "start", s.start, &first);
        print_time(out, "ready", s.ready, &first);
        print_time(out, "first point", s.first_point, &first);
        print_time(out, "last point", s.last_point, &first);
        print_time(out, "exit", s.exit, &first);
        if (s.points > 0)
            fprintf(out, "; %d point(s), busy %.2f s", s.points, s.busy);
        fprintf(out, "\n");
    }
    free(order);
    fflush(out);
}
