/* experiments/run/run_logs.c — reading libgar-sync.so's logs; see
 * run_logs.h. */
#define _POSIX_C_SOURCE 200809L
#include "run/run_logs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_BYTES 1024

/* The index of `text` in `table`, added when new; the last slot when full. */
static uint8_t intern(char (*table)[GAR_RUN_TEXT_BYTES], unsigned *count, unsigned max,
                      const char *text)
{
    for (unsigned i = 0; i < *count; i++)
        if (strcmp(table[i], text) == 0)
            return (uint8_t)i;
    if (*count == max) {
        snprintf(table[max - 1], GAR_RUN_TEXT_BYTES, "other");
        return (uint8_t)(max - 1);
    }
    snprintf(table[*count], GAR_RUN_TEXT_BYTES, "%s", text);
    return (uint8_t)(*count)++;
}

static int push(gar_run_logs *logs, const gar_run_wait *w)
{
    if (logs->count == logs->capacity) {
        size_t cap = logs->capacity ? logs->capacity * 2 : 1024;
        gar_run_wait *grown = realloc(logs->wait, cap * sizeof *grown);
        if (!grown)
            return -1;
        logs->wait = grown;
        logs->capacity = cap;
    }
    logs->wait[logs->count++] = *w;
    return 0;
}

/* The PATH field of a v2 line into `w`; false when it is none of them. */
static bool parse_path(gar_run_logs *logs, const char *text, gar_run_wait *w)
{
    w->path_why = GAR_RUN_NO_REASON;
    if (strcmp(text, "mapped") == 0)
        w->path = GAR_RUN_PATH_MAPPED;
    else if (strcmp(text, "real") == 0)
        w->path = GAR_RUN_PATH_REAL;
    else if (strncmp(text, "query", 5) == 0 && (text[5] == '\0' || text[5] == '/')) {
        w->path = GAR_RUN_PATH_QUERY;
        if (text[5] == '/' && text[6])
            w->path_why = intern(logs->reasons, &logs->reason_count, GAR_RUN_REASONS_MAX, text + 6);
    } else
        return false;
    return true;
}

/* One "w," line into `w` (v1: 9 fields, v2: 10); false when it is not whole. */
static bool parse_wait(gar_run_logs *logs, char *line, gar_run_wait *w)
{
    char *field[11];
    unsigned n = 0;
    for (char *save = NULL, *tok = strtok_r(line + 2, ",\n", &save); tok && n < 11;
         tok = strtok_r(NULL, ",\n", &save))
        field[n++] = tok;
    if (n != 9 && n != 10)
        return false;
    uint64_t v[7];
    unsigned numeric[7] = { 1, 2, 3, 4, 5, 6, 8 };
    for (unsigned i = 0; i < 7; i++) {
        char *end;
        errno = 0;
        v[i] = strtoull(field[numeric[i]], &end, 10);
        if (errno || *end || end == field[numeric[i]])
            return false;
    }
    *w = (gar_run_wait){ .stream = (uint32_t)v[0], .thread = (uint32_t)v[1], .start_ns = v[2],
                         .end_ns = v[3], .done_ns = v[4], .cpu_ns = v[5], .slept_ns = v[6],
                         .path_why = GAR_RUN_NO_REASON };
    if (w->end_ns < w->start_ns || (n == 10 && !parse_path(logs, field[9], w)))
        return false;
    w->call = intern(logs->calls, &logs->call_count, GAR_RUN_CALLS_MAX, field[0]);
    const char *how = field[7];
    static const char *const taken[] = { "immediate", "poll", "flag", "block", "query",
                                         "failed" };
    w->how = GAR_RUN_FALLBACK;
    for (unsigned i = 0; i < sizeof taken / sizeof *taken; i++)
        if (strcmp(how, taken[i]) == 0)
            w->how = GAR_RUN_TAKEN;
    w->failed = strcmp(how, "failed") == 0;
    w->immediate = strcmp(how, "immediate") == 0;
    if (strcmp(how, "baseline") == 0)
        w->how = GAR_RUN_BASELINE;
    if (w->how == GAR_RUN_FALLBACK)
        w->reason = intern(logs->reasons, &logs->reason_count, GAR_RUN_REASONS_MAX, how);
    return true;
}

static void parse_note(gar_run_logs *logs, const char *line)
{
    const char *text = strchr(line + 2, ',');
    if (!text)
        return;
    size_t key_len = (size_t)(text - (line + 2));
    text++;
    size_t len = strcspn(text, "\n");
    if (key_len == 4 && strncmp(line + 2, "plan", 4) == 0 && !logs->plan[0])
        snprintf(logs->plan, sizeof logs->plan, "%.*s", (int)len, text);
    else if (!logs->plan_note[0])
        snprintf(logs->plan_note, sizeof logs->plan_note, "%.*s", (int)len, text);
}

static int read_file(gar_run_logs *logs, FILE *in, uint32_t process)
{
    char line[LINE_BYTES];
    while (fgets(line, sizeof line, in)) {
        bool whole = strchr(line, '\n') != NULL;
        if (line[0] == '#')
            continue;
        if (!whole) {
            logs->skipped_lines++;
            continue;
        }
        if (strncmp(line, "n,", 2) == 0) {
            parse_note(logs, line);
            continue;
        }
        gar_run_wait w;
        if (strncmp(line, "w,", 2) != 0 || !parse_wait(logs, line, &w)) {
            logs->skipped_lines++;
            continue;
        }
        w.process = process;
        if (push(logs, &w) < 0)
            return -1;
    }
    return 0;
}

static int by_pid(const void *a, const void *b)
{
    long x = atol(*(char *const *)a), y = atol(*(char *const *)b);
    return (x > y) - (x < y);
}

int gar_run_logs_read(gar_run_logs *out, const char *dir, gar_error *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d)
        return gar_error_set(err, GAR_E_IO, 3, dir, "opendir", strerror(errno));
    char *names[4096];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 4096;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".log") == 0 && (names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_pid);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *in = fopen(path, "r");
        if (in && rc == 0) {
            if (read_file(out, in, out->processes) < 0)
                rc = gar_error_set(err, GAR_E_CAPACITY, 2, "the run's waits", "memory");
            out->processes++;
        }
        if (in)
            fclose(in);
        free(names[i]);
    }
    if (rc < 0)
        gar_run_logs_free(out);
    return rc;
}

void gar_run_logs_free(gar_run_logs *logs)
{
    free(logs->wait);
    logs->wait = NULL;
    logs->count = logs->capacity = 0;
}
