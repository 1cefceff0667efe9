/* experiments/cli/verb_verify_sweep.c — `gar verify --sweep SPEC --db DB`:
 * the command's side of verify_sweep.h — the spec, this host, the
 * profile and the database made ready and checked before anything runs,
 * a line per arm, the totals. */
#define _POSIX_C_SOURCE 200809L

#include "cli/verb_verify.h"

#include <stdio.h>
#include <string.h>

#include <gar/posix.h>


#include "cli/bundled.h"
#include "cli/host_caps.h"
#include "cli/verbs.h"
#include "cli/verify_output.h"
#include "cli/verify_setup.h"
#include "cli/write_atomic.h"
#include "sweep/db.h"
#include "sweep/sweep_spec.h"
#include "verify/verify_devices.h"
#include "verify/verify_sweep.h"

static const char verb[] = "verify";

/* The spec's `host -` has read standard input as the spec loaded: --host -
 * would find it empty (and the spec's hosts are not what verify runs).
 * Returns 0, or the usage refusal naming the spec's line. */
static int refuse_second_stdin(const gar_sweep_spec *spec, const gar_cli_verify_args *a)
{
    if (a->host_path == NULL || strcmp(a->host_path, "-") != 0)
        return 0;
    for (size_t i = 0; i < spec->host_count; i++) {
        if (strncmp(spec->hosts[i].source, "standard input", strlen("standard input")) != 0)
            continue;
        char what[400];
        snprintf(what, sizeof what,
                 "the spec's 'host -' (%.200s:%u) and --host - would both read standard "
                 "input: save the profile to a file and name it in one of them",
                 a->sweep_path, spec->hosts[i].line);
        return gar_cli_usage_error(verb, what);
    }
    return 0;
}

/* This host's capabilities and the executor --executor resolves to on it,
 * said before anything runs.  Returns 0 or the refusal in `err`. */
static int sweep_host(const gar_cli_verify_args *a, gar_caps *caps, gar_executor_kind *executor,
                      gar_error *err)
{
    gar_posix_host host;
    int rc = gar_posix_host_init(&host, NULL, err);
    if (rc < 0)
        return rc;
    *caps = gar_host_caps_of(&host);
    gar_error executor_warning;
    int fell_back =
        gar_cli_verify_resolve_executor(a->executor_text, caps, executor, &executor_warning);
    if (fell_back < 0) {
        *err = executor_warning;
        return fell_back;
    }
    printf("executor: %s\n", gar_executor_kind_name(*executor));
    if (fell_back == 1)
        gar_cli_print_warning(stdout, &executor_warning);
    return 0;
}

int gar_cli_verify_sweep(const gar_cli_verify_args *a)
{
    char spec_found[4096]; /* a bundled "data/..." name: the installed one (bundled.h) */
    gar_error err;
    gar_sweep_spec spec;
    const gar_verify_device_ops *device;
    if (gar_verify_device_find(a->device, verb, &device, &err) < 0 ||
        gar_sweep_spec_load(gar_cli_bundled(a->sweep_path, spec_found, sizeof spec_found), &spec,
                            &err) < 0)
        return gar_cli_refuse(&err);
    int refused = refuse_second_stdin(&spec, a);
    if (refused != 0) {
        gar_sweep_spec_free(&spec);
        return refused;
    }
    gar_caps caps;
    gar_executor_kind executor = GAR_EXECUTOR_NAIVE;
    int rc = sweep_host(a, &caps, &executor, &err);
    /* Every trace cut and checked before anything runs. */
    gar_trace *cut = NULL;
    if (rc == 0)
        rc = gar_verify_sweep_cut(&spec, a->limit, &cut, &err);
    /* The database (gar's or new, reading only) and its folder (writable)
     * are checked before a calibration on the spot, which a refusal would
     * throw away; SQLite's own message would not say why a folder fails. */
    if (rc == 0)
        rc = gar_check_file_writable(a->db_path, &err);
    if (rc == 0) {
        int known = gar_db_check(a->db_path, true, "open", &err);
        rc = known < 0 ? known : 0;
    }
    gar_host_profile profile;
    unsigned host_noisy = 0;
    if (rc == 0)
        rc = gar_cli_verify_load_profile(a->host_path, &profile, &host_noisy, &err);
    gar_db *db = NULL;
    if (rc == 0)
        rc = gar_db_open(a->db_path, true, &db, &err);
    char profile_hash[GAR_HASH_HEX_BYTES];
    if (rc == 0)
        gar_sweep_hash_hex(gar_sweep_host_hash(&profile), profile_hash);
    char tol_text[512];
    gar_verify_tolerance_text(&a->tol, tol_text, sizeof tol_text);
    gar_verify_sweep_counts counts = { 0 };
    if (rc == 0) {
        gar_verify_sweep sweep = {
            .spec = &spec,
            .cut = cut,
            .caps = &caps,
            .device = device,
            .executor = executor,
            .profile = &profile,
            .profile_hash = profile_hash,
            .runs = a->runs,
            .seed = a->seed,
            .tol = &a->tol,
            .tolerance_text = tol_text,
            .db = db,
            .on_skipped = gar_cli_verify_print_skipped,
            .on_verified = gar_cli_verify_print_verified,
        };
        rc = gar_verify_sweep_arms(&sweep, &counts, &err);
    }
    gar_db_close(db);
    gar_verify_sweep_cut_free(cut, spec.trace_count);
    gar_sweep_spec_free(&spec);
    if (rc < 0)
        return gar_cli_refuse(&err);
    printf("db: %s\nhost_profile: %s (%s)\nhost_noisy: %u\nverifications: %u\nagree: %u\n"
           "skipped: %u\ntolerance: %s\n",
           a->db_path, profile_hash, a->host_path != NULL ? a->host_path : "calibrated on the spot",
           host_noisy, counts.verified, counts.agreed, counts.skipped, tol_text);
    return counts.agreed == counts.verified ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}
