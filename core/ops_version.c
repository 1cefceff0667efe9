/* core/ops_version.c — refuses an ops table of a version this libgar does
 * not know (core/ops_version.h). */
#include "ops_version.h"

#include "text.h"

int gar__ops_version_check(const char *fn, const char *table, unsigned version, unsigned newest,
                           gar_error *err)
{
    if (version >= 1 && version <= newest)
        return 0;
    char given[GAR__U64_TEXT_BYTES], known[GAR__U64_TEXT_BYTES];
    return gar_error_set(err, GAR_E_OPS_VERSION, 4, fn, table, gar__u64_text(version, given),
                         gar__u64_text(newest, known));
}
