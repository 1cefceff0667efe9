/* examples/replay_trace.c — replay a recorded trace in real time through
 * libgar's API: how well would a wait plan have served this workload here?
 *
 *   replay_trace TRACE.csv [PLAN [MAX_WAITS]]
 *
 * TRACE is a gar-trace v1 file (data/README.md: the rows `point, submit_ns,
 * start_ns, done_ns[, rows][, stream]`).  An emulated device (a thread that
 * completes each row's work at its recorded time, shifted to now) plays the
 * GPU; this thread plays the host, beginning each wait at the row's start
 * time and waiting for it inline under PLAN (default: poll with predict),
 * one estimator per readback point.  It prints, as `key: value` lines, how
 * late the waits noticed completions (overshoot) and what they cost.
 *
 * Build against an installed gar (examples/README.md):
 *   cc -std=c11 -O2 replay_trace.c $(pkg-config --cflags --libs gar) -o replay_trace
 * Exits 0, 1 when a wait failed, 2 for bad arguments or a bad trace. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/gar.h>

#define DEFAULT_PLAN "poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"
#define DEFAULT_MAX_WAITS 200
#define LEAD_NS (2 * GAR_NS_PER_MS)   /* set-up time before the first row starts */
#define DEADLINE_NS (10 * GAR_NS_PER_S) /* a wait that takes longer fails, never hangs */
#define POINTS_MAX 64                 /* readback points the table holds */

typedef struct row {
    uint64_t point;
    gar_mono_ns start_ns, done_ns; /* as recorded */
    unsigned stream;
} row;

/* Prints a gar error as `error N (Name): message` and returns `status`. */
static int report_error(const char *what, const gar_error *err, int status)
{
    char text[512];
    gar_error_format(err, text, sizeof text);
    fprintf(stderr, "replay_trace: %s: %s\n", what, text);
    return status;
}

/* Reads up to `max` rows of a gar-trace v1 file.  A minimal reader for the
 * example (gar's own reader, with its full checks, is in the testbed):
 * comment lines start with '#', then the header, then one row a line. */
