/* experiments/import/import_kineto.c — PyTorch profiler (Kineto) Chrome-trace JSON.
 *
 * The file is streamed through yajl's callback parser in blocks (inflated
 * with zlib first when it is gzip, by sim/trace/unpack.h), so a trace of any
 * size needs memory only for the few fields kept per event.  Of the events,
 * complete events (ph "X") of these categories are kept (PyTorch 1.8
 * wrote the names in brackets):
 *   kernel, gpu_memcpy, gpu_memset   GPU ops: ts, dur, args.device (else pid),
 *   (Kernel, Memcpy, Memset)         args.stream (else tid), args.correlation
 *   cuda_runtime, cuda_driver        host calls: ts, dur, args.correlation, name,
 *   (Runtime)                        tid (an integer, or a string of digits)
 *   cuda_sync                        args.correlation, device, stream,
 *                                    wait_on_stream,
 *                                    wait_on_cuda_event_record_corr_id
 *                                    (-1 or 2^32 - 1: none)
 * A key that the reader reads, given twice in one object (or a second
 * top-level traceEvents), is refused: which value counts is up to the reader.
 * `ts` and `dur` are microseconds, integers or decimals; they are converted
 * from their text, so a decimal's nanosecond digits are kept exactly (a double
 * would lose them at today's epoch timestamps).  The args ids must be JSON
 * integers in their type's range (a kept event with a string, fraction or
 * too-large id is refused, never wrapped or replaced by pid/tid).
 *
 * yajl re-lexes a token split across blocks from its start at every block,
 * which is quadratic in the token's length; so before yajl sees a block, a
 * small scanner finds where the last token of the block may still go on,
 * and holds that tail back until the token ends.  yajl thus gets every token
 * in at most two pieces, and a token longer than GAR_IMPORT_TOKEN_MAX is
 * refused at its start.
 *
 * This file streams the bytes; yajl's callbacks are kineto_callbacks.c, an
 * event into records kineto_event.c, and the numbers kineto_numbers.c. */
#define _POSIX_C_SOURCE 200809L

#include "import/import.h"
#include "sim/trace/alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "import/kineto_callbacks.h"
#include "import/kineto_event.h"
#include "sim/trace/unpack.h"

/* Where a token may still go on: the scanner's state between blocks. */
typedef enum scan_state { SCAN_BETWEEN, SCAN_STRING, SCAN_ESCAPE, SCAN_WORD } scan_state;

/* A streaming parse: begin, feed blocks, end. */
typedef struct kineto_parse {
    kineto k;
    yajl_handle yajl;
    uint64_t line;         /* lines fed to yajl before the current block, from 1 */
    uint64_t line_start;   /* bytes fed before the current line began */
    uint64_t fed;          /* bytes fed to yajl before the current block */
    /* The scanner, which runs ahead of yajl over the bytes received. */
    scan_state scan;
    uint64_t scanned;      /* bytes scanned */
    uint64_t scan_line, scan_line_start;
    uint64_t token_start;  /* where the open token began (SCAN_STRING.. SCAN_WORD) */
    uint64_t token_line, token_column;
    unsigned char *held;   /* the tail held back: an unfinished token */
    size_t held_len, held_cap;
} kineto_parse;

static int parse_begin(kineto_parse *p, const char *file, gar_import *im, uint32_t process,
                       gar_error *err)
{
    memset(p, 0, sizeof *p);
    p->k.file = file;
    p->k.err = err;
    p->k.im = im;
    p->k.process = process;
    p->line = 1;
    p->scan_line = 1;
    p->yajl = yajl_alloc(&gar_kineto_callbacks, NULL, &p->k);
    if (p->yajl == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "JSON parser", "out of memory");
    return 0;
}

