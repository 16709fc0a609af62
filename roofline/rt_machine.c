/* rt_machine: machine files, read through the config layer's YAML tree so every error names the
 * file, line and column the user has to fix. */
#include "rt_machine.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_path.h"
#include "rt_yaml.h"

static const char *const level_names[RT_LEVEL_COUNT] = {"dram", "l2", "shared"};
static const char *const tier_names[RT_TIER_COUNT] = {"socket", "node", "global"};

const char *rt_machine_level_name(rt_mem_level level)
{
    return (level >= 0 && level < RT_LEVEL_COUNT) ? level_names[level] : "?";
}

const char *rt_machine_tier_name(rt_net_tier tier)
{
    return (tier >= 0 && tier < RT_TIER_COUNT) ? tier_names[tier] : "?";
}

static const char *const top_keys[] = {"name",     "description", "kind", "match",
                                       "priority", "topology",    "spec", "measured"};
static const char *const topology_keys[] = {"gpus_per_socket", "sockets_per_node",
                                            "cores_per_socket"};
/* spec: and measured: share the ceiling keys; measured: adds what only a probe can say. */
static const char *const spec_keys[] = {
    "fp32_gflops", "fp64_gflops", "dram_gbs",          "l2_gbs",           "shared_gbs",
    "h2d_gbs",     "d2h_gbs",     "h2d_pageable_gbs",  "d2h_pageable_gbs", "socket",
    "node",        "global",      "fp64_tensor_gflops"};
static const char *const measured_keys[] = {"fp32_gflops",
                                            "fp64_gflops",
                                            "dram_gbs",
                                            "l2_gbs",
                                            "shared_gbs",
                                            "h2d_gbs",
                                            "d2h_gbs",
                                            "h2d_pageable_gbs",
                                            "d2h_pageable_gbs",
                                            "socket",
                                            "node",
                                            "global",
                                            "source",
                                            "stream",
                                            "peers",
                                            "host",
                                            "mpi_staged",
                                            "mpi_ipc",
                                            "fp64_tensor_gflops"};
static const char *const host_keys[] = {"fp32_gflops", "fp64_gflops", "stream",
                                        "socket",      "node",        "global"};
static const char *const tier_keys[] = {"bandwidth_gbs", "latency_us"};
static const char *const stream_keys[] = {"copy_gbs", "scale_gbs", "add_gbs", "triad_gbs"};
static const char *const peer_keys[] = {"src", "dst", "bandwidth_gbs"};

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int node_error(rt_err *err, const rt_yaml_node *n, const char *fmt, const char *what,
                      double value)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, what, value);
    return rt_err_set(err, "%s:%d:%d: %s", n->file, n->line, n->col, msg);
}

/* map[key] or NULL; what gets "section.key" for messages. */
static const rt_yaml_node *entry(const rt_yaml_node *map, const char *key, const char *section,
                                 char *what, size_t len)
{
    snprintf(what, len, "%s.%s", section, key);
    return rt_yaml_map_get(map, key);
}

/* Reads map[key] as a finite number of `unit` when present, strictly positive unless zero_ok;
 * leaves *out alone when the key is absent. A zero bandwidth or peak is rejected because it would
 * make every bound infinite, which is never what the author of a machine file meant (a latency
 * may be zero). */
static int read_number(const rt_yaml_node *map, const char *key, const char *section,
                       const char *unit, int zero_ok, double *out, rt_err *err)
{
    char what[128];
    const rt_yaml_node *n = entry(map, key, section, what, sizeof what);
    if (!n)
        return 0;
    double v;
    if (rt_yaml_get_double(n, what, &v, err) != 0)
        return -1;
    if (!(zero_ok ? v >= 0 : v > 0) || !isfinite(v)) {
        char fmt[160];
        snprintf(fmt, sizeof fmt, "%%s: must be %sa positive number of %s, got %%g",
                 zero_ok ? "zero or " : "", unit);
        return node_error(err, n, fmt, what, v);
    }
    *out = v;
    return 0;
}

