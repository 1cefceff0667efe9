/* experiments/run/run_logs.h — what a program run under `gar run` did: the
 * per-process logs libgar-sync.so wrote (backends/interpose/run_log.h says
 * their lines), read back into one list of waits.
 *
 * Processes are numbered 0, 1, ... in order of their pid's first wait; a
 * wait names its stream by the process's own number (0: device-wide or an
 * event's unknown stream).  A line the reader cannot take (a process killed
 * while writing it) is skipped and counted, never guessed at.
 *
 * Ownership: gar_run_logs owns its arrays; gar_run_logs_free releases them. */
#ifndef GAR_RUN_LOGS_H
#define GAR_RUN_LOGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#define GAR_RUN_REASONS_MAX 16u /* distinct reasons kept; more count as "other" */
#define GAR_RUN_CALLS_MAX 16u   /* distinct call names kept */
#define GAR_RUN_TEXT_BYTES 160u

typedef enum gar_run_how {
    GAR_RUN_TAKEN,    /* taken over: the plan waited */
    GAR_RUN_BASELINE, /* a sampled wait left to the real call, to measure its cost */
    GAR_RUN_FALLBACK, /* not taken over; `reason` says why */
} gar_run_how;

/* The way a wait waited (the log's PATH). */
typedef enum gar_run_path {
    GAR_RUN_PATH_UNKNOWN = 0, /* a v1 log line */
    GAR_RUN_PATH_MAPPED,      /* on the mapped line the stream writes */
    GAR_RUN_PATH_QUERY,       /* by status query */
    GAR_RUN_PATH_REAL,        /* the real call (a sampled or passed-through wait) */
} gar_run_path;

#define GAR_RUN_NO_REASON 0xffu

typedef struct gar_run_wait {
    uint32_t process, stream, thread;
    uint8_t call;    /* index into calls */
    uint8_t reason;  /* FALLBACK: index into reasons */
    uint8_t path;    /* gar_run_path */
    uint8_t path_why; /* PATH_QUERY: why not the mapped line, index into reasons;
                       * GAR_RUN_NO_REASON when the status query is the only path */
    gar_run_how how;
    bool failed;     /* taken over, and a query failed: the real call returned the error */
    bool immediate;  /* taken over, and the first query found the work done */
    uint64_t start_ns, end_ns, done_ns, cpu_ns, slept_ns; /* done 0: unknown */
} gar_run_wait;

typedef struct gar_run_logs {
    gar_run_wait *wait;
    size_t count, capacity;
    char calls[GAR_RUN_CALLS_MAX][GAR_RUN_TEXT_BYTES];
    unsigned call_count;
    char reasons[GAR_RUN_REASONS_MAX][GAR_RUN_TEXT_BYTES];
    unsigned reason_count;
    char plan[GAR_RUN_TEXT_BYTES];          /* the plan the library read ("" when none) */
    char plan_note[2 * GAR_RUN_TEXT_BYTES]; /* a fallback of the plan, or a refusal */
    unsigned processes;
    uint64_t skipped_lines;
} gar_run_logs;

/* Reads every *.log of `dir` into `out` (initialised here).  Returns 0, or
 * -GAR_E_IO (the folder unreadable) or -GAR_E_CAPACITY (out of memory),
 * with `out` empty. */
int gar_run_logs_read(gar_run_logs *out, const char *dir, gar_error *err);

void gar_run_logs_free(gar_run_logs *logs);

#endif