/* The JSON fault at byte `at` of `block` (yajl's message, with the place). */
static int refuse_json(kineto_parse *p, const unsigned char *block, size_t len, size_t at)
{
    if (p->k.failed < 0)
        return p->k.failed;
    uint64_t line = p->line, line_start = p->line_start;
    for (size_t i = 0; i < at && i < len; i++) {
        if (block[i] == '\n') {
            line++;
            line_start = p->fed + i + 1;
        }
    }
    unsigned char *msg = p->k.json_fault != NULL ? NULL : yajl_get_error(p->yajl, 0, NULL, 0);
    char fault[GAR_ERROR_ARG_BYTES];
    snprintf(fault, sizeof fault, "%s",
             p->k.json_fault != NULL ? p->k.json_fault
             : msg != NULL           ? (const char *)msg
                                     : "malformed JSON");
    if (msg != NULL)
        yajl_free_error(p->yajl, msg);
    size_t cut = strcspn(fault, "\n");
    fault[cut] = '\0';
    char line_text[24], column_text[24];
    snprintf(line_text, sizeof line_text, "%" PRIu64, line);
    snprintf(column_text, sizeof column_text, "%" PRIu64, p->fed + at - line_start + 1);
    return gar_error_set(p->k.err, GAR_E_INVALID_TRACE, 4, p->k.file, line_text, column_text,
                         fault);
}

/* Hands `len` bytes, which continue what yajl was given, to yajl. */
static int yajl_feed(kineto_parse *p, const unsigned char *block, size_t len)
{
    if (len == 0)
        return 0;
    if (yajl_parse(p->yajl, block, len) != yajl_status_ok)
        return refuse_json(p, block, len, yajl_get_bytes_consumed(p->yajl));
    const unsigned char *nl = block, *end = block + len;
    while ((nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL) {
        p->line++;
        p->line_start = p->fed + (uint64_t)(nl - block) + 1;
        nl++;
    }
    p->fed += len;
    return 0;
}

static bool word_byte(unsigned char c)
{
    /* numbers and the literals true, false, null */
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '+' || c == '.';
}

/* Refuses the open token if it would reach byte `end` (exclusive) of the
 * stream and so be longer than GAR_IMPORT_TOKEN_MAX. */
static int too_long(kineto_parse *p, uint64_t end)
{
    if (end - p->token_start <= GAR_IMPORT_TOKEN_MAX)
        return 0;
    char line_text[24], column_text[24], fault[80];
    snprintf(line_text, sizeof line_text, "%" PRIu64, p->token_line);
    snprintf(column_text, sizeof column_text, "%" PRIu64, p->token_column);
    snprintf(fault, sizeof fault, "a %s longer than %u bytes",
             p->scan == SCAN_WORD ? "number or literal" : "string",
             (unsigned)GAR_IMPORT_TOKEN_MAX);
    return gar_error_set(p->k.err, GAR_E_INVALID_TRACE, 4, p->k.file, line_text, column_text,
                         fault);
}

/* Scans `block` (the bytes after all scanned before) and sets `*cut` to how
 * many of its leading bytes end outside any token: the rest may be an
 * unfinished token.  A token (quotes included) longer than
 * GAR_IMPORT_TOKEN_MAX is refused at its start.  Returns 0 or the refusal. */
static int scan_block(kineto_parse *p, const unsigned char *block, size_t len, size_t *cut)
{
    size_t safe = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < len; i++) {
        unsigned char c = block[i];
        uint64_t at = p->scanned + i;
        switch (p->scan) {
        case SCAN_STRING: {
            /* Skip to the next quote, backslash or newline: the hot loop of
             * long strings. */
            size_t j = i;
            while (j < len && block[j] != '"' && block[j] != '\\' && block[j] != '\n')
                j++;
            if (j == len) {
                rc = too_long(p, p->scanned + len);
                i = len - 1;
                break;
            }
            i = j;
            rc = too_long(p, p->scanned + j + 1);
            if (block[j] == '\\') {
                p->scan = SCAN_ESCAPE;
            } else if (block[j] == '"') {
                p->scan = SCAN_BETWEEN;
                safe = i + 1;
            } else { /* a raw newline: invalid JSON, left for yajl to refuse */
                p->scan_line++;
                p->scan_line_start = p->scanned + j + 1;
            }
            break;
        }
        case SCAN_ESCAPE:
            rc = too_long(p, at + 1);
            p->scan = SCAN_STRING;
            break;
        case SCAN_WORD:
            if (word_byte(c)) {
                rc = too_long(p, at + 1);
                break;
            }
            /* This byte begins what follows the word. */
            p->scan = SCAN_BETWEEN;
            safe = i;
            /* fall through */
        case SCAN_BETWEEN:
            if (c == '"' || word_byte(c)) {
                p->scan = c == '"' ? SCAN_STRING : SCAN_WORD;
                p->token_start = at;
                p->token_line = p->scan_line;
                p->token_column = at - p->scan_line_start + 1;
            } else {
                if (c == '\n') {
                    p->scan_line++;
                    p->scan_line_start = at + 1;
                }
                safe = i + 1;
            }
            break;
        }
    }
    p->scanned += len;
    *cut = safe;
    return rc;
}

