/* tests/experiments/test_trace_cache.c — a trace's binary cache maps the
 * very rows and index the text gives; it is built once and reused, rebuilt
 * when its text changed or it is malformed (cut short, a byte changed in
 * the rows or the numbers, garbage), built privately where the folder
 * cannot be written, and a text the reader refuses is refused. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/many_streams.h"
#include "sim/replay_index.h"
#include "sim/trace/leftover.h"
#include "sweep/trace_cache.h"

static char folder[] = "/tmp/gar-trace-cache-XXXXXX";
static char text[128], cache[160];

static void write_text(const gar_trace *t)
{
    assert_int_equal(gar_trace_write_file(t, NULL, text, NULL), 0);
}

/* The cache holds `t` and the index gar_replay_index_build gives it. */
static void assert_holds(const gar_trace_cache *c, const gar_trace *t)
{
    assert_true(gar_trace_equal(&c->trace, t));
    gar_replay_index ix;
    assert_int_equal(gar_replay_index_build(t, &ix, NULL), 0);
    assert_int_equal(c->index.rows, ix.rows);
    assert_int_equal(c->index.streams, ix.streams);
    assert_int_equal(c->index.points, ix.points);
    assert_memory_equal(c->index.stream_of_row, ix.stream_of_row, ix.rows * sizeof(uint32_t));
    assert_memory_equal(c->index.point_of_row, ix.point_of_row, ix.rows * sizeof(uint32_t));
    assert_memory_equal(c->index.stream_id, ix.stream_id, ix.streams * sizeof(uint32_t));
    gar_replay_index_free(&ix);
}

static gar_trace_cache_how open_and_check(const gar_trace *t, const char *cache_path)
{
    gar_trace_cache c;
    gar_error err;
    int rc = gar_trace_cache_open(&c, text, cache_path, &err);
    if (rc < 0)
        fail_msg("open: %s", err.code != GAR_OK ? err.argv[0] : "?");
    assert_holds(&c, t);
    gar_trace_cache_how how = c.how;
    gar_trace_cache_close(&c);
    assert_null(c.map);
    return how;
}

/* Overwrites `n` bytes at `offset` of the cache. */
static void spoil(long offset, const void *bytes, size_t n)
{
    FILE *f = fopen(cache, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static void built_once_then_reused(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_queued(&t, 20000, 40, 2, 1), 0);
    write_text(&t);
    unlink(cache);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_BUILT);
    struct stat first, second;
    assert_int_equal(stat(cache, &first), 0);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REUSED);
    assert_int_equal(stat(cache, &second), 0);
    assert_int_equal(first.st_ino, second.st_ino); /* not written again */

    /* A changed text (one row's done moved later) makes the cache stale. */
    t.row[t.count - 1].done_ns += 1;
    write_text(&t);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REUSED);
    gar_trace_free(&t);
}

static void malformed_caches_are_rebuilt(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 5000, 7, 1, 2), 0);
    write_text(&t);
    unlink(cache);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_BUILT);
    const long rows_at = 128, numbers_at = 128 + (long)(t.count * sizeof(gar_trace_row));
    uint32_t big = 1000000, other = 1;
    uint64_t earlier = 0;
    struct {
        long offset;
        const void *bytes;
        size_t n;
    } spoils[] = {
        { 0, "gar-trace-cachX", 16 },                       /* the magic */
        { 16, &big, sizeof big },                           /* the version */
        { numbers_at + 40, &big, sizeof big },              /* a stream number past the count */
        { numbers_at + 44, &other, sizeof other },          /* a stream number in range, wrong */
        { numbers_at + (long)(t.count * 4) + 8, &other, sizeof other }, /* a point number */
        { rows_at + 40 * 100 + 16, &earlier, sizeof earlier }, /* a row breaking the order */
    };
    for (size_t k = 0; k < sizeof spoils / sizeof spoils[0]; k++) {
        spoil(spoils[k].offset, spoils[k].bytes, spoils[k].n);
        assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
        assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REUSED);
    }
    /* Cut short, and not a cache at all. */
    assert_int_equal(truncate(cache, 1000), 0);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
    FILE *f = fopen(cache, "w");
    assert_non_null(f);
    fputs("not a cache\n", f);
    fclose(f);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
    gar_trace_free(&t);
}

/* Rows changed so that every rule still holds — every done_ns shifted
 * later, or one bit flipped anywhere in the rows — make the cache stale:
 * its checksum no longer matches, and it is rebuilt from the text. */
