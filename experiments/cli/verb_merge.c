/* experiments/cli/verb_merge.c — `gar merge OUT.db IN.db...`: join the databases
 * of a sweep's shards into one, all of them or nothing. */
#define _POSIX_C_SOURCE 200809L /* stat, unlink */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/verbs.h"
#include "sim/trace/atomic_file.h"
#include "sim/trace/leftover.h"
#include "sweep/db.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gar merge OUT.db IN.db...\n"
            "\n"
            "Copies every run (with its streams, parameters, intervals and notes), trace,\n"
            "host and verification (gar verify --sweep) of the sweep databases IN.db into\n"
            "OUT.db (created if missing).  A run already in OUT.db is kept once; one there\n"
            "with other results (in its runs row, its streams, its notes, or a parameter\n"
            "both name) refuses the merge, and so does a verification of the same arm,\n"
            "waits, device, machine profile and seed with other results.  A schema\n"
            "version 3 or 4 input is read as it is (its runs come without what later\n"
            "versions added: intervals and notes, auto's choices), and an older OUT.db is\n"
            "converted to version 5.  A run made before a version is compared on what it\n"
            "has, and one in OUT.db gains what an input holds for it, so the order of the\n"
            "files does not matter.  Every input is\n"
            "checked before anything is written: a missing file, another program's\n"
            "database, another schema version (naming the file and both versions) or OUT.db\n"
            "itself among the inputs is refused.  The merge is built in a temporary file\n"
            "beside OUT.db and renamed onto it only when every input is in: all of it or\n"
            "nothing, OUT.db untouched by a refusal.  Do not merge into a database another\n"
            "process is writing.  The temporary file (OUT.db.merge-PID-HOST-XXXXXX) is\n"
            "locked while its merge runs; one a merge killed before its end left (no lock\n"
            "held) is removed by the next merge into OUT.db on that machine.  An input is\n"
            "only read: one in a read-only file or folder merges as well.\n"
            "\n"
            "options:\n"
            "  --help   this text\n"
            "\n"
            "example:\n"
            "  gar merge results/sweep.db results/shard-*.db\n");
}

/* Removes a temporary database and the files SQLite keeps beside it. */
static void remove_database(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    size_t n = strlen(path);
    char *side = malloc(n + 16);
    for (size_t i = 0; side != NULL && i < sizeof suffixes / sizeof suffixes[0]; i++) {
        memcpy(side, path, n);
        strcpy(side + n, suffixes[i]);
        unlink(side);
    }
    free(side);
    if (side == NULL)
        unlink(path);
}

/* Removes what merges into `out_path` killed before their end left beside
 * it: "OUT.merge-PID-HOST-XXXXXX" and SQLite's files beside that, where
 * no merge holds its lock (a merge still running keeps its own; the lock,
 * not the PID, says so: sim/trace/leftover.h). */
static void clean_dead_merges(const char *out_path)
{
    static const char *const sqlite_files[] = { "-wal", "-shm", "-journal", NULL };
    gar_leftover_clean_owned_beside(out_path, ".merge-", sqlite_files);
}

/* Whether a non-empty write-ahead log lies beside `path`: another process
 * has the database open (or died in it). */
static bool log_in_use(const char *path)
{
    size_t n = strlen(path);
    char *wal = malloc(n + 5);
    if (wal == NULL)
        return false;
    memcpy(wal, path, n);
    strcpy(wal + n, "-wal");
    struct stat st;
    bool used = stat(wal, &st) == 0 && st.st_size > 0;
    free(wal);
    return used;
}

