/* experiments/cli/cli_options.c — the table-driven option loop (cli_options.h). */
#include "cli/cli_options.h"

#include <assert.h>
#include <getopt.h>

#include "cli/cli.h"

enum { ROWS_MAX = 32, LONG_ONLY = 256 }; /* getopt answers above any letter for long-only rows */

/* The row's short letter: its own, or -h for the help row (every verb
 * answers -h as it answers --help), or 0. */
static int letter_of(const gar_cli_option *row)
{
    if (row->letter == 0 && row->takes == GAR_CLI_HELP)
        return 'h';
    return row->letter;
}

/* The answer gar_cli_getopt gives for row i: its letter, so that -x and
 * --name count as one option when repeated, or a value no letter has. */
static int answer_of(const gar_cli_option *row, int i)
{
    return letter_of(row) != 0 ? letter_of(row) : LONG_ONLY + i;
}

/* Refuses the row's value with its message, quoting the value if asked. */
static int refuse(const char *verb, const gar_cli_option *row, const char *value)
{
    if (!row->quote_value)
        return gar_cli_usage_error(verb, row->refusal);
    char what[256];
    snprintf(what, sizeof what, "%s, found '%s'", row->refusal, value);
    return gar_cli_usage_error(verb, what);
}

static int take(const char *verb, const gar_cli_option *row, const char *value,
                void (*help)(FILE *))
{
    if (row->given != NULL)
        *row->given = true;
    unsigned long long n;
    switch (row->takes) {
    case GAR_CLI_HELP:
        help(stdout);
        return GAR_EXIT_OK;
    case GAR_CLI_FLAG:
        *(bool *)row->to = true;
        break;
    case GAR_CLI_TEXT:
        if (value[0] == '\0') { /* --out= names no file: refused before any work */
            char what[128];
            snprintf(what, sizeof what, "option '--%s' needs a value, found an empty one",
                     row->name);
            return gar_cli_usage_error(verb, what);
        }
        *(const char **)row->to = value;
        break;
    case GAR_CLI_U64:
        if (gar_cli_parse_u64(value, &n) != 0 || n < row->min || n > row->max)
            return refuse(verb, row, value);
        *(unsigned long long *)row->to = n;
        break;
    case GAR_CLI_PARSE:
        if (row->parse(value, row->to) < 0)
            return refuse(verb, row, value);
        break;
    }
    return GAR_CLI_OPTIONS_DONE;
}

int gar_cli_options(const char *verb, int argc, char **argv, const gar_cli_option *table,
                    void (*help)(FILE *out))
{
    struct option longs[ROWS_MAX + 1];
    char shorts[1 + 2 * ROWS_MAX + 1];
    size_t s = 0, rows = 0;
    shorts[s++] = ':'; /* tells a missing value (':') from an unknown option ('?') */
    for (; table[rows].name != NULL; rows++) {
        assert(rows < ROWS_MAX); /* a verb with more rows raises ROWS_MAX */
        if (rows == ROWS_MAX)
            break; /* never write past the arrays, even with asserts off */
        const gar_cli_option *row = &table[rows];
        bool valued = row->takes == GAR_CLI_TEXT || row->takes == GAR_CLI_U64 ||
                      row->takes == GAR_CLI_PARSE;
        longs[rows] = (struct option){ row->name, valued ? required_argument : no_argument, NULL,
                                       answer_of(row, (int)rows) };
        if (letter_of(row) != 0) {
            shorts[s++] = (char)letter_of(row);
            if (valued)
                shorts[s++] = ':';
        }
    }
    longs[rows] = (struct option){ NULL, 0, NULL, 0 };
    shorts[s] = '\0';

    optind = 1;
    opterr = 0; /* refusals are coded usage errors, not getopt's own lines */
    int answer;
    while ((answer = gar_cli_getopt(argc, argv, shorts, longs, NULL)) != -1) {
        size_t i = 0;
        while (i < rows && answer_of(&table[i], (int)i) != answer)
            i++;
        if (i == rows)
            return gar_cli_bad_option(verb, answer, argv);
        int rc = take(verb, &table[i], optarg, help);
        if (rc != GAR_CLI_OPTIONS_DONE)
            return rc;
    }
    return GAR_CLI_OPTIONS_DONE;
}
