/* rt_probe: `rooftune probe` orchestration: runs the CPU, MPI and GPU parts and writes the
 * machine file (schema in docs/reference/roofline.md). The text is composed in memory, checked by
 * loading it back, and only then written, so a probe never leaves a file that `machine:` cannot
 * read. */
#define _POSIX_C_SOURCE 200809L

#include "rt_probe.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_comm.h"
#include "rt_machine.h"
#include "rt_yaml.h"

void rt_probe_opts_init(rt_probe_opts *o)
{
    memset(o, 0, sizeof *o);
}

/* Writes s as a YAML double-quoted scalar. */
static void yaml_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fputc(' ', f);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void host_name(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0 || !buf[0])
        snprintf(buf, len, "unknown-host");
    buf[len - 1] = '\0';
}

static void utc_now(char *buf, size_t len)
{
    const time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(buf, len, "unknown time");
}

/* Machine names become file stems and YAML scalars: keep them to [a-z0-9._-]. */
static void machine_name_from(const char *raw, char *out, size_t len)
{
    size_t j = 0;
    for (const char *p = raw; *p && j + 1 < len; ++p) {
        const unsigned char ch = (unsigned char)*p;
        out[j++] = (isalnum(ch) || ch == '.' || ch == '-' || ch == '_') ? (char)tolower(ch) : '-';
    }
    out[j] = '\0';
}

/* The base file's text without its top-level measured: block (every line from `measured:` at
 * column 0 up to the next top-level key), ending in a newline. */
static int base_without_measured(const char *path, char **text, rt_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_err_set(err, "probe: cannot open base machine file '%s'", path);
    char *buf = NULL;
    size_t cap = 0;
    FILE *mem = open_memstream(&buf, &cap);
    if (!mem) {
        fclose(f);
        return rt_err_set(err, "probe: out of memory reading '%s'", path);
    }
    char line[4096];
    int skipping = 0, ended_nl = 1;
    while (fgets(line, sizeof line, f)) {
        const int top = line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '\n';
        if (top)
            skipping = strncmp(line, "measured:", 9) == 0;
        if (!skipping) {
            fputs(line, mem);
            ended_nl = line[strlen(line) - 1] == '\n';
        }
    }
    fclose(f);
    if (!ended_nl)
        fputc('\n', mem);
    fclose(mem);
    *text = buf;
    return 0;
}

static void write_tiers(FILE *f, const char *indent, const rt_probe_net_result *net)
{
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        if (!net->have[t])
            continue;
        fprintf(f, "%s%s:                 # host-buffer MPI, ranks 0 and %d, %zu-byte messages\n",
                indent, rt_machine_tier_name((rt_net_tier)t), net->partner[t], net->message_bytes);
        fprintf(f, "%s  bandwidth_gbs: %.4g\n", indent, net->bandwidth_gbs[t]);
        fprintf(f, "%s  latency_us: %.4g\n", indent, net->latency_us[t]);
    }
}

/* The device-buffer MPI blocks (docs/reference/roofline.md): mpi_staged (every tier measured) and
 * mpi_ipc (socket and node tiers), beside the host-buffer tiers. */
/* One device-buffer block (mpi_staged or mpi_ipc) with its measured tiers, when it has any. */
static void write_device_block(FILE *f, const char *head, const rt_probe_devnet_result *dev,
                               const int *have, const double *gbs, const double *latency,
                               const char *unit)
{
    int any = 0;
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        any |= have[t];
    if (!any)
        return;
    fputs(head, f);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        if (have[t])
            fprintf(f,
                    "    %s:                   # ranks 0 and %d, %zu-byte %s\n"
                    "      bandwidth_gbs: %.4g\n      latency_us: %.4g\n",
                    rt_machine_tier_name((rt_net_tier)t), dev->partner[t], dev->message_bytes, unit,
                    gbs[t], latency[t]);
}

