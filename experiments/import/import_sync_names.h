/* experiments/import/import_sync_names.h — the CUDA and HIP calls that wait
 * for GPU work, by name, and what each waits for.
 *
 * Both readers classify each host call by name as they read it; the mapping's
 * rules (import_rules.h) ask what a classified call waits for.  The table is
 * static: nothing here allocates or keeps state. */
#ifndef GAR_IMPORT_SYNC_NAMES_H
#define GAR_IMPORT_SYNC_NAMES_H

#include <stddef.h>

/* What a host call does, by its name. */
typedef enum gar_sync_kind {
    GAR_SYNC_NONE,         /* launches or other calls: looked up as launches */
    GAR_SYNC_STREAM,       /* waits for one stream */
    GAR_SYNC_EVENT,        /* waits for an event's stream */
    GAR_SYNC_DEVICE,       /* waits for every stream of the device */
    GAR_SYNC_MEMCPY,       /* a synchronous copy: waits for its own copy */
    GAR_SYNC_MEMCPY_ASYNC, /* waits only when its copy is device-to-pageable-host */
} gar_sync_kind;

/* The index of a synchronizing call's name, or -1 for any other call.  A
 * trailing version suffix ("_v3020"), and before it a per-thread default
 * stream suffix ("_ptsz", "_ptds"), is ignored.  `len` bytes, no NUL needed. */
int gar_import_sync_name(const char *name, size_t len);

/* The kind and base name of a name index. */
gar_sync_kind gar_import_sync_kind(int name);
const char *gar_import_sync_base(int name);

#endif
