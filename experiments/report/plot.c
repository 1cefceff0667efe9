/* experiments/report/plot.c — gnuplot scripts and data for a sweep's results. */
#define _POSIX_C_SOURCE 200809L /* fork, chdir, mkdtemp */
#include "report/plot.h"
#include "sweep/auto_goals.h"
#include "verify/verifications.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gar/bands.h>

#include "sweep/format.h"
#include "sim/trace/leftover.h"
#include "report/gnuplot_text.h"
#include "report/plan_names.h"
#include "report/plot_coincident.h"
#include "report/plot_style.h"
#include "sweep/number_text.h"
#include "sweep/sweep_spec.h"

/* One point type per estimator (colours and dashes: plot_style.h). */
/* Filled shapes first; `none` and `oracle` get a plus and a cross, which
 * stay visible on top of a filled point. */
static const int estimator_points[] = { 7, 5, 9, 11, 13, 1, 2, 4, 6, 8, 10, 12 };
#define POINTS (sizeof estimator_points / sizeof estimator_points[0])

/* Values drawn on a log axis are at least this (a 0 has no place there). */
#define LOG_FLOOR_US 0.001
#define LOG_FLOOR_PERCENT 0.0001
/* An interval without an upper end is drawn to this (µs): off every plot's
 * right edge, where gnuplot cuts the bar. */
#define UNBOUNDED_US 1e12

/* ---- files and gnuplot -------------------------------------------------- */

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

/* ---- files and gnuplot -------------------------------------------------- */

static FILE *open_in(const char *dir, const char *name, char *path, size_t size, gar_error *err)
{
    gar_format(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(errno));
    return f;
}

/* Closes a written file, reporting any write that failed on the way (a
 * full disk, a file size limit) with the system's reason. */
static int close_file(FILE *f, const char *path, gar_error *err)
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
    if (files->count == GAR_PLOT_FILES_MAX) {
        char cap[16];
        gar_format(cap, sizeof cap, "%d", GAR_PLOT_FILES_MAX);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the plot list", cap);
    }
    gar_plot_file *f = &files->file[files->count++];
    gar_format(f->png, sizeof f->png, "%s", png);
    gar_format(f->caption, sizeof f->caption, "%s", caption);
    gar_format(f->trace, sizeof f->trace, "%s", trace);
    gar_format(f->host, sizeof f->host, "%s", host);
    return 0;
}

/* ---- colours ------------------------------------------------------------ */

static gar_plot_palette *palette_of(gar_plot_files *files)
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
        gar_plot_style_for(palette_of(files), least->plan);
        next = least->plan_rank + 1;
    }
}

/* A plot's three files: NAME.gp, NAME.dat, NAME.png. */
typedef struct plot_files {
    char name[GAR_PLOT_NAME_BYTES - 8];
    char gp[GAR_PLOT_NAME_BYTES], dat[GAR_PLOT_NAME_BYTES], png[GAR_PLOT_NAME_BYTES];
    char gp_path[GAR_PLOT_NAME_BYTES + 4200], dat_path[GAR_PLOT_NAME_BYTES + 4200];
} plot_files;

static void name_plot(plot_files *p, const char *name)
{
    gar_format(p->name, sizeof p->name, "%s", name);
    gar_format(p->gp, sizeof p->gp, "%s.gp", p->name);
    gar_format(p->dat, sizeof p->dat, "%s.dat", p->name);
    gar_format(p->png, sizeof p->png, "%s.png", p->name);
}

/* Closes a plot's written script and has gnuplot draw its PNG.  Returns 0
 * or a negated code (the script unwritten, or gnuplot failing). */
/* Closes a plot's data file and opens its script beside it.  Returns the
 * script's stream, or NULL with `err` set (-GAR_E_IO: the data file's write
 * failed, or the script's open). */
static FILE *script_after_data(const char *dir, FILE *dat, plot_files *pf, gar_error *err)
{
    if (close_file(dat, pf->dat_path, err) < 0)
        return NULL;
    return open_in(dir, pf->gp, pf->gp_path, sizeof pf->gp_path, err);
}

/* Closes the plot's script, runs gnuplot on it, and lists the PNG in
 * `files` with its trace, host and a caption made from `caption_format`. */
#if defined(__GNUC__)
__attribute__((format(printf, 8, 9)))
#endif
static int draw_and_list(const char *dir, FILE *gp, const plot_files *pf, gar_plot_files *files,
                         const char *trace, const char *host, gar_error *err,
                         const char *caption_format, ...)
{
    int rc = close_file(gp, pf->gp_path, err);
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

/* ---- Pareto ------------------------------------------------------------- */

typedef struct point {
    double x, y;
} point;

static int by_x_then_y(const void *a, const void *b)
{
    const point *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* The points no other point beats on both axes (lower is better on both),
 * ordered by x; written into `out`, their count returned. */
static size_t pareto_frontier(point *pts, size_t n, point *out)
{
    qsort(pts, n, sizeof *pts, by_x_then_y);
    size_t m = 0;
    double best_y = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (pts[i].y < best_y) {
            best_y = pts[i].y;
            out[m++] = pts[i];
        }
    return m;
}

static bool same_group(const gar_arm_summary *a, const gar_arm_summary *b)
{
    return strcmp(a->host, b->host) == 0 && strcmp(a->mode, b->mode) == 0;
}

static double floor_us(double us)
{
    return us < LOG_FLOOR_US ? LOG_FLOOR_US : us;
}

static double floor_percent(double percent)
{
    return percent < LOG_FLOOR_PERCENT ? LOG_FLOOR_PERCENT : percent;
}

static double busy_percent(const gar_arm_summary *a)
{
    double v = 100.0 * a->busy_frac;
    return v < LOG_FLOOR_PERCENT ? LOG_FLOOR_PERCENT : v;
}

static double p99_us(const gar_arm_summary *a)
{
    double v = a->p99_ns / 1000.0;
    return v < LOG_FLOOR_US ? LOG_FLOOR_US : v;
}

/* An arm with an ok run to re-run (CDFs and predictions show one run). */
static bool arm_usable(const gar_arm_summary *a)
{
    return a->runs > a->failed;
}

/* An arm every run of which succeeded: only those are means over the same
 * seeds, so only those are drawn against each other (as the report ranks). */
static bool arm_complete(const gar_arm_summary *a)
{
    return a->runs > 0 && a->failed == 0;
}

/* The distinct plans of the arms a plot shows, in plan order, each with
 * its name among them and its style. */
typedef struct shown_plans {
    size_t count;
    const char *plan[GAR_PLOT_STYLES];
    unsigned rank[GAR_PLOT_STYLES]; /* the plan's place in the database's plan order */
    char name[GAR_PLOT_STYLES][GAR_RESULTS_TEXT];
} shown_plans;

/* Adds `plan` when new; returns its place, or -1 when the plot is full. */
static long shown_add(shown_plans *s, const char *plan, unsigned rank)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->plan[i], plan) == 0)
            return (long)i;
    if (s->count == GAR_PLOT_STYLES)
        return -1;
    s->plan[s->count] = plan;
    s->rank[s->count] = rank;
    return (long)s->count++;
}

/* Plan order (block, poll, flag, each without then with predict, bands),
 * and within one family by the numbers of its parameters: a legend of six
 * margins reads 50, 100, ... 300. */
static bool shown_before(const char *a, unsigned rank_a, const char *b, unsigned rank_b)
{
    char fa[256], fb[256];
    gar_plan_family(a, fa, sizeof fa);
    gar_plan_family(b, fb, sizeof fb);
    if (strcmp(fa, fb) == 0)
        return gar_plan_text_order(a, b) < 0;
    return rank_a < rank_b;
}

/* Puts the shown plans in that order (insertion: a plot shows few), then
 * names each among them. */
static void shown_name(shown_plans *s)
{
    for (size_t i = 1; i < s->count; i++)
        for (size_t j = i; j > 0 && shown_before(s->plan[j], s->rank[j], s->plan[j - 1],
                                                 s->rank[j - 1]);
             j--) {
            const char *p = s->plan[j];
            unsigned r = s->rank[j];
            s->plan[j] = s->plan[j - 1];
            s->rank[j] = s->rank[j - 1];
            s->plan[j - 1] = p;
            s->rank[j - 1] = r;
        }
    for (size_t i = 0; i < s->count; i++)
        gar_plan_name_among(s->plan[i], s->plan, s->count, s->name[i], sizeof s->name[i]);
}

static long shown_find(const shown_plans *s, const char *plan)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->plan[i], plan) == 0)
            return (long)i;
    return -1;
}

/* The Pareto plot's layout: panels, their plotting areas (the panel less
 * its title, labels and tics), the title above and the legend strip. */
#define PARETO_PANEL_W_PX 560
#define PARETO_PANEL_H_PX 440
#define PARETO_AREA_MARGIN_W_PX 120
#define PARETO_AREA_MARGIN_H_PX 110
#define PARETO_TITLE_H_PX 60
#define PARETO_TITLE_CHAR_PX 9   /* a character of the title's font */
#define PARETO_TITLE_PAD_PX 80
#define PARETO_KEY_CHAR_PX 8     /* a character of the legend's font */
#define PARETO_KEY_SAMPLE_PX 110 /* an entry's sample and gaps */
#define PARETO_KEY_ROW_PX 24
#define PARETO_KEY_PAD_PX 50
#define PARETO_TRACES_MAX 64
#define PARETO_ESTIMATORS_MAX 256

/* A panel's axes from the extent of its points and bars: x log with room
 * either side; y log when it spans more than two decades, else linear from
 * 0; never past 100 % by much. */
