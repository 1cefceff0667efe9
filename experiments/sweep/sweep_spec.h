/* experiments/sweep/sweep_spec.h — a sweep: the axes whose product is the runs.
 *
 * A sweep spec is a small text file (format: data/sweeps/README.md):
 *
 *   gar-sweep v1
 *   trace ../traces/steady.csv gen:jitter:waits=2000,seed=1
 *   plan block poll flag:park_us=100,backstop_us=1000
 *   bands block;rows>=32:flag:park_us=100,backstop_us=1000
 *   estimator adl half-min
 *   host ../hosts/dev-vm.host
 *   mode open
 *   seed 1 2 3
 *
 * Any value may hold `{a,b}` lists and `{lo..hi..step}` ranges
 * (sweep_ranges.h), which stand for every combination, and a host may be a
 * what-if copy of a profile, `FILE@KEY*F,KEY=V` (host_whatif.h).  A spec is
 * read twice: first counting each axis's values (so a sweep over
 * GAR_SWEEP_RUNS_MAX is refused before any range is expanded), then adding
 * them.  Adding n values takes time linear in n: arrays grow by doubling
 * and repeats are found through a hash of each value (index_set.h).
 *
 * Loading it parses every plan and estimator and loads every trace and host
 * profile before anything runs, so a bad spec is refused whole, naming the
 * spec's file and line and the fault.  Relative paths are taken from the
 * spec file's folder, so a spec means the same from wherever it is run.
 *
 * The runs are the product of the axes — with one exception: a plan without
 * predict consults no estimator, so it runs once, not once per estimator (see
 * gar_sweep_arm).  They come in one canonical order (trace slowest, then
 * plan, estimator, host, mode, seed fastest); a run's key is the tuple
 * (trace content hash, plan label, estimator label, host content hash, mode,
 * seed), the UNIQUE key of the database's `runs` table.
 *
 * Ownership: a gar_sweep_spec owns everything it points at; free it with
 * gar_sweep_spec_free.  Loaded specs are read-only and may be shared by
 * threads.  Memory comes through the allocation hook (sim/trace/alloc.h): when an
 * allocation fails, loading refuses with GAR_E_CAPACITY and the spec is
 * left empty. */
#ifndef GAR_SWEEP_SPEC_H
#define GAR_SWEEP_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <gar/bands.h>
#include <gar/error.h>
#include <gar/estimator_family.h>

#include "import/content_hash.h"
#include "sim/host_profile.h"
#include "sim/replay.h"
#include "sim/trace/trace.h"
#include "sweep/sweep_ranges.h"
#include "sweep/trace_cache.h"

#define GAR_SWEEP_MAGIC "gar-sweep v1"
#define GAR_SWEEP_FILE_MAX (1u << 20)          /* largest spec file read, bytes */
#define GAR_SWEEP_RUNS_MAX UINT64_C(100000000) /* largest product of the axes */
#define GAR_SWEEP_SEED_MAX UINT64_C(9223372036854775807) /* seeds are SQLite integers */

/* A brace group as the spec wrote it, for `gar sweep --dry-run`. */
typedef struct gar_sweep_axis_param {
    char name[GAR_SWEEP_PARAM_NAME_BYTES];
    const char *keyword; /* the line's keyword ("plan", "host", ...) */
    unsigned line;
    uint64_t values;
} gar_sweep_axis_param;

/* A trace and where it came from. */
typedef struct gar_sweep_trace {
    char *name;   /* as the spec wrote it: a path, or a "gen:" call */
    char *source; /* how to load it again: the file's absolute path, or the gen call */
    char hash[GAR_HASH_HEX_BYTES]; /* content hash (gar_sweep_trace_hash), hex */
    gar_trace trace;
    gar_replay_index index; /* the trace's rows numbered, for every run of it */
    gar_trace_cache cache;  /* a long file's: trace and index point into its mapping */
    unsigned line; /* spec line; 0 when not from a spec */
    gar_sweep_params params; /* its swept parameters (a gen: call's ranges) */
} gar_sweep_trace;

/* A plan or bands.  A plan is kept as bands of one band. */
typedef struct gar_sweep_plan {
    char label[GAR_BANDS_LABEL_BYTES];
    gar_bands bands;
    unsigned line;
    gar_sweep_params params;
} gar_sweep_plan;

typedef struct gar_sweep_estimator {
    char label[GAR_ESTIMATOR_LABEL_BYTES];
    gar_estimator_spec spec;
    unsigned line;
    gar_sweep_params params;
} gar_sweep_estimator;

