/* experiments/cli/verb_calibrate.c — `gar calibrate`: measures this host into a
 * gar-host v1 profile (calibrate/calibrate.h says what each number is). */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "cli/cli_options.h"
#include "sim/host_profile.h"
#include "verify/profile_check.h"
#include "cli/verbs.h"
#include "cli/write_atomic.h"

static const char verb[] = "calibrate";

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar calibrate [--out FILE] [--samples N] [--quick] [--rounds HOW]\n"
            "                     [--check PROFILE]\n"
            "\n"
            "Measures this host into a host profile (gar-host v1, see data/hosts/README.md)\n"
            "for the simulator: the status query and clock costs, and the distributions of\n"
            "sleep overshoot and blocking-wait wake (also by how long the thread slept),\n"
            "park wake, store visibility and poll-loop turn, each with the primitive a real\n"
            "wait here uses (the POSIX host, the emulated device, the inline driver).\n"
            "The run is twelve slices, each taking its share of every measurement in\n"
            "turn, so that each is sampled across the whole run (on a virtual machine\n"
            "these costs move from second to second).  Each measurement's %u rounds\n"
            "(thirds of the run) have their p50 and p90 printed, and where the rounds\n"
            "differ by more than %.0f %% (and %u ns) a warning says so and the\n"
            "profile carries a '# noisy:' line: something else ran meanwhile.  With\n"
            "--rounds quietest such a distribution is fitted from its quietest round alone\n"
            "(the least p90; the summary prints `kept=R`, the profile a '# kept:' line).\n"
            "Takes about 40 s (--quick: about 3 s).  Keep the machine otherwise idle.\n"
            "\n"
            "options:\n"
            "  --out FILE    write the profile to FILE atomically and print a summary\n"
            "                (default, or FILE '-': print the profile on standard output);\n"
            "                FILE's folder is checked writable before measuring\n"
            "  --samples N   samples per latency distribution, 1 to %u\n"
            "                (default %u; with --quick %u)\n"
            "  --quick       fewer samples and a shorter poll run, for tests (default: off)\n"
            "  --rounds HOW  how a distribution whose rounds disagree is fitted:\n"
            "                  pooled    every round's samples (the default)\n"
            "                  quietest  the round with the least p90 alone: what ran beside\n"
            "                            the others only added latency.  Suits a machine\n"
            "                            disturbed for a moment; on one loaded throughout\n"
            "                            it predicts quieter waits than the machine has\n"
            "  --check PROFILE\n"
            "                whether PROFILE ('-': standard input) still describes this\n"
            "                machine: measures it now and compares what the simulator\n"
            "                makes of each profile — the overshoot p50 and p90 of poll,\n"
            "                poll+predict and block on a jitter trace of %u waits of\n"
            "                2 ms (seed 3) — printing\n"
            "                `check_PLAN: p50=STATED/NOW (CHANGE) p90=... holds|moved` and\n"
            "                `holds: yes` when every one moved by less than %.0f %%; exit\n"
            "                status 0 when it holds, 1 when not.  With --out the profile\n"
            "                measured now is written too\n"
            "  --help        show this help\n"
            "\n"
            "example:\n"
            "  gar calibrate --out this.host && gar verify trace.csv --plan poll --host this.host\n",
            GAR_CALIBRATE_ROUNDS, GAR_CALIBRATE_NOISE_REL * 100, GAR_CALIBRATE_NOISE_ABS_NS,
            GAR_CALIBRATE_SAMPLES_MAX, GAR_CALIBRATE_SAMPLES_DEFAULT, GAR_CALIBRATE_SAMPLES_QUICK,
            GAR_PROFILE_CHECK_WAITS, GAR_PROFILE_CHECK_REL * 100);
}

static void print_summary(const char *path, const gar_calibration *cal)
{
    printf("profile: %s\n", path);
    printf("elapsed_s: %.1f\n", (double)cal->elapsed_ns / 1e9);
    printf("query_ns: %llu\n", (unsigned long long)cal->query_ns);
    printf("clock_ns: %llu\n", (unsigned long long)cal->clock_ns);
    printf("word_wait: %s\n", cal->word_wait ? "yes" : "no");
    const struct {
        const char *key;
        const gar_calibrated_dist *dist;
    } dists[] = {
        { "sleep_overshoot", &cal->sleep_overshoot },
        { "block_wake", &cal->block_wake },
        { "park_wake", &cal->park_wake },
        { "poll_period", &cal->poll_period },
        { "store_visible", &cal->store_visible },
    };
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
        const gar_host_dist *d = &dists[i].dist->dist;
        /* The levels every distribution lists: p50 and p99 by rank, and max. */
        gar_dur_ns p50 = 0, p99 = 0;
        for (unsigned k = 0; k < d->count; k++) {
            if (d->level[k] == 500000)
                p50 = d->value[k];
            if (d->level[k] == 990000)
                p99 = d->value[k];
        }
        printf("%s_ns: p50=%llu p99=%llu max=%llu samples=%llu\n", dists[i].key,
               (unsigned long long)p50, (unsigned long long)p99,
               (unsigned long long)d->value[d->count - 1],
               (unsigned long long)dists[i].dist->samples);
    }
    for (unsigned i = 0; i < cal->spreads; i++) {
        const gar_calibrate_spread *s = &cal->spread[i];
        gar_dur_ns lo = s->round[0], hi = s->round[0];
        for (unsigned r = 1; r < GAR_CALIBRATE_ROUNDS; r++) {
            lo = s->round[r] < lo ? s->round[r] : lo;
            hi = s->round[r] > hi ? s->round[r] : hi;
        }
        printf("rounds %s: %llu %llu %llu spread=%.0f%%%s", s->what,
               (unsigned long long)s->round[0], (unsigned long long)s->round[1],
               (unsigned long long)s->round[2], lo > 0 ? 100.0 * (double)(hi - lo) / (double)lo : 0.0,
               s->noisy ? " noisy" : "");
        if (s->kept < GAR_CALIBRATE_ROUNDS)
            printf(" kept=%u", s->kept + 1);
        printf("\n");
    }
}

