/* tests/install/outside.c — a program outside gar's tree, built against an
 * installed libgar with nothing but `pkg-config --cflags --libs gar`.
 *
 * It uses the library the way a server would: parses a plan, resolves it
 * against this host, starts an emulated device whose one item completes
 * 2 ms from now, and waits for it inline.  It checks what must hold on any
 * machine: the wait succeeded, ended with the work done (its completion
 * time recorded), and did not return before that time (a busy machine
 * may find the work done at the first query: immediate is allowed).  Prints "outside: ok" and exits
 * 0, or says what failed and exits 1. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>

#include <gar/gar.h>

#define PLAN "flag:park_us=100,backstop_us=1000"
#define DONE_IN_NS (2 * GAR_NS_PER_MS)
#define DEADLINE_NS (10 * GAR_NS_PER_S)

static int fail(const char *what, const gar_error *err)
{
    char text[512] = "";
    if (err != NULL)
        gar_error_format(err, text, sizeof text);
    fprintf(stderr, "outside: %s%s%s\n", what, err != NULL ? ": " : "", text);
    return 1;
}

int main(void)
{
    gar_error err;
    gar_error_clear(&err);

    gar_plan requested, running;
    if (gar_plan_parse(PLAN, &requested, &err) != 0)
        return fail("gar_plan_parse", &err);

    gar_posix_host host;
    if (gar_posix_host_init(&host, NULL, &err) != 0)
        return fail("gar_posix_host_init", &err);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    gar_error warning;
    gar_error_clear(&warning);
    int resolved = gar_plan_resolve(&requested, &caps, &running, &warning);
    if (resolved < 0)
        return fail("gar_plan_resolve", &warning);

    gar_mono_ns start = gar_posix_now();
    gar_emulated_item item = { .stream = 0, .done_at = start + DONE_IN_NS };
    gar_emulated_device *dev = NULL;
    if (gar_emulated_device_start(&dev, &item, 1, gar_posix_host_idle(&host), -1, &err) != 0)
        return fail("gar_emulated_device_start", &err);
    gar_port port;
    if (gar_emulated_device_port(dev, 0, &port, &err) != 0) {
        gar_emulated_device_stop(dev, NULL);
        gar_emulated_device_finish(dev, NULL, NULL);
        return fail("gar_emulated_device_port", &err);
    }

    gar_wait_report report;
    int rc = gar_wait_inline(&running, false, 0, start + DEADLINE_NS, port, gar_posix_clock(),
                             gar_posix_host_idle(&host), &report, &err);
    gar_mono_ns returned_at = gar_posix_now();
    gar_mono_ns completed_at = GAR_MONO_NEVER;
    gar_emulated_device_finish(dev, &completed_at, NULL);

    if (rc != 0)
        return fail("gar_wait_inline", &err);
    if (completed_at == GAR_MONO_NEVER)
        return fail("the device never completed the item", NULL);
    if (returned_at < completed_at)
        return fail("the wait returned before the work completed", NULL);
    if (report.kind != GAR_WAIT_KIND_PARKED && report.kind != GAR_WAIT_KIND_IMMEDIATE)
        return fail("the wait ended as neither parked nor immediate", NULL);

    char label[128];
    gar_plan_label(&running, label, sizeof label);
    printf("outside: plan %s, waited %s in %llu ns (%llu queries, %llu parks, %llu polls)\n",
           label, gar_wait_kind_name(report.kind),
           (unsigned long long)report.wait_ns, (unsigned long long)report.queries,
           (unsigned long long)report.parks, (unsigned long long)report.polls);
    printf("outside: ok\n");
    return 0;
}
