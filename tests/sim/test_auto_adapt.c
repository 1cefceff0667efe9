/* tests/sim/test_auto_adapt.c — "auto:p99_us=B" adapts, in the simulator:
 * after the workload changes speed (a `shift` trace: five times faster, and
 * back) and after the host's sleep wakes turn five times slower, the p99
 * overshoot over a sliding window of 1 000 waits is back within the budget
 * within 500 waits.  Virtual time throughout; the figures are printed
 * (`meson test -C build auto_adapt -v`).
 *
 * The host: a poll host (no word wait) whose blocking wake is too slow for
 * the budget, so the rule polls after a sleep and the sleep is what must
 * adapt.  Its costs are typical of a bare-metal host (data/hosts/waitpkg.host
 * without the word wait). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/gen.h"
#include "sim/replay.h"

#define US GAR_NS_PER_US
#define BUDGET_US 20
#define WINDOW 1000
#define WAITS_MAX 12000

static gar_host_dist dist5(gar_dur_ns p0, gar_dur_ns p50, gar_dur_ns p90, gar_dur_ns p99,
                           gar_dur_ns p100)
{
    return (gar_host_dist){ 5, { 0, 500000, 900000, 990000, 1000000 }, { p0, p50, p90, p99, p100 } };
}

static gar_host_profile bare_metal_poll_host(void)
{
    return (gar_host_profile){
        .query_ns = 500,
        .clock_ns = 20,
        .word_wait = false,
        .sleep_overshoot = dist5(2000, 6000, 12000, 30000, 150000),
        .block_wake = dist5(4000, 12000, 25000, 60000, 300000),
        .park_wake = dist5(250, 330, 400, 900, 5000),
        .poll_period = dist5(20, 30, 50, 100, 300),
    };
}

/* Every wait's overshoot, in order. */
typedef struct seen {
    size_t n;
    gar_dur_ns overshoot[WAITS_MAX];
    gar_mono_ns start[WAITS_MAX];
} seen;

static void on_wait(void *context, const gar_replay_wait *w)
{
    seen *s = context;
    assert_true(s->n < WAITS_MAX);
    s->overshoot[s->n] = w->overshoot_ns;
    s->start[s->n] = w->start;
    s->n++;
}

static int by_value(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return x < y ? -1 : x > y;
}

static gar_dur_ns window_p99(const seen *s, size_t end)
{
    static gar_dur_ns tmp[WINDOW];
    memcpy(tmp, s->overshoot + end + 1 - WINDOW, sizeof tmp);
    qsort(tmp, WINDOW, sizeof tmp[0], by_value);
    return tmp[(99 * WINDOW + 99) / 100 - 1];
}

/* Waits after `change` until every later window (to `until`) of WINDOW
 * waits has its p99 within the budget: 0 when none went over. */
static size_t recovery(const seen *s, size_t change, size_t until)
{
    size_t k = 0;
    for (size_t end = change; end < until; end++)
        if (window_p99(s, end) > BUDGET_US * US)
            k = end + 1 - change;
    return k;
}

static size_t misses(const seen *s, size_t from, size_t to)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        n += s->overshoot[i] > BUDGET_US * US;
    return n;
}

static void run(const gar_trace *trace, const gar_host_profile *host,
                const gar_host_profile *after, gar_mono_ns change_ns, seen *s,
                gar_replay_metrics *m)
{
    gar_plan plan;
    assert_int_equal(gar_plan_parse("auto:p99_us=20", &plan, NULL), 0);
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = trace;
    c.plan = &plan;
    c.host = host;
    c.host_after = after;
    c.host_change_ns = change_ns;
    c.seed = 5;
    c.on_wait = on_wait;
    c.on_wait_context = s;
    s->n = 0;
    gar_error err;
    assert_int_equal(gar_replay_run(&c, m, &err), 0);
    assert_int_equal(s->n, trace->count);
    assert_int_equal(m->auto_counts.over_budget, 0);
    assert_int_equal(m->auto_counts.poll, trace->count);
    /* The waits over B the replay counts are those whose overshoot was. */
    assert_int_equal(m->auto_over_budget_waits, misses(s, 0, s->n));
}

