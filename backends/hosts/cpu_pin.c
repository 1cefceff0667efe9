/* backends/hosts/cpu_pin.c — sched_setaffinity on the calling thread. */
#define _GNU_SOURCE /* sched_getaffinity, sched_setaffinity, CPU_* */

#include "cpu_pin.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The online CPUs, at least 1: where the affinity mask cannot be read. */
static unsigned online_cpus(void)
{
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count < 1 ? 1u : count > (long)UINT32_MAX ? UINT32_MAX : (unsigned)count;
}

#ifdef __linux__
#include <sched.h>

unsigned gar_cpu_allowed(void)
{
    /* The kernel refuses (EINVAL) a mask smaller than its own: grow it. */
    for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(cpus);
        if (set == NULL)
            break;
        size_t size = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(size, set);
        int rc = sched_getaffinity(0, size, set);
        int saved = errno;
        int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
        CPU_FREE(set);
        if (count > 0)
            return (unsigned)count;
        if (rc != 0 && saved != EINVAL)
            break;
    }
    return online_cpus();
}

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

unsigned gar_cpu_allowed(void)
{
    return online_cpus();
}

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
