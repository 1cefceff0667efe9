// backends/gpu/cuda/work_kernel.cu — device work of a given duration.
//
// One thread spins on the GPU's global nanosecond timer (%globaltimer) until
// `duration_ns` have passed since it started.  The timer's resolution is the
// driver's (about a microsecond on some parts), which bounds how exactly a
// short duration is met; it is always met, never cut short.  Compiled to
// PTX at build time and loaded by name, so the entry point is extern "C".

extern "C" __global__ void gar_spin_ns(unsigned long long duration_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < duration_ns);
}
