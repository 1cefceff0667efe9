/* gar/error.h — the coded error registry and the caller-owned error record.
 *
 * A code's number is its identity: it is never reused and never renumbered; the
 * text may be reworded, so callers branch on the number only.  Codes 1–8 came
 * first (plans, executors, the wait); later ones are appended from 9 on, in
 * the order they were added.  Warnings are codes too.  The codes, their
 * names and their messages are one table, gar/error_codes.h.
 *
 * Every gar function that can fail returns 0 (or a documented non-negative
 * answer) on success and the negated code on failure, and fills the caller's
 * gar_error record when one is given (NULL is always accepted: the caller then
 * gets the code alone).  A record owns copies of its text arguments, so it stays
 * valid after whatever it describes is gone.
 *
 * Like the rest of core/, this needs no stdio: messages are assembled by hand.
 */
#ifndef GAR_ERROR_H
#define GAR_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <gar/api.h>
#include <gar/error_codes.h>

/* Tells the enumerators of the two owners apart (gar/error_codes.h). */
#define GAR__IF_LIBRARY_LIBRARY(...) __VA_ARGS__
#define GAR__IF_LIBRARY_TESTBED(...)
#define GAR__IF_TESTBED_LIBRARY(...)
#define GAR__IF_TESTBED_TESTBED(...) __VA_ARGS__
#define GAR__LIBRARY_ENUMERATOR(number, identifier, name, kind, owner, template_text, when) \
    GAR__IF_LIBRARY_##owner(identifier = number,)
#define GAR__TESTBED_ENUMERATOR(number, identifier, name, kind, owner, template_text, when) \
    GAR__IF_TESTBED_##owner(identifier = number,)
#define GAR__PLUS_ONE(number, identifier, name, kind, owner, template_text, when) +1

/* The registry, made from gar/error_codes.h, whose table says what each
 * code's arguments are.  Append only: a new code takes the next free
 * number, in that table. */
typedef enum gar_code {
    GAR_OK = 0,
    /* Library codes: what a libgar function may return. */
    GAR_ERROR_TABLE(GAR__LIBRARY_ENUMERATOR)
    /* Testbed codes: reported only by the gar command and its simulator,
     * never returned by a libgar function, so a program using libgar alone
     * need not handle them.  They share the numbers and the formatting
     * below, so one list of `error N (Name)` covers both. */
    GAR_ERROR_TABLE(GAR__TESTBED_ENUMERATOR)
    GAR_CODE_COUNT = 1 GAR_ERROR_TABLE(GAR__PLUS_ONE) /* one past the last registered code */
} gar_code;

typedef enum gar_code_kind {
    GAR_KIND_ERROR,
    GAR_KIND_WARNING,
} gar_code_kind;

#define GAR_ERROR_ARGS_MAX 4     /* text arguments a record keeps */
#define GAR_ERROR_ARG_BYTES 512  /* bytes per argument, NUL included (four bands of the longest plans fit); longer text is cut with "..." */

typedef struct gar_error {
    int code;      /* a gar_code; GAR_OK when the record holds nothing */
    unsigned argc; /* arguments kept, at most GAR_ERROR_ARGS_MAX */
    char argv[GAR_ERROR_ARGS_MAX][GAR_ERROR_ARG_BYTES];
} gar_error;

/* Empties a record.  Accepts NULL. */
GAR_API void gar_error_clear(gar_error *err);

/* Fills `err` (when not NULL) with `code` and the `argc` text arguments that
 * follow (each a const char *, NULL read as "").  Returns -code, so a failing
 * function can end with `return gar_error_set(err, ...)`.  Extra arguments
 * beyond the code's template are kept but not shown. */
GAR_API int gar_error_set(gar_error *err, gar_code code, unsigned argc, ...);
GAR_API int gar_error_setv(gar_error *err, gar_code code, unsigned argc, va_list ap);

/* The registered name ("InvalidPlan"), or NULL for a number never registered.
 * Like the two below and the formatting, it answers testbed codes too. */
GAR_API const char *gar_code_name(int code);

/* Whether a registered code is an error or a warning (GAR_KIND_ERROR for
 * unregistered numbers). */
GAR_API gar_code_kind gar_code_kind_of(int code);

/* True for a number in the registry (1 .. GAR_CODE_COUNT-1). */
GAR_API bool gar_code_registered(int code);

/* Writes the message alone, the code's template with the arguments put in
 * ("invalid plan 'x': unknown park 'x'").  Arguments are shown escaped as
 * gar_error_show_bytes writes them, so a message is one line of valid UTF-8.
 * Like snprintf: writes at most `size` bytes including the NUL and returns
 * the length the whole message needs. */
GAR_API size_t gar_error_message(const gar_error *err, char *buf, size_t size);

/* Writes the `n` bytes at `bytes` (NUL bytes included: a field is given by
 * its length) as a message shows untrusted text: printable ASCII and
 * well-formed UTF-8 as themselves, every other byte (NUL, control bytes,
 * DEL, C1 controls, a byte of no well-formed UTF-8 sequence) as \xNN.  For
 * an argument holding bytes that gar_error_set would cut at a NUL.  Like
 * snprintf: at most `size` bytes including the NUL; returns the length the
 * whole text needs. */
GAR_API size_t gar_error_show_bytes(const char *bytes, size_t n, char *buf, size_t size);

/* Writes "N (Name): message". Same return as gar_error_message. */
GAR_API size_t gar_error_describe(const gar_error *err, char *buf, size_t size);

/* Writes "error N (Name): message", or "warning N (Name): message" for a
 * warning.  Same return as gar_error_message. */
GAR_API size_t gar_error_format(const gar_error *err, char *buf, size_t size);

#endif
