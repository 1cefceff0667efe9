/* experiments/cli.c — shared reporting for the verbs of `gar`. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>

int gar_cli_refuse(const gar_error *err)
{
    char text[GAR_ERROR_ARGS_MAX * GAR_ERROR_ARG_BYTES + 256];
    gar_error_format(err, text, sizeof text);
    fprintf(stderr, "%s\n", text);
    return GAR_EXIT_REFUSED;
}

int gar_cli_usage_error(const char *verb, const char *what)
{
    char text[512];
    snprintf(text, sizeof text, "%s (see 'gar %s --help')", what, verb);
    gar_error err;
    gar_error_set(&err, GAR_E_USAGE, 2, verb, text);
    return gar_cli_refuse(&err);
}

void gar_cli_print_warning(FILE *out, const gar_error *err)
{
    char text[GAR_ERROR_ARGS_MAX * GAR_ERROR_ARG_BYTES + 256];
    gar_error_describe(err, text, sizeof text);
    fprintf(out, "warning: %s\n", text);
}

int gar_cli_parse_u64(const char *text, unsigned long long *out)
{
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        return -1;
    *out = value;
    return 0;
}
