/* tests/experiments/test_run_logs.c — gar run's reading of libgar-sync.so's
 * logs, its totals, and the recording written from them: logs of two
 * processes in one folder, a line cut short, the real call's measured
 * share, a stream's done times kept in order, and the outcome file read
 * back and refused when short. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/run_logs.h"
#include "run/run_record.h"
#include "run/run_summary.h"
#include "sim/trace/trace.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int make_logs(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/gar-test-run-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    /* Process 100: two streams; stream 1's second wait is placed 5 ns before
     * its first by the anchor (kept in order on writing); a baseline wait and
     * a pass-through; a last line cut short. */
    write_file("100.log",
               "# gar-sync-log v1 pid=100\n"
               "n,plan,auto:p99_us=50\n"
               "w,cudaStreamSynchronize,1,1,1000,2000,1900,300,poll,0\n"
               "w,cudaStreamSynchronize,1,1,3000,5000,1895,400,immediate,0\n"
               "w,cudaStreamSynchronize,2,1,6000,9000,8000,500,poll,700\n"
               "w,cudaStreamSynchronize,2,1,10000,14000,0,4000,baseline,0\n"
               "w,cudaStreamSynchronize,2,1,15000,16000,0,100,graph capture,0\n"
               "w,cudaStreamSynchronize,2,1,17000,18");
    /* Process 20 (a lower pid: numbered first): one wait. */
    write_file("20.log", "# gar-sync-log v1 pid=20\n"
                         "w,cudaEventSynchronize,0,1,500,900,800,50,poll,0\n");
    write_file("notes.txt", "not a log\n");
    return 0;
}

