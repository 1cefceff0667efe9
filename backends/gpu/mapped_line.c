/* backends/gpu/mapped_line.c — the mapped line's lifetime, vendor-neutral. */
#include <gar/mapped.h>

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "core/ops_version.h"

/* The unshown third argument of a mapped line's GAR_E_BACKEND. */
#define FAULT_ARG 2

static const char *const fault_names[] = {
    [GAR_MAPPED_FAULT_NONE] = "None",
    [GAR_MAPPED_FAULT_DRIVER] = "Driver",
    [GAR_MAPPED_FAULT_UNAVAILABLE] = "Unavailable",
    [GAR_MAPPED_FAULT_NO_DOMAIN] = "NoDomain",
    [GAR_MAPPED_FAULT_FOREIGN_STREAM] = "ForeignStream",
};

const char *gar_mapped_fault_name(gar_mapped_fault fault)
{
    if ((unsigned)fault >= sizeof fault_names / sizeof fault_names[0])
        return fault_names[GAR_MAPPED_FAULT_NONE];
    return fault_names[fault];
}

int gar_mapped_fail(gar_error *err, gar_mapped_fault fault, const char *what,
                    const char *status)
{
    assert(fault != GAR_MAPPED_FAULT_NONE);
    const char *name = gar_mapped_fault_name(fault);
    if (fault == GAR_MAPPED_FAULT_DRIVER)
        return gar_error_set(err, GAR_E_BACKEND, 3, what, status, name);
    char prefixed[GAR_ERROR_ARG_BYTES];
    snprintf(prefixed, sizeof prefixed, "%s: %s", name, status != NULL ? status : "");
    return gar_error_set(err, GAR_E_BACKEND, 3, what, prefixed, name);
}

gar_mapped_fault gar_mapped_fault_of(const gar_error *err)
{
    if (err == NULL || err->code != GAR_E_BACKEND || err->argc <= FAULT_ARG)
        return GAR_MAPPED_FAULT_NONE;
    for (unsigned f = GAR_MAPPED_FAULT_DRIVER; f < sizeof fault_names / sizeof fault_names[0];
         f++)
        if (strcmp(err->argv[FAULT_ARG], fault_names[f]) == 0)
            return (gar_mapped_fault)f;
    return GAR_MAPPED_FAULT_NONE;
}

int gar_mapped_line_create(gar_mapped_line *line, const gar_mapped_ops *ops, const void *drv,
                           int ordinal, gar_error *err)
{
    if (line == NULL || ops == NULL || drv == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_line_create",
                             line == NULL ? "line" : ops == NULL ? "ops" : "drv", "is NULL");
    *line = (gar_mapped_line){ .state = GAR_MAPPED_UNSET };
    int rc = gar__ops_version_check("gar_mapped_line_create", "gar_mapped_ops", ops->version,
                                    GAR_MAPPED_OPS_VERSION, err);
    if (rc < 0)
        return rc;
    if (ordinal < 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_line_create",
                             "ordinal", "is negative");

    const char *missing = ops->missing(drv);
    if (missing != NULL) {
        char why[GAR_ERROR_ARG_BYTES];
        snprintf(why, sizeof why, "the driver has no %s", missing);
        return gar_mapped_fail(err, GAR_MAPPED_FAULT_UNAVAILABLE, "create a mapped line", why);
    }

    gar_mapped_domain domain = { 0 };
    rc = ops->retain(drv, ordinal, &domain, err);
    if (rc < 0)
        return rc;

    void *page = NULL;
    uint64_t device_addr = 0;
    rc = ops->map(drv, &domain, GAR_MAPPED_PAGE_BYTES, &page, &device_addr, err);
    if (rc < 0) {
        ops->release(drv, &domain, NULL); /* the first failure is the one to report */
        return rc;
    }
    if (page == NULL || (uintptr_t)page % GAR_LINE_BYTES != 0 ||
        device_addr % GAR_LINE_BYTES != 0) {
        /* Nothing ran on the page yet, so it is safe to free at once. */
        ops->unmap(drv, &domain, page, NULL);
        ops->release(drv, &domain, NULL);
        return gar_mapped_fail(err, GAR_MAPPED_FAULT_DRIVER, "map a 64-byte aligned page",
                               "the driver returned an unaligned or NULL page");
    }

    /* The page is page-locked host memory that only this line uses: placing
     * a gar_line at its start is the allocation it was made for. */
    gar_line *host = page;
    gar_line_init(host);
    *line = (gar_mapped_line){
        .line = host,
        .device_addr = device_addr,
        .state = GAR_MAPPED_LIVE,
        .ops = ops,
        .drv = drv,
        .domain = domain,
        .page = page,
    };
    return 0;
}

int gar_mapped_line_release(gar_mapped_line *line, gar_error *err)
{
    if (line == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_line_release", "line",
                             "is NULL");
    if (line->state != GAR_MAPPED_LIVE)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_line_release", "line",
                             "is not a live line (never created, or released already)");
    if (line->bound != 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_line_release", "line",
                             "still has a port bound to a slot (end the ports first)");

    const gar_mapped_ops *ops = line->ops;
    /* Only a settled domain proves no store into the page is still queued. */
    if (ops->settle(line->drv, &line->domain, err) < 0 ||
        ops->unmap(line->drv, &line->domain, line->page, err) < 0) {
        line->state = GAR_MAPPED_LEAKED;
        return 1;
    }
    line->state = GAR_MAPPED_RELEASED;
    line->page = NULL;
    line->line = NULL;
    return ops->release(line->drv, &line->domain, err);
}
