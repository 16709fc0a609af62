/* rt_figures: the committed figures regenerated from the committed result stores; see
 * rt_figures.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_figures.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_plot.h"
#include "rt_outdir.h"
#include "rt_path.h"
#include "rt_readonly.h"
#include "rt_store.h"
#include "rt_store_read.h"
#include "rt_yaml.h"

#define INCLUDE_MARK "# --- rooftune include: "

/* ------------------------------------------------------------------------------------------- */
/* The plots of a recorded config */

/* One file of the recorded text: where it starts, how long it is, what it was called. */
typedef struct section {
    const char *text;
    size_t len;
    char label[1024];
} section;

/* Splits the recorded text at the include markers the config stage writes (rt_config_tree.c):
 * the top file first, then each included file after its marker line. */
static int split_sections(const char *text, const char *top_label, section *out, int max)
{
    int n = 0;
    const char *start = text;
    snprintf(out[0].label, sizeof out[0].label, "%s", top_label);
    for (const char *p = text;;) {
        const char *mark = strstr(p, INCLUDE_MARK);
        /* A marker only counts at the start of a line. */
        while (mark && mark != text && mark[-1] != '\n')
            mark = strstr(mark + 1, INCLUDE_MARK);
        const char *end = mark ? mark : text + strlen(text);
        out[n].text = start;
        out[n].len = (size_t)(end - start);
        ++n;
        if (!mark || n >= max)
            break;
        const char *name = mark + strlen(INCLUDE_MARK);
        const char *eol = strchr(name, '\n');
        const size_t name_len = eol ? (size_t)(eol - name) : strlen(name);
        snprintf(out[n].label, sizeof out[n].label, "%.*s", (int)name_len, name);
        start = eol ? eol + 1 : name + name_len;
        p = start;
    }
    return n;
}

/* The `plots:` key of one file, as the lines it spans. *start_line = 0 when there is none. A file
 * that no longer parses is skipped (its plots cannot be recovered), not an error: the figures
 * then fall back to the next source. */
static void section_plots(const section *s, int *start_line, int *end_line)
{
    *start_line = *end_line = 0;
    rt_yaml_node *root = NULL;
    rt_err ignored;
    if (rt_yaml_load_buffer(s->text, s->len, s->label, &root, &ignored) != 0 || !root ||
        root->kind != RT_YAML_MAP) {
        rt_yaml_free(root);
        return;
    }
    const int at = rt_yaml_map_index(root, "plots");
    if (at >= 0 && root->key_lines) {
        const int line = root->key_lines[at];
        int next = 0;
        for (int k = 0; k < root->n; ++k)
            if (root->key_lines[k] > line && (next == 0 || root->key_lines[k] < next))
                next = root->key_lines[k];
        *start_line = line;
        *end_line = next ? next - 1 : 0; /* 0: to the end of the file */
    }
    rt_yaml_free(root);
}

/* Lines [first, last] (1-based; last 0 = to the end) of a section, written at their original line
 * numbers (blank lines before them), so that errors point at the recorded file's lines. */
static int write_plots_file(FILE *f, const section *s, int first, int last, const char *experiment)
{
    int line = 1;
    const char *p = s->text, *end = s->text + s->len;
    for (int k = 1; k < first; ++k)
        fputc('\n', f);
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
        if (line >= first && (last == 0 || line <= last)) {
            fwrite(p, 1, n, f);
            fputc('\n', f);
        }
        ++line;
        p = eol ? eol + 1 : end;
    }
    /* After the plots, so their line numbers stay; the name is a valid experiment name already. */
    fprintf(f, "experiment: {name: '%s'}\n", experiment);
    return ferror(f) ? -1 : 0;
}

