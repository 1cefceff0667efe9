/* experiments/sweep/number_text.c — numbers written for people to read. */
#include "sweep/number_text.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "sweep/format.h"

/* Drops the trailing zeros of a decimal fraction, and its point when
 * nothing is left after it: "52.600" -> "52.6", "100.0" -> "100". */
static void drop_trailing_zeros(char *text)
{
    char *point = strchr(text, '.');
    if (point == NULL)
        return;
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '0')
        text[--n] = '\0';
    if (n > 0 && text[n - 1] == '.')
        text[--n] = '\0';
}

char *gar_number_text(double v, int digits, char *out, size_t size)
{
    if (size == 0)
        return out;
    if (!isfinite(v)) {
        gar_format(out, size, "%s", isnan(v) ? "?" : v > 0 ? "∞" : "-∞");
        return out;
    }
    digits = digits < 1 ? 1 : digits > 9 ? 9 : digits;
    int decimals = 0;
    if (v != 0) {
        int exponent = (int)floor(log10(fabs(v)));
        decimals = digits - 1 - exponent;
        decimals = decimals < 0 ? 0 : decimals;
        /* 99.96 at three digits rounds up to 100.0: one decimal fewer then. */
        char probe[64];
        gar_format(probe, sizeof probe, "%.*f", decimals, fabs(v));
        if (decimals > 0 && strtod(probe, NULL) >= pow(10.0, exponent + 1))
            decimals--;
    }
    gar_format(out, size, "%.*f", decimals, v);
    drop_trailing_zeros(out);
    if (strcmp(out, "-0") == 0)
        gar_format(out, size, "0");
    return out;
}

char *gar_percent_text(double percent, char *out, size_t size)
{
    char number[64];
    if (percent > 0 && percent < GAR_PERCENT_SHOWN_MIN)
        gar_format(out, size, "<%s %%", gar_number_text(GAR_PERCENT_SHOWN_MIN, 1, number,
                                                        sizeof number));
    else
        gar_format(out, size, "%s %%", gar_number_text(percent, 3, number, sizeof number));
    return out;
}

char *gar_duration_text(double ns, char *out, size_t size)
{
    char number[64];
    if (isinf(ns))
        gar_format(out, size, "∞");
    else if (ns >= 1e9)
        gar_format(out, size, "%s s", gar_number_text(ns / 1e9, 3, number, sizeof number));
    else if (ns >= 1e6)
        gar_format(out, size, "%s ms", gar_number_text(ns / 1e6, 3, number, sizeof number));
    else
        gar_format(out, size, "%s µs", gar_number_text(ns / 1e3, 3, number, sizeof number));
    return out;
}
