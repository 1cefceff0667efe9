/* experiments/sweep/progress.c — a progress bar, or a line per tenth. */
#include "sweep/progress.h"

#include <time.h>

#define BAR_WIDTH 30

double gar_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gar_progress_start(gar_progress *p, FILE *out, bool terminal, const char *what,
                        uint64_t total)
{
    p->out = out;
    p->terminal = terminal;
    p->what = what;
    p->total = total;
    p->started_s = gar_progress_now();
    p->drawn_s = 0;
    p->tenths = 0;
}

/* "1m05s", "12s": short enough for a bar. */
static void format_duration(double seconds, char *buf, size_t size)
{
    if (seconds < 0)
        seconds = 0;
    unsigned long s = (unsigned long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, size, "%luh%02lum", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, size, "%lum%02lus", s / 60, s % 60);
    else
        snprintf(buf, size, "%lus", s);
}

static void report(gar_progress *p, uint64_t done, double now)
{
    double elapsed = now - p->started_s;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    double left = rate > 0 ? (double)(p->total - done) / rate : 0;
    char eta[32];
    format_duration(left, eta, sizeof eta);
    unsigned percent = p->total > 0 ? (unsigned)(done * 100 / p->total) : 100;
    if (p->terminal) {
        char bar[BAR_WIDTH + 1];
        unsigned filled = p->total > 0 ? (unsigned)(done * BAR_WIDTH / p->total) : BAR_WIDTH;
        for (unsigned i = 0; i < BAR_WIDTH; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[BAR_WIDTH] = '\0';
        fprintf(p->out, "\r%s [%s] %llu/%llu %3u%%  %.1f/s  ETA %s   ", p->what, bar,
                (unsigned long long)done, (unsigned long long)p->total, percent, rate, eta);
    } else {
        fprintf(p->out, "%s: %u%% (%llu/%llu, %.1f/s, ETA %s)\n", p->what, percent,
                (unsigned long long)done, (unsigned long long)p->total, rate, eta);
    }
    fflush(p->out);
}

void gar_progress_update(gar_progress *p, uint64_t done)
{
    if (p->out == NULL || p->total == 0)
        return;
    double now = gar_progress_now();
    if (p->terminal) {
        if (now - p->drawn_s >= 0.1 || done == p->total) {
            p->drawn_s = now;
            report(p, done, now);
        }
        return;
    }
    unsigned tenths = (unsigned)(done * 10 / p->total);
    if (tenths > p->tenths) {
        p->tenths = tenths;
        report(p, done, now);
    }
}

void gar_progress_finish(gar_progress *p, uint64_t done)
{
    if (p->out == NULL || p->total == 0)
        return;
    if (p->terminal) {
        report(p, done, gar_progress_now());
        fputc('\n', p->out);
        fflush(p->out);
    }
}
