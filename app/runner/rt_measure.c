#define _POSIX_C_SOURCE 200809L
#include "rt_measure.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_cacheflush.h"
#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_criterion.h"
#include "rt_energy.h"
#include "rt_interrupt.h"
#include "rt_path.h"
#include "rt_phases.h"
#include "rt_point_memory.h"
#include "rt_progress.h"
#include "rt_roofline_glue.h"
#include "rt_stats.h"
#include "rt_strutil.h"
#include "rt_trace.h"
#include "rt_verify.h"

/* ---------------------------------------------------------------------------------------------
 * Agreement between ranks. Every rank reaches each step with a local outcome; they agree on the
 * worst one, and the message of the lowest rank that had it travels to everyone, so rank 0 can
 * record what happened on rank 5 and no rank waits for a partner that gave up. */
typedef enum outcome {
    OUT_OK = 0,
    OUT_INFEASIBLE = 1,
    OUT_TIMEOUT = 2,
    OUT_ERROR = 3,
    /* A kernel's child process was ended by SIGINT or SIGTERM (RT_INTERRUPTED): the worst, so
     * that one rank's unfinished execution drops the point on every rank when the run is being
     * interrupted (settle). */
    OUT_INTERRUPTED = 4
} outcome;

static int agree(rt_measure_ctx *m, outcome local, const char *local_msg, outcome *global,
                 char *msg, size_t msglen, rt_err *err)
{
    double worst = (double)local;
    if (rt_comm_max_double(m->comm, (double)local, &worst, err) != 0)
        return rt_err_set(err, "communication failed while agreeing on a point's outcome");
    *global = (outcome)(int)worst;
    if (*global == OUT_OK) {
        msg[0] = '\0';
        return 0;
    }
    const double mine = (local == *global) ? (double)m->rank : 1e9;
    double who = 0;
    if (rt_comm_min_double(m->comm, mine, &who, err) != 0)
        return rt_err_set(err, "communication failed while agreeing on a point's outcome");
    const int from = (int)who;
    char buf[512];
    memset(buf, 0, sizeof buf);
    if (m->rank == from)
        snprintf(buf, sizeof buf, "%s", local_msg ? local_msg : "");
    if (rt_comm_bcast_bytes(m->comm, buf, sizeof buf, from, err) != 0)
        return rt_err_set(err, "communication failed while sharing rank %d's message", from);
    if (m->nranks > 1)
        snprintf(msg, msglen, "rank %d: %s", from, buf);
    else
        snprintf(msg, msglen, "%s", buf);
    return 0;
}

/* What one rank saw in a step before the ranks agree: its outcome and, unless OUT_OK, why. err
 * takes the error of what the step called; step_fail turns it (or any text) into the reason. */
typedef struct step_local {
    outcome out;
    char msg[512];
    rt_err err;
} step_local;

static void step_local_init(step_local *l)
{
    l->out = OUT_OK;
    l->msg[0] = '\0';
    rt_err_clear(&l->err);
}

