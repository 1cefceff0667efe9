/* sim/alloc.c — the allocation hook (alloc.h). */
#include "alloc.h"

const gar_alloc_hook *gar_alloc_active_hook = NULL;

void gar_alloc_set_hook(const gar_alloc_hook *hook)
{
    gar_alloc_active_hook = hook;
}

static bool fail_nth(void *context, size_t size)
{
    (void)size;
    gar_alloc_fail_nth *c = context;
    return ++c->asked == c->nth;
}

void gar_alloc_fail_nth_make(gar_alloc_fail_nth *counter, uint64_t nth)
{
    *counter = (gar_alloc_fail_nth){ .hook = { fail_nth, counter }, .nth = nth, .asked = 0 };
}