static int read_positive(const rt_yaml_node *map, const char *key, const char *section,
                         const char *unit, double *out, rt_err *err)
{
    return read_number(map, key, section, unit, 0, out, err);
}

static int read_nonnegative(const rt_yaml_node *map, const char *key, const char *section,
                            double *out, rt_err *err)
{
    return read_number(map, key, section, "microseconds", 1, out, err);
}

static int read_count(const rt_yaml_node *map, const char *key, const char *section, int min,
                      int *out, rt_err *err)
{
    char what[128];
    const rt_yaml_node *n = entry(map, key, section, what, sizeof what);
    if (!n)
        return 0;
    int64_t v;
    if (rt_yaml_get_int(n, what, &v, err) != 0)
        return -1;
    if (v < min || v > 4096)
        return rt_err_set(err, "%s:%d:%d: %s: must be an integer in %d..4096, got %lld", n->file,
                          n->line, n->col, what, min, (long long)v);
    *out = (int)v;
    return 0;
}

static int copy_string(const rt_yaml_node *map, const char *key, char *dst, size_t len, rt_err *err)
{
    const rt_yaml_node *n = rt_yaml_map_get(map, key);
    if (!n)
        return 0;
    const char *s;
    if (rt_yaml_get_string(n, key, &s, err) != 0)
        return -1;
    if (strlen(s) >= len)
        return rt_err_set(err, "%s:%d:%d: %s: longer than %zu characters", n->file, n->line, n->col,
                          key, len - 1);
    snprintf(dst, len, "%s", s);
    return 0;
}

/* The ceilings shared by spec: and measured:. */
static int read_ceilings(const rt_yaml_node *map, const char *section, rt_ceilings *c, rt_err *err)
{
    if (read_positive(map, "fp32_gflops", section, "GFLOP/s", &c->fp32_gflops, err) ||
        read_positive(map, "fp64_gflops", section, "GFLOP/s", &c->fp64_gflops, err) ||
        read_positive(map, "fp64_tensor_gflops", section, "GFLOP/s", &c->fp64_tensor_gflops, err) ||
        read_positive(map, "h2d_gbs", section, "GB/s", &c->h2d_gbs, err) ||
        read_positive(map, "d2h_gbs", section, "GB/s", &c->d2h_gbs, err) ||
        read_positive(map, "h2d_pageable_gbs", section, "GB/s", &c->h2d_pageable_gbs, err) ||
        read_positive(map, "d2h_pageable_gbs", section, "GB/s", &c->d2h_pageable_gbs, err))
        return -1;
    for (int l = 0; l < RT_LEVEL_COUNT; ++l) {
        char key[32];
        snprintf(key, sizeof key, "%s_gbs", level_names[l]);
        if (read_positive(map, key, section, "GB/s", &c->level_gbs[l], err) != 0)
            return -1;
    }
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        const rt_yaml_node *tier = rt_yaml_map_get(map, tier_names[t]);
        if (!tier)
            continue;
        char what[64];
        snprintf(what, sizeof what, "%s.%s", section, tier_names[t]);
        if (rt_yaml_check_keys(tier, what, tier_keys, N_OF(tier_keys), err) != 0)
            return -1;
        if (read_positive(tier, "bandwidth_gbs", what, "GB/s", &c->tier_gbs[t], err) ||
            read_nonnegative(tier, "latency_us", what, &c->tier_latency_us[t], err))
            return -1;
        /* A vendor figure is only useful with both halves of the alpha-beta model; a probe may
         * have measured one of them only, so measured: tiers may be partial. */
        if (strcmp(section, "spec") == 0) {
            const char *missing = !rt_yaml_map_get(tier, "bandwidth_gbs") ? "bandwidth_gbs"
                                  : !rt_yaml_map_get(tier, "latency_us")  ? "latency_us"
                                                                          : NULL;
            if (missing)
                return rt_err_set(err,
                                  "%s:%d:%d: %s: missing '%s' (a tier needs bandwidth_gbs "
                                  "and latency_us)",
                                  tier->file, tier->line, tier->col, what, missing);
        }
    }
    return 0;
}

