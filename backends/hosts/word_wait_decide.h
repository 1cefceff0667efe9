/* backends/hosts/word_wait_decide.h — which word wait a CPU offers, decided
 * from its CPUID words or hwcaps given as plain numbers, and the counter
 * arithmetic of a park's deadline.
 *
 * Internal to libgar (not installed, not exported): gar_word_wait_probe
 * (gar/word_wait.h) reads this CPU and calls these; tests call them with
 * the words of CPUs they do not run on.  Every function here is pure. */
#ifndef GAR_WORD_WAIT_DECIDE_H
#define GAR_WORD_WAIT_DECIDE_H

#include <stdint.h>

#include <gar/time.h>
#include <gar/word_wait.h>

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
gar_word_wait_choice gar_word_wait_decide_x86(const gar_x86_cpuid *cpuid);

/* Which word wait an aarch64 CPU with these hwcaps offers: wfet with WFxT,
 * else wfe when the kernel runs its event stream, else none.  Pure. */
gar_word_wait_choice gar_word_wait_decide_arm64(const gar_arm64_hwcaps *hwcaps);

/* The TSC's rate that CPUID.15h enumerates (crystal Hz × EBX / EAX), or 0
 * when it does not (any of the three words 0, or the leaf absent).  Pure. */
uint64_t gar_x86_tsc_hz_from_cpuid(const gar_x86_cpuid *cpuid);

/* Ticks of a counter running at `hz` in `ns` nanoseconds, rounded down and
 * saturated at UINT64_MAX.  Pure. */
uint64_t gar_ns_to_ticks(gar_dur_ns ns, uint64_t hz);

#endif
