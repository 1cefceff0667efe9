/* experiments/cli/verb_sweep.c — `gar sweep SPEC --db FILE`: every run of a sweep
 * spec into a SQLite database, resumable, in parallel, one shard or all. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/hosts/cpu_pin.h"
#include "cli/bundled.h"
#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/verbs.h"
#include "cli/write_atomic.h"
#include "sweep/db.h"
#include "sweep/results.h"
#include "sweep/sweep_run.h"
#include "sweep/sweep_spec.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gar sweep SPEC --db FILE [--jobs N] [--shard I/N] [--quiet]\n"
            "       gar sweep SPEC --dry-run\n"
            "\n"
            "Runs every combination of the sweep spec SPEC (traces x plans x estimators x\n"
            "hosts x modes x seeds; format in data/sweeps/README.md) through the replay\n"
            "and stores one row per run in the SQLite database FILE (created if missing).\n"
            "A value may hold {a,b,c} lists and {lo..hi..step} ranges, which expand to\n"
            "every combination (each run stores its swept values in run_params), and a\n"
            "host may be a what-if copy of a profile, FILE@KEY*FACTOR,KEY=VALUE (e.g.\n"
            "dev-vm.host@block_wake_ns*{0.5,1,2}).  SPEC '-' reads the spec from standard\n"
            "input (its paths then from the working folder); a spec read from a file may\n"
            "name its host '-' (or '-@TERMS') to read that profile from standard input;\n"
            "traces may be .csv.gz files.\n"
            "The whole spec is checked before anything runs, and FILE before anything is\n"
            "written to it: another program's database or one of another schema version\n"
            "is refused unchanged (a version 3 file is converted to version 4 in place).\n"
            "Runs already in FILE are skipped, so a killed sweep\n"
            "started again finishes the rest, and a finished one does nothing.  Each run\n"
            "records the gar version and source commit that made it; 'other_builds:'\n"
            "counts the runs in FILE another build made.  Each run stores its quantiles'\n"
            "95 %% confidence intervals and what went wrong (run_notes); 'notes:' counts\n"
            "the runs in FILE with each note, 'few_waits:' those whose p99 too few waits\n"
            "bound from above.\n"
            "\n"
            "options:\n"
            "  --db FILE     the database (required)\n"
            "  --jobs N      worker threads, 1..1024 (default: the CPUs this process may\n"
            "                run on, its affinity mask, which taskset, a cpuset or a\n"
            "                Slurm task's binding narrow; at most 1024)\n"
            "  --shard I/N   run only shard I of N (0 <= I < N; default 0/1, all runs);\n"
            "                each shard into its own database, joined by 'gar merge'\n"
            "  --quiet       no progress on stderr\n"
            "  --dry-run     size the spec: print 'runs: N', each axis's size and each\n"
            "                swept parameter ({a,b} lists, {lo..hi..step} ranges), and\n"
            "                stop: nothing runs and no file is written (--db not needed).\n"
            "                Ranges are counted, not expanded, so it is quick at any\n"
            "                size; values without a range are checked, those a range\n"
            "                stands for only when the sweep runs\n"
            "  --help        this text\n"
            "\n"
            "Progress goes to stderr: a bar on a terminal, a line per 10%% otherwise.\n"
            "\n"
            "example:\n"
            "  gar sweep data/sweeps/default.sweep --db results/sweep.db --jobs 2\n");
}

/* The default --jobs: the CPUs this process may run on (gar_cpu_allowed),
 * at most GAR_SWEEP_JOBS_MAX. */
static unsigned jobs_default(void)
{
    unsigned cpus = gar_cpu_allowed();
    return cpus > GAR_SWEEP_JOBS_MAX ? GAR_SWEEP_JOBS_MAX : cpus;
}

/* "I/N" with 0 <= I < N into the gar_sweep_options' shard and shards. */
static int parse_shard(const char *text, void *to)
{
    gar_sweep_options *o = to;
    const char *slash = strchr(text, '/');
    if (slash == NULL || slash == text || (size_t)(slash - text) >= 32)
        return -1;
    char first[32];
    memcpy(first, text, (size_t)(slash - text));
    first[slash - text] = '\0';
    unsigned long long i, n;
    if (gar_cli_parse_u64(first, &i) < 0 || gar_cli_parse_u64(slash + 1, &n) < 0 || n == 0 ||
        i >= n)
        return -1;
    o->shard = i;
    o->shards = n;
    return 0;
}

