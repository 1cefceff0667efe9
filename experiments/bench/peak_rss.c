/* experiments/bench/peak_rss.c — `peak-rss CMD [ARG...]`: runs CMD (its
 * standard streams are this one's) and prints on standard error its peak
 * resident set, as the kernel counted it for that child (wait4's
 * ru_maxrss), and its wall time:
 *
 *     peak_rss_kib: 15808
 *     wall_s: 0.721
 *
 * Exits with CMD's status (127 when it could not be run), so a benchmark
 * sees a failed command.  For experiments/bench/long_replay.sh; built, not
 * installed. */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peak-rss CMD [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("peak-rss: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("peak-rss: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) {
        perror("peak-rss: wait4");
        return 127;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "peak_rss_kib: %ld\nwall_s: %.3f\n", usage.ru_maxrss, wall);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
