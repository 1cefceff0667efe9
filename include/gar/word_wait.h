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
 * never executed (it would be SIGILL).  The decision is split from the
 * reading so it can be tested on any machine: gar_word_wait_decide_x86 /
 * _arm64 take the CPUID words or hwcaps as plain numbers.
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

/* The CPUID words the x86-64 decision reads.  A leaf beyond the maximum the
 * CPU reports must be given as zeros (the probe does so). */
typedef struct gar_x86_cpuid {
    uint32_t max_leaf;     /* CPUID.0:EAX */
    uint32_t leaf7_ecx;    /* CPUID.(EAX=7,ECX=0):ECX */
    uint32_t leaf15_eax;   /* CPUID.15h:EAX, the TSC/crystal ratio's denominator */
    uint32_t leaf15_ebx;   /* CPUID.15h:EBX, its numerator */
    uint32_t leaf15_ecx;   /* CPUID.15h:ECX, the crystal's Hz (0: not enumerated) */
    uint32_t max_ext_leaf; /* CPUID.80000000h:EAX */
    uint32_t ext1_ecx;     /* CPUID.80000001h:ECX */
} gar_x86_cpuid;

/* The hwcaps the aarch64 decision reads: getauxval(AT_HWCAP / AT_HWCAP2). */
typedef struct gar_arm64_hwcaps {
    uint64_t hwcap;
    uint64_t hwcap2;
} gar_arm64_hwcaps;

/* The bits the decisions test (values of the Linux arm64 ABI). */
#define GAR_X86_LEAF7_ECX_WAITPKG (UINT32_C(1) << 5)
#define GAR_X86_EXT1_ECX_MONITORX (UINT32_C(1) << 29)
#define GAR_ARM64_HWCAP_EVTSTRM (UINT64_C(1) << 2)
#define GAR_ARM64_HWCAP2_WFXT (UINT64_C(1) << 31)

/* A decision: the kind to run, or GAR_WORD_WAIT_NONE with the reason. */
typedef struct gar_word_wait_choice {
    gar_word_wait_kind kind;
    const char *why; /* static; NULL unless kind is GAR_WORD_WAIT_NONE */
} gar_word_wait_choice;

/* Which word wait an x86-64 CPU with these CPUID words offers: umwait when
 * it has WAITPKG, else mwaitx when it has MONITORX, else none.  Pure. */
GAR_API gar_word_wait_choice gar_word_wait_decide_x86(const gar_x86_cpuid *cpuid);

/* Which word wait an aarch64 CPU with these hwcaps offers: wfet with WFxT,
 * else wfe when the kernel runs its event stream, else none.  Pure. */
GAR_API gar_word_wait_choice gar_word_wait_decide_arm64(const gar_arm64_hwcaps *hwcaps);

/* The TSC's rate that CPUID.15h enumerates (crystal Hz × EBX / EAX), or 0
 * when it does not (any of the three words 0, or the leaf absent).  Pure. */
GAR_API uint64_t gar_x86_tsc_hz_from_cpuid(const gar_x86_cpuid *cpuid);

/* Ticks of a counter running at `hz` in `ns` nanoseconds, rounded down and
 * saturated at UINT64_MAX.  Pure. */
GAR_API uint64_t gar_ns_to_ticks(gar_dur_ns ns, uint64_t hz);

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
