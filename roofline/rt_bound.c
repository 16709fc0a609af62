/* rt_bound: roofline bounds and checks (formulas in rt_bound.h and docs/reference/roofline.md). */
#include "rt_bound.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const tier_terms[RT_TIER_COUNT] = {"socket link", "node link", "global network"};

const char *rt_bound_tier_term(rt_net_tier tier)
{
    return (tier >= 0 && tier < RT_TIER_COUNT) ? tier_terms[tier] : "?";
}

void rt_bound_opts_init(rt_bound_opts *o)
{
    o->precision = RT_FP32;
    o->combine = RT_BOUND_SUM;
    o->ceilings = RT_CEILINGS_EFFECTIVE;
}

static const char *machine_label(const rt_machine *m)
{
    return m->path[0] ? m->path : m->name;
}

static int check_amount(double v, const char *what, rt_err *err)
{
    if (!isfinite(v) || v < 0)
        return rt_err_set(err,
                          "roofline: traffic model gives %s = %g; it must be a finite "
                          "number >= 0",
                          what, v);
    return 0;
}

int rt_bound_compute(const rt_traffic *t, const rt_machine *m, const rt_bound_opts *opt,
                     rt_bound *out, rt_err *err)
{
    rt_bound_opts defaults;
    if (!opt) {
        rt_bound_opts_init(&defaults);
        opt = &defaults;
    }
    memset(out, 0, sizeof *out);
    const rt_ceilings *c = opt->ceilings == RT_CEILINGS_SPEC       ? &m->spec
                           : opt->ceilings == RT_CEILINGS_MEASURED ? &m->measured
                                                                   : &m->effective;
    const char *set = opt->ceilings == RT_CEILINGS_SPEC       ? "spec"
                      : opt->ceilings == RT_CEILINGS_MEASURED ? "measured"
                                                              : "spec or measured";
    int any = 0;

    if (check_amount(t->flops, "flops", err) != 0 ||
        check_amount(t->h2d_bytes, "h2d_bytes", err) != 0 ||
        check_amount(t->d2h_bytes, "d2h_bytes", err) != 0 ||
        check_amount(t->peer_bytes, "peer_bytes", err) != 0)
        return -1;
    /* Work spread over several devices of the rank: the busiest does at least the mean. */
    const double dev = t->devices > 1 ? (double)t->devices : 1.0;
    const int fp64 = opt->precision == RT_FP64, tensor = fp64 && t->fp64_tensor;
    const char *peak_name = tensor ? "fp64 tensor" : fp64 ? "fp64" : "fp32";
    /* FP64 tensor-core flops (DGEMM) on a machine without that peak: the FMA peak is below what
     * the kernel reaches, so no bound; the term is left out (a missing term only loosens it). */
    if (t->flops > 0 && !(tensor && !(c->fp64_tensor_gflops > 0))) {
        const double peak = tensor ? c->fp64_tensor_gflops : fp64 ? c->fp64_gflops : c->fp32_gflops;
        if (!(peak > 0))
            return rt_err_set(err, "roofline: machine '%s' has no %s_gflops in %s",
                              machine_label(m), fp64 ? "fp64" : "fp32", set);
        out->compute_s = t->flops / dev / (peak * 1e9);
        any = 1;
    }
    double intra = out->compute_s;
    snprintf(out->intra_limit, sizeof out->intra_limit, "%s", peak_name);
    for (int l = 0; l < RT_LEVEL_COUNT; ++l) {
        char what[48];
        snprintf(what, sizeof what, "bytes[%s]", rt_machine_level_name((rt_mem_level)l));
        if (check_amount(t->bytes[l], what, err) != 0)
            return -1;
        if (t->bytes[l] == 0)
            continue;
        /* A CPU has no software-managed shared memory: a CPU kernel that emulates a GPU one
         * reports what it moves through its staging buffer (a kernel model, in the caches), and
         * without a ceiling for it the term is left out. That only loosens the bound; every
         * other missing ceiling is an error, since the bound would silently lose its limit. */
        if (l == RT_LEVEL_SHARED && strcmp(m->kind, "cpu") == 0 && !(c->level_gbs[l] > 0))
            continue;
        if (!(c->level_gbs[l] > 0))
            return rt_err_set(err,
                              "roofline: the traffic model moves %.6g bytes through '%s' "
                              "but machine '%s' has no %s_gbs in %s",
                              t->bytes[l], rt_machine_level_name((rt_mem_level)l), machine_label(m),
                              rt_machine_level_name((rt_mem_level)l), set);
        out->level_s[l] = t->bytes[l] / dev / (c->level_gbs[l] * 1e9);
        any = 1;
        if (out->level_s[l] > intra) {
            intra = out->level_s[l];
            snprintf(out->intra_limit, sizeof out->intra_limit, "%s",
                     rt_machine_level_name((rt_mem_level)l));
        }
    }
    /* The GPUs' links, each direction of the host link on its own (full duplex) and the
     * GPU-to-GPU link at the faster of the socket and node tiers (on a GPU machine file, the
     * peer copy bandwidth). A CPU kernel emulating GPUs has no such links: on a cpu machine a
     * term without its ceiling is left out, as for shared memory. */
    const int cpu = strcmp(m->kind, "cpu") == 0;
    const double peer_gbs = c->tier_gbs[RT_TIER_SOCKET] > c->tier_gbs[RT_TIER_NODE]
                                ? c->tier_gbs[RT_TIER_SOCKET]
                                : c->tier_gbs[RT_TIER_NODE];
    const struct {
        double bytes, gbs;
        const char *name, *key;
        double *out;
    } links[] = {
        {t->h2d_bytes, c->h2d_gbs, "host link (h2d)", "h2d_gbs", &out->h2d_s},
        {t->d2h_bytes, c->d2h_gbs, "host link (d2h)", "d2h_gbs", &out->d2h_s},
        {cpu ? 0.0 : t->peer_bytes, peer_gbs, "peer link", "socket.bandwidth_gbs", &out->peer_s},
    };
    for (size_t i = 0; i < sizeof links / sizeof links[0]; ++i) {
        if (links[i].bytes == 0 || (cpu && !(links[i].gbs > 0)))
            continue;
        if (!(links[i].gbs > 0))
            return rt_err_set(err,
                              "roofline: the traffic model moves %.6g bytes over the %s but "
                              "machine '%s' has no %s in %s",
                              links[i].bytes, links[i].name, machine_label(m), links[i].key, set);
        *links[i].out = links[i].bytes / dev / (links[i].gbs * 1e9);
        any = 1;
        if (*links[i].out > intra) {
            intra = *links[i].out;
            snprintf(out->intra_limit, sizeof out->intra_limit, "%s", links[i].name);
        }
    }
    out->intra_s = intra;

    double inter = 0, worst_tier = 0;
    int worst = -1;
    for (int k = 0; k < RT_TIER_COUNT; ++k) {
        char what[48];
        snprintf(what, sizeof what, "net_bytes[%s]", rt_machine_tier_name((rt_net_tier)k));
        if (check_amount(t->net_bytes[k], what, err) != 0)
            return -1;
        snprintf(what, sizeof what, "net_messages[%s]", rt_machine_tier_name((rt_net_tier)k));
        if (check_amount(t->net_messages[k], what, err) != 0)
            return -1;
        if (t->net_bytes[k] == 0 && t->net_messages[k] == 0)
            continue;
        const char *tier = rt_machine_tier_name((rt_net_tier)k);
        if (t->net_bytes[k] > 0 && !(c->tier_gbs[k] > 0))
            return rt_err_set(err,
                              "roofline: the traffic model sends %.6g bytes over the '%s' "
                              "tier but machine '%s' has no %s.bandwidth_gbs in %s",
                              t->net_bytes[k], tier, machine_label(m), tier, set);
        if (t->net_messages[k] > 0 && !(c->tier_latency_us[k] >= 0 && c->tier_gbs[k] > 0))
            return rt_err_set(err,
                              "roofline: the traffic model sends %.6g messages over the "
                              "'%s' tier but machine '%s' has no %s tier in %s",
                              t->net_messages[k], tier, machine_label(m), tier, set);
        out->tier_s[k] = t->net_messages[k] * c->tier_latency_us[k] * 1e-6 +
                         t->net_bytes[k] / (c->tier_gbs[k] * 1e9);
        inter += out->tier_s[k];
        any = 1;
        if (out->tier_s[k] > worst_tier) {
            worst_tier = out->tier_s[k];
            worst = k;
        }
    }
    out->inter_s = inter;
    if (!any)
        return rt_err_set(err, "roofline: the traffic model is empty (no flops and no bytes at "
                               "any level or tier), so there is no bound to check against");

    out->bound_s = opt->combine == RT_BOUND_MAX || t->overlap ? (intra > inter ? intra : inter)
                                                              : intra + inter;
    /* The limiting term is the single largest contributor: with a sum it is the one to attack
     * first, with a max it is the one that sets the bound. */
    if (worst >= 0 && worst_tier > intra)
        snprintf(out->limit, sizeof out->limit, "%s", tier_terms[worst]);
    else
        snprintf(out->limit, sizeof out->limit, "%s", out->intra_limit);
    return 0;
}

