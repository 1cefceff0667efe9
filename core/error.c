/* core/error.c — the registry of coded errors and the formatting of a record.
 *
 * The registry is made from the one table, gar/error_codes.h (its header
 * says how templates name their arguments and show optional parts).  It is
 * indexed by number, so a renumbering shows up as a failing test that pins
 * every name; the checks below make a malformed table fail the build.  A
 * part in brackets is shown only when every argument it names is given and
 * not empty, so a fault of a whole file is not placed at a made-up line. */
#include <gar/error.h>

#include <string.h>

#include "text.h"

typedef struct gar_code_entry {
    const char *name;
    gar_code_kind kind;
    const char *template_text;
} gar_code_entry;

/* Each row's place in the table, from 1. */
#define ROW_PLACE(number, identifier, name, kind, owner, template_text, when) \
    row_of_##identifier,
enum { row_before_the_first, GAR_ERROR_TABLE(ROW_PLACE) };

/* A row must have a template: "" before it makes anything but a string
 * literal a syntax error, and a literal must not be empty.  Its number must
 * be its place, so rows run 1, 2, 3, ... in order with no gap, and a row
 * left out or put twice is caught. */
#define ROW_CHECK(number, identifier, name, kind, owner, template_text, when) \
    _Static_assert(sizeof("" template_text) > 1, \
                   "error code " #number " (" #name ") has no template"); \
    _Static_assert((number) == row_of_##identifier, \
                   "error code " #number " (" #name ") is not at its place: " \
                   "rows are numbered 1, 2, 3, ... in order with no gap");
GAR_ERROR_TABLE(ROW_CHECK)

#define ROW_ENTRY(number, identifier, name, kind, owner, template_text, when) \
    [number] = { #name, GAR_KIND_##kind, "" template_text },
static const gar_code_entry registry[] = { GAR_ERROR_TABLE(ROW_ENTRY) };
_Static_assert(sizeof registry / sizeof registry[0] == GAR_CODE_COUNT,
               "GAR_CODE_COUNT is one past the last row of the table");

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