/* One warning line (stderr) per measurement whose rounds disagree. */
static void warn_noisy(const gar_calibration *cal)
{
    char bound[64];
    snprintf(bound, sizeof bound, "more than %.0f %% and %u ns apart",
             GAR_CALIBRATE_NOISE_REL * 100, GAR_CALIBRATE_NOISE_ABS_NS);
    for (unsigned i = 0; i < cal->spreads; i++) {
        const gar_calibrate_spread *s = &cal->spread[i];
        if (!s->noisy)
            continue;
        char rounds[96];
        snprintf(rounds, sizeof rounds, "%llu, %llu, %llu ns", (unsigned long long)s->round[0],
                 (unsigned long long)s->round[1], (unsigned long long)s->round[2]);
        gar_error w;
        gar_error_set(&w, GAR_W_NOISY_CALIBRATION, 3, s->what, rounds, bound);
        gar_cli_print_warning(stderr, &w);
    }
}

/* --check: the stated profile against the one just measured (its text).
 * Returns the exit status, or refuses. */
static int check_profile(const char *path, const gar_host_profile *stated, const char *text,
                         size_t len)
{
    gar_error err;
    gar_host_profile now;
    gar_profile_check c;
    if (gar_host_profile_parse(text, len, "the calibration", &now, &err) < 0 ||
        gar_profile_check_run(stated, &now, &c, &err) < 0)
        return gar_cli_refuse(&err);
    printf("check: %s\n", path);
    for (unsigned p = 0; p < GAR_PROFILE_CHECK_PLANS; p++) {
        const gar_profile_check_row *r = &c.row[p];
        printf("check_%s: p50=%llu/%llu (%+.1f %%) p90=%llu/%llu (%+.1f %%) %s\n", r->name,
               (unsigned long long)r->stated[0], (unsigned long long)r->now[0],
               100 * r->change[0], (unsigned long long)r->stated[1],
               (unsigned long long)r->now[1], 100 * r->change[1], r->holds ? "holds" : "moved");
    }
    printf("holds: %s (every simulated p50 and p90 within %.0f %% of the profile's: "
           "stated/now, ns)\n",
           c.holds ? "yes" : "no", GAR_PROFILE_CHECK_REL * 100);
    return c.holds ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}

int gar_verb_calibrate_main(int argc, char **argv)
{
    const char *out_path = NULL, *check_path = NULL, *rounds = "pooled";
    gar_calibrate_options copts = { 0 };
    unsigned long long samples = 0;
    char samples_refusal[64];
    snprintf(samples_refusal, sizeof samples_refusal, "--samples must be 1 to %u",
             GAR_CALIBRATE_SAMPLES_MAX);
    const gar_cli_option options[] = {
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &out_path },
        { .name = "samples", .takes = GAR_CLI_U64, .to = &samples, .min = 1,
          .max = GAR_CALIBRATE_SAMPLES_MAX, .refusal = samples_refusal, .quote_value = true },
        { .name = "quick", .takes = GAR_CLI_FLAG, .to = &copts.quick },
        { .name = "check", .takes = GAR_CLI_TEXT, .to = &check_path },
        { .name = "rounds", .takes = GAR_CLI_TEXT, .to = &rounds },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options(verb, argc, argv, options, print_help);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    copts.samples = (size_t)samples;
    if (optind != argc)
        return gar_cli_usage_error(verb, "takes no arguments besides its options");
    if (strcmp(rounds, "quietest") == 0)
        copts.keep_quietest = true;
    else if (strcmp(rounds, "pooled") != 0)
        return gar_cli_usage_error(verb, "--rounds must be pooled or quietest");

    gar_error err;
    if (out_path != NULL && strcmp(out_path, "-") == 0)
        out_path = NULL; /* "-": standard output, as without --out */
    /* Refused now, not after the measurement it would throw away. */
    if (out_path != NULL && gar_check_file_writable(out_path, &err) < 0)
        return gar_cli_refuse(&err);
    static gar_host_profile stated;
    if (check_path != NULL && gar_host_profile_load(check_path, &stated, &err) < 0)
        return gar_cli_refuse(&err);
    gar_calibration cal;
    if (gar_calibrate_run(&copts, &cal, &err) < 0)
        return gar_cli_refuse(&err);
    static char text[GAR_CALIBRATION_TEXT_BYTES];
    size_t len = gar_calibration_format(&cal, text, sizeof text);
    if (len >= sizeof text) { /* the header promises the size always suffices */
        gar_error_set(&err, GAR_E_CAPACITY, 2, "the profile text", "GAR_CALIBRATION_TEXT_BYTES");
        return gar_cli_refuse(&err);
    }
    warn_noisy(&cal);
    if (out_path == NULL && check_path == NULL) {
        fputs(text, stdout);
        return GAR_EXIT_OK;
    }
    if (out_path != NULL) {
        if (gar_write_file_atomic(out_path, text, len, &err) < 0)
            return gar_cli_refuse(&err);
        print_summary(out_path, &cal);
    }
    return check_path != NULL ? check_profile(check_path, &stated, text, len) : GAR_EXIT_OK;
}
