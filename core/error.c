/* core/error.c — the registry of coded errors and the formatting of a record.
 *
 * Templates name their arguments {1}..{4}; the registry is indexed by number,
 * so a renumbering shows up as a failing test that pins every name.  A part
 * in brackets ("[: column {3}]", not nested) is shown only when every
 * argument it names is given and not empty, so a fault of a whole file is
 * not placed at a made-up line. */
#include <gar/error.h>

#include <string.h>

#include "text.h"

typedef struct gar_code_entry {
    const char *name;
    gar_code_kind kind;
    const char *template_text;
} gar_code_entry;

static const gar_code_entry registry[GAR_CODE_COUNT] = {
    [GAR_E_INVALID_PLAN] = { "InvalidPlan", GAR_KIND_ERROR, "invalid {1} '{2}': {3}" },
    [GAR_W_PARK_FALLBACK] = { "ParkFallback", GAR_KIND_WARNING,
                              "plan '{1}' needs {2}, which this host lacks ({3}); running '{4}'" },
    [GAR_W_EXECUTOR_FALLBACK] = { "ExecutorFallback", GAR_KIND_WARNING,
                                  "executor '{1}' cannot run here ({2}); running '{3}'" },
    [GAR_E_EXECUTOR_REFUSED] = { "ExecutorRefused", GAR_KIND_ERROR,
                                 "executor '{1}' cannot run here ({2}) and the setting is strict" },
    [GAR_E_INVALID_EXECUTOR] = { "InvalidExecutor", GAR_KIND_ERROR,
                                 "unknown executor '{1}' (accepted: {2})" },
    [GAR_E_PENDED_INLINE] = { "PendedInline", GAR_KIND_ERROR,
                              "an inline host returned pending at {1}" },
    [GAR_E_STALLED] = { "Stalled", GAR_KIND_ERROR,
                        "{1} task(s) left unfinished with nothing to wait on" },
    [GAR_E_BACKEND] = { "Backend", GAR_KIND_ERROR, "{1} failed: {2}" },
    [GAR_E_INVALID_ARGUMENT] = { "InvalidArgument", GAR_KIND_ERROR, "{1}: argument {2} {3}" },
    [GAR_E_CAPACITY] = { "CapacityExceeded", GAR_KIND_ERROR, "{1} is full (capacity {2})" },
    [GAR_E_USAGE] = { "Usage", GAR_KIND_ERROR, "{1}: {2}" },
    [GAR_E_IO] = { "Io", GAR_KIND_ERROR, "cannot {2} '{1}': {3}" },
    [GAR_E_INVALID_TRACE] = { "InvalidTrace", GAR_KIND_ERROR, "{1}[:{2}][: column {3}]: {4}" },
    [GAR_E_INVALID_ESTIMATOR] = { "InvalidEstimator", GAR_KIND_ERROR,
                                  "invalid estimator '{1}': {2}" },
    [GAR_E_INVALID_HOST_PROFILE] = { "InvalidHostProfile", GAR_KIND_ERROR, "{1}:{2}: {3}" },
    [GAR_E_WAIT_DEADLINE] = { "WaitDeadline", GAR_KIND_ERROR,
                              "{1} still pending at its deadline of {2}" },
    [GAR_E_DEVICE_FAULT] = { "DeviceFault", GAR_KIND_ERROR, "device fault: {1}" },
    [GAR_W_NOISY_CALIBRATION] = { "NoisyCalibration", GAR_KIND_WARNING,
                                  "calibration rounds disagree on {1}: {2} (bound: {3}); "
                                  "measure again on a quiet machine" },
    [GAR_W_AUTO_OVER_BUDGET] = { "AutoOverBudget", GAR_KIND_WARNING,
                                 "'{1}' is beyond this host: every park's own tail exceeds "
                                 "the budget on 1 % of waits or more ({2} of {3} waits), so "
                                 "those ran the park that exceeds it least, with a cautious "
                                 "sleep" },
    [GAR_E_OPS_VERSION] = { "OpsVersion", GAR_KIND_ERROR,
                            "{1}: the {2} table has version {3}, which this libgar does not "
                            "know (the newest it knows is {4})" },
    [GAR_W_AUTO_MISSED_BUDGET] = { "AutoMissedBudget", GAR_KIND_WARNING,
                                   "'{1}' missed its budget: the run's p99 overshoot, {2}, is "
                                   "above {3}[ ({4})]" },
};

bool gar_code_registered(int code)
{
    return code > 0 && code < GAR_CODE_COUNT && registry[code].name != NULL;
}

