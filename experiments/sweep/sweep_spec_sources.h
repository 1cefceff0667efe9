/* experiments/sweep/sweep_spec_sources.h — loading the hosts a spec names
 * (sweep_spec_sources.c, which also owns gar_sweep_trace_load and
 * gar_sweep_trace_free of sweep_spec.h).  For experiments/sweep/sweep_spec*.c
 * only. */
#ifndef GAR_SWEEP_SPEC_SOURCES_H
#define GAR_SWEEP_SPEC_SOURCES_H

#include <stddef.h>

#include <gar/error.h>

#include "sweep/sweep_spec.h"

/* A profile read from standard input, kept for every `host -` of the spec:
 * standard input can be read only once. */
typedef struct stdin_profile {
    char *text; /* NULL until read */
    size_t len;
} stdin_profile;

/* Frees what a host holds and clears it. */
void gar_spec_host_free(gar_sweep_host *h);

/* Loads the host of a spec's `host` value `text` (a profile file, "-", or
 * either with "@what-if" factors) given on FILE:LINE into `*out`.  Returns
 * 0 (gar_spec_host_free it) or the refusal, located. */
int gar_spec_host_load(const char *text, const char *base_dir, const char *file, unsigned line,
                       stdin_profile *from_stdin, gar_sweep_host *out, gar_error *err);

#endif