/* Keeps `len` bytes back for the next block. */
static int hold(kineto_parse *p, const unsigned char *bytes, size_t len)
{
    if (len == 0)
        return 0; /* nothing held back: the buffer may not exist yet (memcpy wants it) */
    if (p->held_len + len > p->held_cap) {
        size_t want = p->held_cap == 0 ? 4096 : p->held_cap;
        while (want < p->held_len + len)
            want *= 2;
        unsigned char *grown = gar_realloc(p->held, want);
        if (grown == NULL)
            return gar_error_set(p->k.err, GAR_E_CAPACITY, 2, "JSON token buffer",
                                 "out of memory");
        p->held = grown;
        p->held_cap = want;
    }
    memcpy(p->held + p->held_len, bytes, len);
    p->held_len += len;
    return 0;
}

static int parse_feed(kineto_parse *p, const unsigned char *block, size_t len)
{
    size_t cut = 0;
    int rc = scan_block(p, block, len, &cut);
    if (rc < 0)
        return rc;
    if (cut == 0) /* the held token goes on through the whole block */
        return hold(p, block, len);
    rc = yajl_feed(p, p->held, p->held_len);
    p->held_len = 0;
    if (rc == 0)
        rc = yajl_feed(p, block, cut);
    if (rc == 0)
        rc = hold(p, block + cut, len - cut);
    return rc;
}

/* Ends one file's parse: the held tail, then yajl's end.  Frees the parser. */
static int parse_end(kineto_parse *p, int rc)
{
    if (rc == 0) {
        rc = yajl_feed(p, p->held, p->held_len);
        p->held_len = 0;
    }
    if (rc == 0 && yajl_complete_parse(p->yajl) != yajl_status_ok)
        rc = refuse_json(p, NULL, 0, 0);
    if (rc == 0 && p->k.events_depth == 0)
        rc = gar_error_set(p->k.err, GAR_E_INVALID_TRACE, 4, p->k.file, "1", "1",
                           "no traceEvents array (not a Chrome trace)");
    if (p->yajl != NULL)
        yajl_free(p->yajl);
    gar_free(p->held);
    return rc;
}

/* The file's bytes, plain or gzip (sim/trace/unpack.h), to the parse. */
static int feed_parse(void *context, const unsigned char *bytes, size_t len)
{
    return parse_feed(context, bytes, len);
}

/* The records of the Kineto JSON (plain or gzip) in `data` into `im`, as
 * process `process`. */
static int read_memory(const void *data, size_t size, const char *name, gar_import *im,
                       uint32_t process, gar_error *err)
{
    kineto_parse p;
    int rc = parse_begin(&p, name, im, process, err);
    gar_unpack u;
    gar_unpack_init(&u, feed_parse, &p, p.k.file, err);
    /* Fed in blocks, as a file is, so tokens split across blocks and the
     * place of a fault in a later block are the same code path. */
    enum { BLOCK = 4096 };
    const unsigned char *bytes = data;
    for (size_t at = 0; rc == 0 && at < size; at += BLOCK)
        rc = gar_unpack_bytes(&u, bytes + at, size - at < BLOCK ? size - at : BLOCK);
    return parse_end(&p, gar_unpack_end(&u, rc));
}

