/* backends/interpose/run_log.c — the per-process log of libgar-sync.so; see
 * run_log.h. */
#define _GNU_SOURCE
#include "run_log.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static bool log_failed;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void flush_log(void)
{
    pthread_mutex_lock(&log_mu);
    if (log_file)
        fflush(log_file);
    pthread_mutex_unlock(&log_mu);
}

static void before_fork(void)
{
    pthread_mutex_lock(&log_mu);
    if (log_file)
        fflush(log_file);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&log_mu);
}

/* The child writes its own file: the parent's buffer was flushed before the
 * fork, so closing the inherited stream writes nothing twice. */
static void after_fork_child(void)
{
    if (log_file)
        fclose(log_file);
    log_file = NULL;
    log_failed = false;
    pthread_mutex_unlock(&log_mu);
}

static void install_hooks(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    atexit(flush_log);
}

/* Opens this process's file; with log_mu held. */
static FILE *open_log(void)
{
    if (log_file || log_failed)
        return log_file;
    const char *dir = getenv("GAR_RUN_DIR");
    if (!dir || !*dir) {
        log_failed = true;
        return NULL;
    }
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%ld.log", dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof path || !(log_file = fopen(path, "we"))) {
        log_failed = true;
        return NULL;
    }
    fprintf(log_file, "# gar-sync-log v2 pid=%ld\n", (long)getpid());
    return log_file;
}

void gar_run_log_wait(const gar_run_log_row *r)
{
    pthread_once(&hooks_once, install_hooks);
    pthread_mutex_lock(&log_mu);
    FILE *f = open_log();
    if (f)
        fprintf(f, "w,%s,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%s,%" PRIu64 ",%s%s%s\n",
                r->call, r->stream, r->thread, r->start_ns, r->end_ns, r->done_ns, r->cpu_ns,
                r->how, r->slept_ns, r->path, r->path_why ? "/" : "",
                r->path_why ? r->path_why : "");
    pthread_mutex_unlock(&log_mu);
}

void gar_run_log_note(const char *key, const char *text)
{
    pthread_once(&hooks_once, install_hooks);
    pthread_mutex_lock(&log_mu);
    FILE *f = open_log();
    if (f) {
        fprintf(f, "n,%s,", key);
        for (const char *c = text; *c; c++)
            fputc(*c == '\n' ? ' ' : *c, f);
        fputc('\n', f);
    }
    pthread_mutex_unlock(&log_mu);
}