static int read_stream(const rt_yaml_node *parent, const char *section, rt_machine *m, rt_err *err)
{
    const rt_yaml_node *stream = rt_yaml_map_get(parent, "stream");
    if (!stream)
        return 0;
    char what[64];
    snprintf(what, sizeof what, "%s.stream", section);
    if (rt_yaml_check_keys(stream, what, stream_keys, N_OF(stream_keys), err))
        return -1;
    for (int k = 0; k < N_OF(stream_keys); ++k)
        if (read_positive(stream, stream_keys[k], what, "GB/s", &m->stream_gbs[k], err) != 0)
            return -1;
    return 0;
}

/* measured.mpi_staged / measured.mpi_ipc: tiers only (n_tiers first of socket, node, global),
 * each with bandwidth_gbs and, optionally, latency_us. */
static int read_device_tiers(const rt_yaml_node *meas, const char *key, int n_tiers, double *gbs,
                             double *lat, rt_err *err)
{
    const rt_yaml_node *block = rt_yaml_map_get(meas, key);
    if (!block)
        return 0;
    char section[64];
    snprintf(section, sizeof section, "measured.%s", key);
    if (block->kind != RT_YAML_MAP)
        return rt_err_set(err, "%s:%d:%d: %s: expected a map of tiers, got a %s", block->file,
                          block->line, block->col, section, rt_yaml_kind_name(block->kind));
    if (rt_yaml_check_keys(block, section, tier_names, n_tiers, err) != 0)
        return -1;
    for (int t = 0; t < n_tiers; ++t) {
        const rt_yaml_node *tier = rt_yaml_map_get(block, tier_names[t]);
        if (!tier)
            continue;
        char what[96];
        snprintf(what, sizeof what, "%s.%s", section, tier_names[t]);
        if (rt_yaml_check_keys(tier, what, tier_keys, N_OF(tier_keys), err) != 0 ||
            read_positive(tier, "bandwidth_gbs", what, "GB/s", &gbs[t], err) ||
            read_nonnegative(tier, "latency_us", what, &lat[t], err))
            return -1;
        if (!(gbs[t] > 0))
            return rt_err_set(err, "%s:%d:%d: %s: missing 'bandwidth_gbs'", tier->file, tier->line,
                              tier->col, what);
    }
    return 0;
}

