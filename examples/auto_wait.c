/* examples/auto_wait.c — waits under "auto:p99_us=B": say how late a wait
 * may notice its completion (at the 99th percentile) and let gar choose, for
 * each wait, whether to sleep first and whether to poll, park on the word or
 * block, at the least CPU.
 *
 *   auto_wait [--host PROFILE] [BUDGET_US [WAITS]]   defaults: 1000 µs, 500 waits
 *
 * An emulated device (a thread that plays a GPU) completes one item every
 * 1.2 ms, each 0.8 to 1 ms after this thread begins to wait for it.  The
 * thread waits for each inline with gar_auto_wait_inline: the rule
 * (<gar/auto_policy.h>) decides from what this host offers and from what the
 * earlier waits taught it, the inline driver runs the plan it chose, and the
 * report goes back to the rule.  It prints what was chosen and the overshoot
 * (how late the waits noticed completions) against the budget.
 *
 * What the rule is told of the host before its first wait: with --host, the
 * wake-up tails and costs of a host profile (the gar-host v1 text `gar
 * calibrate --out PROFILE` writes on the machine), read here from the file
 * and handed to the library (<gar/host_profile.h>, <gar/auto_host.h>); with
 * none, gar's guesses of a Linux host.  Either way it learns this host's
 * sleep wake-ups as they come.
 *
 * Build against an installed gar (examples/README.md):
 *   cc -std=c11 -O2 auto_wait.c $(pkg-config --cflags --libs gar) -o auto_wait
 * Exits 0, 1 when a wait failed or returned early, 2 for bad arguments or a
 * profile that cannot be read or is refused (its error says the line). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/gar.h>

#define PERIOD_NS (1200 * GAR_NS_PER_US)  /* one item every 1.2 ms */
#define WORK_NS (800 * GAR_NS_PER_US)     /* done 0.8 ms after the wait begins ... */
#define SPREAD_NS (200 * GAR_NS_PER_US)   /* ... up to 0.2 ms later */
#define LEAD_NS (2 * GAR_NS_PER_MS)       /* set-up time before the first wait */
#define DEADLINE_NS (10 * GAR_NS_PER_S)   /* a wait that takes longer fails, never hangs */
#define PROFILE_BYTES_MAX 65536           /* a profile is a few kB */

static int report_error(const char *what, const gar_error *err, int status)
{
    char text[512];
    gar_error_format(err, text, sizeof text);
    fprintf(stderr, "auto_wait: %s: %s\n", what, text);
    return status;
}

static int by_value(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return x < y ? -1 : x > y;
}

/* Reads the host profile at `path` and seeds `told` from it, for waits of
 * about `lead_ns`.  The library parses text and does no I/O, so the file is
 * read here.  Returns 0, or 2 with the reason on stderr. */
static int seed_from_profile(const char *path, gar_dur_ns lead_ns, gar_auto_host *told)
{
    static char text[PROFILE_BYTES_MAX + 1]; /* one more, to see a larger file */
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    size_t len = fread(text, 1, sizeof text, f);
    int failed = ferror(f);
    fclose(f);
    if (failed || len > PROFILE_BYTES_MAX) {
        fprintf(stderr, "auto_wait: %s: %s\n", path,
                failed ? "cannot be read" : "larger than 64 KiB: not a host profile");
        return 2;
    }
    gar_host_profile profile;
    gar_error err;
    if (gar_host_profile_parse(text, len, path, &profile, &err) != 0)
        return report_error("profile", &err, 2);
    gar_auto_host_from_profile(&profile, lead_ns, told);
    return 0;
}