static int read_trace(const char *path, row *rows, size_t max, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    char line[1024];
    int stream_column = -1;
    bool header = false;
    size_t n = 0, line_no = 0;
    while (n < max && fgets(line, sizeof line, f) != NULL) {
        line_no++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!header) { /* which column, if any, holds the stream */
            if (strncmp(line, "point,submit_ns,start_ns,done_ns", 32) != 0)
                break;
            int column = 0;
            for (char *c = strtok(line, ",\r\n"); c != NULL; c = strtok(NULL, ",\r\n"), column++)
                if (strcmp(c, "stream") == 0)
                    stream_column = column;
            header = true;
            continue;
        }
        uint64_t value[6] = { 0 };
        int column = 0;
        char *end = line;
        for (; column < 6; column++) {
            value[column] = strtoull(end, &end, 10);
            if (*end != ',')
                break;
            end++;
        }
        if (column < 3 || (*end != '\n' && *end != '\r' && *end != '\0')) {
            fprintf(stderr, "replay_trace: %s:%zu: not a row of four to six numbers\n", path,
                    line_no);
            fclose(f);
            return 2;
        }
        unsigned stream = stream_column >= 0 ? (unsigned)value[stream_column] : 0;
        /* A stream the device cannot hold (it takes them numbered densely)
         * is refused when the device starts, with the reason. */
        if (value[3] < value[1]) {
            fprintf(stderr, "replay_trace: %s:%zu: done before submit\n", path, line_no);
            fclose(f);
            return 2;
        }
        rows[n++] = (row){ .point = value[0], .start_ns = value[2], .done_ns = value[3],
                           .stream = stream };
    }
    fclose(f);
    if (!header || n == 0) {
        fprintf(stderr, "replay_trace: %s: not a gar-trace v1 file with rows\n", path);
        return 2;
    }
    *count = n;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: replay_trace TRACE.csv [PLAN [MAX_WAITS]]\n");
        return 2;
    }
    const char *plan_text = argc > 2 ? argv[2] : DEFAULT_PLAN;
    size_t max = argc > 3 ? strtoul(argv[3], NULL, 10) : DEFAULT_MAX_WAITS;
    if (max == 0) {
        fprintf(stderr, "replay_trace: MAX_WAITS must be a positive number\n");
        return 2;
    }
    gar_error err;
    gar_error_clear(&err);

    /* The plan, as the user wrote it, then as this host can run it. */
    gar_plan asked, plan;
    if (gar_plan_parse(plan_text, &asked, &err) != 0)
        return report_error("plan", &err, 2);
    gar_posix_host host; /* the clock, the sleep and the park of this machine */
    if (gar_posix_host_init(&host, NULL, &err) != 0)
        return report_error("host", &err, 1);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    gar_error warning;
    gar_error_clear(&warning);
    if (gar_plan_resolve(&asked, &caps, &plan, &warning) == 1)
        report_error("plan", &warning, 0); /* e.g. flag runs as poll: no word wait here */

    row *rows = malloc(max * sizeof *rows);
    gar_emulated_item *items = malloc(max * sizeof *items);
    gar_mono_ns *ended = malloc(max * sizeof *ended), *completed = malloc(max * sizeof *completed);
    gar_dur_ns *overshoot = malloc(max * sizeof *overshoot);
    size_t n = 0;
    int status = 2;
    if (rows == NULL || items == NULL || ended == NULL || completed == NULL || overshoot == NULL)
        fprintf(stderr, "replay_trace: out of memory\n");
    else
        status = read_trace(argv[1], rows, max, &n);
    if (status != 0)
        goto done;

    /* The device's schedule: each row's completion, moved from the trace's
     * time line onto this machine's, starting LEAD_NS from now. */
    gar_mono_ns origin = gar_posix_now() + LEAD_NS;
    for (size_t i = 0; i < n; i++)
        items[i] = (gar_emulated_item){
            .stream = rows[i].stream,
            .done_at = origin + gar_since(rows[i].done_ns, rows[0].start_ns) };
    gar_idle idle = gar_posix_host_idle(&host);
    gar_emulated_device *dev;
    if (gar_emulated_device_start(&dev, items, n, idle, -1, &err) != 0) {
        status = report_error("device", &err, 2);
        goto done;
    }

    /* One estimator per readback point: it learns each point's wait times
     * and tells the next wait how long it may sleep before it parks. */
    gar_point_slot slots[POINTS_MAX];
    gar_point_table points;
    gar_point_table_init(&points, slots, POINTS_MAX, &err);

    uint64_t queries = 0, parks = 0, polls = 0, sleeps = 0, late = 0;
    for (size_t i = 0; i < n && status == 0; i++) {
        /* The host begins to wait when the trace says it did (or now, when
         * the previous wait ran past that). */
        gar_mono_ns begin = origin + gar_since(rows[i].start_ns, rows[0].start_ns);
        if (gar_posix_now() < begin && idle.ops->sleep_until(idle.ctx, begin, &err) != 0)
            status = report_error("sleep", &err, 1);

        gar_estimator *est = NULL;
        bool has_sleep = false;
        gar_dur_ns sleep_ns = 0;
        if (status == 0 && plan.predict) {
            if (gar_point_table_get(&points, rows[i].point, &est, &err) < 0)
                status = report_error("points", &err, 2);
            else
                has_sleep = gar_estimator_sleep(est, &plan.deadline, &sleep_ns, &err) == 1;
        }
        gar_port port;
        if (status == 0 && gar_emulated_device_port(dev, i, &port, &err) != 0)
            status = report_error("port", &err, 1);
        if (status != 0)
            break;

        gar_wait_report wait;
        if (gar_wait_inline(&plan, has_sleep, sleep_ns, gar_posix_now() + DEADLINE_NS, port,
                            gar_posix_clock(), idle, &wait, &err) != 0) {
            status = report_error("wait", &err, 1);
            break;
        }
        ended[i] = gar_posix_now();
        if (est != NULL) /* what the wait saw feeds the point's next prediction */
            gar_estimator_observe(est, &plan.deadline, wait.sample, &err);
        queries += wait.queries;
        parks += wait.parks;
        polls += wait.polls;
        sleeps += wait.sleeps;
        late += wait.kind == GAR_WAIT_KIND_LATE;
    }
    if (status != 0)
        gar_emulated_device_stop(dev, NULL);
    gar_emulated_device_finish(dev, completed, NULL); /* joins the device thread */

    if (status == 0) {
        /* Overshoot: from the device's completion to the waiter's return,
         * which is never before it: the status query is the authority. */
        for (size_t i = 0; i < n; i++) {
            if (ended[i] < completed[i]) {
                fprintf(stderr, "replay_trace: wait %zu returned before its work completed\n", i);
                status = 1;
            }
            overshoot[i] = gar_since(ended[i], completed[i]);
        }
        qsort(overshoot, n, sizeof *overshoot, by_value);
        char label[GAR_PLAN_LABEL_BYTES];
        gar_plan_label(&plan, label, sizeof label);
        printf("plan: %s\nwaits: %zu\n", label, n);
        printf("overshoot_p50_ns: %llu\n", (unsigned long long)overshoot[n / 2]);
        printf("overshoot_p90_ns: %llu\n", (unsigned long long)overshoot[n * 9 / 10]);
        printf("overshoot_max_ns: %llu\n", (unsigned long long)overshoot[n - 1]);
        printf("queries: %llu\nparks: %llu\npolls: %llu\nsleeps: %llu\nlate_wakes: %llu\n",
               (unsigned long long)queries, (unsigned long long)parks,
               (unsigned long long)polls, (unsigned long long)sleeps, (unsigned long long)late);
    }
done:
    free(rows);
    free(items);
    free(ended);
    free(completed);
    free(overshoot);
    return status;
}