static bool same_inode(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Everything that can be refused before writing: each input a gar
 * database of this schema version and not the output itself; the output
 * missing, empty or a gar database.  Returns 1 when the output exists (a
 * gar database), 0 when it is new, or a negated code. */
static int check_all(const char *out_path, char **inputs, int count, gar_error *err)
{
    for (int i = 0; i < count; i++) {
        if (same_inode(inputs[i], out_path))
            return gar_error_set(err, GAR_E_IO, 3, inputs[i], "merge",
                                 "is the output database itself (a database cannot be merged "
                                 "into itself)");
        int rc = gar_db_check(inputs[i], false, "merge", err);
        if (rc < 0)
            return rc;
    }
    return gar_db_check(out_path, true, "merge into", err);
}

typedef struct merged {
    gar_db_merge_stats *stats; /* one per input */
    unsigned long long added, present;
    unsigned long long verifications; /* verifications rows added */
} merged;

/* Builds the merge in `temp` (an empty file): the output's rows first when
 * it exists, then each input. */
static int build(const char *temp, const char *out_path, bool out_exists, char **inputs,
                 int count, merged *m, gar_error *err)
{
    if (out_exists) {
        int rc = gar_db_snapshot(out_path, temp, err);
        if (rc < 0)
            return rc;
    }
    gar_db *db = NULL;
    int rc = gar_db_open(temp, true, &db, err);
    for (int i = 0; rc == 0 && i < count; i++) {
        rc = gar_db_merge(db, inputs[i], &m->stats[i], err);
        m->added += m->stats[i].added;
        m->present += m->stats[i].present;
        m->verifications += m->stats[i].verifications_added;
    }
    gar_db_close(db); /* checkpoints: the log goes into the file */
    return rc;
}

int gar_verb_merge_main(int argc, char **argv)
{
    const gar_cli_option options[] = {
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("merge", argc, argv, options, usage);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    if (argc - optind < 2)
        return gar_cli_usage_error("merge", "give the output database and at least one input");
    const char *out_path = argv[optind];
    char **inputs = argv + optind + 1;
    int count = argc - optind - 1;
    gar_error err;
    int exists = check_all(out_path, inputs, count, &err);
    if (exists < 0)
        return gar_cli_refuse(&err);

    merged m = { calloc((size_t)count, sizeof *m.stats), 0, 0, 0 };
    if (m.stats == NULL) {
        gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the merge", "exhausted");
        return gar_cli_refuse(&err);
    }
    /* SQLite builds the merge in an empty file beside the output, which
     * takes the output's name only when it is whole.  It is locked while
     * this merge lasts, so a later merge removes it only if this one is
     * killed. */
    clean_dead_merges(out_path);
    char owner[GAR_LEFTOVER_OWNER_BYTES], suffix[GAR_LEFTOVER_OWNER_BYTES + 16];
    gar_leftover_owner(owner);
    snprintf(suffix, sizeof suffix, ".merge-%s-XXXXXX", owner);
    gar_atomic_file file;
    int rc = gar_atomic_file_begin(&file, out_path, suffix, &err);
    if (rc == 0) {
        rc = gar_atomic_file_close(&file, &err);
        if (rc == 0)
            rc = build(file.temp, out_path, exists == 1, inputs, count, &m, &err);
        if (rc == 0 && exists == 1 && log_in_use(out_path))
            rc = gar_error_set(&err, GAR_E_IO, 3, out_path, "merge into",
                               "another process has it open (its write-ahead log is in use); "
                               "merge when it is done");
        if (rc == 0)
            rc = gar_atomic_file_commit(&file, "rename the merge onto", &err);
        if (rc < 0)
            remove_database(file.temp); /* and its journal or log, if SQLite left one */
        gar_atomic_file_end(&file, rc);
    }
    if (rc < 0) {
        free(m.stats);
        return gar_cli_refuse(&err);
    }
    printf("out: %s\n", out_path);
    for (int i = 0; i < count; i++)
        printf("in: %s (%llu runs, %llu added, %llu already present)\n", inputs[i],
               (unsigned long long)m.stats[i].runs, (unsigned long long)m.stats[i].added,
               (unsigned long long)m.stats[i].present);
    printf("added: %llu\n", m.added);
    printf("present: %llu\n", m.present);
    printf("verifications_added: %llu\n", m.verifications);
    free(m.stats);
    return GAR_EXIT_OK;
}