/* Replaces every occurrence of from in err->msg by to. */
static void err_replace(rt_err *err, const char *from, const char *to)
{
    char out[RT_ERR_MSG_MAX];
    size_t used = 0;
    const size_t flen = strlen(from), tlen = strlen(to);
    for (const char *p = err->msg; *p && used + 1 < sizeof out;) {
        if (flen && strncmp(p, from, flen) == 0) {
            const size_t n = tlen < sizeof out - 1 - used ? tlen : sizeof out - 1 - used;
            memcpy(out + used, to, n);
            used += n;
            p += flen;
        } else {
            out[used++] = *p++;
        }
    }
    out[used] = '\0';
    memcpy(err->msg, out, used + 1);
}

int rt_figures_recorded_plots(struct sqlite3 *db, const char *experiment, rt_config *cfg,
                              int *found, rt_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    *found = 0;
    rt_store_run run;
    int have_run = 0;
    if (rt_store_newest_run(db, experiment, &run, &have_run, err) != 0)
        return -1;
    (void)have_run; /* no run: no recorded text, which the check below catches */
    const char *text = run.config_text, *path = run.config_path;
    int rc = 0;
    if (!text || !*text)
        goto done;
    section sections[129]; /* the config stage reads at most 128 files */
    const int n = split_sections(text, path && *path ? path : "recorded config", sections,
                                 (int)(sizeof sections / sizeof sections[0]));
    /* The top file's plots win over its includes'; among includes, the last one read. */
    int chosen = -1, first = 0, last = 0;
    section_plots(&sections[0], &first, &last);
    if (first > 0) {
        chosen = 0;
    } else {
        for (int k = n - 1; k >= 1 && chosen < 0; --k) {
            section_plots(&sections[k], &first, &last);
            if (first > 0)
                chosen = k;
        }
    }
    if (chosen < 0)
        goto done;

    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    if (rt_path_format(dir, sizeof dir, err, "%s/rooftune-plots-XXXXXX",
                       tmp && *tmp ? tmp : "/tmp") != 0) {
        rc = rt_err_prefix(err, "TMPDIR");
        goto done;
    }
    if (!mkdtemp(dir)) {
        rc = rt_err_set(err, "cannot create a temporary folder in %s: %s",
                        tmp && *tmp ? tmp : "/tmp", strerror(errno));
        goto done;
    }
    char file[1100];
    FILE *f = rt_path_format(file, sizeof file, err, "%s/recorded.yaml", dir) == 0
                  ? fopen(file, "w")
                  : NULL;
    if (!f || write_plots_file(f, &sections[chosen], first, last, experiment) != 0) {
        rc = rt_err_set(err, "cannot write %s: %s", file, strerror(errno));
        if (f)
            fclose(f);
    } else if (fclose(f) != 0) {
        rc = rt_err_set(err, "cannot write %s: %s", file, strerror(errno));
    } else if (rt_config_load(file, NULL, 0, cfg, err) != 0) {
        err_replace(err, file, sections[chosen].label);
        rc = rt_err_prefix(err, "the plots the store recorded for experiment '%s'", experiment);
        memset(cfg, 0, sizeof *cfg);
    } else {
        /* Point later messages at the recorded file, not at the scratch copy. */
        for (int k = 0; k < cfg->n_plots; ++k)
            snprintf(cfg->plots[k].loc.file, sizeof cfg->plots[k].loc.file, "%s",
                     sections[chosen].label);
        *found = cfg->n_plots > 0;
        if (!*found)
            rt_config_free(cfg);
    }
    unlink(file);
    rmdir(dir);
done:
    rt_store_run_free(&run);
    return rc;
}

/* ------------------------------------------------------------------------------------------- */
/* Walking results/baselines */

typedef struct name_list {
    int n, cap;
    char (*items)[256];
} name_list;

