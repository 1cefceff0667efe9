/* examples/uv_await_lines.c — a libuv loop awaiting several lines.
 *
 * A server that runs a libuv loop cannot block its loop thread on GPU work.
 * Here a store thread plays three GPU streams, each storing into its own
 * line; the loop starts one wait per line through the adapter (<gar/uv.h>)
 * and goes on with its own business; each completion arrives as a callback
 * on the loop thread.  Build: meson builds it where libuv is found; it runs
 * as the test `example_uv_await_lines`. */
#define _POSIX_C_SOURCE 200809L /* libuv's header needs the POSIX types */

#include <stdio.h>

#include <gar/uv.h>

#include <gar/posix.h>   /* gar_posix_now: the clock the deadlines and stores use */
#include <gar/emulated.h> /* a thread that stores like a GPU stream, for a machine without one */

enum { LINES = 3 };

static int done;

/* Runs on the loop thread, once per wait; the handle is freed after it. */
static void on_complete(gar_uv_wait *handle, const gar_uv_result *result, void *user)
{
    (void)handle;
    unsigned line = (unsigned)(size_t)user;
    if (result->status == GAR_UV_DONE) {
        printf("line %u done: %s after %.2f ms\n", line, gar_wait_kind_name(result->report.kind),
               (double)result->report.wait_ns / 1e6);
        done++;
    } else {
        printf("line %u not done (status %d, code %d)\n", line, (int)result->status,
               result->code);
    }
}

int main(void)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    gar_error err;
    gar_uv *uv;
    if (gar_uv_init(&uv, &loop, &err) < 0) {
        fprintf(stderr, "gar_uv_init failed: error %d\n", err.code);
        return 1;
    }

    /* The plan: park on the word at most 100 µs at a time, and ask the status
     * at least every 1 ms.  Resolved against the watcher's host: without a
     * user-mode word wait it runs as poll (the warning says so). */
    gar_plan asked, plan;
    gar_plan_parse("flag:park_us=100,backstop_us=1000", &asked, NULL);
    gar_caps caps;
    gar_uv_caps(uv, &caps, NULL);
    if (gar_plan_resolve(&asked, &caps, &plan, &err) == 1) {
        char why[512];
        gar_error_format(&err, why, sizeof why);
        printf("%s\n", why);
    }

    /* Each line is 64 bytes the "device" stores into; slot 0 of line k reaches
     * 1 at (k + 1) ms.  The lines must outlive their waits' callbacks. */
    static gar_line lines[LINES];
    gar_store_thread *devices[LINES];
    gar_mono_ns now = gar_posix_now();
    for (unsigned k = 0; k < LINES; k++) {
        gar_line_init(&lines[k]);
        gar_descriptor word = { .line = &lines[k], .target = 1 };
        gar_slot_make(0, &word.slot, NULL);
        /* No port: the word is the status.  Give up after a second. */
        if (gar_uv_start(uv, &word, NULL, &plan, now + GAR_NS_PER_S, on_complete,
                         (void *)(size_t)k, NULL, &err) < 0) {
            fprintf(stderr, "gar_uv_start failed: error %d\n", err.code);
            return 1;
        }
        gar_store store = { .slot = word.slot, .value = 1, .at = now + (k + 1) * GAR_NS_PER_MS };
        gar_store_thread_start(&devices[k], &lines[k], &store, 1, NULL);
    }

    /* The loop keeps running while waits pend, and returns once every
     * callback ran. */
    uv_run(&loop, UV_RUN_DEFAULT);
    for (unsigned k = 0; k < LINES; k++)
        gar_store_thread_join(devices[k], NULL, NULL, NULL);

    /* Close: pending waits (none here) are cancelled; one more uv_run lets
     * the adapter's handle close, after which the loop closes cleanly. */
    gar_uv_close(uv);
    uv_run(&loop, UV_RUN_DEFAULT);
    int rc = uv_loop_close(&loop);
    printf("%d of %d lines done; uv_loop_close: %d\n", done, LINES, rc);
    return done == LINES && rc == 0 ? 0 : 1;
}
