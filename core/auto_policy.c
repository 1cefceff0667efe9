/* core/auto_policy.c — the auto plan's rule (gar/auto_policy.h): the park
 * by its tail, the sleep by the chance that it wakes too late, the least
 * expected busy time among what is left, and what each report teaches. */
#include <gar/auto_policy.h>

#include <string.h>

#include "auto_overshoot.h"

#define NS_PER_US GAR_NS_PER_US
#define SLEEP_NS_MAX ((gar_dur_ns)GAR_SLEEP_US_MAX * NS_PER_US)
#define BUDGET_NS_MAX ((gar_dur_ns)GAR_AUTO_P99_US_MAX * NS_PER_US)
#define UNKNOWN_NS GAR_NS_PER_S /* a residual nothing is known of costs a poll this much */

/* ---- distributions ------------------------------------------------------ */

static bool dist_valid(const gar_auto_dist *d)
{
    if (d->count < 2 || d->count > GAR_AUTO_QUANTILES_MAX || d->level[0] != 0 ||
        d->level[d->count - 1] != GAR_AUTO_LEVEL_ONE)
        return false;
    for (unsigned i = 1; i < d->count; i++)
        if (d->level[i] <= d->level[i - 1] || d->value[i] < d->value[i - 1])
            return false;
    return true;
}

/* The quantile at `level` (ppm), linear between the listed ones, rounded up. */
static gar_dur_ns dist_quantile(const gar_auto_dist *d, uint32_t level)
{
    unsigned i = 0;
    while (i + 2 < d->count && d->level[i + 1] <= level)
        i++;
    double f = (double)(level - d->level[i]) / (double)(d->level[i + 1] - d->level[i]);
    double v = (double)d->value[i] + f * (double)(d->value[i + 1] - d->value[i]);
    gar_dur_ns q = (gar_dur_ns)v;
    return (double)q < v ? q + 1 : q;
}

/* P(X > v), in [0, 1]. */
static double dist_above(const gar_auto_dist *d, gar_dur_ns v)
{
    if (v < d->value[0])
        return 1.0;
    if (v >= d->value[d->count - 1])
        return 0.0;
    unsigned i = 0;
    while (d->value[i + 1] <= v)
        i++;
    double f = (double)(v - d->value[i]) / (double)(d->value[i + 1] - d->value[i]);
    double cdf = (double)d->level[i] + f * (double)(d->level[i + 1] - d->level[i]);
    return 1.0 - cdf / (double)GAR_AUTO_LEVEL_ONE;
}

/* The mean, by the midpoints of the segments. */
static gar_dur_ns dist_mean(const gar_auto_dist *d)
{
    double sum = 0.0;
    for (unsigned i = 0; i + 1 < d->count; i++)
        sum += (double)(d->level[i + 1] - d->level[i]) *
               ((double)d->value[i] + (double)d->value[i + 1]) / 2.0;
    return (gar_dur_ns)(sum / (double)GAR_AUTO_LEVEL_ONE);
}

static const gar_auto_dist *detect_of(const gar_auto_host *h, gar_park park)
{
    return park == GAR_PARK_BLOCK ? &h->block_detect
           : park == GAR_PARK_FLAG ? &h->park_detect
                                   : &h->poll_detect;
}

/* ---- the wake histogram: log-spaced buckets, eight an octave ---------- */

static unsigned floor_log2(uint64_t v)
{
    unsigned e = 0;
    for (unsigned step = 32; step > 0; step /= 2)
        if (v >> (e + step))
            e += step;
    return e;
}

static unsigned bucket_of(gar_dur_ns v)
{
    if (v < 16)
        return (unsigned)v;
    unsigned e = floor_log2(v);
    unsigned b = 16 + (e - 4) * 8 + (unsigned)((v >> (e - 3)) & 7);
    return b < GAR_AUTO_BUCKETS ? b : GAR_AUTO_BUCKETS - 1;
}

static gar_dur_ns bucket_floor(unsigned b)
{
    if (b < 16)
        return b;
    unsigned e = 4 + (b - 16) / 8;
    return (gar_dur_ns)(8 + (b - 16) % 8) << (e - 3);
}