static int compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Entries of dir that are folders (want_dirs) or regular files ending in suffix, sorted. */
static int list_dir(const char *dir, int want_dirs, const char *suffix, name_list *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d)
        return rt_err_set(err, "cannot read folder '%s': %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (strlen(e->d_name) >= sizeof out->items[0]) {
            /* Skipping it would leave a store or figure out without a word. */
            rc = rt_err_set(err, "'%s/%s': a name longer than %zu characters", dir, e->d_name,
                            sizeof out->items[0] - 1);
            break;
        }
        char path[4096];
        if (rt_path_format(path, sizeof path, err, "%s/%s", dir, e->d_name) != 0) {
            rc = -1;
            break;
        }
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (want_dirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
            continue;
        const size_t len = strlen(e->d_name), slen = suffix ? strlen(suffix) : 0;
        if (suffix && (len <= slen || strcmp(e->d_name + len - slen, suffix) != 0))
            continue;
        if (out->n == out->cap) {
            const int cap = out->cap ? 2 * out->cap : 16;
            void *grown = realloc(out->items, (size_t)cap * sizeof out->items[0]);
            if (!grown) {
                rc = rt_err_set(err, "out of memory listing '%s'", dir);
                break;
            }
            out->items = grown;
            out->cap = cap;
        }
        snprintf(out->items[out->n++], sizeof out->items[0], "%s", e->d_name);
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->items, (size_t)out->n, sizeof out->items[0], compare_names);
    return rc;
}

/* The figure files (.dat, .gp, .png, .svg) a folder held before it was drawn into, with their
 * inodes and modification times: a file the drawing replaced has a new inode (rt_outfile renames
 * a new file into place), a file rewritten in place (a writer that truncates and writes) a new
 * modification time, so one whose inode and time are both unchanged afterwards was not drawn
 * again and is stale. */
typedef struct old_file_id {
    ino_t inode;
    struct timespec mtime;
} old_file_id;

typedef struct old_figures {
    int n;
    rt_figures_name *names;
    old_file_id *inodes;
} old_figures;

static int same_file_state(const struct stat *st, const old_file_id *id)
{
    return st->st_ino == id->inode && st->st_mtim.tv_sec == id->mtime.tv_sec &&
           st->st_mtim.tv_nsec == id->mtime.tv_nsec;
}

static const char *const figure_kinds[] = {".dat", ".gp", ".png", ".svg"};

static void old_figures_free(old_figures *o)
{
    free(o->names);
    free(o->inodes);
    memset(o, 0, sizeof *o);
}

static int snapshot_figures(const char *dir, old_figures *o, rt_err *err)
{
    memset(o, 0, sizeof *o);
    for (size_t k = 0; k < sizeof figure_kinds / sizeof figure_kinds[0]; ++k) {
        name_list files;
        if (list_dir(dir, 0, figure_kinds[k], &files, err) != 0) {
            free(files.items);
            old_figures_free(o);
            return -1;
        }
        void *names = realloc(o->names, (size_t)(o->n + files.n + 1) * sizeof *o->names);
        if (names)
            o->names = names;
        void *inodes =
            names ? realloc(o->inodes, (size_t)(o->n + files.n + 1) * sizeof *o->inodes) : NULL;
        if (inodes)
            o->inodes = inodes;
        if (!names || !inodes) {
            free(files.items);
            old_figures_free(o);
            return rt_err_set(err, "out of memory listing '%s'", dir);
        }
        for (int i = 0; i < files.n; ++i) {
            char path[4096];
            struct stat st;
            if (rt_path_format(path, sizeof path, err, "%s/%s", dir, files.items[i]) != 0) {
                free(files.items);
                old_figures_free(o);
                return -1;
            }
            if (stat(path, &st) != 0)
                continue; /* gone meanwhile: nothing to remove later */
            memcpy(o->names[o->n], files.items[i], sizeof o->names[0]);
            o->inodes[o->n].inode = st.st_ino;
            o->inodes[o->n++].mtime = st.st_mtim;
        }
        free(files.items);
    }
    return 0;
}

/* After a successful drawing: removes the old figure files that were not drawn again (a figure
 * renamed or dropped), and nothing else. */
static int remove_stale_figures(const char *dir, const old_figures *o, rt_err *err)
{
    for (int i = 0; i < o->n; ++i) {
        char path[4096];
        struct stat st;
        if (rt_path_format(path, sizeof path, err, "%s/%s", dir, o->names[i]) != 0)
            return -1;
        if (stat(path, &st) != 0 || !same_file_state(&st, &o->inodes[i]))
            continue;
        if (unlink(path) != 0 && errno != ENOENT)
            return rt_err_set(err, "cannot remove the old figure file %s: %s", path,
                              strerror(errno));
    }
    return 0;
}

