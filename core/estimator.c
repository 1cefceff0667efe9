/* core/estimator.c — the min-of-window deadline estimator and the point table.
 *
 * The window's minimum is kept as samples arrive, for the window the last
 * sample came under (a run asks under one window, wait after wait): a
 * prediction reads it, and the ring is scanned only when a sample leaves
 * that was the minimum, or when asked under another window. */
#include <gar/estimator.h>

#include <assert.h>

#include "estimator_window.h"
#include "splitmix64.h"
#include "text.h"

/* Refuses deadline parameters the rule cannot use, naming `function`. */
static int check_deadline(const gar_deadline *deadline, const char *function, gar_error *err)
{
    if (deadline == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, function, "deadline", "is NULL");
    if (deadline->window >= 1 && deadline->window <= GAR_WINDOW_MAX &&
        deadline->max_sleep_ns != 0 && deadline->min_sleep_ns <= deadline->max_sleep_ns)
        return 0; /* the common case, checked before any text is made: twice a wait */
    char why[96];
    gar__text_out text = gar__text_out_make(why, sizeof why);
    if (deadline->window < 1 || deadline->window > GAR_WINDOW_MAX) {
        gar__text_puts(&text, "has window ");
        gar__text_put_u64(&text, deadline->window);
        gar__text_puts(&text, ", not 1..");
        gar__text_put_u64(&text, GAR_WINDOW_MAX);
    } else if (deadline->max_sleep_ns == 0) {
        gar__text_puts(&text, "has max_sleep_ns 0");
    } else if (deadline->min_sleep_ns > deadline->max_sleep_ns) {
        gar__text_puts(&text, "has min_sleep_ns ");
        gar__text_put_u64(&text, deadline->min_sleep_ns);
        gar__text_puts(&text, " above max_sleep_ns ");
        gar__text_put_u64(&text, deadline->max_sleep_ns);
    } else {
        return 0;
    }
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, function, "deadline", why);
}

void gar_estimator_init(gar_estimator *est)
{
    assert(est != NULL);
    *est = (gar_estimator){ 0 };
}

size_t gar_estimator_count(const gar_estimator *est)
{
    assert(est != NULL);
    return est->count;
}

gar_dur_ns gar__estimator_scan_min(const gar_estimator *est, uint32_t window)
{
    unsigned look = est->count < window ? est->count : window;
    /* The last `look` samples, newest first, in loops whose lengths are the
     * window's (the same each call once the point is warm): two runs split
     * where the ring wraps had lengths that moved with `next`, and their
     * exits mispredicted about once a prediction.  Four minima side by side,
     * so the chain of comparisons is a quarter as long. */
    const unsigned last = est->next + GAR_WINDOW_MAX - 1; /* the newest, unwrapped */
    gar_dur_ns m[4] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
    unsigned k = 0;
    for (; k + 4 <= look; k += 4)
        for (unsigned j = 0; j < 4; j++) {
            gar_dur_ns x = est->ring[(last - k - j) % GAR_WINDOW_MAX];
            m[j] = x < m[j] ? x : m[j];
        }
    for (; k < look; k++) {
        gar_dur_ns x = est->ring[(last - k) % GAR_WINDOW_MAX];
        m[0] = x < m[0] ? x : m[0];
    }
    gar_dur_ns a = m[0] < m[1] ? m[0] : m[1], b = m[2] < m[3] ? m[2] : m[3];
    return a < b ? a : b;
}

int gar_estimator_prediction(const gar_estimator *est, const gar_deadline *deadline,
                             gar_dur_ns *p_ns, gar_error *err)
{
    assert(est != NULL && p_ns != NULL);
    int rc = check_deadline(deadline, "gar_estimator_prediction", err);
    if (rc < 0)
        return rc;
    if (est->count == 0)
        return 0;
    *p_ns = gar__estimator_window_min(est, deadline->window);
    return 1;
}