static gar_plot_axes pareto_axes(double xlo, double xhi, double ylo, double yhi, double panel_w_px,
                                 double panel_h_px)
{
    gar_plot_axes a;
    a.x_lo = xlo / 1.6;
    a.x_hi = xhi * 1.6;
    a.log_y = yhi > 0 && ylo > 0 && yhi / ylo > 100;
    if (a.log_y) {
        a.y_lo = ylo / 2;
        a.y_hi = yhi * 2 > 100 ? 200.0 : yhi * 2;
    } else {
        a.y_lo = 0;
        a.y_hi = yhi * 1.1 > 100 ? 105.0 : yhi * 1.1 + 1;
    }
    a.width_px = panel_w_px - PARETO_AREA_MARGIN_W_PX;
    a.height_px = panel_h_px - PARETO_AREA_MARGIN_H_PX;
    return a;
}

/* The complete arms of one panel, where they are drawn. */
typedef struct panel_spots {
    size_t n;
    double *x, *y;
    size_t *arm;   /* index into the arm list */
    size_t *group; /* gar_plot_coincident's groups */
} panel_spots;

/* Writes the arms of group `grp` of a panel to `listing` as one line, arms
 * of one plan together: "block; bands block|32:flag+predict / adl, none". */
static void list_group_arms(FILE *listing, const gar_arm_list *arms, const panel_spots *s,
                            size_t grp, const shown_plans *plans)
{
    const char *last_plan = NULL;
    for (size_t i = 0; i < s->n; i++) {
        if (s->group[i] != grp)
            continue;
        const gar_arm_summary *a = &arms->arm[s->arm[i]];
        bool no_estimator = strcmp(a->estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0;
        if (last_plan != NULL && strcmp(last_plan, a->plan) == 0) {
            fprintf(listing, ", %s", a->estimator);
        } else {
            fprintf(listing, "%s%s%s%s", last_plan != NULL ? "; " : "",
                    plans->name[shown_find(plans, a->plan)], no_estimator ? "" : " / ",
                    no_estimator ? "" : a->estimator);
            last_plan = a->plan;
        }
    }
}

/* Rings the groups of two arms or more of one panel: a block of `marks`
 * (x y "tag×count" per group) and a line each in `listing` ("TRACE TAG
 * (N arms at p99 .., busy ..): arm; arm").  Returns the groups marked. */
static size_t mark_coincident(const gar_arm_list *arms, const panel_spots *s,
                              const gar_plot_axes *axes, const char *trace_name,
                              const shown_plans *plans, FILE *marks, FILE *listing)
{
    size_t groups = gar_plot_coincident(s->x, s->y, s->n, axes, s->group), marked = 0;
    for (size_t grp = 0; grp < groups; grp++) {
        size_t count = 0, at = 0;
        for (size_t i = 0; i < s->n; i++)
            if (s->group[i] == grp && count++ == 0)
                at = i;
        if (count < 2)
            continue;
        char tag[16], p99[32], busy[32];
        gar_plot_tag(marked++, tag, sizeof tag);
        fprintf(marks, "%.6g %.6g \"%s×%zu\"\n", s->x[at], s->y[at], tag, count);
        gar_duration_text(s->x[at] * 1000.0, p99, sizeof p99);
        gar_percent_text(s->y[at], busy, sizeof busy);
        fprintf(listing, "%s %s (%zu arms at p99 %s, busy %s): ", trace_name, tag, count, p99,
                busy);
        list_group_arms(listing, arms, s, grp, plans);
        fprintf(listing, "\n");
    }
    return marked;
}

/* One panel's block of the data file: a line per complete arm of trace
 * `trace` in the group of arms[first].  Fills `pts` with the frontier's
 * candidates (their count returned), `spots` with every arm drawn, and
 * `extent` (x lo, x hi, y lo, y hi: start at INFINITY, 0, INFINITY, 0)
 * with the reach of the points and bars. */
static size_t pareto_trace_arms(const gar_arm_list *arms, size_t first, const char *trace,
                                const shown_plans *plans, FILE *dat, point *pts,
                                panel_spots *spots, double extent[4])
{
    const gar_arm_summary *g = &arms->arm[first];
    size_t n = 0;
    for (size_t i = first; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (!same_group(a, g) || strcmp(a->trace, trace) != 0 || !arm_complete(a))
            continue;
        double x = p99_us(a), y = busy_percent(a);
        double x0 = floor_us(fmin(a->p99_min_ns, a->p99_ns) / 1000.0);
        double x1 = fmax(a->p99_max_ns, a->p99_ns) / 1000.0;
        if (a->has_ci) {
            x0 = floor_us(fmin(x0 * 1000.0, a->p99_lo_ns) / 1000.0);
            x1 = fmax(x1, a->p99_hi_ns / 1000.0);
        }
        double y0 = floor_percent(100.0 * fmin(a->busy_min, a->busy_frac));
        double y1 = floor_percent(100.0 * fmax(a->busy_max, a->busy_frac));
        fprintf(dat, "%.6g %.6g %.6g %.6g %.6g %.6g %ld %d \"%s / %s\"\n", x, y, x0,
                isinf(x1) ? UNBOUNDED_US : x1, y0, y1, shown_find(plans, a->plan),
                estimator_points[a->estimator_rank % POINTS],
                plans->name[shown_find(plans, a->plan)], a->estimator);
        /* The oracle knows each residual in advance: a bound, drawn but
         * kept off the frontier of what a policy can reach. */
        if (strcmp(a->estimator, "oracle") != 0)
            pts[n++] = (point){ x, y };
        spots->x[spots->n] = x;
        spots->y[spots->n] = y;
        spots->arm[spots->n++] = i;
        extent[0] = fmin(extent[0], x0);
        extent[1] = fmax(extent[1], isinf(x1) ? x : x1);
        extent[2] = fmin(extent[2], y0);
        extent[3] = fmax(extent[3], y1);
    }
    return n;
}

/* One pareto plot of the arms of one host and mode (those equal to `first`). */
static int pareto_one(const gar_arm_list *arms, size_t first, const char *dir,
                      gar_plot_files *files, gar_error *err)
{
    const gar_arm_summary *g = &arms->arm[first];
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "pareto-%s-%s", g->host_short, g->mode);
    plot_files pf;
    name_plot(&pf, base);

    /* The traces of this group, in arm order, its plans (named among
     * themselves) and the estimator ranks present (for the legend). */
    const char *traces[PARETO_TRACES_MAX];
    char trace_names[PARETO_TRACES_MAX][GAR_RESULTS_TEXT];
    size_t tn = 0, group_arms = 0;
    unsigned est_max = 0;
    bool est_seen[PARETO_ESTIMATORS_MAX] = { false };
    const char *est_name[PARETO_ESTIMATORS_MAX] = { NULL };
    shown_plans *plans = calloc(1, sizeof *plans);
    if (plans == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a pareto plot", "exhausted");
    for (size_t i = first; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (!same_group(a, g))
            continue;
        group_arms++;
        if (tn == 0 || strcmp(traces[tn - 1], a->trace) != 0) {
            if (tn == PARETO_TRACES_MAX) {
                free(plans);
                return gar_error_set(err, GAR_E_CAPACITY, 2, "traces in one pareto plot", "64");
            }
            traces[tn] = a->trace;
            gar_format(trace_names[tn], sizeof trace_names[tn], "%s", a->trace_short);
            tn++;
        }
        if (shown_add(plans, a->plan, a->plan_rank) < 0) {
            char cap[16];
            gar_format(cap, sizeof cap, "%d", GAR_PLOT_STYLES);
            free(plans);
            return gar_error_set(err, GAR_E_CAPACITY, 2, "plans in one pareto plot", cap);
        }
        if (a->estimator_rank >= PARETO_ESTIMATORS_MAX) { /* its legend entry would be lost */
            free(plans);
            return gar_error_set(err, GAR_E_CAPACITY, 2, "estimators in one pareto plot", "256");
        }
        est_seen[a->estimator_rank] = true;
        est_name[a->estimator_rank] = a->estimator;
        if (a->estimator_rank + 1 > est_max)
            est_max = a->estimator_rank + 1;
    }
    shown_name(plans);
    /* The panels in a grid (their size first: it says which points hide
     * each other), the legend in a strip under them as tall as its entries
     * need: every plan and estimator can be looked up. */
    size_t cols = tn <= 1 ? 1 : tn <= 4 ? 2 : 3;
    size_t rows = (tn + cols - 1) / cols;
    size_t width = PARETO_PANEL_W_PX * (cols < 2 ? 2 : cols), panels_h = PARETO_PANEL_H_PX * rows;
    /* The title on two lines, the first as wide as the host's name makes
     * it: a what-if host's long name ran off both edges of a one-panel
     * image. */
    size_t title_px = (strlen("Busy CPU against p99 overshoot: host , open loop") +
                       strlen(g->host_short)) * PARETO_TITLE_CHAR_PX + PARETO_TITLE_PAD_PX;
    width = title_px > width ? title_px : width;
    double panel_w_px = (double)width / (double)cols;
    bool any_ci = false; /* the bars hold stored intervals, not only the seeds' spread */
    bool any_unbounded = false; /* a bar runs off the right edge: say why */
    for (size_t i = first; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        any_ci |= same_group(a, g) && a->has_ci;
        any_unbounded |= same_group(a, g) && a->has_ci && arm_complete(a) && isinf(a->p99_hi_ns);
    }

    FILE *dat = open_in(dir, pf.dat, pf.dat_path, sizeof pf.dat_path, err);
    if (dat == NULL) {
        free(plans);
        return -GAR_E_IO;
    }
    fprintf(dat, "# gar plot data: busy CPU against p99 overshoot, host %s, %s loop.\n"
                 "# Per trace two blocks: the arms (p99_us busy_percent p99_lo_us p99_hi_us"
                 " busy_lo_percent busy_hi_percent plan estimator_point \"plan / estimator\"),"
                 " then the Pareto frontier (p99_us busy_percent).\n"
                 "# Means over seeds, with the interval the report ranks by: p99 from the least"
                 " to the greatest seed, widened to the seeds' 95 %% intervals where stored,"
                 " busy from the least to the most seed; an interval without an upper end is"
                 " written %g.\n"
                 "# Values below %g µs or %g %% are drawn at that floor (log axes).\n"
                 "# Arms with a failed run are left out.\n",
            g->host_short, g->mode, UNBOUNDED_US, LOG_FLOOR_US, LOG_FLOOR_PERCENT);
    double xlo[PARETO_TRACES_MAX], xhi[PARETO_TRACES_MAX], ylo[PARETO_TRACES_MAX],
        yhi[PARETO_TRACES_MAX];
    gar_plot_axes axes[PARETO_TRACES_MAX];
    long marks_at[PARETO_TRACES_MAX]; /* a panel's block of rings, -1: none */
    size_t marks_blocks = 0;
    /* Every arm of the group may sit in one panel: room for all of them. */
    point *pts = malloc(2 * group_arms * sizeof *pts), *front = pts + group_arms;
    panel_spots spots = { 0, malloc(2 * group_arms * sizeof(double)), NULL,
                          malloc(2 * group_arms * sizeof(size_t)), NULL };
    spots.y = spots.x + group_arms;
    spots.group = spots.arm + group_arms;
    char *marks_text = NULL, *listing_text = NULL;
    size_t marks_len = 0, listing_len = 0;
    FILE *marks = open_memstream(&marks_text, &marks_len);
    FILE *listing = open_memstream(&listing_text, &listing_len);
    if (pts == NULL || spots.x == NULL || spots.arm == NULL || marks == NULL || listing == NULL) {
        if (marks != NULL)
            fclose(marks);
        if (listing != NULL)
            fclose(listing);
        free(marks_text);
        free(listing_text);
        free(pts);
        free(spots.x);
        free(spots.arm);
        free(plans);
        fclose(dat);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a pareto plot", "exhausted");
    }
    for (size_t t = 0; t < tn; t++) {
        size_t n = 0;
        spots.n = 0;
        fprintf(dat, "# trace %s\n", trace_names[t]);
        double extent[4] = { INFINITY, 0, INFINITY, 0 };
        n = pareto_trace_arms(arms, first, traces[t], plans, dat, pts, &spots, extent);
        xlo[t] = extent[0];
        xhi[t] = extent[1];
        ylo[t] = extent[2];
        yhi[t] = extent[3];
        fprintf(dat, "\n\n# frontier %s\n", trace_names[t]);
        size_t m = pareto_frontier(pts, n, front);
        for (size_t k = 0; k < m; k++)
            fprintf(dat, "%.6g %.6g\n", front[k].x, front[k].y);
        fprintf(dat, "\n\n");
        axes[t] = pareto_axes(xlo[t], xhi[t], ylo[t], yhi[t], panel_w_px,
                              (double)PARETO_PANEL_H_PX);
        marks_at[t] = -1;
        if (mark_coincident(arms, &spots, &axes[t], trace_names[t], plans, marks, listing) > 0) {
            marks_at[t] = (long)(2 * tn + marks_blocks++);
            fprintf(marks, "\n\n");
        }
    }
    free(pts);
    free(spots.x);
    free(spots.arm);
    bool memory_lost = fclose(marks) != 0;
    memory_lost |= fclose(listing) != 0;
    /* The rings' blocks after every trace's two: x y "tag×count". */
    if (!memory_lost && marks_len > 0)
        fprintf(dat, "# coincident arms: per panel with any, x y \"tag×count\" of each group\n%s",
                marks_text);
    free(marks_text);
    FILE *gp = memory_lost ? NULL : script_after_data(dir, dat, &pf, err);
    if (gp == NULL) {
        if (memory_lost) {
            fclose(dat);
            gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a pareto plot", "exhausted");
        }
        free(listing_text);
        free(plans);
        return memory_lost ? -GAR_E_CAPACITY : -GAR_E_IO;
    }
    size_t longest = 34; /* the headers' and fixed entries' length */
    size_t entries = 4 + plans->count;
    for (size_t p = 0; p < plans->count; p++)
        longest = strlen(plans->name[p]) > longest ? strlen(plans->name[p]) : longest;
    for (unsigned e = 0; e < est_max; e++)
        if (est_seen[e]) {
            entries++;
            longest = strlen(est_name[e]) > longest ? strlen(est_name[e]) : longest;
        }
    size_t key_cols = width / (longest * PARETO_KEY_CHAR_PX + PARETO_KEY_SAMPLE_PX);
    key_cols = key_cols < 1 ? 1 : key_cols;
    size_t key_rows = (entries + (marks_blocks > 0) + key_cols - 1) / key_cols;
    size_t legend_h = key_rows * PARETO_KEY_ROW_PX + PARETO_KEY_PAD_PX,
           height = panels_h + legend_h + PARETO_TITLE_H_PX;
    double top = 1.0 - (double)PARETO_TITLE_H_PX / (double)height,
           legend = (double)legend_h / (double)height;
    char host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(g->host_short, host, sizeof host);
    fprintf(gp,
            "# gar plot: busy CPU against p99 overshoot, one panel per trace.\n"
            "# Host %s, %s loop; each point is an arm (plan / estimator), the mean over\n"
            "# its seeds, its bars the intervals the report ranks by; the dashed staircase\n"
            "# is the Pareto frontier (nothing is better on both axes; the oracle, a bound,\n"
            "# is left off it).  Data: %s.  Re-draw: gnuplot %s\n"
            "set terminal pngcairo size %zu,%zu enhanced font 'Sans,11'\n"
            "set output '%s'\n"
            "set multiplot title \"Busy CPU against p99 overshoot: host %s, %s loop"
            "\\n{/*0.8 mean over seeds, bars: %s}\" font ',14'\n"
            "set grid\n"
            "unset key\n"
            "set xlabel 'p99 overshoot (µs, log)'\n"
            "set ylabel 'busy CPU (%% of wait time)'\n"
            "set format x '%%g'\n"
            "set format y '%%g'\n",
            g->host_short, g->mode, pf.dat, pf.gp, width, height, pf.png, host, g->mode,
            any_ci ? "spread and 95 % intervals" : "seeds' spread");
    for (size_t t = 0; t < tn; t++) {
        char title[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_single(trace_names[t], title, sizeof title);
        double panel_h = (top - legend) / (double)rows;
        fprintf(gp, "\nset origin %.6f,%.6f\nset size %.6f,%.6f\n", (double)(t % cols) / (double)cols,
                top - (double)(t / cols + 1) * panel_h, 1.0 / (double)cols, panel_h);
        fprintf(gp, "set title '%s'\nset logscale x\nunset label 1\n", title);
        const gar_plot_axes *ax = &axes[t];
        if (xhi[t] > 0 && xlo[t] > 0)
            fprintf(gp, "set xrange [%.6g:%.6g]\n", ax->x_lo, ax->x_hi);
        bool empty = !(xhi[t] > 0 && xlo[t] > 0); /* every arm of the trace failed */
        fprintf(gp, "%s\nset ylabel 'busy CPU (%% of wait time%s)'\nset yrange [%.6g:%.6g]\n",
                ax->log_y ? "set logscale y" : "unset logscale y", ax->log_y ? ", log" : "",
                ax->y_lo, ax->y_hi);
        if (empty) { /* nothing to draw, and gnuplot cannot autoscale an empty log axis */
            fprintf(gp, "set xrange [1:10]\nset label 1 'every arm has a failed run'"
                        " at graph 0.5, graph 0.5 center\nplot NaN notitle\n");
            continue;
        }
        fprintf(gp, "plot '%s' index %zu using 1:2 with steps dt 2 lw 1.5 lc rgb '#555555'",
                pf.dat, 2 * t + 1);
        for (size_t p = 0; p < plans->count; p++) {
            gar_plot_style st = gar_plot_style_for(palette_of(files), plans->plan[p]);
            fprintf(gp,
                    ", \\\n     '' index %zu using ($7 == %zu ? $1 : NaN):2:3:4:5:6"
                    " with xyerrorbars ps 0 lw 1 dt %d lc rgb '%s'"
                    ", \\\n     '' index %zu using ($7 == %zu ? $1 : NaN):2:8 with points"
                    " pt variable ps 1.7 lw 1.5 lc rgb '%s'",
                    2 * t, p, st.dash, st.colour, 2 * t, p, st.colour);
        }
        /* Arms on one point: a ring round it and its tag with their count,
         * the arms listed under the plot. */
        if (marks_at[t] >= 0)
            fprintf(gp, ", \\\n     '' index %ld using 1:2 with points pt 6 ps 3.4 lw 1.5"
                        " lc rgb '#000000'"
                        ", \\\n     '' index %ld using 1:2:3 with labels left offset 1.6,1.1"
                        " font ',10' tc rgb '#000000'",
                    marks_at[t], marks_at[t]);
        fprintf(gp, "\n");
    }
    /* The legend: colours (and after sixteen plans, dashes) are plans,
     * point shapes are estimators. */
    fprintf(gp, "\n# The legend strip.\nset origin 0,0\nset size 1,%.6f\nset title ''\n"
                "unset label 1\nunset border\nunset tics\nunset grid\nunset xlabel\n"
                "unset ylabel\nunset logscale\nset xrange [0:1]\nset yrange [0:1]\n"
                "set key center center vertical Left reverse box spacing 1.2 font ',11'"
                " maxrows %zu\nplot NaN notitle",
            legend, key_rows);
    fprintf(gp, ", \\\n     keyentry with lines dt 2 lw 1.5 lc rgb '#555555' title 'Pareto frontier'");
    fprintf(gp, ", \\\n     keyentry with lines lw 1 lc rgb '#333333' title 'bars: %s'",
            any_ci ? "seeds'' spread, 95 % intervals" : "seeds'' spread");
    if (marks_blocks > 0)
        fprintf(gp, ", \\\n     keyentry with points pt 6 ps 1.7 lw 1.5 lc rgb '#000000'"
                    " title 'tag×N: N arms on one point'");
    fprintf(gp, ", \\\n     keyentry with points pt -1 lc rgb 'white' title '{/:Bold colour: plan}'");
    for (size_t p = 0; p < plans->count; p++) {
        char t[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_single(plans->name[p], t, sizeof t);
        gar_plot_style st = gar_plot_style_for(palette_of(files), plans->plan[p]);
        fprintf(gp, ", \\\n     keyentry with linespoints pt 7 ps 1.7 dt %d lc rgb '%s' title '%s'",
                st.dash, st.colour, t);
    }
    fprintf(gp, ", \\\n     keyentry with points pt -1 lc rgb 'white' title '{/:Bold shape: estimator}'");
    for (unsigned e = 0; e < est_max; e++)
        if (est_seen[e]) {
            char t[GAR_RESULTS_TEXT * 2];
            bool none = strcmp(est_name[e], GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0;
            bool oracle = strcmp(est_name[e], "oracle") == 0;
            gar_gnuplot_single(none ? "- (plan without predict)" : oracle ? "oracle (a bound: off the frontier)" : est_name[e], t, sizeof t);
            fprintf(gp, ", \\\n     keyentry with points pt %d ps 1.7 lw 1.5 lc rgb '#333333' title '%s'",
                    estimator_points[e % POINTS], t);
        }
    fprintf(gp, "\nunset multiplot\n");
    free(plans);
    int rc = draw_and_list(dir, gp, &pf, files, "", g->host, err,
             "Busy CPU against p99 overshoot on host %s (%s loop): one point per arm, the mean "
             "over its seeds, its bars the %s (the report's ties are where they overlap); the "
             "dashed staircase is the Pareto frontier.%s%s",
             g->host_short, g->mode,
             any_ci ? "seeds' spread widened to their 95 % intervals" : "seeds' spread",
             any_unbounded ? " A bar that runs off the right edge has no upper end: its runs "
                             "had too few waits to bound a p99 from above."
                           : "",
             marks_blocks > 0 ? " A ring tagged a×N marks N arms drawn on one point, hiding "
                                "each other: they are listed below."
                              : "");
    if (rc == 0 && listing_len > 0) { /* the plot's list now owns it */
        files->file[files->count - 1].listing = listing_text;
        listing_text = NULL;
    }
    free(listing_text);
    return rc;
}

void gar_plot_files_free(gar_plot_files *files)
{
    if (files == NULL)
        return;
    for (size_t i = 0; i < files->count; i++)
        free(files->file[i].listing);
    free(files);
}

int gar_plot_pareto(const gar_arm_list *arms, const char *dir, gar_plot_files *files,
                    gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    gar_plot_palette_seed(files, arms);
    for (size_t i = 0; rc == 0 && i < arms->count; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !same_group(&arms->arm[j], &arms->arm[i]);
        if (first)
            rc = pareto_one(arms, i, dir, files, err);
    }
    return rc;
}

/* ---- metrics against a swept parameter ---------------------------------- */

/* One ok run's value of one parameter, with what a parameter plot groups
 * it by. */
typedef struct param_point {
    char name[GAR_SWEEP_PARAM_NAME_BYTES];
    char host[GAR_RESULTS_TEXT]; /* the profile's short name, what-if terms left off */
    char mode[16];
    char line[GAR_RESULTS_TEXT]; /* plan family / estimator family */
    double x, p99_ns, busy;
} param_point;

static int by_param_group(const void *a, const void *b)
{
    const param_point *p = a, *q = b;
    int c = strcmp(p->name, q->name);
    if (c == 0)
        c = strcmp(p->host, q->host);
    if (c == 0)
        c = strcmp(p->mode, q->mode);
    if (c == 0)
        c = strcmp(p->line, q->line);
    if (c == 0 && p->x != q->x)
        c = p->x < q->x ? -1 : 1;
    return c;
}

static bool same_param_plot(const param_point *a, const param_point *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->host, b->host) == 0 &&
           strcmp(a->mode, b->mode) == 0;
}

/* "flag+predict" from a plan label (its parks, without their parameters;
 * bands as "bands block|32:flag+predict"), then " / ewma" from the
 * estimator label "ewma:alpha=0.25" ("-": none). */
static void line_label(const char *plan, const char *estimator, char *out, size_t size)
{
    gar_bands bands;
    size_t n = 0;
    if (gar_bands_parse(plan, &bands, NULL) < 0) {
        n += (size_t)gar_format(out, size, "%s", plan);
    } else {
        if (bands.count > 1)
            n += (size_t)gar_format(out, size, "bands ");
        for (uint32_t b = 0; b < bands.count && n < size; b++) {
            const gar_plan *p = &bands.band[b].plan;
            if (b > 0)
                n += (size_t)gar_format(out + n, size - n, "|%u:",
                                        (unsigned)bands.band[b].first_rows);
            if (n < size)
                n += (size_t)gar_format(out + n, size - n, "%s%s", gar_park_name(p->park),
                                        p->predict ? "+predict" : "");
        }
    }
    if (strcmp(estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) != 0 && n < size)
        gar_format(out + n, size - n, " / %.*s", (int)strcspn(estimator, ":"), estimator);
}

/* A parameter's name as part of a file name: '*' (a what-if factor) reads
 * "_scale", '@' "_at_", anything else not [A-Za-z0-9_] '_'. */
static void param_file_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (; *name != '\0' && n + 7 < size; name++) {
        char c = *name;
        if (c == '*')
            n += (size_t)gar_format(out + n, size - n, "_scale");
        else if (c == '@')
            n += (size_t)gar_format(out + n, size - n, "_at_");
        else
            out[n++] = (char)(((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                               (c >= '0' && c <= '9') || c == '_')
                                  ? c
                                  : '_');
    }
    out[n] = '\0';
}

/* Reads every numeric parameter of every ok run. */
static int read_param_points(gar_db *db, param_point **out, size_t *count, gar_error *err)
{
    static const char sql[] =
        "SELECT p.name, p.number, r.host_name, r.mode, r.plan, r.estimator,"
        " r.overshoot_p99_ns, r.busy_frac"
        " FROM run_params p JOIN runs r USING (trace, plan, estimator, host, mode, seed)"
        " WHERE r.status = 'ok' AND p.number IS NOT NULL";
    sqlite3 *sqlite = gar_db_sqlite(db);
    sqlite3_stmt *st = NULL;
    *out = NULL;
    *count = 0;
    if (sqlite3_prepare_v2(sqlite, sql, -1, &st, NULL) != SQLITE_OK)
        return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), "read the parameters of",
                             sqlite3_errmsg(sqlite));
    size_t n = 0, cap = 0;
    param_point *pts = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t bigger = cap == 0 ? 256 : cap * 2;
            param_point *grown = realloc(pts, bigger * sizeof *grown);
            if (grown == NULL) {
                free(pts);
                sqlite3_finalize(st);
                return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the parameter plots",
                                     "exhausted");
            }
            pts = grown;
            cap = bigger;
        }
        param_point *p = &pts[n++];
        const char *host = (const char *)sqlite3_column_text(st, 2);
        char base[GAR_RESULTS_TEXT];
        gar_format(base, sizeof base, "%.*s", (int)strcspn(host != NULL ? host : "", "@"),
                   host != NULL ? host : "");
        gar_format(p->name, sizeof p->name, "%s", (const char *)sqlite3_column_text(st, 0));
        p->x = sqlite3_column_double(st, 1);
        gar_results_short_name(base, p->host, sizeof p->host);
        gar_format(p->mode, sizeof p->mode, "%s", (const char *)sqlite3_column_text(st, 3));
        line_label((const char *)sqlite3_column_text(st, 4),
                   (const char *)sqlite3_column_text(st, 5), p->line, sizeof p->line);
        p->p99_ns = sqlite3_column_double(st, 6);
        p->busy = sqlite3_column_double(st, 7);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(pts);
        return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), "read the parameters of",
                             sqlite3_errmsg(sqlite));
    }
    if (n > 0) /* no parameters: pts may be NULL, which qsort may not be given */
        qsort(pts, n, sizeof *pts, by_param_group);
    *out = pts;
    *count = n;
    return 0;
}

