/* rooftune replay: search strategies replayed on a recorded, fully measured tuning space (a Kernel
 * Tuner cache, a T4 results file or a sweep of a rooftune store), scored with the autotuning
 * methodology; also converts any of them to T4. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_csv.h"
#include "rt_outdir.h"
#include "rt_outfile.h"
#include "rt_plot_gnuplot.h"
#include "rt_recorded.h"
#include "rt_replay.h"
#include "rt_store_recorded.h"
#include "rt_strategy.h"

#define MAX_LIST       16
#define MAX_STRATEGIES 64

static void replay_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune replay SPACE [options]\n"
        "\n"
        "Replays search strategies on a recorded, fully measured tuning space without a GPU:\n"
        "SPACE is a Kernel Tuner cache file, a T4 results file (either may be gzip-compressed)\n"
        "or a rooftune store (one sweep of it: --kernel, --matrix, --problem). For every\n"
        "strategy and budget it prints the mean best time found over the repeats, what random\n"
        "search finds on average, the optimum, the methodology score\n"
        "P = (S_random - F) / (S_random - S_opt) (0 = random search, 1 = the optimum) and the\n"
        "mean fraction of the optimum reached (optimum / best found).\n"
        "\n"
        "options:\n"
        "  --strategy LIST    comma-separated strategies, or all (default all; listed below)\n"
        "  --option S.K=V     option K of strategy S (repeatable), e.g. genetic.population=24\n"
        "  --budget LIST      comma-separated evaluation budgets (default 20,50,100,200;\n"
        "                     each 1 to 10^9)\n"
        "  --repeats R        runs per strategy and budget, seeds S..S+R-1 (default 10,\n"
        "                     at most 10000)\n"
        "  --seed S           first seed (default 1; 0 to 2^62)\n"
        "  --label NAME       the space's name in the CSV and the figure (default: file name)\n"
        "  --csv FILE         append one row per strategy and budget (header when new; an\n"
        "                     existing file must be a CSV of this command, same header)\n"
        "  --trace FILE       write every configuration each search evaluated, in order\n"
        "                     (strategy,budget,seed,step,configuration), as a live run with\n"
        "                     the same strategy, options, seed and budget would measure them\n"
        "  --runs FILE        append every search's best time and evaluations\n"
        "                     (space,strategy,budget,seed,best,evaluations; header when new;\n"
        "                     an existing file must be a --runs file, same header)\n"
        "  --plot DIR         draw score against budget, one line per strategy, into DIR\n"
        "                     (<label>-score.{dat,gp,png,svg})\n"
        "  --write-t4 FILE    write the space as a T4 results file (.gz: compressed) and stop\n"
        "  --kernel K, --matrix M, --problem JSON   the sweep of a store to replay\n"
        "  --prune bound      roofline-bounded pruning: skip a candidate whose recorded bound\n"
        "                     exceeds the best time so far (costs no evaluation); needs a\n"
        "                     space with bounds (a rooftune store, or T4 with roofline_bound)\n"
        "  --stop-within F    with --prune: stop once the best point is within F (e.g. 0.1)\n"
        "                     of its bound\n"
        "\n"
        "strategies (harness/search/rt_strategy_list.h; the same code as a live run's search):\n");
    rt_strategy_describe(f, "  ", 0);
}

/* --option STRATEGY.KEY=VALUE into the options of that strategy (opts is indexed like the
 * strategy table). */
static int parse_option(const char *text, rt_strategy_opts *opts)
{
    char name[64];
    const char *dot = strchr(text, '.'), *eq = strchr(text, '=');
    char *end = NULL;
    const double value = eq ? strtod(eq + 1, &end) : 0;
    if (!dot || !eq || dot > eq || (size_t)(dot - text) >= sizeof name || end == eq + 1 ||
        *end != '\0') {
        fprintf(stderr,
                "rooftune replay: --option expects STRATEGY.OPTION=NUMBER (e.g. "
                "genetic.population=24), got '%s'\n",
                text);
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)(dot - text), text);
    char key[RT_STRATEGY_OPTION_NAME];
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    rt_err err;
    int k = 0;
    while (k < rt_strategy_count() && strcmp(rt_strategy_at(k)->name, name) != 0)
        ++k;
    if (k == rt_strategy_count()) {
        rt_strategy_check_name(name, "--option: strategy", &err);
        fprintf(stderr, "rooftune replay: %s\n", err.msg);
        return -1;
    }
    if (rt_strategy_opts_set(&opts[k], name, key, value, &err) != 0) {
        fprintf(stderr, "rooftune replay: --option %s: %s\n", text, err.msg);
        return -1;
    }
    return 0;
}

