/* backends/hosts/word_wait.c — probe and park of the CPU's user-mode word wait.
 *
 * The instructions sit in small functions of their own, each compiled for
 * its instruction set extension with a target attribute (x86-64) or written
 * as assembly (aarch64), so the file builds with the project's plain flags
 * and nothing outside those functions can be compiled into an instruction
 * the CPU may lack.  They are reached only through a gar_word_wait that the
 * probe filled from this CPU's own report. */
#define _POSIX_C_SOURCE 200809L /* clock_nanosleep */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include <gar/idle.h>
#include <gar/word_wait.h>

#include "cpu_relax.h"
#include "monotonic_now.h"
#include "word_wait_decide.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define GAR_WORD_WAIT_X86_64 1
#include <cpuid.h>
#include <x86intrin.h>
#elif defined(__aarch64__) && defined(__GNUC__) && defined(__linux__)
#define GAR_WORD_WAIT_ARM64 1
#include <sys/auxv.h>
#endif

/* ---- arithmetic ----------------------------------------------------------- */

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

uint64_t gar_ns_to_ticks(gar_dur_ns ns, uint64_t hz)
{
    /* ns × hz / 10⁹ without the 128-bit product: whole seconds, then the
     * fraction against the rate's whole and fractional GHz. */
    const uint64_t whole_s = ns / GAR_NS_PER_S, frac_ns = ns % GAR_NS_PER_S;
    const uint64_t ghz = hz / GAR_NS_PER_S, frac_hz = hz % GAR_NS_PER_S;
    uint64_t ticks = mul_sat(whole_s, hz);
    ticks = add_sat(ticks, mul_sat(frac_ns, ghz));
    return add_sat(ticks, frac_ns * frac_hz / GAR_NS_PER_S); /* both < 10⁹: fits */
}

/* ---- decisions ------------------------------------------------------------ */

gar_word_wait_choice gar_word_wait_decide_x86(const gar_x86_cpuid *cpuid)
{
    if (cpuid == NULL)
        return (gar_word_wait_choice){ GAR_WORD_WAIT_NONE, "no CPUID words were given" };
    /* Intel's first: no CPU has both, and umwait's deadline is absolute. */
    if (cpuid->max_leaf >= 7 && (cpuid->leaf7_ecx & GAR_X86_LEAF7_ECX_WAITPKG) != 0)
        return (gar_word_wait_choice){ GAR_WORD_WAIT_UMWAIT, NULL };
    if (cpuid->max_ext_leaf >= UINT32_C(0x80000001) &&
        (cpuid->ext1_ecx & GAR_X86_EXT1_ECX_MONITORX) != 0)
        return (gar_word_wait_choice){ GAR_WORD_WAIT_MWAITX, NULL };
    return (gar_word_wait_choice){
        GAR_WORD_WAIT_NONE,
        "CPU lacks WAITPKG (CPUID.7.0:ECX[5]) and MONITORX (CPUID.80000001h:ECX[29])",
    };
}

gar_word_wait_choice gar_word_wait_decide_arm64(const gar_arm64_hwcaps *hwcaps)
{
    if (hwcaps == NULL)
        return (gar_word_wait_choice){ GAR_WORD_WAIT_NONE, "no hwcaps were given" };
    if ((hwcaps->hwcap2 & GAR_ARM64_HWCAP2_WFXT) != 0)
        return (gar_word_wait_choice){ GAR_WORD_WAIT_WFET, NULL };
    /* A plain wfe is bounded only by the event stream: without it a wfe
     * with no store coming could sleep until the next interrupt. */
    if ((hwcaps->hwcap & GAR_ARM64_HWCAP_EVTSTRM) != 0)
        return (gar_word_wait_choice){ GAR_WORD_WAIT_WFE, NULL };
    return (gar_word_wait_choice){
        GAR_WORD_WAIT_NONE,
        "CPU lacks WFxT (HWCAP2_WFXT) and the kernel runs no event stream (HWCAP_EVTSTRM) "
        "to bound a plain wfe",
    };
}

