/* experiments/import/kineto_event.c — a Kineto event, once closed, into
 * the import's records (kineto_event.h): kernels, copies and sets on their
 * stream, host calls, and syncs with what they wait on. */
#define _POSIX_C_SOURCE 200809L

#include "import/kineto_event.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "import/content_hash.h"

int gar_kineto_refuse_event(kineto *k, const char *column, const char *fault)
{
    char where[40];
    snprintf(where, sizeof where, "event %" PRIu64, k->events);
    k->failed = gar_error_set(k->err, GAR_E_INVALID_TRACE, 4, k->file, where, column, fault);
    return 0; /* stops yajl */
}

const char *gar_kineto_key_text(key k)
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
        gar_kineto_refuse_event(k, gar_kineto_key_text(which), fault);
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
        return gar_kineto_refuse_event(k, ev->seen[K_TS] ? "dur" : "ts",
                                       "a GPU op or host call without ts and dur");
    if (ev->dur_ns > UINT64_MAX - ev->ts_ns)
        return gar_kineto_refuse_event(k, "dur", "ts + dur passes 2^64 ns");
    *start = ev->ts_ns;
    *end = ev->ts_ns + ev->dur_ns;
    return 1;
}

int gar_kineto_finish_event(kineto *k)
{
    event *ev = &k->ev;
    if (!ev->complete || ev->cat == CAT_OTHER)
        return 1;
    if (ev->duplicate != K_NONE)
        return gar_kineto_refuse_event(k, gar_kineto_key_text(ev->duplicate),
                                       GAR_KINETO_DUPLICATE_KEY);
    if (ev->bad_time != K_NONE)
        return gar_kineto_refuse_event(
            k, ev->bad_time == K_TS ? "ts" : "dur",
            ev->negative_time ? "a negative time" : "not a number of microseconds below 2^64 ns");
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
            return gar_kineto_refuse_event(k, field,
                                           dev ? "a GPU op without a device id below 2^32 - 1"
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
