/* gar/word_wait.h — the CPU's user-mode wait on a memory word.
 *
 * A word wait arms the CPU's monitor on the line's cache line and sleeps
 * the core until a store to that line, a bound, or any other wake event:
 *
 *   umwait  x86-64 WAITPKG (CPUID.7.0:ECX[5]): umonitor + umwait to a TSC
 *           deadline, in the light C0.1 state (the faster wake).
 *   mwaitx  AMD MONITORX (CPUID.80000001h:ECX[29]): monitorx + mwaitx with
 *           its timer enabled, in TSC cycles, C-states disabled (stays C0).
 *   wfet    aarch64 FEAT_WFxT (HWCAP2_WFXT): ldxr arms the exclusive
 *           monitor, wfet sleeps to a CNTVCT_EL0 deadline.
 *   wfe     aarch64 without WFxT but with the kernel's event stream
 *           (HWCAP_EVTSTRM): ldxr + plain wfe, which the stream wakes at
 *           least every ~100 µs.  A plain wfe has no bound of its own, so it
 *           runs only where that stream is promised, and only while at least
 *           GAR_WORD_WAIT_WFE_MIN_NS remain: closer to the bound the park
 *           spins, so no park ends more than a look after its bound.
 *
 * Only gar_word_wait_probe makes a usable gar_word_wait, and only from what
 * the CPU and the kernel say they offer: an instruction the CPU lacks is
 * never executed (it would be SIGILL).  (Inside libgar the decision is split
 * from the reading, so it is tested on any machine with CPUID words and
 * hwcaps as plain numbers.)
 *
 * Every park is bounded twice: by the instruction's own deadline, derived
 * from `until` through the counter's calibrated rate, and by CLOCK_MONOTONIC
 * (gar_posix_now), which is the authority — a park returns 0 only once that
 * clock has reached `until`, whatever the calibration.  The instruction may
 * return early for any reason (an interrupt, the OS's cap on one umwait, a
 * store to another word of the cache line); the park looks again and
 * re-arms, so callers see only the gar_idle park contract (idle.h).
 *
 * Ownership: a gar_word_wait is a plain record the caller owns; it holds no
 * resources and may be copied.  Its strings are static text. */
#ifndef GAR_WORD_WAIT_H
#define GAR_WORD_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/line.h>
#include <gar/time.h>

typedef enum gar_word_wait_kind {
    GAR_WORD_WAIT_NONE = 0, /* the probe refused: see `why` */
    GAR_WORD_WAIT_UMWAIT,
    GAR_WORD_WAIT_MWAITX,
    GAR_WORD_WAIT_WFET,
    GAR_WORD_WAIT_WFE,
} gar_word_wait_kind;

/* Below this much time to the bound, the plain-wfe park spins instead of
 * sleeping: twice the kernel's nominal 100 µs event stream period, which it
 * rounds to a power of two of the counter. */
#define GAR_WORD_WAIT_WFE_MIN_NS (200 * GAR_NS_PER_US)

/* A probed word wait. */
typedef struct gar_word_wait {
    gar_word_wait_kind kind;
    const char *name;           /* "umwait", "mwaitx", "wfet", "wfe", or "none" */
    const char *why;            /* why none; NULL when there is one */
    uint64_t tick_hz;           /* rate of the counter its deadlines count (TSC, CNTVCT); 0 if none */
    const char *tick_hz_source; /* where tick_hz came from; NULL when 0 */
    /* umwait only: the OS's cap on one umwait in TSC ticks (Linux's
     * umwait_control/max_time; 0 = no cap), and whether it was read. */
    uint64_t os_max_ticks;
    bool os_max_known;
} gar_word_wait;

/* Reads this CPU's CPUID words or hwcaps, decides, and calibrates the
 * deadline counter: CPUID.15h when it enumerates the TSC, else one 10 ms
 * measurement against CLOCK_MONOTONIC; CNTFRQ_EL0 on aarch64.  For umwait it
 * also reads the OS's cap.  Fills `out` and returns 1 when it holds a word
 * wait, 0 when the probe refused (out->why says why); -GAR_E_INVALID_ARGUMENT
 * for a NULL `out`.  The decision is made only on what the running CPU
 * reports, so a word wait it hands out runs here; it is not to be carried
 * to another machine. */
GAR_API int gar_word_wait_probe(gar_word_wait *out, gar_error *err);

/* Parks on `line` while its words equal `seen`, at most until `until` on
 * gar_posix_now's clock: 1 when the line changed, 0 once the clock reached
 * `until` (never before), like the gar_idle park.  The line is looked at
 * before the clock, so a line that already differs answers 1 even past
 * `until`.  Refuses with -GAR_E_INVALID_ARGUMENT a NULL argument or a
 * `wait` that holds no word wait (kind GAR_WORD_WAIT_NONE or one this
 * build's architecture lacks). */
GAR_API int gar_word_wait_park(const gar_word_wait *wait, gar_line *line,
                               const uint64_t seen[GAR_LINE_WORDS], gar_mono_ns until, gar_error *err);

#endif
