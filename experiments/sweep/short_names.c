/* experiments/sweep/short_names.c — unique short names of a database's
 * traces and hosts. */
#include "sweep/short_names.h"

#include <stdlib.h>
#include <string.h>

#include "sweep/format.h"

void gar_results_short_name(const char *name, char *out, size_t size)
{
    if (size == 0)
        return;
    const char *start = name;
    size_t len = strlen(name);
    const char *terms = ""; /* a what-if host's "@TERMS", kept after the stem */
    if (strncmp(name, "gen:", 4) != 0) {
        const char *slash = strrchr(name, '/');
        if (slash != NULL)
            start = slash + 1;
        const char *at = strchr(start, '@');
        if (at != NULL)
            terms = at;
        len = at != NULL ? (size_t)(at - start) : strlen(start);
        const char *dot = NULL;
        for (size_t i = 0; i < len; i++)
            if (start[i] == '.')
                dot = start + i;
        if (dot != NULL && dot != start)
            len = (size_t)(dot - start);
    }
    size_t n = 0;
    for (int part = 0; part < 2; part++) {
        const char *from = part == 0 ? start : terms;
        size_t count = part == 0 ? len : strlen(terms);
        for (size_t i = 0; i < count && n + 1 < size; i++) {
            char c = from[i];
            bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';
            out[n++] = keep ? c : '_';
        }
    }
    out[n] = '\0';
}

/* A text column of the row `st`, cut to fit ("" for NULL). */
static void copy_text(sqlite3_stmt *st, int column, char *out, size_t size)
{
    const unsigned char *text = sqlite3_column_text(st, column);
    gar_format(out, size, "%s", text != NULL ? (const char *)text : "");
}

static int read_fault(gar_db *db, gar_error *err)
{
    return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), "read the trace and host names of",
                         sqlite3_errmsg(gar_db_sqlite(db)));
}

int gar_short_names_read(gar_db *db, gar_short_names *out, gar_error *err)
{
    static const char sql[] = "SELECT 0, trace, name, source FROM traces UNION ALL "
                              "SELECT 1, host, name, source FROM hosts";
    out->at = NULL;
    out->count = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return read_fault(db, err);
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
        char name[GAR_SHORT_NAME_TEXT];
        n->host = sqlite3_column_int(st, 0) != 0;
        copy_text(st, 1, n->hash, sizeof n->hash);
        copy_text(st, 2, name, sizeof name);
        gar_results_short_name(name, n->name, sizeof n->name);
        copy_text(st, 3, n->source, sizeof n->source);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        gar_short_names_free(out);
        return read_fault(db, err);
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
