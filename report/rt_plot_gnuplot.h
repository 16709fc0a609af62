/* rt_plot_gnuplot: the small pieces every rooftune figure shares, so that the experiment plots
 * (rt_plot.c), the roofline plots and any later figure look alike and regenerate the same way.
 *
 * A figure is always three files in one folder: <stem>.dat (the data), <stem>.gp (a gnuplot
 * script that reads the .dat by relative path and sets its own terminals) and the <stem>.png and
 * <stem>.svg that the script writes. `cd <folder> && gnuplot <stem>.gp` regenerates both images,
 * which is why rt_plot_run_gnuplot runs the script from inside that folder.
 *
 * gnuplot is looked up on PATH at run time, not at build time: the same binary must work on a
 * login node without gnuplot (the data and scripts are still written) and pick gnuplot up once
 * it is installed. */
#ifndef RT_PLOT_GNUPLOT_H
#define RT_PLOT_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"

/* Width and height in pixels of every figure, PNG and SVG alike. */
#define RT_PLOT_WIDTH  1024
#define RT_PLOT_HEIGHT 640

/* Searches the directories of $PATH (an empty entry means the current directory; an unset PATH
 * means "/usr/bin:/bin", as execvp does) for an executable regular file named "gnuplot".
 * Returns 0 and writes its absolute path into path[len] when found; returns -1 and leaves path
 * empty when it is not there or the path does not fit in len. */
int rt_plot_find_gnuplot(char *path, size_t len);

/* Runs `gnuplot <script_name>` with dir as the working directory (so relative data and output
 * paths in the script resolve there), stdin from /dev/null and stdout discarded. Returns 0 when
 * gnuplot exits with status 0. Returns -1 when gnuplot is not on PATH, cannot be started, or
 * fails; the message then names the script and quotes what gnuplot wrote on stderr. */
int rt_plot_run_gnuplot(const char *dir, const char *script_name, rt_err *err);

/* Draws the images of <stem>.gp of dir (which reads <stem>.dat and writes <stem>.png and
 * <stem>.svg, as every rooftune figure script does) without ever leaving a cut or empty image:
 * gnuplot runs in a private folder inside dir that sees only the script and its data, and the two
 * images replace the old ones only when gnuplot succeeded and both are non-empty (gnuplot may exit
 * 0 after a write to a full disk failed). The private folder is removed whatever happens. */
int rt_plot_render(const char *dir, const char *stem, rt_err *err);

/* Writes text as a gnuplot single-quoted string literal (quotes included) into out[len]: a
 * single quote is doubled, control characters become spaces, nothing else is interpreted, so any
 * title or label is safe. Returns 0, or -1 when it does not fit (out is then truncated but still
 * a valid, closed literal). */
int rt_plot_quote(const char *text, char *out, size_t len);

/* Copies name into out[len] keeping only [A-Za-z0-9._-] (anything else becomes '_'); a leading
 * '.' or '-' also becomes '_' so the result is never hidden or mistaken for an option, and an
 * empty name becomes "plot". Returns 0, or -1 when name is longer than len - 1 (out then holds
 * the truncated, still sanitized, prefix). */
int rt_plot_sanitize_name(const char *name, char *out, size_t len);

/* Writes the shared look (palette, line widths, point types, grid, key, tics) into a .gp script.
 * Call it after `reset` and before the figure's own settings. */
void rt_plot_write_style(FILE *gp);

/* Writes the rendering tail of a .gp script: pngcairo (falling back to the libgd png terminal
 * when this gnuplot lacks cairo) into <stem>.png, then svg into <stem>.svg, both drawn by
 * plot_command (one or more complete gnuplot lines, e.g. "plot 'x.dat' using 1:2\n"). stem must
 * already be sanitized (rt_plot_sanitize_name). */
void rt_plot_write_render(FILE *gp, const char *stem, const char *plot_command);

#endif