static void after_the_workload_shifts_it_is_back_within_budget_in_500_waits(void **state)
{
    (void)state;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_SHIFT);
    const char *params[] = { "mean_us=2000", "sd_us=100", "factor=0.2", "shift_at=3000",
                             "shift_waits=3000" };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        assert_int_equal(gar_gen_spec_set(&spec, params[i], NULL), 0);
    gar_trace trace;
    assert_int_equal(gar_gen_run(&spec, 9000, 1, &trace, NULL), 0);
    gar_host_profile host = bare_metal_poll_host();
    static seen s;
    gar_replay_metrics m;
    run(&trace, &host, NULL, 0, &s, &m);
    size_t faster = recovery(&s, 3000, 6000), slower = recovery(&s, 6000, 9000);
    print_message("shift x0.2 at 3000: %zu waits to recover, %zu misses in the next 1000; "
                  "back at 6000: %zu waits, %zu misses; whole run p99 %llu ns, busy %.4f, "
                  "sleeps %llu, late %llu, probes %llu\n",
                  faster, misses(&s, 3000, 4000), slower, misses(&s, 6000, 7000),
                  (unsigned long long)m.overshoot_ns.p99, m.busy_frac,
                  (unsigned long long)m.auto_counts.sleeps, (unsigned long long)m.auto_counts.late,
                  (unsigned long long)m.auto_counts.probes);
    assert_true(misses(&s, 3000, 4000) >= 1); /* the shift was felt: its first wakes were late */
    assert_true(faster <= 500);
    assert_true(slower <= 500);
    assert_true(m.overshoot_ns.p99 <= BUDGET_US * US);
    /* It slept: the budget was met by choice, not by polling throughout. */
    assert_true(m.auto_counts.sleeps > trace.count / 2);
    assert_true(m.busy_frac < 0.5);
    gar_trace_free(&trace);
}

static void after_the_hosts_wakes_slow_down_it_is_back_within_budget_in_500_waits(void **state)
{
    (void)state;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_JITTER);
    assert_int_equal(gar_gen_spec_set(&spec, "sd_us=100", NULL), 0);
    gar_trace trace;
    assert_int_equal(gar_gen_run(&spec, 8000, 2, &trace, NULL), 0);
    gar_host_profile host = bare_metal_poll_host();
    gar_host_profile slower = host;
    for (unsigned i = 0; i < slower.sleep_overshoot.count; i++)
        slower.sleep_overshoot.value[i] *= 5;
    const size_t change_at = 3000;
    gar_mono_ns change_ns = trace.row[change_at].start_ns;
    static seen s;
    gar_replay_metrics m;
    run(&trace, &host, &slower, change_ns, &s, &m);
    size_t k = recovery(&s, change_at, 8000);
    print_message("sleep overshoot x5 at wait 3000: %zu waits to recover, %zu misses in the "
                  "next 1000; whole run p99 %llu ns, busy %.4f\n",
                  k, misses(&s, change_at, change_at + 1000),
                  (unsigned long long)m.overshoot_ns.p99, m.busy_frac);
    assert_true(k <= 500);
    /* The change reached the run: the same trace on the unchanged host
     * spends less CPU (its sleeps need not leave room for slow wakes). */
    static seen same;
    gar_replay_metrics unchanged;
    run(&trace, &host, NULL, 0, &same, &unchanged);
    assert_true(unchanged.busy_frac < m.busy_frac);
    gar_trace_free(&trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(after_the_workload_shifts_it_is_back_within_budget_in_500_waits),
        cmocka_unit_test(after_the_hosts_wakes_slow_down_it_is_back_within_budget_in_500_waits),
    };
    return cmocka_run_group_tests_name("auto_adapt", tests, NULL, NULL);
}
