/* experiments/cli/verify_setup.c — what `gar verify` readies before it
 * runs anything (verify_setup.h): the host profile, read or calibrated on
 * the spot, and the executor kind. */
#define _POSIX_C_SOURCE 200809L

#include "cli/verify_setup.h"

#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "cli/bundled.h"

/* How many measurements of the profile `text` its calibration flagged
 * noisy: lines that start with "# noisy:" (gar calibrate writes one each). */
static unsigned count_noisy(const char *text)
{
    unsigned noisy = 0;
    for (const char *line = text; *line != '\0';) {
        if (strncmp(line, "# noisy:", 8) == 0)
            noisy++;
        const char *end = strchr(line, '\n');
        if (end == NULL)
            break;
        line = end + 1;
    }
    return noisy;
}

/* The host profile: the file given ("-": standard input), or this host
 * calibrated now; *noisy gets how many of its measurements' calibration
 * rounds disagreed. */
int gar_cli_verify_load_profile(const char *path, gar_host_profile *out, unsigned *noisy,
                                gar_error *err)
{
    *noisy = 0;
    char found[4096]; /* a bundled "data/..." name: the installed one (bundled.h) */
    path = gar_cli_bundled(path, found, sizeof found);
    if (path != NULL) {
        char *text;
        size_t len;
        int rc = gar_host_profile_read_text(path, &text, &len, err);
        if (rc < 0)
            return rc;
        rc = gar_host_profile_parse(text, len, strcmp(path, "-") == 0 ? "standard input" : path,
                                    out, err);
        if (rc == 0)
            *noisy = count_noisy(text);
        free(text);
        return rc;
    }
    /* Fewer samples, but the full poll run: the poll period's tail (the
     * waiter preempted) needs seconds of polling to be seen at its rate. */
    gar_calibrate_options copts = { .samples = GAR_CLI_VERIFY_CALIBRATE_SAMPLES, .quick = false };
    gar_calibration cal;
    int rc = gar_calibrate_run(&copts, &cal, err);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < cal.spreads; i++)
        *noisy += cal.spread[i].noisy;
    static char text[GAR_CALIBRATION_TEXT_BYTES];
    size_t len = gar_calibration_format(&cal, text, sizeof text);
    if (len >= sizeof text)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the profile text",
                             "GAR_CALIBRATION_TEXT_BYTES");
    return gar_host_profile_parse(text, len, "the calibration", out, err);
}

/* Parses and resolves --executor against `caps` as `gar executor` does (never
 * strict).  Returns 0 (runs as asked), 1 (fell back: `report` holds warning
 * 3), or the refusal's code with `report` filled. */
int gar_cli_verify_resolve_executor(const char *text, const gar_caps *caps,
                                    gar_executor_kind *running, gar_error *report)
{
    gar_executor_kind requested;
    int rc = gar_executor_kind_parse(text, &requested, report);
    if (rc < 0)
        return rc;
    return gar_executor_kind_resolve(requested, caps, false, running, report);
}