/* Brings the mixture of prior and wakes up to date. */
static void refresh_above(gar_auto_policy *p)
{
    if (!p->above_stale)
        return;
    double prior = GAR_AUTO_PRIOR_WEIGHT, total = prior + p->wake_count;
    uint64_t seen = 0;
    for (unsigned b = GAR_AUTO_BUCKETS; b-- > 0;) {
        seen += p->wake_hist[b];
        p->above[b] = (prior * p->prior_above[b] / GAR_AUTO_LEVEL_ONE + (double)seen) / total;
    }
    p->above_stale = false;
}

/* P(O > v) for the mixture, by the bucket v falls in (counted whole: it errs
 * towards a later wake); 1 for v < 0. */
static double overshoot_above(gar_auto_policy *p, double v)
{
    if (v < 0.0)
        return 1.0;
    return p->above[bucket_of((gar_dur_ns)v)];
}

uint32_t gar_auto_overshoot_above(gar_auto_policy *policy, gar_dur_ns v)
{
    refresh_above(policy);
    return (uint32_t)(overshoot_above(policy, (double)v) * GAR_AUTO_LEVEL_ONE + 0.5);
}

/* ---- set-up ------------------------------------------------------------- */

/* gar's guesses for a host without a profile: the order of magnitude of a
 * Linux host's costs, erring towards the slow (a profile replaces them). */
void gar_auto_host_default(bool word_wait, gar_auto_host *out)
{
    if (out == NULL)
        return;
    *out = (gar_auto_host){
        .query_ns = 500,    /* a driver call that reads host memory */
        .clock_ns = 25,     /* clock_gettime through the vDSO */
        .poll_turn_ns = 50, /* a pause between two queries */
        .word_wait = word_wait,
        /* clock_nanosleep: tens of µs on a VM, a few on bare metal */
        .sleep_overshoot = { 5, { 0, 500000, 900000, 990000, 1000000 },
                             { 2000, 50000, 100000, 200000, 1000000 } },
        /* a poll sees the store within a cache miss or two */
        .poll_detect = { 5, { 0, 500000, 900000, 990000, 1000000 },
                         { 100, 600, 1500, 5000, 50000 } },
        /* a hardware word wait wakes in well under a µs, plus the query */
        .park_detect = { 5, { 0, 500000, 900000, 990000, 1000000 },
                         { 600, 1000, 2000, 10000, 100000 } },
        /* an interrupt and a futex wake */
        .block_detect = { 5, { 0, 500000, 900000, 990000, 1000000 },
                          { 5000, 50000, 100000, 200000, 1000000 } },
    };
}

int gar_auto_init(gar_auto_policy *policy, const gar_auto_host *host, gar_error *err)
{
    static const char fn[] = "gar_auto_init";
    if (policy == NULL || host == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn,
                             policy == NULL ? "policy" : "host", "is NULL");
    const struct {
        const char *name;
        const gar_auto_dist *d;
    } dists[] = {
        { "host->sleep_overshoot", &host->sleep_overshoot },
        { "host->poll_detect", &host->poll_detect },
        { "host->park_detect", &host->park_detect },
        { "host->block_detect", &host->block_detect },
    };
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++)
        if (!dist_valid(dists[i].d))
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, dists[i].name,
                                 "is not a distribution (see gar/auto_policy.h)");
    memset(policy, 0, sizeof *policy);
    policy->host = *host;
    policy->poll_detect_mean = dist_mean(&host->poll_detect);
    for (unsigned b = 0; b < GAR_AUTO_BUCKETS; b++) {
        gar_dur_ns floor = bucket_floor(b);
        double above = floor == 0 ? 1.0 : dist_above(&host->sleep_overshoot, floor - 1);
        policy->prior_above[b] = (uint32_t)(above * GAR_AUTO_LEVEL_ONE + 0.5);
    }
    policy->above_stale = true;
    refresh_above(policy);
    return 0;
}

