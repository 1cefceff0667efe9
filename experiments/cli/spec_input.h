/* experiments/cli/spec_input.h — a sweep spec as a verb's command line names
 * it: a file, or "-" for standard input.
 *
 * A spec read from standard input is named "standard input" in messages
 * (and in their "FILE:LINE"), and the relative paths in it (traces, host
 * profiles) are taken from the working directory, as it has no folder of
 * its own.  A file is read by gar_sweep_spec_load / gar_sweep_size_load,
 * its relative paths from its folder. */
#ifndef GAR_CLI_SPEC_INPUT_H
#define GAR_CLI_SPEC_INPUT_H

#include <stdbool.h>

#include <gar/error.h>

#include "sweep_spec.h"

/* True when `arg` names standard input ("-"). */
bool gar_cli_is_stdin(const char *arg);

/* As gar_sweep_spec_load, `arg` "-" reading standard input to its end (at
 * most GAR_SWEEP_FILE_MAX bytes: a longer one is refused with
 * InvalidArgument 9; a read that fails, Io 12).  Returns 0 with `out`
 * filled (free it with gar_sweep_spec_free), or the refusal. */
int gar_cli_sweep_spec_load(const char *arg, gar_sweep_spec *out, gar_error *err);

/* As gar_sweep_size_load, with standard input as above.  Returns 0 with
 * `out` filled (free it with gar_sweep_size_free), or the refusal. */
int gar_cli_sweep_size_load(const char *arg, gar_sweep_size *out, gar_error *err);

#endif