int rt_bound_traffic_metrics(const rt_traffic *t, rt_metrics *m, rt_err *err)
{
    int full = 0;
    full |= rt_metrics_add(m, "model_flops", "flop", t->flops, 1) != 0;
    for (int l = 0; l < RT_LEVEL_COUNT; ++l) {
        if (t->bytes[l] <= 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "model_%s_bytes", rt_machine_level_name((rt_mem_level)l));
        full |= rt_metrics_add(m, name, "bytes", t->bytes[l], 1) != 0;
    }
    for (int k = 0; k < RT_TIER_COUNT; ++k) {
        char name[64];
        if (t->net_bytes[k] > 0) {
            snprintf(name, sizeof name, "model_net_bytes_%s", rt_machine_tier_name((rt_net_tier)k));
            full |= rt_metrics_add(m, name, "bytes", t->net_bytes[k], 1) != 0;
        }
        if (t->net_messages[k] > 0) {
            snprintf(name, sizeof name, "model_net_messages_%s",
                     rt_machine_tier_name((rt_net_tier)k));
            full |= rt_metrics_add(m, name, "count", t->net_messages[k], 1) != 0;
        }
    }
    const struct {
        const char *name;
        double v;
    } link[] = {{"model_h2d_bytes", t->h2d_bytes},
                {"model_d2h_bytes", t->d2h_bytes},
                {"model_peer_bytes", t->peer_bytes}};
    for (size_t i = 0; i < sizeof link / sizeof link[0]; ++i)
        if (link[i].v > 0)
            full |= rt_metrics_add(m, link[i].name, "bytes", link[i].v, 1) != 0;
    if (t->flops > 0 && t->bytes[RT_LEVEL_DRAM] > 0)
        full |=
            rt_metrics_add(m, "intensity", "flop/byte", t->flops / t->bytes[RT_LEVEL_DRAM], 1) != 0;
    if (full)
        return rt_err_set(err,
                          "roofline: no room left for the traffic-model metrics (%d "
                          "metrics per point at most)",
                          RT_MAX_METRICS);
    return 0;
}

