/* tests/experiments/child_peak.h — what the memory tests share: run a gar
 * command as a child and read its peak resident set.  Header-only, for
 * the test programs that include it (cmocka's asserts, so include it after
 * <cmocka.h>). */
#ifndef GAR_TESTS_CHILD_PEAK_H
#define GAR_TESTS_CHILD_PEAK_H

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv with its standard output into `out` (NULL: /dev/null); asserts
 * that it exits 0 and returns the child's peak resident set in KiB. */
static inline long child_peak_kib(char *const argv[], const char *out)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out != NULL ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    assert_int_equal(wait4(pid, &status, 0, &usage), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return usage.ru_maxrss;
}

#endif
