/* experiments/verb_calibrate.c — `gar calibrate`: measures this host into a
 * gar-host v1 profile (backends/calibrate.h says what each number is). */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "cli_options.h"
#include "verbs.h"
#include "write_atomic.h"

static const char verb[] = "calibrate";

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar calibrate [--out FILE] [--samples N] [--quick]\n"
            "\n"
            "Measures this host into a host profile (gar-host v1, see data/hosts/README.md)\n"
            "for the simulator: the status query and clock costs, and the distributions of\n"
            "sleep overshoot, blocking-wait wake, park wake and poll-loop period, each with\n"
            "the primitive a real wait here uses (the POSIX host and the emulated device).\n"
            "Takes about 25 s (--quick: about 2 s).  Keep the machine otherwise idle.\n"
            "\n"
            "options:\n"
            "  --out FILE    write the profile to FILE atomically and print a summary\n"
            "                (default: print the profile on standard output)\n"
            "  --samples N   samples per latency distribution, 1 to %u\n"
            "                (default %u; with --quick %u)\n"
            "  --quick       fewer samples and a shorter poll run, for tests (default: off)\n"
            "  --help        show this help\n"
            "\n"
            "example:\n"
            "  gar calibrate --out this.host && gar verify trace.csv --plan poll --host this.host\n",
            GAR_CALIBRATE_SAMPLES_MAX, GAR_CALIBRATE_SAMPLES_DEFAULT, GAR_CALIBRATE_SAMPLES_QUICK);
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
    };
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
        const gar_calibrated_dist *d = dists[i].dist;
        /* The levels every distribution lists: p50 and p99 by rank, and max. */
        gar_dur_ns p50 = 0, p99 = 0;
        for (unsigned k = 0; k < d->count; k++) {
            if (d->level_ppm[k] == 500000)
                p50 = d->value[k];
            if (d->level_ppm[k] == 990000)
                p99 = d->value[k];
        }
        printf("%s_ns: p50=%llu p99=%llu max=%llu samples=%llu\n", dists[i].key,
               (unsigned long long)p50, (unsigned long long)p99,
               (unsigned long long)d->value[d->count - 1], (unsigned long long)d->samples);
    }
}

int gar_verb_calibrate_main(int argc, char **argv)
{
    const char *out_path = NULL;
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
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options(verb, argc, argv, options, print_help);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    copts.samples = (size_t)samples;
    if (optind != argc)
        return gar_cli_usage_error(verb, "takes no arguments besides its options");

    gar_error err;
    gar_calibration cal;
    if (gar_calibrate_run(&copts, &cal, &err) < 0)
        return gar_cli_refuse(&err);
    char text[4096];
    size_t len = gar_calibration_format(&cal, text, sizeof text);
    if (len >= sizeof text) { /* the header promises 4096 always suffice */
        gar_error_set(&err, GAR_E_CAPACITY, 2, "the profile text", "4096 bytes");
        return gar_cli_refuse(&err);
    }
    if (out_path == NULL) {
        fputs(text, stdout);
        return GAR_EXIT_OK;
    }
    if (gar_write_file_atomic(out_path, text, len, &err) < 0)
        return gar_cli_refuse(&err);
    print_summary(out_path, &cal);
    return GAR_EXIT_OK;
}