/* One param-NAME-HOST-MODE plot from pts[0 .. n-1] (one name, host, mode;
 * sorted by line, then x). */
static int param_one(const param_point *pts, size_t n, const char *dir, gar_plot_files *files,
                     gar_error *err)
{
    const param_point *g = &pts[0];
    char file_name[GAR_SWEEP_PARAM_NAME_BYTES * 3], base[GAR_PLOT_NAME_BYTES - 16];
    param_file_name(g->name, file_name, sizeof file_name);
    gar_format(base, sizeof base, "param-%s-%s-%s", file_name, g->host, g->mode);
    plot_files pf;
    name_plot(&pf, base);

    FILE *dat = open_in(dir, pf.dat, pf.dat_path, sizeof pf.dat_path, err);
    if (dat == NULL)
        return -GAR_E_IO;
    fprintf(dat, "# gar plot data: p99 overshoot and busy CPU against the swept parameter %s,\n"
                 "# host %s (its what-if variants included), %s loop.  One block per line\n"
                 "# (plan family / estimator): x p99_us busy_percent runs p99_min_us\n"
                 "# p99_max_us busy_min_percent busy_max_percent.  Each point is the mean\n"
                 "# over the ok runs with that value (seeds, traces and every other swept\n"
                 "# parameter's values), with the least and the greatest of them.\n",
            g->name, g->host, g->mode);
    size_t lines = 0;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = 0, bhi = 0;
    char labels[32][GAR_RESULTS_TEXT];
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(pts[j].line, pts[i].line) == 0)
            j++;
        if (lines < 32) {
            gar_format(labels[lines], sizeof labels[lines], "%s", pts[i].line);
            fprintf(dat, "# line %s\n", pts[i].line);
            for (size_t k = i; k < j;) {
                size_t m = k;
                double p99 = 0, busy = 0, p99_min = INFINITY, p99_max = 0, busy_min = INFINITY,
                       busy_max = 0;
                while (m < j && pts[m].x == pts[k].x) {
                    p99 += pts[m].p99_ns;
                    busy += pts[m].busy;
                    p99_min = fmin(p99_min, pts[m].p99_ns);
                    p99_max = fmax(p99_max, pts[m].p99_ns);
                    busy_min = fmin(busy_min, pts[m].busy);
                    busy_max = fmax(busy_max, pts[m].busy);
                    m++;
                }
                double runs = (double)(m - k), y = floor_us(p99 / runs / 1000.0),
                       b = 100 * busy / runs;
                double y0 = floor_us(p99_min / 1000.0), y1 = floor_us(p99_max / 1000.0);
                fprintf(dat, "%.9g %.6g %.6g %zu %.6g %.6g %.6g %.6g\n", pts[k].x, y, b, m - k,
                        y0, y1, 100 * busy_min, 100 * busy_max);
                xlo = fmin(xlo, pts[k].x);
                xhi = fmax(xhi, pts[k].x);
                ylo = fmin(ylo, y0);
                yhi = fmax(yhi, y1);
                bhi = fmax(bhi, 100 * busy_max);
                k = m;
            }
            fprintf(dat, "\n\n");
            lines++;
        }
        i = j;
    }
    FILE *gp = script_after_data(dir, dat, &pf, err);
    if (gp == NULL)
        return -GAR_E_IO;
    char name[GAR_SWEEP_PARAM_NAME_BYTES * 3], host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(g->name, name, sizeof name);
    gar_gnuplot_double(g->host, host, sizeof host);
    bool log_x = xlo > 0 && xhi / xlo >= 20;
    fprintf(gp,
            "# gar plot: p99 overshoot and busy CPU against %s, one line per plan family /\n"
            "# estimator (the mean over seeds, traces and the other swept values; bars:\n"
            "# the least and the greatest of those runs).\n"
            "# Host %s, %s loop.  Data: %s.  Re-draw: gnuplot %s\n"
            "set terminal pngcairo size 1200,520 enhanced font 'Sans,11'\n"
            "set output '%s'\n"
            "set multiplot layout 1,2 title \"Against %s: host %s, %s loop\" font ',14'\n"
            "set grid\nset xlabel \"%s\"\nset format x '%%g'\nset format y '%%g'\n"
            "set key outside bottom center horizontal font ',10'\n%s"
            "set xrange [%.9g:%.9g]\n",
            g->name, g->host, g->mode, pf.dat, pf.gp, pf.png, name, host, g->mode, name,
            log_x ? "set logscale x\n" : "", log_x ? xlo / 1.2 : xlo - (xhi - xlo) * 0.05 - 1e-9,
            log_x ? xhi * 1.2 : xhi + (xhi - xlo) * 0.05 + 1e-9);
    /* At least 1.5 decades, so a flat line still has a labelled tick. */
    double lo = ylo / 1.6, hi = yhi * 1.6;
    if (hi / lo < 30) {
        double widen = sqrt(30 / (hi / lo));
        lo /= widen;
        hi *= widen;
    }
    fprintf(gp, "\nset title 'p99 overshoot'\nset ylabel 'p99 overshoot (µs, log)'\n"
                "set logscale y\nset yrange [%.6g:%.6g]\nplot",
            lo, hi);
    for (size_t l = 0; l < lines; l++) {
        char t[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_double(labels[l], t, sizeof t);
        gar_plot_style st = gar_plot_style_for(palette_of(files), labels[l]);
        fprintf(gp, "%s '%s' index %zu using 1:2:5:6 with yerrorlines pt 7 ps 1.2 lw 2 dt %d "
                    "lc rgb '%s' title \"%s\"",
                l > 0 ? ", \\\n    " : " ", pf.dat, l, st.dash, st.colour, t);
    }
    fprintf(gp, "\n\nset title 'busy CPU'\nset ylabel 'busy CPU (%% of wait time)'\n"
                "unset logscale y\nset yrange [0:%.6g]\nplot",
            bhi * 1.1 > 100 ? 105.0 : bhi * 1.1 + 0.01);
    for (size_t l = 0; l < lines; l++) {
        char t[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_double(labels[l], t, sizeof t);
        gar_plot_style st = gar_plot_style_for(palette_of(files), labels[l]);
        fprintf(gp, "%s '%s' index %zu using 1:3:7:8 with yerrorlines pt 7 ps 1.2 lw 2 dt %d "
                    "lc rgb '%s' title \"%s\"",
                l > 0 ? ", \\\n    " : " ", pf.dat, l, st.dash, st.colour, t);
    }
    fprintf(gp, "\nunset multiplot\n");
    return draw_and_list(dir, gp, &pf, files, "", "", err,
               "p99 overshoot and busy CPU against the swept parameter %s on host %s (%s loop, "
               "what-if variants included): one line per plan family / estimator, each point "
               "the mean over the runs with that value (seeds, traces, other swept values), its "
               "bar from the least to the greatest of them.",
               g->name, g->host, g->mode);
}

int gar_plot_params(gar_db *db, const char *dir, gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    param_point *pts = NULL;
    size_t n = 0;
    if (rc == 0)
        rc = read_param_points(db, &pts, &n, err);
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        bool varies = false;
        while (j < n && same_param_plot(&pts[j], &pts[i])) {
            varies |= pts[j].x != pts[i].x;
            j++;
        }
        /* A parameter with one value here has nothing to draw against. */
        if (varies)
            rc = param_one(&pts[i], j - i, dir, files, err);
        i = j;
    }
    free(pts);
    return rc;
}

