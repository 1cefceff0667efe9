/* experiments/cli/cli.c — shared reporting for the verbs of `gar`. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

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
    /* Each part bounded, so the whole always fits: a longer complaint is cut. */
    snprintf(text, sizeof text, "%.400s (see 'gar %.64s --help')", what, verb);
    gar_error err;
    gar_error_set(&err, GAR_E_USAGE, 2, verb, text);
    return gar_cli_refuse(&err);
}

/* What gar_cli_getopt has seen of the current loop, and the option it last
 * refused as repeated (for gar_cli_bad_option to name). */
enum { SEEN_MAX = 64 };
static struct {
    char *const *argv;
    int answer[SEEN_MAX];
    size_t count;
    char repeated[128];
} seen;

static bool repeatable(const char *name)
{
    static const char *const names[] = { "param", "without", "tolerance" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (name != NULL && strcmp(name, names[k]) == 0)
            return true;
    return false;
}

/* The long name of the option answered `answer`, or NULL (a short-only one). */
static const char *long_name(const struct option *longs, int answer)
{
    for (const struct option *o = longs; o != NULL && o->name != NULL; o++)
        if (o->flag == NULL && o->val == answer)
            return o->name;
    return NULL;
}

int gar_cli_getopt(int argc, char *const argv[], const char *shorts,
                   const struct option *longs, int *longindex)
{
    if (optind <= 1 || argv != seen.argv) {
        seen.argv = argv;
        seen.count = 0;
    }
    int answer = getopt_long(argc, argv, shorts, longs, longindex);
    if (answer == -1 || answer == '?' || answer == ':')
        return answer;
    const char *name = long_name(longs, answer);
    if (repeatable(name))
        return answer;
    for (size_t k = 0; k < seen.count; k++)
        if (seen.answer[k] == answer) {
            if (name != NULL)
                snprintf(seen.repeated, sizeof seen.repeated, "--%s", name);
            else
                snprintf(seen.repeated, sizeof seen.repeated, "-%c",
                         answer > ' ' && answer < 127 ? answer : '?');
            return GAR_CLI_REPEATED;
        }
    if (seen.count < SEEN_MAX)
        seen.answer[seen.count++] = answer;
    return answer;
}

bool gar_cli_key_repeats(const char *assignment, const char *const *earlier, size_t count)
{
    size_t n = strcspn(assignment, "=");
    for (size_t k = 0; k < count; k++)
        if (strcspn(earlier[k], "=") == n && strncmp(earlier[k], assignment, n) == 0)
            return true;
    return false;
}

bool gar_cli_both_stdin(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, "-") == 0 && strcmp(b, "-") == 0;
}

int gar_cli_bad_option(const char *verb, int answer, char **argv)
{
    if (answer == GAR_CLI_REPEATED) {
        char what[256];
        snprintf(what, sizeof what, "option '%s' is given more than once; give it once",
                 seen.repeated);
        return gar_cli_usage_error(verb, what);
    }
    /* glibc leaves optopt 0 for an unknown long option and the option's own
     * letter otherwise; a long option is then the argument getopt stepped
     * over (a short one may sit inside a cluster, so it is named by letter). */
    const char *stepped = argv[optind - 1];
    bool long_option = (answer == '?' && optopt == 0) ||
                       (answer == ':' && strncmp(stepped, "--", 2) == 0);
    char name[128];
    if (long_option)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(stepped, "="), stepped);
    else
        snprintf(name, sizeof name, "-%c", optopt > ' ' && optopt < 127 ? optopt : '?');
    char what[256];
    snprintf(what, sizeof what, answer == ':' ? "option '%s' needs a value" : "unknown option '%s'",
             name);
    return gar_cli_usage_error(verb, what);
}

bool gar_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int gar_cli_refuse_out_is_input(const char *verb, const char *out_path, const char *in_path)
{
    if (out_path == NULL || !gar_cli_same_file(out_path, in_path))
        return 0;
    char what[512];
    snprintf(what, sizeof what,
             "--out '%.200s' is the input '%.200s' and would replace it; name another file",
             out_path, in_path);
    return gar_cli_usage_error(verb, what);
}

char *gar_cli_folder(char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = '\0';
    return path;
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