/* The records of the Kineto file at `path` into `im`, as process `process`. */
static int read_file(const char *path, gar_import *im, uint32_t process, gar_error *err)
{
    bool from_stdin = strcmp(path, "-") == 0; /* "-": standard input, named so */
    if (from_stdin)
        path = "standard input";
    errno = 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open",
                             errno != 0 ? strerror(errno) : "out of memory");
    kineto_parse p;
    int rc = parse_begin(&p, path, im, process, err);
    gar_unpack u;
    gar_unpack_init(&u, feed_parse, &p, p.k.file, err);
    enum { BLOCK = 1 << 16 };
    unsigned char *block = rc == 0 ? gar_malloc(BLOCK) : NULL;
    if (rc == 0 && block == NULL)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "read buffer", "out of memory");
    while (rc == 0) {
        size_t got = fread(block, 1, BLOCK, f);
        if (got > 0)
            rc = gar_unpack_bytes(&u, block, got);
        if (rc == 0 && got < BLOCK) {
            if (ferror(f))
                rc = gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(errno));
            break;
        }
    }
    rc = gar_unpack_end(&u, rc);
    gar_free(block);
    if (!from_stdin)
        fclose(f);
    return parse_end(&p, rc);
}

int gar_import_kineto_memory(const void *data, size_t size, const char *name, gar_trace *out,
                             gar_import_counts *counts, gar_error *err)
{
    if (out == NULL || (data == NULL && size > 0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_kineto_memory",
                             out == NULL ? "out" : "data", "is NULL");
    gar_trace_init(out);
    if (counts != NULL)
        memset(counts, 0, sizeof *counts);
    if (name == NULL)
        name = "profile";
    gar_import im;
    gar_import_init(&im);
    uint32_t process;
    int rc = gar_import_process(&im, 0, &process, err);
    if (rc == 0)
        rc = read_memory(data, size, name, &im, process, err);
    if (rc == 0)
        rc = gar_import_finish(&im, name, out, counts, err);
    gar_import_free(&im);
    return rc;
}

int gar_import_kineto_files_to(const char *const *paths, size_t n,
                               const gar_import_options *options, const gar_import_sink *sink,
                               gar_import_counts *counts, gar_error *err)
{
    if (counts != NULL)
        memset(counts, 0, sizeof *counts);
    if (paths == NULL || n == 0 || sink == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_kineto_files",
                             sink == NULL ? "sink" : "paths", "is NULL or empty");
    gar_import im;
    gar_import_init(&im);
    if (options != NULL)
        im.options = *options;
    int rc = 0;
    for (size_t rank = 0; rc == 0 && rank < n; rank++) {
        if (paths[rank] == NULL) {
            rc = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_kineto_files",
                               "paths", "holds NULL");
            break;
        }
        uint32_t process;
        rc = gar_import_process(&im, rank, &process, err);
        if (rc == 0)
            rc = read_file(paths[rank], &im, process, err);
    }
    if (rc == 0)
        rc = gar_import_finish_to(&im, n == 1 ? paths[0] : "the ranks' profiles", sink, counts,
                                  err);
    gar_import_free(&im);
    return rc;
}

int gar_import_kineto_files(const char *const *paths, size_t n, const gar_import_options *options,
                            gar_trace *out, gar_import_counts *counts, gar_import_legend *legend,
                            gar_error *err)
{
    if (legend != NULL)
        memset(legend, 0, sizeof *legend);
    if (paths == NULL || n == 0 || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_kineto_files",
                             out == NULL ? "out" : "paths", "is NULL or empty");
    gar_import_to_trace t;
    gar_import_sink sink = gar_import_trace_sink(&t, out, legend);
    int rc = gar_import_kineto_files_to(paths, n, options, &sink, counts, err);
    return gar_import_trace_sink_end(&t, n == 1 ? paths[0] : "the ranks' profiles", rc, err);
}

int gar_import_kineto_file(const char *path, gar_trace *out, gar_import_counts *counts,
                           gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_kineto_file",
                             path == NULL ? "path" : "out", "is NULL");
    return gar_import_kineto_files(&path, 1, NULL, out, counts, NULL, err);
}
