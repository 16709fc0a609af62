/* runner.phases: the phase record of a run (app/runner/rt_phases.h), the GPU each worker
 * process of --parallel gpus is given (rt_worker_procs_gpu_of) and the store's phases table
 * (store/rt_store_phases.h), on synthetic stamps: what a worker sends comes back whole, rows are
 * relative to the main process's start, the summary's numbers are the stamps', garbage is
 * refused naming what is wrong, and a bad row writes nothing. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_phases.h"
#include "rt_store.h"
#include "rt_store_phases.h"
#include "rt_test.h"
#include "rt_worker_procs.h"

#define T0 1700000000.0 /* the main process's start, as rt_clock_epoch reads */

static const rt_store_phase_row *find_row(const rt_store_phase_row *rows, int n,
                                          const char *process, const char *phase)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(rows[i].process, process) == 0 && strcmp(rows[i].phase, phase) == 0)
            return &rows[i];
    return NULL;
}

/* A worker's record packed, merged into the main process's, and read back as rows and summary. */
static void test_record(void)
{
    rt_err err;
    rt_phases main_ph, worker;
    RT_CHECK(rt_phases_init(&main_ph, "main", T0, &err) == 0);
    RT_CHECK(rt_phases_init(&worker, "worker 1", T0 + 0.25, &err) == 0);
    rt_phases_set_gpu(&worker, "GPU-7f");
    RT_CHECK(rt_phases_add(&main_ph, "backend", NULL, T0 + 0.1, T0 + 0.4) == 0);
    RT_CHECK(rt_phases_add(&worker, "go", NULL, T0 + 0.5, T0 + 0.6) == 0);
    RT_CHECK(rt_phases_add(&worker, "point", "00aa", T0 + 1.0, T0 + 2.0) == 0);
    RT_CHECK(rt_phases_add(&worker, "setup", "00aa", T0 + 1.0, T0 + 1.5) == 0);
    RT_CHECK(rt_phases_add(&worker, "point", "00bb", T0 + 2.0, T0 + 3.5) == 0);
    RT_CHECK(rt_phases_add(&worker, "bye", NULL, T0 + 3.6, NAN) == 0);
    RT_CHECK(rt_phases_add(NULL, "ignored", NULL, 0, 0) == 0); /* no record kept: nothing */

    void *bytes = NULL;
    size_t n = 0;
    RT_CHECK(rt_phases_pack(&worker, &bytes, &n, &err) == 0);
    /* The coordinator saw the worker's exit before its record arrived (any order works). */
    RT_CHECK(rt_phases_add_for(&main_ph, "worker 1", "exit", T0 + 4.0, NAN) == 0);
    RT_CHECK(rt_phases_merge(&main_ph, bytes, n, &err) == 0);
    /* The same process twice, a cut record and foreign bytes: refused, saying what they are. */
    RT_CHECK(rt_phases_merge(&main_ph, bytes, n, &err) != 0 &&
             rt_test_contains(err.msg, "two phase records of process 'worker 1'"));
    RT_CHECK(rt_phases_merge(&main_ph, bytes, n - 1, &err) != 0 &&
             rt_test_contains(err.msg, "not ours"));
    RT_CHECK(rt_phases_merge(&main_ph, "garbage", 7, &err) != 0 &&
             rt_test_contains(err.msg, "too short"));
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    RT_CHECK(rt_phases_merge(&main_ph, junk, sizeof junk, &err) != 0 &&
             rt_test_contains(err.msg, "not ours"));
    free(bytes);
    RT_CHECK(main_ph.n_procs == 2);

    rt_store_phase_row *rows = NULL;
    int nrows = 0;
    RT_CHECK(rt_phases_rows(&main_ph, &rows, &nrows, &err) == 0);
    /* 2 starts + backend + exit + the worker's 5 */
    RT_CHECK_MSG(nrows == 9, "%d rows", nrows);
    const rt_store_phase_row *r = find_row(rows, nrows, "worker 1", "start");
    RT_CHECK(r && fabs(r->begin_s - 0.25) < 1e-6 && isnan(r->end_s) &&
             strcmp(r->gpu, "GPU-7f") == 0);
    r = find_row(rows, nrows, "worker 1", "setup");
    RT_CHECK(r && fabs(r->begin_s - 1.0) < 1e-6 && fabs(r->end_s - 1.5) < 1e-6 &&
             strcmp(r->point_key, "00aa") == 0);
    r = find_row(rows, nrows, "worker 1", "exit");
    RT_CHECK(r && fabs(r->begin_s - 4.0) < 1e-6 && strcmp(r->gpu, "GPU-7f") == 0);
    r = find_row(rows, nrows, "main", "backend");
    RT_CHECK(r && fabs(r->begin_s - 0.1) < 1e-6 && fabs(r->end_s - 0.4) < 1e-6 && !r->gpu[0]);
    free(rows);

    rt_phase_summary s;
    rt_phases_summarize(&main_ph, 1, &s);
    RT_CHECK(fabs(s.start - 0.25) < 1e-6 && fabs(s.ready - 0.6) < 1e-6);
    RT_CHECK(fabs(s.first_point - 1.0) < 1e-6 && fabs(s.last_point - 3.5) < 1e-6);
    RT_CHECK(s.points == 2 && fabs(s.busy - 2.5) < 1e-6 && fabs(s.exit - 4.0) < 1e-6);
    rt_phases_summarize(&main_ph, 0, &s);
    RT_CHECK(s.points == 0 && isnan(s.first_point) && fabs(s.ready - 0.4) < 1e-6);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rt_phases_print(&main_ph, f);
    fclose(f);
    RT_CHECK_MSG(rt_test_contains(text,
                                  "phases: worker 1 (GPU GPU-7f): start 0.25 s, ready 0.60 s, "
                                  "first point 1.00 s, last point 3.50 s, exit 4.00 s; 2 "
                                  "point(s), busy 2.50 s"),
                 "%s", text);
    free(text);

    /* A phase that could not be kept makes the record refuse to be written as complete. */
    main_ph.lost = 1;
    RT_CHECK(rt_phases_rows(&main_ph, &rows, &nrows, &err) != 0 &&
             rt_test_contains(err.msg, "lost 1 phase"));
    rt_phases_free(&main_ph);
    rt_phases_free(&worker);
}

