/* experiments/report/plot_stage.c — the output folder, gnuplot on PATH, and
 * staging: all of a command's files, or none. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp (through sim/trace/leftover.h) */
#include "report/plot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/trace/leftover.h"
#include "sweep/format.h"

int gar_plot_make_dir(const char *dir, gar_error *err)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
        return gar_error_set(err, GAR_E_IO, 3, dir, "use as the output folder", "not a folder");
    }
    return gar_error_set(err, GAR_E_IO, 3, dir, "create", strerror(errno));
}

int gar_plot_check_gnuplot(gar_error *err)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/bin:/bin";
    char dir[4096];
    while (*path != '\0') {
        size_t n = strcspn(path, ":");
        if (n > 0 && n < sizeof dir - 16) {
            memcpy(dir, path, n);
            gar_format(dir + n, sizeof dir - n, "/gnuplot");
            if (access(dir, X_OK) == 0)
                return 0;
        }
        path += n;
        if (*path == ':')
            path++;
    }
    return gar_error_set(err, GAR_E_IO, 3, "gnuplot", "run",
                         "no gnuplot on PATH (install gnuplot, e.g. the Debian package "
                         "gnuplot-nox)");
}

/* ---- staging: all of a command's files, or none ------------------------ */

const char *gar_plot_out_dir(const gar_plot_files *files, const char *dir)
{
    return files != NULL && files->stage[0] != '\0' ? files->stage : dir;
}

/* Calls `each(folder, name, context)` for every plain file in `folder`;
 * stops at the first non-zero return and returns it. */
static int each_file(const char *folder, int (*each)(const char *, const char *, void *),
                     void *context)
{
    DIR *d = opendir(folder);
    if (d == NULL)
        return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, GAR_LEFTOVER_MARKER) == 0)
            continue; /* the marker says whose the folder is: never output */
        rc = each(folder, e->d_name, context);
    }
    closedir(d);
    return rc;
}

static int remove_one(const char *folder, const char *name, void *context)
{
    (void)context;
    char path[4600];
    gar_format(path, sizeof path, "%s/%s", folder, name);
    remove(path);
    return 0;
}

void gar_plot_stage_abort(gar_plot_files *files)
{
    if (files->stage[0] != '\0') {
        each_file(files->stage, remove_one, NULL);
        gar_leftover_drop_folder(files->stage, files->stage_lock);
        files->stage[0] = '\0';
    }
    if (files->made_dir == 1)
        rmdir(files->dir); /* only if nothing else came into it meanwhile */
    files->made_dir = 0;
}

int gar_plot_stage_begin(const char *dir, gar_plot_files *files, gar_error *err)
{
    struct stat st;
    bool existed = stat(dir, &st) == 0;
    int rc = gar_plot_make_dir(dir, err);
    if (rc < 0)
        return rc;
    if (gar_format(files->dir, sizeof files->dir, "%s", dir) >= (int)sizeof files->dir)
        return gar_error_set(err, GAR_E_IO, 3, dir, "use as the output folder", "path too long");
    files->made_dir = existed ? 0 : 1;
    /* A staging folder's marker is locked while its run lasts: one a killed
     * plot or report left here goes now; one a run still at work here
     * keeps, and a folder gar did not make (no marker) is not entered. */
    gar_leftover_clean_folders(dir, ".gar-stage-");
    char owner[GAR_LEFTOVER_OWNER_BYTES];
    gar_leftover_owner(owner);
    gar_format(files->stage, sizeof files->stage, "%s/.gar-stage-%s-XXXXXX", dir, owner);
    files->stage_lock = gar_leftover_make_folder(files->stage);
    if (files->stage_lock < 0) {
        rc = gar_error_set(err, GAR_E_IO, 3, dir, "make a staging folder in", strerror(errno));
        files->stage[0] = '\0';
        gar_plot_stage_abort(files);
        return rc;
    }
    return 0;
}

typedef struct commit_state {
    gar_error *err;
    const char *dir;
    int rc;
} commit_state;

/* A staged file is complete only once it is on the disk: a full disk can
 * still refuse a write at sync time. */
static int sync_one(const char *folder, const char *name, void *context)
{
    commit_state *c = context;
    char path[4600];
    gar_format(path, sizeof path, "%s/%s", folder, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        c->rc = gar_error_set(c->err, GAR_E_IO, 3, path, "sync", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static int rename_one(const char *folder, const char *name, void *context)
{
    commit_state *c = context;
    char from[4600], to[4600];
    gar_format(from, sizeof from, "%s/%s", folder, name);
    gar_format(to, sizeof to, "%s/%s", c->dir, name);
    if (rename(from, to) != 0) {
        c->rc = gar_error_set(c->err, GAR_E_IO, 3, to, "rename a finished file onto",
                              strerror(errno));
        return -1;
    }
    return 0;
}

int gar_plot_stage_commit(gar_plot_files *files, gar_error *err)
{
    if (files->stage[0] == '\0')
        return 0;
    commit_state c = { err, files->dir, 0 };
    if (each_file(files->stage, sync_one, &c) != 0) {
        if (c.rc == 0)
            c.rc = gar_error_set(err, GAR_E_IO, 3, files->stage, "list", strerror(errno));
        gar_plot_stage_abort(files);
        return c.rc;
    }
    /* Every file is whole: now they take their names, together. */
    if (each_file(files->stage, rename_one, &c) != 0 && c.rc == 0)
        c.rc = gar_error_set(err, GAR_E_IO, 3, files->stage, "list", strerror(errno));
    files->made_dir = 0; /* some files may be in place: never remove the folder now */
    gar_plot_stage_abort(files);
    return c.rc;
}
