/* backends/hosts/cpu_pin.h — the CPUs a process may run on, and keeping a
 * thread on one of them.
 *
 * An emulated device is a thread that stands for a GPU, and a GPU's store
 * costs the host's CPUs nothing.  On a machine with few CPUs the device
 * thread would otherwise wake on the very CPU its waiter spins on and delay
 * the waiter by its own run — a cost no real device has, which no host
 * profile should learn.  So calibration and verification put the waiter on
 * one CPU and the device on another, where the thread may run on two or more.
 *
 * Linux only (sched_setaffinity); elsewhere pinning is refused with a reason
 * and callers run unpinned, which is still correct, only less faithful. */
#ifndef GAR_CPU_PIN_H
#define GAR_CPU_PIN_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/error.h>

/* How many CPUs the calling thread may run on: its affinity mask, which
 * taskset, cgroup cpusets and batch schedulers narrow, unlike the online
 * count (which it falls back to where the mask cannot be read).  Returns at
 * least 1. */
unsigned gar_cpu_allowed(void);

/* Two different CPUs the calling thread may run on now: the first and the
 * last of its set.  Returns false (both set to -1) when it has fewer than
 * two, or the system cannot tell. */
bool gar_cpu_split(int *waiter, int *device);

/* Pins the calling thread to CPU `cpu` (the system's number).  Returns 0, or
 * -GAR_E_BACKEND naming the call and its error. */
int gar_cpu_pin_self(int cpu, gar_error *err);

/* A thread's CPU set, kept to be put back (up to 1024 CPUs). */
typedef struct gar_cpu_saved {
    bool valid;
    uint64_t mask[16];
} gar_cpu_saved;

/* Keeps the calling thread's CPU set in *saved (valid false if unknown). */
void gar_cpu_save(gar_cpu_saved *saved);

/* Puts back a set gar_cpu_save kept (nothing when it was not valid). */
void gar_cpu_restore(const gar_cpu_saved *saved);

#endif
