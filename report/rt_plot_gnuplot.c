#define _POSIX_C_SOURCE 200809L
#include "rt_plot_gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* How much of gnuplot's stderr an error quotes: enough for the offending line, its caret and
 * the message, while the whole error still fits in rt_err. */
#define RT_PLOT_STDERR_KEEP 1200

/* Exit statuses the child uses when it never reached gnuplot (the shell's conventions). */
#define RT_PLOT_CHILD_NO_DIR  126
#define RT_PLOT_CHILD_NO_EXEC 127

static const char *const rt_plot_palette[] = {
    /* Okabe-Ito: distinguishable with the common colour-vision deficiencies and in greyscale. */
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
};
#define RT_PLOT_N_COLOURS ((int)(sizeof rt_plot_palette / sizeof rt_plot_palette[0]))

static const char rt_plot_font[] = "Sans,11";

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int rt_plot_find_gnuplot(char *path, size_t len)
{
    if (!path || len == 0)
        return -1;
    path[0] = '\0';
    const char *search = getenv("PATH");
    if (!search)
        search = "/usr/bin:/bin";
    const char *entry = search;
    for (;;) {
        const char *end = strchr(entry, ':');
        const size_t dir_len = end ? (size_t)(end - entry) : strlen(entry);
        char candidate[PATH_MAX];
        int n;
        if (dir_len == 0) /* POSIX: an empty PATH entry names the current directory */
            n = snprintf(candidate, sizeof candidate, "./gnuplot");
        else
            n = snprintf(candidate, sizeof candidate, "%.*s/gnuplot", (int)dir_len, entry);
        if (n > 0 && (size_t)n < sizeof candidate && is_executable_file(candidate)) {
            /* rt_plot_run_gnuplot changes directory before exec, so a relative PATH entry
             * must become absolute here. */
            char cwd[PATH_MAX];
            if (candidate[0] != '/' && !getcwd(cwd, sizeof cwd))
                return -1;
            const int total = candidate[0] == '/' ? snprintf(path, len, "%s", candidate)
                                                  : snprintf(path, len, "%s/%s", cwd, candidate);
            if (total < 0 || (size_t)total >= len) {
                path[0] = '\0';
                return -1;
            }
            return 0;
        }
        if (!end)
            return -1;
        entry = end + 1;
    }
}

/* Runs in the forked child, so it uses only async-signal-safe calls (write, chdir, open, dup2,
 * execv, _exit): the parent may hold locks (malloc, stdio) that the child must not touch. */
static void child_exec(const char *gnuplot, const char *dir, char *const argv[], int err_fd)
{
    if (dup2(err_fd, STDERR_FILENO) < 0)
        _exit(RT_PLOT_CHILD_NO_EXEC);
    if (err_fd != STDERR_FILENO)
        close(err_fd);
    const int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        if (null_fd > STDERR_FILENO)
            close(null_fd);
    }
    if (chdir(dir) != 0) {
        static const char msg[] = "cannot change into the figure folder\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(RT_PLOT_CHILD_NO_DIR);
    }
    execv(gnuplot, argv);
    static const char msg[] = "cannot execute gnuplot\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(RT_PLOT_CHILD_NO_EXEC);
}

/* Reads the child's stderr to the end (so it never blocks on a full pipe), keeping the start. */
static void drain_stderr(int fd, char *kept, size_t cap)
{
    size_t used = 0;
    char chunk[512];
    for (;;) {
        const ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        const size_t room = cap - 1 - used;
        const size_t take = (size_t)got < room ? (size_t)got : room;
        memcpy(kept + used, chunk, take);
        used += take;
    }
    while (used > 0 && (kept[used - 1] == '\n' || kept[used - 1] == ' ' || kept[used - 1] == '\r'))
        --used;
    kept[used] = '\0';
}

