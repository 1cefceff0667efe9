/* experiments/import/kineto_event.h — one event of a Kineto trace as the
 * reader gathers it, and the reader's state between yajl's callbacks
 * (kineto_callbacks.c fills them); kineto_event.c turns a kept event into
 * the import's records.  The format: import_kineto.c.  For
 * experiments/import/import_kineto.c and kineto_*.c only. */
#ifndef GAR_KINETO_EVENT_H
#define GAR_KINETO_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "import/import.h"

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

/* A key given twice: refused, since JSON readers differ on which counts. */
#define GAR_KINETO_TWICE "JSON readers differ on which value counts"
#define GAR_KINETO_DUPLICATE_KEY "a key given twice (" GAR_KINETO_TWICE ")"

/* Refuses event k->events at `column` with `fault` into k->err (k->failed
 * set).  Returns 0, which stops yajl. */
int gar_kineto_refuse_event(kineto *k, const char *column, const char *fault);

/* A key's name as errors give it ("args.stream"); "-" for none. */
const char *gar_kineto_key_text(key k);

/* The event just closed (k->ev): a kept one checked and added to the import
 * as records, any other left.  Returns 1 to go on, or 0 (stops yajl) with
 * the refusal in k->failed. */
int gar_kineto_finish_event(kineto *k);

#endif
