/* experiments/import/kineto_numbers.c — JSON number text to integers, for
 * the Kineto reader (kineto_numbers.h). */
#include "import/kineto_numbers.h"

/* Microseconds as JSON number text to whole nanoseconds, rounded half up.
 * False for a negative, malformed or too large value. */
bool gar_kineto_us_text_to_ns(const char *s, size_t n, uint64_t *out, bool *negative)
{
    size_t i = 0;
    *negative = false;
    if (i < n && s[i] == '-') {
        *negative = true;
        return false;
    }
    uint64_t mant = 0;
    int exp10 = 3; /* µs to ns */
    int digits = 0;
    bool any = false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, any = true) {
        if (digits < 19) {
            mant = mant * 10 + (uint64_t)(s[i] - '0');
            if (mant != 0)
                digits++;
        } else {
            exp10++;
        }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, any = true) {
            if (digits < 19) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                if (mant != 0)
                    digits++;
                exp10--;
            }
        }
    }
    if (!any)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool neg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        int e = 0;
        bool edigit = false;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigit = true)
            if (e < 1000)
                e = e * 10 + (s[i] - '0');
        if (!edigit)
            return false;
        exp10 += neg ? -e : e;
    }
    if (i != n)
        return false;
    if (mant == 0) {
        *out = 0;
        return true;
    }
    for (; exp10 > 0; exp10--) {
        if (mant > UINT64_MAX / 10)
            return false;
        mant *= 10;
    }
    if (exp10 < 0) {
        if (exp10 < -19) {
            *out = 0;
            return true;
        }
        uint64_t div = 1;
        for (int e = exp10; e < 0; e++)
            div *= 10;
        uint64_t q = mant / div, r = mant % div;
        mant = q + (r >= div - r ? 1 : 0);
    }
    *out = mant;
    return true;
}

/* A JSON integer's text to int64; false for fractions, exponents, overflow. */
bool gar_kineto_int_text(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg)
        i++;
    if (i == n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_C(1) << 62))
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

/* A JSON integer's text to sign and magnitude; false for fractions,
 * exponents, and magnitudes past 2^64 - 1. */
bool gar_kineto_integer_text(const char *s, size_t n, bool *negative, uint64_t *magnitude)
{
    size_t i = 0;
    *negative = n > 0 && s[0] == '-';
    if (*negative)
        i++;
    if (i == n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *magnitude = v;
    return true;
}
