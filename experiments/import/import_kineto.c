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
 * refused at its start. */
#define _POSIX_C_SOURCE 200809L

#include "import/import.h"
#include "sim/trace/alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "import/content_hash.h"
#include "sim/trace/unpack.h"

/* The keys of an event, and of its args, that matter here. */
typedef enum key {
    K_NONE,
    K_PH,
    K_CAT,
    K_NAME,
    K_TS,
    K_DUR,
    K_PID,
    K_TID,
    K_ARGS,
    K_A_STREAM,
    K_A_CORRELATION,
    K_A_DEVICE,
    K_A_WAIT_STREAM,
    K_A_RECORD_CORR,
    K_COUNT
} key;

typedef enum category { CAT_OTHER, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_CALL, CAT_SYNC } category;

#define NAME_KEEP 96 /* bytes of a name kept: every name matched is shorter */

typedef struct event {
    bool seen[K_COUNT];
    const char *bad_id[K_COUNT]; /* why an args id is unusable, NULL when fine */
    bool id_negative[K_COUNT];   /* an args id's sign ... */
    uint64_t id_magnitude[K_COUNT]; /* ... and magnitude */
    bool complete; /* ph "X" */
    category cat;
    char name[NAME_KEEP];
    size_t name_len; /* the whole name's length, which may exceed what is kept */
    uint64_t name_hash; /* FNV-1a-64 of the whole name, with --wait-on kernel */
    uint64_t ts_ns, dur_ns;
    int64_t value[K_COUNT]; /* integer-valued keys */
    key bad_time;           /* K_TS or K_DUR when that value is no usable time */
    bool negative_time;     /* ... because it is negative */
    uint32_t present;       /* bit 1 << key: the keys met, to find one met twice */
    key duplicate;          /* the first key met twice, K_NONE when none */
} event;

typedef struct kineto {
    const char *file;
    gar_error *err;
    gar_import *im;
    uint32_t process; /* the rank's process index */
    int depth;        /* containers open */
    int events_depth; /* depth of the traceEvents array's items, 0 before it */
    bool top_key_events;
    key key;          /* the key whose value comes next, at the event or args level */
    bool in_args;
    bool in_event;
    uint64_t events;  /* events begun, for "event N" in errors */
    event ev;
    bool events_key_seen; /* a top-level "traceEvents" key was met */
    const char *json_fault; /* a callback's refusal to be placed by line and column */
    int failed;       /* a callback's refusal, already in err */
} kineto;

static int refuse_event(kineto *k, const char *column, const char *fault)
{
    char where[40];
    snprintf(where, sizeof where, "event %" PRIu64, k->events);
    k->failed = gar_error_set(k->err, GAR_E_INVALID_TRACE, 4, k->file, where, column, fault);
    return 0; /* stops yajl */
}

