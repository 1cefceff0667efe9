/* experiments/cli/replay_output.h — what `gar replay` prints
 * (replay_output.c), once the run is over: a text table of the metrics,
 * their intervals and notes, then the busiest streams; or the same as one
 * JSON object.  All of it on standard output. */
#ifndef GAR_CLI_REPLAY_OUTPUT_H
#define GAR_CLI_REPLAY_OUTPUT_H

#include <stdbool.h>

#include "sim/replay.h"
#include "sim/replay_notes.h"

/* What the run was given, as the output names it. */
typedef struct gar_cli_replay_run {
    const char *trace;
    const char *host;
    const char *mode;
    unsigned long long seed;
} gar_cli_replay_run;

/* The metrics (`m`), their intervals and the notes as a text table. */
void gar_cli_replay_print_table(const gar_cli_replay_run *a, const char *plan_label,
                                const char *est_label, const gar_replay_metrics *m,
                                const gar_replay_notes *notes);

/* The per-stream table, when the trace has more than one stream: the ten
 * with the most waits.  Returns false when memory for the ordering runs out
 * (nothing printed). */
bool gar_cli_replay_print_streams(const gar_replay_streams *streams);

/* Everything as one JSON object, the streams included.  Returns the exit
 * status. */
int gar_cli_replay_print_json(const gar_cli_replay_run *a, const char *plan_label,
                              const char *est_label, const gar_replay_metrics *m,
                              const gar_replay_streams *streams, const gar_replay_notes *notes);

#endif