int rt_figures_list(const char *dir, const char *suffix, rt_figures_name **names, int *n,
                    rt_err *err)
{
    name_list files;
    const int rc = list_dir(dir, 0, suffix, &files, err);
    *names = files.items;
    *n = files.n;
    return rc;
}

static int add_item(rt_figures_result *res, rt_figures_item **item, rt_err *err)
{
    void *grown = realloc(res->items, (size_t)(res->n_items + 1) * sizeof *res->items);
    if (!grown)
        return rt_err_set(err, "out of memory listing the figures");
    res->items = grown;
    *item = &res->items[res->n_items++];
    memset(*item, 0, sizeof **item);
    return 0;
}

/* The plots file beside a store: STORE.db -> STORE.plots.yaml (path "" when the name does not end
 * in .db). */
static int plots_file_path(const char *store_path, char *path, size_t size, rt_err *err)
{
    const size_t len = strlen(store_path);
    path[0] = '\0';
    if (len < 3 || strcmp(store_path + len - 3, ".db") != 0)
        return 0;
    return rt_path_format(path, size, err, "%.*s.plots.yaml", (int)(len - 3), store_path);
}

/* The plots file of a store (figures declared after its run, for a store whose config declared
 * none or other ones: a config's plots are part of its hash, so adding them to the config would
 * not reach a committed run), read once: *found = 1 with cfg loaded when the file exists. It must
 * name one of the store's experiments and declare plots, else an error naming the file. */
static int load_plots_file(const char *store_path, char (*names)[64], int n_names, rt_config *cfg,
                           int *found, rt_err *err)
{
    *found = 0;
    char path[2100];
    if (plots_file_path(store_path, path, sizeof path, err) != 0)
        return -1;
    if (!path[0] || access(path, F_OK) != 0)
        return 0;
    if (rt_config_load(path, NULL, 0, cfg, err) != 0)
        return -1;
    int named = 0;
    for (int e = 0; e < n_names; ++e)
        named |= strcmp(cfg->name, names[e]) == 0;
    if (!named)
        rt_err_set(err,
                   "%s: experiment.name names none of the store's experiments ('%s'; the store "
                   "holds '%s'%s)",
                   path, cfg->name, n_names > 0 ? names[0] : "", n_names > 1 ? " and others" : "");
    else if (cfg->n_plots == 0)
        rt_err_set(err, "%s: declares no plots", path);
    if (!named || cfg->n_plots == 0) {
        rt_config_free(cfg);
        return -1;
    }
    *found = 1;
    return 0;
}

/* One experiment's figures into item->out_dir (made already): the plots file's plots (file: the
 * store's, NULL when it has none) when they are this experiment's, else the recorded config's,
 * else the default set. */
static int draw_experiment(struct sqlite3 *db, const char *store_path, const char *experiment,
                           const rt_config *file, rt_figures_extra_fn extra, void *extra_ctx,
                           rt_figures_item *item, rt_figures_result *res, rt_err *err)
{
    rt_config recorded;
    int found = 0;
    const int from_file = file && strcmp(file->name, experiment) == 0;
    if (!from_file && rt_figures_recorded_plots(db, experiment, &recorded, &found, err) != 0)
        return rt_err_prefix(err, "%s", store_path);
    const rt_config *plots = from_file ? file : found ? &recorded : NULL;
    rt_plot_result pr;
    const int plot_rc = rt_plot_experiment(db, experiment, plots ? plots->plots : NULL,
                                           plots ? plots->n_plots : 0, item->out_dir, &pr, err);
    if (found)
        rt_config_free(&recorded);
    if (plot_rc != 0)
        return rt_err_prefix(err, "%s: experiment '%s'", store_path, experiment);
    item->n_figures = pr.n_figures;
    item->recorded_plots = from_file ? 2 : found;
    res->gnuplot_missing |= pr.gnuplot_missing;
    snprintf(item->message, sizeof item->message, "%s", pr.message);
    if (extra && extra(extra_ctx, db, experiment, item->out_dir, err) != 0)
        return rt_err_prefix(err, "%s: experiment '%s'", store_path, experiment);
    return 0;
}

