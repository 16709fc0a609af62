/* `rooftune run --timeline` through the real runner (app/runner/rt_trace.c), with a stand-in
 * plugin timeline on the CPU: each point's timed repetitions, and only those, run inside one
 * timeline (the kernel's runs between start and stop equal the point's samples in the store, so
 * warm-up and verification are outside, and no output is fetched inside: the re-check after the
 * last repetition copies the output back, which a GPU timeline would show as the point's own
 * device-to-host traffic); every record of the CSV carries the key of a point the
 * store holds; a timeline that fails to start leaves the points measured and the CSV unwritten,
 * the close naming the reason; the per-rank file names; no CUDA backend, no tracer.
 *
 * Usage: test_trace_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_comm.h"
#include "rt_fake_timed.h"
#include "rt_test.h"
#include "rt_timeline_csv.h"
#include "rt_trace.h"
#include "runner_util.h"

/* The stand-in plugin's state: what the traced kernel and the timeline saw. */
static struct {
    long runs;              /* executions of fake.cpu.counted so far */
    long traced_runs;       /* of those, executions between a start and its stop */
    long outputs;           /* its outputs fetched (verification and re-check) */
    long traced_outputs;    /* of those, fetched between a start and its stop */
    long starts, stops;     /* timeline calls */
    long fail_start_at;     /* the start (1-based) that fails; 0: none */
    long fail_run_at;       /* the run (1-based) that fails; 0: none */
    long runs_at_start;     /* runs when the current timeline started */
    rt_timeline_list *into; /* the current timeline's list */
} fake;

static int counted_run(void *state, double *seconds, rt_err *err)
{
    if (++fake.runs == fake.fail_run_at)
        return rt_err_set(err, "stand-in kernel fails run %ld", fake.runs);
    return rt_fake_timed_kernel.run(state, seconds, err);
}

static int counted_output(void *state, double *out, rt_err *err)
{
    ++fake.outputs;
    fake.traced_outputs += fake.into != NULL;
    return rt_fake_timed_kernel.output(state, out, err);
}

static int fake_start(void *state, rt_timeline_list *into, rt_err *err)
{
    (void)state;
    if (++fake.starts == fake.fail_start_at)
        return rt_err_set(err, "timeline: stand-in CUPTI refuses start %ld", fake.starts);
    fake.into = into;
    fake.runs_at_start = fake.runs;
    return 0;
}

/* Two records per timeline: a copy and a kernel, 1 ms apart per run traced. */
static int fake_stop(void *state, rt_err *err)
{
    (void)state;
    ++fake.stops;
    const long runs = fake.runs - fake.runs_at_start;
    fake.traced_runs += runs;
    const uint64_t t0 = (uint64_t)fake.stops * 1000000000u;
    rt_timeline_record r = {.device = 0, .stream = 13, .kind = RT_TIMELINE_H2D};
    r.start_ns = t0;
    r.end_ns = t0 + (uint64_t)runs * 1000000u;
    r.bytes = 4096;
    if (rt_timeline_add(fake.into, &r, err) != 0)
        return -1;
    r = (rt_timeline_record){.device = 1, .stream = 14, .kind = RT_TIMELINE_KERNEL};
    rt_timeline_set_name(r.name, "fake_kernel");
    r.start_ns = t0 + 500000u;
    r.end_ns = t0 + (uint64_t)runs * 1000000u;
    const int rc = rt_timeline_add(fake.into, &r, err);
    fake.into = NULL;
    return rc;
}

static const rt_plugin_api fake_api = {.abi_version = RT_PLUGIN_ABI_VERSION,
                                       .name = "cuda",
                                       .timeline_start = fake_start,
                                       .timeline_stop = fake_stop};

typedef struct trace_ctx {
    rt_backend be; /* the tracer's backend: the stand-in plugin (the run's is the CPU one) */
    rt_kernel_desc counted;
    char csv[1200];
    rt_trace *trace;
} trace_ctx;

static int prepare(void *ctx, rt_registry *reg, rt_run_options *ro, rt_err *err)
{
    trace_ctx *c = ctx;
    c->counted = rt_fake_timed_kernel;
    c->counted.name = "fake.cpu.counted";
    c->counted.run = counted_run;
    c->counted.output = counted_output;
    if (rt_registry_add_kernel(reg, &c->counted, err) != 0 ||
        rt_trace_open(c->csv, &c->be, 0, 1, &c->trace, err) != 0)
        return -1;
    ro->trace = c->trace;
    return 0;
}

static const char *const yaml = "experiment: {name: traced}\n"
                                "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\n"
                                "kernels: [{name: fake.cpu.counted, params: {ms: [1, 2]}}]\n"
                                "measure: {warmup: 2, min_reps: 3, max_reps: 4}\n";

