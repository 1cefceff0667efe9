/* backends/gpu/driver_loader.c — dlopen a driver, fill its table by name. */
#define _POSIX_C_SOURCE 200809L /* dlopen */

#include <gar/mapped.h>

#include "driver_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* A dlsym result goes into a function-pointer field by bytes: POSIX
 * guarantees the two pointers share one representation; ISO C does not
 * allow the cast. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "object and function pointers have one size (POSIX dlsym)");

int gar_driver_load(const char *library, void *table, const gar_entry_point *entries,
                    size_t count, void **handle, gar_error *err)
{
    char what[GAR_ERROR_ARG_BYTES];
    dlerror(); /* clear a stale message */
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        snprintf(what, sizeof what, "dlopen(%s)", library);
        return gar_mapped_fail(err, GAR_MAPPED_FAULT_UNAVAILABLE, what,
                               why != NULL ? why : "the library could not be loaded");
    }
    for (size_t i = 0; i < count; i++) {
        if (entries[i].required && dlsym(lib, entries[i].symbol) == NULL) {
            dlclose(lib);
            snprintf(what, sizeof what, "resolve %s in %s", entries[i].symbol, library);
            return gar_mapped_fail(err, GAR_MAPPED_FAULT_UNAVAILABLE, what,
                                   "the library has no such entry point");
        }
    }
    for (size_t i = 0; i < count; i++) {
        void *symbol = dlsym(lib, entries[i].symbol);
        memcpy((char *)table + entries[i].offset, &symbol, sizeof symbol);
    }
    *handle = lib;
    return 0;
}

const char *gar_driver_first_missing(const void *table, const gar_entry_point *entries,
                                     size_t count)
{
    for (size_t i = 0; i < count; i++) {
        void *field;
        memcpy(&field, (const char *)table + entries[i].offset, sizeof field);
        if (entries[i].required && field == NULL)
            return entries[i].symbol;
    }
    return NULL;
}
