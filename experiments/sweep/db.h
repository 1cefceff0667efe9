/* experiments/sweep/db.h — a sweep's database: one SQLite file per sweep (or
 * per shard), schema documented in data/sweeps/README.md.  (gar_db, not
 * "store": a store is the device's write of a sequence number into the word.)
 *
 * Tables (schema version GAR_DB_SCHEMA_VERSION):
 *   meta    key/value: schema_version, gar_version, source_commit, created_unix
 *           (the gar that created the file)
 *   traces  one row per trace content hash: its name and how to load it again
 *   hosts   one row per host profile content hash: its name, path and text
 *   runs    one row per run, UNIQUE (trace, plan, estimator, host, mode, seed);
 *           status 'ok' with the metrics (a column each, as
 *           sim/replay_metric_table.h lists them), or 'failed' with the error; the
 *           gar_version and source_commit of the gar that ran it; the metrics'
 *           intervals (version 4 on) and what an auto plan chose (version 5 on)
 *   run_streams  one row per stream of each 'ok' run, under the run's key:
 *           the stream id as the trace names it, its waits, overshoot
 *           quantiles and busy time (none for a failed run)
 *   run_params  one row per run and swept parameter (a brace group of the
 *           spec, sweep_spec.h): the run's key, the name, the value as text
 *           and as a number (NULL when it is none)
 *   run_notes  one row per note of each 'ok' run (version 4 on), under the
 *           run's key: its stable name, count, worst (ns, or NULL) and the
 *           message gar replay prints (sim/replay_notes.h)
 *   verifications  one row per arm gar verify --sweep ran for real
 *           (experiments/verify/verifications.h); a merge brings them too
 *
 * The file is in WAL mode with synchronous=NORMAL: every run (its runs row,
 * its run_streams and run_params rows) is its own transaction, so a process
 * killed at any moment (kill -9 included)
 * leaves each run either whole or absent, and a commit is never lost to a
 * process crash (only a power cut can drop the last few, which a resumed
 * sweep then runs again).  Inserting a key already present does nothing, so
 * two writers never duplicate a row.
 *
 * Storage faults are GAR_E_IO naming the file, what was being done and
 * SQLite's message.  A gar_db is used by one thread. */
#ifndef GAR_DB_H
#define GAR_DB_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include <gar/error.h>

#include "sim/replay.h"
#include "sim/replay_notes.h"
#include "sweep/sweep_spec.h"

/* Version 2 added the gar version and source commit of every run; version 3
 * the run_streams table (each run's streams) and the run_params table (each
 * run's swept parameters); version 4 each run's confidence intervals (the
 * runs columns ci_level and M_Q_lo_ns, M_Q_hi_ns) and the run_notes table
 * (what went wrong, in words); version 5 what an auto plan chose (the runs
 * columns auto_block, auto_poll, auto_flag, auto_sleeps, auto_late_wakes,
 * auto_over_budget_waits: NULL for a fixed plan).
 *
 * Version 3 and 4 files are read: gar_db_open (the writers) converts one to
 * version 5 in one transaction (ALTER TABLE ADD COLUMN, CREATE TABLE
 * run_notes, the version bumped), its old runs keeping NULL intervals, no
 * notes and NULL auto columns — shown as absent.  gar_db_open_read (plots,
 * reports, auto-goals) and a merge's inputs read them as they are. */
#define GAR_DB_SCHEMA_VERSION 5
#define GAR_DB_SCHEMA_OLDEST 3 /* the oldest version read (and converted) */

typedef struct gar_db gar_db;

/* Checks, reading only (no lock, no side file, nothing changed), that
 * `path` is a gar sweep database of schema version GAR_DB_SCHEMA_OLDEST
 * to GAR_DB_SCHEMA_VERSION or, when `may_be_new`, a missing or empty file (an empty SQLite database
 * included).  Returns 1 for a gar database, 0 for a new one, or -GAR_E_IO
 * (path, `doing`, why): another program's database (tables but no gar
 * meta), not SQLite at all, another schema version (naming both, and what
 * to do with an older one), or unreadable. */
int gar_db_check(const char *path, bool may_be_new, const char *doing, gar_error *err);

/* Opens (creating when `create`) the database at `path`, after
 * gar_db_check: a refused file is left exactly as it was.  A new (or
 * empty) file gets the schema and its meta rows; a version 3 file is
 * converted (above).  Returns 0 with `*out`
 * (close it), or -GAR_E_IO. */
int gar_db_open(const char *path, bool create, gar_db **out, gar_error *err);

/* Opens the database at `path` for reading only (plots, reports), after
 * gar_db_check: nothing in or beside the file changes, so a read-only
 * file or folder reads as well as any.  A version 3 file is read as it is,
 * not converted: the intervals and notes it lacks are absent (results.h).
 * Without a writer's non-empty log beside it the file is read as
 * immutable, so a sweep that starts writing into it while it is open may
 * not be seen, and a checkpoint meanwhile could mislead it: read a
 * database a sweep is not about to start on.  Nothing may be written
 * through `*out`.  Returns 0 with `*out` (close it), or -GAR_E_IO. */
