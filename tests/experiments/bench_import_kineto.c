/* tests/experiments/bench_import_kineto.c — a Kineto trace of any size,
 * generated into a temporary directory, then imported: JSON throughput (per
 * second of wall time and of the process's CPU time), peak memory, and the
 * same file's plain read as the baseline measured in the same run.  A
 * benchmark (meson benchmark), not a test: it prints numbers and asserts
 * nothing about time.
 *
 * usage: bench_import_kineto [MB [KEEP]]   (default 64, or GAR_BENCH_IMPORT_MB)
 *
 * With KEEP, the generated profile is also left at that path (a hard link, so
 * on the same file system as /tmp), to import it again, for instance with
 * `gar import kineto` to compare two builds.
 *
 * The profile is a training loop as PyTorch writes it: per step a CPU op with
 * its args (not kept by the importer), a kernel launch and its kernel (kept),
 * and every 8th step a stream sync with its cuda_sync record (kept).  Then one
 * string of 1 MiB - 2 bytes, the longest token accepted, inside a kept event,
 * and a second file holding one 64 MiB string, refused at 1 MiB. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "import/import.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This process's CPU time (user + system): the import's own cost, which
 * other work on a shared machine does not stretch as it does wall time. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Writes about `bytes` of profile; returns the kept records written. */
static unsigned long long write_profile(FILE *f, unsigned long long bytes)
{
    unsigned long long records = 0, corr = 0;
    long start = ftell(f);
    fputs("{\"schemaVersion\": 1, \"traceEvents\": [\n", f);
    for (unsigned long long step = 0; (unsigned long long)(ftell(f) - start) < bytes; step++) {
        double t = 1700000000000000.0 + 100.0 * (double)step;
        unsigned long long c = ++corr;
        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 4242,"
                " \"tid\": 4242, \"ts\": %.3f, \"dur\": 12.5, \"args\": {\"External id\": %llu,"
                " \"Record function id\": 0, \"Input Dims\": [[4096], [4096, 1024], [1024, 4096]],"
                " \"Input type\": [\"float\", \"float\", \"float\"], \"Sequence number\": %llu,"
                " \"Fwd thread id\": 1}},\n"
                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\","
                " \"pid\": 4242, \"tid\": 4242, \"ts\": %.3f, \"dur\": 4.25,"
                " \"args\": {\"cbid\": 211, \"correlation\": %llu, \"External id\": %llu}},\n"
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_128x64_tn\","
                " \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"dur\": 60.125, \"args\": {\"queued\": 0,"
                " \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %llu,"
                " \"registers per thread\": 128, \"shared memory\": 16384, \"blocks per SM\": 1.5,"
                " \"warps per SM\": 6, \"grid\": [128, 8, 1], \"block\": [256, 1, 1],"
                " \"est. achieved occupancy %%\": 25}},\n",
                t, step, step, t + 2.0, c, step, t + 10.0, c);
        records += 2;
        if (step % 8 == 7) {
            unsigned long long s = ++corr;
            fprintf(f,
                    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\","
                    " \"pid\": 4242, \"tid\": 4242, \"ts\": %.3f, \"dur\": 70,"
                    " \"args\": {\"cbid\": 131, \"correlation\": %llu}},\n"
                    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0,"
                    " \"tid\": 7, \"ts\": %.3f, \"dur\": 68, \"args\": {\"cuda_sync_kind\":"
                    " \"stream_synchronize\", \"device\": 0, \"stream\": 7, \"correlation\": %llu}},\n",
                    t + 8.0, s, t + 9.0, s);
            records += 2;
        }
    }
    /* The longest string accepted: 1 MiB with its quotes. */
    fputs("{\"ph\": \"i\", \"cat\": \"user_annotation\", \"name\": \"", f);
    for (unsigned i = 0; i < GAR_IMPORT_TOKEN_MAX - 2; i++)
        fputc('x', f);
    fputs("\"}\n]}\n", f);
    return records;
}

int main(int argc, char **argv)
{
    const char *env = getenv("GAR_BENCH_IMPORT_MB");
    unsigned long long mb = argc > 1 ? strtoull(argv[1], NULL, 10)
                            : env != NULL ? strtoull(env, NULL, 10)
                                          : 64;
    if (mb == 0)
        mb = 64;
    char dir[] = "/tmp/gar-bench-import-XXXXXX";
    if (mkdtemp(dir) == NULL)
        return 1;
    char path[64], long_path[64];
    snprintf(path, sizeof path, "%s/profile.json", dir);
    snprintf(long_path, sizeof long_path, "%s/long.json", dir);

    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 1;
    unsigned long long records = write_profile(f, mb << 20);
    long bytes = ftell(f);
    fclose(f);
    if (argc > 2 && link(path, argv[2]) != 0) {
        perror(argv[2]);
        return 1;
    }

    /* Baseline: the plain read of the same file, in 64 KiB blocks. */
    char *block = malloc(1 << 16);
    int fd = open(path, O_RDONLY);
    double r0 = seconds();
    ssize_t got;
    unsigned long long sum = 0;
    while ((got = read(fd, block, 1 << 16)) > 0)
        sum += (unsigned char)block[got - 1];
    double r1 = seconds();
    close(fd);
    free(block);

    long rss_before = peak_rss_kb();
    gar_trace t;
    gar_import_counts c;
    gar_error err;
    double t0 = seconds(), c0 = cpu_seconds();
    int rc = gar_import_kineto_file(path, &t, &c, &err);
    double t1 = seconds(), c1 = cpu_seconds();
    long rss_after = peak_rss_kb();
    if (rc != 0) {
        char msg[512];
        gar_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 1;
    }

    /* One 64 MiB string: refused at its first MiB, so in time for 1 MiB. */
    f = fopen(long_path, "wb");
    if (f == NULL)
        return 1;
    fputs("{\"traceEvents\": [{\"name\": \"", f);
    for (unsigned i = 0; i < (64u << 20); i++)
        fputc('y', f);
    fputs("\"}]}\n", f);
    fclose(f);
    gar_trace refused;
    double l0 = seconds();
    int long_rc = gar_import_kineto_file(long_path, &refused, NULL, &err);
    double l1 = seconds();

    double mbytes = (double)bytes / 1e6;
    printf("json_mb: %.1f\n"
           "kept_records: %llu\n"
           "waits: %llu\n"
           "import_s: %.3f\n"
           "import_mb_per_s: %.1f\n"
           "import_cpu_s: %.3f\n"
           "import_mb_per_cpu_s: %.1f\n"
           "plain_read_mb_per_s: %.1f\n"
           "import_vs_plain_read: %.3f\n"
           "peak_rss_before_import_kb: %ld\n"
           "peak_rss_after_import_kb: %ld\n"
           "rss_growth_bytes_per_kept_record: %.1f\n"
           "long_string_64mib_refused: %s\n"
           "long_string_refusal_s: %.4f\n"
           "(checksum %llu)\n",
           mbytes, records, (unsigned long long)c.waits, t1 - t0, mbytes / (t1 - t0),
           c1 - c0, mbytes / (c1 - c0),
           mbytes / (r1 - r0), (r1 - r0) / (t1 - t0), rss_before, rss_after,
           records > 0 ? (double)(rss_after - rss_before) * 1024.0 / (double)records : 0.0,
           long_rc == -GAR_E_INVALID_TRACE ? "yes" : "no", l1 - l0, sum);
    gar_trace_free(&t);
    unlink(path);
    unlink(long_path);
    rmdir(dir);
    return long_rc == -GAR_E_INVALID_TRACE ? 0 : 1;
}
