/* experiments/cli/database_folder.h — the one cause of a sweep database that
 * will not open for reading which SQLite does not name: a folder gar cannot
 * write.  A database read with a writer's log (-wal) beside it is read
 * through that log, which needs SQLite's -shm file beside it too, and
 * SQLite says only "unable to open database file". */
#ifndef GAR_DATABASE_FOLDER_H
#define GAR_DATABASE_FOLDER_H

#include <gar/error.h>

/* Refuses (cli.h) the database `db_path` that gar_db_open refused with
 * `err`, first rewriting `err` to name the cause when it is that the
 * database's folder cannot be written.  Returns GAR_EXIT_REFUSED. */
int gar_refuse_database(const char *db_path, gar_error *err);

#endif