/* ---- per-wait plots ----------------------------------------------------- */

typedef struct wait_log {
    size_t count, capacity;
    double *overshoot_us;
    double *truth_us;
    double *prediction_us; /* NaN where there was none */
    bool failed;           /* out of memory */
} wait_log;

static void log_wait(void *context, const gar_replay_wait *w)
{
    wait_log *log = context;
    if (log->failed)
        return;
    if (log->count == log->capacity) {
        size_t cap = log->capacity > 0 ? 2 * log->capacity : 4096;
        double *a = realloc(log->overshoot_us, cap * sizeof *a);
        if (a != NULL)
            log->overshoot_us = a;
        double *b = realloc(log->truth_us, cap * sizeof *b);
        if (b != NULL)
            log->truth_us = b;
        double *c = realloc(log->prediction_us, cap * sizeof *c);
        if (c != NULL)
            log->prediction_us = c;
        if (a == NULL || b == NULL || c == NULL) {
            log->failed = true;
            return;
        }
        log->capacity = cap;
    }
    log->overshoot_us[log->count] = (double)w->overshoot_ns / 1000.0;
    log->truth_us[log->count] = (double)w->truth_ns / 1000.0;
    log->prediction_us[log->count] = w->predicted ? (double)w->prediction_ns / 1000.0 : NAN;
    log->count++;
}