static void write_device_tiers(FILE *f, const rt_probe_devnet_result *dev)
{
    if (!dev->measured)
        return;
    write_device_block(f,
                       "  mpi_staged:               # device buffers via pinned host memory: D2H, "
                       "MPI, H2D\n",
                       dev, dev->have_staged, dev->staged_gbs, dev->staged_latency_us, "messages");
    write_device_block(f,
                       "  mpi_ipc:                  # CUDA IPC device-to-device copy + MPI token, "
                       "one node\n",
                       dev, dev->have_ipc, dev->ipc_gbs, dev->ipc_latency_us, "copies");
    if (dev->skipped[0]) {
        /* A comment, so that the reason travels with the file and never breaks its loading. */
        fprintf(f, "  # device-buffer MPI: ");
        for (const char *p = dev->skipped; *p; ++p)
            fputc(*p == '\n' ? ' ' : *p, f);
        fputc('\n', f);
    }
}

/* top_level: the block is a cpu machine's own measured: (which then needs dram_gbs), not the
 * host: block of a gpu machine. */
static void write_cpu(FILE *f, const char *indent, int top_level, const rt_probe_cpu_result *cpu)
{
    double best = 0;
    for (int q = 0; q < 4; ++q)
        if (cpu->stream_gbs[q] > best)
            best = cpu->stream_gbs[q];
    fprintf(f, "%sfp64_gflops: %.5g      # FMA chains (%s), %d threads\n", indent, cpu->fp64_gflops,
            cpu->isa, cpu->threads);
    fprintf(f, "%sfp32_gflops: %.5g\n", indent, cpu->fp32_gflops);
    if (top_level)
        fprintf(f, "%sdram_gbs: %.5g         # best of the STREAM kernels below\n", indent, best);
    fprintf(f, "%sstream:                 # 3 arrays x %zu bytes, bytes read + written\n", indent,
            cpu->array_bytes);
    fprintf(f, "%s  copy_gbs: %.5g\n%s  scale_gbs: %.5g\n%s  add_gbs: %.5g\n%s  triad_gbs: %.5g\n",
            indent, cpu->stream_gbs[0], indent, cpu->stream_gbs[1], indent, cpu->stream_gbs[2],
            indent, cpu->stream_gbs[3]);
}

/* Peer copies measured by the GPU hook become the socket and node tiers: a pair is on one socket
 * when both ordinals fall in the same block of gpus_per_socket (the usual enumeration order; an
 * assumption the file's comment states). The best pair of a tier is its ceiling. */
static int peers_to_tiers(const char *text, int gpus_per_socket, FILE *f, rt_err *err)
{
    rt_yaml_node *root = NULL;
    if (rt_yaml_load_string(text, "probe output", &root, err) != 0)
        return rt_err_prefix(err, "probe: the GPU probe wrote invalid YAML");
    const rt_yaml_node *meas = rt_yaml_map_get(root, "measured");
    const rt_yaml_node *peers = meas ? rt_yaml_map_get(meas, "peers") : NULL;
    double best[2] = {0, 0};
    if (peers && peers->kind == RT_YAML_SEQ) {
        for (int i = 0; i < peers->n; ++i) {
            const rt_yaml_node *p = peers->items[i];
            int64_t src = -1, dst = -1;
            double gbs = 0;
            const rt_yaml_node *ns = rt_yaml_map_get(p, "src"), *nd = rt_yaml_map_get(p, "dst"),
                               *nb = rt_yaml_map_get(p, "bandwidth_gbs");
            if (!ns || !nd || !nb || rt_yaml_get_int(ns, "src", &src, err) ||
                rt_yaml_get_int(nd, "dst", &dst, err) ||
                rt_yaml_get_double(nb, "bandwidth_gbs", &gbs, err)) {
                rt_yaml_free(root);
                return rt_err_set(err, "probe: the GPU probe wrote a malformed peers entry %d", i);
            }
            const int tier = (src / gpus_per_socket == dst / gpus_per_socket) ? 0 : 1;
            if (gbs > best[tier])
                best[tier] = gbs;
        }
    }
    rt_yaml_free(root);
    const char *names[2] = {"socket", "node"};
    for (int t = 0; t < 2; ++t)
        if (best[t] > 0)
            fprintf(f,
                    "  %s:                   # best GPU peer copy of this tier (peers above)\n"
                    "    bandwidth_gbs: %.5g\n",
                    names[t], best[t]);
    return 0;
}