static int read_measured_extras(const rt_yaml_node *meas, rt_machine *m, rt_err *err)
{
    /* CUDA IPC joins processes of one node: a global tier there would be a mistake. */
    if (read_device_tiers(meas, "mpi_staged", RT_TIER_COUNT, m->staged_gbs, m->staged_latency_us,
                          err) ||
        read_device_tiers(meas, "mpi_ipc", RT_TIER_GLOBAL, m->ipc_gbs, m->ipc_latency_us, err))
        return -1;
    if (copy_string(meas, "source", m->measured_source, sizeof m->measured_source, err) != 0)
        return -1;
    if (read_stream(meas, "measured", m, err) != 0)
        return -1;
    const rt_yaml_node *host = rt_yaml_map_get(meas, "host");
    if (host) {
        if (strcmp(m->kind, "gpu") != 0)
            return rt_err_set(err,
                              "%s:%d:%d: measured.host: only a gpu machine has a separate "
                              "host block (a cpu machine's host numbers are its measured: ones)",
                              host->file, host->line, host->col);
        if (rt_yaml_check_keys(host, "measured.host", host_keys, N_OF(host_keys), err) ||
            read_ceilings(host, "measured.host", &m->host, err) ||
            read_stream(host, "measured.host", m, err))
            return -1;
    }
    const rt_yaml_node *peers = rt_yaml_map_get(meas, "peers");
    if (!peers)
        return 0;
    if (peers->kind != RT_YAML_SEQ)
        return rt_err_set(err,
                          "%s:%d:%d: measured.peers: expected a sequence of {src, dst, "
                          "bandwidth_gbs}, got a %s",
                          peers->file, peers->line, peers->col, rt_yaml_kind_name(peers->kind));
    if (peers->n > RT_MACHINE_MAX_PEERS)
        return rt_err_set(err, "%s:%d:%d: measured.peers: %d entries, at most %d are kept",
                          peers->file, peers->line, peers->col, peers->n, RT_MACHINE_MAX_PEERS);
    for (int i = 0; i < peers->n; ++i) {
        const rt_yaml_node *p = peers->items[i];
        char what[64];
        snprintf(what, sizeof what, "measured.peers[%d]", i);
        if (rt_yaml_check_keys(p, what, peer_keys, N_OF(peer_keys), err) != 0)
            return -1;
        rt_peer_bw *pb = &m->peers[i];
        pb->src = pb->dst = -1;
        if (read_count(p, "src", what, 0, &pb->src, err) ||
            read_count(p, "dst", what, 0, &pb->dst, err) ||
            read_positive(p, "bandwidth_gbs", what, "GB/s", &pb->gbs, err))
            return -1;
        if (pb->src < 0 || pb->dst < 0 || pb->gbs <= 0)
            return rt_err_set(err, "%s:%d:%d: %s: needs src, dst and bandwidth_gbs", p->file,
                              p->line, p->col, what);
    }
    m->n_peers = peers->n;
    return 0;
}

int rt_machine_use_staged_internode(rt_machine *m)
{
    if (!(m->staged_gbs[RT_TIER_GLOBAL] > 0))
        return 0;
    m->effective.tier_gbs[RT_TIER_GLOBAL] = m->staged_gbs[RT_TIER_GLOBAL];
    if (m->staged_latency_us[RT_TIER_GLOBAL] > 0)
        m->effective.tier_latency_us[RT_TIER_GLOBAL] = m->staged_latency_us[RT_TIER_GLOBAL];
    return 1;
}

static double pick(double measured, double spec)
{
    return measured > 0 ? measured : spec;
}

void rt_machine_update_effective(rt_machine *m)
{
    const rt_ceilings *s = &m->spec, *x = &m->measured;
    rt_ceilings *e = &m->effective;
    e->fp32_gflops = pick(x->fp32_gflops, s->fp32_gflops);
    e->fp64_gflops = pick(x->fp64_gflops, s->fp64_gflops);
    e->fp64_tensor_gflops = pick(x->fp64_tensor_gflops, s->fp64_tensor_gflops);
    for (int l = 0; l < RT_LEVEL_COUNT; ++l)
        e->level_gbs[l] = pick(x->level_gbs[l], s->level_gbs[l]);
    e->h2d_gbs = pick(x->h2d_gbs, s->h2d_gbs);
    e->d2h_gbs = pick(x->d2h_gbs, s->d2h_gbs);
    e->h2d_pageable_gbs = pick(x->h2d_pageable_gbs, s->h2d_pageable_gbs);
    e->d2h_pageable_gbs = pick(x->d2h_pageable_gbs, s->d2h_pageable_gbs);
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        e->tier_gbs[t] = pick(x->tier_gbs[t], s->tier_gbs[t]);
        /* A measured latency of exactly 0 is not "absent" for latency, but the reader cannot tell
         * an unwritten value from 0 either; a probe never measures exactly 0, so prefer spec. */
        e->tier_latency_us[t] = pick(x->tier_latency_us[t], s->tier_latency_us[t]);
    }
}

int rt_machine_devices_per_node(const rt_machine *m)
{
    const int per_socket = strcmp(m->kind, "gpu") == 0 ? m->gpus_per_socket : m->cores_per_socket;
    return (per_socket > 0 ? per_socket : 1) * (m->sockets_per_node > 0 ? m->sockets_per_node : 1);
}

