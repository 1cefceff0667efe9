/* experiments/sweep/trace_cache.h — a long trace as one read-only binary
 * copy, mapped, for every worker of a sweep.
 *
 * A sweep replays one trace under hundreds of arms.  Parsing its text for
 * each would cost more than the runs, and holding the parsed rows costs 40
 * bytes a wait in the sweep's own memory.  The cache is the parsed trace
 * and its replay index (replay_index.h) in the layout they have in memory,
 * written once beside the text and mapped read-only: every worker thread
 * (and every later sweep, report or plot of the same trace) reads the same
 * pages, which the kernel shares and may drop and read back at will.
 *
 * The file, `.NAME.gar-cache` beside NAME (this machine's byte order and
 * row layout; not meant to travel):
 *
 *     header, 128 bytes: the magic "gar-trace-cache", a version, the row
 *       size and a byte-order mark; the text's FNV-1a hash and size in
 *       bytes (the key: content_hash.h, over the file as it is stored,
 *       gzip or plain); the rows, columns, streams and points; a
 *       checksum of the header's other bytes and of all that follows it
 *     the rows: gar_trace_row each
 *     each row's stream number, u32; then each row's point number, u32
 *     each stream number's id in the trace, u32
 *
 * A cache is used only when every part checks: the magic, version, row
 * size and byte order; the text's hash and size (a changed text makes it
 * stale); the file's size against the counts; the checksum (rows changed
 * in place, even within every rule, make it stale); every number within
 * its count; and the rows against every rule of trace.h.  Otherwise it is
 * built anew from the text (read as a stream, in bounded memory) and
 * replaces the old one atomically (atomic_file.h), so a reader never maps
 * half a cache; its temporary name carries its owner (leftover.h), and a
 * build finds and removes those of builds killed before their rename.
 * Where it cannot be written beside the text (a folder that cannot be
 * written, a full disk or quota, an I/O error), it is built in a private
 * temporary file (TMPDIR, else /tmp) that is unlinked once mapped; where
 * that fails too, there is no cache and the caller reads the text.
 *
 * Only regular files are opened, without waiting: a FIFO, device or
 * folder named as the text or standing where the cache goes is refused
 * (error 12, naming it), never waited on nor replaced.
 *
 * A file truncated while mapped would end the process with SIGBUS at the
 * next read past its new end: the mapping is guarded (sim/trace/mapped_guard.h),
 * such reads give zeros, and gar_trace_cache_intact then refuses it.
 *
 * Ownership: a gar_trace_cache owns its mapping; its trace and index point
 * into it and are never freed on their own.  Close it with
 * gar_trace_cache_close. */
#ifndef GAR_TRACE_CACHE_H
#define GAR_TRACE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sim/replay_index.h"
#include "sim/trace/trace.h"

/* How the cache was had. */
typedef enum gar_trace_cache_how {
    GAR_TRACE_CACHE_REUSED,  /* a good cache was there */
    GAR_TRACE_CACHE_BUILT,   /* there was none: built beside the text */
    GAR_TRACE_CACHE_REBUILT, /* there was one, stale or malformed: built anew */
    GAR_TRACE_CACHE_PRIVATE, /* it cannot be written beside the text: a private file */
    GAR_TRACE_CACHE_NONE,    /* nor privately: no cache (`map` NULL, the trace and
                              * index empty); read the text itself */
} gar_trace_cache_how;

typedef struct gar_trace_cache {
    void *map;           /* the mapping (owned) */
    size_t bytes;
    int guard;           /* the mapping's guarded range (sim/trace/mapped_guard.h) */
    char *path;          /* the cache's file, for errors (owned) */
    gar_trace trace;     /* rows in the mapping: read only, never gar_trace_free'd */
    gar_replay_index index; /* arrays in the mapping: never gar_replay_index_free'd */
    gar_trace_cache_how how;
} gar_trace_cache;

/* Maps the cache of the trace text at `text_path`, building it first when
 * it is missing, stale or malformed.  `cache_path` names the cache (NULL:
 * `.NAME.gar-cache` beside the text).  Returns 0 with `out` filled (or,
 * how GAR_TRACE_CACHE_NONE, empty), or (`out` empty) the reader's refusal
 * of the text (-GAR_E_INVALID_TRACE), -GAR_E_IO (the text unreadable or
 * not a regular file, something else than a file where the cache goes)
 * or -GAR_E_CAPACITY. */
int gar_trace_cache_open(gar_trace_cache *out, const char *text_path, const char *cache_path,
                         gar_error *err);

/* Whether the cache is still what was checked: 0, or -GAR_E_IO naming the
 * cache when another process truncated it while it was mapped, so that
 * what was read of it since (zeros past the cut) is not its content: a
 * reader asks after reading (after each replay), and refuses what it read. */
int gar_trace_cache_intact(const gar_trace_cache *cache, gar_error *err);

/* Unmaps it; the cache is empty after.  Accepts NULL and an empty cache. */
void gar_trace_cache_close(gar_trace_cache *cache);

/* The default cache path of `text_path`, allocated (gar_free it), or NULL
 * when memory runs out. */
char *gar_trace_cache_path(const char *text_path);

#endif
