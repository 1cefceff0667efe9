/* experiments/cli/spec_input.c — a sweep spec from a file or standard input. */
#include "spec_input.h"
#include "alloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define STDIN_NAME "standard input"

bool gar_cli_is_stdin(const char *arg)
{
    return arg != NULL && strcmp(arg, "-") == 0;
}

/* Standard input to its end, at most GAR_SWEEP_FILE_MAX bytes, into a
 * malloc'd, NUL-terminated `*text` of `*len` bytes.  Returns 0, or the
 * refusal (nothing to free). */
static int read_stdin(char **text, size_t *len, gar_error *err)
{
    char *buf = gar_malloc((size_t)GAR_SWEEP_FILE_MAX + 1);
    if (buf == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep spec", "exhausted");
    errno = 0;
    size_t n = fread(buf, 1, (size_t)GAR_SWEEP_FILE_MAX + 1, stdin);
    if (ferror(stdin)) {
        int why = errno != 0 ? errno : EIO;
        gar_free(buf);
        return gar_error_set(err, GAR_E_IO, 3, STDIN_NAME, "read", strerror(why));
    }
    if (n > GAR_SWEEP_FILE_MAX) {
        gar_free(buf);
        char why[96];
        snprintf(why, sizeof why, "is larger than %u bytes, the most a spec may be",
                 (unsigned)GAR_SWEEP_FILE_MAX);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, STDIN_NAME, "file", why);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int gar_cli_sweep_spec_load(const char *arg, gar_sweep_spec *out, gar_error *err)
{
    if (!gar_cli_is_stdin(arg))
        return gar_sweep_spec_load(arg, out, err);
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    int rc = read_stdin(&text, &len, err);
    if (rc < 0)
        return rc;
    rc = gar_sweep_spec_parse(text, len, STDIN_NAME, "", out, err);
    gar_free(text);
    return rc;
}

int gar_cli_sweep_size_load(const char *arg, gar_sweep_size *out, gar_error *err)
{
    if (!gar_cli_is_stdin(arg))
        return gar_sweep_size_load(arg, out, err);
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    int rc = read_stdin(&text, &len, err);
    if (rc < 0)
        return rc;
    rc = gar_sweep_size_parse(text, len, STDIN_NAME, "", out, err);
    gar_free(text);
    return rc;
}
