/* tests/fuzz/fuzz_bands.c — any bytes (up to a NUL) as a bands text.
 *
 * Properties: a refusal is code 1 naming "bands", "plan" or "band K plan"
 * (K 1..4) with a fault at a byte of the input; an accepted text is exactly
 * its label and re-parses equal; edges start at 0 and strictly increase;
 * select agrees with a plain scan over the edges, at and around every edge
 * and at rows taken from the input; resolving never fails and falls back
 * exactly when some band parks on the flag. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gar/bands.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const gar_caps with_word_wait = { true, NULL, true, NULL };
static const gar_caps without_word_wait = { false, "fuzzed host", false, "fuzzed host" };

/* The band `rows` is in, found the slow way. */
static const gar_plan *band_of(const gar_bands *bands, uint32_t rows)
{
    const gar_plan *plan = &bands->band[0].plan;
    for (uint32_t i = 1; i < bands->count; i++)
        if (rows >= bands->band[i].first_rows)
            plan = &bands->band[i].plan;
    return plan;
}

static void check_select(const gar_bands *bands, uint32_t rows)
{
    FUZZ_CHECK(gar_bands_select(bands, rows) == band_of(bands, rows));
}

static bool subject_ok(const char *subject)
{
    if (strcmp(subject, "bands") == 0 || strcmp(subject, "plan") == 0)
        return true;
    return strlen(subject) == strlen("band 1 plan") && strncmp(subject, "band ", 5) == 0 &&
           subject[5] >= '1' && subject[5] <= '4' && strcmp(subject + 6, " plan") == 0;
}

static void check_accepted(const char *text, size_t len, const uint8_t *data, size_t size)
{
    gar_bands bands;
    FUZZ_CHECK(gar_bands_parse(text, &bands, NULL) == 0);
    FUZZ_CHECK(bands.count >= 1 && bands.count <= GAR_BANDS_MAX);
    FUZZ_CHECK(bands.band[0].first_rows == 0);
    for (uint32_t i = 1; i < bands.count; i++)
        FUZZ_CHECK(bands.band[i].first_rows > bands.band[i - 1].first_rows);

    char label[GAR_BANDS_LABEL_BYTES];
    size_t n = gar_bands_label(&bands, label, sizeof label);
    FUZZ_CHECK(n < sizeof label && n == len && memcmp(label, text, len) == 0);
    gar_bands again;
    FUZZ_CHECK(gar_bands_parse(label, &again, NULL) == 0 && gar_bands_equal(&bands, &again));

    for (uint32_t i = 0; i < bands.count; i++) {
        uint32_t edge = bands.band[i].first_rows;
        check_select(&bands, edge);
        if (edge > 0)
            check_select(&bands, edge - 1);
        if (edge < UINT32_MAX)
            check_select(&bands, edge + 1);
    }
    check_select(&bands, UINT32_MAX);
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t rows;
        memcpy(&rows, data + i, sizeof rows);
        check_select(&bands, rows);
    }

    bool any_flag = false;
    for (uint32_t i = 0; i < bands.count; i++)
        any_flag = any_flag || bands.band[i].plan.park == GAR_PARK_FLAG;
    gar_bands running;
    gar_error warning;
    FUZZ_CHECK(gar_bands_resolve(&bands, &with_word_wait, &running, &warning) == 0);
    FUZZ_CHECK(warning.code == GAR_OK && gar_bands_equal(&bands, &running));
    int rc = gar_bands_resolve(&bands, &without_word_wait, &running, &warning);
    FUZZ_CHECK(rc == (any_flag ? 1 : 0));
    FUZZ_CHECK(rc == 0 || (warning.code == GAR_W_PARK_FALLBACK && warning.argc == 4));
    FUZZ_CHECK(gar_bands_label(&running, label, sizeof label) < sizeof label);
    for (uint32_t i = 0; i < running.count; i++) {
        FUZZ_CHECK(running.band[i].first_rows == bands.band[i].first_rows);
        FUZZ_CHECK(running.band[i].plan.park != GAR_PARK_FLAG);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t len = strlen(text);

    gar_bands bands;
    gar_error err;
    int rc = gar_bands_parse(text, &bands, &err);
    if (rc == 0) {
        check_accepted(text, len, data, size);
    } else {
        fuzz_check_refusal(rc, &err, GAR_E_INVALID_PLAN, 3);
        FUZZ_CHECK(subject_ok(err.argv[0]));
        /* Only a text of one band is refused as a plain plan. */
        bool one_band = strchr(text, ';') == NULL;
        FUZZ_CHECK(!one_band || strncmp(err.argv[0], "band ", 5) != 0);
        FUZZ_CHECK(one_band || strcmp(err.argv[0], "plan") != 0);
        fuzz_check_fault_offset(err.argv[2], len);
    }
    free(text);
    return 0;
}
