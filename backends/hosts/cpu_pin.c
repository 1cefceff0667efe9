/* backends/hosts/cpu_pin.c — sched_setaffinity on the calling thread. */
#define _GNU_SOURCE /* sched_getaffinity, sched_setaffinity, CPU_* */

#include "cpu_pin.h"

#include <errno.h>
#include <string.h>

#ifdef __linux__
#include <sched.h>

bool gar_cpu_split(int *waiter, int *device)
{
    *waiter = *device = -1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return false;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        if (*waiter < 0)
            *waiter = cpu;
        *device = cpu;
    }
    return true;
}

int gar_cpu_pin_self(int cpu, gar_error *err)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return gar_error_set(err, GAR_E_BACKEND, 2, "pinning a thread", "no such CPU");
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, "sched_setaffinity", strerror(errno));
    return 0;
}

void gar_cpu_save(gar_cpu_saved *saved)
{
    cpu_set_t set;
    memset(saved, 0, sizeof *saved);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu < 1024; cpu++)
        if (CPU_ISSET(cpu, &set))
            saved->mask[cpu / 64] |= UINT64_C(1) << (cpu % 64);
    saved->valid = true;
}

void gar_cpu_restore(const gar_cpu_saved *saved)
{
    if (!saved->valid)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu < 1024; cpu++)
        if (saved->mask[cpu / 64] & (UINT64_C(1) << (cpu % 64)))
            CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set); /* best effort, as the pin was */
}

#else

bool gar_cpu_split(int *waiter, int *device)
{
    *waiter = *device = -1;
    return false;
}

int gar_cpu_pin_self(int cpu, gar_error *err)
{
    (void)cpu;
    return gar_error_set(err, GAR_E_BACKEND, 2, "pinning a thread",
                         "this system has no thread affinity gar knows how to set");
}

void gar_cpu_save(gar_cpu_saved *saved)
{
    saved->valid = false;
}

void gar_cpu_restore(const gar_cpu_saved *saved)
{
    (void)saved;
}

#endif
