/* experiments/cli/bundled.h — the bundled host profiles, sweeps and traces
 * as an installed gar finds them.
 *
 * The help texts and docs name them "data/hosts/dev-vm.host",
 * "data/sweeps/auto.sweep": paths from gar's source folder.  `meson install`
 * puts data/hosts, data/sweeps and data/traces under DATADIR/gar
 * (share/gar), so a "data/..." name missing from the working directory is
 * looked up there: first beside the running gar (its folder, then
 * ../share/gar as bindir and datadir lie under the prefix: an installed
 * tree moved elsewhere, or staged with DESTDIR, still works), then in the
 * datadir compiled in. */
#ifndef GAR_CLI_BUNDLED_H
#define GAR_CLI_BUNDLED_H

#include <stddef.h>

/* The bundled folder compiled in (DATADIR/gar under the prefix). */
extern const char gar_cli_installed_data_dir[];

/* The path to open for `path` as the user gave it: `path` itself, unless
 * it starts with "data/", is missing from the working directory, and one of
 * the installed folders holds the rest of it; then that path, written into
 * `buf` (`size` bytes) and returned.  NULL stays NULL. */
const char *gar_cli_bundled(const char *path, char *buf, size_t size);

#endif