static void wait_log_free(wait_log *log)
{
    free(log->overshoot_us);
    free(log->truth_us);
    free(log->prediction_us);
    memset(log, 0, sizeof *log);
}

/* Returns 0 with the run's waits in `log`, GAR_RESULTS_OTHER_BUILD (noted
 * in `files` as what `figure` lacks; no waits kept), or a refusal. */
static int rerun_into(gar_db *db, const gar_run_key *key, wait_log *log, gar_plot_files *files,
                      const char *figure, gar_error *err)
{
    memset(log, 0, sizeof *log);
    int rc = gar_results_rerun(db, key, log_wait, log, err);
    if (rc == 0 && log->failed)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a run's waits", "exhausted");
    if (rc == GAR_RESULTS_OTHER_BUILD) {
        char why[1024];
        gar_error_message(err, why, sizeof why);
        if (files->lacking_count < GAR_PLOT_LACKING_MAX)
            gar_format(files->lacking[files->lacking_count++], sizeof files->lacking[0],
                       "%s: %s", figure, why);
        else
            files->lacking_more++;
    }
    if (rc != 0)
        wait_log_free(log);
    return rc;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

long gar_plot_find_trace(const gar_arm_list *arms, const char *which)
{
    for (size_t i = 0; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (which == NULL || strcmp(a->trace_short, which) == 0 ||
            (strlen(which) >= 4 && strncmp(a->trace, which, strlen(which)) == 0))
            return (long)i;
    }
    return -1;
}

/* The estimator a per-plan plot uses for a plan with predict: adl when the
 * group has it, else the first stored. */
static const char *plot_estimator(const gar_arm_list *arms, const gar_arm_summary *like)
{
    const char *first = NULL;
    for (size_t i = 0; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, like->trace) != 0 || strcmp(a->host, like->host) != 0 ||
            strcmp(a->mode, like->mode) != 0 || strcmp(a->plan, like->plan) != 0 ||
            !arm_usable(a))
            continue;
        if (strcmp(a->estimator, "adl") == 0)
            return a->estimator;
        if (first == NULL)
            first = a->estimator;
    }
    return first;
}