void gar_auto_point_init(gar_auto_point *point)
{
    if (point != NULL)
        memset(point, 0, sizeof *point);
}

/* ---- the point's residuals ---------------------------------------------- */

/* A window entry: the residual (or a late wake's bound) times two, plus 1
 * when exact; so a bound sorts before an exact residual of the same value. */
#define KEY_VALUE_MAX (UINT64_MAX / 4)

static uint64_t key_of(gar_dur_ns v, bool exact)
{
    if (v > KEY_VALUE_MAX)
        v = KEY_VALUE_MAX;
    return v * 2 + (exact ? 1 : 0);
}

/* The first index in sorted[0..n-1] whose key is >= k. */
static size_t lower_bound(const uint64_t *sorted, size_t n, uint64_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void point_push(gar_auto_point *pt, uint64_t key)
{
    size_t n = pt->count;
    if (n == GAR_AUTO_WINDOW) {
        size_t at = lower_bound(pt->sorted, n, pt->ring[pt->next]);
        memmove(&pt->sorted[at], &pt->sorted[at + 1], (n - at - 1) * sizeof pt->sorted[0]);
        n--;
    }
    size_t at = lower_bound(pt->sorted, n, key);
    memmove(&pt->sorted[at + 1], &pt->sorted[at], (n - at) * sizeof pt->sorted[0]);
    pt->sorted[at] = key;
    pt->ring[pt->next] = key;
    pt->next = (uint16_t)((pt->next + 1) % GAR_AUTO_WINDOW);
    pt->count = (uint16_t)(n + 1);
}

/* The residual's distribution as the rule reads it: a mass at each exact
 * residual of the window by the reverse Kaplan-Meier estimate (a late wake
 * says only "at most w", so its share goes to the exact residuals below w,
 * each in proportion); the share of late wakes below every exact residual
 * at half the least value held; and the unseen, 1/(n + 1), below the least
 * by twice the spread of the lowest 1/32 of the window (never lower than
 * half the least). */
typedef struct summary {
    unsigned terms;
    double mass[GAR_AUTO_WINDOW + 2];
    double value[GAR_AUTO_WINDOW + 2];
    double largest; /* the largest value held, exact or a bound */
} summary;

static void summarise(const gar_auto_point *pt, summary *s)
{
    size_t n = pt->count;
    double below = 1.0; /* P(r <= the entry's value), walking down */
    double scale = (double)n / ((double)n + 1.0);
    unsigned t = 2;
    for (size_t i = n; i-- > 0;) {
        if ((pt->sorted[i] & 1) == 0)
            continue; /* a bound: no mass of its own */
        double here = below / (double)(i + 1); /* i + 1 entries at or below it */
        s->mass[t] = here * scale;
        s->value[t] = (double)(pt->sorted[i] / 2);
        t++;
        below -= here;
    }
    double least = (double)(pt->sorted[0] / 2);
    double low = (double)(pt->sorted[n / GAR_AUTO_SUMMARY] / 2); /* the lowest 1/32's top */
    double reach = least - 2.0 * (low - least);
    s->mass[0] = 1.0 / ((double)n + 1.0);
    s->value[0] = reach > least / 2.0 ? reach : least / 2.0;
    s->mass[1] = below * scale; /* late wakes below every exact residual */
    s->value[1] = least / 2.0;
    s->largest = (double)(pt->sorted[n - 1] / 2);
    s->terms = t;
}

/* The chance that a sleep of `sleep` wakes (and its query answers) more
 * than `budget` after the completion. */
static double miss_chance(gar_auto_policy *p, const summary *s, double sleep, double budget)
{
    double shift = sleep + (double)p->host.query_ns - budget;
    double miss = 0.0;
    for (unsigned t = 0; t < s->terms; t++)
        miss += s->mass[t] * overshoot_above(p, s->value[t] - shift);
    return miss;
}

/* Rule 2: the longest sleep whose miss chance is within `allowance`; 0
 * when even a microsecond's is not. */
static gar_dur_ns longest_sleep(gar_auto_policy *p, const summary *s, gar_dur_ns budget,
                                double allowance)
{
    double lo = (double)NS_PER_US;
    if (miss_chance(p, s, lo, (double)budget) > allowance)
        return 0;
    double hi = s->largest + (double)budget + (double)NS_PER_US;
    if (hi > (double)SLEEP_NS_MAX)
        hi = (double)SLEEP_NS_MAX;
    if (miss_chance(p, s, hi, (double)budget) <= allowance)
        return (gar_dur_ns)hi;
    while (hi - lo > 100.0) {
        double mid = (lo + hi) / 2.0;
        if (miss_chance(p, s, mid, (double)budget) <= allowance)
            lo = mid;
        else
            hi = mid;
    }
    return (gar_dur_ns)lo;
}

/* The expected time from `wake` (after the start) to the completion, when
 * that is later: what a wait spends in its park stage. */
static double expected_wait_after(const summary *s, bool known, double wake)
{
    if (!known)
        return (double)UNKNOWN_NS;
    double sum = 0.0;
    for (unsigned t = 0; t < s->terms; t++)
        if (s->value[t] > wake)
            sum += s->mass[t] * (s->value[t] - wake);
    return sum;
}

/* Rule 3: a park's expected busy time, with or without its sleep. */
static double expected_busy(const gar_auto_policy *p, gar_park park, const summary *s, bool known,
                            gar_dur_ns sleep)
{
    const gar_auto_host *h = &p->host;
    double call = (double)(h->query_ns + h->clock_ns);
    double clock = (double)h->clock_ns;
    if (park == GAR_PARK_BLOCK)
        return call;
    double wake = sleep > 0 ? (double)sleep + (double)dist_quantile(&h->sleep_overshoot, 500000)
                            : 0.0;
    double after = expected_wait_after(s, known, wake);
    double slept = sleep > 0 ? clock + call : 0.0; /* the sleep's clock read, the wake query */
    if (park == GAR_PARK_POLL)
        return call + slept + after + (double)p->poll_detect_mean +
               (double)(h->poll_turn_ns + h->query_ns + h->clock_ns);
    double park_ns = (double)GAR_AUTO_FLAG_PARK_US * NS_PER_US;
    double backstop_ns = (double)GAR_AUTO_FLAG_BACKSTOP_US * NS_PER_US;
    return 3.0 * call + slept + after / backstop_ns * call + (after / park_ns + 1.0) * clock;
}

static gar_plan plan_for(gar_park park, bool sleeps)
{
    gar_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.park = park;
    if (park == GAR_PARK_FLAG) {
        plan.park_ns = (gar_dur_ns)GAR_AUTO_FLAG_PARK_US * NS_PER_US;
        plan.backstop_ns = (gar_dur_ns)GAR_AUTO_FLAG_BACKSTOP_US * NS_PER_US;
    }
    if (sleeps) {
        plan.predict = true;
        plan.deadline = (gar_deadline){ .margin_ns = 0, .min_sleep_ns = 0,
                                        .max_sleep_ns = SLEEP_NS_MAX, .window = 1 };
    }
    return plan;
}

/* ---- rule 5: the late-wake accounts ---------------------------------------- */


/* A sleep shortened by `steps` backoff steps of a quarter each; under a
 * microsecond it is none. */
static gar_dur_ns backed_off(gar_dur_ns sleep, unsigned steps)
{
    for (unsigned k = 0; k < steps && sleep >= NS_PER_US; k++)
        sleep -= sleep / GAR_AUTO_BACKOFF_DIV;
    return sleep >= NS_PER_US ? sleep : 0;
}

/* One account: pays in what the wait earned, charges a late wake; past
 * the slack a step of backoff is taken and the account starts square; a
 * late wake's worth earned beyond square gives a step back. */
static void settle(int64_t *account, uint8_t *backoff, const gar_auto_choice *c, bool late,
                   unsigned slack)
{
    const int64_t one = GAR_AUTO_LEVEL_ONE;
    *account -= (int64_t)c->earn_ppm;
    if (late)
        *account += one;
    if (*account >= (int64_t)slack * one) {
        if (*backoff < GAR_AUTO_BACKOFF_MAX)
            (*backoff)++;
        *account = 0;
    } else if (*account <= -one) {
        if (*backoff > 0)
            (*backoff)--;
        *account = *backoff > 0 ? 0 : -one;
    }
}

/* Pays what the wait earned into both accounts and charges a late wake. */
static void settle_lates(gar_auto_policy *p, gar_auto_point *pt, const gar_auto_choice *c,
                         bool late)
{
    settle(&pt->late_account, &pt->backoff, c, late, GAR_AUTO_POINT_SLACK);
    settle(&p->late_account, &p->backoff, c, late, GAR_AUTO_POLICY_SLACK);
}

/* The part of the allowance a run of `waits` waits keeps unspent: one
 * standard deviation of a count at the line, sqrt(n * 1 %), as a share of
 * n, so sqrt(1 % / n).  The misses of a run are a count, and its p99 holds
 * only while the count stays under 1 % of it: spent to the line, about
 * half of all runs would cross it.  Newton's iteration from above: core
 * links no maths library, and a few steps reach a double's precision. */
static double run_margin(uint64_t waits)
{
    double x = (double)GAR_AUTO_MISS_PPM / GAR_AUTO_LEVEL_ONE / (double)(waits > 0 ? waits : 1);
    double r = x < 1.0 ? 1.0 : x;
    for (int i = 0; i < 64 && r * r - x > x * 1e-12; i++)
        r = (r + x / r) / 2.0;
    return r;
}

int gar_auto_decide(gar_auto_policy *policy, const gar_auto_point *point, gar_dur_ns budget_ns,
                    gar_auto_choice *out, gar_error *err)
{
    static const char fn[] = "gar_auto_decide";
    if (policy == NULL || point == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn,
                             policy == NULL ? "policy" : point == NULL ? "point" : "out",
                             "is NULL");
    if (budget_ns < NS_PER_US || budget_ns > BUDGET_NS_MAX)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "budget_ns",
                             "is outside 1 us .. 1 s");
    refresh_above(policy);

    /* Rule 1: the parks this host offers, each's own chance of exceeding
     * B, and which of them leave part of the allowance to the sleep. */
    const double allowance = (double)GAR_AUTO_MISS_PPM / GAR_AUTO_LEVEL_ONE;
    gar_park parks[3];
    size_t offered = 0;
    if (!policy->host.no_block)
        parks[offered++] = GAR_PARK_BLOCK;
    parks[offered++] = GAR_PARK_POLL;
    if (policy->host.word_wait)
        parks[offered++] = GAR_PARK_FLAG;
    double exceed[3] = { 1.0, 1.0, 1.0 }; /* by gar_park */
    bool any = false;
    gar_park least = GAR_PARK_POLL;
    for (size_t k = 0; k < offered; k++) {
        exceed[parks[k]] = dist_above(detect_of(&policy->host, parks[k]), budget_ns);
        any = any || exceed[parks[k]] < allowance;
        if (exceed[parks[k]] < exceed[least])
            least = parks[k];
    }

    /* Rule 2: each feasible park's sleep, once the point knows enough. */
    summary s;
    s.terms = 0;
    s.largest = 0.0;
    bool known = point->count > 0;
    if (known)
        summarise(point, &s);
    bool may_sleep = !policy->host.no_sleep && point->count >= GAR_AUTO_MIN_SAMPLES;
    unsigned backoff = (unsigned)point->backoff + policy->backoff;

    /* Rule 3 (or 4): the least expected busy time. */
    const double margin = run_margin(policy->counts.waits + 1);
    double best = 0.0;
    gar_park chosen = least;
    gar_dur_ns chosen_sleep = 0;
    bool found = false;
    for (size_t k = 0; k < offered; k++) {
        gar_park park = parks[k];
        if (any ? exceed[park] >= allowance : park != least)
            continue;
        /* The sleep's share: half what the park leaves less the run's
         * margin; past the line, none (rule 4). */
        double left = any ? (allowance - exceed[park] - margin) / 2.0 : 0.0;
        gar_dur_ns sleep = 0;
        if (may_sleep && park != GAR_PARK_BLOCK && left > 0.0) {
            sleep = longest_sleep(policy, &s, budget_ns, left);
            /* After a late wake the next wakes a budget earlier: it
             * measures the residuals a late wake hides, which are the ones
             * a miss is made of. */
            if (point->last_late)
                sleep = sleep > budget_ns + NS_PER_US ? sleep - budget_ns : 0;
            sleep = backed_off(sleep, backoff);
        }
        for (int with = 0; with <= (sleep > 0); with++) {
            double cost = expected_busy(policy, park, &s, known, with ? sleep : 0);
            if (!found || cost < best || (cost == best && exceed[park] < exceed[chosen])) {
                best = cost;
                chosen = park;
                chosen_sleep = with ? sleep : 0;
                found = true;
            }
        }
    }

    double share = any ? (allowance - exceed[chosen] - margin) / 2.0 : 0.0;
    share = share > 0.0 ? share : 0.0;
    double late = chosen_sleep > 0 ? miss_chance(policy, &s, (double)chosen_sleep, 0.0) : 0.0;
    *out = (gar_auto_choice){
        .plan = plan_for(chosen, chosen_sleep > 0),
        .has_sleep = chosen_sleep > 0,
        .sleep_ns = chosen_sleep,
        .within_budget = any,
        .park_miss_ppm = (uint32_t)(exceed[chosen] * GAR_AUTO_LEVEL_ONE + 0.5),
        .late_ppm = (uint32_t)(late * GAR_AUTO_LEVEL_ONE + 0.5),
        .earn_ppm = (uint32_t)((share + late) * GAR_AUTO_LEVEL_ONE + 0.5),
        .held = backoff > 0 && chosen != GAR_PARK_BLOCK && may_sleep,
    };
    gar_auto_counts *c = &policy->counts;
    c->waits++;
    c->block += chosen == GAR_PARK_BLOCK;
    c->poll += chosen == GAR_PARK_POLL;
    c->flag += chosen == GAR_PARK_FLAG;
    c->sleeps += chosen_sleep > 0;
    c->over_budget += !any;
    c->probes += chosen_sleep > 0 && point->last_late;
    c->held += out->held;
    return 0;
}