/* Splits a comma-separated list; -1 when it has more than cap items (none is dropped). */
static int split_list(char *text, char **items, int cap)
{
    int n = 0;
    for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) {
        if (n == cap)
            return -1;
        items[n++] = tok;
    }
    return n;
}

/* The file name without its folder and its .json/.gz/.db suffixes. */
static void base_label(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(out, len, "%s", b ? b + 1 : path);
    static const char *const suffixes[] = {".gz", ".json", ".db"};
    for (int i = 0; i < 3; ++i) {
        const size_t n = strlen(out), k = strlen(suffixes[i]);
        if (n > k && strcmp(out + n - k, suffixes[i]) == 0)
            out[n - k] = '\0';
    }
}

/* Limits of the numeric options: a billion repeats would run for days without a word. */
#define REPLAY_MAX_REPEATS 10000
#define REPLAY_MAX_BUDGET  1000000000LL
#define REPLAY_MAX_SEED    (1LL << 62) /* seeds S..S+R-1 stay far from overflow */

static int parse_int(const char *option, const char *text, long long lo, long long hi,
                     long long *out)
{
    rt_err err;
    if (rt_cli_parse_ll(option, text, lo, hi, out, &err) != 0) {
        fprintf(stderr, "rooftune replay: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static const char csv_header[] = "space,strategy,budget,repeats,mean_best,random_best,optimum,"
                                 "score,frac_optimum,mean_evals";

static void write_csv_row(FILE *f, const char *label, const char *strategy,
                          const rt_replay_result *r)
{
    rt_csv_text(f, label);
    fputc(',', f);
    rt_csv_text(f, strategy);
    fprintf(f, ",%lld,%d,%.9g,%.9g,%.9g,%.6f,%.6f,%.2f\n", (long long)r->budget, r->repeats,
            r->mean_best, r->random_best, r->optimum, r->score, r->frac_optimum, r->mean_evals);
}

/* The configuration at a grid index as "name=value;name=value". */
static void config_text(const rt_recorded *r, int64_t index, char *buf, size_t len)
{
    int64_t stride = 1, coord[RT_MAX_PARAMS];
    for (int d = r->n_dims - 1; d >= 0; --d) {
        coord[d] = (index / stride) % r->dims[d].n_values;
        stride *= r->dims[d].n_values;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < r->n_dims && used < len; ++d)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", d ? ";" : "", r->dims[d].name,
                                 r->dims[d].values[coord[d]]);
}

static const char runs_header[] = "space,strategy,budget,seed,best,evaluations";
static const char trace_header[] = "strategy,budget,seed,step,configuration";

/* Where one strategy and budget's searches are written besides the summary. */
typedef struct replay_outputs {
    const char *label;
    FILE *trace; /* --trace: every evaluated configuration */
    FILE *runs;  /* --runs: every search's best time and evaluations */
} replay_outputs;

/* The `repeats` searches of one strategy and budget (seeds seed, seed+1, ...), scored. */
static int replay_cell(const rt_recorded *r, const char *strategy, const rt_strategy_opts *opts,
                       long long budget, int repeats, uint64_t seed, const rt_prune *prune,
                       const replay_outputs *o, rt_replay_result *res, rt_err *err)
{
    if (repeats < 1 || budget < 1)
        return rt_err_set(err, "replay: --repeats and --budget must be at least 1");
    /* A search evaluates each recorded configuration once at most. */
    const int64_t cap = budget < r->n_points ? budget : r->n_points;
    int64_t *visited = o->trace ? malloc((size_t)(cap > 0 ? cap : 1) * sizeof *visited) : NULL;
    double *best = malloc((size_t)repeats * sizeof *best);
    if (!best || (o->trace && !visited)) {
        free(visited);
        free(best);
        return rt_err_set(err, "out of memory");
    }
    char text[2048];
    double evals = 0, pruned = 0;
    int rc = 0;
    for (int k = 0; k < repeats && rc == 0; ++k) {
        const uint64_t sk = seed + (uint64_t)k;
        const rt_strategy_args args = {.name = strategy, .seed = sk, .options = opts};
        rt_replay_once_result once;
        rc = rt_replay_once(r, &args, budget, prune, visited, cap, &once, err);
        if (rc != 0)
            break;
        best[k] = once.best;
        evals += (double)once.evals;
        pruned += (double)once.pruned;
        for (int64_t step = 0; o->trace && step < once.n_visited && step < cap; ++step) {
            config_text(r, visited[step], text, sizeof text);
            rt_csv_text(o->trace, strategy);
            fprintf(o->trace, ",%lld,%llu,%lld,", budget, (unsigned long long)sk,
                    (long long)step + 1);
            rt_csv_text(o->trace, text);
            fputc('\n', o->trace);
        }
        if (o->runs) {
            rt_csv_text(o->runs, o->label);
            fputc(',', o->runs);
            rt_csv_text(o->runs, strategy);
            fprintf(o->runs, ",%lld,%llu,%.17g,%lld\n", budget, (unsigned long long)sk, once.best,
                    (long long)once.evals);
        }
    }
    if (rc == 0) {
        rt_replay_score(r, budget, best, repeats, res);
        res->mean_evals = evals / repeats;
        res->mean_pruned = pruned / repeats;
    }
    free(visited);
    free(best);
    return rc;
}

/* score.dat: one block per strategy (budget, score); the script draws one line per block. Both
 * files are written whole (rt_outfile) and the images replace old ones only when drawn
 * (rt_plot_render); the success line comes last. */
static int write_plot(const char *dir, const char *label, char **strategies, int ns,
                      const long long *budgets, int nb, const rt_replay_result *res)
{
    rt_err err;
    char stem[200], path[4096], title[512], cmd[8192];
    char raw[260];
    snprintf(raw, sizeof raw, "%s-score", label);
    rt_plot_sanitize_name(raw, stem, sizeof stem);
    rt_outdir made;
    if (rt_outdir_make(&made, dir, &err) != 0) {
        fprintf(stderr, "rooftune replay: --plot: %s\n", err.msg);
        return -1;
    }
    rt_outfile dat, gp;
    snprintf(path, sizeof path, "%s/%s.dat", dir, stem);
    if (rt_outfile_open(&dat, path, &err) != 0)
        goto fail;
    for (int s = 0; s < ns; ++s) {
        fprintf(dat.f, "# %s\n", strategies[s]);
        for (int b = 0; b < nb; ++b)
            fprintf(dat.f, "%lld %.6f\n", budgets[b], res[s * nb + b].score);
        fprintf(dat.f, "\n\n");
    }
    if (rt_outfile_commit(&dat, &err) != 0)
        goto fail;
    snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
    if (rt_outfile_open(&gp, path, &err) != 0)
        goto fail;
    fprintf(gp.f, "reset\n");
    rt_plot_write_style(gp.f);
    char quoted[600];
    snprintf(title, sizeof title, "%s: methodology score by budget (0 = random, 1 = optimum)",
             label);
    rt_plot_quote(title, quoted, sizeof quoted);
    fprintf(gp.f,
            "set title %s\nset xlabel 'budget (evaluations)'\nset ylabel 'score P'\n"
            "set logscale x\nset key bottom right\nset yrange [*:1.05]\n",
            quoted);
    size_t used = (size_t)snprintf(cmd, sizeof cmd, "plot ");
    for (int s = 0; s < ns && used < sizeof cmd; ++s) {
        rt_plot_quote(strategies[s], quoted, sizeof quoted);
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "%s'%s.dat' index %d using 1:2 with linespoints title %s",
                                 s ? ", " : "", stem, s, quoted);
    }
    if (used < sizeof cmd)
        snprintf(cmd + used, sizeof cmd - used, "\n");
    rt_plot_write_render(gp.f, stem, cmd);
    if (rt_outfile_commit(&gp, &err) != 0)
        goto fail;
    if (rt_plot_render(dir, stem, &err) != 0) {
        fprintf(stderr, "rooftune replay: --plot: %s (data and script are in %s)\n", err.msg, dir);
        return -1;
    }
    printf("figure: %s/%s.png and .svg\n", dir, stem);
    return 0;
fail:
    fprintf(stderr, "rooftune replay: --plot: %s\n", err.msg);
    rt_outdir_undo(&made);
    return -1;
}

int rt_cli_replay(int argc, char **argv)
{
    static const struct option opts[] = {{"strategy", required_argument, NULL, 's'},
                                         {"budget", required_argument, NULL, 'b'},
                                         {"repeats", required_argument, NULL, 'r'},
                                         {"seed", required_argument, NULL, 'S'},
                                         {"label", required_argument, NULL, 'l'},
                                         {"csv", required_argument, NULL, 'c'},
                                         {"plot", required_argument, NULL, 'p'},
                                         {"write-t4", required_argument, NULL, 't'},
                                         {"kernel", required_argument, NULL, 'k'},
                                         {"matrix", required_argument, NULL, 'm'},
                                         {"problem", required_argument, NULL, 'P'},
                                         {"prune", required_argument, NULL, 'x'},
                                         {"stop-within", required_argument, NULL, 'w'},
                                         {"option", required_argument, NULL, 'o'},
                                         {"trace", required_argument, NULL, 'T'},
                                         {"runs", required_argument, NULL, 'R'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    char strategy_text[512] = "all", budget_text[512] = "20,50,100,200", label[256] = "";
    const char *csv = NULL, *plot_dir = NULL, *t4_out = NULL, *trace = NULL, *runs = NULL;
    rt_recorded_select sel = {0};
    long long repeats = 10, seed = 1;
    rt_prune prune;
    rt_prune_init(&prune, 0, 0);
    /* Options per strategy of the table, indexed like it. */
    rt_strategy_opts strat_opts[MAX_STRATEGIES];
    memset(strat_opts, 0, sizeof strat_opts);
    if (rt_strategy_count() > MAX_STRATEGIES) {
        fprintf(stderr, "rooftune replay: the strategy table has more than %d entries\n",
                MAX_STRATEGIES);
        return RT_EXIT_FAILURE;
    }
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "h", opts) {
        switch (c) {
        case 's': snprintf(strategy_text, sizeof strategy_text, "%s", optarg); break;
        case 'b': snprintf(budget_text, sizeof budget_text, "%s", optarg); break;
        case 'r':
            if (parse_int("--repeats", optarg, 1, REPLAY_MAX_REPEATS, &repeats) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'S':
            if (parse_int("--seed", optarg, 0, REPLAY_MAX_SEED, &seed) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'l': snprintf(label, sizeof label, "%s", optarg); break;
        case 'c': csv = optarg; break;
        case 'T': trace = optarg; break;
        case 'R': runs = optarg; break;
        case 'p': plot_dir = optarg; break;
        case 't': t4_out = optarg; break;
        case 'k': sel.kernel = optarg; break;
        case 'm': sel.matrix = optarg; break;
        case 'P': sel.problem = optarg; break;
        case 'x':
            if (strcmp(optarg, "bound") != 0) {
                fprintf(stderr, "rooftune replay: --prune takes 'bound', not '%s'\n", optarg);
                return RT_EXIT_USAGE;
            }
            prune.enabled = 1;
            break;
        case 'w': {
            rt_err perr;
            if (rt_cli_parse_real("--stop-within", optarg, 0, 100, &prune.stop_within, &perr) !=
                    0 ||
                !(prune.stop_within > 0)) {
                fprintf(stderr,
                        "rooftune replay: --stop-within expects a fraction above 0 and "
                        "at most 100 (e.g. 0.1), got '%s'\n",
                        optarg);
                return RT_EXIT_USAGE;
            }
            break;
        }
        case 'o':
            if (parse_option(optarg, strat_opts) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'h': replay_usage(stdout); return RT_EXIT_OK;
        default: replay_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        replay_usage(stderr);
        return RT_EXIT_USAGE;
    }
    const char *path = argv[optind];
    if (!label[0])
        base_label(path, label, sizeof label);
    /* The strategies to replay, as positions in the table. */
    char *strategies[MAX_STRATEGIES];
    int which[MAX_STRATEGIES];
    int ns;
    if (strcmp(strategy_text, "all") == 0) {
        ns = rt_strategy_count();
        for (int i = 0; i < ns; ++i) {
            strategies[i] = (char *)rt_strategy_at(i)->name;
            which[i] = i;
        }
    } else {
        ns = split_list(strategy_text, strategies, MAX_STRATEGIES);
        if (ns < 0) {
            fprintf(stderr, "rooftune replay: --strategy lists more than %d strategies\n",
                    MAX_STRATEGIES);
            return RT_EXIT_USAGE;
        }
        for (int i = 0; i < ns; ++i) {
            rt_err err;
            if (rt_strategy_check_name(strategies[i], "--strategy", &err) != 0) {
                fprintf(stderr, "rooftune replay: %s (or all)\n", err.msg);
                return RT_EXIT_USAGE;
            }
            for (which[i] = 0; strcmp(rt_strategy_at(which[i])->name, strategies[i]) != 0;)
                which[i]++;
        }
    }
    char *budget_items[MAX_LIST];
    const int nb = split_list(budget_text, budget_items, MAX_LIST);
    if (nb < 0) {
        fprintf(stderr, "rooftune replay: --budget lists more than %d budgets\n", MAX_LIST);
        return RT_EXIT_USAGE;
    }
    long long budgets[MAX_LIST];
    for (int i = 0; i < nb; ++i)
        if (parse_int("--budget", budget_items[i], 1, REPLAY_MAX_BUDGET, &budgets[i]) != 0)
            return RT_EXIT_USAGE;
    if (ns == 0 || nb == 0) {
        fprintf(stderr, "rooftune replay: give at least one strategy and one budget\n");
        return RT_EXIT_USAGE;
    }

    rt_err err;
    rt_recorded *space = NULL;
    if (rt_store_recorded_load(path, &sel, &space, &err) != 0) {
        fprintf(stderr, "rooftune replay: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    int64_t valid = 0;
    const double opt = rt_recorded_optimum(space, &valid);
    printf("space %s: %s%s%s, %d parameters, %lld configurations (%lld valid), optimum %.6g %s\n",
           label, space->kernel, space->device[0] ? " on " : "", space->device, space->n_dims,
           (long long)space->n_points, (long long)valid, opt, space->unit);
    if (t4_out) {
        /* Written whole or not at all; "wrote" only once it is in place. */
        const int rc = rt_recorded_write_t4(space, t4_out, &err);
        if (rc != 0)
            fprintf(stderr, "rooftune replay: --write-t4: %s\n", err.msg);
        else
            printf("wrote %s\n", t4_out);
        rt_recorded_free(space);
        return rc == 0 ? RT_EXIT_OK : RT_EXIT_FAILURE;
    }
    if (prune.stop_within > 0 && !prune.enabled) {
        fprintf(stderr, "rooftune replay: --stop-within needs --prune bound\n");
        rt_recorded_free(space);
        return RT_EXIT_USAGE;
    }
    if (prune.enabled) {
        /* A bound is a lower bound on its configuration's time; one above the recorded time (an
         * above_roofline point, or a wrong model) would prune configurations that can win, so it
         * is not used, and the user hears how many there were. */
        int64_t with_bound = 0, contradicted = 0;
        for (int64_t i = 0; i < space->n_points; ++i) {
            if (space->bound[i] > 0 && isfinite(space->time[i]) &&
                space->bound[i] > space->time[i]) {
                space->bound[i] = NAN;
                ++contradicted;
            }
            with_bound += space->bound[i] > 0;
        }
        printf("pruning by roofline bound: %lld of %lld configurations carry a bound\n",
               (long long)with_bound, (long long)space->n_points);
        if (contradicted)
            fprintf(stderr,
                    "rooftune replay: %s: %lld configuration(s) have a roofline bound above their "
                    "own recorded time, so it is no lower bound (above_roofline: a measurement or "
                    "model bug); those bounds are not used for pruning\n",
                    path, (long long)contradicted);
    }
    if (valid == 0) {
        fprintf(stderr, "rooftune replay: %s: no configuration ran, nothing to search for\n", path);
        rt_recorded_free(space);
        return RT_EXIT_USAGE;
    }
    /* --csv and --runs: rows go under the existing ones of a file this command wrote (same
     * header), into a file that replaces it only when complete; anything else is refused and left
     * alone. --trace starts afresh, written whole (rt_outfile). */
    rt_outfile csv_out = RT_OUTFILE_NONE, runs_out = RT_OUTFILE_NONE, trace_out = RT_OUTFILE_NONE;
    int refused = 0;
    const char *failed = NULL;
    if (csv && rt_csv_append_open(&csv_out, csv, csv_header, &refused, &err) != 0)
        failed = "--csv";
    else if (runs && rt_csv_append_open(&runs_out, runs, runs_header, &refused, &err) != 0)
        failed = "--runs";
    else if (trace && rt_outfile_open(&trace_out, trace, &err) != 0)
        failed = "--trace";
    if (failed) {
        fprintf(stderr, "rooftune replay: %s: %s\n", failed, err.msg);
        rt_outfile_abort(&csv_out);
        rt_outfile_abort(&runs_out);
        rt_recorded_free(space);
        return refused ? RT_EXIT_USAGE : RT_EXIT_FAILURE;
    }
    const replay_outputs out = {.label = label, .trace = trace_out.f, .runs = runs_out.f};
    rt_replay_result *res = calloc((size_t)(ns * nb), sizeof *res);
    int rc = res ? RT_EXIT_OK : RT_EXIT_FAILURE;
    if (out.trace)
        fprintf(out.trace, "%s\n", trace_header);
    if (res)
        printf("%-10s %7s %7s %14s %14s %8s %9s %7s\n", "strategy", "budget", "repeats",
               "mean best", "random best", "score", "% optimum", "pruned");
    for (int s = 0; s < ns && rc == RT_EXIT_OK; ++s)
        for (int b = 0; b < nb && rc == RT_EXIT_OK; ++b) {
            rt_replay_result *r = &res[s * nb + b];
            if (replay_cell(space, strategies[s], &strat_opts[which[s]], budgets[b], (int)repeats,
                            (uint64_t)seed, &prune, &out, r, &err) != 0) {
                fprintf(stderr, "rooftune replay: %s\n", err.msg);
                rc = RT_EXIT_FAILURE;
                break;
            }
            printf("%-10s %7lld %7d %14.6g %14.6g %8.3f %8.1f%% %7.1f\n", strategies[s], budgets[b],
                   r->repeats, r->mean_best, r->random_best, r->score, 100.0 * r->frac_optimum,
                   r->mean_pruned);
            if (csv)
                write_csv_row(csv_out.f, label, strategies[s], r);
        }
    rt_outfile *const written[] = {&csv_out, &runs_out, &trace_out};
    static const char *const written_opt[] = {"--csv", "--runs", "--trace"};
    for (int i = 0; i < 3; ++i) {
        if (written[i]->f && rc == RT_EXIT_OK && rt_outfile_commit(written[i], &err) != 0) {
            fprintf(stderr, "rooftune replay: %s: %s\n", written_opt[i], err.msg);
            rc = RT_EXIT_FAILURE;
        }
        rt_outfile_abort(written[i]);
    }
    if (rc == RT_EXIT_OK && plot_dir &&
        write_plot(plot_dir, label, strategies, ns, budgets, nb, res) != 0)
        rc = RT_EXIT_FAILURE;
    free(res);
    rt_recorded_free(space);
    return rc;
}