uint64_t gar_x86_tsc_hz_from_cpuid(const gar_x86_cpuid *cpuid)
{
    if (cpuid == NULL || cpuid->max_leaf < 0x15 || cpuid->leaf15_eax == 0 ||
        cpuid->leaf15_ebx == 0 || cpuid->leaf15_ecx == 0)
        return 0;
    return (uint64_t)cpuid->leaf15_ecx * cpuid->leaf15_ebx / cpuid->leaf15_eax;
}

static const char *kind_name(gar_word_wait_kind kind)
{
    switch (kind) {
    case GAR_WORD_WAIT_UMWAIT:
        return "umwait";
    case GAR_WORD_WAIT_MWAITX:
        return "mwaitx";
    case GAR_WORD_WAIT_WFET:
        return "wfet";
    case GAR_WORD_WAIT_WFE:
        return "wfe";
    case GAR_WORD_WAIT_NONE:
        break;
    }
    return "none";
}

/* Whether this build has the instructions of `kind` (the probe of another
 * architecture's kind is never made here, but a record may be forged). */
static bool built_here(gar_word_wait_kind kind)
{
#ifdef GAR_WORD_WAIT_X86_64
    return kind == GAR_WORD_WAIT_UMWAIT || kind == GAR_WORD_WAIT_MWAITX;
#elif defined(GAR_WORD_WAIT_ARM64)
    return kind == GAR_WORD_WAIT_WFET || kind == GAR_WORD_WAIT_WFE;
#else
    (void)kind;
    return false;
#endif
}

/* ---- x86-64: umonitor/umwait, monitorx/mwaitx ----------------------------- */

#ifdef GAR_WORD_WAIT_X86_64

#define UMWAIT_C0_1 1u          /* control bit 0: the light state, faster wake */
#define MWAITX_TIMER 2u         /* ECX bit 1: EBX holds a timeout in TSC cycles */
#define MWAITX_NO_CSTATE 0xF0u  /* EAX hint: stay in C0 */

static void read_cpuid(gar_x86_cpuid *out)
{
    unsigned a, b, c, d;
    *out = (gar_x86_cpuid){ 0 };
    out->max_leaf = __get_cpuid_max(0, NULL);
    if (out->max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        out->leaf7_ecx = c;
    }
    if (out->max_leaf >= 0x15) {
        __cpuid(0x15, a, b, c, d);
        out->leaf15_eax = a;
        out->leaf15_ebx = b;
        out->leaf15_ecx = c;
    }
    out->max_ext_leaf = __get_cpuid_max(0x80000000u, NULL);
    if (out->max_ext_leaf >= 0x80000001u) {
        __cpuid(0x80000001u, a, b, c, d);
        out->ext1_ecx = c;
    }
    (void)d;
}

/* The TSC against CLOCK_MONOTONIC over 10 ms; each TSC reading sits between
 * two clock readings and is dated at their middle.  0 if it makes no sense. */