int gar_db_open_read(const char *path, gar_db **out, gar_error *err);

/* Closes the database.  Accepts NULL. */
void gar_db_close(gar_db *db);

/* The open SQLite handle, for queries (plots, reports); owned by `db`. */
sqlite3 *gar_db_sqlite(gar_db *db);

/* The file's path as given to gar_db_open. */
const char *gar_db_path(const gar_db *db);

/* The SELECT list of what schema version 4 added to verifications (runs,
 * real_min_p50_ns, real_max_p50_ns, ..., position_p99, real_ks_d_max, in
 * that order) for the open database: the columns themselves, or, in a
 * version 3 file read as it is, the values its conversion would give them
 * (one run, its own envelope, nothing judged).  Writes at most `size` bytes,
 * NUL included; returns 0, or -1 when they do not fit or the table cannot be
 * read. */
int gar_db_verification_run_columns(gar_db *db, char *buf, size_t size);

/* A meta value by key into `buf` ("" when absent).  Returns 0 or -GAR_E_IO. */
int gar_db_meta(gar_db *db, const char *key, char *buf, size_t size, gar_error *err);

/* Records the spec's traces and hosts (those not yet recorded), in one
 * transaction.  Returns 0 or -GAR_E_IO. */
int gar_db_put_sources(gar_db *db, const gar_sweep_spec *spec, gar_error *err);

/* A run's key and what became of it. */
typedef struct gar_db_run {
    const char *trace;      /* content hash, hex */
    const char *trace_name;
    const char *plan;       /* label, as the spec asked for it */
    const char *plan_ran;   /* label as the host ran it (names a fallback) */
    const char *estimator;  /* label */
    const char *host;       /* content hash, hex */
    const char *host_name;
    const char *mode;       /* "open" / "closed" */
    uint64_t seed;          /* at most GAR_SWEEP_SEED_MAX */
    const gar_error *failure;          /* NULL for a run that succeeded, else its error */
    const gar_replay_metrics *metrics; /* the metrics when it succeeded */
    const gar_replay_streams *streams; /* and its streams' (NULL: none stored) */
    const gar_replay_notes *notes;     /* and its notes (NULL: none stored) */
    uint64_t run_ns;        /* wall time the replay took */
    const gar_sweep_param *params; /* the run's swept parameters (names unique) */
    size_t param_count;
} gar_db_run;

/* Whether the run's key is already stored.  Returns 1, 0, or -GAR_E_IO. */
int gar_db_has(gar_db *db, const gar_db_run *key, gar_error *err);

/* Stores one run, its streams', notes' and parameters' rows with it, as its
 * own transaction.  Returns 1 when inserted, 0 when its key was already there
 * (nothing changed), or -GAR_E_IO (nothing stored). */
int gar_db_insert(gar_db *db, const gar_db_run *run, gar_error *err);

/* Adds the parameters of runs already stored (a run another spec stored,
 * where this one sweeps its plan): those a run lacks, in one transaction;
 * a name it has keeps its value.  Returns 0 or -GAR_E_IO (none added). */
int gar_db_add_params(gar_db *db, const gar_db_run *const *runs, size_t count, gar_error *err);

/* How many stored runs another build of gar made (another gar_version or
 * source_commit than this one's).  Returns 0 with `*runs`, or -GAR_E_IO. */
int gar_db_other_builds(gar_db *db, uint64_t *runs, gar_error *err);

/* Whether `path` names the database's own file (same device and inode: also
 * through another path or a hard link).  Returns 1, 0 (another file, or
 * none), or -GAR_E_IO. */
int gar_db_same_file(const gar_db *db, const char *path, gar_error *err);

/* Copies the gar database at `path` (checked as gar_db_check does) into
 * the empty or missing file `into`: a consistent snapshot, its log
 * included.  Returns 0 or -GAR_E_IO. */
int gar_db_snapshot(const char *path, const char *into, gar_error *err);

/* Counts of one merged input. */
typedef struct gar_db_merge_stats {
    uint64_t runs;      /* rows in the input */
    uint64_t added;     /* rows new to the output */
    uint64_t present;   /* rows whose key the output already had, equal */
    uint64_t verifications_added; /* verifications rows new to the output */
} gar_db_merge_stats;

/* Copies every trace, host and run (each run with the build that made it,
 * and its run_streams, run_params and run_notes rows) and every verification
 * of the database at `path` into `out`, in one transaction.  Refused, with
 * nothing copied (-GAR_E_IO): the output's own file (also under another
 * path or a hard link), an input that gar_db_check refuses (missing, not
 * a gar database, another schema version), or one holding a run whose key
 * the output has with different results in any table keyed by a run (runs,
 * run_streams, a parameter both name in run_params), or a verification whose
 * key the output has with different results (its verifications come by the
 * same rule, a version 3 input's as its conversion would make them).  All-or-nothing over several
 * inputs is the caller's (gar merge builds into a temporary file). */
int gar_db_merge(gar_db *out, const char *path, gar_db_merge_stats *stats, gar_error *err);

#endif
