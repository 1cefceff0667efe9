/* experiments/report/plot_draw.c — a plot's files written, gnuplot run on
 * them, and the PNG listed. */
#define _POSIX_C_SOURCE 200809L /* fork, chdir */
#include "report/plot_draw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep/format.h"

FILE *gar_plot_open(const char *dir, const char *name, char *path, size_t size, gar_error *err)
{
    gar_format(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(errno));
    return f;
}

/* Closes a written file, reporting any write that failed on the way (a
 * full disk, a file size limit) with the system's reason. */
int gar_plot_close(FILE *f, const char *path, gar_error *err)
{
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad)
        return gar_error_set(err, GAR_E_IO, 3, path, "write",
                             saved != 0 ? strerror(saved) : "write error");
    return 0;
}

/* Whether the file at `path` is a whole PNG: the signature first and the
 * IEND chunk (length 0, type, its fixed CRC) last.  gnuplot does not always
 * notice that the disk filled up under it. */
static bool png_complete(const char *path)
{
    static const unsigned char signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return false;
    unsigned char head[8], tail[12];
    bool ok = fread(head, 1, 8, f) == 8 && memcmp(head, signature, 8) == 0 &&
              fseek(f, -12, SEEK_END) == 0 && fread(tail, 1, 12, f) == 12 &&
              memcmp(tail, iend, 12) == 0;
    fclose(f);
    return ok;
}

/* Runs `gnuplot SCRIPT` inside `dir`, so the script's relative names work
 * there and wherever the folder is moved.  Drawn means: gnuplot exited 0
 * and left a whole PNG.  On failure the PNG is removed: no half-drawn
 * picture is left. */
static int run_gnuplot(const char *dir, const char *script, const char *png, gar_error *err)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return gar_error_set(err, GAR_E_IO, 3, "gnuplot", "start", strerror(errno));
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        if (chdir(dir) == 0)
            execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    char path[GAR_PLOT_NAME_BYTES * 2 + 4200];
    gar_format(path, sizeof path, "%s/%s", dir, png);
    bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (exited_ok && png_complete(path))
        return 0;
    remove(path);
    char why[GAR_PLOT_NAME_BYTES + 160];
    if (exited_ok)
        gar_format(why, sizeof why,
                   "gnuplot exited 0 but %s is not a whole PNG (a full disk or a file size "
                   "limit?)",
                   png);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        gar_format(why, sizeof why, "gnuplot could not be started");
    else if (WIFSIGNALED(status))
        gar_format(why, sizeof why, "gnuplot was killed by signal %d on %s", WTERMSIG(status),
                   script);
    else
        gar_format(why, sizeof why, "gnuplot failed (status %d) on %s",
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1, script);
    return gar_error_set(err, GAR_E_IO, 3, "gnuplot", "run", why);
}

static int add_file(gar_plot_files *files, const char *png, const char *caption,
                    const char *trace, const char *host, gar_error *err)
{
    if (files->count == files->capacity) {
        size_t bigger = files->capacity == 0 ? 32 : 2 * files->capacity;
        gar_plot_file *grown = realloc(files->file, bigger * sizeof *grown);
        if (grown == NULL)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the plot list",
                                 "exhausted");
        files->file = grown;
        files->capacity = bigger;
    }
    gar_plot_file *f = &files->file[files->count++];
    gar_format(f->png, sizeof f->png, "%s", png);
    gar_format(f->caption, sizeof f->caption, "%s", caption);
    gar_format(f->trace, sizeof f->trace, "%s", trace);
    gar_format(f->host, sizeof f->host, "%s", host);
    f->listing = NULL;
    return 0;
}

gar_plot_palette *gar_plot_palette_of(gar_plot_files *files)
{
    return files != NULL ? &files->palette : NULL;
}

void gar_plot_palette_seed(gar_plot_files *files, const gar_arm_list *arms)
{
    /* Plan ranks are the database's order; each rank styled once, lowest first. */
    unsigned next = 0;
    for (;;) {
        const gar_arm_summary *least = NULL;
        for (size_t i = 0; i < arms->count; i++)
            if (arms->arm[i].plan_rank >= next &&
                (least == NULL || arms->arm[i].plan_rank < least->plan_rank))
                least = &arms->arm[i];
        if (least == NULL)
            return;
        gar_plot_style_for(gar_plot_palette_of(files), least->plan);
        next = least->plan_rank + 1;
    }
}

void gar_plot_paths_name(gar_plot_paths *p, const char *name)
{
    gar_format(p->name, sizeof p->name, "%s", name);
    gar_format(p->gp, sizeof p->gp, "%s.gp", p->name);
    gar_format(p->dat, sizeof p->dat, "%s.dat", p->name);
    gar_format(p->png, sizeof p->png, "%s.png", p->name);
}

FILE *gar_plot_open_data(const char *dir, gar_plot_paths *p, gar_error *err)
{
    return gar_plot_open(dir, p->dat, p->dat_path, sizeof p->dat_path, err);
}

FILE *gar_plot_script_after_data(const char *dir, FILE *dat, gar_plot_paths *pf, gar_error *err)
{
    if (gar_plot_close(dat, pf->dat_path, err) < 0)
        return NULL;
    return gar_plot_open(dir, pf->gp, pf->gp_path, sizeof pf->gp_path, err);
}

int gar_plot_draw_and_list(const char *dir, FILE *gp, const gar_plot_paths *pf,
                           gar_plot_files *files, const char *trace, const char *host,
                           gar_error *err, const char *caption_format, ...)
{
    int rc = gar_plot_close(gp, pf->gp_path, err);
    if (rc == 0)
        rc = run_gnuplot(dir, pf->gp, pf->png, err);
    if (rc < 0)
        return rc;
    char caption[512];
    va_list ap;
    va_start(ap, caption_format);
    vsnprintf(caption, sizeof caption, caption_format, ap); /* a long caption is cut */
    va_end(ap);
    return add_file(files, pf->png, caption, trace, host, err);
}

void gar_plot_files_free(gar_plot_files *files)
{
    if (files == NULL)
        return;
    for (size_t i = 0; i < files->count; i++)
        free(files->file[i].listing);
    free(files->file);
    gar_plot_palette_free(&files->palette);
    free(files);
}