int rt_plot_run_gnuplot(const char *dir, const char *script_name, rt_err *err)
{
    if (!dir || !*dir || !script_name || !*script_name)
        return rt_err_set(err, "rt_plot_run_gnuplot: the figure folder and script name must be "
                               "non-empty");
    char gnuplot[PATH_MAX];
    if (rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) != 0)
        return rt_err_set(err,
                          "cannot render %s/%s: gnuplot not found on PATH (install gnuplot, "
                          "e.g. the gnuplot-nox package, or add it to PATH)",
                          dir, script_name);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return rt_err_set(err, "cannot render %s in %s: not a folder", script_name, dir);

    /* argv must be writable char*; copy before fork so the child allocates nothing. */
    char arg0[] = "gnuplot";
    char script[PATH_MAX];
    if (snprintf(script, sizeof script, "%s", script_name) >= (int)sizeof script)
        return rt_err_set(err, "cannot render %s: script name too long", script_name);
    char *const argv[] = {arg0, script, NULL};

    int fds[2];
    if (pipe(fds) != 0)
        return rt_err_set(err, "cannot render %s/%s: pipe failed: %s", dir, script_name,
                          strerror(errno));
    const pid_t pid = fork();
    if (pid < 0) {
        const int saved = errno;
        close(fds[0]);
        close(fds[1]);
        return rt_err_set(err, "cannot render %s/%s: fork failed: %s", dir, script_name,
                          strerror(saved));
    }
    if (pid == 0) {
        close(fds[0]);
        child_exec(gnuplot, dir, argv, fds[1]);
    }
    close(fds[1]);
    char stderr_text[RT_PLOT_STDERR_KEEP];
    drain_stderr(fds[0], stderr_text, sizeof stderr_text);
    close(fds[0]);

    int status = 0;
    pid_t waited;
    do {
        waited = waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
    if (waited < 0)
        return rt_err_set(err, "cannot render %s/%s: waitpid failed: %s", dir, script_name,
                          strerror(errno));
    if (WIFSIGNALED(status))
        return rt_err_set(err, "gnuplot (%s) was killed by signal %d while running %s/%s: %s",
                          gnuplot, WTERMSIG(status), dir, script_name,
                          stderr_text[0] ? stderr_text : "(no message)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rt_err_set(err, "gnuplot (%s) failed on %s/%s with exit status %d: %s", gnuplot, dir,
                          script_name, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                          stderr_text[0] ? stderr_text : "(no message on stderr)");
    return 0;
}

/* The staging folder's entries: the two links and the two images. */
static const char *const render_exts[] = {"dat", "gp", "png", "svg"};

/* Removes whatever of the staging folder's files exist, then the folder. */
static void render_cleanup(const char *stage, const char *stem)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof render_exts / sizeof render_exts[0]; ++i)
        if (snprintf(path, sizeof path, "%s/%s.%s", stage, stem, render_exts[i]) < (int)sizeof path)
            unlink(path);
    rmdir(stage);
}

