/* experiments/cli/verb_probe.c — `gar probe`: what this host offers a wait, as
 * its backends find it, and what the executor kinds resolve to here. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gar/executor_kind.h>
#include <gar/posix.h>

#include "cli/cli_options.h"
#include "cli/host_caps.h"
#include "cli/verbs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar probe\n"
            "\n"
            "Probes this host once, as a run does at start-up, and prints:\n"
            "  word_wait: ok (NAME) | none (why)   the CPU's user-mode wait on a word\n"
            "                                      (umwait, mwaitx, wfet or wfe)\n"
            "  park: NAME                          the POSIX host's park (the word wait,\n"
            "                                      or spin-yield)\n"
            "  tsc_hz: N (source)                  the rate of the word wait's deadline\n"
            "                                      counter, when it has one (counter_hz on\n"
            "                                      aarch64)\n"
            "  umwait_max_time: N                  the OS's cap on one umwait, TSC ticks\n"
            "                                      (0: none), when umwait runs and it is known\n"
            "  io_uring: ok | none (why)           whether a ring runs a ns timeout here\n"
            "  clock_resolution_ns: N              clock_getres(CLOCK_MONOTONIC)\n"
            "  timer_slack_ns: N | unknown (why)   this thread's timer slack after set-up\n"
            "  cpu: MODEL                          the CPU's model name, where the system\n"
            "                                      names it\n"
            "  executor_gpu_reactor: KIND          what gpu-reactor and io-uring resolve to\n"
            "  executor_io_uring: KIND             (see 'gar executor')\n"
            "\n"
            "options:\n"
            "  -h, --help  show this help\n"
            "\n"
            "example:\n"
            "  gar probe\n");
}

/* The first "model name" of /proc/cpuinfo into `out`; false where there is
 * none (not Linux, or an architecture whose kernel names no model). */
static bool cpu_model(char *out, size_t size)
{
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (file == NULL)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        const char *value = colon + 1 + strspn(colon + 1, " \t");
        size_t length = strcspn(value, "\n");
        if (length == 0)
            continue;
        snprintf(out, size, "%.*s", (int)length, value);
        found = true;
    }
    fclose(file);
    return found;
}

static void print_resolved(const char *key, gar_executor_kind requested, const gar_caps *caps)
{
    gar_executor_kind running;
    /* Not strict, so it cannot refuse: naive runs anywhere. */
    if (gar_executor_kind_resolve(requested, caps, false, &running, NULL) < 0)
        running = GAR_EXECUTOR_NAIVE;
    printf("%s: %s\n", key, gar_executor_kind_name(running));
}

int gar_verb_probe_main(int argc, char **argv)
{
    const gar_cli_option options[] = {
        { .name = "help", .letter = 'h', .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options("probe", argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (argc - optind != 0)
        return gar_cli_usage_error("probe", "takes no arguments");

    gar_posix_host host;
    gar_error err;
    if (gar_posix_host_init(&host, NULL, &err) != 0)
        return gar_cli_refuse(&err);
    const gar_posix_host_report *report = &host.report;
    const gar_word_wait *wait = &report->word_wait;
    const gar_caps caps = gar_host_caps_of(&host);

    if (wait->kind != GAR_WORD_WAIT_NONE)
        printf("word_wait: ok (%s)\n", wait->name);
    else
        printf("word_wait: none (%s)\n", wait->why);
    printf("park: %s\n", report->park);
    if (wait->tick_hz != 0) {
#if defined(__aarch64__)
        const char *key = "counter_hz";
#else
        const char *key = "tsc_hz";
#endif
        printf("%s: %llu (%s)\n", key, (unsigned long long)wait->tick_hz, wait->tick_hz_source);
    }
    if (wait->kind == GAR_WORD_WAIT_UMWAIT && wait->os_max_known)
        printf("umwait_max_time: %llu\n", (unsigned long long)wait->os_max_ticks);

    if (caps.io_uring)
        printf("io_uring: ok\n");
    else
        printf("io_uring: none (%s)\n", caps.io_uring_why);

    struct timespec resolution;
    if (clock_getres(CLOCK_MONOTONIC, &resolution) == 0)
        printf("clock_resolution_ns: %llu\n",
               (unsigned long long)resolution.tv_sec * GAR_NS_PER_S +
                   (unsigned long long)resolution.tv_nsec);
    else
        printf("clock_resolution_ns: unknown (clock_getres refused CLOCK_MONOTONIC)\n");

    if (report->timer_slack.known)
        printf("timer_slack_ns: %llu\n", (unsigned long long)report->timer_slack.ns);
    else
        printf("timer_slack_ns: unknown (%s)\n", report->timer_slack.why);

    char model[256];
    if (cpu_model(model, sizeof model))
        printf("cpu: %s\n", model);

    print_resolved("executor_gpu_reactor", GAR_EXECUTOR_GPU_REACTOR, &caps);
    print_resolved("executor_io_uring", GAR_EXECUTOR_IO_URING, &caps);
    return GAR_EXIT_OK;
}