/* A host profile, its text kept so a database can carry it.  A what-if
 * host, `FILE@TERM,...` (experiments/host_whatif.h), is the file's profile
 * changed by the terms: its name is the whole value, its text the changed
 * profile written out (so a re-run from the database replays the same), and
 * its hash that of the changed profile. */
typedef struct gar_sweep_host {
    char *name;   /* as the spec wrote it, what-if terms included */
    char *source; /* the file's absolute path, then "@TERMS" for a what-if */
    char *text;   /* the profile's text, NUL-terminated */
    char hash[GAR_HASH_HEX_BYTES]; /* content hash of the parsed profile, hex */
    gar_host_profile profile;
    unsigned line;
    gar_sweep_params params;
} gar_sweep_host;

/* An arm: a plan and the estimator that feeds its predict.  A plan without
 * predict (in none of its bands) consults no estimator, so it is one arm,
 * whose estimator is GAR_SWEEP_NO_ESTIMATOR (labelled "-"): running it under
 * every estimator would only repeat the same run. */
#define GAR_SWEEP_NO_ESTIMATOR SIZE_MAX
#define GAR_SWEEP_NO_ESTIMATOR_LABEL "-"

typedef struct gar_sweep_arm {
    size_t plan;
    size_t estimator; /* an index, or GAR_SWEEP_NO_ESTIMATOR */
} gar_sweep_arm;

/* One run: an index into each axis (the estimator as the arm has it). */
typedef struct gar_sweep_run {
    size_t trace, plan, estimator, host, mode, seed;
} gar_sweep_run;

typedef struct gar_sweep_spec {
    char *path; /* the spec file as given */
    gar_sweep_trace *traces;
    size_t trace_count;
    gar_sweep_plan *plans;
    size_t plan_count;
    gar_sweep_estimator *estimators;
    size_t estimator_count;
    gar_sweep_host *hosts;
    size_t host_count;
    gar_replay_mode modes[2];
    size_t mode_count;
    uint64_t *seeds;
    size_t seed_count;
    gar_sweep_arm *arms; /* per plan in order: one arm per estimator, or one */
    size_t arm_count;
    uint64_t runs; /* traces x arms x hosts x modes x seeds, 1 .. GAR_SWEEP_RUNS_MAX */
    gar_sweep_axis_param *swept; /* every brace group, in spec order */
    size_t swept_count;
} gar_sweep_spec;

/* Loads the spec file at `path` ("-": standard input, its relative paths
 * taken from the working folder): parses it, every plan and estimator in it,
 * and loads every trace (plain or .csv.gz) and host profile.  Returns 0 with `out` filled (free
 * it), or a refusal naming the spec's file and line ("FILE:LINE") and the
 * fault: the code of what failed to parse or load (InvalidPlan 1, Io 12,
 * InvalidTrace 13, InvalidEstimator 14, InvalidHostProfile 15, with the spec's
 * place added to the message), InvalidArgument 9 for a fault of the spec's
 * own grammar (argument 1 "FILE:LINE", 2 the keyword, 3 the fault), or
 * Capacity 10 for a product over GAR_SWEEP_RUNS_MAX.  On failure `out` is
 * left empty. */
int gar_sweep_spec_load(const char *path, gar_sweep_spec *out, gar_error *err);

/* As gar_sweep_spec_load over `len` bytes of text named `name`, relative
 * paths taken from `base_dir`. */
int gar_sweep_spec_parse(const char *text, size_t len, const char *name, const char *base_dir,
                         gar_sweep_spec *out, gar_error *err);

/* A spec's size, as `gar sweep --dry-run` gives it: counted, not expanded. */
typedef struct gar_sweep_size {
    uint64_t runs; /* traces x arms x hosts x modes x seeds, 1 .. GAR_SWEEP_RUNS_MAX */
    uint64_t traces, plans, estimators, arms, hosts, modes, seeds; /* each axis's values */
    gar_sweep_axis_param *swept; /* every brace group, in spec order (owned) */
    size_t swept_count;
} gar_sweep_size;

/* The size of the spec file at `path` without expanding a range: the
 * counting pass of gar_sweep_spec_load (the spec's grammar, every range,
 * the cap), and every value that holds no brace group loaded and checked as
 * the load checks it (plans parsed, traces read or generated, profiles
 * loaded, repeats among them refused).  The values ranges stand for are
 * counted, not made: a fault in one, or a repeat of one, is refused by the
 * load, which these counts then match.  A plan sleeps to a prediction when
 * its text holds "+predict", which the count reads without expanding.  Work
 * and memory grow with the spec's bytes, not with the runs.  Returns 0 with
 * `out` filled (free it with gar_sweep_size_free), or the load's refusals;
 * on failure `out` is left empty. */
int gar_sweep_size_load(const char *path, gar_sweep_size *out, gar_error *err);

