/* backends/gpu/driver_loader.h — loading a vendor driver into a table of
 * function pointers with dlopen/dlsym, shared by the CUDA and HIP backends.
 *
 * A vendor describes its table as entry points: the exported symbol, the
 * offset of the function-pointer field it fills, and whether the table is
 * useless without it.  Nothing here knows a vendor's name. */
#ifndef GAR_DRIVER_LOADER_H
#define GAR_DRIVER_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>

typedef struct gar_entry_point {
    const char *symbol; /* the name the library exports */
    size_t offset;      /* the function-pointer field of the table it fills */
    bool required;
} gar_entry_point;

/* dlopens `library` (RTLD_NOW | RTLD_LOCAL) and fills every entry point's
 * field of `table` (NULL for an optional one the library lacks).  Returns 0
 * with *handle set, or -GAR_E_BACKEND with the fault Unavailable:
 * "dlopen(LIB)" with dlerror's text, or "resolve SYMBOL in LIB" for the
 * first required entry point missing; then nothing stays loaded and the
 * table's fields are as they were. */
int gar_driver_load(const char *library, void *table, const gar_entry_point *entries,
                    size_t count, void **handle, gar_error *err);

/* The symbol of the first required entry point whose field in `table` is
 * NULL, or NULL when all are set. */
const char *gar_driver_first_missing(const void *table, const gar_entry_point *entries,
                                     size_t count);

#endif
