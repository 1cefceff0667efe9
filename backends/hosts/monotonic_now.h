/* backends/hosts/monotonic_now.h — the time now on CLOCK_MONOTONIC, for the
 * hosts' own sources.
 *
 * The POSIX host publishes this clock (gar_posix_now, gar/posix.h) and the
 * word wait times its parks and its probe with it; both read it here so the
 * word wait needs nothing of the POSIX host, whose record holds a word wait:
 * the dependency runs one way, posix_host -> word_wait.  A file that includes
 * this header asks for POSIX 2008 (clock_gettime) before its first include. */
#ifndef GAR_MONOTONIC_NOW_H
#define GAR_MONOTONIC_NOW_H

#include <assert.h>
#include <time.h>

#include <gar/time.h>

static inline gar_mono_ns gar__monotonic_now(void)
{
    struct timespec ts;
    int rc = clock_gettime(CLOCK_MONOTONIC, &ts);
    assert(rc == 0); /* CLOCK_MONOTONIC is required by POSIX and cannot fail here */
    (void)rc;
    return (gar_mono_ns)ts.tv_sec * GAR_NS_PER_S + (gar_mono_ns)ts.tv_nsec;
}

#endif