int main(int argc, char **argv)
{
    const char *profile_path = NULL;
    if (argc > 2 && strcmp(argv[1], "--host") == 0) {
        profile_path = argv[2];
        argc -= 2;
        argv += 2;
    }
    unsigned long budget_us = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 500;
    if (argc > 3 || n == 0 || (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: auto_wait [--host PROFILE] [BUDGET_US [WAITS]]\n");
        return 2;
    }
    /* The plan, as a user writes it: parse it to have its bounds checked. */
    char text[64];
    snprintf(text, sizeof text, "auto:p99_us=%lu", budget_us);
    gar_error err;
    gar_plan plan;
    if (gar_plan_parse(text, &plan, &err) != 0)
        return report_error("plan", &err, 2);

    gar_posix_host host;
    if (gar_posix_host_init(&host, NULL, &err) != 0)
        return report_error("host", &err, 1);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    gar_idle idle = gar_posix_host_idle(&host);

    /* The rule: told the host's tails, from its profile or gar's guesses,
     * and what the inline driver can run here (a flag park only with this
     * CPU's word wait, whatever the profile's machine had); one history for
     * this one call site.  The profile is read for waits of about 0.9 ms,
     * the length of these. */
    gar_auto_host told;
    gar_auto_host_default(caps.word_wait, &told);
    if (profile_path != NULL) {
        int rc = seed_from_profile(profile_path, WORK_NS + SPREAD_NS / 2, &told);
        if (rc != 0)
            return rc;
        told.word_wait = told.word_wait && caps.word_wait;
    }
    static gar_auto_policy policy;
    static gar_auto_point point;
    if (gar_auto_init(&policy, &told, &err) != 0)
        return report_error("policy", &err, 1);
    gar_auto_point_init(&point);

    gar_emulated_item *items = malloc(n * sizeof *items);
    gar_mono_ns *ended = malloc(n * sizeof *ended), *completed = malloc(n * sizeof *completed);
    gar_dur_ns *overshoot = malloc(n * sizeof *overshoot);
    int status = 0;
    if (items == NULL || ended == NULL || completed == NULL || overshoot == NULL) {
        fprintf(stderr, "auto_wait: out of memory\n");
        status = 2;
        goto done;
    }
    gar_mono_ns origin = gar_posix_now() + LEAD_NS;
    uint64_t seed = 1;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u; /* a spread, not a secret */
        items[i] = (gar_emulated_item){
            .stream = 0, .done_at = origin + i * PERIOD_NS + WORK_NS + (seed >> 33) % SPREAD_NS };
    }
    gar_emulated_device *dev;
    if (gar_emulated_device_start(&dev, items, n, idle, -1, &err) != 0) {
        status = report_error("device", &err, 1);
        goto done;
    }
    for (size_t i = 0; i < n && status == 0; i++) {
        gar_mono_ns begin = origin + i * PERIOD_NS;
        if (gar_posix_now() < begin && idle.ops->sleep_until(idle.ctx, begin, &err) != 0) {
            status = report_error("sleep", &err, 1);
            break;
        }
        gar_port port;
        if (gar_emulated_device_port(dev, i, &port, &err) != 0) {
            status = report_error("port", &err, 1);
            break;
        }
        /* Decide, wait, learn: one call. */
        if (gar_auto_wait_inline(&policy, &point, &plan, gar_posix_now() + DEADLINE_NS, port,
                                 gar_posix_clock(), idle, NULL, NULL, &err) != 0) {
            status = report_error("wait", &err, 1);
            break;
        }
        ended[i] = gar_posix_now();
    }
    if (status != 0)
        gar_emulated_device_stop(dev, NULL);
    gar_emulated_device_finish(dev, completed, NULL);
    if (status == 0) {
        for (size_t i = 0; i < n; i++) {
            if (ended[i] < completed[i]) {
                fprintf(stderr, "auto_wait: wait %zu returned before its work completed\n", i);
                status = 1;
            }
            overshoot[i] = ended[i] > completed[i] ? ended[i] - completed[i] : 0;
        }
        qsort(overshoot, n, sizeof *overshoot, by_value);
        gar_auto_counts c = gar_auto_counts_of(&policy);
        printf("plan: %s\nwaits: %zu\n", text, n);
        printf("seeded_from: %s\n", profile_path != NULL ? profile_path : "defaults");
        printf("chose: block %llu poll %llu flag %llu\nsleeps: %llu\nover_budget: %llu\n",
               (unsigned long long)c.block, (unsigned long long)c.poll,
               (unsigned long long)c.flag, (unsigned long long)c.sleeps,
               (unsigned long long)c.over_budget);
        printf("overshoot_p50_ns: %llu\n", (unsigned long long)overshoot[n / 2]);
        printf("overshoot_p99_ns: %llu\n", (unsigned long long)overshoot[(99 * n + 99) / 100 - 1]);
        printf("within_budget: %s\n",
               overshoot[(99 * n + 99) / 100 - 1] <= budget_us * GAR_NS_PER_US ? "yes" : "no");
    }
done:
    free(items);
    free(ended);
    free(completed);
    free(overshoot);
    return status;
}
