/* backends/hosts/cpu_relax.h — the CPU's "I am spinning" hint, for busy-wait loops.
 *
 * On x86-64 `pause` lets the sibling hyper-thread run and avoids the
 * memory-order mis-speculation penalty when the awaited store lands; on
 * aarch64 `yield` tells an SMT core the same.  Elsewhere it does nothing: a
 * spin stays correct without the hint, only less polite. */
#ifndef GAR_CPU_RELAX_H
#define GAR_CPU_RELAX_H

static inline void gar_cpu_relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