/* Worker i's GPU: entry i modulo the device count of the coordinator's visible list. */
static void test_gpu_of(void)
{
    rt_err err;
    char gpu[RT_WORKER_GPU_MAX];
    RT_CHECK(rt_worker_procs_gpu_of(NULL, 4, 2, gpu, sizeof gpu, &err) == 0 &&
             strcmp(gpu, "2") == 0);
    RT_CHECK(rt_worker_procs_gpu_of("", 2, 3, gpu, sizeof gpu, &err) == 0 && strcmp(gpu, "1") == 0);
    RT_CHECK(rt_worker_procs_gpu_of("4,6", 2, 0, gpu, sizeof gpu, &err) == 0 &&
             strcmp(gpu, "4") == 0);
    RT_CHECK(rt_worker_procs_gpu_of("4,6", 2, 3, gpu, sizeof gpu, &err) == 0 &&
             strcmp(gpu, "6") == 0);
    RT_CHECK(rt_worker_procs_gpu_of(" GPU-aa , MIG-bb/1/2 ", 2, 1, gpu, sizeof gpu, &err) == 0 &&
             strcmp(gpu, "MIG-bb/1/2") == 0);
    /* Entries past the driver's count are never used (CUDA stops at the first it cannot use). */
    RT_CHECK(rt_worker_procs_gpu_of("1,0,3", 2, 2, gpu, sizeof gpu, &err) == 0 &&
             strcmp(gpu, "1") == 0);
    RT_CHECK(rt_worker_procs_gpu_of("0,1", 0, 1, gpu, sizeof gpu, &err) == 0 && gpu[0] == '\0');
    /* Garbage: fewer entries than devices, an empty entry, one that does not fit. */
    RT_CHECK(rt_worker_procs_gpu_of("3", 2, 1, gpu, sizeof gpu, &err) != 0 &&
             rt_test_contains(err.msg, "CUDA_VISIBLE_DEVICES '3' has fewer entries than the 2"));
    RT_CHECK(rt_worker_procs_gpu_of("0,,2", 3, 1, gpu, sizeof gpu, &err) != 0 &&
             rt_test_contains(err.msg, "entry 1 is empty or too long"));
    char small[4];
    RT_CHECK(rt_worker_procs_gpu_of("GPU-12345", 1, 0, small, sizeof small, &err) != 0 &&
             rt_test_contains(err.msg, "entry 0 is empty or too long"));
}

static int count_rows(const char *db, const char *where)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM phases WHERE %s", where);
    int n = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return n;
}

/* The table: created on first write, NULL where a row has no GPU, point or end; a bad row (not
 * finite, ending before it begins, unnamed) is refused naming it and nothing of the batch is
 * written. */
