/* experiments/cli/bundled.c — "data/..." found under the installed data
 * folder when the working directory lacks it (bundled.h). */
#include "cli/bundled.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* GAR_INSTALL_DATA_DIR, and GAR_BIN_TO_DATA_DIR ("" where bindir or
 * datadir is absolute: no relative way), written by meson. */
#include "install_dirs.h"

const char gar_cli_installed_data_dir[] = GAR_INSTALL_DATA_DIR;

/* Whether `dir`/`rest` exists, written into `buf`. */
static bool found_under(const char *dir, const char *rest, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s/%s", dir, rest);
    return n > 0 && (size_t)n < size && access(buf, F_OK) == 0;
}

/* The folder of the running executable plus "/" GAR_BIN_TO_DATA_DIR, into
 * `buf`; false where it cannot be told (no /proc, a name too long). */
static bool data_beside_executable(char *buf, size_t size)
{
    if (GAR_BIN_TO_DATA_DIR[0] == '\0')
        return false;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    int w = snprintf(buf, size, "%s/%s", exe, GAR_BIN_TO_DATA_DIR);
    return w > 0 && (size_t)w < size;
}

const char *gar_cli_bundled(const char *path, char *buf, size_t size)
{
    static const char prefix[] = "data/";
    if (path == NULL || strncmp(path, prefix, strlen(prefix)) != 0 || access(path, F_OK) == 0)
        return path;
    const char *rest = path + strlen(prefix);
    char dir[4096];
    if (data_beside_executable(dir, sizeof dir) && found_under(dir, rest, buf, size))
        return buf;
    if (found_under(GAR_INSTALL_DATA_DIR, rest, buf, size))
        return buf;
    return path;
}
