/* experiments/cli/verb_verify.h — the parts of `gar verify` its two files
 * share: the options read (verb_verify.c, which also runs one trace and
 * --trace-of-run) and --sweep (verb_verify_sweep.c); what both ready
 * before running is verify_setup.h.  For experiments/cli/
 * verb_verify*.c only. */
#ifndef GAR_CLI_VERB_VERIFY_H
#define GAR_CLI_VERB_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "verify/verify_stats.h"

/* The options and operands, as parse_args read them. */
typedef struct gar_cli_verify_args {
    const char *trace_path;
    const char *plan_text;
    const char *estimator_text;
    const char *device;
    const char *executor_text;
    const char *host_path;
    uint64_t seed;
    bool json;
    gar_verify_tolerance tol;
    const char *sweep_path; /* --sweep: verify every arm of this spec */
    const char *db_path;
    uint64_t limit;         /* --sweep: waits per trace */
    unsigned runs;          /* --runs: real runs of the one trace */
    const char *of_run;     /* --trace-of-run: a trace gar run recorded */
} gar_cli_verify_args;

/* `gar verify --sweep SPEC --db DB`: every arm verified and stored, a line
 * each, then the totals.  Returns the exit status. */
int gar_cli_verify_sweep(const gar_cli_verify_args *a);

#endif
