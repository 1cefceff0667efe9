/* tests/fake_cudart/example.c — an unmodified "GPU program" over the fake
 * libcudart.so.12: it launches kernels of random durations on a few streams
 * from a few threads and waits for them with the runtime's synchronising
 * calls, as a training or serving loop does.  After every wait it asks the
 * fake for the ground truth: a wait that returned while its work was still
 * pending is counted as early, and any early wait makes it exit 1.
 *
 * usage: example [--waits N] [--threads T] [--streams S] [--kernels K]
 *                [--min-us U] [--max-us U]
 *                [--seed S] [--blocking] [--fork]
 *   --kernels K kernels a wait (default 1 to 3 at random), each of min-us to
 *               max-us microseconds at random (default 5 to 300)
 *   --blocking  cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) first
 *   --fork      fork once half way; the child waits on a stream of its own
 *               (one kernel of 50 ms, cudaStreamSynchronize), prints "example: fork child: S stream writes, P syncs found
 *               work pending" (its own wait's) and exits, the parent reaps it
 * Prints "example: W waits, E early" and exits 0 when E is 0, then the
 * fake's record: "example: fake: S stream writes, P syncs found work
 * pending" (P counts the runtime's stream and event synchronises that were
 * called while their work was pending: every wait left to the real call,
 * and a taken-over wait that ended early; the device synchronises at the
 * end are not counted). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_cudart_api.h"

static struct {
    unsigned waits, threads, streams, min_us, max_us, kernels;
    uint64_t seed;
    int blocking, fork_once;
} opt = { 2000, 2, 2, 5, 300, 0, 1, 0, 0 };

static _Atomic unsigned long early, done_waits, failures;

static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void check(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess) {
        fprintf(stderr, "example: %s failed: %s\n", what, cudaGetErrorName(rc));
        atomic_fetch_add(&failures, 1);
    }
}

/* One wait of a kind drawn at random, then the ground truth. */
static void one_wait(cudaStream_t stream, cudaEvent_t event, uint64_t *rng)
{
    unsigned kernels = opt.kernels ? opt.kernels : 1 + (unsigned)(next_random(rng) % 3);
    unsigned span = opt.max_us > opt.min_us ? opt.max_us - opt.min_us + 1 : 1;
    for (unsigned k = 0; k < kernels; k++)
        check(fakecudart_launch(stream, 1000u * (opt.min_us + next_random(rng) % span), 0, 0),
              "launch");
    switch (next_random(rng) % 8) {
    case 0:
        check(cudaEventRecord(event, stream), "cudaEventRecord");
        check(cudaEventSynchronize(event), "cudaEventSynchronize");
        break;
    case 1:
        check(cudaStreamSynchronize_ptsz(stream), "cudaStreamSynchronize_ptsz");
        break;
    default:
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    if (fakecudart_pending(stream) != 0)
        atomic_fetch_add(&early, 1);
    atomic_fetch_add(&done_waits, 1);
}

static void *host_loop(void *arg)
{
    uint64_t rng = opt.seed * 7919u + (uintptr_t)arg;
    cudaStream_t streams[8];
    unsigned n = opt.streams < 8 ? opt.streams : 8;
    for (unsigned i = 0; i < n; i++)
        check(cudaStreamCreate(&streams[i]), "cudaStreamCreate");
    cudaEvent_t event;
    check(cudaEventCreate(&event), "cudaEventCreate");
    unsigned mine = opt.waits / opt.threads;
    for (unsigned w = 0; w < mine; w++) {
        one_wait(streams[next_random(&rng) % n], event, &rng);
        if (opt.fork_once && (uintptr_t)arg == 0 && w == mine / 2) {
            pid_t child = fork();
            if (child == 0) {
                cudaStream_t own;
                check(cudaStreamCreate(&own), "cudaStreamCreate (child)");
                uint64_t stores0, pending0, stores, pending;
                fakecudart_record(&stores0, &pending0);
                /* 50 ms: long enough that the child's first wait, which makes
                 * its line, still finds the kernel running. */
                check(fakecudart_launch(own, 50000000u, 0, 0), "launch (child)");
                check(cudaStreamSynchronize(own), "cudaStreamSynchronize (child)");
                if (fakecudart_pending(own) != 0)
                    atomic_fetch_add(&early, 1);
                fakecudart_record(&stores, &pending);
                printf("example: fork child: %llu stream writes, %llu syncs found work pending\n",
                       (unsigned long long)(stores - stores0),
                       (unsigned long long)(pending - pending0));
                fflush(stdout);
                _exit(atomic_load(&early) || atomic_load(&failures) ? 1 : 0);
            }
            int status = 0;
            if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
                WEXITSTATUS(status) != 0) {
                fprintf(stderr, "example: the forked child failed\n");
                atomic_fetch_add(&failures, 1);
            }
        }
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return NULL;
}

static unsigned number(const char *text)
{
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (*end || v == 0 || v > 1000000) {
        fprintf(stderr, "example: bad number %s\n", text);
        exit(2);
    }
    return (unsigned)v;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--blocking"))
            opt.blocking = 1;
        else if (!strcmp(a, "--fork"))
            opt.fork_once = 1;
        else if (v && !strcmp(a, "--waits"))
            opt.waits = number(argv[++i]);
        else if (v && !strcmp(a, "--threads"))
            opt.threads = number(argv[++i]);
        else if (v && !strcmp(a, "--streams"))
            opt.streams = number(argv[++i]);
        else if (v && !strcmp(a, "--kernels"))
            opt.kernels = number(argv[++i]);
        else if (v && !strcmp(a, "--min-us"))
            opt.min_us = number(argv[++i]);
        else if (v && !strcmp(a, "--max-us"))
            opt.max_us = number(argv[++i]);
        else if (v && !strcmp(a, "--seed"))
            opt.seed = number(argv[++i]);
        else {
            fprintf(stderr, "usage: example [--waits N] [--threads T] [--streams S] "
                            "[--kernels K] [--min-us U] [--max-us U] [--seed S] [--blocking] [--fork]\n");
            return 2;
        }
    }
    if (opt.blocking)
        check(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), "cudaSetDeviceFlags");
    pthread_t threads[64];
    unsigned n = opt.threads < 64 ? opt.threads : 64;
    for (unsigned t = 0; t < n; t++)
        if (pthread_create(&threads[t], NULL, host_loop, (void *)(uintptr_t)t) != 0)
            return 1;
    for (unsigned t = 0; t < n; t++)
        pthread_join(threads[t], NULL);
    printf("example: %lu waits, %lu early\n", atomic_load(&done_waits), atomic_load(&early));
    uint64_t stores, found_pending;
    fakecudart_record(&stores, &found_pending);
    printf("example: fake: %llu stream writes, %llu syncs found work pending\n",
           (unsigned long long)stores, (unsigned long long)found_pending);
    return atomic_load(&early) || atomic_load(&failures) ? 1 : 0;
}
