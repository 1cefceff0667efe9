/* core/ops_version.h — the one check of an ops table's version field.
 *
 * The port, idle and mapped ops tables (gar/port.h, gar/idle.h, gar/mapped.h)
 * start with the version of the struct their writer filled.  Whoever takes a
 * table from a caller checks it here before calling an op, so no op beyond
 * what the writer filled is ever read.  Internal to libgar (not installed,
 * not exported); the backends use it too. */
#ifndef GAR_CORE_OPS_VERSION_H
#define GAR_CORE_OPS_VERSION_H

#include <gar/error.h>

/* Returns 0 when `version` is one this libgar knows (1 to `newest`), else
 * fills `err` with GAR_E_OPS_VERSION naming `fn` and `table` (its type's
 * name, "gar_port_ops") and returns -GAR_E_OPS_VERSION. */
int gar__ops_version_check(const char *fn, const char *table, unsigned version, unsigned newest,
                           gar_error *err);

#endif