static bool text_is(const unsigned char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static key event_key(const unsigned char *s, size_t n)
{
    static const struct {
        const char *text;
        key k;
    } keys[] = {
        { "ph", K_PH }, { "cat", K_CAT }, { "name", K_NAME }, { "ts", K_TS },
        { "dur", K_DUR }, { "pid", K_PID }, { "tid", K_TID }, { "args", K_ARGS },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (text_is(s, n, keys[i].text))
            return keys[i].k;
    return K_NONE;
}

static bool is_args_id(key k)
{
    return k >= K_A_STREAM && k <= K_A_RECORD_CORR;
}

static const char *key_text(key k)
{
    switch (k) {
    case K_PH:
        return "ph";
    case K_CAT:
        return "cat";
    case K_NAME:
        return "name";
    case K_TS:
        return "ts";
    case K_DUR:
        return "dur";
    case K_PID:
        return "pid";
    case K_TID:
        return "tid";
    case K_ARGS:
        return "args";
    case K_A_STREAM:
        return "args.stream";
    case K_A_CORRELATION:
        return "args.correlation";
    case K_A_DEVICE:
        return "args.device";
    case K_A_WAIT_STREAM:
        return "args.wait_on_stream";
    case K_A_RECORD_CORR:
        return "args.wait_on_cuda_event_record_corr_id";
    default:
        return "-";
    }
}

static key args_key(const unsigned char *s, size_t n)
{
    static const struct {
        const char *text;
        key k;
    } keys[] = {
        { "stream", K_A_STREAM },
        { "correlation", K_A_CORRELATION },
        { "device", K_A_DEVICE },
        { "wait_on_stream", K_A_WAIT_STREAM },
        { "wait_on_cuda_event_record_corr_id", K_A_RECORD_CORR },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (text_is(s, n, keys[i].text))
            return keys[i].k;
    return K_NONE;
}

/* Microseconds as JSON number text to whole nanoseconds, rounded half up.
 * False for a negative, malformed or too large value. */
static bool us_text_to_ns(const char *s, size_t n, uint64_t *out, bool *negative)
{
    size_t i = 0;
    *negative = false;
    if (i < n && s[i] == '-') {
        *negative = true;
        return false;
    }
    uint64_t mant = 0;
    int exp10 = 3; /* µs to ns */
    int digits = 0;
    bool any = false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, any = true) {
        if (digits < 19) {
            mant = mant * 10 + (uint64_t)(s[i] - '0');
            if (mant != 0)
                digits++;
        } else {
            exp10++;
        }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, any = true) {
            if (digits < 19) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                if (mant != 0)
                    digits++;
                exp10--;
            }
        }
    }
    if (!any)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool neg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        int e = 0;
        bool edigit = false;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigit = true)
            if (e < 1000)
                e = e * 10 + (s[i] - '0');
        if (!edigit)
            return false;
        exp10 += neg ? -e : e;
    }
    if (i != n)
        return false;
    if (mant == 0) {
        *out = 0;
        return true;
    }
    for (; exp10 > 0; exp10--) {
        if (mant > UINT64_MAX / 10)
            return false;
        mant *= 10;
    }
    if (exp10 < 0) {
        if (exp10 < -19) {
            *out = 0;
            return true;
        }
        uint64_t div = 1;
        for (int e = exp10; e < 0; e++)
            div *= 10;
        uint64_t q = mant / div, r = mant % div;
        mant = q + (r >= div - r ? 1 : 0);
    }
    *out = mant;
    return true;
}

/* A JSON integer's text to int64; false for fractions, exponents, overflow. */
static bool int_text(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg)
        i++;
    if (i == n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_C(1) << 62))
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

/* A JSON integer's text to sign and magnitude; false for fractions,
 * exponents, and magnitudes past 2^64 - 1. */
