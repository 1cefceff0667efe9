/* core/caps.c — capabilities looked up by the names warnings and options use.
 *
 * Fallback chains (plans, executor kinds) are data that name the capability
 * each step needs; this file maps such a name to the record's fields. */
#include <gar/caps.h>

#include <stddef.h>
#include <string.h>

/* The record's field pair for capability `name`, or false for a name that is
 * not a capability. */
static bool fields_of(gar_caps *caps, const char *name, bool **has, const char ***why)
{
    if (name == NULL)
        return false;
    if (strcmp(name, GAR_CAP_WORD_WAIT) == 0) {
        *has = &caps->word_wait;
        *why = &caps->word_wait_why;
        return true;
    }
    if (strcmp(name, GAR_CAP_IO_URING) == 0) {
        *has = &caps->io_uring;
        *why = &caps->io_uring_why;
        return true;
    }
    return false;
}

bool gar_caps_has(const gar_caps *caps, const char *name, const char **why)
{
    const char *reason = "not a capability";
    bool offered = false;
    if (caps != NULL) {
        gar_caps copy = *caps; /* fields_of hands out pointers to write through */
        bool *has;
        const char **has_why;
        if (fields_of(&copy, name, &has, &has_why)) {
            offered = *has;
            reason = *has_why != NULL ? *has_why : "no reason given";
        }
    }
    if (!offered && why != NULL)
        *why = reason;
    return offered;
}

int gar_caps_withdraw(gar_caps *caps, const char *name, const char *why, gar_error *err)
{
    if (caps == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_caps_withdraw", "caps", "is NULL");
    bool *has;
    const char **has_why;
    if (!fields_of(caps, name, &has, &has_why))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_caps_withdraw", "name",
                             "is not a capability (" GAR_CAP_WORD_WAIT ", " GAR_CAP_IO_URING ")");
    *has = false;
    *has_why = why;
    return 0;
}
