/* experiments/sweep/short_names.c — unique short names of a database's
 * traces and hosts. */
#include "sweep/short_names.h"

#include <stdlib.h>
#include <string.h>

#include "sweep/format.h"

int gar_short_names_read(gar_db *db, gar_short_names *out, gar_error *err)
{
    static const char sql[] = "SELECT 0, trace, name, source FROM traces UNION ALL "
                              "SELECT 1, host, name, source FROM hosts";
    out->at = NULL;
    out->count = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "read the trace and host names of", err);
    size_t capacity = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->count == capacity) {
            capacity = capacity > 0 ? 2 * capacity : 16;
            gar_short_name *bigger = realloc(out->at, capacity * sizeof *bigger);
            if (bigger == NULL) {
                sqlite3_finalize(st);
                gar_short_names_free(out);
                return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the names",
                                     "exhausted");
            }
            out->at = bigger;
        }
        gar_short_name *n = &out->at[out->count++];
        char name[GAR_RESULTS_TEXT];
        n->host = sqlite3_column_int(st, 0) != 0;
        gar_results_copy_text(st, 1, n->hash, sizeof n->hash);
        gar_results_copy_text(st, 2, name, sizeof name);
        gar_results_short_name(name, n->name, sizeof n->name);
        gar_results_copy_text(st, 3, n->source, sizeof n->source);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        gar_short_names_free(out);
        return gar_results_fault(db, "read the trace and host names of", err);
    }
    /* Marked first, renamed after: a name shared by three is seen by all. */
    bool *shared = calloc(out->count > 0 ? out->count : 1, sizeof *shared);
    if (shared == NULL) {
        gar_short_names_free(out);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the names", "exhausted");
    }
    for (size_t i = 0; i < out->count; i++)
        for (size_t j = i + 1; j < out->count; j++)
            if (out->at[i].host == out->at[j].host &&
                strcmp(out->at[i].name, out->at[j].name) == 0)
                shared[i] = shared[j] = true;
    for (size_t i = 0; i < out->count; i++) {
        if (!shared[i])
            continue;
        gar_short_name *n = &out->at[i];
        size_t len = strlen(n->name);
        size_t room = sizeof n->name - GAR_SHORT_NAME_HASH_DIGITS - 2;
        gar_format(n->name + (len < room ? len : room), GAR_SHORT_NAME_HASH_DIGITS + 2, "-%.*s",
                   GAR_SHORT_NAME_HASH_DIGITS, n->hash);
    }
    free(shared);
    return 0;
}

const char *gar_short_names_of(const gar_short_names *names, bool host, const char *hash)
{
    for (size_t i = 0; i < names->count; i++)
        if (names->at[i].host == host && strcmp(names->at[i].hash, hash) == 0)
            return names->at[i].name;
    return NULL;
}

const char *gar_short_names_source(const gar_short_names *names, bool host, const char *hash)
{
    for (size_t i = 0; i < names->count; i++)
        if (names->at[i].host == host && strcmp(names->at[i].hash, hash) == 0)
            return names->at[i].source;
    return NULL;
}

void gar_short_names_copy(const gar_short_names *names, bool host, const char *hash,
                          const char *name, char *out, size_t size)
{
    const char *unique = gar_short_names_of(names, host, hash);
    if (unique != NULL)
        gar_format(out, size, "%s", unique);
    else
        gar_results_short_name(name, out, size);
}

void gar_short_names_free(gar_short_names *names)
{
    free(names->at);
    names->at = NULL;
    names->count = 0;
}
