/* rt_outdir: the folders a command writes into. rt_outdir_make creates a folder and its missing
 * parents (mkdir -p) and remembers which ones it made; when the command then fails,
 * rt_outdir_undo removes those that are still empty, so a failed `figures` or `report --html`
 * leaves no empty folder behind (the files themselves are written whole or not at all,
 * rt_outfile.h). Folders that existed before are never touched. */
#ifndef RT_OUTDIR_H
#define RT_OUTDIR_H

#include "rt_error.h"

#define RT_OUTDIR_PATH_MAX 4096

typedef struct rt_outdir {
    char dir[RT_OUTDIR_PATH_MAX]; /* the folder asked for */
    char top[RT_OUTDIR_PATH_MAX]; /* the outermost folder this call created; "" when none */
} rt_outdir;

/* Creates dir and its missing parents. err names the folder that could not be made and why, or
 * says that dir exists and is not a folder. */
int rt_outdir_make(rt_outdir *d, const char *dir, rt_err *err);
/* Removes, from dir up to the outermost one, the folders rt_outdir_make created that are empty. */
void rt_outdir_undo(const rt_outdir *d);

#endif