static void step_fail(step_local *l, outcome out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void step_fail(step_local *l, outcome out, const char *fmt, ...)
{
    l->out = out;
    /* Formatted whole, then fitted: a deep checkout's paths in a kernel's message must not push
     * what failed past the end of the point's reason (rt_path_fit_text). */
    char whole[RT_ERR_MSG_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(whole, sizeof whole, fmt, ap);
    va_end(ap);
    rt_path_fit_text(whole, l->msg, sizeof l->msg);
}

/* A signal on any rank stops every rank: 1 when one came (m->interrupted_by and m->stop set), 0
 * when none did, -1 when communication fails. */
static int agree_interrupt(rt_measure_ctx *m, rt_err *err)
{
    double sig = (double)rt_interrupt_signal();
    if (rt_comm_max_double(m->comm, sig, &sig, err) != 0)
        return rt_err_set(err, "communication failed while checking for an interrupt");
    if (!(sig > 0))
        return 0;
    m->interrupted_by = (int)sig;
    m->stop = 1;
    return 1;
}

/* Whether a signal stopped the point in flight: agree_interrupt, except in a parallel worker
 * (m->sink), whose coordinator got the signal too (the run's process group) and stops the run:
 * the worker only leaves the point unsent (DROPPED), and ends when the coordinator says, not as a
 * run of its own that was interrupted (which its coordinator would take for a failed worker). */
static int point_interrupted(rt_measure_ctx *m, rt_err *err)
{
    if (m->sink)
        return rt_interrupt_signal() != 0;
    return agree_interrupt(m, err);
}

/* The outcome of a kernel hook that failed with rc. */
static outcome failed_outcome(int rc)
{
    return rc == RT_INTERRUPTED ? OUT_INTERRUPTED : OUT_ERROR;
}

/* A kernel's child process ended by SIGINT or SIGTERM: a Ctrl-C reaches the child and rooftune
 * together, but the child's death can be seen a moment before rooftune's own handler has run.
 * Waits for the handler up to a short grace (not at all when it has run), so the child's death is
 * judged against the signal that caused it; a signal sent to the child alone finds no handler
 * run and the point is an error. */
static void await_own_signal(void)
{
    const struct timespec step = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
    for (int i = 0; i < 50 && rt_interrupt_signal() == 0; ++i)
        nanosleep(&step, NULL);
}

int rt_measure_init(rt_measure_ctx *m, const rt_config *cfg, const rt_backend *be, void *comm,
                    rt_store *store, int64_t run_id, const rt_provenance *prov,
                    const rt_run_options *opt, rt_err *err)
{
    memset(m, 0, sizeof *m);
    m->cfg = cfg;
    m->be = be;
    m->comm = comm;
    m->store = store;
    m->run_id = run_id;
    m->prov = prov;
    m->opt = opt;
    m->rank = rt_comm_world_rank(m->comm);
    m->nranks = rt_comm_world_size(m->comm);
    m->samples_cap = cfg->measure.max_reps > 0 ? cfg->measure.max_reps : 1;
    m->samples = calloc((size_t)m->samples_cap, sizeof(double));
    m->rank_min = calloc((size_t)m->samples_cap, sizeof(double));
    m->rank_avg = calloc((size_t)m->samples_cap, sizeof(double));
    if (!m->samples || !m->rank_min || !m->rank_avg) {
        rt_measure_free(m);
        return rt_err_set(err, "out of memory for %d samples", m->samples_cap);
    }
    if (cfg->measure.mode == RT_MEASURE_COLD && rt_cacheflush_create(0, &m->flush, err) != 0) {
        rt_measure_free(m);
        return -1;
    }
    const rt_criterion_params cp = {.target_rel_ci = cfg->measure.target_rel_ci,
                                    .confidence = cfg->measure.confidence,
                                    .max_noise = cfg->measure.max_noise};
    if (rt_criterion_create(cfg->measure.stop, NULL, &cp, &m->criterion, err) != 0) {
        rt_measure_free(m);
        return rt_err_prefix(err, "measure.stop");
    }
    if (rt_roofline_glue_create(cfg, be, opt->machine_dir, &m->roofline, opt->log, m->rank, err) !=
        0) {
        rt_measure_free(m);
        return -1;
    }
    if (be->cuda_loaded && be->plugin->set_compile_limit)
        be->plugin->set_compile_limit(be->plugin_state, cfg->measure.compile_timeout_s);
    /* The kernels' compile_ahead hooks are called while it is on; the CUDA plugin's pool does
     * their compiles. A pool that cannot start is not fatal: every point compiles on its own
     * path, as without it. */
    m->compile_ahead = cfg->measure.compile_ahead > 0;
    if (m->compile_ahead && be->cuda_loaded && be->plugin->set_compile_ahead) {
        rt_err why;
        rt_err_clear(&why);
        if (be->plugin->set_compile_ahead(be->plugin_state, cfg->measure.compile_ahead, &why) !=
            0) {
            m->compile_ahead = 0;
            if (opt->log)
                fprintf(opt->log, "rank %d: measure.compile_ahead is off: %s\n", m->rank, why.msg);
        }
    }
    return 0;
}

int rt_measure_upcoming(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params)
{
    if (!m->compile_ahead || !t->kernel->compile_ahead || m->n_upcoming >= RT_MEASURE_UPCOMING)
        return 0;
    m->upcoming[m->n_upcoming++] = *params;
    return 1;
}

/* The upcoming points' compiles, queued on the pool now that the inputs they need are ready;
 * a refusal costs the point nothing but its compile on its own path later. */
static void queue_upcoming(rt_measure_ctx *m, const rt_measure_target *t, const rt_kernel_env *env)
{
    for (int i = 0; i < m->n_upcoming; ++i) {
        rt_err ignored;
        if (t->kernel->compile_ahead(t->kernel, m->inputs, &m->upcoming[i], env, &ignored) != 0)
            m->ahead_failed++;
    }
    m->n_upcoming = 0;
}

void rt_measure_use_comm(rt_measure_ctx *m, void *comm)
{
    if (m->comm == comm)
        return;
    rt_measure_release_inputs(m);
    m->comm = comm;
    m->rank = rt_comm_world_rank(m->comm);
    m->nranks = rt_comm_world_size(m->comm);
}

void rt_measure_release_inputs(rt_measure_ctx *m)
{
    rt_inputs_set set = {.family = m->in_family,
                         .inputs = m->inputs,
                         .reference = m->reference,
                         .scale = m->scale,
                         .output = m->output};
    rt_inputs_set_free(&set);
    m->inputs = NULL;
    m->in_family = NULL;
    m->in_matrix = NULL;
    m->in_problem[0] = '\0';
    m->reference = NULL;
    m->scale = NULL;
    m->output = NULL;
    m->n_out = 0;
}

void rt_measure_finish(rt_measure_ctx *m, rt_run_summary *sum)
{
    if (m->be->cuda_loaded && m->be->plugin->stats)
        m->be->plugin->stats(m->be->plugin_state, &sum->compiles, &sum->cache_hits);
    /* The pool's own account (its failures and the compiles no point took are in no point's
     * metrics): one line per process that queued anything. */
    rt_plugin_ahead_stats st = {0};
    if (m->compile_ahead && m->be->cuda_loaded && m->be->plugin->ahead_stats)
        m->be->plugin->ahead_stats(m->be->plugin_state, &st);
    if (st.submitted > 0 && m->opt->log)
        fprintf(m->opt->log,
                "rank %d: compile ahead: %d variant(s) queued, %d compiled (%.2f s of NVRTC off "
                "the points' path), %d found cached, %d failed, %d taken back by their point; "
                "%d hook refusal(s)\n",
                m->rank, st.submitted, st.compiled, st.compile_s, st.cached, st.failed, st.dropped,
                m->ahead_failed);
}

void rt_measure_free(rt_measure_ctx *m)
{
    rt_measure_drop_ahead(m);
    rt_measure_release_inputs(m);
    free(m->samples);
    free(m->rank_min);
    free(m->rank_avg);
    m->samples = m->rank_min = m->rank_avg = NULL;
    if (m->flush)
        rt_cacheflush_free(m->flush);
    m->flush = NULL;
    rt_roofline_glue_free(m->roofline);
    m->roofline = NULL;
    rt_criterion_free(m->criterion);
    m->criterion = NULL;
}

/* The stop request the runner gives families building their inputs: a SIGINT or SIGTERM. */
static int signal_received(const void *ctx)
{
    (void)ctx;
    return rt_interrupt_signal() != 0;
}

/* Builds (or reuses) the family inputs and the double-precision reference for this problem. */
/* The family's inputs (and the reference) of this matrix and problem point exist already. */
static int inputs_current(const rt_measure_ctx *m, const rt_measure_target *t,
                          const char *problem_json)
{
    return m->inputs && m->in_family == t->family && m->in_matrix == t->local &&
           strcmp(m->in_problem, problem_json) == 0;
}

/* The job the families build a point's inputs for: the ranks of m->comm, which measure the point
 * together. A rank measuring whole points alone (parallel tuning, rt_measure_use_comm with a
 * one-rank communicator) is a one-rank job and gets the whole problem, not the 1/N share its
 * place in MPI_COMM_WORLD would give. */
static rt_job measuring_job(const rt_measure_ctx *m)
{
    const rt_job job = {.rank = m->rank, .nranks = m->nranks};
    return job;
}

/* The set's arrays become the context's current inputs. */
static void adopt_inputs(rt_measure_ctx *m, rt_inputs_set *set)
{
    m->inputs = set->inputs;
    m->in_family = set->family;
    m->in_matrix = set->matrix;
    snprintf(m->in_problem, sizeof m->in_problem, "%s", set->problem);
    m->reference = set->reference;
    m->scale = set->scale;
    m->output = set->output;
    m->n_out = set->n_out;
    memset(set, 0, sizeof *set);
}

/* The inputs built ahead for this target, when the build was for it and worked: 1 (adopted), else
 * 0 (the caller builds them, and meets the failure again with its usual message). */
static int take_ahead(rt_measure_ctx *m, const rt_measure_target *t, const char *problem_json)
{
    if (!m->ahead || !rt_inputs_ahead_matches(m->ahead, t->family, t->local, problem_json))
        return 0;
    rt_inputs_set set;
    double begin, end;
    rt_err ignored;
    const int got = rt_inputs_ahead_take(m->ahead, &set, &begin, &end, &ignored) == 0;
    rt_inputs_ahead_free(m->ahead);
    m->ahead = NULL;
    if (!got)
        return 0;
    adopt_inputs(m, &set);
    (void)rt_phases_add(m->opt->phases, "inputs and reference ahead", NULL, begin, end);
    return 1;
}

/* Builds (or reuses, or takes from the build ahead) the family inputs and the double-precision
 * reference for this problem. */
static int ensure_inputs(rt_measure_ctx *m, const rt_measure_target *t, const char *problem_json,
                         rt_err *err)
{
    if (inputs_current(m, t, problem_json))
        return 0;
    rt_measure_release_inputs(m);
    if (take_ahead(m, t, problem_json))
        return 0;
    const double t0 = rt_clock_epoch();
    /* A family that builds for minutes polls for a signal, so SIGINT does not wait for it. */
    const rt_stop on_signal = {.requested = signal_received, .ctx = NULL};
    const rt_job job = measuring_job(m);
    rt_inputs_set set;
    if (rt_inputs_build(&set, t->family, t->matrix, t->local, t->problem, problem_json, &job,
                        &on_signal, err) != 0)
        return -1;
    adopt_inputs(m, &set);
    (void)rt_phases_add(m->opt->phases, "inputs and reference", NULL, t0, rt_clock_epoch());
    return 0;
}

/* Whether a point's memory check would let its inputs be built (a family without a footprint
 * estimate: yes). */
static int inputs_fit(const rt_measure_ctx *m, const rt_measure_target *t)
{
    if (!rt_family_has_footprint(t->family))
        return 1;
    rt_point_memory_in mi = {.inputs_resident = 0,
                             .device_kernel = strcmp(t->kernel->backend, "cpu") != 0,
                             .ranks_on_host = rt_comm_size(m->comm, RT_COMM_NODE),
                             .host_available = rt_point_memory_host_available(),
                             .device_memory = t->device->global_mem_bytes};
    const rt_job job = measuring_job(m);
    rt_err ignored;
    char why[512];
    return rt_family_footprint(t->family, t->local, t->problem, &job, &mi.fp, &ignored) == 0 &&
           rt_point_memory_fits(&mi, why, sizeof why);
}

void rt_measure_prepare(rt_measure_ctx *m, const rt_measure_target *t)
{
    char problem_json[sizeof m->in_problem];
    if (t->input_error || !t->local ||
        rt_params_to_json(t->problem, problem_json, sizeof problem_json) < 0 ||
        inputs_current(m, t, problem_json))
        return;
    /* As a point's inputs step would: nothing is built that its memory check would refuse. */
    if (!inputs_fit(m, t))
        return;
    rt_err ignored;
    if (ensure_inputs(m, t, problem_json, &ignored) != 0)
        rt_measure_release_inputs(m); /* the first point builds them again and says why not */
}

void rt_measure_prepare_ahead(rt_measure_ctx *m, const rt_measure_target *t)
{
    char problem_json[sizeof m->in_problem];
    if (t->input_error || !t->local ||
        rt_params_to_json(t->problem, problem_json, sizeof problem_json) < 0 ||
        inputs_current(m, t, problem_json) ||
        rt_inputs_ahead_matches(m->ahead, t->family, t->local, problem_json))
        return;
    rt_measure_drop_ahead(m);
    /* The footprint check sees the next sweep's inputs alone, not beside the current ones: a
     * pair that does not fit fails its allocation in the thread, and the point builds them
     * again after the current ones are freed. */
    if (!inputs_fit(m, t))
        return;
    const rt_stop on_signal = {.requested = signal_received, .ctx = NULL};
    const rt_job job = measuring_job(m);
    rt_err ignored;
    (void)rt_inputs_ahead_start(t->family, t->matrix, t->local, t->problem, &job, &on_signal,
                                &m->ahead, &ignored); /* no thread: built when reached */
}

void rt_measure_drop_ahead(rt_measure_ctx *m)
{
    rt_inputs_ahead_free(m->ahead);
    m->ahead = NULL;
}

const rt_csr *rt_measure_ahead_matrix(const rt_measure_ctx *m)
{
    return m->ahead ? rt_inputs_ahead_matrix(m->ahead) : NULL;
}

/* Reads this rank's output from the kernel (poisoned first, so an element the kernel does not
 * write fails) and compares it with the reference on every rank. *gate_error: the kernel failed
 * to hand over its output (msg filled, already agreed); otherwise *passed and why say how the
 * comparison went. Returns -1 only when communication fails. */
static int check_output(rt_measure_ctx *m, void *state, const rt_kernel_desc *kernel,
                        double tolerance, rt_verify_result *vr, int *gate_error, char *msg,
                        size_t msglen, rt_err *err)
{
    step_local l;
    step_local_init(&l);
    outcome g = OUT_OK;
    rt_verify_poison(m->output, m->n_out);
    if (kernel->output(state, m->output, &l.err) != 0)
        step_fail(&l, OUT_ERROR, "%s", l.err.msg);
    if (agree(m, l.out, l.msg, &g, msg, msglen, err) != 0)
        return -1;
    *gate_error = g != OUT_OK;
    if (*gate_error)
        return 0;
    return rt_verify_output(m->comm, m->output, m->reference, m->scale, m->n_out, tolerance, vr,
                            err);
}

static void format_params_short(const rt_params *p, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n && o + 1 < len; ++i) {
        char v[128];
        if (p->item[i].value.kind == RT_V_STR)
            snprintf(v, sizeof v, "%s", p->item[i].value.s);
        else
            rt_value_format(&p->item[i].value, v, sizeof v);
        const int w = snprintf(buf + o, len - o, "%s%s=%s", i ? " " : "", p->item[i].name, v);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

/* ---------------------------------------------------------------------------------------------
 * One point, step by step. Each step returns STEP_NEXT to go on, STEP_RECORD when the point's
 * outcome is known (it is recorded), STEP_DONE when nothing is to be recorded (resumed, dry run),
 * or -1 on a run error (every rank returns it together). */
enum { STEP_NEXT = 0, STEP_RECORD = 1, STEP_DONE = 2 };

/* What the steps of one point share. */
typedef struct point_run {
    rt_measure_ctx *m;
    const rt_measure_target *t;
    const rt_params *params;
    rt_measured res; /* the record and what its log line says */
    rt_kernel_env env;
    void *state;
    int have_state;
    double verify_s; /* the verification execution's time on this rank (abort_reps 0) */
    int pre_n;       /* 1: the verification execution ended the point, its time the one sample */
} point_run;

/* The end of a step: the ranks agree on its outcome (agree), and a point that failed on any rank
 * gets the status of the worst outcome and the agreed reason, after "<context>: " when context is
 * not NULL. STEP_NEXT when every rank succeeded, STEP_RECORD when the point failed, -1 when
 * communication failed. */
static int settle(point_run *p, const step_local *l, const char *context, rt_err *err)
{
    outcome g = OUT_OK;
    char msg[512] = "";
    if (l->out == OUT_INTERRUPTED)
        await_own_signal();
    if (agree(p->m, l->out, l->msg, &g, msg, sizeof msg, err) != 0)
        return -1;
    if (g == OUT_OK)
        return STEP_NEXT;
    /* The run's own interrupt ended an execution: the point was not measured. Nothing is
     * recorded, the run stops as interrupted and a rerun measures it, as for a signal while the
     * inputs are built. Without the interrupt (a signal sent to the child alone) it is an error. */
    if (g == OUT_INTERRUPTED) {
        const int signalled = point_interrupted(p->m, err);
        if (signalled < 0)
            return -1;
        if (signalled)
            return STEP_DONE;
    }
    rt_point_record *rec = &p->res.rec;
    rec->status = g == OUT_INFEASIBLE ? RT_POINT_INFEASIBLE
                  : g == OUT_TIMEOUT  ? RT_POINT_TIMEOUT
                                      : RT_POINT_ERROR;
    snprintf(rec->reason, sizeof rec->reason, "%s%s%s", context ? context : "", context ? ": " : "",
             msg);
    return STEP_RECORD;
}

/* The point's identity: names, parameters, and the key the store resumes by. */
static int step_identify(point_run *p, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    const rt_params *params = p->params;

    snprintf(rec->experiment, sizeof rec->experiment, "%s", m->cfg->name);
    snprintf(rec->kernel, sizeof rec->kernel, "%s", t->kernel->name);
    snprintf(rec->backend, sizeof rec->backend, "%s", t->kernel->backend);
    snprintf(rec->family, sizeof rec->family, "%s", t->kernel->family);
    snprintf(rec->matrix, sizeof rec->matrix, "%s", t->matrix->name);
    snprintf(rec->device, sizeof rec->device, "%s", t->device->name);
    rec->ranks = m->nranks;
    rec->rel_error = NAN;
    rec->bound_s = NAN;
    rec->efficiency = NAN;
    rec->time_median_s = rec->time_min_s = rec->time_max_s = rec->time_mean_s = NAN;
    rec->time_stddev_s = rec->ci_rel = rec->gflops = rec->gnnz_s = NAN;
    if (rt_params_to_json(params, rec->params_json, sizeof rec->params_json) < 0 ||
        rt_params_to_json(t->problem, rec->problem_json, sizeof rec->problem_json) < 0)
        return rt_err_set(err, "kernel %s: parameters too long to record", t->kernel->name);
    {
        char keytext[4096];
        snprintf(keytext, sizeof keytext, "%s|%s|%s|%s|%d|%s", rec->kernel, rec->matrix,
                 rec->params_json, rec->problem_json, rec->ranks, rec->device);
        rt_hash_hex(rt_hash64(keytext, strlen(keytext), 0), rec->point_key);
    }
    format_params_short(params, p->res.shown, sizeof p->res.shown);
    format_params_short(t->problem, p->res.problem_shown, sizeof p->res.problem_shown);
    return STEP_NEXT;
}

/* Resume: a point the store already holds is skipped; a dry run only says what it would run. */
static int step_resume(point_run *p, int feasible, const char *why, double *objective,
                       rt_run_summary *sum, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    rt_point_record *rec = &p->res.rec;

    /* Resume: rank 0 asks the store, everyone follows. A stored point hands the search its
     * objective and the pruning its time and bound, so a resumed search takes the same path and
     * prunes the same points as the run it continues (a pruned point is itself stored: never
     * run, never recorded twice). */
    int done = 0, was_pruned = 0;
    double stored[3] = {INFINITY, NAN, 0}; /* median time (ok points), bound, pruned */
    if (m->rank == 0 && m->store &&
        rt_store_point_resume(m->store, m->prov->build_id, m->prov->config_hash, rec->point_key,
                              &done, &was_pruned, &stored[0], &stored[1], err) != 0)
        return -1;
    stored[2] = was_pruned;
    int done_all = done;
    if (rt_comm_bcast_int(m->comm, &done_all, 0, err) != 0 ||
        (done_all && rt_comm_bcast_bytes(m->comm, stored, sizeof stored, 0, err) != 0))
        return rt_err_set(err, "communication failed during the resume check");
    if (done_all) {
        sum->resumed++;
        *objective = stored[0];
        if (p->t->prune && stored[2] != 0)
            p->t->prune->pruned++; /* the same decision as before: it used no budget then */
        else if (p->t->prune)
            rt_prune_observe(p->t->prune, stored[0], stored[1]);
        if (p->t->sweep_best && stored[0] < *p->t->sweep_best)
            *p->t->sweep_best = stored[0];
        if (p->t->group_best && stored[0] < *p->t->group_best)
            *p->t->group_best = stored[0];
        return STEP_DONE;
    }
    if (m->opt->dry_run) {
        if (m->rank == 0 && m->opt->log)
            fprintf(m->opt->log, "  would run %s %s [%s] %s%s%s\n", rec->kernel, rec->matrix,
                    p->res.problem_shown, p->res.shown,
                    feasible ? "" : "  (infeasible: ", feasible ? "" : why);
        if (!feasible && m->rank == 0 && m->opt->log)
            fprintf(m->opt->log, ")\n");
        return STEP_DONE;
    }
    return STEP_NEXT;
}

/* Inputs and reference, shared by all kernels of the problem point, and the nominal flops. */
static int step_inputs(point_run *p, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;

    if (t->input_error) {
        rec->status = RT_POINT_ERROR;
        rt_path_fit_text(t->input_error, rec->reason, sizeof rec->reason);
        return STEP_RECORD;
    }

    /* The whole point's memory, before anything of it is allocated. */
    if (rt_family_has_footprint(t->family)) {
        step_local fl;
        step_local_init(&fl);
        rt_point_memory_in mi = {.inputs_resident = inputs_current(m, t, rec->problem_json),
                                 .device_kernel = strcmp(t->kernel->backend, "cpu") != 0,
                                 .ranks_on_host = rt_comm_size(m->comm, RT_COMM_NODE),
                                 .host_available = rt_point_memory_host_available(),
                                 .device_memory = t->device->global_mem_bytes};
        const rt_job job = measuring_job(m);
        if (rt_family_footprint(t->family, t->local, t->problem, &job, &mi.fp, &fl.err) != 0)
            step_fail(&fl, OUT_ERROR, "%s", fl.err.msg);
        else if (!rt_point_memory_fits(&mi, fl.msg, sizeof fl.msg))
            fl.out = OUT_INFEASIBLE;
        const int rc = settle(p, &fl, NULL, err);
        if (rc != STEP_NEXT)
            return rc;
    }

    /* Inputs and reference (shared by all kernels of the problem point). Not settled: without
     * them the point is not recorded, the run stops. */
    step_local l;
    step_local_init(&l);
    if (ensure_inputs(m, t, rec->problem_json, &l.err) != 0)
        step_fail(&l, OUT_ERROR, "%s", l.err.msg);
    outcome g = OUT_OK;
    char msg[512] = "";
    if (agree(m, l.out, l.msg, &g, msg, sizeof msg, err) != 0)
        return -1;
    if (g != OUT_OK) {
        /* A signal on any rank while the inputs were built stopped them: the run ends as
         * interrupted, with nothing recorded for this point (a rerun measures it). */
        const int signalled = point_interrupted(m, err);
        if (signalled < 0)
            return -1;
        if (signalled) {
            rt_measure_release_inputs(m);
            return STEP_DONE;
        }
        /* Without inputs nothing of this problem can run: that is a run error. */
        return rt_err_set(err, "%s", msg);
    }
    rec->flops = t->family->flops(m->inputs);
    rec->tolerance = t->family->tolerance(m->inputs);
    {
        double flops_all = rec->flops;
        if (rt_comm_sum_double(m->comm, rec->flops, &flops_all, err) != 0)
            return -1;
        rec->flops = flops_all;
    }
    return STEP_NEXT;
}

/* Roofline-bounded pruning (search.prune: bound): the candidate's bound, from the same traffic
 * model and machine file as a measured point's, against the best time measured so far in this
 * sweep. A bound above it means the candidate cannot win: it is recorded as pruned with both
 * numbers (bound_s, and the metric prune_best_s) and not set up or run. Collective: every rank
 * computes the bound (the busiest rank's is the point's) and reaches the same decision. */
static int step_prune(point_run *p)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    rt_prune *pr = t->prune;
    if (!pr || !pr->enabled || !isfinite(pr->best))
        return STEP_NEXT;
    const double bound =
        rt_roofline_glue_bound_before(m->roofline, t->kernel, m->inputs, p->params, t->problem,
                                      m->cfg->measure.mode == RT_MEASURE_HOT, &p->env);
    if (!rt_prune_skip(pr, bound))
        return STEP_NEXT;
    rec->status = RT_POINT_PRUNED;
    rec->bound_s = bound;
    rt_metrics_add(&p->res.metrics, RT_METRIC_PRUNE_BEST, "s", pr->best, 0);
    snprintf(rec->reason, sizeof rec->reason,
             "roofline bound %.4g ms exceeds the best time measured in this sweep, %.4g ms: "
             "cannot win, not run",
             bound * 1e3, pr->best * 1e3);
    return STEP_RECORD;
}

/* Feasibility hook, then setup; an infeasible or failed point is recorded with the reason. */
static int step_setup(point_run *p, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    const rt_params *params = p->params;
    const rt_kernel_env *env = &p->env;
    step_local l;
    step_local_init(&l);

    if (t->kernel->check) {
        char kwhy[512] = "";
        const int c =
            t->kernel->check(t->kernel, m->inputs, params, env, kwhy, sizeof kwhy, &l.err);
        if (c == RT_INFEASIBLE)
            step_fail(&l, OUT_INFEASIBLE, "%s", kwhy);
        else if (c != 0)
            step_fail(&l, OUT_ERROR, "%s", l.err.msg);
    }
    if (l.out == OUT_OK) {
        const double t0 = rt_clock_now();
        const int s = t->kernel->setup(t->kernel, m->inputs, params, env, &p->state, &l.err);
        rec->setup_s = rt_clock_now() - t0;
        if (s == 0)
            p->have_state = 1;
        else {
            step_fail(&l,
                      s == RT_INFEASIBLE  ? OUT_INFEASIBLE
                      : s == RT_TIMED_OUT ? OUT_TIMEOUT
                                          : failed_outcome(s),
                      "%s", l.err.msg);
            if (p->state) { /* a failed setup may leave a partial state to tear down */
                t->kernel->teardown(p->state);
                p->state = NULL;
            }
        }
    }
    return settle(p, &l, NULL, err);
}

/* measure.abort_reps 0 with early abort on: the verification execution is timed as a first
 * repetition. */
static int verify_is_sample(const rt_measure_ctx *m)
{
    const rt_measure_cfg *mc = &m->cfg->measure;
    return mc->abort_reps == 0 && mc->abort_factor >= 1;
}

/* The verification gate: one execution, compared with the reference. */
static int step_verify(point_run *p, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    step_local l;
    step_local_init(&l);

    /* abort_reps 0 times this execution as a first repetition (step_verify_sample): the ranks
     * start it together, as they start every timed one. */
    if (verify_is_sample(m) && rt_comm_barrier(m->comm, err) != 0)
        return rt_err_set(err, "communication failed at a barrier");
    double sec = -1.0;
    const double t0 = rt_clock_now();
    const int ran = t->kernel->run(p->state, &sec, &l.err);
    if (ran != 0)
        step_fail(&l, failed_outcome(ran), "%s", l.err.msg);
    p->verify_s = sec < 0 ? rt_clock_now() - t0 : sec;
    const int rc = settle(p, &l, NULL, err);
    if (rc != STEP_NEXT)
        return rc;
    rt_verify_result vr;
    int gate_error = 0;
    char msg[512] = "";
    if (check_output(m, p->state, t->kernel, rec->tolerance, &vr, &gate_error, msg, sizeof msg,
                     err) != 0)
        return -1;
    if (gate_error) {
        rec->status = RT_POINT_ERROR;
        snprintf(rec->reason, sizeof rec->reason, "%s", msg);
        return STEP_RECORD;
    }
    rec->rel_error = vr.rel_error;
    if (!rt_verify_passed(&vr)) {
        char failed[480];
        rt_verify_describe(&vr, failed, sizeof failed);
        rec->status = RT_POINT_WRONG;
        snprintf(rec->reason, sizeof rec->reason, "%s: not timed", failed);
        return STEP_RECORD;
    }
    rec->verified = 1;
    return STEP_NEXT;
}

/* Warm-up executions (measure.warmup), untimed. */
static int step_warmup(point_run *p, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    const rt_measure_cfg *mc = &m->cfg->measure;
    step_local l;
    step_local_init(&l);

    for (int w = 0; w < mc->warmup && l.out == OUT_OK; ++w) {
        double sec;
        const int ran = t->kernel->run(p->state, &sec, &l.err);
        if (ran != 0)
            step_fail(&l, failed_outcome(ran), "warm-up: %s", l.err.msg);
    }
    return settle(p, &l, NULL, err);
}

/* The fastest of the point's first n repetitions. */
static double fastest_sample(const point_run *p, int n)
{
    double fastest = INFINITY;
    for (int i = 0; i < n; ++i)
        fastest = p->m->samples[i] < fastest ? p->m->samples[i] : fastest;
    return fastest;
}

/* The best time early abort compares with: the abort group's (kernels[].abort_group), else the
 * sweep's. */
static const double *abort_best(const point_run *p)
{
    return p->t->group_best ? p->t->group_best : p->t->sweep_best;
}

/* Early abort (measure.abort_factor k): after abort_reps repetitions, and after each further one,
 * a point whose fastest repetition so far is slower than k x the best verified time of its sweep
 * (or of its abort group) cannot come near the best, so sampling it further only spends time. The
 * fastest, not the median: every repetition must be slower, so one slow first run (a cold cache, a
 * clock ramping up) does not stop a point that would have been fast. A point of a group must also
 * be slower than its own sweep's best: the first verified point of each entry, and every one that
 * beats it, runs in full, so each entry's best time is a median of full samples. abort_reps 0:
 * the verification execution is the first repetition (step_verify_sample). */
static int should_abort(const point_run *p, int n)
{
    const rt_measure_cfg *mc = &p->m->cfg->measure;
    const double *best = abort_best(p), *own = p->t->sweep_best;
    if (!(mc->abort_factor >= 1) || !best || !isfinite(*best) || n < mc->abort_reps || n < 1)
        return 0;
    const double fastest = fastest_sample(p, n);
    return fastest > mc->abort_factor * *best && (!own || fastest > *own);
}

/* Both numbers of an aborted point: its fastest repetition (the samples keep all of them) and
 * the best time it lost to (the sweep's, or its abort group's), as metrics and in the reason.
 * at_verify: the verification execution stopped it (abort_reps 0). */
static void note_abort(point_run *p, int n, int at_verify)
{
    const rt_measure_cfg *mc = &p->m->cfg->measure;
    const double fastest = fastest_sample(p, n);
    const double best = *abort_best(p);
    p->res.aborted = 1;
    rt_metrics_add(&p->res.metrics, RT_METRIC_ABORTED, "", 1.0, 0);
    rt_metrics_add(&p->res.metrics, RT_METRIC_ABORT_BEST, "s", best, 0);
    char whose[128];
    if (p->t->group_best)
        snprintf(whose, sizeof whose, "the best of abort_group %s", p->t->kernel_cfg->abort_group);
    else
        snprintf(whose, sizeof whose, "the sweep's best");
    char when[64];
    if (at_verify)
        snprintf(when, sizeof when, "at its verification execution");
    else
        snprintf(when, sizeof when, "after %d repetition(s)", n);
    snprintf(p->res.rec.reason, sizeof p->res.rec.reason,
             "early abort %s: the fastest, %.4g ms, is over measure.abort_factor %g x %s %.4g ms",
             when, fastest * 1e3, mc->abort_factor, whose, best * 1e3);
}

/* measure.abort_reps 0: the verification execution's time (the slowest rank's) counts as the
 * point's first repetition for point_timeout_s and early abort, before any warm-up. One over
 * point_timeout_s makes the point a timeout, one over the abort rule stops it there (ok, verified,
 * aborted, with that one sample); any other point goes on to its warm-up and timed repetitions,
 * the verification's time left out of its samples. Why: an option set whose one execution takes
 * minutes (cuSPARSE's sliced-ELL SpSV with 32 right-hand sides: 32 solves of seconds each) would
 * otherwise run three executions, the verification, a warm-up and one repetition, to be stopped.
 * The first execution is a cold one: the factor must be wide enough that a cold start cannot
 * cross it (docs/guides/tuning.md#early-abort). */
static int step_verify_sample(point_run *p, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    rt_point_record *rec = &p->res.rec;
    const rt_measure_cfg *mc = &m->cfg->measure;
    if (!verify_is_sample(m))
        return STEP_NEXT;
    double smax = p->verify_s, smin = p->verify_s, savg = p->verify_s;
    if (rt_comm_time_reduce(m->comm, p->verify_s, &smax, &smin, &savg, err) != 0)
        return rt_err_prefix(err, "combining the verification execution's times");
    m->samples[0] = smax;
    m->rank_min[0] = smin;
    m->rank_avg[0] = savg;
    int decide = smax > mc->point_timeout_s ? 1 : should_abort(p, 1) ? 2 : 0;
    /* Rank 0 decides, so every rank takes the same way. */
    if (rt_comm_bcast_int(m->comm, &decide, 0, err) != 0)
        return rt_err_set(err, "communication failed while deciding to stop a point");
    if (decide == 1) {
        rec->status = RT_POINT_TIMEOUT;
        snprintf(rec->reason, sizeof rec->reason,
                 "the verification execution took %.3f s, over measure.point_timeout_s = %.3g s",
                 smax, mc->point_timeout_s);
    } else if (decide == 2) {
        note_abort(p, 1, 1);
    }
    p->pre_n = decide != 0;
    return STEP_NEXT;
}

/* measure.energy: the device's energy counter read around the repetitions (rt_energy.h). The
 * loop's energy over its repetitions is the energy of one, gaps between launches included; the
 * counter's own update period (tens of milliseconds on some GPUs) bounds how short a loop it can
 * see, and a loop shorter than that is said to be, not guessed. Every rank reads its own device and
 * the point's energy is their sum (the job's). */
typedef struct energy_mark {
    int wanted;
    double joules; /* NAN when the counter could not be read */
    double t0;
    char why[sizeof(((rt_metric *)0)->reason)]; /* becomes the metric's reason: its size */
} energy_mark;

static void energy_begin(const point_run *p, energy_mark *e)
{
    e->wanted = p->m->cfg->measure.energy > 0;
    e->joules = NAN;
    e->why[0] = '\0';
    if (e->wanted &&
        rt_energy_read(p->m->be, p->t->kernel->backend, &e->joules, e->why, sizeof e->why) != 0)
        e->joules = NAN;
    e->t0 = rt_clock_now();
}

static int energy_end(point_run *p, const energy_mark *e, int n, rt_err *err)
{
    if (!e->wanted)
        return 0;
    double e1 = NAN;
    char why[sizeof e->why];
    snprintf(why, sizeof why, "%s", e->why);
    if (!isnan(e->joules) &&
        rt_energy_read(p->m->be, p->t->kernel->backend, &e1, why, sizeof why) != 0)
        e1 = NAN;
    const double seconds = rt_clock_now() - e->t0;
    double used = e1 - e->joules; /* NAN when either read failed */
    /* The loop also ends at measure.max_reps, before measure.min_time_s: name the limit that
     * ended it, so the user raises the right one. */
    if (!isnan(used) && !(used > 0))
        snprintf(why, sizeof why,
                 "the energy counter did not advance over %.3g s of %d repetition(s) (it updates "
                 "less often; raise %s)",
                 seconds, n,
                 n >= p->m->samples_cap ? "measure.max_reps, which ended the loop"
                                        : "measure.min_time_s");
    if (!(used > 0))
        used = NAN;
    double total = used;
    if (rt_comm_sum_double(p->m->comm, used, &total, err) != 0)
        return rt_err_prefix(err, "summing the energy over ranks");
    if (isnan(total)) {
        rt_metrics_unavailable(&p->res.metrics, RT_METRIC_ENERGY, "J",
                               isnan(used) ? why : "not readable on every rank");
        return 0;
    }
    rt_metrics_add(&p->res.metrics, RT_METRIC_ENERGY, "J", total / n, 0);
    rt_metrics_add(&p->res.metrics, RT_METRIC_POWER, "W", total / seconds, 0);
    return 0;
}

/* The timed repetitions until the stopping rule (or a timeout, an early abort) ends them; *n gets
 * how many were sampled into m->samples. STEP_NEXT, or a step's outcome / -1 as settle says. */
static int timed_loop(point_run *p, int *n_out, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    const rt_measure_cfg *mc = &m->cfg->measure;
    step_local l;

    const int cold = mc->mode == RT_MEASURE_COLD;
    const rt_rep_limits limits = {.min_reps = mc->min_reps,
                                  .max_reps = mc->max_reps,
                                  .min_time_s = mc->min_time_s,
                                  .max_time_s = mc->max_time_s};
    double measured = 0.0;
    int n = 0;
    int stop = 0;
    while (!stop) {
        step_local_init(&l);
        if (cold) {
            if (t->kernel->flush) {
                if (t->kernel->flush(p->state, &l.err) != 0)
                    step_fail(&l, OUT_ERROR, "cache flush: %s", l.err.msg);
            } else if (m->flush) {
                rt_cacheflush_flush(m->flush);
            }
        }
        if (rt_comm_barrier(m->comm, err) != 0)
            return rt_err_set(err, "communication failed at a barrier");
        double sec = -1.0;
        rt_roofline_glue_timed_begin(m->roofline);
        const double t0 = rt_clock_now();
        const int ran = l.out == OUT_OK ? t->kernel->run(p->state, &sec, &l.err) : 0;
        if (ran != 0)
            step_fail(&l, failed_outcome(ran), "%s", l.err.msg);
        const double wall = rt_clock_now() - t0;
        rt_roofline_glue_timed_end(m->roofline);
        if (sec < 0)
            sec = wall;
        char context[48];
        snprintf(context, sizeof context, "repetition %d", n);
        const int rc = settle(p, &l, context, err);
        if (rc != STEP_NEXT)
            return rc;
        double smax = sec, smin = sec, savg = sec;
        if (rt_comm_time_reduce(m->comm, sec, &smax, &smin, &savg, err) != 0)
            return rt_err_prefix(err, "combining sample times");
        m->samples[n] = smax;
        m->rank_min[n] = smin;
        m->rank_avg[n] = savg;
        ++n;
        measured += smax;
        int decide = 0;
        if (smax > mc->point_timeout_s) {
            rec->status = RT_POINT_TIMEOUT;
            snprintf(rec->reason, sizeof rec->reason,
                     "one execution took %.3f s, over measure.point_timeout_s = %.3g s", smax,
                     mc->point_timeout_s);
            decide = 1;
        } else if (n >= m->samples_cap) {
            decide = 1;
        } else if (should_abort(p, n)) {
            decide = 2;
        } else {
            decide = rt_criterion_should_stop(m->criterion, &limits, m->samples, n, measured);
        }
        /* Rank 0 decides so every rank leaves the loop at the same repetition. */
        if (rt_comm_bcast_int(m->comm, &decide, 0, err) != 0)
            return rt_err_set(err, "communication failed while deciding to stop sampling");
        stop = decide;
        if (decide == 2)
            note_abort(p, n, 0);
    }
    *n_out = n;
    return STEP_NEXT;
}

/* The timed repetitions, with the energy read around them and the re-check of the last one's
 * output after; *n gets how many were sampled. STEP_NEXT, or a step's outcome / -1. */
static int sample_point(point_run *p, int *n, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    energy_mark energy;
    energy_begin(p, &energy);
    /* --timeline traces the timed loop alone, whichever way it ends: the re-check below fetches
     * the output (a device-to-host copy on a GPU), which is no part of the timed work. */
    rt_trace_point_begin(m->opt->trace, rec->point_key);
    const int rc = timed_loop(p, n, err);
    rt_trace_point_end(m->opt->trace);
    if (rc != STEP_NEXT)
        return rc;
    if (energy_end(p, &energy, *n, err) != 0)
        return -1;
    /* The output of the last timed repetition must still be right: a kernel that is correct
     * once and then drifts (state reused across runs, a race) is not timed honestly. */
    if (rec->status == RT_POINT_OK) {
        rt_verify_result vr;
        int gate_error = 0;
        char msg[512] = "";
        if (check_output(m, p->state, t->kernel, rec->tolerance, &vr, &gate_error, msg, sizeof msg,
                         err) != 0)
            return -1;
        if (gate_error) {
            rec->status = RT_POINT_ERROR;
            snprintf(rec->reason, sizeof rec->reason, "after %d timed repetition(s): %s", *n, msg);
        } else if (!rt_verify_passed(&vr)) {
            char failed[440];
            rt_verify_describe(&vr, failed, sizeof failed);
            rec->status = RT_POINT_WRONG;
            rec->verified = 0;
            rec->rel_error = vr.rel_error;
            snprintf(rec->reason, sizeof rec->reason, "re-check after %d timed repetition(s): %s",
                     *n, failed);
        }
    }
    return STEP_NEXT;
}

/* Samples until the median is known well enough or time runs out (or takes the one sample the
 * verification execution left, step_verify_sample); the summary and the rates. */
static int step_repetitions(point_run *p, double *objective, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    const rt_measure_cfg *mc = &m->cfg->measure;
    int n = p->pre_n;
    rt_criterion_reset(m->criterion);
    rt_roofline_glue_timed_reset(m->roofline);
    if (n == 0) {
        const int rc = sample_point(p, &n, err);
        if (rc != STEP_NEXT)
            return rc;
    } else if (mc->energy > 0) {
        rt_metrics_unavailable(&p->res.metrics, RT_METRIC_ENERGY, "J",
                               "no timed repetition: the verification execution stopped the "
                               "point (measure.abort_reps 0)");
    }
    rec->n_samples = n;
    rec->samples = m->samples;
    rec->samples_rank_min = m->rank_min;
    rec->samples_rank_avg = m->rank_avg;
    rt_stats_summary st;
    if (rt_stats_summarize(m->samples, n, &st, err) != 0)
        return rt_err_prefix(err, "summarising the samples of %s", rec->kernel);
    double ci_lo, ci_hi;
    if (rt_stats_median_ci(m->samples, n, mc->confidence, &ci_lo, &ci_hi, &rec->ci_rel, NULL,
                           err) != 0)
        return -1;
    /* Stopped by max_reps or max_time_s (or a noise that settled above its target) before the
     * criterion's target was reached: the time is recorded, marked so that nobody (compare
     * included) reads more into it than it holds. */
    if (rec->status == RT_POINT_OK &&
        !rt_criterion_met(m->criterion, m->samples, n, &p->res.stop_value, &p->res.stop_target)) {
        rt_metrics_add(&p->res.metrics, RT_METRIC_NOISY, "", 1.0, 0);
        p->res.noisy = 1;
    }
    rec->time_median_s = st.median;
    rec->time_min_s = st.min;
    rec->time_max_s = st.max;
    rec->time_mean_s = st.mean;
    rec->time_stddev_s = st.stddev;
    if (rec->status == RT_POINT_OK && st.median > 0) {
        rec->gflops = rec->flops / st.median * 1e-9;
        if (t->family->nonzeros) {
            double nz = t->family->nonzeros(m->inputs), nz_all = nz;
            if (rt_comm_sum_double(m->comm, nz, &nz_all, err) != 0)
                return -1;
            rec->gnnz_s = nz_all / st.median * 1e-9;
        }
        *objective = st.median;
    }
    return STEP_NEXT;
}

/* Kernel facts, then counters in passes of their own (never inside the timed loop). */
static void step_counters(point_run *p)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_metrics *metrics = &p->res.metrics;
    rt_err local;
    rt_err_clear(&local);

    if (t->kernel->metrics && t->kernel->metrics(p->state, metrics, &local) != 0)
        rt_metrics_unavailable(metrics, "kernel_metrics", "", local.msg);
    if (t->device && t->device->global_mem_bytes > 0)
        rt_metrics_add(metrics, RT_METRIC_DEVICE_MEMORY, "bytes",
                       (double)t->device->global_mem_bytes, 0);
    if (m->cfg->n_counters > 0 && rt_roofline_glue_counters(m->roofline, m->be, t->kernel, p->state,
                                                            m->cfg, metrics, &local) != 0) {
        rt_metrics_unavailable(metrics, "counters", "", local.msg);
    }
}

/* The roofline bound of the kernel's traffic model, and the efficiency against it. */
static void step_bound(point_run *p)
{
    rt_measure_ctx *m = p->m;
    const rt_measure_target *t = p->t;
    rt_point_record *rec = &p->res.rec;
    const rt_params *params = p->params;
    const rt_kernel_env *env = &p->env;
    rt_metrics *metrics = &p->res.metrics;

    /* Collective (the bound is the busiest rank's): every rank takes part, whatever it measured. */
    if (rec->status == RT_POINT_OK)
        rt_roofline_glue_bound(m->roofline, t->kernel, m->inputs, params, t->problem,
                               m->cfg->measure.mode == RT_MEASURE_HOT, env, rec, metrics);
}

/* Hands the point to its recorder: the store here (rt_measure_record), or the sink of a parallel
 * worker, which sends it to the coordinator that owns the store. */
static int step_record(point_run *p, double objective, rt_run_summary *sum, rt_err *err)
{
    rt_measure_ctx *m = p->m;
    if (p->have_state)
        p->t->kernel->teardown(p->state);
    p->have_state = 0;
    p->res.objective = objective;
    if (m->sink)
        return m->sink(m->sink_ctx, &p->res, err);
    return rt_measure_record(m, &p->res, sum, err);
}

/* Records the point (rank 0) and counts it; every rank learns whether the store took it. */
int rt_measure_record(rt_measure_ctx *m, rt_measured *res, rt_run_summary *sum, rt_err *err)
{
    rt_point_record *rec = &res->rec;
    if (rec->status == RT_POINT_OK && !isnan(m->cfg->expect_min_efficiency) &&
        !(rec->efficiency >= m->cfg->expect_min_efficiency)) {
        sum->expect_failures++;
        snprintf(rec->reason, sizeof rec->reason,
                 "efficiency %.3f is below expect.min_efficiency %.3f", rec->efficiency,
                 m->cfg->expect_min_efficiency);
    }
    switch (rec->status) {
    case RT_POINT_OK:
        sum->measured++;
        sum->noisy += res->noisy;
        sum->aborted += res->aborted;
        sum->aborted_samples += res->aborted ? rec->n_samples : 0;
        break;
    case RT_POINT_WRONG: sum->wrong++; break;
    case RT_POINT_INFEASIBLE: sum->infeasible++; break;
    case RT_POINT_ERROR: sum->errors++; break;
    case RT_POINT_TIMEOUT: sum->timeouts++; break;
    case RT_POINT_ABOVE_ROOFLINE: sum->above_roofline++; break;
    case RT_POINT_PRUNED: sum->pruned++; break;
    }
    const rt_metric *ahead = rt_metrics_get(&res->metrics, "compiled_ahead");
    sum->compiled_ahead += ahead && ahead->available && ahead->value > 0;
    if (m->rank == 0) {
        if (m->progress)
            rt_progress_clear(m->progress);
        if (m->opt->log) {
            if (rec->status == RT_POINT_OK || rec->status == RT_POINT_ABOVE_ROOFLINE)
                fprintf(m->opt->log,
                        "  %-22s %-14s [%s] %s: %.4g ms, %.3g GFLOP/s, %d samples, ci %.1f%%\n",
                        rec->kernel, rec->matrix, res->problem_shown, res->shown,
                        rec->time_median_s * 1e3, rec->gflops, rec->n_samples, rec->ci_rel * 100.0);
            else
                fprintf(m->opt->log, "  %-22s %-14s [%s] %s: %s: %s\n", rec->kernel, rec->matrix,
                        res->problem_shown, res->shown, rt_point_status_name(rec->status),
                        rec->reason);
            if (rec->status == RT_POINT_OK && res->aborted)
                fprintf(m->opt->log, "      %s\n", rec->reason);
            if (rec->status == RT_POINT_OK && res->noisy && !res->aborted) {
                const rt_criterion_ops *ops = rt_criterion_ops_of(m->criterion);
                const double value = res->stop_value * 100.0;
                const double target = res->stop_target * 100.0;
                const int d = rt_distinct_digits(value, target);
                fprintf(m->opt->log,
                        "      noisy: %s (%.*g%%) missed %s (%.*g%%) within max_reps / "
                        "max_time_s\n",
                        ops->quantity, d, value, ops->target_key, d, target);
            }
            if (rec->status == RT_POINT_OK && !isnan(rec->efficiency))
                fprintf(m->opt->log, "      bound %.4g ms, efficiency %.2f\n", rec->bound_s * 1e3,
                        rec->efficiency);
            if (rec->status == RT_POINT_ABOVE_ROOFLINE)
                fprintf(m->opt->log, "  !!! ABOVE ROOFLINE: %s\n", rec->reason);
        }
    }
    /* Rank 0 records; the others learn whether that worked, so a full disk stops every rank. */
    int stored = 1;
    if (m->rank == 0 && m->store) {
        int64_t point_id = 0;
        if (rt_store_add_point(m->store, m->run_id, rec, &point_id, err) != 0) {
            rt_err_prefix(err, "recording point %s of %s", res->shown, rec->kernel);
            stored = 0;
        }
    }
    int all_stored = stored, first_bad = -1;
    if (rt_comm_all_ok(m->comm, stored, &all_stored, &first_bad) != 0 || !all_stored) {
        if (m->rank != 0)
            rt_err_set(err, "rank 0 could not record a point in the store");
        return -1;
    }
    m->new_points++;
    if (m->opt->max_points > 0 && m->new_points >= m->opt->max_points)
        m->stop = 1;
    /* Rank 0's count decides: in a run whose other sweeps were spread over the ranks
     * (kernels[i].parallel), rank 0 recorded points the others never saw. */
    if (m->nranks > 1) {
        double stop = m->rank == 0 ? (double)m->stop : 0.0;
        if (rt_comm_max_double(m->comm, stop, &stop, err) != 0)
            return rt_err_set(err, "communication failed while agreeing to stop");
        m->stop = stop > 0;
    }
    /* A signal on any rank stops every rank here, after a point is safely recorded. */
    return agree_interrupt(m, err) < 0 ? -1 : 0;
}

/* One point: its identity, then (claim) the resume check, then (run) the measurement and the
 * record. */
enum { MEASURE_CLAIM = 1, MEASURE_RUN = 2 };

/* A point's stamps: its start, the end of each step that ran (NAN for one that did not). */
enum { STAMP_BEGIN, STAMP_INPUTS, STAMP_SETUP, STAMP_VERIFY, STAMP_REPS, STAMP_N };

/* The point and its steps into the phase record: "point" from its start to its record (or its
 * result sent), and each step that ran from the end of the one before: "inputs" (the memory
 * check; the problem's inputs and reference when they were not built yet, which are a phase of
 * their own too, "inputs and reference"), "setup" (the feasibility hook and
 * setup: plans, uploads, compiles), "verify" (one execution and the check), "repetitions"
 * (warm-up and the timed repetitions), then "finish" (counters, the bound, the check after
 * sampling, the record or the send, the teardown). */
static void note_point(const point_run *p, const double *at)
{
    static const char *const names[STAMP_N] = {"", "inputs", "setup", "verify", "repetitions"};
    rt_phases *ph = p->m->opt->phases;
    if (!ph)
        return;
    const char *key = p->res.rec.point_key;
    const double end = rt_clock_epoch();
    (void)rt_phases_add(ph, "point", key, at[STAMP_BEGIN], end);
    double from = at[STAMP_BEGIN];
    for (int i = STAMP_INPUTS; i < STAMP_N; ++i)
        if (!isnan(at[i])) {
            (void)rt_phases_add(ph, names[i], key, from, at[i]);
            from = at[i];
        }
    (void)rt_phases_add(ph, "finish", key, from, end);
}

static int measure(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                   int feasible, const char *why, double *objective, rt_run_summary *sum, int what,
                   rt_err *err)
{
    *objective = INFINITY;
    point_run run;
    memset(&run, 0, sizeof run);
    point_run *p = &run;
    p->m = m;
    p->t = t;
    p->params = params;
    int rc = step_identify(p, err);
    if (rc == STEP_NEXT && (what & MEASURE_CLAIM)) {
        sum->points_seen++;
        rc = step_resume(p, feasible, why, objective, sum, err);
    }
    if (rc != STEP_NEXT)
        return rc == STEP_DONE ? 1 : -1;
    if (!(what & MEASURE_RUN))
        return 0;

    rt_metrics_init(&p->res.metrics);
    p->res.rec.metrics = &p->res.metrics;
    p->res.rec.flops = NAN;
    /* Where the point's time goes (rt_phases.h): a stamp after each step that ran. */
    double at[STAMP_N];
    for (int i = 0; i < STAMP_N; ++i)
        at[i] = NAN;
    at[STAMP_BEGIN] = rt_clock_epoch();
    if (!feasible) {
        p->res.rec.status = RT_POINT_INFEASIBLE;
        snprintf(p->res.rec.reason, sizeof p->res.rec.reason, "%s", why);
        rc = STEP_RECORD;
    }
    if (rc == STEP_NEXT && (rc = step_inputs(p, err)) == STEP_NEXT)
        at[STAMP_INPUTS] = rt_clock_epoch();
    p->env = (rt_kernel_env){.device = t->device,
                             .cache_dir = NULL,
                             .rank = m->rank,
                             .nranks = m->nranks,
                             .comm = m->comm};
    if (rc == STEP_NEXT && m->n_upcoming > 0)
        queue_upcoming(m, t, &p->env);
    m->n_upcoming = 0; /* a point that went no further takes its list with it */
    if (rc == STEP_NEXT)
        rc = step_prune(p);
    if (rc == STEP_NEXT && (rc = step_setup(p, err)) == STEP_NEXT)
        at[STAMP_SETUP] = rt_clock_epoch();
    if (rc == STEP_NEXT && (rc = step_verify(p, err)) == STEP_NEXT)
        at[STAMP_VERIFY] = rt_clock_epoch();
    if (rc == STEP_NEXT)
        rc = step_verify_sample(p, err);
    if (rc == STEP_NEXT && !p->pre_n)
        rc = step_warmup(p, err);
    if (rc == STEP_NEXT && (rc = step_repetitions(p, objective, err)) == STEP_NEXT)
        at[STAMP_REPS] = rt_clock_epoch();
    if (rc == STEP_NEXT) {
        step_counters(p);
        step_bound(p);
    }
    if (rc == STEP_NEXT || rc == STEP_RECORD) {
        rc = step_record(p, *objective, sum, err);
        if (rc == 0)
            note_point(p, at);
    } else if (rc == STEP_DONE) { /* a signal stopped the point: nothing recorded, the run stops */
        if (p->have_state)
            t->kernel->teardown(p->state);
        rc = 0;
    } else if (p->have_state)
        t->kernel->teardown(p->state);
    /* Only a verified point that kept its status teaches the pruning its best time: an
     * above-roofline time means the model or the measurement is broken. */
    if (rc == 0 && t->prune && p->res.rec.status == RT_POINT_OK)
        rt_prune_observe(t->prune, *objective, p->res.rec.bound_s);
    if (rc == 0 && t->sweep_best && p->res.rec.status == RT_POINT_OK && *objective < *t->sweep_best)
        *t->sweep_best = *objective;
    if (rc == 0 && t->group_best && p->res.rec.status == RT_POINT_OK && *objective < *t->group_best)
        *t->group_best = *objective;
    return rc;
}

int rt_measure_point(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                     int feasible, const char *why, double *objective, rt_run_summary *sum,
                     rt_err *err)
{
    const int rc =
        measure(m, t, params, feasible, why, objective, sum, MEASURE_CLAIM | MEASURE_RUN, err);
    return rc < 0 ? -1 : 0;
}

int rt_measure_claim(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                     int feasible, const char *why, double *objective, rt_run_summary *sum,
                     rt_err *err)
{
    return measure(m, t, params, feasible, why, objective, sum, MEASURE_CLAIM, err);
}

int rt_measure_run(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                   int feasible, const char *why, double *objective, rt_run_summary *sum,
                   rt_err *err)
{
    return measure(m, t, params, feasible, why, objective, sum, MEASURE_RUN, err);
}
