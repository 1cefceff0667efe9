/* experiments/report/plot_draw.h — how one plot's files are written and
 * drawn, for the plot kinds (plot_pareto.c, plot_cdf.c, ...).
 *
 * A plot is three files in the output folder: NAME.dat (its data), NAME.gp
 * (the script that reads it) and NAME.png (what gnuplot draws).  A kind
 * opens the data, writes it, turns to the script (gar_plot_script_after_
 * data), writes that, and hands it to gar_plot_draw_and_list, which runs
 * gnuplot and lists the PNG in the command's gar_plot_files.  Every write
 * is checked: a failure is GAR_E_IO naming the file and the system's
 * reason. */
#ifndef GAR_PLOT_DRAW_H
#define GAR_PLOT_DRAW_H

#include <stdio.h>

#include <gar/error.h>

#include "report/plot.h"

/* A plot's three files: their names and the paths of the two gar writes. */
typedef struct gar_plot_paths {
    char name[GAR_PLOT_NAME_BYTES - 8];
    char gp[GAR_PLOT_NAME_BYTES], dat[GAR_PLOT_NAME_BYTES], png[GAR_PLOT_NAME_BYTES];
    char gp_path[GAR_PLOT_NAME_BYTES + 4200], dat_path[GAR_PLOT_NAME_BYTES + 4200];
} gar_plot_paths;

/* Names NAME.gp, NAME.dat and NAME.png. */
void gar_plot_paths_name(gar_plot_paths *p, const char *name);

/* Opens DIR/NAME for writing, its path into `path`.  Returns the stream,
 * or NULL with `err` set to GAR_E_IO. */
FILE *gar_plot_open(const char *dir, const char *name, char *path, size_t size, gar_error *err);

/* Opens the plot's data file.  Returns the stream, or NULL (GAR_E_IO). */
FILE *gar_plot_open_data(const char *dir, gar_plot_paths *p, gar_error *err);

/* Closes a written file, reporting any write that failed on the way (a
 * full disk, a file size limit).  Returns 0 or -GAR_E_IO. */
int gar_plot_close(FILE *f, const char *path, gar_error *err);

/* Closes a plot's data file and opens its script beside it.  Returns the
 * script's stream, or NULL with `err` set (-GAR_E_IO: the data file's
 * write failed, or the script's open). */
FILE *gar_plot_script_after_data(const char *dir, FILE *dat, gar_plot_paths *p, gar_error *err);

/* Closes the plot's script, runs gnuplot on it inside `dir`, and lists the
 * PNG in `files` with its trace, host and a caption made from
 * `caption_format` (cut at 511 bytes).  Returns 0, -GAR_E_IO (the script,
 * gnuplot, or a PNG that is not whole: removed) or -GAR_E_CAPACITY (the
 * list of plots is full). */
#if defined(__GNUC__)
__attribute__((format(printf, 8, 9)))
#endif
int gar_plot_draw_and_list(const char *dir, FILE *gp, const gar_plot_paths *p,
                           gar_plot_files *files, const char *trace, const char *host,
                           gar_error *err, const char *caption_format, ...);

/* The command's palette in `files`; NULL `files`: NULL (styles by hash). */
gar_plot_palette *gar_plot_palette_of(gar_plot_files *files);

#endif
