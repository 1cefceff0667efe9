/* gar/sample.h — what one wait teaches the deadline estimator.
 *
 * Exact: the wait saw the work pending and then done `ns` after it started,
 * observed by a query, poll or park already running when the work finished.
 * Late: the first query after a sleep found the work done `ns` after the
 * start, an upper bound only.  None: nothing to learn (a blocking wait). */
#ifndef GAR_SAMPLE_H
#define GAR_SAMPLE_H

#include <gar/time.h>

typedef enum { GAR_SAMPLE_NONE, GAR_SAMPLE_EXACT, GAR_SAMPLE_LATE } gar_sample_kind;

typedef struct gar_sample {
    gar_sample_kind kind;
    gar_dur_ns ns;
} gar_sample;

#endif