static void tampered_rows_are_rebuilt(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 3000, 3, 1, 5), 0);
    write_text(&t);
    unlink(cache);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_BUILT);
    const long rows_at = 128;
    for (size_t r = 0; r < t.count; r++) {
        uint64_t later = t.row[r].done_ns + 1000;
        spoil(rows_at + (long)(r * sizeof(gar_trace_row) + offsetof(gar_trace_row, done_ns)),
              &later, sizeof later);
    }
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
    /* One bit at a time, spread over the rows and their every byte. */
    for (unsigned k = 0; k < 60; k++) {
        long at = rows_at + (long)(((uint64_t)k * 7919 * 41) % (t.count * sizeof(gar_trace_row)));
        unsigned char byte;
        FILE *f = fopen(cache, "rb");
        assert_non_null(f);
        assert_int_equal(fseek(f, at, SEEK_SET), 0);
        assert_int_equal(fread(&byte, 1, 1, f), 1);
        fclose(f);
        byte ^= (unsigned char)(1u << (k % 8));
        spoil(at, &byte, 1);
        assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
    }
    gar_trace_free(&t);
}

/* A build killed before its rename left its temporary file: the next
 * build removes it (no one holds its lock); a live owner's (locked) is
 * kept. */
static void a_killed_builds_leftover_is_removed(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 2000, 2, 1, 4), 0);
    write_text(&t);
    unlink(cache);
    char owner[GAR_LEFTOVER_OWNER_BYTES];
    gar_leftover_owner(owner);
    const char *host = strchr(owner, '-') + 1;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    assert_int_equal(waitpid(child, NULL, 0), child); /* ended: no process has its id */
    char dead[512], live[512];
    snprintf(dead, sizeof dead, "%s.tmp-%ld-%s-abcdef", cache, (long)child, host);
    snprintf(live, sizeof live, "%s.tmp-%s-ghijkl", cache, owner);
    FILE *f = fopen(dead, "w");
    assert_non_null(f);
    fclose(f);
    int held = open(live, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(held >= 0);
    int lock = gar_leftover_claim_file(held);
    assert_true(lock >= 0);
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_BUILT);
    struct stat st;
    assert_int_not_equal(stat(dead, &st), 0);
    assert_int_equal(stat(live, &st), 0);
    unlink(live);
    close(lock);
    close(held);
    gar_trace_free(&t);
}

/* A cache path whose folder cannot be made or written: built privately,
 * nothing left behind. */
static void an_unwritable_folder_gets_a_private_copy(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 3000, 3, 1, 3), 0);
    write_text(&t);
    char nowhere[200];
    snprintf(nowhere, sizeof nowhere, "%s/no-such-folder/x.gar-cache", folder);
    assert_int_equal(open_and_check(&t, nowhere), GAR_TRACE_CACHE_PRIVATE);
    assert_int_equal(open_and_check(&t, nowhere), GAR_TRACE_CACHE_PRIVATE);
    struct stat st;
    assert_int_not_equal(stat(nowhere, &st), 0);
    gar_trace_free(&t);
}

/* Where no cache can be written at all (every write past a file size
 * limit fails: EFBIG, SIGXFSZ ignored), there is none, and no error: the
 * caller reads the text.  Nothing is left behind. */
static void no_cache_where_nothing_can_be_written(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 3000, 3, 1, 6), 0);
    write_text(&t);
    unlink(cache);
    struct rlimit was, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    small = was;
    small.rlim_cur = 4096;
    void (*xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    gar_trace_cache c;
    gar_error err;
    int rc = gar_trace_cache_open(&c, text, NULL, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, xfsz);
    assert_int_equal(rc, 0);
    assert_int_equal(c.how, GAR_TRACE_CACHE_NONE);
    assert_null(c.map);
    assert_int_equal(c.trace.count, 0);
    gar_trace_cache_close(&c);
    struct stat st;
    assert_int_not_equal(stat(cache, &st), 0);
    DIR *d = opendir(folder);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp-") != NULL)
            fail_msg("a temporary file was left: %s", e->d_name);
    closedir(d);
    gar_trace_free(&t);
}

/* A FIFO where the cache goes, or as the text, is refused at once (an
 * open of a FIFO without a writer would wait forever), naming it, and is
 * not replaced.  The alarm ends a test that waits. */
