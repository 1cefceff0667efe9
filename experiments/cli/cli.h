/* experiments/cli/cli.h — what every verb of the `gar` command shares: its table
 * entry, how it reports a refusal, and the exit codes.
 *
 * Verbs print `key: value` lines on stdout; a refusal prints
 * "error N (Name): message" on stderr and exits GAR_EXIT_REFUSED. */
#ifndef GAR_CLI_H
#define GAR_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
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

/* getopt_long, as every verb's option loop calls it, refusing repeats: an
 * option given a second time (by any spelling: --jobs 2, --jobs=2, -j, an
 * abbreviation) is answered GAR_CLI_REPEATED instead of taking the last
 * value silently, except the options whose repeating is their documented
 * meaning: --param (gar gen), --without (gar plan, gar executor) and
 * --tolerance (gar verify), where each occurrence adds one setting.  Its
 * memory of what was seen starts afresh whenever optind is reset to 0 or 1,
 * or argv changes, so each verb's loop is judged alone.  Single-threaded, as
 * getopt itself is. */
#define GAR_CLI_REPEATED 0x10000 /* no verb's option value is this large */
int gar_cli_getopt(int argc, char *const argv[], const char *shorts,
                   const struct option *longs, int *longindex);

/* True when the KEY of the "KEY=VALUE" `assignment` (the text before its
 * first '=') is that of one of the `count` earlier assignments: a repeatable
 * option sets each key once. */
bool gar_cli_key_repeats(const char *assignment, const char *const *earlier, size_t count);

/* Refuses what gar_cli_getopt answered ':' (a missing value), '?' (an
 * unknown option) or GAR_CLI_REPEATED for, naming the option as the user
 * wrote it.  Call it from the `default:` of the option loop (a leading ':'
 * in the short options and opterr = 0).  Returns GAR_EXIT_REFUSED. */
int gar_cli_bad_option(const char *verb, int answer, char **argv);

/* True when the paths `a` and `b` name one existing file (the same device
 * and inode: through a link, a symbolic link or another spelling); false
 * when either cannot be stat'ed.  A verb checks its --out against its
 * inputs with it, since writing the output replaces the file. */
bool gar_cli_same_file(const char *a, const char *b);

/* True when both paths are "-": standard input, which holds one file, so a
 * verb refuses two inputs that would read it (NULL reads as not "-"). */
bool gar_cli_both_stdin(const char *a, const char *b);

/* Refuses, with code Usage naming the verb, an output `out_path` that is the
 * input `in_path` (gar_cli_same_file).  Returns 0 when they differ (or
 * `out_path` is NULL), else GAR_EXIT_REFUSED. */
int gar_cli_refuse_out_is_input(const char *verb, const char *out_path, const char *in_path);

/* Drops the trailing slashes of the folder path `path` in place ("plots/"
 * becomes "plots"; "/" stays), so the paths a verb joins to it and prints
 * read with one slash.  Returns `path`. */
char *gar_cli_folder(char *path);

/* Prints `err` as "warning: N (Name): message" on stdout (a key: value line). */
void gar_cli_print_warning(FILE *out, const gar_error *err);

/* Parses a whole decimal u64 from `text` into `out`.  Returns 0, or -1 when
 * the text is not one (empty, sign, junk, overflow). */
int gar_cli_parse_u64(const char *text, unsigned long long *out);

#endif
