/* tests/experiments/db_files.h — what the database tests share to clean up:
 * a SQLite file in WAL mode leaves two side files beside it. */
#ifndef GAR_TESTS_DB_FILES_H
#define GAR_TESTS_DB_FILES_H

#include <stdio.h>

/* Removes the database at `path` and its -wal and -shm files, those that
 * exist (a missing one is no fault: cleanup runs after failed tests too). */
static inline void remove_db_files(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm" };
    char side[256];
    for (int i = 0; i < 3; i++) {
        snprintf(side, sizeof side, "%s%s", path, suffixes[i]);
        remove(side);
    }
}

#endif
