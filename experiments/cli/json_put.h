/* experiments/cli/json_put.h — one key and its value into a yajl map, for
 * the verbs that print --json.  yajl wants lengths and number text; these
 * keep each field one call. */
#ifndef GAR_CLI_JSON_PUT_H
#define GAR_CLI_JSON_PUT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_gen.h>

static inline void gar_json_key(yajl_gen g, const char *key)
{
    yajl_gen_string(g, (const unsigned char *)key, strlen(key));
}

static inline void gar_json_text(yajl_gen g, const char *key, const char *value)
{
    gar_json_key(g, key);
    yajl_gen_string(g, (const unsigned char *)value, strlen(value));
}

/* A u64 as its exact decimal digits (a double would round past 2^53). */
static inline void gar_json_u64(yajl_gen g, const char *key, uint64_t value)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)value);
    gar_json_key(g, key);
    yajl_gen_number(g, digits, (size_t)n);
}

/* A double, or null where it is not finite (JSON has no NaN). */
static inline void gar_json_double(yajl_gen g, const char *key, double value)
{
    gar_json_key(g, key);
    if (isfinite(value))
        yajl_gen_double(g, value);
    else
        yajl_gen_null(g);
}

#endif
