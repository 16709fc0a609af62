/* rt_outfile and rt_outdir: a file is replaced only when wholly written; a failed write (here
 * /dev/full, and a file grown past RLIMIT_FSIZE, as on a full disk) leaves the old file or no file
 * and says why; a FIFO without a reader fails instead of blocking; a link's target is replaced and
 * the link kept; folders made for a failed command are removed again, folders that existed stay. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_outdir.h"
#include "rt_outfile.h"
#include "rt_test.h"

static char g_dir[256];

static void slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    const size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Files in g_dir whose name starts with '.' (the temporaries), other than . and .. */
static int hidden_files(void)
{
    DIR *d = opendir(g_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void test_replace_and_keep(void)
{
    char path[512], buf[256];
    rt_err err;
    snprintf(path, sizeof path, "%s/a.txt", g_dir);
    RT_CHECK(rt_outfile_write_all(path, "old\n", 4, &err) == 0);
    slurp(path, buf, sizeof buf);
    RT_CHECK(strcmp(buf, "old\n") == 0);
    struct stat st;
    const mode_t mask = umask(022);
    umask(mask);
    RT_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask));
    /* Until commit the old text is in place; abort keeps it and leaves no temporary. */
    rt_outfile o;
    RT_CHECK(rt_outfile_open(&o, path, &err) == 0);
    fprintf(o.f, "new\n");
    fflush(o.f);
    slurp(path, buf, sizeof buf);
    RT_CHECK(strcmp(buf, "old\n") == 0);
    RT_CHECK(hidden_files() == 1);
    rt_outfile_abort(&o);
    slurp(path, buf, sizeof buf);
    RT_CHECK(strcmp(buf, "old\n") == 0);
    RT_CHECK(hidden_files() == 0);
    /* commit replaces it and keeps its permissions */
    RT_CHECK(chmod(path, 0640) == 0);
    RT_CHECK(rt_outfile_open(&o, path, &err) == 0);
    fprintf(o.f, "new\n");
    RT_CHECK_MSG(rt_outfile_commit(&o, &err) == 0, "%s", err.msg);
    slurp(path, buf, sizeof buf);
    RT_CHECK(strcmp(buf, "new\n") == 0);
    RT_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    RT_CHECK(hidden_files() == 0);
}

static void test_link_and_devices(void)
{
    char path[512], target[512], buf[256];
    rt_err err;
    snprintf(target, sizeof target, "%s/target.txt", g_dir);
    snprintf(path, sizeof path, "%s/link.txt", g_dir);
    RT_CHECK(rt_outfile_write_all(target, "t\n", 2, &err) == 0);
    RT_CHECK(symlink("target.txt", path) == 0);
    RT_CHECK(rt_outfile_write_all(path, "via link\n", 9, &err) == 0);
    struct stat st;
    RT_CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    slurp(target, buf, sizeof buf);
    RT_CHECK(strcmp(buf, "via link\n") == 0);
    /* A device is written in place: /dev/null takes anything, /dev/full refuses with ENOSPC. */
    RT_CHECK(rt_outfile_write_all("/dev/null", "x", 1, &err) == 0);
    if (access("/dev/full", W_OK) == 0) {
        RT_CHECK(rt_outfile_write_all("/dev/full", "x", 1, &err) != 0);
        RT_CHECK_MSG(rt_test_contains(err.msg, "/dev/full: No space left on device"), "%s",
                     err.msg);
    }
    /* A folder is not a file. */
    RT_CHECK(rt_outfile_write_all(g_dir, "x", 1, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "it is a folder"), "%s", err.msg);
    /* A missing folder is named. */
    snprintf(path, sizeof path, "%s/no/such/f.txt", g_dir);
    RT_CHECK(rt_outfile_write_all(path, "x", 1, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "does not exist"), "%s", err.msg);
    /* A FIFO without a reader fails at once (it would block forever otherwise). */
    snprintf(path, sizeof path, "%s/fifo", g_dir);
    RT_CHECK(mkfifo(path, 0600) == 0);
    RT_CHECK(rt_outfile_write_all(path, "x", 1, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "no process is reading"), "%s", err.msg);
    unlink(path);
}

/* A write past RLIMIT_FSIZE fails with EFBIG, as one past a full disk fails with ENOSPC: the old
 * file stays whole and no temporary is left. */
static void test_write_failure(void)
{
    char path[512], buf[256];
    rt_err err;
    snprintf(path, sizeof path, "%s/limited.txt", g_dir);
    RT_CHECK(rt_outfile_write_all(path, "kept\n", 5, &err) == 0);
    struct rlimit old, small = {.rlim_cur = 4096};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    RT_CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    rt_outfile o;
    RT_CHECK(rt_outfile_open(&o, path, &err) == 0);
    for (int i = 0; i < 1000; ++i)
        fprintf(o.f, "a line of text that will not fit under the limit %d\n", i);
    const int rc = rt_outfile_commit(&o, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    RT_CHECK(rc != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "limited.txt: File too large (the file is left as"),
                 "%s", err.msg);
    slurp(path, buf, sizeof buf);
    RT_CHECK(strcmp(buf, "kept\n") == 0);
    RT_CHECK(hidden_files() == 0);
}

static void test_outdir(void)
{
    char dir[512], file[600];
    rt_err err;
    rt_outdir d;
    snprintf(dir, sizeof dir, "%s/made/deeper/", g_dir);
    RT_CHECK(rt_outdir_make(&d, dir, &err) == 0);
    struct stat st;
    RT_CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    rt_outdir_undo(&d);
    snprintf(dir, sizeof dir, "%s/made", g_dir);
    RT_CHECK(stat(dir, &st) != 0); /* both folders were ours and empty: gone */
    RT_CHECK(stat(g_dir, &st) == 0);
    /* A folder with a file in it stays, and so do the ones above it. */
    snprintf(dir, sizeof dir, "%s/kept/inner", g_dir);
    RT_CHECK(rt_outdir_make(&d, dir, &err) == 0);
    snprintf(file, sizeof file, "%s/f", dir);
    RT_CHECK(rt_outfile_write_all(file, "x", 1, &err) == 0);
    rt_outdir_undo(&d);
    RT_CHECK(stat(file, &st) == 0);
    /* An existing folder is not made, so never removed. */
    RT_CHECK(rt_outdir_make(&d, g_dir, &err) == 0);
    RT_CHECK(d.top[0] == '\0');
    rt_outdir_undo(&d);
    RT_CHECK(stat(g_dir, &st) == 0);
    /* A file in the way is named. */
    snprintf(dir, sizeof dir, "%s/a.txt/sub", g_dir);
    RT_CHECK(rt_outdir_make(&d, dir, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "a.txt"), "%s", err.msg);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/rt_outfile_XXXXXX");
    if (!mkdtemp(g_dir))
        return 1;
    test_replace_and_keep();
    test_link_and_devices();
    test_write_failure();
    test_outdir();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return RT_TEST_RESULT();
}
