/* experiments/cli/database_folder.c — why a sweep database will not open for
 * reading (database_folder.h). */
#include "cli/database_folder.h"

#include <stdio.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/write_atomic.h"

int gar_refuse_database(const char *db_path, gar_error *err)
{
    gar_error why;
    struct stat st;
    if (err->code == GAR_E_IO && stat(db_path, &st) == 0 && S_ISREG(st.st_mode) &&
        gar_check_file_writable(db_path, &why) < 0 &&
        why.code == GAR_E_IO) {
        char text[GAR_ERROR_ARG_BYTES];
        snprintf(text, sizeof text,
                 "its folder is not writable (%.100s), and a writer's log (-wal) beside it is"
                 " read through SQLite's -shm file there: copy both to a writable folder",
                 why.argv[2]);
        gar_error_set(err, GAR_E_IO, 3, db_path, "open", text);
    }
    return gar_cli_refuse(err);
}