/* The CDF plot: two panels side by side (the CDF, the tail) and the key
 * right of the second. */
#define CDF_PANEL_W_PX 560
#define CDF_PANEL_H_PX 640
#define CDF_KEY_W_PX 300
#define CDF_TITLE_H_PX 60
#define CDF_POINTS 2000
#define CDF_TAIL_POINTS 2000

/* The share of the width the first panel takes. */
static double cdf_panel_share(void)
{
    return (double)CDF_PANEL_W_PX / (double)(CDF_PANEL_W_PX * 2 + CDF_KEY_W_PX);
}

/* One `plot` of every block's curve, its columns `using`. */
static void cdf_curves(FILE *gp, const plot_files *pf, size_t blocks, const char *using,
                       const char *const *plans, char titles[][GAR_RESULTS_TEXT * 2],
                       gar_plot_files *files)
{
    fprintf(gp, "plot ");
    for (size_t b = 0; b < blocks; b++) {
        gar_plot_style st = gar_plot_style_for(palette_of(files), plans[b]);
        fprintf(gp, "%s'%s' index %zu using %s with steps lw 2 dt %d lc rgb '%s' title '%s'",
                b > 0 ? ", \\\n     " : "", b == 0 ? pf->dat : "", b, using, st.dash,
                st.colour, titles[b]);
    }
    fprintf(gp, "\n");
}

static int cdf_one(gar_db *db, const gar_arm_list *arms, size_t first, const char *dir,
                   gar_plot_files *files, gar_error *err)
{
    const gar_arm_summary *g = &arms->arm[first];
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "cdf-%.80s-%.60s-%s", g->trace_short, g->host_short, g->mode);
    plot_files pf;
    name_plot(&pf, base);
    FILE *dat = open_in(dir, pf.dat, pf.dat_path, sizeof pf.dat_path, err);
    if (dat == NULL)
        return -GAR_E_IO;
    fprintf(dat, "# gar plot data: overshoot CDF, trace %s, host %s, %s loop.\n"
                 "# One block per plan: overshoot_us fraction_of_waits_at_most_that\n"
                 "# fraction_of_waits_at_least_that (the tail, 1 - CDF before the step).\n",
            g->trace_short, g->host_short, g->mode);
    /* The arms drawn, then their names among them, then each re-run. */
    const gar_arm_summary *drawn[16];
    const char *drawn_plans[16];
    size_t blocks = 0;
    for (size_t i = first; i < arms->count && blocks < 16; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, g->trace) != 0 || !same_group(a, g) || !arm_usable(a))
            continue;
        const char *est = plot_estimator(arms, a);
        if (est == NULL || strcmp(a->estimator, est) != 0)
            continue;
        /* In legend order: plan order, one family's numbers as numbers. */
        size_t at = blocks++;
        while (at > 0 && shown_before(a->plan, a->plan_rank, drawn[at - 1]->plan,
                                      drawn[at - 1]->plan_rank)) {
            drawn[at] = drawn[at - 1];
            at--;
        }
        drawn[at] = a;
    }
    for (size_t b = 0; b < blocks; b++)
        drawn_plans[b] = drawn[b]->plan;
    char titles[16][GAR_RESULTS_TEXT * 2];
    const char *written_plans[16];
    uint64_t seed = 0;
    int rc = 0;
    double lo = INFINITY, hi = 0, least_tail = 1;
    size_t written = 0;
    for (size_t b = 0; rc == 0 && b < blocks; b++) {
        const gar_arm_summary *a = drawn[b];
        gar_run_key key;
        rc = gar_results_find_run(db, a->trace, a->host, a->mode, a->plan, a->estimator, &key,
                                  err);
        if (rc <= 0)
            continue;
        wait_log log;
        char figure[GAR_RESULTS_PLAN_TEXT + 3 * GAR_RESULTS_TEXT];
        gar_format(figure, sizeof figure, "the overshoot CDF of plan %s (estimator %s) on trace "
                   "%s, host %s, %s loop", a->plan, a->estimator, a->trace_short,
                   a->host_short, a->mode);
        if ((rc = rerun_into(db, &key, &log, files, figure, err)) < 0)
            break;
        if (rc == GAR_RESULTS_OTHER_BUILD) {
            rc = 0;
            continue;
        }
        seed = key.seed;
        qsort(log.overshoot_us, log.count, sizeof *log.overshoot_us, compare_double);
        fprintf(dat, "# plan %s, estimator %s, seed %llu\n", a->plan, a->estimator,
                (unsigned long long)key.seed);
        /* About CDF_POINTS points a curve, the extremes always kept, and
         * every one of the last CDF_TAIL_POINTS: the tail plot reads them. */
        size_t step = log.count / CDF_POINTS + 1;
        for (size_t k = 0; k < log.count; k++) {
            if (k % step != 0 && log.count - k > CDF_TAIL_POINTS)
                continue;
            double v = log.overshoot_us[k] < LOG_FLOOR_US ? LOG_FLOOR_US : log.overshoot_us[k];
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            fprintf(dat, "%.6g %.6g %.6g\n", v, (double)(k + 1) / (double)log.count,
                    (double)(log.count - k) / (double)log.count);
        }
        least_tail = fmin(least_tail, 1.0 / (double)log.count);
        fprintf(dat, "\n\n");
        char label[GAR_RESULTS_TEXT * 2];
        gar_arm_name_among(a->plan, a->estimator, drawn_plans, blocks, label, sizeof label);
        gar_gnuplot_single(label, titles[written], sizeof titles[written]);
        written_plans[written++] = a->plan;
        wait_log_free(&log);
        rc = 0;
    }
    blocks = written;
    int closed = close_file(dat, pf.dat_path, err);
    if (rc < 0)
        return rc;
    if (closed < 0)
        return closed;
    if (blocks == 0) {
        remove(pf.dat_path); /* no plan to draw: no header-only data file either */
        return 0;
    }
    FILE *gp = open_in(dir, pf.gp, pf.gp_path, sizeof pf.gp_path, err);
    if (gp == NULL)
        return -GAR_E_IO;
    char trace[GAR_RESULTS_TEXT * 2], host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(g->trace_short, trace, sizeof trace);
    gar_gnuplot_double(g->host_short, host, sizeof host);
    fprintf(gp,
            "# gar plot: the overshoot CDF of each plan (the run with the least seed;\n"
            "# plans with predict under the estimator named).  Data: %s.\n"
            "# Re-draw: gnuplot %s\n"
            "# Left the CDF (log overshoot), right the tail: the fraction of waits with\n"
            "# at least that overshoot on log-log axes, where the p99 and the worst\n"
            "# waits are read.\n"
            "set terminal pngcairo size %d,%d enhanced font 'Sans,11'\n"
            "set output '%s'\n"
            "set multiplot title \"Overshoot CDF and tail: trace %s\\nhost %s, %s loop, seed %llu\""
            " font ',13'\n"
            "set xlabel 'overshoot: wait end - completion (µs, log)'\n"
            "set logscale x\n"
            "set format x '%%g'\n"
            "set xrange [%.6g:%.6g]\n"
            "set grid xtics mxtics ytics mytics\n"
            "\n# The CDF.\n"
            "set origin 0,0\nset size %.4f,%.4f\n"
            "set title 'CDF'\n"
            "set ylabel 'fraction of waits with at most that overshoot'\n"
            "set yrange [0:1.02]\n"
            "set ytics 0.1\n"
            "unset key\n",
            pf.dat, pf.gp, CDF_PANEL_W_PX * 2 + CDF_KEY_W_PX, CDF_PANEL_H_PX, pf.png, trace, host, g->mode,
            (unsigned long long)seed, lo / 1.5, hi * 1.5, cdf_panel_share(),
            1.0 - (double)CDF_TITLE_H_PX / CDF_PANEL_H_PX);
    cdf_curves(gp, &pf, blocks, "1:2", written_plans, titles, files);
    fprintf(gp, "\n# The tail (1 - CDF), log-log.\n"
                "set origin %.4f,0\nset size %.4f,%.4f\n"
                "set title 'tail: fraction of waits with at least that overshoot'\n"
                "set ylabel 'fraction of waits (log)'\n"
                "set logscale y\nset format y '%%g'\nset ytics auto\n"
                "set yrange [%.6g:1.5]\n"
                "set key outside right top Left reverse\n",
            cdf_panel_share(), 1.0 - cdf_panel_share(),
            1.0 - (double)CDF_TITLE_H_PX / CDF_PANEL_H_PX, least_tail / 2);
    cdf_curves(gp, &pf, blocks, "1:3", written_plans, titles, files);
    fprintf(gp, "unset multiplot\n");
    return draw_and_list(dir, gp, &pf, files, g->trace, g->host, err,
             "Overshoot CDF per plan on trace %s, host %s (%s loop, seed %llu; plans with predict "
             "under adl or the first estimator): further left and higher is better; on the "
             "right the tail (the share of waits with at least that overshoot, log-log), "
             "where p99 is the height 0.01.",
             g->trace_short, g->host_short, g->mode, (unsigned long long)seed);
}