/* --dry-run: the sweep's size, axis by axis, and its swept parameters. */
static void print_dry_run(const char *path, const gar_sweep_size *size)
{
    printf("spec: %s\n", path);
    printf("runs: %llu\n", (unsigned long long)size->runs);
    printf("axis trace: %llu\n", (unsigned long long)size->traces);
    printf("axis plan: %llu\n", (unsigned long long)size->plans);
    printf("axis estimator: %llu\n", (unsigned long long)size->estimators);
    printf("axis arms: %llu (plans with their estimators)\n", (unsigned long long)size->arms);
    printf("axis host: %llu\n", (unsigned long long)size->hosts);
    printf("axis mode: %llu\n", (unsigned long long)size->modes);
    printf("axis seed: %llu\n", (unsigned long long)size->seeds);
    for (size_t i = 0; i < size->swept_count; i++)
        printf("param %s: %llu values (%s, line %u)\n", size->swept[i].name,
               (unsigned long long)size->swept[i].values, size->swept[i].keyword,
               size->swept[i].line);
    printf("status: dry run (nothing ran, nothing written)\n");
}

/* What a sweep left, beside its own counts: read back from the database
 * once it ran. */
typedef struct sweep_outcome {
    gar_sweep_stats st;
    uint64_t other_builds;  /* runs made by another build of gar */
    uint64_t failed_before; /* with nothing ran: the failed runs already there */
    gar_results_note_count notes[GAR_RESULTS_NOTES_MAX];
    size_t note_kinds;
    uint64_t noted_runs;
} sweep_outcome;

/* Reads the rest of `out` (out->st set) from `db`.  Returns 0 or -GAR_E_IO. */
static int read_outcome(gar_db *db, sweep_outcome *out, gar_error *err)
{
    out->other_builds = 0;
    int rc = gar_db_other_builds(db, &out->other_builds, err);
    out->failed_before = 0; /* a rerun that does nothing still owes its failures */
    gar_arm_list arms = { NULL, 0 };
    if (rc == 0 && out->st.ran == 0 && (rc = gar_results_arms(db, &arms, err)) == 0) {
        for (size_t i = 0; i < arms.count; i++)
            out->failed_before += arms.arm[i].failed;
        gar_arm_list_free(&arms);
    }
    out->note_kinds = 0;
    out->noted_runs = 0;
    if (rc == 0)
        rc = gar_results_note_counts(db, out->notes, &out->note_kinds, &out->noted_runs, err);
    return rc;
}

/* The summary a sweep prints on standard output, its status last. */
static void print_summary(const char *spec_path, const char *db_path, const gar_sweep_options *o,
                          const sweep_outcome *out)
{
    printf("spec: %s\n", spec_path);
    printf("db: %s\n", db_path);
    printf("runs: %llu\n", (unsigned long long)out->st.runs);
    printf("shard: %llu/%llu\n", (unsigned long long)o->shard, (unsigned long long)o->shards);
    printf("in_shard: %llu\n", (unsigned long long)out->st.in_shard);
    printf("present: %llu\n", (unsigned long long)out->st.present);
    printf("ran: %llu\n", (unsigned long long)out->st.ran);
    printf("ok: %llu\n", (unsigned long long)out->st.ok);
    printf("failed: %llu\n", (unsigned long long)out->st.failed);
    printf("copied: %llu\n", (unsigned long long)out->st.copied);
    if (out->st.raced > 0)
        printf("stored_by_another: %llu\n", (unsigned long long)out->st.raced);
    printf("jobs: %u\n", o->jobs);
    printf("wall_s: %.3f\n", out->st.wall_s);
    printf("replay_s: %.3f\n", out->st.replay_s);
    printf("store_s: %.3f\n", out->st.store_s);
    printf("storage_share: %.4f\n", out->st.wall_s > 0 ? out->st.store_s / out->st.wall_s : 0.0);
    /* What went wrong, by note: the words are in run_notes, run by run. */
    if (out->noted_runs > 0) {
        printf("notes: %llu runs of %s have notes (", (unsigned long long)out->noted_runs, db_path);
        for (size_t k = 0; k < out->note_kinds; k++)
            printf("%s%s %llu", k > 0 ? ", " : "", out->notes[k].note,
                   (unsigned long long)out->notes[k].runs);
        printf("; the run_notes table says each in words)\n");
    }
    for (size_t k = 0; k < out->note_kinds; k++)
        if (strcmp(out->notes[k].note, "few_waits") == 0)
            printf("few_waits: %llu runs have too few waits for a p99 to have an upper bound "
                   "(%zu at %g %%): their p99 is bounded from below only\n",
                   (unsigned long long)out->notes[k].runs,
                   gar_quantile_interval_min_waits(990000, GAR_CI_LEVEL_DEFAULT),
                   GAR_CI_LEVEL_DEFAULT * 100.0);
    if (out->other_builds > 0)
        printf("other_builds: %llu (runs made by another build of gar; the report names "
               "each build)\n",
               (unsigned long long)out->other_builds);
    if (out->st.ran == 0 && out->failed_before > 0)
        printf("status: nothing to do (all %llu runs of this shard are in %s, which holds %llu"
               " failed runs)\n",
               (unsigned long long)out->st.in_shard, db_path,
               (unsigned long long)out->failed_before);
    else if (out->st.ran == 0)
        printf("status: nothing to do (all %llu runs of this shard are in %s)\n",
               (unsigned long long)out->st.in_shard, db_path);
    else if (out->st.failed == 0)
        printf("status: done\n");
    else /* the last line a user reads: failures must not pass for success */
        printf("status: done, %llu of %llu runs failed (stored with status 'failed' and their"
               " error; 'gar report' lists their arms)\n",
               (unsigned long long)out->st.failed, (unsigned long long)out->st.ran);
}