static uint64_t tsc_hz_measured(void)
{
    const gar_mono_ns a0 = gar__monotonic_now();
    const uint64_t tsc0 = __rdtsc();
    const gar_mono_ns b0 = gar__monotonic_now();

    const gar_mono_ns target = b0 + 10 * GAR_NS_PER_MS;
    const struct timespec ts = { .tv_sec = (time_t)(target / GAR_NS_PER_S),
                                 .tv_nsec = (long)(target % GAR_NS_PER_S) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;

    const gar_mono_ns a1 = gar__monotonic_now();
    const uint64_t tsc1 = __rdtsc();
    const gar_mono_ns b1 = gar__monotonic_now();

    const gar_mono_ns mid0 = a0 + (b0 - a0) / 2, mid1 = a1 + (b1 - a1) / 2;
    if (mid1 <= mid0 || tsc1 <= tsc0)
        return 0;
    /* (tsc1 - tsc0) is ~10⁷–10⁸ ticks: × 10⁹ stays far inside 64 bits. */
    return mul_sat(tsc1 - tsc0, GAR_NS_PER_S) / (mid1 - mid0);
}

/* Linux publishes the cap it put on one umwait (IA32_UMWAIT_CONTROL), in
 * TSC ticks; 0 means no cap.  Without the file the kernel does not manage
 * the setting, and gar assumes no cap: every umwait has its own deadline. */
static bool read_umwait_max_time(uint64_t *ticks)
{
    FILE *file = fopen("/sys/devices/system/cpu/umwait_control/max_time", "r");
    if (file == NULL)
        return false;
    unsigned long long value;
    const bool read = fscanf(file, "%llu", &value) == 1;
    fclose(file);
    if (read)
        *ticks = (uint64_t)value;
    return read;
}

static void probe_here(gar_word_wait *out)
{
    gar_x86_cpuid cpuid;
    read_cpuid(&cpuid);
    const gar_word_wait_choice choice = gar_word_wait_decide_x86(&cpuid);
    out->kind = choice.kind;
    out->why = choice.why;
    if (choice.kind == GAR_WORD_WAIT_NONE)
        return;

    out->tick_hz = gar_x86_tsc_hz_from_cpuid(&cpuid);
    out->tick_hz_source = "CPUID.15h";
    if (out->tick_hz == 0) {
        out->tick_hz = tsc_hz_measured();
        out->tick_hz_source = "measured against CLOCK_MONOTONIC";
    }
    if (out->tick_hz < 1000000) { /* no TSC of a CPU with these instructions runs under 1 MHz */
        *out = (gar_word_wait){ .kind = GAR_WORD_WAIT_NONE,
                                .why = "the TSC's rate could not be measured against "
                                       "CLOCK_MONOTONIC (needed for the park's deadline)" };
        return;
    }
    if (choice.kind == GAR_WORD_WAIT_UMWAIT)
        out->os_max_known = read_umwait_max_time(&out->os_max_ticks);
}

__attribute__((target("waitpkg"))) static void umwait_once(gar_line *line,
                                                           const uint64_t seen[GAR_LINE_WORDS],
                                                           uint64_t deadline_tsc)
{
    _umonitor(line);
    /* A store after the caller's look and before the monitor was armed
     * would not wake the umwait: look again with the monitor armed. */
    if (gar_line_unchanged(line, seen))
        (void)_umwait(UMWAIT_C0_1, deadline_tsc); /* CF = the OS cap ended it: the loop re-arms */
}

__attribute__((target("mwaitx"))) static void mwaitx_once(gar_line *line,
                                                          const uint64_t seen[GAR_LINE_WORDS],
                                                          uint32_t cycles)
{
    _mm_monitorx(line, 0, 0);
    if (gar_line_unchanged(line, seen))
        _mm_mwaitx(MWAITX_TIMER, MWAITX_NO_CSTATE, cycles);
}

static void sleep_once(const gar_word_wait *wait, gar_line *line,
                       const uint64_t seen[GAR_LINE_WORDS], gar_dur_ns left)
{
    uint64_t ticks = gar_ns_to_ticks(left, wait->tick_hz);
    if (ticks == 0)
        ticks = 1;
    if (wait->kind == GAR_WORD_WAIT_UMWAIT) {
        /* Honour the OS's cap: the CPU would end the wait there anyway; the
         * loop then re-arms for what is left. */
        if (wait->os_max_ticks != 0 && ticks > wait->os_max_ticks)
            ticks = wait->os_max_ticks;
        umwait_once(line, seen, add_sat(__rdtsc(), ticks));
    } else {
        assert(wait->kind == GAR_WORD_WAIT_MWAITX);
        mwaitx_once(line, seen, ticks > UINT32_MAX ? UINT32_MAX : (uint32_t)ticks);
    }
}

#endif /* GAR_WORD_WAIT_X86_64 */

/* ---- aarch64: ldxr + wfet / wfe ------------------------------------------- */

#ifdef GAR_WORD_WAIT_ARM64

static uint64_t counter_now(void)
{
    uint64_t ticks;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(ticks) : : "memory");
    return ticks;
}

static uint64_t counter_hz(void)
{
    uint64_t hz;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz;
}