int gar_plot_cdf(gar_db *db, const gar_arm_list *arms, const char *trace, const char *dir,
                 gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    gar_plot_palette_seed(files, arms);
    for (size_t i = 0; rc == 0 && i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, trace) != 0)
            continue;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(strcmp(arms->arm[j].trace, trace) == 0 && same_group(&arms->arm[j], a));
        if (first)
            rc = cdf_one(db, arms, i, dir, files, err);
    }
    return rc;
}

int gar_plot_pick_prediction_run(gar_db *db, const gar_arm_list *arms, const char *trace,
                                 gar_run_key *out, gar_error *err)
{
    /* Arms are in plan order (flag+predict before bands); take the first
     * single plan with predict, else any arm with an estimator. */
    const gar_arm_summary *pick = NULL;
    for (int pass = 0; pass < 2 && pick == NULL; pass++)
        for (size_t i = 0; i < arms->count && pick == NULL; i++) {
            const gar_arm_summary *a = &arms->arm[i];
            if (strcmp(a->trace, trace) != 0 || !arm_usable(a) ||
                strcmp(a->estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0)
                continue;
            if (pass == 0 && (strchr(a->plan, ';') != NULL || strncmp(a->plan, "flag", 4) != 0))
                continue;
            const char *est = plot_estimator(arms, a);
            if (est != NULL && strcmp(est, a->estimator) == 0)
                pick = a;
        }
    if (pick == NULL)
        return 0;
    return gar_results_find_run(db, pick->trace, pick->host, pick->mode, pick->plan,
                                pick->estimator, out, err);
}

int gar_plot_prediction(gar_db *db, const gar_run_key *run, const char *dir,
                        gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    if (rc < 0)
        return rc;
    wait_log log;
    char figure[GAR_RESULTS_PLAN_TEXT + 3 * GAR_RESULTS_TEXT];
    gar_format(figure, sizeof figure, "the prediction plot of run %lld (plan %s, estimator %s, "
               "trace %s, host %s)", (long long)run->id, run->plan, run->estimator,
               run->trace_short, run->host_short);
    if ((rc = rerun_into(db, run, &log, files, figure, err)) != 0)
        return rc < 0 ? rc : 0;
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "prediction-%lld", (long long)run->id);
    plot_files pf;
    name_plot(&pf, base);
    FILE *dat = open_in(dir, pf.dat, pf.dat_path, sizeof pf.dat_path, err);
    if (dat == NULL) {
        wait_log_free(&log);
        return -GAR_E_IO;
    }
    double lo = INFINITY, hi = 0;
    size_t predicted = 0;
    fprintf(dat, "# gar plot data: run %lld, trace %s, host %s, plan %s, estimator %s, %s loop,"
                 " seed %llu.\n# wait true_residual_us prediction_us (NaN: no prediction)\n",
            (long long)run->id, run->trace_short, run->host_short, run->plan, run->estimator,
            run->mode, (unsigned long long)run->seed);
    for (size_t k = 0; k < log.count; k++) {
        double t = log.truth_us[k], p = log.prediction_us[k];
        fprintf(dat, "%zu %.6g %.6g\n", k, t, p);
        if (t > 0) {
            lo = fmin(lo, t);
            hi = fmax(hi, t);
        }
        if (!isnan(p) && p > 0) {
            predicted++;
            lo = fmin(lo, p);
            hi = fmax(hi, p);
        }
    }
    size_t waits = log.count;
    wait_log_free(&log);
    FILE *gp = script_after_data(dir, dat, &pf, err);
    if (gp == NULL)
        return -GAR_E_IO;
    /* A run whose estimator never predicted draws no point: say so, not
     * leave an empty plot to be read as predictions hidden under the line. */
    char none[160] = "";
    if (predicted == 0)
        gar_format(none, sizeof none,
                   " None of its %zu waits had a prediction (its notes in the table say why).",
                   waits);
    char trace[GAR_RESULTS_TEXT * 2], host[GAR_RESULTS_TEXT * 2], plan[GAR_RESULTS_PLAN_TEXT * 2],
        est[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(run->trace_short, trace, sizeof trace);
    gar_gnuplot_double(run->host_short, host, sizeof host);
    gar_gnuplot_double(run->plan, plan, sizeof plan);
    gar_gnuplot_double(run->estimator, est, sizeof est);
    bool log_y = hi > 0 && lo < INFINITY && hi / lo > 30;
    fprintf(gp,
            "# gar plot: one run's prediction against the true residual, wait by wait.\n"
            "# Data: %s.  Re-draw: gnuplot %s\n"
            "set terminal pngcairo size 1200,560 enhanced font 'Sans,11'\n"
            "set output '%s'\n"
            "set title \"Prediction against the true residual: run %lld, trace %s, host %s,"
            " estimator %s, seed %llu\\n{/*0.8 plan %s}\" font ',13'\n"
            "set xlabel 'wait (trace row)'\n"
            "set ylabel 'time from the wait''s start (µs%s)'\n"
            "%s"
            "set format y '%%g'\n"
            "set grid\n"
            "set key top right box opaque\n"
            "plot '%s' using 1:2 with lines lw 1 lc rgb '#999999' title 'true residual', \\\n"
            "     '' using 1:3 with points pt 7 ps 0.35 lc rgb '#d55e00' title 'prediction (%zu waits)'\n",
            pf.dat, pf.gp, pf.png, (long long)run->id, trace, host, est,
            (unsigned long long)run->seed, plan, log_y ? ", log" : "",
            log_y ? "set logscale y\n" : "set yrange [0:*]\n", pf.dat, predicted);
    return draw_and_list(dir, gp, &pf, files, run->trace, run->host, err,
             "Run %lld (trace %s, host %s, plan %s, estimator %s, seed %llu): the estimator's "
             "prediction for each wait against the residual the wait really had.%s",
             (long long)run->id, run->trace_short, run->host_short, run->plan, run->estimator,
             (unsigned long long)run->seed, none);
}

/* ---- simulation against this machine ------------------------------------ */

int gar_plot_verification(const gar_verification *v, unsigned n, const char *dir,
                          gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    if (rc < 0)
        return rc;
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "verify-%u", n);
    plot_files pf;
    name_plot(&pf, base);
    FILE *dat = open_in(dir, pf.dat, pf.dat_path, sizeof pf.dat_path, err);
    if (dat == NULL)
        return -GAR_E_IO;
    fprintf(dat, "# gar plot data: verification %u, trace %s, plan %s, estimator %s, %llu waits"
                 " on %s.\n# level real_overshoot_us sim_overshoot_us (nearest rank)\n",
            n, v->trace_name, v->plan_ran, v->estimator, (unsigned long long)v->waits,
            v->device);
    for (unsigned k = 0; k < GAR_VERIFY_CDF_LEVELS; k++)
        /* A log axis cannot show 0: a zero overshoot is drawn at 1 ns. */
        fprintf(dat, "%.4f %.6g %.6g\n", (double)k / (GAR_VERIFY_CDF_LEVELS - 1),
                (double)(v->real_cdf[k] > 0 ? v->real_cdf[k] : 1) / 1e3,
                (double)(v->sim_cdf[k] > 0 ? v->sim_cdf[k] : 1) / 1e3);
    FILE *gp = script_after_data(dir, dat, &pf, err);
    if (gp == NULL)
        return -GAR_E_IO;
    char trace[GAR_VERIFY_TEXT * 2], plan[GAR_VERIFY_TEXT * 2], est[GAR_VERIFY_TEXT * 2];
    gar_gnuplot_double(v->trace_name, trace, sizeof trace);
    gar_gnuplot_double(v->plan_ran, plan, sizeof plan);
    gar_gnuplot_double(v->estimator, est, sizeof est);
    fprintf(gp,
            "# gar plot: real and simulated overshoot CDFs of one verified arm.\n"
            "# Data: %s.  Re-draw: gnuplot %s\n"
            "set terminal pngcairo size 900,520 enhanced font 'Sans,11'\n"
            "set output '%s'\n"
            "set title \"This machine against the simulator: trace %s, estimator %s, %llu waits\\n"
            "{/*0.8 plan %s; KS D %.3f, %s}\" font ',12'\n"
            "set xlabel 'overshoot (µs, log)'\n"
            "set ylabel 'fraction of waits'\n"
            "set logscale x\n"
            "set format x '%%g'\n"
            "set yrange [0:1]\n"
            "set grid\n"
            "set key bottom right box opaque\n"
            "plot '%s' using 2:1 with steps lw 2 lc rgb '#0072b2' title 'real (%s)', \\\n"
            "     '' using 3:1 with steps lw 2 dt 2 lc rgb '#d55e00' title 'simulated'\n",
            pf.dat, pf.gp, pf.png, trace, est, (unsigned long long)v->waits, plan, v->ks_d,
            v->verdict, pf.dat, v->device);
    return draw_and_list(dir, gp, &pf, files, v->trace, "", err,
               "Trace %s, plan %s, estimator %s: the overshoot CDF of %llu waits run for real "
               "(%s device) and simulated with this machine's profile; KS D %.3f (%s).",
               v->trace_name, v->plan_ran, v->estimator, (unsigned long long)v->waits,
               v->device, v->ks_d, v->verdict);
}

