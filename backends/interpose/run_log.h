/* backends/interpose/run_log.h — where libgar-sync.so writes what it did:
 * one file per process, GAR_RUN_DIR/PID.log, read by `gar run` once the
 * program exited (experiments/run/run_logs.h reads it).
 *
 * The format (gar-sync-log v1) is private to the two: text lines,
 *   # gar-sync-log v2 pid=PID
 *   n,KEY,TEXT                    a note: the plan, a fallback of the plan
 *   w,CALL,STREAM,THREAD,START_NS,END_NS,DONE_NS,CPU_NS,HOW,SLEPT_NS,PATH
 * one w line per wait: the call, the process's stream number, the thread's
 * ordinal, the wait's start and end and the work's completion (0: unknown)
 * on CLOCK_MONOTONIC, the waiting thread's CPU time over the wait, and HOW:
 * the way a taken-over wait ended (immediate, poll, flag, block, query,
 * failed), "baseline" for a sampled wait left to the real call, or the
 * reason it was not taken over; PATH the way it waited: "mapped" (the mapped
 * line), "query" (status query), "query/WHY" (status query because of WHY,
 * mapped_lines.h's texts) or "real" (the real call).  v1 lines, without
 * PATH, are read as of an unknown path.
 *
 * Thread-safe (one lock, held for a line); after fork the child writes its
 * own file.  Without GAR_RUN_DIR nothing is written.  The file is flushed at
 * exit and before a fork. */
#ifndef GAR_RUN_LOG_H
#define GAR_RUN_LOG_H

#include <stdint.h>

typedef struct gar_run_log_row {
    const char *call;
    uint32_t stream;
    uint32_t thread;
    uint64_t start_ns, end_ns, done_ns, cpu_ns;
    const char *how;
    uint64_t slept_ns;
    const char *path;     /* "mapped", "query" or "real" */
    const char *path_why; /* why "query", or NULL */
} gar_run_log_row;

void gar_run_log_wait(const gar_run_log_row *row);
void gar_run_log_note(const char *key, const char *text);

#endif
