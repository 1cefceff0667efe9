/* experiments/cli.h — what every verb of the `gar` command shares: its table
 * entry, how it reports a refusal, and the exit codes.
 *
 * Verbs print `key: value` lines on stdout; a refusal prints
 * "error N (Name): message" on stderr and exits GAR_EXIT_REFUSED. */
#ifndef GAR_CLI_H
#define GAR_CLI_H

#include <stdio.h>

#include <gar/error.h>

enum {
    GAR_EXIT_OK = 0,
    GAR_EXIT_FAILED = 1,  /* the verb ran and its check failed (a demo's own verdict) */
    GAR_EXIT_REFUSED = 2, /* bad input or a coded error: nothing was done */
};

typedef struct gar_verb {
    const char *name;
    const char *summary; /* one line for `gar --help` */
    int (*main)(int argc, char **argv); /* argv[0] is the verb's name */
} gar_verb;

/* Prints `err` as "error N (Name): message" (or "warning ...") on stderr.
 * Returns GAR_EXIT_REFUSED. */
int gar_cli_refuse(const gar_error *err);

/* Refuses a bad command line with code Usage naming the verb.  Returns
 * GAR_EXIT_REFUSED. */
int gar_cli_usage_error(const char *verb, const char *what);

/* Refuses what getopt_long answered ':' (a missing value) or '?' (an
 * unknown option) for, naming the option as the user wrote it.  Call it
 * from the `default:` of the option loop (getopt_long with a leading ':' in
 * its short options and opterr = 0).  Returns GAR_EXIT_REFUSED. */
int gar_cli_bad_option(const char *verb, int answer, char **argv);

/* Prints `err` as "warning: N (Name): message" on stdout (a key: value line). */
void gar_cli_print_warning(FILE *out, const gar_error *err);

/* Parses a whole decimal u64 from `text` into `out`.  Returns 0, or -1 when
 * the text is not one (empty, sign, junk, overflow). */
int gar_cli_parse_u64(const char *text, unsigned long long *out);

#endif
