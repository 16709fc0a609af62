/* rt_test_dir: scratch folders of the tests that write caches (the includer defines
 * _POSIX_C_SOURCE 200809L before any include). */
#ifndef RT_TEST_DIR_H
#define RT_TEST_DIR_H

#include <dirent.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* rm -r dir (best effort). */
static inline void rt_test_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rt_test_remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* The entries of dir whose names do not start with '.', or -1 when it cannot be read. */
static inline int rt_test_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The folder of a test run by `test <scratch dir>`: a new <scratch dir>/<prefix>-XXXXXX in dir.
 * 0, or 2 (the usage or the reason printed) for main to return. */
static inline int rt_test_scratch(int argc, char **argv, const char *prefix, char *dir, size_t len)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
        return 2;
    }
    mkdir(argv[1], 0755);
    const int n = snprintf(dir, len, "%s/%s-XXXXXX", argv[1], prefix);
    if (n < 0 || (size_t)n >= len || !mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    return 0;
}

#endif