static void a_fifo_is_refused_not_waited_on(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 1000, 2, 1, 7), 0);
    write_text(&t);
    unlink(cache);
    assert_int_equal(mkfifo(cache, 0644), 0);
    alarm(20);
    gar_trace_cache c;
    gar_error err;
    assert_int_equal(gar_trace_cache_open(&c, text, NULL, &err), -GAR_E_IO);
    assert_string_equal(err.argv[0], cache);
    assert_non_null(strstr(err.argv[2], "FIFO"));
    assert_null(c.map);
    struct stat st;
    assert_int_equal(stat(cache, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    unlink(cache);
    char fifo_text[200];
    snprintf(fifo_text, sizeof fifo_text, "%s/text-fifo", folder);
    assert_int_equal(mkfifo(fifo_text, 0644), 0);
    assert_int_equal(gar_trace_cache_open(&c, fifo_text, NULL, &err), -GAR_E_IO);
    assert_string_equal(err.argv[0], fifo_text);
    alarm(0);
    unlink(fifo_text);
    gar_trace_free(&t);
}

/* A cache truncated by another process while it is mapped: its rows past
 * the cut read as zeros, where the read raised SIGBUS and ended the
 * process, and gar_trace_cache_intact refuses it with error 12 naming it. */
static void a_cache_cut_while_mapped_is_refused(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_serial(&t, 5000, 3, 1, 8), 0);
    write_text(&t);
    unlink(cache);
    gar_trace_cache c;
    gar_error err;
    assert_int_equal(gar_trace_cache_open(&c, text, NULL, &err), 0);
    assert_int_equal(gar_trace_cache_intact(&c, &err), 0);
    assert_int_equal(truncate(cache, 4096), 0);
    const volatile gar_trace_row *last = &c.trace.row[c.trace.count - 1];
    assert_int_equal(last->done_ns, 0);
    assert_int_equal(c.index.stream_id[0], 0);
    assert_int_equal(gar_trace_cache_intact(&c, &err), -GAR_E_IO);
    assert_int_equal(err.code, GAR_E_IO);
    assert_string_equal(err.argv[0], cache);
    assert_non_null(strstr(err.argv[2], "cut short"));
    gar_trace_cache_close(&c);
    /* The next open rebuilds the cut file. */
    assert_int_equal(open_and_check(&t, NULL), GAR_TRACE_CACHE_REBUILT);
    gar_trace_free(&t);
}

/* A text the reader refuses is refused as the reader refuses it, and no
 * cache is left of it; a missing text is an I/O error. */
static void a_bad_text_is_refused(void **state)
{
    (void)state;
    unlink(cache);
    FILE *f = fopen(text, "w");
    assert_non_null(f);
    fputs("# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n1,0,5,9\n1,0,4,9\n", f);
    fclose(f);
    gar_trace_cache c;
    gar_error err;
    assert_int_equal(gar_trace_cache_open(&c, text, NULL, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "4"); /* start_ns went back on line 4 */
    assert_null(c.map);
    struct stat st;
    assert_int_not_equal(stat(cache, &st), 0);
    unlink(text);
    assert_int_equal(gar_trace_cache_open(&c, text, NULL, &err), -GAR_E_IO);
}

static void the_default_path_is_beside_the_text(void **state)
{
    (void)state;
    char *p = gar_trace_cache_path("data/traces/steady.csv");
    assert_string_equal(p, "data/traces/.steady.csv.gar-cache");
    free(p);
    p = gar_trace_cache_path("t.csv.gz");
    assert_string_equal(p, ".t.csv.gz.gar-cache");
    free(p);
}

int main(void)
{
    if (mkdtemp(folder) == NULL)
        return 1;
    snprintf(text, sizeof text, "%s/trace.csv", folder);
    snprintf(cache, sizeof cache, "%s/.trace.csv.gar-cache", folder);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(built_once_then_reused),
        cmocka_unit_test(malformed_caches_are_rebuilt),
        cmocka_unit_test(tampered_rows_are_rebuilt),
        cmocka_unit_test(a_killed_builds_leftover_is_removed),
        cmocka_unit_test(an_unwritable_folder_gets_a_private_copy),
        cmocka_unit_test(no_cache_where_nothing_can_be_written),
        cmocka_unit_test(a_fifo_is_refused_not_waited_on),
        cmocka_unit_test(a_cache_cut_while_mapped_is_refused),
        cmocka_unit_test(a_bad_text_is_refused),
        cmocka_unit_test(the_default_path_is_beside_the_text),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(cache);
    unlink(text);
    rmdir(folder);
    return failed;
}
