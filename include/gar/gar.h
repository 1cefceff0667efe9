/* gar/gar.h — all of libgar's public API that needs no vendor header.
 *
 * Including it is the same as including each of these; include one of them
 * alone to say what a file uses.  The GPU backends are not included here:
 * gar/cuda.h needs the CUDA toolkit's cuda.h on the include path, and
 * gar/cuda.h and gar/hip.h exist only in a build with that backend (test
 * GAR_HAVE_CUDA_BACKEND / GAR_HAVE_HIP_BACKEND from gar/features.h).
 *
 * The core (portable C11, no I/O): */
#ifndef GAR_GAR_H
#define GAR_GAR_H

#include <gar/api.h>
#include <gar/features.h>

#include <gar/alarm_heap.h>       /* the executor's timers */
#include <gar/auto_host.h>        /* the auto rule seeded from a host profile */
#include <gar/auto_policy.h>      /* the auto plan's rule: park and sleep under a p99 budget */
#include <gar/auto_wait.h>        /* an auto wait through the inline or the reactor driver */
#include <gar/bands.h>            /* a plan by step size */
#include <gar/caps.h>             /* what a host offers */
#include <gar/error.h>            /* coded errors and their messages */
#include <gar/estimator.h>        /* the completion-time estimator and point tables */
#include <gar/estimator_family.h> /* the estimator families */
#include <gar/executor.h>         /* the single-threaded executor */
#include <gar/executor_kind.h>    /* executor kinds and their resolution */
#include <gar/host_profile.h>     /* a host profile (gar calibrate's gar-host v1 text), read */
#include <gar/idle.h>             /* the Idle port: sleep and park */
#include <gar/line.h>             /* the completion line and its descriptors */
#include <gar/manual_clock.h>     /* a virtual clock for tests */
#include <gar/plan.h>             /* wait plans: parse, resolve */
#include <gar/port.h>             /* the completion port */
#include <gar/reactor.h>          /* the reactor the executor idles in */
#include <gar/sample.h>           /* what one wait tells the estimator */
#include <gar/time.h>             /* ns clocks and durations */
#include <gar/wait.h>             /* the sans-I/O wait machine */
#include <gar/wait_inline.h>      /* the inline driver (executor kind naive) */
#include <gar/wait_task.h>        /* the reactor driver (a task of the executor) */

/* The real world (POSIX threads and clocks): */
#include <gar/emulated.h>  /* a device without a GPU: store thread, emulated device */
#include <gar/mapped.h>    /* a line in device-mapped memory, and its port */
#include <gar/posix.h>     /* the POSIX host: clock, sleep, park */
#include <gar/word_wait.h> /* the CPU's user-mode wait on a word */
#ifdef GAR_HAVE_URING_HOST
#include <gar/uring.h>     /* the io_uring host */
#endif

#endif