/* The experiments a store holds (at most 64). */
static int store_experiments(const char *store_path, char (*names)[64], int *n, rt_err *err)
{
    struct sqlite3 *db = NULL;
    if (rt_readonly_open(store_path, &db, err) != 0)
        return -1;
    const int rc = rt_store_experiments(db, names, 64, n, err);
    rt_store_read_close(db);
    return rc != 0 ? rt_err_prefix(err, "%s", store_path) : 0;
}

/* How many stores of one device hold each experiment, so two stores of one experiment (a run
 * on 2 and one on 4 ranks: gemm-bar-Gx1-np2.db, gemm-bar-Gx1-np4.db) get a folder each. */
typedef struct experiment_count {
    char name[64];
    int stores;
} experiment_count;

typedef struct experiment_counts {
    experiment_count *items;
    int n;
} experiment_counts;

static int count_experiments(const char *dir, const name_list *stores, experiment_counts *out,
                             rt_err *err)
{
    memset(out, 0, sizeof *out);
    for (int s = 0; s < stores->n; ++s) {
        char path[2700], names[64][64];
        int n = 0;
        if (rt_path_format(path, sizeof path, err, "%s/%s", dir, stores->items[s]) != 0 ||
            store_experiments(path, names, &n, err) != 0)
            return -1;
        for (int e = 0; e < n; ++e) {
            int i = 0;
            while (i < out->n && strcmp(out->items[i].name, names[e]) != 0)
                ++i;
            if (i == out->n) {
                experiment_count *grown = realloc(out->items, (size_t)(out->n + 1) * sizeof *grown);
                if (!grown)
                    return rt_err_set(err, "out of memory counting the experiments of %s", dir);
                out->items = grown;
                snprintf(out->items[out->n].name, sizeof out->items[out->n].name, "%s", names[e]);
                out->items[out->n++].stores = 0;
            }
            ++out->items[i].stores;
        }
    }
    return 0;
}

static int stores_of(const experiment_counts *counts, const char *experiment)
{
    for (int i = 0; i < counts->n; ++i)
        if (strcmp(counts->items[i].name, experiment) == 0)
            return counts->items[i].stores;
    return 0;
}

/* The figures' folder of one experiment of one store: the experiment's name, or, when another
 * store of the device holds the same experiment, the store's name (without .db), followed by
 * "-<experiment>" when the store holds more than one experiment. */
static int figures_folder(char *out, size_t size, const char *out_root, const char *device,
                          const char *store_path, const char *experiment, int n_experiments,
                          const experiment_counts *counts, rt_err *err)
{
    if (stores_of(counts, experiment) <= 1)
        return rt_path_format(out, size, err, "%s/%s/%s", out_root, device, experiment);
    const char *slash = strrchr(store_path, '/');
    const char *base = slash ? slash + 1 : store_path;
    size_t len = strlen(base);
    if (len > 3 && strcmp(base + len - 3, ".db") == 0)
        len -= 3;
    if (n_experiments > 1)
        return rt_path_format(out, size, err, "%s/%s/%.*s-%s", out_root, device, (int)len, base,
                              experiment);
    return rt_path_format(out, size, err, "%s/%s/%.*s", out_root, device, (int)len, base);
}

