/* core/manual_clock.c — virtual time and its timers.
 *
 * The pending timers form a doubly linked intrusive list sorted by
 * (due time, order added).  A min-heap would bound insertion at O(log n), but
 * the list is the better fit here:
 *  - ties in the order added come free: a new timer goes after every timer due
 *    at or before its time, so no sequence number is kept or compared;
 *  - insertion scans from the tail, and timers are nearly always added in
 *    due order (now + a delay, with now only growing), so it stops at once;
 *  - taking the earliest and cancelling are O(1), with no re-sifting while
 *    callbacks add and cancel timers in the middle of a firing.
 * A clock drives a test or one simulated host, where tens of timers pending
 * at once is a lot; a workload with thousands of timers arriving out of order
 * would want a heap instead. */
#include <gar/manual_clock.h>

#include <assert.h>

static gar_mono_ns port_now(void *ctx)
{
    return gar_manual_clock_now(ctx);
}

void gar_manual_clock_init(gar_manual_clock *clock)
{
    assert(clock != NULL);
    clock->now = 0;
    clock->head = NULL;
    clock->tail = NULL;
    clock->pending = 0;
    clock->firing = 0;
}

gar_clock gar_manual_clock_port(gar_manual_clock *clock)
{
    assert(clock != NULL);
    return (gar_clock){ .now = port_now, .ctx = clock };
}

gar_mono_ns gar_manual_clock_now(const gar_manual_clock *clock)
{
    assert(clock != NULL);
    return clock->now;
}

static void unlink_timer(gar_manual_clock *clock, gar_manual_timer *timer)
{
    assert(timer->owner == clock && clock->pending > 0);
    if (timer->prev != NULL)
        timer->prev->next = timer->next;
    else
        clock->head = timer->next;
    if (timer->next != NULL)
        timer->next->prev = timer->prev;
    else
        clock->tail = timer->prev;
    timer->owner = NULL;
    timer->prev = NULL;
    timer->next = NULL;
    clock->pending--;
}

/* Links `timer` after the last pending timer due at or before its time. */
static void link_timer(gar_manual_clock *clock, gar_manual_timer *timer)
{
    gar_manual_timer *before = clock->tail;
    while (before != NULL && before->due > timer->due)
        before = before->prev;
    gar_manual_timer *after = before != NULL ? before->next : clock->head;
    timer->prev = before;
    timer->next = after;
    if (before != NULL)
        before->next = timer;
    else
        clock->head = timer;
    if (after != NULL)
        after->prev = timer;
    else
        clock->tail = timer;
    timer->owner = clock;
    clock->pending++;
}

/* Fires, earliest first, every timer due at or before `target`, stepping the
 * clock to each one's due time; then steps the clock to `target` unless a
 * callback already moved it further.  Timers that callbacks add or cancel are
 * seen as the loop goes, because it takes the list's head afresh each time. */
static void run_until(gar_manual_clock *clock, gar_mono_ns target)
{
    clock->firing++;
    while (clock->head != NULL && clock->head->due <= target) {
        gar_manual_timer *timer = clock->head;
        /* add() never links a timer before now, so time only moves forward. */
        assert(timer->due >= clock->now);
        unlink_timer(clock, timer);
        clock->now = timer->due;
        timer->fn(clock, timer, timer->ctx);
    }
    clock->firing--;
    if (target > clock->now)
        clock->now = target;
}

void gar_manual_clock_advance(gar_manual_clock *clock, gar_dur_ns d)
{
    assert(clock != NULL);
    run_until(clock, gar_after(clock->now, d));
}

void gar_manual_clock_set(gar_manual_clock *clock, gar_mono_ns at)
{
    assert(clock != NULL);
    if (at > clock->now)
        run_until(clock, at);
}

void gar_manual_timer_init(gar_manual_timer *timer, gar_manual_timer_fn fn, void *ctx)
{
    assert(timer != NULL && fn != NULL);
    timer->owner = NULL;
    timer->prev = NULL;
    timer->next = NULL;
    timer->due = 0;
    timer->fn = fn;
    timer->ctx = ctx;
}

bool gar_manual_timer_pending(const gar_manual_timer *timer)
{
    assert(timer != NULL);
    return timer->owner != NULL;
}

int gar_manual_clock_add(gar_manual_clock *clock, gar_manual_timer *timer, gar_mono_ns due,
                         gar_error *err)
{
    assert(clock != NULL && timer != NULL && timer->fn != NULL);
    if (timer->owner != NULL && timer->owner != clock)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_manual_clock_add", "timer",
                             "is pending on another clock");
    if (timer->owner == clock)
        unlink_timer(clock, timer);
    timer->due = due > clock->now ? due : clock->now;
    link_timer(clock, timer);
    /* Keep "pending means strictly future" true outside callbacks; inside
     * one, the firing loop already running will reach this timer. */
    if (clock->firing == 0 && timer->due == clock->now)
        run_until(clock, clock->now);
    return 0;
}

bool gar_manual_clock_cancel(gar_manual_clock *clock, gar_manual_timer *timer)
{
    assert(clock != NULL && timer != NULL);
    if (timer->owner != clock)
        return false;
    unlink_timer(clock, timer);
    return true;
}

size_t gar_manual_clock_pending_timers(const gar_manual_clock *clock)
{
    assert(clock != NULL);
    return clock->pending;
}

bool gar_manual_clock_next_deadline(const gar_manual_clock *clock, gar_mono_ns *out)
{
    assert(clock != NULL && out != NULL);
    if (clock->head == NULL)
        return false;
    *out = clock->head->due;
    return true;
}