static int check_args(double measured, double reference, const char *mname, const char *rname,
                      double *tolerance, rt_err *err)
{
    if (!isfinite(measured) || measured <= 0)
        return rt_err_set(err, "roofline check: %s must be a positive finite number, got %g", mname,
                          measured);
    if (!isfinite(reference) || reference <= 0)
        return rt_err_set(err, "roofline check: %s must be a positive finite number, got %g", rname,
                          reference);
    if (*tolerance < 0)
        *tolerance = RT_ROOFLINE_DEFAULT_TOLERANCE;
    if (!(*tolerance < 1))
        return rt_err_set(err, "roofline check: tolerance must be in [0, 1), got %g", *tolerance);
    return 0;
}

int rt_roofline_check(double measured_s, double bound_s, double tolerance, rt_roofline_verdict *v,
                      rt_err *err)
{
    if (check_args(measured_s, bound_s, "measured time", "bound", &tolerance, err) != 0)
        return -1;
    v->efficiency = bound_s / measured_s;
    v->ratio = NAN;
    v->reason[0] = '\0';
    v->status = RT_ROOFLINE_OK;
    if (measured_s < bound_s * (1 - tolerance)) {
        v->status = RT_ROOFLINE_ABOVE;
        snprintf(v->reason, sizeof v->reason,
                 "above roofline: measured %.4g s is %.1f%% faster than the bound %.4g s "
                 "(tolerance %.0f%%): a measurement or traffic-model bug",
                 measured_s, 100.0 * (1 - measured_s / bound_s), bound_s, 100.0 * tolerance);
    }
    return 0;
}

