/* tests/experiments/test_verifications.c — the verifications table: a row
 * stored reads back whole, a second of the same key replaces it, the CDF
 * quantiles are nearest ranks, a database without the table has none, and a
 * malformed row is refused rather than half read.  A row of several runs
 * keeps their envelope, where the simulation fell and the three-way verdict. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sweep/db.h"
#include "verify/verifications.h"
#include "db_files.h"

typedef struct fixture {
    char dir[64], path[96];
    gar_db *db;
} fixture;

static int setup(void **state)
{
    static fixture f;
    snprintf(f.dir, sizeof f.dir, "/tmp/gar-verif-XXXXXX");
    assert_non_null(mkdtemp(f.dir));
    snprintf(f.path, sizeof f.path, "%s/v.db", f.dir);
    assert_int_equal(gar_db_open(f.path, true, &f.db, NULL), 0);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gar_db_close(f->db);
    remove_db_files(f->path);
    rmdir(f->dir);
    return 0;
}

static gar_verification *sample_row(void)
{
    gar_verification *v = calloc(1, sizeof *v);
    assert_non_null(v);
    strcpy(v->trace, "0123456789abcdef");
    strcpy(v->trace_name, "jitter.csv");
    strcpy(v->plan, "flag:park_us=100,backstop_us=1000");
    strcpy(v->plan_ran, "poll (fallback from flag:park_us=100,backstop_us=1000)");
    strcpy(v->estimator, "-");
    strcpy(v->device, "emulated");
    strcpy(v->host_profile, "fedcba9876543210");
    strcpy(v->tolerance, "plain ks_d<=0.15");
    v->waits = 1000;
    v->seed = 3;
    for (int i = 0; i < 3; i++) {
        v->real_q[i] = 100 * (gar_dur_ns)(i + 1);
        v->sim_q[i] = 110 * (gar_dur_ns)(i + 1);
    }
    v->ks_d = 0.125;
    v->busy_real = 1.0;
    v->busy_sim = 0.98;
    v->agree = true;
    strcpy(v->verdict, "agree");
    v->runs = 1;
    for (int i = 0; i < 3; i++) {
        v->real_min[i] = v->real_max[i] = v->real_q[i];
        strcpy(v->position[i], "inside");
    }
    for (unsigned k = 0; k < GAR_VERIFY_CDF_LEVELS; k++) {
        v->real_cdf[k] = 10 * k;
        v->sim_cdf[k] = 11 * k + 5;
    }
    return v;
}

typedef struct seen {
    unsigned rows;
    gar_verification last;
} seen;

static int keep(void *ctx, const gar_verification *v, gar_error *err)
{
    (void)err;
    seen *s = ctx;
    s->rows++;
    s->last = *v;
    return 0;
}

static void a_row_reads_back_whole_and_a_second_replaces_it(void **state)
{
    fixture *f = *state;
    gar_verification *v = sample_row();
    static seen s;
    memset(&s, 0, sizeof s);
    assert_int_equal(gar_verifications_each(f->db, keep, &s, NULL), 0);
    assert_int_equal(s.rows, 0);

    assert_int_equal(gar_verification_put(f->db, v, NULL), 0);
    assert_int_equal(gar_verifications_each(f->db, keep, &s, NULL), 0);
    assert_int_equal(s.rows, 1);
    assert_string_equal(s.last.plan_ran, v->plan_ran);
    assert_string_equal(s.last.host_profile, v->host_profile);
    assert_int_equal(s.last.waits, 1000);
    assert_int_equal(s.last.real_q[2], 300);
    assert_int_equal(s.last.sim_q[0], 110);
    assert_true(s.last.ks_d == 0.125 && s.last.busy_sim == 0.98);
    assert_true(s.last.agree);
    assert_memory_equal(s.last.real_cdf, v->real_cdf, sizeof v->real_cdf);
    assert_memory_equal(s.last.sim_cdf, v->sim_cdf, sizeof v->sim_cdf);
    assert_true(strlen(s.last.gar_version) > 0);

    assert_string_equal(s.last.verdict, "agree");
    assert_int_equal(s.last.runs, 1);

    /* The same key measured again: replaced, not added. */
    v->agree = false;
    strcpy(v->verdict, "disagree");
    v->ks_d = 0.5;
    assert_int_equal(gar_verification_put(f->db, v, NULL), 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(gar_verifications_each(f->db, keep, &s, NULL), 0);
    assert_int_equal(s.rows, 1);
    assert_false(s.last.agree);
    /* Another seed is another key. */
    v->seed = 4;
    assert_int_equal(gar_verification_put(f->db, v, NULL), 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(gar_verifications_each(f->db, keep, &s, NULL), 0);
    assert_int_equal(s.rows, 2);
    free(v);
}

static void a_row_of_several_runs_keeps_their_envelope_and_verdict(void **state)
{
    fixture *f = *state;
    gar_verification *v = sample_row();
    static seen s;
    const char *verdicts[] = { "biased", "unjudgeable here" };
    for (int k = 0; k < 2; k++) {
        v->runs = 5;
        v->agree = false;
        strcpy(v->verdict, verdicts[k]);
        v->real_min[1] = 640;
        v->real_max[1] = 834;
        v->sim_q[1] = 1068;
        strcpy(v->position[1], "above all");
        strcpy(v->position[2], "not judged");
        v->real_ks_d_max = 0.37;
        assert_int_equal(gar_verification_put(f->db, v, NULL), 0);
        memset(&s, 0, sizeof s);
        assert_int_equal(gar_verifications_each(f->db, keep, &s, NULL), 0);
        assert_int_equal(s.rows, 1);
        assert_string_equal(s.last.verdict, verdicts[k]);
        assert_false(s.last.agree);
        assert_int_equal(s.last.runs, 5);
        assert_int_equal(s.last.real_min[1], 640);
        assert_int_equal(s.last.real_max[1], 834);
        assert_string_equal(s.last.position[0], "inside");
        assert_string_equal(s.last.position[1], "above all");
        assert_string_equal(s.last.position[2], "not judged");
        assert_true(s.last.real_ks_d_max == 0.37);
    }
    /* A verdict outside the four is refused by the table itself. */
    strcpy(v->verdict, "maybe");
    gar_error err;
    assert_int_equal(gar_verification_put(f->db, v, &err), -GAR_E_IO);
    free(v);
}

static void a_malformed_cdf_is_refused(void **state)
{
    fixture *f = *state;
    gar_verification *v = sample_row();
    assert_int_equal(gar_verification_put(f->db, v, NULL), 0);
    assert_int_equal(sqlite3_exec(gar_db_sqlite(f->db),
                                  "UPDATE verifications SET sim_cdf = '1,2,x'", NULL, NULL, NULL),
                     SQLITE_OK);
    seen s = { 0 };
    gar_error err;
    assert_int_equal(gar_verifications_each(f->db, keep, &s, &err), -GAR_E_IO);
    assert_int_equal(s.rows, 0);
    assert_non_null(strstr(err.argv[2], "201 comma-separated"));
    free(v);
}

static void a_database_without_the_table_has_no_rows(void **state)
{
    fixture *f = *state;
    assert_int_equal(sqlite3_exec(gar_db_sqlite(f->db), "DROP TABLE verifications", NULL, NULL,
                                  NULL),
                     SQLITE_OK);
    seen s = { 0 };
    assert_int_equal(gar_verifications_each(f->db, keep, &s, NULL), 0);
    assert_int_equal(s.rows, 0);
}

static void cdf_levels_are_nearest_ranks(void **state)
{
    (void)state;
    gar_dur_ns v[4] = { 5, 6, 7, 8 }, q[GAR_VERIFY_CDF_LEVELS];
    gar_verification_cdf(v, 4, q);
    assert_int_equal(q[0], 5);    /* the least */
    assert_int_equal(q[50], 5);   /* p25: the 1st of 4 */
    assert_int_equal(q[51], 6);   /* p25.5: the 2nd */
    assert_int_equal(q[100], 6);  /* p50 */
    assert_int_equal(q[200], 8);  /* the max */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_row_reads_back_whole_and_a_second_replaces_it, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_row_of_several_runs_keeps_their_envelope_and_verdict,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_malformed_cdf_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_database_without_the_table_has_no_rows, setup, teardown),
        cmocka_unit_test(cdf_levels_are_nearest_ranks),
    };
    return cmocka_run_group_tests_name("verifications", tests, NULL, NULL);
}