/* A ceiling the machine needs must be in spec: or measured:; the message points at the block the
 * user is most likely to add it to. */
typedef struct src_pos {
    const char *file;
    int line, col;
} src_pos;

static int require(double value, const char *key, const char *why, const src_pos *at, rt_err *err)
{
    if (value > 0)
        return 0;
    return rt_err_set(err,
                      "%s:%d:%d: spec: missing required ceiling '%s' (%s; give it in spec: "
                      "or measured:)",
                      at->file, at->line, at->col, key, why);
}

static int validate(const rt_yaml_node *root, rt_machine *m, rt_err *err)
{
    /* Point at the `spec:` key (else `measured:`, else the file's start): that is where the
     * missing line has to be added. */
    src_pos at = {root->file, root->line, root->col};
    int idx = rt_yaml_map_index(root, "spec");
    if (idx < 0)
        idx = rt_yaml_map_index(root, "measured");
    if (idx >= 0 && root->key_lines) {
        at.line = root->key_lines[idx];
        at.col = root->key_cols[idx];
    }
    const rt_ceilings *e = &m->effective;
    const int gpu = strcmp(m->kind, "gpu") == 0;
    if (require(e->fp32_gflops, "fp32_gflops", "every machine needs its FP32 peak", &at, err) ||
        require(e->fp64_gflops, "fp64_gflops", "every machine needs its FP64 peak", &at, err) ||
        require(e->level_gbs[RT_LEVEL_DRAM], "dram_gbs",
                "every machine needs its memory "
                "bandwidth",
                &at, err))
        return -1;
    if (gpu) {
        if (require(e->level_gbs[RT_LEVEL_L2], "l2_gbs", "a gpu machine needs its L2 bandwidth",
                    &at, err) ||
            require(e->level_gbs[RT_LEVEL_SHARED], "shared_gbs",
                    "a gpu machine needs its shared-memory bandwidth", &at, err) ||
            require(e->h2d_gbs, "h2d_gbs", "a gpu machine needs its host link", &at, err) ||
            require(e->d2h_gbs, "d2h_gbs", "a gpu machine needs its host link", &at, err))
            return -1;
        if (m->gpus_per_socket > 1 &&
            (require(e->tier_gbs[RT_TIER_SOCKET], "socket.bandwidth_gbs",
                     "several GPUs per socket need a socket tier", &at, err)))
            return -1;
        if (m->sockets_per_node > 1 &&
            require(e->tier_gbs[RT_TIER_NODE], "node.bandwidth_gbs",
                    "several sockets per node need a node tier", &at, err))
            return -1;
    }
    return 0;
}

