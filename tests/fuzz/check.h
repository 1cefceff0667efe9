/* tests/fuzz/check.h — what every fuzz target asserts, whatever it fuzzes.
 * A target states a property with FUZZ_CHECK; a broken one aborts, which
 * both libFuzzer and the test driver report with the input. */
#ifndef GAR_FUZZ_CHECK_H
#define GAR_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gar/error.h>

#define FUZZ_CHECK(cond)                                                                          \
    do {                                                                                          \
        if (!(cond))                                                                              \
            abort();                                                                              \
    } while (0)

/* A refusal is well formed: the code returned is the code recorded, with
 * `argc` arguments, and it formats as a message that fits one line. */
static inline void fuzz_check_refusal(int rc, const gar_error *err, int code, unsigned argc)
{
    FUZZ_CHECK(rc == -code);
    FUZZ_CHECK(err->code == code);
    FUZZ_CHECK(err->argc == argc);
    char text[1024];
    size_t n = gar_error_format(err, text, sizeof text);
    FUZZ_CHECK(n < sizeof text && n == strlen(text));
    FUZZ_CHECK(strchr(text, '\n') == NULL);
}

/* A fault reads "at byte N: ..." with N at most `len`. */
static inline void fuzz_check_fault_offset(const char *fault, size_t len)
{
    static const char prefix[] = "at byte ";
    FUZZ_CHECK(strncmp(fault, prefix, sizeof prefix - 1) == 0);
    const char *p = fault + sizeof prefix - 1;
    size_t at = 0;
    FUZZ_CHECK(*p >= '0' && *p <= '9');
    for (; *p >= '0' && *p <= '9'; p++)
        at = at * 10 + (size_t)(*p - '0');
    FUZZ_CHECK(p[0] == ':' && p[1] == ' ');
    FUZZ_CHECK(at <= len);
}

#endif