int rt_plot_render(const char *dir, const char *stem, rt_err *err)
{
    char stage[PATH_MAX], link[PATH_MAX], target[PATH_MAX], from[PATH_MAX], to[PATH_MAX],
        script[PATH_MAX];
    if (snprintf(stage, sizeof stage, "%s/.rt-render-XXXXXX", dir) >= (int)sizeof stage ||
        snprintf(script, sizeof script, "%s.gp", stem) >= (int)sizeof script)
        return rt_err_set(err, "figure path %s/%s is too long", dir, stem);
    if (!mkdtemp(stage))
        return rt_err_set(err, "cannot draw %s/%s: cannot create a folder in %s: %s", dir, stem,
                          dir, strerror(errno));
    int rc = 0;
    /* The script names its data and its images relative to where it runs: links to the real
     * .dat and .gp let it run in the staging folder unchanged. */
    for (int i = 0; i < 2 && rc == 0; ++i) {
        snprintf(link, sizeof link, "%s/%s.%s", stage, stem, render_exts[i]);
        snprintf(target, sizeof target, "../%s.%s", stem, render_exts[i]);
        if (symlink(target, link) != 0)
            rc = rt_err_set(err, "cannot draw %s/%s: %s", dir, stem, strerror(errno));
    }
    if (rc == 0 && rt_plot_run_gnuplot(stage, script, err) != 0)
        rc = -1;
    for (int i = 2; i < 4 && rc == 0; ++i) {
        snprintf(from, sizeof from, "%s/%s.%s", stage, stem, render_exts[i]);
        struct stat st;
        if (stat(from, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
            rc = rt_err_set(err,
                            "gnuplot wrote no %s.%s or an empty one (is the disk full?); the "
                            "figure's images in %s are left as they were",
                            stem, render_exts[i], dir);
    }
    for (int i = 2; i < 4 && rc == 0; ++i) {
        snprintf(from, sizeof from, "%s/%s.%s", stage, stem, render_exts[i]);
        snprintf(to, sizeof to, "%s/%s.%s", dir, stem, render_exts[i]);
        if (rename(from, to) != 0)
            rc = rt_err_set(err, "cannot move %s into place: %s", to, strerror(errno));
    }
    render_cleanup(stage, stem);
    return rc;
}

int rt_plot_quote(const char *text, char *out, size_t len)
{
    if (!out || len < 3) {
        if (out && len > 0)
            out[0] = '\0';
        return -1;
    }
    size_t used = 0;
    out[used++] = '\'';
    int fits = 1;
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; ++c) {
        const int doubled = *c == '\'';
        const size_t need = doubled ? 2 : 1;
        if (used + need + 2 > len) { /* room for this char, the closing quote and NUL */
            fits = 0;
            break;
        }
        if (doubled) {
            out[used++] = '\'';
            out[used++] = '\'';
        } else {
            out[used++] = (*c < 0x20 || *c == 0x7f) ? ' ' : (char)*c;
        }
    }
    out[used++] = '\'';
    out[used] = '\0';
    return fits ? 0 : -1;
}

int rt_plot_sanitize_name(const char *name, char *out, size_t len)
{
    if (!out || len < 2) {
        if (out && len > 0)
            out[0] = '\0';
        return -1;
    }
    if (!name || !*name) {
        snprintf(out, len, "%s", "plot");
        return len > 4 ? 0 : -1;
    }
    size_t used = 0;
    for (const char *c = name; *c; ++c) {
        if (used + 1 >= len)
            return -1;
        const char ch = *c;
        const int keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                         (ch >= '0' && ch <= '9') || ch == '_' ||
                         ((ch == '.' || ch == '-') && used > 0);
        out[used++] = keep ? ch : '_';
        out[used] = '\0';
    }
    return 0;
}

void rt_plot_write_style(FILE *gp)
{
    fprintf(gp, "set encoding utf8\n");
    for (int k = 0; k < RT_PLOT_N_COLOURS; ++k)
        fprintf(gp, "set linetype %d lc rgb '%s' lw 2 pt %d ps 1.1 dt 1\n", k + 1,
                rt_plot_palette[k], 5 + 2 * (k % 4));
    fprintf(gp, "set linetype cycle %d\n", RT_PLOT_N_COLOURS);
    fprintf(gp, "set border 3 lc rgb '#404040'\n");
    fprintf(gp, "set tics nomirror out\n");
    fprintf(gp, "set grid xtics ytics back lt 1 lc rgb '#dcdcdc' lw 1\n");
    fprintf(gp, "set key outside right top vertical Left reverse samplen 2 spacing 1.2\n");
}

/* set output '<stem>.<ext>', quoted so that the stem cannot break the script. */
static void write_output(FILE *gp, const char *stem, const char *ext)
{
    char output[PATH_MAX + 8];
    char quoted[2 * PATH_MAX + 8];
    snprintf(output, sizeof output, "%s.%s", stem, ext);
    rt_plot_quote(output, quoted, sizeof quoted);
    fprintf(gp, "set output %s\n", quoted);
}

static void write_command(FILE *gp, const char *plot_command)
{
    fputs(plot_command, gp);
    if (plot_command[0] && plot_command[strlen(plot_command) - 1] != '\n')
        fputc('\n', gp);
}

void rt_plot_write_render(FILE *gp, const char *stem, const char *plot_command)
{
    fprintf(gp, "\n# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), "
                "else libgd.\n");
    fprintf(gp,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "    set terminal pngcairo size %d,%d font '%s' noenhanced background rgb 'white'\n"
            "} else {\n"
            "    set terminal png size %d,%d noenhanced\n"
            "}\n",
            RT_PLOT_WIDTH, RT_PLOT_HEIGHT, rt_plot_font, RT_PLOT_WIDTH, RT_PLOT_HEIGHT);
    write_output(gp, stem, "png");
    write_command(gp, plot_command);
    fprintf(gp, "\nset terminal svg size %d,%d font '%s' noenhanced background rgb 'white'\n",
            RT_PLOT_WIDTH, RT_PLOT_HEIGHT, rt_plot_font);
    write_output(gp, stem, "svg");
    write_command(gp, plot_command);
    fprintf(gp, "unset output\n");
}