static bool integer_text(const char *s, size_t n, bool *negative, uint64_t *magnitude)
{
    size_t i = 0;
    *negative = n > 0 && s[0] == '-';
    if (*negative)
        i++;
    if (i == n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *magnitude = v;
    return true;
}

static int on_number(void *ctx, const char *s, size_t n)
{
    kineto *k = ctx;
    key which = k->key;
    k->key = K_NONE;
    if (!k->in_event || which == K_NONE)
        return 1;
    event *ev = &k->ev;
    if (which == K_TS || which == K_DUR) {
        uint64_t ns;
        bool negative;
        /* Judged once the event is whole: only the events kept need times. */
        if (!us_text_to_ns(s, n, &ns, &negative)) {
            ev->bad_time = which;
            ev->negative_time = negative;
            return 1;
        }
        *(which == K_TS ? &ev->ts_ns : &ev->dur_ns) = ns;
        ev->seen[which] = true;
        return 1;
    }
    if (is_args_id(which)) {
        ev->seen[which] = true;
        if (!integer_text(s, n, &ev->id_negative[which], &ev->id_magnitude[which]))
            ev->bad_id[which] = "not an integer below 2^64";
        return 1;
    }
    int64_t v;
    if (int_text(s, n, &v)) {
        ev->value[which] = v;
        ev->seen[which] = true;
    }
    return 1;
}

/* An args id that is a string, boolean, null, array or object. */
static void id_not_a_number(kineto *k, key which)
{
    if (k->in_event && k->in_args && is_args_id(which)) {
        k->ev.seen[which] = true;
        k->ev.bad_id[which] = "not a JSON integer";
    }
}

/* The category of a `cat` value.  Kineto of PyTorch 1.8 wrote Kernel,
 * Memcpy, Memset and Runtime; later ones the activity type names. */
static category category_of(const unsigned char *s, size_t n)
{
    static const struct {
        const char *text;
        category cat;
    } cats[] = {
        { "kernel", CAT_KERNEL },       { "gpu_memcpy", CAT_MEMCPY },
        { "gpu_memset", CAT_MEMSET },   { "cuda_runtime", CAT_CALL },
        { "cuda_driver", CAT_CALL },    { "cuda_sync", CAT_SYNC },
        { "Kernel", CAT_KERNEL },       { "Memcpy", CAT_MEMCPY },
        { "Memset", CAT_MEMSET },       { "Runtime", CAT_CALL },
    };
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
        if (text_is(s, n, cats[i].text))
            return cats[i].cat;
    return CAT_OTHER;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    kineto *k = ctx;
    key which = k->key;
    k->key = K_NONE;
    id_not_a_number(k, which);
    if (!k->in_event || k->in_args)
        return 1;
    event *ev = &k->ev;
    switch (which) {
    case K_PH:
        ev->complete = text_is(s, n, "X");
        break;
    case K_CAT:
        ev->cat = category_of(s, n);
        break;
    case K_TID:
        /* PyTorch 1.8 wrote tids as strings: "456" (a host thread),
         * "stream 7" (a GPU stream). */
        if (n > 7 && memcmp(s, "stream ", 7) == 0) {
            s += 7;
            n -= 7;
        }
        if (!int_text((const char *)s, n, &ev->value[K_TID]) || ev->value[K_TID] < 0)
            return 1;
        break;
    case K_NAME:
        ev->name_len = n;
        memcpy(ev->name, s, n < NAME_KEEP ? n : NAME_KEEP);
        if (k->im->options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL) /* a kernel's point */
            ev->name_hash = gar_hash_bytes(GAR_HASH_OFFSET, s, n);
        break;
    default:
        return 1;
    }
    ev->seen[which] = true;
    return 1;
}

static int on_scalar(void *ctx)
{
    kineto *k = ctx;
    id_not_a_number(k, k->key);
    k->key = K_NONE;
    return 1;
}

static int on_boolean(void *ctx, int value)
{
    (void)value;
    return on_scalar(ctx);
}

#define TWICE "JSON readers differ on which value counts"
#define DUPLICATE_KEY "a key given twice (" TWICE ")"

static int on_map_key(void *ctx, const unsigned char *s, size_t n)
{
    kineto *k = ctx;
    if (k->depth == 1) { /* a key of the top-level object */
        bool events = text_is(s, n, "traceEvents");
        if (events && k->events_key_seen) {
            k->json_fault = "a second traceEvents key (" TWICE ")";
            return 0; /* stops yajl, which says where */
        }
        k->events_key_seen |= events;
        if (k->events_depth == 0)
            k->top_key_events = events;
        return 1;
    }
    if (!k->in_event)
        return 1;
    if (k->in_args && k->depth == k->events_depth + 2)
        k->key = args_key(s, n);
    else if (!k->in_args && k->depth == k->events_depth + 1)
        k->key = event_key(s, n);
    else
        k->key = K_NONE;
    if (k->key != K_NONE) {
        /* Only the keys read here can change the trace.  A second ph or cat
         * decides whether the event is kept, so it is refused at once; any
         * other once the event is known to be kept. */
        uint32_t bit = UINT32_C(1) << k->key;
        if ((k->ev.present & bit) != 0) {
            if (k->key == K_PH || k->key == K_CAT)
                return refuse_event(k, key_text(k->key), DUPLICATE_KEY);
            if (k->ev.duplicate == K_NONE)
                k->ev.duplicate = k->key;
        }
        k->ev.present |= bit;
    }
    return 1;
}

static bool memcpy_name_is_dtoh_pageable(const event *ev)
{
    size_t n = ev->name_len < NAME_KEEP ? ev->name_len : NAME_KEEP;
    /* "Memcpy DtoH (Device -> Pageable)" */
    char name[NAME_KEEP + 1];
    memcpy(name, ev->name, n);
    name[n] = '\0';
    return strstr(name, "DtoH") != NULL && strstr(name, "Pageable") != NULL;
}

/* A pid or tid fallback: GAR_IMPORT_ANY unless an integer in 0 .. 2^32-2. */
static uint32_t fallback_id(const event *ev, key which)
{
    if (which == K_NONE || !ev->seen[which] || ev->value[which] < 0 ||
        ev->value[which] >= (int64_t)UINT32_MAX)
        return GAR_IMPORT_ANY;
    return (uint32_t)ev->value[which];
}

/* Refuses args id `which` unless it is an integer in range: 0 .. `max`, or,
 * when `sentinel_is_none`, -1 or 2^32 - 1 (then read as `none`): CUPTI's
 * "no stream" is 2^32 - 1, which Kineto builds of PyTorch 2.1-2.3 wrote as
 * it is and later ones (since a March 2024 fix) as -1.  An absent id is
 * `none`. */
static bool args_id(kineto *k, key which, uint64_t max, bool sentinel_is_none, uint64_t none,
                    uint64_t *out)
{
    const event *ev = &k->ev;
    *out = none;
    if (!ev->seen[which])
        return true;
    const char *fault = ev->bad_id[which];
    bool sentinel = ev->id_magnitude[which] == (ev->id_negative[which] ? 1 : UINT32_MAX);
    if (fault == NULL && sentinel_is_none && sentinel)
        return true;
    if (fault == NULL && ev->id_negative[which])
        fault = "a negative id";
    if (fault == NULL && ev->id_magnitude[which] > max)
        fault = max == UINT64_MAX ? "an id past 2^64 - 1" : "an id past 2^32 - 2";
    if (fault != NULL) {
        refuse_event(k, key_text(which), fault);
        return false;
    }
    *out = ev->id_magnitude[which];
    return true;
}

/* A device or stream: the args id when present (refused when unusable),
 * else the pid/tid fallback. */
static bool id32(kineto *k, key primary, key fallback, bool sentinel_is_none, uint32_t *out)
{
    uint64_t v;
    if (!args_id(k, primary, UINT32_MAX - 1, sentinel_is_none, GAR_IMPORT_ANY, &v))
        return false;
    *out = k->ev.seen[primary] ? (uint32_t)v : fallback_id(&k->ev, fallback);
    return true;
}

/* Needs ts and dur; refuses an op or call without them. */
static int timed(kineto *k, uint64_t *start, uint64_t *end)
{
    const event *ev = &k->ev;
    if (!ev->seen[K_TS] || !ev->seen[K_DUR])
        return refuse_event(k, ev->seen[K_TS] ? "dur" : "ts",
                            "a GPU op or host call without ts and dur");
    if (ev->dur_ns > UINT64_MAX - ev->ts_ns)
        return refuse_event(k, "dur", "ts + dur passes 2^64 ns");
    *start = ev->ts_ns;
    *end = ev->ts_ns + ev->dur_ns;
    return 1;
}

static int finish_event(kineto *k)
{
    event *ev = &k->ev;
    if (!ev->complete || ev->cat == CAT_OTHER)
        return 1;
    if (ev->duplicate != K_NONE)
        return refuse_event(k, key_text(ev->duplicate), DUPLICATE_KEY);
    if (ev->bad_time != K_NONE)
        return refuse_event(k, ev->bad_time == K_TS ? "ts" : "dur",
                            ev->negative_time ? "a negative time"
                                              : "not a number of microseconds below 2^64 ns");
    int rc = 0;
    uint64_t correlation;
    if (!args_id(k, K_A_CORRELATION, UINT64_MAX, false, 0, &correlation))
        return 0;
    switch (ev->cat) {
    case CAT_KERNEL:
    case CAT_MEMCPY:
    case CAT_MEMSET: {
        gar_import_op op = { .correlation = correlation, .process = k->process,
                             .dtoh_pageable = ev->cat == CAT_MEMCPY &&
                                              memcpy_name_is_dtoh_pageable(ev),
                             .kernel = ev->cat == CAT_KERNEL };
        if (k->im->options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL)
            op.name_hash = ev->seen[K_NAME] ? ev->name_hash : GAR_HASH_OFFSET;
        if (!id32(k, K_A_DEVICE, K_PID, false, &op.device) ||
            !id32(k, K_A_STREAM, K_TID, false, &op.stream))
            return 0;
        if (!timed(k, &op.start_ns, &op.end_ns))
            return 0;
        if (op.stream == GAR_IMPORT_ANY || op.device == GAR_IMPORT_ANY) {
            /* Name the id that is missing or out of range, as it was read. */
            bool dev = op.device == GAR_IMPORT_ANY;
            const char *field = dev ? (ev->seen[K_A_DEVICE] ? "args.device" : "pid")
                                    : (ev->seen[K_A_STREAM] ? "args.stream" : "tid");
            return refuse_event(k, field, dev ? "a GPU op without a device id below 2^32 - 1"
                                              : "a GPU op without a stream id below 2^32 - 1");
        }
        rc = gar_import_add_op(k->im, &op, k->err);
        break;
    }
    case CAT_CALL: {
        size_t kept = ev->name_len < NAME_KEEP ? ev->name_len : 0;
        gar_import_call call = { .correlation = correlation,
                                 .thread = ev->seen[K_TID] ? (uint64_t)ev->value[K_TID] : 0,
                                 .process = k->process,
                                 .name = gar_import_sync_name(ev->name, kept) };
        if (call.correlation == 0 && call.name < 0)
            return 1; /* neither a launch nor a wait */
        if (!timed(k, &call.start_ns, &call.end_ns))
            return 0;
        rc = gar_import_add_call(k->im, &call, k->err);
        break;
    }
    case CAT_SYNC: {
        gar_import_sync sync = { .correlation = correlation, .process = k->process };
        if (!id32(k, K_A_DEVICE, K_PID, true, &sync.device) ||
            !id32(k, K_A_STREAM, K_NONE, true, &sync.stream) ||
            !id32(k, K_A_WAIT_STREAM, K_NONE, true, &sync.event_stream) ||
            !args_id(k, K_A_RECORD_CORR, UINT64_MAX, true, 0, &sync.event_correlation))
            return 0;
        if (sync.correlation == 0)
            return 1;
        rc = gar_import_add_sync(k->im, &sync, k->err);
        break;
    }
    case CAT_OTHER:
        break;
    }
    if (rc < 0) {
        k->failed = rc;
        return 0;
    }
    return 1;
}

static int on_start_map(void *ctx)
{
    kineto *k = ctx;
    key which = k->key;
    id_not_a_number(k, which);
    k->key = K_NONE;
    k->depth++;
    if (k->events_depth != 0 && k->depth == k->events_depth + 1 && !k->in_event) {
        k->in_event = true;
        k->in_args = false;
        k->events++;
        memset(&k->ev, 0, sizeof k->ev);
    } else if (k->in_event && !k->in_args && which == K_ARGS &&
               k->depth == k->events_depth + 2) {
        k->in_args = true;
    }
    return 1;
}

static int on_end_map(void *ctx)
{
    kineto *k = ctx;
    k->key = K_NONE;
    int ok = 1;
    if (k->in_args && k->depth == k->events_depth + 2)
        k->in_args = false;
    else if (k->in_event && k->depth == k->events_depth + 1) {
        k->in_event = false;
        ok = finish_event(k);
    }
    k->depth--;
    return ok;
}

static int on_start_array(void *ctx)
{
    kineto *k = ctx;
    id_not_a_number(k, k->key);
    k->key = K_NONE;
    k->depth++;
    /* The events: the array under "traceEvents", or a bare top-level array
     * (the Chrome trace format allows both). */
    if (k->events_depth == 0 && (k->depth == 1 || (k->depth == 2 && k->top_key_events)))
        k->events_depth = k->depth;
    return 1;
}

static int on_end_array(void *ctx)
{
    kineto *k = ctx;
    k->key = K_NONE;
    k->depth--;
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_scalar,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

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
    p->yajl = yajl_alloc(&callbacks, NULL, &p->k);
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