int gar_estimator_observe(gar_estimator *est, const gar_deadline *deadline, gar_sample sample,
                          gar_error *err)
{
    assert(est != NULL);
    int rc = check_deadline(deadline, "gar_estimator_observe", err);
    if (rc < 0)
        return rc;
    switch (sample.kind) {
    case GAR_SAMPLE_NONE:
        return 0;
    case GAR_SAMPLE_EXACT:
    case GAR_SAMPLE_LATE:
        gar__estimator_take(est, deadline->window, sample);
        return 0;
    }
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_estimator_observe", "sample",
                         "has a kind that is none of NONE, EXACT, LATE");
}

int gar_estimator_sleep(const gar_estimator *est, const gar_deadline *deadline,
                        gar_dur_ns *sleep_ns, gar_error *err)
{
    assert(est != NULL && sleep_ns != NULL);
    int rc = check_deadline(deadline, "gar_estimator_sleep", err);
    if (rc < 0)
        return rc;
    if (est->count == 0)
        return 0;
    return gar_deadline_sleep_for(deadline, gar__estimator_window_min(est, deadline->window),
                                  sleep_ns);
}

int gar_deadline_sleep_for(const gar_deadline *deadline, gar_dur_ns p_ns, gar_dur_ns *sleep_ns)
{
    return gar__deadline_sleep_for(deadline, p_ns, sleep_ns);
}

/* ---- the point table --------------------------------------------------- */

/* splitmix64's finaliser: distinct keys stay distinct and every input bit
 * reaches every output bit. */
uint64_t gar_point_key_hash(uint64_t key)
{
    return gar_splitmix64_mix(key);
}

int gar_point_table_init(gar_point_table *table, gar_point_slot *slots, size_t capacity,
                         gar_error *err)
{
    if (table == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_point_table_init", "table",
                             "is NULL");
    if (slots == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_point_table_init", "slots",
                             "is NULL");
    if (capacity == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_point_table_init", "capacity",
                             "is 0: a table needs at least one slot");
    for (size_t i = 0; i < capacity; i++)
        slots[i] = (gar_point_slot){ .used = false };
    *table = (gar_point_table){ .slots = slots, .capacity = capacity, .count = 0 };
    return 0;
}

/* The slot holding `key`, or else the empty slot where it would go, or NULL
 * when it is absent and no slot is free. */
static gar_point_slot *probe(const gar_point_table *table, uint64_t key)
{
    size_t i = (size_t)(gar_point_key_hash(key) % table->capacity);
    for (size_t probes = 0; probes < table->capacity; probes++) {
        gar_point_slot *slot = &table->slots[i];
        if (!slot->used || slot->key == key)
            return slot;
        i = i + 1 < table->capacity ? i + 1 : 0;
    }
    return NULL;
}

int gar_point_table_get(gar_point_table *table, uint64_t key, gar_estimator **est,
                        gar_error *err)
{
    assert(table != NULL && table->slots != NULL && est != NULL);
    gar_point_slot *slot = probe(table, key);
    if (slot == NULL) {
        char capacity[GAR__U64_TEXT_BYTES];
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the point table",
                             gar__u64_text(table->capacity, capacity));
    }
    *est = &slot->estimator;
    if (slot->used)
        return 0;
    slot->used = true;
    slot->key = key;
    gar_estimator_init(&slot->estimator);
    table->count++;
    return 1;
}

gar_estimator *gar_point_table_find(gar_point_table *table, uint64_t key)
{
    assert(table != NULL && table->slots != NULL);
    gar_point_slot *slot = probe(table, key);
    return slot != NULL && slot->used ? &slot->estimator : NULL;
}

size_t gar_point_table_count(const gar_point_table *table)
{
    assert(table != NULL);
    return table->count;
}

size_t gar_point_table_capacity(const gar_point_table *table)
{
    assert(table != NULL);
    return table->capacity;
}