const char *gar_code_name(int code)
{
    return gar_code_registered(code) ? registry[code].name : NULL;
}

gar_code_kind gar_code_kind_of(int code)
{
    return gar_code_registered(code) ? registry[code].kind : GAR_KIND_ERROR;
}

void gar_error_clear(gar_error *err)
{
    if (err == NULL)
        return;
    err->code = GAR_OK;
    err->argc = 0;
}

/* Copies `text` into an argument slot, cutting it with "..." when too long. */
static void keep_argument(char slot[GAR_ERROR_ARG_BYTES], const char *text)
{
    size_t n = strlen(text);
    if (n < GAR_ERROR_ARG_BYTES) {
        memcpy(slot, text, n + 1);
        return;
    }
    size_t keep = GAR_ERROR_ARG_BYTES - 4;
    memcpy(slot, text, keep);
    memcpy(slot + keep, "...", 4);
}

int gar_error_setv(gar_error *err, gar_code code, unsigned argc, va_list ap)
{
    if (err != NULL) {
        err->code = code;
        err->argc = 0;
        for (unsigned i = 0; i < argc; i++) {
            const char *arg = va_arg(ap, const char *);
            if (i >= GAR_ERROR_ARGS_MAX)
                continue;
            keep_argument(err->argv[i], arg != NULL ? arg : "");
            err->argc = i + 1;
        }
    }
    return -(int)code;
}

int gar_error_set(gar_error *err, gar_code code, unsigned argc, ...)
{
    va_list ap;
    va_start(ap, argc);
    int rc = gar_error_setv(err, code, argc, ap);
    va_end(ap);
    return rc;
}

/* Puts an argument escaped (gar_error_show_bytes), so a message stays one
 * line of valid UTF-8 whatever bytes a user gave. */
static void put_argument(gar__text_out *out, const char *arg)
{
    gar__text_put_shown(out, arg, strlen(arg));
}

size_t gar_error_show_bytes(const char *bytes, size_t n, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (bytes != NULL)
        gar__text_put_shown(&out, bytes, n);
    return out.len;
}

/* The argument index of a "{N}" in a message template at p (before end), or -1. */
static int template_argument_at(const char *p, const char *end)
{
    if (end - p >= 3 && p[0] == '{' && p[1] >= '1' && p[1] <= '9' && p[2] == '}')
        return p[1] - '1';
    return -1;
}

/* True when every argument the template text [p, end) names is given and
 * not empty. */
static bool arguments_given(const gar_error *err, const char *p, const char *end)
{
    for (; p < end; p++) {
        int index = template_argument_at(p, end);
        if (index >= 0 && ((unsigned)index >= err->argc || err->argv[index][0] == '\0'))
            return false;
    }
    return true;
}

/* Puts the template text [p, end) with its arguments and optional parts. */
static void put_template(gar__text_out *out, const gar_error *err, const char *p, const char *end)
{
    while (p < end) {
        const char *close = p[0] == '[' ? memchr(p, ']', (size_t)(end - p)) : NULL;
        int index = template_argument_at(p, end);
        if (close != NULL) {
            if (arguments_given(err, p + 1, close))
                put_template(out, err, p + 1, close);
            p = close + 1;
        } else if (index >= 0) {
            put_argument(out, (unsigned)index < err->argc ? err->argv[index] : "?");
            p += 3;
        } else {
            gar__text_put(out, p, 1);
            p++;
        }
    }
}

static void put_message(gar__text_out *out, const gar_error *err)
{
    if (!gar_code_registered(err->code)) {
        gar__text_puts(out, "unregistered code");
        return;
    }
    const char *text = registry[err->code].template_text;
    put_template(out, err, text, text + strlen(text));
}

static void put_number_and_name(gar__text_out *out, const gar_error *err)
{
    const char *name = gar_code_name(err->code);
    gar__text_put_u64(out, err->code < 0 ? 0u : (uint64_t)err->code);
    gar__text_puts(out, " (");
    gar__text_puts(out, name != NULL ? name : "Unknown");
    gar__text_puts(out, "): ");
}

size_t gar_error_message(const gar_error *err, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (err != NULL)
        put_message(&out, err);
    return out.len;
}

size_t gar_error_describe(const gar_error *err, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (err != NULL) {
        put_number_and_name(&out, err);
        put_message(&out, err);
    }
    return out.len;
}

size_t gar_error_format(const gar_error *err, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (err != NULL) {
        gar__text_puts(&out, gar_code_kind_of(err->code) == GAR_KIND_WARNING ? "warning " : "error ");
        put_number_and_name(&out, err);
        put_message(&out, err);
    }
    return out.len;
}
