/* rooftune compare: regression verdicts between result stores (docs/guides/regression.md). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_compare.h"
#include "rt_outfile.h"
#include "rt_readonly.h"
#include "rt_store_read.h"

static void compare_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune compare BASE.db NEW.db [options]\n"
        "       rooftune compare --history A.db B.db [C.db ...] [options]\n"
        "\n"
        "Matches the points of two stores (experiment, kernel, matrix, params, problem, ranks,\n"
        "device class) and gives each a verdict from its raw samples: SLOWER or FASTER when the\n"
        "Mann-Whitney U test rejects at --alpha and the medians differ by more than --threshold;\n"
        "SAME when they differ by less; UNSURE otherwise. Deterministic metrics must be equal;\n"
        "a point that was ok and is not any more is a failure. --history finds the change points\n"
        "of every point's time over stores given in order (oldest first).\n"
        "\n"
        "options:\n"
        "  --threshold R             minimum relative change that counts (default 0.05 = 5%%)\n"
        "  --alpha A                 significance level of the U test (default 0.01)\n"
        "  --markdown FILE           also write the summary as Markdown\n"
        "  --timings-informational   report SLOWER points without failing on them (CPU-only\n"
        "                            runners: only deterministic metrics and statuses gate)\n"
        "  --ignore-device           match points whatever device they ran on\n"
        "  --allow-no-match          pass when no point matches (otherwise that fails)\n"
        "  --allow-unsure            pass UNSURE points past +threshold (otherwise they fail:\n"
        "                            re-measure them; noisy points are never SLOWER/FASTER)\n"
        "  --experiment NAME         only this experiment\n"
        "  --history                 change points over two or more stores, in order\n"
        "\n"
        "exit status: 0 pass; 1 a point slower beyond the threshold or UNSURE past it (unless\n"
        "timings are informational), a changed deterministic metric, a point newly wrong, or no\n"
        "point matched (history: a slowdown somewhere in the history); 2 bad input (a missing,\n"
        "foreign or damaged store, a --markdown path that cannot be made); 3 writing the Markdown\n"
        "failed (a full disk: nothing is printed).\n");
}

static int parse_fraction(const char *option, const char *text, double *out)
{
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || !(v > 0 && v < 1)) {
        fprintf(stderr, "rooftune compare: %s expects a number between 0 and 1, got '%s'\n", option,
                text);
        return -1;
    }
    *out = v;
    return 0;
}

/* Written whole before the verdict is printed: a verdict must not be followed by a failure.
 * Returns RT_EXIT_OK, RT_EXIT_USAGE when the file cannot be made there (a bad path) or
 * RT_EXIT_FAILURE when writing it failed (a full disk). */
static int write_markdown(const char *path, const rt_compare_report *r, const rt_history_report *h,
                          char *const *labels)
{
    rt_outfile o;
    rt_err err;
    if (rt_outfile_open(&o, path, &err) != 0) {
        fprintf(stderr, "rooftune compare: --markdown: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    if (r)
        rt_compare_write_markdown(o.f, r, labels[0], labels[1]);
    else
        rt_history_write_markdown(o.f, h, (const char *const *)labels);
    if (rt_outfile_commit(&o, &err) != 0) {
        fprintf(stderr, "rooftune compare: --markdown: %s\n", err.msg);
        return RT_EXIT_FAILURE;
    }
    return RT_EXIT_OK;
}

int rt_cli_compare(int argc, char **argv)
{
    static const struct option longopts[] = {{"threshold", required_argument, 0, 't'},
                                             {"alpha", required_argument, 0, 'a'},
                                             {"markdown", required_argument, 0, 'm'},
                                             {"timings-informational", no_argument, 0, 'i'},
                                             {"ignore-device", no_argument, 0, 'D'},
                                             {"allow-no-match", no_argument, 0, 'N'},
                                             {"allow-unsure", no_argument, 0, 'U'},
                                             {"experiment", required_argument, 0, 'e'},
                                             {"history", no_argument, 0, 'H'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    rt_compare_opts o;
    rt_compare_opts_init(&o);
    const char *markdown = NULL;
    int history = 0;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 't':
            if (parse_fraction("--threshold", optarg, &o.threshold) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'a':
            if (parse_fraction("--alpha", optarg, &o.alpha) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'm': markdown = optarg; break;
        case 'i': o.timings_informational = 1; break;
        case 'D': o.ignore_device = 1; break;
        case 'N': o.allow_no_match = 1; break;
        case 'U': o.allow_unsure = 1; break;
        case 'e': o.experiment = optarg; break;
        case 'H': history = 1; break;
        case 'h': compare_usage(stdout); return RT_EXIT_OK;
        default: compare_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    const int n = argc - optind;
    if (history ? n < 2 : n != 2) {
        fprintf(stderr, "rooftune compare: %s\n\n",
                history ? "--history needs two or more stores, oldest first"
                        : "give exactly two stores: BASE.db NEW.db");
        compare_usage(stderr);
        return RT_EXIT_USAGE;
    }
    char **labels = argv + optind;
    struct sqlite3 **dbs = calloc((size_t)n, sizeof *dbs);
    if (!dbs) {
        fprintf(stderr, "rooftune compare: out of memory\n");
        return RT_EXIT_FAILURE;
    }
    rt_err err;
    rt_err_clear(&err);
    int status = RT_EXIT_USAGE;
    for (int k = 0; k < n; ++k) {
        if (rt_readonly_open(labels[k], &dbs[k], &err) != 0) {
            fprintf(stderr, "rooftune compare: %s\n", err.msg);
            goto done;
        }
    }
    if (history) {
        rt_history_report h;
        if (rt_compare_history(dbs, (const char *const *)labels, n, &o, &h, &err) != 0) {
            fprintf(stderr, "rooftune compare: %s\n", err.msg);
            rt_history_report_free(&h);
            goto done;
        }
        const int md = markdown ? write_markdown(markdown, NULL, &h, labels) : RT_EXIT_OK;
        if (md != RT_EXIT_OK) {
            status = md;
        } else {
            rt_history_write_text(stdout, &h, (const char *const *)labels);
            status = h.n_slowdowns > 0 ? RT_EXIT_ATTENTION : RT_EXIT_OK;
        }
        rt_history_report_free(&h);
    } else {
        rt_compare_report r;
        if (rt_compare_stores(dbs[0], labels[0], dbs[1], labels[1], &o, &r, &err) != 0) {
            fprintf(stderr, "rooftune compare: %s\n", err.msg);
            rt_compare_report_free(&r);
            goto done;
        }
        const int md = markdown ? write_markdown(markdown, &r, NULL, labels) : RT_EXIT_OK;
        if (md != RT_EXIT_OK) {
            status = md;
        } else {
            rt_compare_write_text(stdout, &r, labels[0], labels[1]);
            status = r.failed ? RT_EXIT_ATTENTION : RT_EXIT_OK;
        }
        rt_compare_report_free(&r);
    }
done:
    for (int k = 0; k < n; ++k)
        rt_store_read_close(dbs[k]);
    free(dbs);
    return status;
}