/* Composes the machine file on rank 0. */
static int compose(const rt_probe_opts *opt, const rt_probe_cpu_result *cpu,
                   const rt_probe_net_result *net, const rt_probe_devnet_result *dev,
                   char **out_text, rt_err *err)
{
    rt_machine *base = NULL;
    char *base_text = NULL;
    if (opt->base_path) {
        base = malloc(sizeof *base);
        if (!base)
            return rt_err_set(err, "probe: out of memory");
        if (rt_machine_load(opt->base_path, base, err) != 0 ||
            base_without_measured(opt->base_path, &base_text, err) != 0) {
            free(base);
            return rt_err_prefix(err, "probe: base machine file");
        }
    }
    const int gpu = base ? strcmp(base->kind, "gpu") == 0 : opt->gpu_probe != NULL;
    const int gpus_per_socket = base ? (base->gpus_per_socket > 0 ? base->gpus_per_socket : 1)
                                     : (opt->gpus_per_node > 0 ? opt->gpus_per_node : 1);
    free(base);

    char host[256], date[64], name[64];
    host_name(host, sizeof host);
    utc_now(date, sizeof date);
    if (opt->name)
        machine_name_from(opt->name, name, sizeof name);
    else {
        char raw[300];
        snprintf(raw, sizeof raw, "probed-%s", host);
        machine_name_from(raw, name, sizeof name);
    }

    char *text = NULL;
    size_t cap = 0;
    FILE *f = open_memstream(&text, &cap);
    if (!f) {
        free(base_text);
        return rt_err_set(err, "probe: out of memory");
    }
    if (base_text) {
        fputs(base_text, f);
        free(base_text);
    } else {
        fprintf(f,
                "# Written by `rooftune probe` on %s at %s. There is no vendor spec: block:\n"
                "# every ceiling below was measured on this host (best of N repetitions).\n"
                "# Units: GFLOP/s, GB/s (1e9 bytes/s, one direction), microseconds.\n",
                host, date);
        fprintf(f, "name: %s\ndescription: ", name);
        if (opt->description)
            yaml_quoted(f, opt->description);
        else {
            char d[400];
            snprintf(d, sizeof d, "Probed host %s: %s", host,
                     gpu && opt->device_name ? opt->device_name : cpu->cpu_model);
            yaml_quoted(f, d);
        }
        fprintf(f, "\nkind: %s\nmatch: [", gpu ? "gpu" : "cpu");
        yaml_quoted(f, gpu && opt->device_name ? opt->device_name : cpu->cpu_model);
        fprintf(f, "]\npriority: 20              # this host's own numbers win `machine: auto`\n");
        fprintf(f, "topology:\n");
        if (gpu)
            fprintf(f,
                    "  gpus_per_socket: %d       # assumption: all visible GPUs on one socket\n"
                    "  sockets_per_node: 1\n",
                    gpus_per_socket);
        else
            fprintf(f, "  sockets_per_node: %d\n  cores_per_socket: %d\n", cpu->sockets,
                    cpu->cores_per_socket);
    }
    fprintf(f, "measured:\n  source: ");
    char source[512];
    snprintf(source, sizeof source, "rooftune probe on %s at %s%s", host, date,
             opt->quick ? " (quick mode: test sizes, not ceilings)" : "");
    yaml_quoted(f, source);
    fputc('\n', f);
    if (!opt->skip_cpu) {
        if (gpu) {
            fprintf(f, "  host:                     # the host CPU (%s)\n", cpu->cpu_model);
            write_cpu(f, "    ", 0, cpu);
            write_tiers(f, "    ", net);
        } else {
            write_cpu(f, "  ", 1, cpu);
            write_tiers(f, "  ", net);
        }
    } else if (!gpu) {
        write_tiers(f, "  ", net);
    }
    write_device_tiers(f, dev);
    int rc = 0;
    if (opt->gpu_probe) {
        if (opt->log) {
            fprintf(opt->log, "probe: GPU: memory, cache and compute ceilings, copies\n");
            fflush(opt->log);
        }
        fflush(f);
        rc = opt->gpu_probe(opt->gpu_state, f, err);
        if (rc != 0)
            rt_err_prefix(err, "probe: GPU part");
    }
    if (rc == 0 && gpu) {
        fflush(f);
        rc = peers_to_tiers(text, gpus_per_socket, f, err);
    }
    fclose(f);
    if (rc != 0) {
        free(text);
        return -1;
    }
    *out_text = text;
    return 0;
}