int gar_verb_sweep_main(int argc, char **argv)
{
    const char *db_path = NULL;
    gar_sweep_options o = { .jobs = jobs_default(), .shard = 0, .shards = 1 };
    unsigned long long jobs = o.jobs;
    bool quiet = false, dry_run = false;
    const gar_cli_option options[] = {
        { .name = "dry-run", .takes = GAR_CLI_FLAG, .to = &dry_run },
        { .name = "db", .takes = GAR_CLI_TEXT, .to = &db_path },
        { .name = "jobs", .takes = GAR_CLI_U64, .to = &jobs, .min = 1, .max = GAR_SWEEP_JOBS_MAX,
          .refusal = "--jobs takes a whole number 1..1024" },
        { .name = "shard", .takes = GAR_CLI_PARSE, .to = &o, .parse = parse_shard,
          .refusal = "--shard takes I/N with 0 <= I < N" },
        { .name = "quiet", .takes = GAR_CLI_FLAG, .to = &quiet },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("sweep", argc, argv, options, usage);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    o.jobs = (unsigned)jobs;
    if (optind + 1 != argc)
        return gar_cli_usage_error("sweep", "give exactly one sweep spec");
    if (db_path == NULL && !dry_run)
        return gar_cli_usage_error("sweep", "--db FILE is required");
    /* A bundled "data/..." name the working directory lacks: the installed one. */
    char spec_found[4096];
    const char *spec_path = gar_cli_bundled(argv[optind], spec_found, sizeof spec_found);

    gar_error err;
    if (dry_run) { /* counted, not expanded: quick whatever the size */
        gar_sweep_size size;
        if (gar_sweep_size_load(spec_path, &size, &err) < 0)
            return gar_cli_refuse(&err);
        print_dry_run(spec_path, &size);
        gar_sweep_size_free(&size);
        return GAR_EXIT_OK;
    }
    gar_sweep_spec spec;
    if (gar_sweep_spec_load(spec_path, &spec, &err) < 0)
        return gar_cli_refuse(&err);
    /* SQLite would say only "unable to open database file" of a folder it
     * cannot write (its -wal and -shm files live there too). */
    if (gar_check_file_writable(db_path, &err) < 0) {
        gar_sweep_spec_free(&spec);
        return gar_cli_refuse(&err);
    }
    gar_db *db = NULL;
    if (gar_db_open(db_path, true, &db, &err) < 0) {
        gar_sweep_spec_free(&spec);
        return gar_cli_refuse(&err);
    }
    o.progress = quiet ? NULL : stderr;
    o.progress_terminal = isatty(STDERR_FILENO) == 1;
    sweep_outcome out;
    int rc = gar_sweep_execute(&spec, db, &o, &out.st, &err);
    if (rc == 0)
        rc = read_outcome(db, &out, &err);
    gar_db_close(db);
    gar_sweep_spec_free(&spec);
    if (rc < 0)
        return gar_cli_refuse(&err);

    print_summary(spec_path, db_path, &o, &out);
    return GAR_EXIT_OK;
}