static int remove_logs(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void reads_both_processes_and_skips_a_cut_line(void **state)
{
    (void)state;
    gar_run_logs logs;
    gar_error err = { 0 };
    assert_int_equal(gar_run_logs_read(&logs, dir, &err), 0);
    assert_int_equal(logs.processes, 2);
    assert_int_equal(logs.count, 6);
    assert_int_equal(logs.skipped_lines, 1);
    assert_string_equal(logs.plan, "auto:p99_us=50");
    assert_int_equal(logs.wait[0].process, 0); /* pid 20 first */
    assert_int_equal(logs.wait[1].process, 1);
    assert_int_equal(logs.wait[4].how, GAR_RUN_BASELINE);
    assert_int_equal(logs.wait[5].how, GAR_RUN_FALLBACK);
    assert_string_equal(logs.reasons[logs.wait[5].reason], "graph capture");
    assert_true(logs.wait[2].immediate);
    gar_run_logs_free(&logs);
}

static void totals_use_the_measured_share(void **state)
{
    (void)state;
    gar_run_logs logs;
    gar_error err = { 0 };
    assert_int_equal(gar_run_logs_read(&logs, dir, &err), 0);
    gar_run_totals t;
    gar_run_totals_of(&logs, NULL, NULL, &t);
    assert_int_equal(t.waits, 6);
    assert_int_equal(t.taken, 4);
    assert_int_equal(t.baseline, 1);
    assert_int_equal(t.fallback, 1);
    assert_int_equal(t.busy_ns, 50 + 300 + 400 + 500);
    assert_int_equal(t.wall_ns, 400 + 1000 + 2000 + 3000);
    /* The spinning call held the core 4000 of its 4000 ns. */
    assert_true(t.real_share > 0.999 && t.real_share <= 1.0);
    /* Overshoots: 100 (900 - 800), 100 (2000 - 1900), 2000 (5000 - max(1895,
     * 3000)), 1000 (9000 - 8000): p50 the 2nd smallest, p99 the largest. */
    assert_int_equal(t.overshoot_p50, 100);
    assert_int_equal(t.overshoot_p90, 2000);
    assert_int_equal(t.overshoot_max, 2000);
    gar_run_logs_free(&logs);
}

static void records_a_trace_in_order_with_outcomes(void **state)
{
    (void)state;
    gar_run_logs logs;
    gar_error err = { 0 };
    assert_int_equal(gar_run_logs_read(&logs, dir, &err), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/run.csv", dir);
    assert_int_equal(gar_run_record_write(&logs, path, "test", &err), 0);
    gar_trace trace;
    assert_int_equal(gar_trace_read_file(&trace, path, &err), 0);
    assert_int_equal(trace.count, 6);
    /* Origin: the earliest of start and done, 500. */
    assert_int_equal(trace.row[0].start_ns, 0);
    assert_int_equal(trace.row[0].done_ns, 300);
    /* Process 1's stream 1: its second done moved up to its first. */
    assert_int_equal(trace.row[1].stream, 65537);
    assert_int_equal(trace.row[2].done_ns, trace.row[1].done_ns);
    /* A wait the real call ran: done is its end. */
    assert_int_equal(trace.row[4].done_ns, 14000 - 500);
    char plan[64];
    gar_run_outcome *o = NULL;
    assert_int_equal(gar_run_outcome_read(path, trace.count, plan, sizeof plan, &o, &err), 0);
    assert_string_equal(plan, "auto:p99_us=50");
    assert_int_equal(o[0].end_ns, 400);
    assert_true(o[1].taken);
    assert_false(o[4].taken);
    free(o);
    /* One row more than the outcomes hold: refused, naming the file. */
    assert_int_equal(gar_run_outcome_read(path, trace.count + 1, plan, sizeof plan, &o, &err),
                     -GAR_E_INVALID_TRACE);
    gar_trace_free(&trace);
    gar_run_logs_free(&logs);
}

/* A v2 log: each wait's path, the status query's reason, a path the reader
 * does not know (the line is skipped), and the summary that counts them. */
static void reads_each_waits_path_and_reason(void **state)
{
    (void)state;
    char own[64];
    strcpy(own, "/tmp/gar-test-run-path-XXXXXX");
    assert_non_null(mkdtemp(own));
    char path[128];
    snprintf(path, sizeof path, "%s/7.log", own);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# gar-sync-log v2 pid=7\n"
          "w,cudaStreamSynchronize,1,1,1000,2000,1900,300,flag,0,mapped\n"
          "w,cudaStreamSynchronize,2,1,3000,4000,3900,300,poll,0,query/no stream memory operations\n"
          "w,cudaEventSynchronize,0,1,5000,6000,5900,300,poll,0,query\n"
          "w,cudaStreamSynchronize,3,1,7000,8000,0,300,other context,0,real\n"
          "w,cudaStreamSynchronize,3,1,9000,9500,0,300,poll,0,sideways\n",
          f);
    fclose(f);
    gar_run_logs logs;
    gar_error err = { 0 };
    assert_int_equal(gar_run_logs_read(&logs, own, &err), 0);
    assert_int_equal(logs.count, 4);
    assert_int_equal(logs.skipped_lines, 1);
    assert_int_equal(logs.wait[0].path, GAR_RUN_PATH_MAPPED);
    assert_int_equal(logs.wait[1].path, GAR_RUN_PATH_QUERY);
    assert_string_equal(logs.reasons[logs.wait[1].path_why], "no stream memory operations");
    assert_int_equal(logs.wait[2].path, GAR_RUN_PATH_QUERY);
    assert_int_equal(logs.wait[2].path_why, GAR_RUN_NO_REASON);
    assert_int_equal(logs.wait[3].path, GAR_RUN_PATH_REAL);
    assert_int_equal(logs.wait[3].how, GAR_RUN_FALLBACK);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(gar_run_summary_print(&logs, true, out), 0);
    fclose(out);
    assert_non_null(strstr(text, "taken over on the mapped line: 1, by status query: 2\n"));
    assert_non_null(strstr(text, "status query in place of the mapped line: 1 wait"
                                 " (no stream memory operations)\n"));
    assert_non_null(strstr(text, "passed to the real call: 1 wait (other context)\n"));
    assert_non_null(strstr(text, "\n0:1 "));
    assert_non_null(strstr(text, "  mapped\n0:2 "));
    assert_non_null(strstr(text, "  mapped+query\n"));
    free(text);
    gar_run_logs_free(&logs);
    unlink(path);
    rmdir(own);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_both_processes_and_skips_a_cut_line),
        cmocka_unit_test(totals_use_the_measured_share),
        cmocka_unit_test(records_a_trace_in_order_with_outcomes),
        cmocka_unit_test(reads_each_waits_path_and_reason),
    };
    return cmocka_run_group_tests(tests, make_logs, remove_logs);
}
