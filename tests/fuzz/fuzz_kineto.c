/* tests/fuzz/fuzz_kineto.c — any bytes as a Kineto Chrome-trace JSON, plain
 * or gzip, through the same unpacking, yajl callbacks and mapping as a file.
 *
 * Properties: a refusal is InvalidTrace (file, place, column, one-line
 * fault) and leaves the trace empty; an accepted profile gives a trace that
 * passes the checker, carries the stream column and no rows column, is sorted
 * by start, starts its earliest submit at 0, and has one row per counted wait
 * (waits + every skip reason <= synchronizing calls). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "import/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gar_trace t;
    gar_error err;
    gar_import_counts c;
    int rc = gar_import_kineto_memory(data, size, "fuzz.json", &t, &c, &err);
    if (rc != 0) {
        if (rc == -GAR_E_CAPACITY)
            return 0;
        fuzz_check_refusal(rc, &err, GAR_E_INVALID_TRACE, 4);
        FUZZ_CHECK(strcmp(err.argv[0], "fuzz.json") == 0);
        FUZZ_CHECK(t.count == 0 && t.row == NULL);
        return 0;
    }
    FUZZ_CHECK(t.count > 0 && t.count == c.waits);
    FUZZ_CHECK(t.columns == GAR_TRACE_HAS_STREAM);
    FUZZ_CHECK(gar_trace_check(&t, "fuzz", NULL) == 0);
    FUZZ_CHECK(c.waits + c.no_gpu_op + c.no_stream + c.no_launch + c.inconsistent +
                   c.out_of_order + c.returned_early <= c.sync_calls);
    uint64_t min_submit = UINT64_MAX;
    for (size_t i = 0; i < t.count; i++) {
        if (t.row[i].submit_ns < min_submit)
            min_submit = t.row[i].submit_ns;
        FUZZ_CHECK(t.row[i].step_rows == 0);
        if (i > 0)
            FUZZ_CHECK(t.row[i - 1].start_ns <= t.row[i].start_ns);
    }
    FUZZ_CHECK(min_submit == 0);
    gar_trace_free(&t);
    return 0;
}