static int parse_root(const rt_yaml_node *root, rt_machine *m, rt_err *err)
{
    if (root->kind != RT_YAML_MAP)
        return rt_err_set(err,
                          "%s:%d:%d: a machine file is a map (name, kind, topology, spec, "
                          "measured), got a %s",
                          root->file, root->line, root->col, rt_yaml_kind_name(root->kind));
    if (rt_yaml_check_keys(root, "machine", top_keys, N_OF(top_keys), err) != 0)
        return -1;
    if (copy_string(root, "name", m->name, sizeof m->name, err) ||
        copy_string(root, "description", m->description, sizeof m->description, err) ||
        copy_string(root, "kind", m->kind, sizeof m->kind, err))
        return -1;
    if (!m->name[0])
        return rt_err_set(err, "%s:%d:%d: machine: missing 'name'", root->file, root->line,
                          root->col);
    const rt_yaml_node *kind = rt_yaml_map_get(root, "kind");
    if (!kind)
        return rt_err_set(err, "%s:%d:%d: machine: missing 'kind' (gpu or cpu)", root->file,
                          root->line, root->col);
    if (strcmp(m->kind, "gpu") != 0 && strcmp(m->kind, "cpu") != 0)
        return rt_err_set(err, "%s:%d:%d: kind: expected 'gpu' or 'cpu', got '%s'", kind->file,
                          kind->line, kind->col, m->kind);

    const rt_yaml_node *match = rt_yaml_map_get(root, "match");
    if (match) {
        const int n = match->kind == RT_YAML_SEQ ? match->n : 1;
        if (match->kind == RT_YAML_MAP)
            return rt_err_set(err,
                              "%s:%d:%d: match: expected a device-name substring or a list "
                              "of them, got a map",
                              match->file, match->line, match->col);
        if (n > RT_MACHINE_MAX_MATCH)
            return rt_err_set(err, "%s:%d:%d: match: at most %d substrings", match->file,
                              match->line, match->col, RT_MACHINE_MAX_MATCH);
        for (int i = 0; i < n; ++i) {
            const rt_yaml_node *item = match->kind == RT_YAML_SEQ ? match->items[i] : match;
            const char *s;
            if (rt_yaml_get_string(item, "match", &s, err) != 0)
                return -1;
            if (!s[0] || strlen(s) >= sizeof m->match[0])
                return rt_err_set(err, "%s:%d:%d: match: substrings must be 1..%zu characters",
                                  item->file, item->line, item->col, sizeof m->match[0] - 1);
            snprintf(m->match[m->n_match++], sizeof m->match[0], "%s", s);
        }
    }
    const rt_yaml_node *prio = rt_yaml_map_get(root, "priority");
    if (prio) {
        int64_t p;
        if (rt_yaml_get_int(prio, "priority", &p, err) != 0)
            return -1;
        if (p < -1000 || p > 1000)
            return rt_err_set(err, "%s:%d:%d: priority: must be in -1000..1000, got %lld",
                              prio->file, prio->line, prio->col, (long long)p);
        m->priority = (int)p;
    }

    const int gpu = strcmp(m->kind, "gpu") == 0;
    const rt_yaml_node *topo = rt_yaml_map_get(root, "topology");
    m->sockets_per_node = 1;
    m->gpus_per_socket = gpu ? 1 : 0;
    if (topo) {
        if (rt_yaml_check_keys(topo, "topology", topology_keys, N_OF(topology_keys), err) ||
            read_count(topo, "gpus_per_socket", "topology", 0, &m->gpus_per_socket, err) ||
            read_count(topo, "sockets_per_node", "topology", 1, &m->sockets_per_node, err) ||
            read_count(topo, "cores_per_socket", "topology", 1, &m->cores_per_socket, err))
            return -1;
        const rt_yaml_node *g = rt_yaml_map_get(topo, "gpus_per_socket");
        if (gpu && m->gpus_per_socket < 1)
            return rt_err_set(err,
                              "%s:%d:%d: topology.gpus_per_socket: a gpu machine has at "
                              "least 1",
                              g->file, g->line, g->col);
        if (!gpu && m->gpus_per_socket != 0)
            return rt_err_set(err,
                              "%s:%d:%d: topology.gpus_per_socket: a cpu machine has no "
                              "GPUs (use cores_per_socket)",
                              g->file, g->line, g->col);
    }

    const rt_yaml_node *spec = rt_yaml_map_get(root, "spec");
    if (spec) {
        if (rt_yaml_check_keys(spec, "spec", spec_keys, N_OF(spec_keys), err) ||
            read_ceilings(spec, "spec", &m->spec, err))
            return -1;
    }
    const rt_yaml_node *meas = rt_yaml_map_get(root, "measured");
    /* An empty `measured:` (YAML null, a scalar "") is how a file says "not probed yet". */
    if (meas && !(meas->kind == RT_YAML_SCALAR && meas->scalar[0] == '\0')) {
        if (rt_yaml_check_keys(meas, "measured", measured_keys, N_OF(measured_keys), err) ||
            read_ceilings(meas, "measured", &m->measured, err) ||
            read_measured_extras(meas, m, err))
            return -1;
    }
    if (!spec && !meas)
        return rt_err_set(err,
                          "%s:%d:%d: machine: needs a spec: block (vendor ceilings) or a "
                          "measured: block (from rooftune probe)",
                          root->file, root->line, root->col);
    rt_machine_update_effective(m);
    return validate(root, m, err);
}

