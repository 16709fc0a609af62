/* rooftune probe: measure this machine's ceilings and write a machine file. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_comm.h"
#include "rt_machine.h"
#include "rt_outfile.h"
#include "rt_path.h"
#include "rt_probe.h"

static void probe_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune probe [--out FILE | --install] [--base FILE] [--name NAME] [--quick] "
        "[--cpu]\n"
        "       mpirun -np N rooftune probe [--ranks-per-node N] ...\n"
        "\n"
        "Measures the ceilings of this machine and writes a machine file with a measured: block:\n"
        "CPU STREAM bandwidth and FP64/FP32 peak; with several ranks, MPI ping-pong latency and\n"
        "streaming bandwidth per tier (same socket, same node, across nodes); with a GPU, HBM, L2\n"
        "and shared-memory bandwidth, FP32/FP64 peak, host<->device copies and peer copies.\n"
        "\n"
        "  --out FILE     write the machine file here (default: standard output)\n"
        "  --install      write it where `machine: auto` looks: the machine folder (beside the\n"
        "                 committed files, $ROOFTUNE_MACHINE_DIR if set) as local-<host>.yaml\n"
        "  --base FILE    keep this machine file's spec: and topology, replace its measured:\n"
        "                 (default with a GPU: the file `machine: auto` picks for the device)\n"
        "  --name NAME    the machine's name in the file\n"
        "  --quick        small sizes and few repetitions (smoke test, not ceilings)\n"
        "  --cpu          skip the GPU even when one is present\n"
        "  --quiet        do not say what is being measured (errors are still printed)\n"
        "  --ranks-per-node N, --ranks-per-socket N   emulate nodes/sockets (see run --help)\n");
}

int rt_cli_probe(int argc, char **argv)
{
    static const struct option longopts[] = {{"out", required_argument, 0, 'o'},
                                             {"base", required_argument, 0, 'b'},
                                             {"name", required_argument, 0, 'n'},
                                             {"quick", no_argument, 0, 'q'},
                                             {"install", no_argument, 0, 'i'},
                                             {"cpu", no_argument, 0, 'c'},
                                             {"quiet", no_argument, 0, 'Q'},
                                             {"ranks-per-node", required_argument, 0, 'N'},
                                             {"ranks-per-socket", required_argument, 0, 'S'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *out_path = NULL, *base = NULL, *name = NULL;
    int quick = 0, cpu_only = 0, quiet = 0, install = 0;
    long rpn = 0, rps = 0;
    rt_err err;
    rt_err_clear(&err);
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'b': base = optarg; break;
        case 'n': name = optarg; break;
        case 'q': quick = 1; break;
        case 'i': install = 1; break;
        case 'c': cpu_only = 1; break;
        case 'Q': quiet = 1; break;
        case 'N':
            if (rt_cli_parse_int("--ranks-per-node", optarg, 1, 1000000, &rpn, &err) != 0) {
                fprintf(stderr, "rooftune probe: %s\n", err.msg);
                return RT_EXIT_USAGE;
            }
            break;
        case 'S':
            if (rt_cli_parse_int("--ranks-per-socket", optarg, 1, 1000000, &rps, &err) != 0) {
                fprintf(stderr, "rooftune probe: %s\n", err.msg);
                return RT_EXIT_USAGE;
            }
            break;
        case 'h': probe_usage(stdout); return RT_EXIT_OK;
        default: probe_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc || (install && out_path)) {
        probe_usage(stderr);
        return RT_EXIT_USAGE;
    }
    /* --install: the file goes where `machine: auto` scans, so the next run finds this host's
     * own ceilings (its match: is the CPU model, its priority above the generic file's). */
    char installed[PATH_MAX], installed_name[300];
    if (install) {
        char machine_dir[PATH_MAX], host[256] = "host";
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        for (char *p = host; *p; ++p)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '-'))
                *p = '-';
        if (rt_cli_machine_dir(machine_dir, sizeof machine_dir, &err) != 0 ||
            rt_path_format(installed, sizeof installed, &err, "%s/local-%s.yaml", machine_dir,
                           host) != 0) {
            fprintf(stderr, "rooftune probe: --install: %s\n", err.msg);
            return RT_EXIT_USAGE;
        }
        out_path = installed;
        /* A machine file's name is its file name's stem (rt_machine checks it). */
        if (!name) {
            snprintf(installed_name, sizeof installed_name, "local-%s", host);
            name = installed_name;
        }
    }

    rt_comm *comm = NULL;
    if (rt_cli_mpi_start("probe", rpn, rps, 0, &comm) != 0)
        return RT_EXIT_USAGE;
    int status = RT_EXIT_OK;
    const int rank = rt_comm_world_rank(comm);
    rt_cli_env env;
    memset(&env, 0, sizeof env);
    int ok = rt_cli_env_open(&env, cpu_only, rt_comm_rank(comm, RT_COMM_NODE), 0, &err) == 0;
    int all_ok = ok, first_bad = -1;
    rt_comm_all_ok(comm, ok, &all_ok, &first_bad);
    if (!all_ok) {
        if (!ok)
            fprintf(stderr, "rooftune probe: rank %d: %s\n", rank, err.msg);
        status = RT_EXIT_FAILURE;
        goto done;
    }

    rt_probe_opts po;
    rt_probe_opts_init(&po);
    po.quick = quick;
    po.name = name;
    po.log = rank == 0 && !quiet ? stderr : NULL;
    char base_path[PATH_MAX] = "";
    if (base) {
        if (rt_path_format(base_path, sizeof base_path, &err, "%s", base) != 0) {
            fprintf(stderr, "rooftune probe: --base: %s\n", err.msg);
            status = RT_EXIT_USAGE;
            goto done;
        }
    } else if (env.backend.cuda_loaded) {
        char machine_dir[PATH_MAX];
        int generic = 0;
        rt_err find_err;
        if (rt_cli_machine_dir(machine_dir, sizeof machine_dir, &find_err) != 0 ||
            rt_machine_find(machine_dir, env.backend.gpu.name, 0, base_path, sizeof base_path,
                            &generic, &find_err) != 0 ||
            generic)
            base_path[0] = '\0';
    }
    po.base_path = base_path[0] ? base_path : NULL;
    if (env.backend.cuda_loaded && env.backend.plugin->probe) {
        po.gpu_probe = env.backend.plugin->probe;
        po.gpu_state = env.backend.plugin_state;
        po.device_name = env.backend.gpu.name;
        if (env.backend.plugin->probe_devbuf)
            po.devbuf = env.backend.plugin->probe_devbuf(env.backend.plugin_state);
    }
    /* The machine file is written whole or not at all: a probe that fails leaves the old one. */
    FILE *out = NULL;
    rt_outfile file = RT_OUTFILE_NONE;
    ok = 1;
    if (rank == 0) {
        if (out_path && rt_outfile_open(&file, out_path, &err) != 0)
            ok = 0;
        else
            out = out_path ? file.f : stdout;
        if (ok && !quiet) {
            fprintf(stderr, "rooftune probe: %s; %s%s\n", env.backend.cuda_status,
                    po.base_path ? "base file " : "new machine file",
                    po.base_path ? po.base_path : "");
        }
    }
    rt_comm_all_ok(comm, ok, &all_ok, &first_bad);
    if (!all_ok) {
        if (!ok)
            fprintf(stderr, "rooftune probe: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
        goto done;
    }
    if (rt_probe_run(&po, comm, out, &err) != 0) {
        fprintf(stderr, "rooftune probe: rank %d: %s\n", rank, err.msg);
        status = RT_EXIT_FAILURE;
    } else if (rank == 0 && out_path && rt_outfile_commit(&file, &err) != 0) {
        fprintf(stderr, "rooftune probe: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
    } else if (rank == 0 && out_path && !quiet) {
        fprintf(stderr, "rooftune probe: wrote %s\n", out_path);
    }
    rt_outfile_abort(&file);
done:
    rt_cli_env_close(&env);
    rt_comm_free(comm);
    MPI_Finalize();
    return status;
}