static void test_store(const char *work)
{
    char db[1024];
    snprintf(db, sizeof db, "%s/phases.db", work);
    unlink(db);
    rt_err err;
    rt_store *st = NULL;
    RT_CHECK(rt_store_open(db, &st, &err) == 0);
    if (!st)
        return;
    rt_provenance prov;
    rt_provenance_init(&prov);
    prov.nranks = 1;
    int64_t run = 0;
    RT_CHECK(rt_store_begin_run(st, &prov, "phases", &run, &err) == 0);
    const rt_store_phase_row good[] = {
        {.process = "main", .phase = "start", .begin_s = 0, .end_s = NAN},
        {.process = "worker 0",
         .gpu = "3",
         .phase = "point",
         .point_key = "abcd",
         .begin_s = 1,
         .end_s = 2},
    };
    RT_CHECK(rt_store_add_phases(st, run, good, 2, &err) == 0);
    const rt_store_phase_row bad[] = {
        {.process = "main", .phase = "check", .begin_s = 0.5, .end_s = 0.7},
        {.process = "worker 1", .phase = "setup", .begin_s = 2, .end_s = 1},
    };
    RT_CHECK(rt_store_add_phases(st, run, bad, 2, &err) != 0 &&
             rt_test_contains(err.msg, "phase 'setup' of worker 1: begins at 2 s and ends at 1 s"));
    const rt_store_phase_row nan_row[] = {{.process = "main", .phase = "x", .begin_s = NAN}};
    RT_CHECK(rt_store_add_phases(st, run, nan_row, 1, &err) != 0);
    const rt_store_phase_row unnamed[] = {{.process = "", .phase = "x", .begin_s = 0}};
    RT_CHECK(rt_store_add_phases(st, run, unnamed, 1, &err) != 0 &&
             rt_test_contains(err.msg, "no process or phase name"));
    rt_store_close(st);
    RT_CHECK(count_rows(db, "1") == 2);
    RT_CHECK(count_rows(db, "process = 'main' AND gpu IS NULL AND point_key IS NULL AND end_s "
                            "IS NULL") == 1);
    RT_CHECK(count_rows(db, "process = 'worker 0' AND gpu = '3' AND point_key = 'abcd' AND "
                            "end_s = 2") == 1);
}

/* The GPU count without the driver: CUDA_VISIBLE_DEVICES when every entry is a device, else the
 * driver's /proc folder (a stand-in here), else unknown (-1: the driver counts). */
static void test_quick_gpus(const char *work)
{
    const char *src = NULL;
    RT_CHECK(rt_worker_procs_quick_gpus("3", NULL, &src) == 1 &&
             strcmp(src, "CUDA_VISIBLE_DEVICES") == 0);
    RT_CHECK(rt_worker_procs_quick_gpus("1,0,GPU-4a1e,MIG-9/1/0", NULL, &src) == 4);
    /* Garbage, or what CUDA reads its own way (-1 hides every GPU, spaces, empty entries): the
     * driver decides. */
    static const char *const odd[] = {"-1", "0,,1", " 0", "0 ,1", "abc", "GPU-", ",", "0,"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; ++i)
        RT_CHECK_MSG(rt_worker_procs_quick_gpus(odd[i], NULL, &src) == -1, "'%s'", odd[i]);
    char dir[512], sub[600];
    snprintf(dir, sizeof dir, "%s/nvidia-gpus", work);
    for (int i = 0; i < 3; ++i) { /* a run before this one left them */
        snprintf(sub, sizeof sub, "%s/0000:%02d:00.0", dir, i);
        rmdir(sub);
    }
    rmdir(dir);
    RT_CHECK(rt_worker_procs_quick_gpus(NULL, dir, &src) == -1); /* no such folder */
    mkdir(dir, 0755);
    RT_CHECK(rt_worker_procs_quick_gpus("", dir, &src) == -1); /* an empty one */
    for (int i = 0; i < 3; ++i) {
        snprintf(sub, sizeof sub, "%s/0000:%02d:00.0", dir, i);
        mkdir(sub, 0755);
    }
    RT_CHECK(rt_worker_procs_quick_gpus("", dir, &src) == 3 && strcmp(src, dir) == 0);
    RT_CHECK(rt_worker_procs_quick_gpus("5,6", dir, &src) == 2); /* the visible ones first */
    RT_CHECK(rt_worker_procs_quick_gpus("x", dir, &src) == -1);  /* not the host's count then */
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s WORK\n", argv[0]);
        return 2;
    }
    mkdir(argv[1], 0755); /* may exist */
    test_record();
    test_gpu_of();
    test_quick_gpus(argv[1]);
    test_store(argv[1]);
    if (rt_test_failures == 0)
        printf("runner.phases: ok\n");
    return rt_test_failures == 0 ? 0 : 1;
}
