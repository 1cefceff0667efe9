/* experiments/cli/verify_setup.h — what `gar verify` readies before it runs
 * anything (verify_setup.c), for one trace and for --sweep alike: the host
 * profile the simulator is given and the executor kind the real waits run
 * on.  The command composes calibrate and verify here: verify/ itself
 * never calibrates. */
#ifndef GAR_CLI_VERIFY_SETUP_H
#define GAR_CLI_VERIFY_SETUP_H

#include <gar/caps.h>
#include <gar/error.h>
#include <gar/executor_kind.h>

#include "sim/host_profile.h"

/* Samples per distribution of a calibration on the spot (no --host). */
#define GAR_CLI_VERIFY_CALIBRATE_SAMPLES 1000u

/* Loads the host profile: the file given ("-": standard input; a bundled
 * "data/..." name: the installed one), or, `path` NULL, this host
 * calibrated now; *noisy gets how many of its measurements' calibration
 * rounds disagreed.  Returns 0 or the refusal. */
int gar_cli_verify_load_profile(const char *path, gar_host_profile *out, unsigned *noisy,
                                gar_error *err);

/* Parses and resolves --executor against `caps` as `gar executor` does (never
 * strict).  Returns 0 (runs as asked), 1 (fell back: `report` holds warning
 * 3), or the refusal's code with `report` filled. */
int gar_cli_verify_resolve_executor(const char *text, const gar_caps *caps,
                                    gar_executor_kind *running, gar_error *report);

#endif
