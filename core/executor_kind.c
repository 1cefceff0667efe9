/* core/executor_kind.c — executor kinds: spellings and the declared chain. */
#include <gar/executor_kind.h>

#include <string.h>

#include "text.h"

/* The chain as data: each kind, the capability it adds to its successor's
 * needs (NULL: none), and the successor (itself at the end of the chain). */
typedef struct kind_step {
    const char *name;
    const char *needs;
    gar_executor_kind next;
} kind_step;

static const kind_step chain[] = {
    [GAR_EXECUTOR_NAIVE] = { "naive", NULL, GAR_EXECUTOR_NAIVE },
    [GAR_EXECUTOR_GPU_REACTOR] = { "gpu-reactor", GAR_CAP_WORD_WAIT, GAR_EXECUTOR_NAIVE },
    [GAR_EXECUTOR_IO_URING] = { "io-uring", GAR_CAP_IO_URING, GAR_EXECUTOR_GPU_REACTOR },
};
#define KIND_COUNT (sizeof chain / sizeof chain[0])

static bool is_kind(gar_executor_kind kind)
{
    return (unsigned)kind < KIND_COUNT;
}

const char *gar_executor_kind_name(gar_executor_kind kind)
{
    return is_kind(kind) ? chain[kind].name : "?";
}

int gar_executor_kind_parse(const char *text, gar_executor_kind *out, gar_error *err)
{
    if (text == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_executor_kind_parse",
                             text == NULL ? "text" : "out", "is NULL");
    for (unsigned i = 0; i < KIND_COUNT; i++) {
        if (strcmp(text, chain[i].name) == 0) {
            *out = (gar_executor_kind)i;
            return 0;
        }
    }
    return gar_error_set(err, GAR_E_INVALID_EXECUTOR, 2, text, GAR_EXECUTOR_NAMES);
}

/* Puts "no CAP: REASON" for each capability `kind` needs and `caps` lacks,
 * "; " between them, following the chain down to its end.  Returns how many. */
static unsigned put_missing(gar__text_out *out, gar_executor_kind kind, const gar_caps *caps)
{
    unsigned missing = 0;
    for (;;) {
        const kind_step *step = &chain[kind];
        const char *why = NULL;
        if (step->needs != NULL && !gar_caps_has(caps, step->needs, &why)) {
            if (missing++ > 0)
                gar__text_puts(out, "; ");
            gar__text_puts(out, "no ");
            gar__text_puts(out, step->needs);
            gar__text_puts(out, ": ");
            gar__text_puts(out, why);
        }
        if (step->next == kind)
            return missing;
        kind = step->next;
    }
}

int gar_executor_kind_resolve(gar_executor_kind requested, const gar_caps *caps, bool strict,
                              gar_executor_kind *running, gar_error *report)
{
    if (caps == NULL || running == NULL)
        return gar_error_set(report, GAR_E_INVALID_ARGUMENT, 3, "gar_executor_kind_resolve",
                             caps == NULL ? "caps" : "running", "is NULL");
    if (!is_kind(requested))
        return gar_error_set(report, GAR_E_INVALID_ARGUMENT, 3, "gar_executor_kind_resolve",
                             "requested", "is not an executor kind");

    char why[2 * GAR_ERROR_ARG_BYTES]; /* longer than a record keeps, so it marks a cut */
    gar__text_out out = gar__text_out_make(why, sizeof why);
    if (put_missing(&out, requested, caps) == 0) {
        *running = requested;
        gar_error_clear(report);
        return 0;
    }
    if (strict)
        return gar_error_set(report, GAR_E_EXECUTOR_REFUSED, 2, chain[requested].name, why);

    gar_executor_kind kind = chain[requested].next;
    gar__text_out discard = gar__text_out_make(NULL, 0);
    while (put_missing(&discard, kind, caps) > 0)
        kind = chain[kind].next;
    *running = kind;
    gar_error_set(report, GAR_W_EXECUTOR_FALLBACK, 3, chain[requested].name, why, chain[kind].name);
    return 1;
}
