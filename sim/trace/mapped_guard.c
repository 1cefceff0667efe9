/* sim/trace/mapped_guard.c — a SIGBUS handler that turns a read past a cut
 * file's end into zeros and a flag (mapped_guard.h). */
#define _DEFAULT_SOURCE

#include "sim/trace/mapped_guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A slot is taken (`taken` 1) before its range is set, and its range is
 * cleared before it is let go; the handler reads `start` and `len` only. */
typedef struct guard_slot {
    atomic_int taken;
    atomic_uintptr_t start; /* 0: no range */
    atomic_size_t len;
    atomic_bool cut;
} guard_slot;

static guard_slot slots[GAR_MAPPED_GUARD_SLOTS];
static struct sigaction before; /* the SIGBUS action found at install */
static uintptr_t page_mask;
static atomic_int installing; /* 1 while a thread checks or sets the action */

/* Replaces [at's page, end) with zero pages: the read resumes on zeros.
 * mmap is a plain system call here (no lock is taken), so this is safe
 * in a handler. */
static bool zero_from(uintptr_t at, uintptr_t end)
{
    uintptr_t page = at & page_mask;
    void *zeros = mmap((void *)page, end - page, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    return zeros != MAP_FAILED;
}

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    uintptr_t at = (uintptr_t)info->si_addr;
    for (unsigned k = 0; k < GAR_MAPPED_GUARD_SLOTS; k++) {
        uintptr_t start = atomic_load(&slots[k].start);
        size_t len = atomic_load(&slots[k].len);
        if (start != 0 && at >= start && at - start < len) {
            if (zero_from(at, start + len)) {
                atomic_store(&slots[k].cut, true);
                return;
            }
            break;
        }
    }
    /* Not a guarded read: as without this handler. */
    if ((before.sa_flags & SA_SIGINFO) != 0 && before.sa_sigaction != NULL) {
        before.sa_sigaction(sig, info, context);
    } else if ((before.sa_flags & SA_SIGINFO) == 0 && before.sa_handler != SIG_DFL &&
               before.sa_handler != SIG_IGN) {
        before.sa_handler(sig);
    } else {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(SIGBUS, &dfl, NULL); /* the access runs again and ends the process */
    }
}

/* Puts the handler in place unless it is there: at the first range, and
 * again where something set another SIGBUS action since (which it then
 * calls for faults outside every range).  One thread at a time.  True
 * when it is in place. */
static bool ensure_installed(void)
{
    int idle = 0;
    while (!atomic_compare_exchange_weak(&installing, &idle, 1))
        idle = 0; /* another thread is at it: a system call or two */
    struct sigaction now;
    bool ok = sigaction(SIGBUS, NULL, &now) == 0;
    if (ok && ((now.sa_flags & SA_SIGINFO) == 0 || now.sa_sigaction != on_sigbus)) {
        page_mask = ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        ok = sigaction(SIGBUS, &sa, &before) == 0;
    }
    atomic_store(&installing, 0);
    return ok;
}

int gar_mapped_guard_add(const void *start, size_t len)
{
    if (start == NULL || len == 0 || !ensure_installed())
        return GAR_MAPPED_GUARD_NONE;
    for (int k = 0; k < GAR_MAPPED_GUARD_SLOTS; k++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&slots[k].taken, &free_slot, 1)) {
            atomic_store(&slots[k].cut, false);
            atomic_store(&slots[k].len, len);
            atomic_store(&slots[k].start, (uintptr_t)start);
            return k;
        }
    }
    return GAR_MAPPED_GUARD_NONE;
}

bool gar_mapped_guard_cut(int slot)
{
    return slot >= 0 && slot < GAR_MAPPED_GUARD_SLOTS && atomic_load(&slots[slot].cut);
}

void gar_mapped_guard_remove(int slot)
{
    if (slot < 0 || slot >= GAR_MAPPED_GUARD_SLOTS)
        return;
    atomic_store(&slots[slot].start, 0);
    atomic_store(&slots[slot].len, 0);
    atomic_store(&slots[slot].cut, false);
    atomic_store(&slots[slot].taken, 0);
}
