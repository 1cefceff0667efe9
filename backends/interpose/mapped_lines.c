/* backends/interpose/mapped_lines.c — each waiting thread's mapped lines and
 * ports, and the pool of lines whose threads exited; see mapped_lines.h. */
#define _GNU_SOURCE
#include "mapped_lines.h"

#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define LINES_PER_THREAD 4u /* devices a thread waits on by mapped line */
#define POOL_MAX 64u        /* lines kept for later threads; more are released */

typedef struct thread_line {
    const gar_mapped_ops *ops;
    const void *drv;
    int ordinal;
    gar_mapped_line line;
    gar_mapped_port ports[GAR_LINE_WORDS];
    void *streams[GAR_LINE_WORDS];
    uint64_t used[GAR_LINE_WORDS]; /* 0: the slot is free */
} thread_line;

typedef struct mapped_thread {
    pid_t pid;
    /* In a forked child: the parent's record, never used, kept reachable
     * (it and its lines are the parent's to free, not ours). */
    struct mapped_thread *inherited;
    thread_line *lines[LINES_PER_THREAD];
    unsigned count;
    uint64_t tick;
} mapped_thread;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static bool key_ok;
static _Thread_local mapped_thread *mine;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static thread_line *pool[POOL_MAX];
static unsigned pool_count;

static int read_generation(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *(unsigned long long *)out = info->dlpi_adds * 1000003ull + info->dlpi_subs;
    return 1;
}

unsigned long long gar_sync_dl_generation(void)
{
    unsigned long long generation = 0;
    dl_iterate_phdr(read_generation, &generation);
    return generation;
}

static void unbind_all(thread_line *tl)
{
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++)
        if (tl->used[i]) {
            gar_mapped_port_fini(&tl->ports[i]);
            tl->used[i] = 0;
            tl->streams[i] = NULL;
        }
}

/* A thread's exit: its lines go to the pool (or, past POOL_MAX, are
 * released: that settles the device, rare enough to pay for). */
static void retire_thread(void *state)
{
    mapped_thread *t = state;
    if (t->pid == getpid()) {
        for (unsigned i = 0; i < t->count; i++) {
            thread_line *tl = t->lines[i];
            unbind_all(tl);
            pthread_mutex_lock(&pool_mu);
            bool kept = pool_count < POOL_MAX;
            if (kept)
                pool[pool_count++] = tl;
            pthread_mutex_unlock(&pool_mu);
            if (!kept) {
                if (gar_mapped_line_release(&tl->line, NULL) == 0)
                    free(tl); /* a leaked line keeps its page, and so its record */
            }
        }
    }
    if (mine == t)
        mine = NULL;
    free(t);
}

static void lock_pool(void)
{
    pthread_mutex_lock(&pool_mu);
}

static void unlock_pool(void)
{
    pthread_mutex_unlock(&pool_mu);
}

/* The child forgets the parent's pooled lines: their pages are mapped into
 * the parent's device context, not the child's. */
static void forget_pool(void)
{
    pool_count = 0;
    pthread_mutex_unlock(&pool_mu);
}

static void set_up(void)
{
    key_ok = pthread_key_create(&thread_key, retire_thread) == 0;
    pthread_atfork(lock_pool, unlock_pool, forget_pool);
}

/* The calling thread's record, made on first use and made anew in a forked
 * child (the parent's is left alone: nothing of it is valid here). */
static mapped_thread *this_thread(void)
{
    pthread_once(&once, set_up);
    if (mine && mine->pid == getpid())
        return mine;
    mapped_thread *t = calloc(1, sizeof *t);
    if (!t || !key_ok) {
        free(t);
        return NULL;
    }
    t->pid = getpid();
    t->inherited = mine;
    if (pthread_setspecific(thread_key, t) != 0) {
        free(t);
        return NULL;
    }
    mine = t;
    return t;
}

static thread_line *from_pool(const gar_mapped_ops *ops, const void *drv, int ordinal)
{
    thread_line *found = NULL;
    pthread_mutex_lock(&pool_mu);
    for (unsigned i = 0; i < pool_count && !found; i++)
        if (pool[i]->ops == ops && pool[i]->drv == drv && pool[i]->ordinal == ordinal) {
            found = pool[i];
            pool[i] = pool[--pool_count];
        }
    pthread_mutex_unlock(&pool_mu);
    return found;
}

/* The thread's line of (ops, drv, ordinal): its own, a pooled one, or a new
 * one; NULL when none can be had. */
static thread_line *line_of(mapped_thread *t, const gar_mapped_ops *ops, const void *drv,
                            int ordinal)
{
    for (unsigned i = 0; i < t->count; i++)
        if (t->lines[i]->ops == ops && t->lines[i]->drv == drv && t->lines[i]->ordinal == ordinal)
            return t->lines[i];
    if (t->count == LINES_PER_THREAD)
        return NULL;
    thread_line *tl = from_pool(ops, drv, ordinal);
    if (!tl) {
        tl = calloc(1, sizeof *tl);
        if (!tl)
            return NULL;
        gar_error err = { 0 };
        if (gar_mapped_line_create(&tl->line, ops, drv, ordinal, &err) < 0) {
            free(tl);
            return NULL;
        }
        tl->ops = ops;
        tl->drv = drv;
        tl->ordinal = ordinal;
    }
    t->lines[t->count++] = tl;
    return tl;
}

/* The slot `stream` holds, else a free one, else the least recently used. */
static unsigned slot_for(const thread_line *tl, void *stream, bool *bound)
{
    unsigned pick = 0;
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++) {
        if (tl->used[i] && tl->streams[i] == stream) {
            *bound = true;
            return i;
        }
        if (tl->used[i] < tl->used[pick])
            pick = i;
    }
    *bound = false;
    return pick;
}

void gar_sync_mapped_route(const gar_mapped_ops *ops, const void *drv, int ordinal,
                           void *stream, gar_idle idle, gar_sync_route *out)
{
    *out = (gar_sync_route){ .path = GAR_SYNC_QUERY, .why = GAR_SYNC_NO_LINE };
    mapped_thread *t = this_thread();
    thread_line *tl = t ? line_of(t, ops, drv, ordinal) : NULL;
    if (!tl)
        return;
    bool bound;
    unsigned i = slot_for(tl, stream, &bound);
    if (!bound) {
        if (tl->used[i])
            gar_mapped_port_fini(&tl->ports[i]);
        tl->used[i] = 0;
        gar_slot slot;
        gar_error err = { 0 };
        if (gar_slot_make(i, &slot, NULL) < 0)
            return;
        if (gar_mapped_port_init(&tl->ports[i], &tl->line, slot, stream, idle, &err) < 0) {
            if (gar_mapped_fault_of(&err) == GAR_MAPPED_FAULT_FOREIGN_STREAM)
                *out = (gar_sync_route){ .path = GAR_SYNC_PASS, .why = GAR_SYNC_OTHER_CONTEXT };
            return;
        }
        tl->streams[i] = stream;
    }
    tl->used[i] = ++t->tick;
    *out = (gar_sync_route){ .path = GAR_SYNC_MAPPED, .port = gar_mapped_port_port(&tl->ports[i]) };
}
