/* tests/fuzz/fuzz_estimator_spec.c — any bytes as an estimator spec.
 *
 * Properties: a refusal is code 14 quoting the text and leaves the spec
 * untouched; an accepted spec's label fits GAR_ESTIMATOR_LABEL_BYTES, parses
 * back to an equal spec, and is its own label (canonical). */
#include <stdint.h>
#include <string.h>

#include <gar/estimator_family.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[256];
    if (size >= sizeof text || memchr(data, '\0', size) != NULL)
        return 0; /* the parser takes a C string */
    memcpy(text, data, size);
    text[size] = '\0';
    gar_estimator_spec spec = { GAR_ESTIMATOR_NONE, 3, 3 };
    gar_estimator_spec before = spec;
    gar_error err;
    int rc = gar_estimator_spec_parse(text, &spec, &err);
    if (rc != 0) {
        fuzz_check_refusal(rc, &err, GAR_E_INVALID_ESTIMATOR, 2);
        FUZZ_CHECK(strncmp(err.argv[0], text, GAR_ERROR_ARG_BYTES - 4) == 0);
        FUZZ_CHECK(memcmp(&spec, &before, sizeof spec) == 0);
        return 0;
    }
    char label[GAR_ESTIMATOR_LABEL_BYTES];
    size_t n = gar_estimator_spec_label(&spec, label, sizeof label);
    FUZZ_CHECK(n < sizeof label);
    gar_estimator_spec again;
    FUZZ_CHECK(gar_estimator_spec_parse(label, &again, NULL) == 0);
    FUZZ_CHECK(memcmp(&again, &spec, sizeof spec) == 0);
    char label2[GAR_ESTIMATOR_LABEL_BYTES];
    gar_estimator_spec_label(&again, label2, sizeof label2);
    FUZZ_CHECK(strcmp(label, label2) == 0);
    return 0;
}