static void probe_here(gar_word_wait *out)
{
    const gar_arm64_hwcaps hwcaps = { .hwcap = getauxval(AT_HWCAP), .hwcap2 = getauxval(AT_HWCAP2) };
    const gar_word_wait_choice choice = gar_word_wait_decide_arm64(&hwcaps);
    out->kind = choice.kind;
    out->why = choice.why;
    if (choice.kind == GAR_WORD_WAIT_NONE)
        return;
    out->tick_hz = counter_hz();
    out->tick_hz_source = "CNTFRQ_EL0";
    if (out->tick_hz == 0)
        *out = (gar_word_wait){ .kind = GAR_WORD_WAIT_NONE,
                                .why = "CNTFRQ_EL0 reads 0: the counter's rate is unknown" };
}

/* A load-exclusive arms the monitor on the line's reservation granule; a
 * store by another observer clears it, which is a wake event for wfe/wfet.
 * A store between the ldxr and the wfe sets the event register, so the wfe
 * then returns at once: nothing is lost.  (A granule smaller than the line
 * would leave stores to its far words to the bound or the event stream.) */
static void wfe_once(gar_line *line, const uint64_t seen[GAR_LINE_WORDS], bool timed,
                     uint64_t deadline)
{
    uint64_t first;
    __asm__ __volatile__("ldxr %0, [%1]" : "=r"(first) : "r"(&line->words[0]) : "memory");
    (void)first;
    if (gar_line_unchanged(line, seen)) {
        if (timed) /* wfet x0: .inst, as assemblers before Armv8.7 lack the name */
            __asm__ __volatile__("mov x0, %0\n\t.inst 0xd5031000" : : "r"(deadline) : "x0", "memory");
        else
            __asm__ __volatile__("wfe" : : : "memory");
    }
    __asm__ __volatile__("clrex" : : : "memory");
}

static void sleep_once(const gar_word_wait *wait, gar_line *line,
                       const uint64_t seen[GAR_LINE_WORDS], gar_dur_ns left)
{
    if (wait->kind == GAR_WORD_WAIT_WFET) {
        wfe_once(line, seen, true, add_sat(counter_now(), gar_ns_to_ticks(left, wait->tick_hz)));
    } else {
        assert(wait->kind == GAR_WORD_WAIT_WFE);
        if (left < GAR_WORD_WAIT_WFE_MIN_NS)
            gar_cpu_relax(); /* the event stream could carry a wfe past the bound */
        else
            wfe_once(line, seen, false, 0);
    }
}

#endif /* GAR_WORD_WAIT_ARM64 */

/* ---- probe and park ------------------------------------------------------- */

int gar_word_wait_probe(gar_word_wait *out, gar_error *err)
{
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_word_wait_probe", "out",
                             "is NULL");
    *out = (gar_word_wait){ .kind = GAR_WORD_WAIT_NONE };
#if defined(GAR_WORD_WAIT_X86_64) || defined(GAR_WORD_WAIT_ARM64)
    probe_here(out);
#elif defined(__aarch64__)
    out->why = "this system offers no hwcaps to probe the CPU's wfe/wfet with";
#else
    out->why = "no user-mode word wait on this architecture";
#endif
    out->name = kind_name(out->kind);
    if (out->kind == GAR_WORD_WAIT_NONE)
        out->tick_hz_source = NULL;
    return out->kind != GAR_WORD_WAIT_NONE;
}

int gar_word_wait_park(const gar_word_wait *wait, gar_line *line,
                       const uint64_t seen[GAR_LINE_WORDS], gar_mono_ns until, gar_error *err)
{
    if (wait == NULL || line == NULL || seen == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_word_wait_park",
                             wait == NULL ? "wait" : line == NULL ? "line" : "seen", "is NULL");
    if (!built_here(wait->kind) || wait->tick_hz == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_word_wait_park", "wait",
                             "holds no word wait of this CPU (only a successful probe makes one)");
#if defined(GAR_WORD_WAIT_X86_64) || defined(GAR_WORD_WAIT_ARM64)
    for (;;) {
        if (!gar_line_unchanged(line, seen))
            return 1;
        const gar_mono_ns now = gar__monotonic_now();
        if (now >= until)
            return 0;
        sleep_once(wait, line, seen, until - now);
    }
#else
    (void)until;
    return 0; /* unreachable: built_here refused every kind */
#endif
}
