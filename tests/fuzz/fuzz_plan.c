/* tests/fuzz/fuzz_plan.c — any bytes as a plan text.
 *
 * Properties: a refusal is code 1 with a fault at a byte of the input; an
 * accepted text is exactly its label; the label parses to an equal plan, as
 * a plan and as bands of one band; resolving never fails, runs as asked
 * with word-wait, and without it falls back exactly when the park is flag,
 * keeping the predict. */
#include <stdint.h>
#include <string.h>

#include <gar/bands.h>
#include <gar/plan.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const gar_caps with_word_wait = { true, NULL, true, NULL };
static const gar_caps without_word_wait = { false, "fuzzed host", false, "fuzzed host" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    gar_plan plan;
    gar_error err;
    int rc = gar_plan_parse_span(text, size, "plan", &plan, &err);
    if (rc != 0) {
        fuzz_check_refusal(rc, &err, GAR_E_INVALID_PLAN, 3);
        FUZZ_CHECK(strcmp(err.argv[0], "plan") == 0);
        fuzz_check_fault_offset(err.argv[2], size);
        return 0;
    }

    char label[GAR_PLAN_LABEL_BYTES];
    size_t n = gar_plan_label(&plan, label, sizeof label);
    FUZZ_CHECK(n < sizeof label);
    FUZZ_CHECK(n == size && memcmp(label, text, size) == 0);

    gar_plan again;
    FUZZ_CHECK(gar_plan_parse(label, &again, NULL) == 0);
    FUZZ_CHECK(gar_plan_equal(&plan, &again));
    gar_bands bands;
    FUZZ_CHECK(gar_bands_parse(label, &bands, NULL) == 0);
    FUZZ_CHECK(bands.count == 1 && gar_plan_equal(&bands.band[0].plan, &plan));

    gar_plan running;
    FUZZ_CHECK(gar_plan_resolve(&plan, &with_word_wait, &running, &err) == 0);
    FUZZ_CHECK(err.code == GAR_OK && gar_plan_equal(&plan, &running));

    rc = gar_plan_resolve(&plan, &without_word_wait, &running, &err);
    FUZZ_CHECK(rc == (plan.park == GAR_PARK_FLAG ? 1 : 0));
    FUZZ_CHECK(running.park != GAR_PARK_FLAG);
    gar_plan undone = running; /* the fallback taken back gives the plan asked for */
    undone.park = plan.park;
    undone.fell_back = false;
    FUZZ_CHECK(gar_plan_equal(&undone, &plan));
    FUZZ_CHECK(gar_plan_label(&running, label, sizeof label) < sizeof label);
    if (rc == 1) {
        FUZZ_CHECK(err.code == GAR_W_PARK_FALLBACK && err.argc == 4);
        FUZZ_CHECK(running.fell_back && running.requested_park == GAR_PARK_FLAG);
        gar_plan twice;
        FUZZ_CHECK(gar_plan_resolve(&running, &with_word_wait, &twice, NULL) == 0);
        FUZZ_CHECK(gar_plan_equal(&running, &twice));
    }
    return 0;
}