/* As gar_sweep_size_load over `len` bytes of text named `name`, relative
 * paths taken from `base_dir`. */
int gar_sweep_size_parse(const char *text, size_t len, const char *name, const char *base_dir,
                         gar_sweep_size *out, gar_error *err);

/* Releases the size's swept list and leaves it empty.  Accepts NULL. */
void gar_sweep_size_free(gar_sweep_size *size);

/* The parameters of a run: its trace's, plan's, estimator's (when its plan
 * consults one) and host's, in that order, into `out` (room for 4 *
 * GAR_SWEEP_PARAMS_MAX).  Returns how many. */
size_t gar_sweep_run_params(const gar_sweep_spec *spec, const gar_sweep_run *run,
                            gar_sweep_param *out);

/* Releases everything the spec owns and leaves it empty.  Accepts NULL. */
void gar_sweep_spec_free(gar_sweep_spec *spec);

/* The run at `index` (0 .. runs-1) of the canonical order. */
gar_sweep_run gar_sweep_run_at(const gar_sweep_spec *spec, uint64_t index);

/* The run's estimator label ("-" when its plan consults none), and the
 * estimator spec it replays with (the default when none is consulted: it is
 * never asked). */
const char *gar_sweep_run_estimator_label(const gar_sweep_spec *spec, const gar_sweep_run *run);
gar_estimator_spec gar_sweep_run_estimator(const gar_sweep_spec *spec, const gar_sweep_run *run);

/* Whether any band of `bands` sleeps to a prediction. */
bool gar_sweep_bands_predict(const gar_bands *bands);

/* A hash of the run's key alone (not of its place in the spec), so the same
 * run lands in the same shard whatever the spec around it.  Its value mod N
 * picks the shard. */
uint64_t gar_sweep_run_key_hash(const gar_sweep_spec *spec, const gar_sweep_run *run);

/* Loads one trace from its spec text (a path taken from `base_dir` unless
 * absolute, or "gen:KIND:waits=N,seed=S[,KEY=VALUE...]") into `out` (free it
 * with gar_sweep_trace_free).  "-" is refused (InvalidArgument): results
 * read their trace again later, which standard input cannot give.  A file of
 * GAR_SWEEP_CACHE_MIN_BYTES or more is mapped from its binary cache
 * (trace_cache.h: built beside it the first time), so every worker reads
 * one read-only copy; a shorter one is read into memory.  Returns 0 or the
 * loader's refusal. */
#define GAR_SWEEP_CACHE_MIN_BYTES (4u << 20) /* about 100 000 rows of text */
int gar_sweep_trace_load(const char *text, const char *base_dir, gar_sweep_trace *out,
                         gar_error *err);
void gar_sweep_trace_free(gar_sweep_trace *trace);

/* The content hash of a trace: FNV-1a 64 over its columns and every row's
 * fields, so any changed row makes a new trace and a comment does not. */
uint64_t gar_sweep_trace_hash(const gar_trace *trace);

/* The content hash of a host profile: FNV-1a 64 over its parsed fields. */
uint64_t gar_sweep_host_hash(const gar_host_profile *profile);

/* Writes a hash as 16 lower-case hex digits. */
void gar_sweep_hash_hex(uint64_t hash, char out[GAR_HASH_HEX_BYTES]);

/* The bands as this host profile runs them: resolved (gar/plan.h) against the
 * capabilities the profile states, so a flag plan on a profile without
 * word_wait runs as poll, keeping its predict — as `gar replay` runs it by
 * default.  `label` (GAR_BANDS_LABEL_BYTES) gets the running label, which
 * names any fallback.  Never fails on parsed bands. */
void gar_sweep_resolve(const gar_bands *requested, const gar_host_profile *host,
                       gar_bands *running, char *label, size_t size);

/* Runs one replay of `trace` under the bands (as given: resolve them first),
 * estimator, host, mode and seed, with an optional per-wait observer (NULL
 * for none), in `scratch` (NULL: memory of its own; a worker passes the one
 * it keeps), and the per-stream metrics into `streams` when it is not NULL
 * (filled on success only; free them).  Returns what gar_replay_run
 * returns, or -GAR_E_IO naming the trace's cache when another process
 * truncated it under the replay (gar_trace_cache_intact). */
int gar_sweep_replay(const gar_sweep_trace *trace, const gar_bands *bands,
                     const gar_estimator_spec *estimator, const gar_host_profile *host,
                     gar_replay_mode mode, uint64_t seed, gar_replay_observer on_wait,
                     void *context, gar_replay_scratch *scratch, gar_replay_metrics *out,
                     gar_replay_streams *streams, gar_error *err);

#endif