/* After rank 0's part of the probe: the other ranks wait for it asleep, then all agree whether
 * every rank's part worked. A failure is the failed rank's message, after "probe: <what> failed on
 * rank N: " when what is given. */
static int wait_agree(rt_comm *comm, int ok, const char *local_msg, const char *what, rt_err *err)
{
    if (rt_probe_idle_barrier(comm, err) != 0)
        return -1;
    int all_ok = 0, failed = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(comm, ok, local_msg, &all_ok, &failed, msg, sizeof msg) != 0)
        return rt_err_set(err, "probe: %s", rt_comm_last_error(comm));
    if (!all_ok)
        return what ? rt_err_set(err, "probe: %s failed on rank %d: %s", what, failed, msg)
                    : rt_err_set(err, "%s", msg);
    return 0;
}

int rt_probe_run(const rt_probe_opts *opt, void *comm_ptr, FILE *out, rt_err *err)
{
    rt_comm *comm = comm_ptr;
    const int me = comm ? rt_comm_world_rank(comm) : 0;
    const int size = comm ? rt_comm_world_size(comm) : 1;
    rt_probe_cpu_result cpu;
    memset(&cpu, 0, sizeof cpu);
    rt_probe_net_result net;
    memset(&net, 0, sizeof net);
    rt_probe_devnet_result dev;
    memset(&dev, 0, sizeof dev);
    rt_err local;
    rt_err_clear(&local);
    int ok = 1;

    FILE *log = me == 0 ? opt->log : NULL;
    if (me == 0 && !opt->skip_cpu) {
        if (log) {
            fprintf(log, "probe: CPU: STREAM bandwidth and FMA peak%s\n",
                    opt->quick ? " (quick sizes)" : "");
            fflush(log);
        }
        ok = rt_probe_cpu(opt, &cpu, &local) == 0;
    }
    if (comm) {
        /* The other ranks sleep until rank 0's CPU measurements are done, then all agree. */
        if (wait_agree(comm, ok, local.msg, "CPU part", err) != 0)
            return -1;
        if (size > 1 && rt_probe_mpi(opt, comm, &net, err) != 0)
            return -1;
        if (size > 1 && rt_probe_mpi_device(opt, comm, &dev, err) != 0)
            return -1;
    } else if (!ok) {
        return rt_err_set(err, "%s", local.msg);
    }

    if (me == 0) {
        char *text = NULL;
        ok = compose(opt, &cpu, &net, &dev, &text, &local) == 0;
        if (ok) {
            rt_machine *check = malloc(sizeof *check);
            ok = check && rt_machine_load_string(text, "probe output", check, &local) == 0;
            if (!check)
                rt_err_set(&local, "probe: out of memory");
            else if (!ok)
                rt_err_prefix(&local, "probe: the composed machine file does not load back");
            free(check);
        }
        if (ok && out) {
            if (fputs(text, out) == EOF || fflush(out) != 0) {
                ok = 0;
                rt_err_set(&local, "probe: writing the machine file failed");
            }
        }
        free(text);
    }
    if (comm)
        return wait_agree(comm, ok, local.msg, NULL, err);
    return ok ? 0 : rt_err_set(err, "%s", local.msg);
}

int rt_probe_machine(const rt_probe_opts *opt, rt_machine *m, rt_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return rt_err_set(err, "probe: out of memory");
    const int rc = rt_probe_run(opt, NULL, mem, err);
    fclose(mem);
    const int lrc = rc == 0 ? rt_machine_load_string(text, "probe output", m, err) : -1;
    free(text);
    return lrc;
}