int gar_auto_learn(gar_auto_policy *policy, gar_auto_point *point, const gar_auto_choice *choice,
                   const gar_wait_report *report, gar_error *err)
{
    if (policy == NULL || point == NULL || choice == NULL || report == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_auto_learn",
                             policy == NULL  ? "policy"
                             : point == NULL ? "point"
                             : choice == NULL ? "choice"
                                              : "report",
                             "is NULL");
    if (report->sleeps > 0) {
        unsigned b = bucket_of(report->sleep_late_ns);
        if (policy->wake_count == GAR_AUTO_WAKES)
            policy->wake_hist[policy->wake_ring[policy->wake_next]]--;
        else
            policy->wake_count++;
        policy->wake_ring[policy->wake_next] = (uint16_t)b;
        policy->wake_hist[b]++;
        policy->wake_next = (policy->wake_next + 1) % GAR_AUTO_WAKES;
        policy->above_stale = true;
    }
    settle_lates(policy, point, choice, report->sample.kind == GAR_SAMPLE_LATE);
    switch (report->sample.kind) {
    case GAR_SAMPLE_EXACT:
        /* Work done at the first query is never slept past (the sleep comes
         * after that query): the window keeps the residuals a sleep risks. */
        if (report->kind != GAR_WAIT_KIND_IMMEDIATE)
            point_push(point, key_of(report->sample.ns, true));
        point->last_late = false;
        policy->counts.exact++;
        break;
    case GAR_SAMPLE_LATE:
        point_push(point, key_of(report->sample.ns, false));
        point->last_late = true;
        policy->counts.late++;
        break;
    case GAR_SAMPLE_NONE:
        break;
    }
    return 0;
}
