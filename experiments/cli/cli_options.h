/* experiments/cli/cli_options.h — a verb's options as a table, and the one loop
 * that reads them: each row names an option, what value it takes and where
 * that value goes, so a verb states its options instead of writing a
 * getopt switch.
 *
 * The loop is gar_cli_getopt's (cli.h), so every verb keeps its rules: an
 * option given twice is refused (but --param, --without and --tolerance,
 * which add one setting each time), a missing value or an unknown option is
 * refused by name, and bad values are refused with the row's own message,
 * all as coded usage errors (cli.h) naming the verb.  Single-threaded, as
 * getopt is. */
#ifndef GAR_CLI_OPTIONS_H
#define GAR_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

typedef enum gar_cli_takes {
    GAR_CLI_HELP,  /* prints the verb's help on stdout; the verb exits 0 */
    GAR_CLI_FLAG,  /* no value: sets the bool at `to` */
    GAR_CLI_TEXT,  /* a value kept as given (not empty): the const char * at `to` points at it */
    GAR_CLI_U64,   /* a whole decimal number in [min, max] into the unsigned long long at `to` */
    GAR_CLI_PARSE, /* a value read by `parse` into `to` */
} gar_cli_takes;

typedef struct gar_cli_option {
    const char *name;   /* the long name, without "--"; NULL ends the table */
    int letter;         /* also accepted as -LETTER, or 0 (a HELP row is -h too) */
    gar_cli_takes takes;
    void *to;           /* where the value goes (see gar_cli_takes); NULL for HELP */
    unsigned long long min, max; /* U64: the range accepted */
    /* PARSE: reads `value` into `to`; returns 0, or < 0 to refuse it. */
    int (*parse)(const char *value, void *to);
    const char *refusal; /* U64, PARSE: the usage message for a refused value */
    bool quote_value;    /* refusal followed by ", found 'VALUE'" */
    bool *given;         /* optional: set true when the option appears */
} gar_cli_option;

/* The loop ended at the operands: optind is the first one. */
#define GAR_CLI_OPTIONS_DONE (-1)

/* Reads argv's options (argv[0] is the verb's name) by `table`, from the
 * start (optind is reset).  Returns GAR_CLI_OPTIONS_DONE with every value
 * stored and optind at the first operand; or, for the verb to return as its
 * exit code, GAR_EXIT_OK after printing help(stdout), or GAR_EXIT_REFUSED
 * after refusing (a bad, repeated, unknown or value-less option; the first
 * one stops the loop, so values stored before it stay stored).  At most 32
 * rows. */
int gar_cli_options(const char *verb, int argc, char **argv, const gar_cli_option *table,
                    void (*help)(FILE *out));

#endif
