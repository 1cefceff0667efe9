/* experiments/import/kineto_callbacks.c — yajl's callbacks over a Kineto
 * trace (kineto_callbacks.h): which keys of an event and its args are kept,
 * their values checked and converted as they come. */
#define _POSIX_C_SOURCE 200809L

#include "import/kineto_callbacks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "import/content_hash.h"
#include "import/kineto_event.h"
#include "import/kineto_numbers.h"

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
        if (!gar_kineto_us_text_to_ns(s, n, &ns, &negative)) {
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
        if (!gar_kineto_integer_text(s, n, &ev->id_negative[which], &ev->id_magnitude[which]))
            ev->bad_id[which] = "not an integer below 2^64";
        return 1;
    }
    int64_t v;
    if (gar_kineto_int_text(s, n, &v)) {
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
        if (!gar_kineto_int_text((const char *)s, n, &ev->value[K_TID]) || ev->value[K_TID] < 0)
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

static int on_map_key(void *ctx, const unsigned char *s, size_t n)
{
    kineto *k = ctx;
    if (k->depth == 1) { /* a key of the top-level object */
        bool events = text_is(s, n, "traceEvents");
        if (events && k->events_key_seen) {
            k->json_fault = "a second traceEvents key (" GAR_KINETO_TWICE ")";
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
                return gar_kineto_refuse_event(k, gar_kineto_key_text(k->key),
                                               GAR_KINETO_DUPLICATE_KEY);
            if (k->ev.duplicate == K_NONE)
                k->ev.duplicate = k->key;
        }
        k->ev.present |= bit;
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
        ok = gar_kineto_finish_event(k);
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

const yajl_callbacks gar_kineto_callbacks = {
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