int rt_roofline_check_dram(double counted_bytes, double compulsory_bytes, double tolerance,
                           double cache_bytes, rt_roofline_verdict *v, rt_err *err)
{
    if (check_args(counted_bytes, compulsory_bytes, "counted DRAM bytes", "compulsory bytes",
                   &tolerance, err) != 0)
        return -1;
    v->ratio = counted_bytes / compulsory_bytes;
    v->efficiency = NAN;
    v->reason[0] = '\0';
    v->status = RT_ROOFLINE_OK;
    const double slack = isfinite(cache_bytes) && cache_bytes > 0 ? cache_bytes : 0;
    if (counted_bytes < (1 - tolerance) * compulsory_bytes - slack) {
        v->status = RT_ROOFLINE_ABOVE;
        snprintf(v->reason, sizeof v->reason,
                 "DRAM traffic below compulsory: counters saw %.4g bytes, the model requires "
                 "%.4g (ratio %.3f < %.3f, after %.3g bytes the cache may hold): the traffic "
                 "model or the counters are wrong",
                 counted_bytes, compulsory_bytes, v->ratio, 1 - tolerance, slack);
    }
    return 0;
}

int rt_roofline_dram_ratio_metric(rt_metrics *m, double compulsory_bytes, double tolerance,
                                  double cache_bytes, rt_roofline_verdict *v, rt_err *err)
{
    const rt_metric *rd = rt_metrics_get(m, "dram_bytes_read");
    const rt_metric *wr = rt_metrics_get(m, "dram_bytes_write");
    if (!rd || !wr || !rd->available || !wr->available)
        return 1;
    if (check_args(rd->value + wr->value, compulsory_bytes, "counted DRAM bytes",
                   "compulsory bytes", &tolerance, err) != 0)
        return -1;
    if (rt_roofline_check_dram(rd->value + wr->value, compulsory_bytes, tolerance, cache_bytes, v,
                               err) != 0)
        return -1;
    if (rt_metrics_add(m, "dram_bytes_ratio", "ratio", v->ratio, 0) != 0)
        return rt_err_set(err,
                          "roofline: no room left for metric dram_bytes_ratio (%d metrics "
                          "already)",
                          RT_MAX_METRICS);
    return 0;
}

int rt_roofline_l2_ratio_metric(rt_metrics *m, double model_l2_bytes, rt_err *err)
{
    const rt_metric *l2 = rt_metrics_get(m, "l2_bytes");
    if (!l2 || !l2->available || !(model_l2_bytes > 0) || !isfinite(model_l2_bytes))
        return 1;
    if (!(l2->value >= 0) || !isfinite(l2->value))
        return rt_err_set(err, "roofline: counted L2 bytes %g is not a byte count", l2->value);
    if (rt_metrics_add(m, "l2_bytes_ratio", "ratio", l2->value / model_l2_bytes, 0) != 0)
        return rt_err_set(err,
                          "roofline: no room left for metric l2_bytes_ratio (%d metrics already)",
                          RT_MAX_METRICS);
    return 0;
}