static int draw_store(const char *device, const char *store_path, const char *out_root,
                      const experiment_counts *counts, rt_figures_extra_fn extra, void *extra_ctx,
                      rt_figures_result *res, rt_err *err)
{
    struct sqlite3 *db = NULL;
    if (rt_readonly_open(store_path, &db, err) != 0)
        return -1;
    int rc = -1;
    char names[64][64];
    int n_names = 0;
    rt_config file; /* the store's plots file, when have_file */
    int have_file = 0;
    if (rt_store_experiments(db, names, 64, &n_names, err) != 0) {
        rt_err_prefix(err, "%s", store_path);
        goto done;
    }
    if (load_plots_file(store_path, names, n_names, &file, &have_file, err) != 0)
        goto done;
    for (int e = 0; e < n_names; ++e) {
        rt_figures_item *item = NULL;
        if (add_item(res, &item, err) != 0)
            goto done;
        snprintf(item->device, sizeof item->device, "%s", device);
        snprintf(item->store, sizeof item->store, "%s", store_path);
        snprintf(item->experiment, sizeof item->experiment, "%s", names[e]);
        if (figures_folder(item->out_dir, sizeof item->out_dir, out_root, device, store_path,
                           names[e], n_names, counts, err) != 0)
            goto done;
        rt_outdir made;
        old_figures old;
        if (rt_outdir_make(&made, item->out_dir, err) != 0)
            goto done;
        if (snapshot_figures(item->out_dir, &old, err) != 0) {
            rt_outdir_undo(&made);
            goto done;
        }
        const int drawn = draw_experiment(db, store_path, names[e], have_file ? &file : NULL, extra,
                                          extra_ctx, item, res, err) == 0 &&
                          remove_stale_figures(item->out_dir, &old, err) == 0;
        old_figures_free(&old);
        if (!drawn) {
            rt_outdir_undo(&made);
            goto done;
        }
    }
    rc = 0;
done:
    if (have_file)
        rt_config_free(&file);
    rt_store_read_close(db);
    return rc;
}

int rt_figures_regenerate(const char *results_dir, const char *out_dir, rt_figures_extra_fn extra,
                          void *extra_ctx, rt_figures_result *res, rt_err *err)
{
    if (!res)
        return rt_err_set(err, "rt_figures_regenerate: no result to fill");
    memset(res, 0, sizeof *res);
    if (!results_dir || !*results_dir)
        return rt_err_set(err, "rt_figures_regenerate: the results folder is empty");
    char baselines[2048], out_root[2048];
    snprintf(baselines, sizeof baselines, "%s/baselines", results_dir);
    if (out_dir && *out_dir)
        snprintf(out_root, sizeof out_root, "%s", out_dir);
    else
        snprintf(out_root, sizeof out_root, "%s/figures", results_dir);

    name_list devices;
    if (list_dir(baselines, 1, NULL, &devices, err) != 0) {
        free(devices.items);
        return rt_err_prefix(err, "no committed result stores (expected %s/<device>/*.db)",
                             baselines);
    }
    int rc = 0, n_stores = 0;
    for (int d = 0; d < devices.n && rc == 0; ++d) {
        char dir[2400];
        name_list stores = {0};
        if (rt_path_format(dir, sizeof dir, err, "%s/%s", baselines, devices.items[d]) != 0 ||
            list_dir(dir, 0, ".db", &stores, err) != 0) {
            free(stores.items);
            rc = -1;
            break;
        }
        experiment_counts counts;
        if (count_experiments(dir, &stores, &counts, err) != 0) {
            free(counts.items);
            free(stores.items);
            rc = -1;
            break;
        }
        for (int s = 0; s < stores.n && rc == 0; ++s) {
            char path[2700];
            if (rt_path_format(path, sizeof path, err, "%s/%s", dir, stores.items[s]) != 0) {
                rc = -1;
                break;
            }
            ++n_stores;
            rc = draw_store(devices.items[d], path, out_root, &counts, extra, extra_ctx, res, err);
        }
        free(counts.items);
        free(stores.items);
    }
    free(devices.items);
    if (rc == 0 && n_stores == 0)
        return rt_err_set(err,
                          "no committed result stores in %s (expected "
                          "%s/<device>/<name>.db)",
                          baselines, baselines);
    return rc;
}

void rt_figures_result_free(rt_figures_result *res)
{
    if (!res)
        return;
    free(res->items);
    memset(res, 0, sizeof *res);
}