/* ---- auto against the fixed plans, by budget ---------------------------- */

/* The budget plot's panels (one per trace) and the legend strip under them. */
#define AUTO_PANEL_W_PX 520
#define AUTO_PANEL_H_PX 380
#define AUTO_TITLE_H_PX 70
#define AUTO_LEGEND_H_PX 50

/* The four series of a panel: the arm of a cell each draws, its title and
 * its palette label (poll and block as the plans they are, so they match
 * the other plots), and how it is drawn. */
#define AUTO_SERIES 4
static const char *const auto_series_title[AUTO_SERIES] = { "auto", "best fixed", "poll",
                                                            "block" };
static const char *const auto_series_label[AUTO_SERIES] = { "auto", "best fixed arm", "poll",
                                                            "block" };
static const char *const auto_series_draw[AUTO_SERIES] = {
    "linespoints lw 2 pt 7 ps 1.2", "linespoints lw 2 pt 5 ps 1.1", "lines lw 1.5",
    "lines lw 1.5"
};

static const gar_arm_summary *auto_series_arm(const gar_auto_cell *c, int k)
{
    const gar_arm_summary *arm[AUTO_SERIES] = { c->autoa, c->best, c->poll, c->block };
    return arm[k];
}

static bool same_auto_plot(const gar_auto_cell *a, const gar_auto_cell *b)
{
    return strcmp(a->any->host, b->any->host) == 0 && strcmp(a->any->mode, b->any->mode) == 0;
}

static int by_budget(const void *a, const void *b)
{
    const gar_auto_cell *const *p = a, *const *q = b;
    return ((*p)->budget_ns > (*q)->budget_ns) - ((*p)->budget_ns < (*q)->budget_ns);
}

/* The cells of the plot of `c0`'s host and mode on trace `trace`, by
 * budget, into `out` (room for g->cells).  Returns their count. */
static size_t auto_panel_cells(const gar_auto_goals *g, const gar_auto_cell *c0,
                               const char *trace, const gar_auto_cell **out)
{
    size_t n = 0;
    for (size_t i = 0; i < g->cells; i++)
        if (same_auto_plot(&g->cell[i], c0) && strcmp(g->cell[i].any->trace, trace) == 0)
            out[n++] = &g->cell[i];
    qsort(out, n, sizeof *out, by_budget);
    return n;
}

/* The data file: one block per trace (its cells by budget), each busy CPU
 * that trace's own; never a mean over traces, which would set unlike
 * workloads' figures against one another.  Returns the traces written
 * (their first cells in `firsts`: room for g->cells). */
static size_t auto_write_data(const gar_auto_goals *g, const gar_auto_cell *c0, FILE *dat,
                              const gar_auto_cell **cells, const gar_auto_cell **firsts)
{
    fprintf(dat, "# gar plot data: auto:p99_us=B against the fixed plans on host %s (%s).\n"
                 "# One block per trace; busy CPU in %% of wait time, that trace's own\n"
                 "# ('?': no arm; below %g %% drawn at that floor on the log axis).\n"
                 "# budget_us auto best_fixed poll block\n",
            c0->any->host, c0->any->mode, LOG_FLOOR_PERCENT);
    size_t traces = 0;
    for (size_t i = 0; i < g->cells; i++) {
        const gar_auto_cell *c = &g->cell[i];
        bool seen = !same_auto_plot(c, c0);
        for (size_t t = 0; t < traces && !seen; t++)
            seen = strcmp(firsts[t]->any->trace, c->any->trace) == 0;
        if (seen)
            continue;
        firsts[traces++] = c;
        size_t n = auto_panel_cells(g, c0, c->any->trace, cells);
        fprintf(dat, "# trace %s\n", c->any->trace_short);
        for (size_t k = 0; k < n; k++) {
            fprintf(dat, "%.3f", (double)cells[k]->budget_ns / 1e3);
            for (int s = 0; s < AUTO_SERIES; s++) {
                const gar_arm_summary *a = auto_series_arm(cells[k], s);
                if (a != NULL)
                    fprintf(dat, " %.9g", floor_percent(100.0 * a->busy_frac));
                else
                    fprintf(dat, " ?");
            }
            fprintf(dat, "\n");
        }
        fprintf(dat, "\n\n");
    }
    return traces;
}

/* One auto-HOST-MODE plot: a panel per trace, the legend in a strip. */
static int auto_plot_one(const gar_auto_goals *g, const gar_auto_cell *c0, const char *dir,
                         gar_plot_files *files, gar_error *err)
{
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "auto-%s-%s", c0->any->host_short, c0->any->mode);
    plot_files pf;
    name_plot(&pf, base);
    const gar_auto_cell **cells = malloc(2 * g->cells * sizeof *cells);
    if (cells == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for an auto plot", "exhausted");
    const gar_auto_cell **firsts = cells + g->cells;
    FILE *dat = open_in(dir, pf.dat, pf.dat_path, sizeof pf.dat_path, err);
    if (dat == NULL) {
        free(cells);
        return -GAR_E_IO;
    }
    size_t traces = auto_write_data(g, c0, dat, cells, firsts);
    FILE *gp = script_after_data(dir, dat, &pf, err);
    if (gp == NULL) {
        free(cells);
        return -GAR_E_IO;
    }
    size_t cols = traces <= 1 ? 1 : traces <= 4 ? 2 : 3, rows = (traces + cols - 1) / cols;
    size_t width = AUTO_PANEL_W_PX * cols, height = AUTO_TITLE_H_PX + AUTO_PANEL_H_PX * rows +
                                                   AUTO_LEGEND_H_PX;
    double top = 1.0 - (double)AUTO_TITLE_H_PX / (double)height;
    double legend = (double)AUTO_LEGEND_H_PX / (double)height;
    double panel_h = (top - legend) / (double)rows;
    char host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(c0->any->host_short, host, sizeof host);
    fprintf(gp,
            "# gar plot: busy CPU against the p99 budget, auto beside the fixed plans,\n"
            "# one panel per trace.  Data: %s.  Re-draw: gnuplot %s\n"
            "set terminal pngcairo size %zu,%zu enhanced font 'Sans,11'\n"
            "set output '%s'\n"
            "set multiplot title \"auto against the fixed plans by p99 budget, host %s (%s)\\n"
            "{/*0.8 busy CPU on each trace; the best fixed arm is the ex-post cheapest "
            "within B}\" font ',13'\n"
            "set xlabel 'budget B (µs, p99 overshoot, log)'\n"
            "set ylabel 'busy CPU (%% of wait time, log)'\n"
            "set logscale xy\nset format x '%%g'\nset format y '%%g'\n"
            "set yrange [*:200]\nset datafile missing '?'\nset grid\nunset key\n",
            pf.dat, pf.gp, width, height, pf.png, host, c0->any->mode);
    for (size_t t = 0; t < traces; t++) {
        char title[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_single(firsts[t]->any->trace_short, title, sizeof title);
        fprintf(gp, "\nset origin %.6f,%.6f\nset size %.6f,%.6f\nset title '%s'\nplot ",
                (double)(t % cols) / (double)cols, top - (double)(t / cols + 1) * panel_h,
                1.0 / (double)cols, panel_h, title);
        for (int k = 0; k < AUTO_SERIES; k++) {
            gar_plot_style st = gar_plot_style_for(palette_of(files), auto_series_label[k]);
            fprintf(gp, "%s'%s' index %zu using 1:%d with %s dt %d lc rgb '%s' title '%s'",
                    k > 0 ? ", \\\n     " : "", pf.dat, t, k + 2, auto_series_draw[k], st.dash,
                    st.colour, auto_series_title[k]);
        }
        fprintf(gp, "\n");
    }
    fprintf(gp, "\n# The legend strip.\nset origin 0,0\nset size 1,%.6f\nset title ''\n"
                "unset border\nunset tics\nunset grid\nunset xlabel\nunset ylabel\n"
                "unset logscale\nset xrange [0:1]\nset yrange [0:1]\n"
                "set key center center horizontal box\nplot NaN notitle",
            legend);
    for (int k = 0; k < AUTO_SERIES; k++) {
        gar_plot_style st = gar_plot_style_for(palette_of(files), auto_series_label[k]);
        fprintf(gp, ", \\\n     keyentry with %s dt %d lc rgb '%s' title '%s'",
                auto_series_draw[k], st.dash, st.colour, auto_series_title[k]);
    }
    fprintf(gp, "\nunset multiplot\n");
    free(cells);
    return draw_and_list(dir, gp, &pf, files, "", c0->any->host, err,
                         "Host %s (%s): busy CPU against the p99 budget on each of its %zu "
                         "traces, for auto:p99_us=B, the ex-post best fixed arm within each "
                         "budget, poll and block.",
                         c0->any->host_short, c0->any->mode, traces);
}

void gar_plot_auto_palette(gar_plot_files *files)
{
    gar_plot_style_for(palette_of(files), auto_series_label[0]);
    gar_plot_style_for(palette_of(files), auto_series_label[1]);
}

int gar_plot_auto_budgets(const gar_auto_goals *g, const char *dir, gar_plot_files *files,
                          gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    gar_plot_auto_palette(files);
    for (size_t first = 0; first < g->cells && rc == 0; first++) {
        bool seen = false; /* the host and mode drawn already */
        for (size_t j = 0; j < first && !seen; j++)
            seen = same_auto_plot(&g->cell[j], &g->cell[first]);
        if (!seen)
            rc = auto_plot_one(g, &g->cell[first], dir, files, err);
    }
    return rc;
}
