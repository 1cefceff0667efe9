/* tests/sim/test_mapped_guard.c — a mapped file cut short by ftruncate
 * while it is read: a guarded range reads zeros past the new end and says
 * it was cut (in the reading thread or another), a SIGBUS elsewhere still
 * ends the process, and the streamed trace reader, whose plain files are
 * mapped, refuses the file with error 12 naming it instead of dying. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/trace/mapped_guard.h"
#include "sim/trace/trace.h"

static char folder[] = "/tmp/gar-mapped-guard-XXXXXX";
static size_t page;

/* A file of `pages` pages of 'x' at `path`, open to read and write. */
static int file_of_pages(const char *path, size_t pages)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    char *bytes = malloc(page);
    assert_non_null(bytes);
    memset(bytes, 'x', page);
    for (size_t k = 0; k < pages; k++)
        assert_int_equal(write(fd, bytes, page), (ssize_t)page);
    free(bytes);
    return fd;
}

static void a_cut_range_reads_zeros_and_says_so(void **state)
{
    (void)state;
    char path[200];
    snprintf(path, sizeof path, "%s/three-pages", folder);
    int fd = file_of_pages(path, 3);
    const volatile char *map = mmap(NULL, 3 * page, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(map != MAP_FAILED);
    int slot = gar_mapped_guard_add((const void *)map, 3 * page);
    assert_int_not_equal(slot, GAR_MAPPED_GUARD_NONE);
    assert_int_equal(map[2 * page], 'x');
    assert_false(gar_mapped_guard_cut(slot));

    assert_int_equal(ftruncate(fd, (off_t)page), 0); /* two pages gone */
    assert_int_equal(map[0], 'x');                    /* the first is still there */
    assert_false(gar_mapped_guard_cut(slot));
    assert_int_equal(map[2 * page + 5], 0);           /* SIGBUS: zeros instead */
    assert_true(gar_mapped_guard_cut(slot));
    assert_int_equal(map[page], 0);
    assert_int_equal(map[0], 'x');

    gar_mapped_guard_remove(slot);
    assert_false(gar_mapped_guard_cut(slot));
    munmap((void *)map, 3 * page);
    close(fd);
    unlink(path);
}

typedef struct reader {
    const volatile char *at;
    char got;
} reader;

static void *read_one(void *arg)
{
    reader *r = arg;
    r->got = *r->at;
    return NULL;
}

/* Workers of a sweep read one shared mapping: the fault is handled in the
 * thread that takes it, and each range keeps its own flag. */
static void threads_and_ranges_are_apart(void **state)
{
    (void)state;
    char a_path[200], b_path[200];
    snprintf(a_path, sizeof a_path, "%s/a", folder);
    snprintf(b_path, sizeof b_path, "%s/b", folder);
    int a = file_of_pages(a_path, 2), b = file_of_pages(b_path, 2);
    const volatile char *ma = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, a, 0);
    const volatile char *mb = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, b, 0);
    assert_true(ma != MAP_FAILED && mb != MAP_FAILED);
    int sa = gar_mapped_guard_add((const void *)ma, 2 * page);
    int sb = gar_mapped_guard_add((const void *)mb, 2 * page);
    assert_int_not_equal(sa, sb);
    assert_int_equal(ftruncate(a, 0), 0);
    reader r[4];
    pthread_t t[4];
    /* Two waves, each a reader of either range at once: the thread
     * sanitizer counts the handler's remapping of a range as a write, so
     * two threads do not read the cut range at the same moment here. */
    for (int wave = 0; wave < 2; wave++) {
        for (int k = 2 * wave; k < 2 * wave + 2; k++) {
            r[k] = (reader){ .at = k % 2 == 0 ? ma + page + (size_t)k : mb + page + (size_t)k,
                             .got = '?' };
            assert_int_equal(pthread_create(&t[k], NULL, read_one, &r[k]), 0);
        }
        for (int k = 2 * wave; k < 2 * wave + 2; k++)
            assert_int_equal(pthread_join(t[k], NULL), 0);
    }
    assert_int_equal(r[0].got, 0);
    assert_int_equal(r[2].got, 0);
    assert_int_equal(r[1].got, 'x');
    assert_int_equal(r[3].got, 'x');
    assert_true(gar_mapped_guard_cut(sa));
    assert_false(gar_mapped_guard_cut(sb));
    gar_mapped_guard_remove(sa);
    gar_mapped_guard_remove(sb);
    munmap((void *)ma, 2 * page);
    munmap((void *)mb, 2 * page);
    close(a);
    close(b);
    unlink(a_path);
    unlink(b_path);
}

/* A SIGBUS outside every guarded range ends the process as before. */
static void an_unguarded_fault_still_ends_the_process(void **state)
{
    (void)state;
    char path[200];
    snprintf(path, sizeof path, "%s/unguarded", folder);
    int fd = file_of_pages(path, 2);
    const volatile char *map = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(map != MAP_FAILED);
    int slot = gar_mapped_guard_add((const void *)map, page); /* the first page only */
    assert_int_equal(ftruncate(fd, 0), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* As in gar, no other SIGBUS action under the guard's (cmocka
         * sets one around each test): added again, it finds the default. */
        signal(SIGBUS, SIG_DFL);
        gar_mapped_guard_add((const void *)map, page);
        char c = map[page]; /* past the guarded page */
        _exit(c == 0 ? 3 : 4);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGBUS);
    gar_mapped_guard_remove(slot);
    munmap((void *)map, 2 * page);
    close(fd);
    unlink(path);
}

/* The streamed reader maps a plain file 4 MiB at a time: cut short after
 * its first block was handed out, the file is refused with error 12 and
 * its name, where the process died of SIGBUS. */
static void the_trace_reader_refuses_a_file_cut_while_mapped(void **state)
{
    (void)state;
    char path[200];
    snprintf(path, sizeof path, "%s/t.csv", folder);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n", f);
    for (unsigned i = 0; i < 20000; i++)
        fprintf(f, "7,%u,%u,%u\n", 1000 * i, 1000 * i + 10, 1000 * i + 500);
    fclose(f);
    gar_trace_stream *s;
    gar_error err;
    assert_int_equal(gar_trace_stream_open(&s, path, &err), 0);
    const gar_trace_row *rows;
    size_t count;
    assert_int_equal(gar_trace_stream_next(s, &rows, &count), 1);
    assert_int_equal(rows[0].done_ns, 500);
    assert_int_equal(truncate(path, 100), 0);
    int rc;
    while ((rc = gar_trace_stream_next(s, &rows, &count)) > 0)
        ;
    assert_int_equal(rc, -GAR_E_IO);
    assert_int_equal(err.code, GAR_E_IO);
    assert_string_equal(err.argv[0], path);
    assert_non_null(strstr(err.argv[2], "cut short"));
    gar_trace_stream_close(s);
    unlink(path);
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    if (mkdtemp(folder) == NULL)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_cut_range_reads_zeros_and_says_so),
        cmocka_unit_test(threads_and_ranges_are_apart),
        cmocka_unit_test(an_unguarded_fault_still_ends_the_process),
        cmocka_unit_test(the_trace_reader_refuses_a_file_cut_while_mapped),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(folder);
    return failed;
}
