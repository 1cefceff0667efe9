/* experiments/sweep/progress.h — how far a long job has got, on stderr.
 *
 * On a terminal: one line redrawn in place at most ten times a second, with
 * a bar, the count, the rate and the time left.  Elsewhere (a log file, a
 * batch job): one plain line each time another tenth is done, so a log stays
 * short and readable. */
#ifndef GAR_PROGRESS_H
#define GAR_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct gar_progress {
    FILE *out;          /* NULL: report nothing */
    bool terminal;      /* redraw a bar in place */
    const char *what;   /* names the job ("sweep") */
    uint64_t total;
    double started_s;
    double drawn_s;     /* when the bar was last drawn */
    unsigned tenths;    /* tenths reported (plain lines) */
} gar_progress;

/* Monotonic seconds, for rates and timing. */
double gar_progress_now(void);

/* Starts reporting a job of `total` units.  `out` NULL reports nothing. */
void gar_progress_start(gar_progress *p, FILE *out, bool terminal, const char *what,
                        uint64_t total);

/* Says `done` units are finished. */
void gar_progress_update(gar_progress *p, uint64_t done);

/* Ends the report (ends the bar's line on a terminal). */
void gar_progress_finish(gar_progress *p, uint64_t done);

#endif
