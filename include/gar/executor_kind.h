/* gar/executor_kind.h — which executor runs the waits: a declared setting,
 * resolved once at start-up against the host's capabilities.
 *
 *   naive        the wait runs inline on the waiting thread (blocking sleep,
 *                then blocking park or poll); runs anywhere.
 *   gpu-reactor  the wait is a task of gar's executor, whose idle sleeps to
 *                the earliest predicted deadline and then parks on the
 *                completion line; needs word-wait.
 *   io-uring     the gpu-reactor with its deadline sleep an io_uring timeout
 *                in ns; needs io-uring, and word-wait as gpu-reactor does.
 *
 * The declared chain is io-uring -> gpu-reactor -> naive: a kind needs what
 * its successor needs plus its own capability, and a kind that cannot run
 * hands over to its successor. */
#ifndef GAR_EXECUTOR_KIND_H
#define GAR_EXECUTOR_KIND_H

#include <stdbool.h>

#include <gar/api.h>
#include <gar/caps.h>
#include <gar/error.h>

typedef enum gar_executor_kind {
    GAR_EXECUTOR_NAIVE,
    GAR_EXECUTOR_GPU_REACTOR,
    GAR_EXECUTOR_IO_URING,
} gar_executor_kind;

/* The accepted spellings, as refusals list them. */
#define GAR_EXECUTOR_NAMES "naive, gpu-reactor, io-uring"

/* Parses a spelling, exactly (no case folding, no white space).  Returns 0,
 * or -GAR_E_INVALID_EXECUTOR (the text, GAR_EXECUTOR_NAMES); NULL `text` or
 * `out`: -GAR_E_INVALID_ARGUMENT. */
GAR_API int gar_executor_kind_parse(const char *text, gar_executor_kind *out, gar_error *err);

/* The spelling of a kind ("gpu-reactor"), or "?" for a value not a kind. */
GAR_API const char *gar_executor_kind_name(gar_executor_kind kind);

/* Walks the chain once from `requested` and writes the kind that runs.
 * Returns:
 *   0  it runs as requested; `report` cleared;
 *   1  it falls back; `report` holds warning GAR_W_EXECUTOR_FALLBACK
 *      (requested, why, running);
 *  -GAR_E_EXECUTOR_REFUSED  it cannot run as requested and `strict` is set
 *      (requested, why); `*running` untouched.
 * `why` names each capability the requested kind lacks, in chain order, with
 * the caps' reason: "no io-uring: REASON; no word-wait: REASON".
 * -GAR_E_INVALID_ARGUMENT for a NULL pointer or a value not a kind. */
GAR_API int gar_executor_kind_resolve(gar_executor_kind requested, const gar_caps *caps, bool strict,
                                      gar_executor_kind *running, gar_error *report);

#endif