static int load_tree(rt_yaml_node *root, const char *path, rt_machine *m, rt_err *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path ? path : "");
    const int rc = parse_root(root, m, err);
    rt_yaml_free(root);
    return rc;
}

int rt_machine_load(const char *path, rt_machine *m, rt_err *err)
{
    rt_yaml_node *root = NULL;
    if (rt_yaml_load_file(path, &root, err) != 0)
        return rt_err_prefix(err, "machine file");
    return load_tree(root, path, m, err);
}

int rt_machine_load_string(const char *text, const char *name, rt_machine *m, rt_err *err)
{
    rt_yaml_node *root = NULL;
    if (rt_yaml_load_string(text, name, &root, err) != 0)
        return rt_err_prefix(err, "machine file");
    return load_tree(root, NULL, m, err);
}

/* Case-insensitive strstr: device names differ in case between tools ("H100" vs "h100"). */
static int contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    if (n == 0)
        return 0;
    for (const char *h = hay; *h; ++h) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return 1;
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

typedef struct candidate {
    int gpus_equal;
    int priority;
    int matched_len;
    char name[256];
} candidate;

/* 1 when a ranks above b. */
static int better(const candidate *a, const candidate *b)
{
    if (a->gpus_equal != b->gpus_equal)
        return a->gpus_equal > b->gpus_equal;
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->matched_len != b->matched_len)
        return a->matched_len > b->matched_len;
    return strcmp(a->name, b->name) < 0;
}

int rt_machine_find(const char *dir, const char *device_name, int gpus_per_node, char *path,
                    size_t path_len, int *generic, rt_err *err)
{
    if (generic)
        *generic = 0;
    if (path_len)
        path[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return rt_err_set(err, "machine auto: cannot open the machine directory '%s'", dir);
    candidate best = {0, 0, 0, ""};
    int have_best = 0;
    rt_machine *m = malloc(sizeof *m);
    if (!m) {
        closedir(d);
        return rt_err_set(err, "machine auto: out of memory");
    }
    int rc = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".yaml"))
            continue;
        char file[2048];
        if (rt_path_format(file, sizeof file, err, "%s/%s", dir, e->d_name) != 0 ||
            rt_machine_load(file, m, err) != 0) {
            rc = rt_err_prefix(err, "machine auto: while scanning '%s'", dir);
            break;
        }
        candidate c = {0, m->priority, 0, ""};
        snprintf(c.name, sizeof c.name, "%s", e->d_name);
        for (int i = 0; i < m->n_match; ++i)
            if (device_name && contains_nocase(device_name, m->match[i]) &&
                (int)strlen(m->match[i]) > c.matched_len)
                c.matched_len = (int)strlen(m->match[i]);
        if (c.matched_len == 0)
            continue;
        c.gpus_equal = gpus_per_node > 0 && rt_machine_devices_per_node(m) == gpus_per_node;
        if (!have_best || better(&c, &best)) {
            best = c;
            have_best = 1;
        }
    }
    closedir(d);
    free(m);
    if (rc != 0)
        return rc;
    const char *chosen = have_best ? best.name : "cpu-host.yaml";
    if (!have_best) {
        char probe[2048];
        snprintf(probe, sizeof probe, "%s/%s", dir, chosen);
        FILE *f = fopen(probe, "r");
        if (!f)
            return rt_err_set(err,
                              "machine auto: no machine file in '%s' matches device '%s' "
                              "and the generic cpu-host.yaml is missing there",
                              dir, device_name ? device_name : "");
        fclose(f);
        if (generic)
            *generic = 1;
    }
    if ((size_t)snprintf(path, path_len, "%s/%s", dir, chosen) >= path_len)
        return rt_err_set(err, "machine auto: path '%s/%s' too long", dir, chosen);
    return 0;
}