static void body(rt_comm *comm, const char *work)
{
    trace_ctx c;
    memset(&c, 0, sizeof c);
    c.be.cuda_loaded = 1;
    c.be.plugin = &fake_api;
    snprintf(c.csv, sizeof c.csv, "%s/traced.csv", work);
    unlink(c.csv);
    rt_run_summary sum;
    char db[1200];
    RT_CHECK(runner_util_run_prepared(comm, work, "traced", yaml, prepare, &c, &sum, db, sizeof db,
                                      NULL, 0) == 0);
    RT_CHECK(sum.measured == 2);
    long long n = 0;
    rt_err err;
    RT_CHECK_MSG(rt_trace_close(c.trace, &n, &err) == 0, "%s", err.msg);
    const double samples = runner_util_sql(db, "SELECT count(*) FROM samples");
    RT_CHECK_MSG(fake.starts == 2 && fake.stops == 2, "%ld starts, %ld stops", fake.starts,
                 fake.stops);
    RT_CHECK_MSG((double)fake.traced_runs == samples,
                 "%ld runs traced, %g samples stored (of %ld runs in all)", fake.traced_runs,
                 samples, fake.runs);
    RT_CHECK(fake.runs > fake.traced_runs); /* warm-up and verification ran untraced */
    /* Each point's output is fetched twice (the gate before, the re-check after the timed
     * repetitions), never while traced. */
    RT_CHECK_MSG(fake.outputs >= 4 && fake.traced_outputs == 0,
                 "%ld of %ld output fetches inside the timeline", fake.traced_outputs,
                 fake.outputs);

    rt_timeline_list l = {0};
    RT_CHECK_MSG(rt_timeline_csv_load(c.csv, &l, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(l.n == n && n == 4, "%lld records written, %lld read", n, (long long)l.n);
    for (int64_t i = 0; i < l.n; ++i) {
        char q[200];
        snprintf(q, sizeof q, "SELECT count(*) FROM points WHERE point_key = '%.30s'",
                 l.v[i].point);
        RT_CHECK_MSG(runner_util_sql(db, q) == 1, "record %lld: point '%s' is not in the store",
                     (long long)i, l.v[i].point);
    }
    RT_CHECK(l.n == 4 && strcmp(l.v[0].point, l.v[2].point) != 0);
    rt_timeline_free(&l);

    /* A timeline that fails to start: the points are measured all the same, the CSV is not
     * written, and the close says why. */
    c.trace = NULL;
    fake.fail_start_at = fake.starts + 1;
    unlink(c.csv);
    RT_CHECK(runner_util_run_prepared(comm, work, "traced", yaml, prepare, &c, &sum, db, sizeof db,
                                      NULL, 0) == 0);
    RT_CHECK(sum.measured == 2);
    RT_CHECK(rt_trace_close(c.trace, &n, &err) != 0 &&
             rt_test_contains(err.msg, "stand-in CUPTI refuses start") &&
             rt_test_contains(err.msg, "nothing written"));
    RT_CHECK(access(c.csv, F_OK) != 0);

    /* A repetition that fails ends its point as an error inside the timeline: the timeline is
     * stopped all the same (each start has its stop), and its records are kept with the point. */
    c.trace = NULL;
    fake.fail_start_at = 0;
    fake.starts = fake.stops = 0;
    fake.fail_run_at = fake.runs + 3 + 1; /* the first point's first timed run: after the warm-up
                                           * (2) and the verification (1) */
    unlink(c.csv);
    RT_CHECK(runner_util_run_prepared(comm, work, "traced", yaml, prepare, &c, &sum, db, sizeof db,
                                      NULL, 0) == 0);
    RT_CHECK_MSG(sum.errors == 1 && sum.measured == 1, "%d error(s), %d measured", sum.errors,
                 sum.measured);
    RT_CHECK_MSG(fake.starts == 2 && fake.stops == 2, "%ld starts, %ld stops", fake.starts,
                 fake.stops);
    RT_CHECK_MSG(rt_trace_close(c.trace, &n, &err) == 0 && n == 4, "%lld records: %s", n, err.msg);

    /* One file per rank under MPI; the file itself alone. */
    char path[1200];
    RT_CHECK(rt_trace_path("out/t.csv", 1, 4, path, sizeof path, &err) == 0 &&
             strcmp(path, "out/t.rank1.csv") == 0);
    RT_CHECK(rt_trace_path("t", 0, 2, path, sizeof path, &err) == 0 &&
             strcmp(path, "t.rank0.csv") == 0);
    RT_CHECK(rt_trace_path("t.csv", 0, 1, path, sizeof path, &err) == 0 &&
             strcmp(path, "t.csv") == 0);
    /* A name the CSV cannot take is refused when the tracer opens, before any point runs: a
     * folder, a name ending in '/'; an existing CSV is left as it was. */
    rt_trace *t = NULL;
    RT_CHECK_MSG(rt_trace_open(work, &c.be, 0, 1, &t, &err) != 0 && t == NULL &&
                     rt_test_contains(err.msg, "--timeline") &&
                     rt_test_contains(err.msg, "it is a folder"),
                 "a folder: '%s'", err.msg);
    snprintf(path, sizeof path, "%s/sub/", work);
    RT_CHECK_MSG(rt_trace_open(path, &c.be, 0, 1, &t, &err) != 0 && t == NULL &&
                     rt_test_contains(err.msg, "folder"),
                 "a trailing slash: '%s'", err.msg);
    RT_CHECK(rt_test_write_file(c.csv, "kept\n") == 0);
    RT_CHECK(rt_trace_open(c.csv, &c.be, 0, 1, &t, &err) == 0 && t != NULL);
    rt_trace_free(t);
    char *kept = rt_test_read_file(work, "traced.csv", NULL);
    RT_CHECK(kept && strcmp(kept, "kept\n") == 0);
    free(kept);
    /* No CUDA backend: refused, naming the option. */
    rt_backend cpu = {0};
    snprintf(cpu.cuda_status, sizeof cpu.cuda_status, "no GPU here");
    t = NULL;
    RT_CHECK(rt_trace_open("x.csv", &cpu, 0, 1, &t, &err) != 0 && t == NULL &&
             rt_test_contains(err.msg, "--timeline x.csv") &&
             rt_test_contains(err.msg, "no GPU here"));
}

int main(int argc, char **argv)
{
    const int rc = runner_util_main(argc, argv, "test_trace_run", body);
    return rc != 0 ? rc : RT_TEST_RESULT();
}
