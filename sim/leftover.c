/* sim/leftover.c — owner names and removing a dead owner's leftovers
 * (leftover.h). */
#define _POSIX_C_SOURCE 200809L /* kill, gethostname */

#include "sim/leftover.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define HOST_BYTES 64
#define RANDOM_BYTES 6 /* the XXXXXX mkstemp and mkdtemp fill */

static void this_host(char out[HOST_BYTES + 1])
{
    char name[256];
    if (gethostname(name, sizeof name) != 0)
        snprintf(name, sizeof name, "unknown");
    name[sizeof name - 1] = '\0';
    size_t n = 0;
    for (; name[n] != '\0' && n < HOST_BYTES; n++) {
        char c = name[n];
        bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
        out[n] = kept ? c : '_';
    }
    out[n] = '\0';
}

void gar_leftover_owner(char out[GAR_LEFTOVER_OWNER_BYTES])
{
    char host[HOST_BYTES + 1];
    this_host(host);
    snprintf(out, GAR_LEFTOVER_OWNER_BYTES, "%ld-%s", (long)getpid(), host);
}

/* Whether process `pid` runs on this machine (another user's included). */
static bool alive(long pid)
{
    if (pid <= 0 || (long)(pid_t)pid != pid)
        return true; /* no process of ours: not ours to judge */
    return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

/* Whether `name` is prefix "PID-HOST-XXXXXX" [tail] with HOST this
 * machine's and PID gone. */
static bool dead_owners(const char *name, const char *prefix, const char *const *tails,
                        const char *host)
{
    size_t p = strlen(prefix), n = strlen(name);
    if (n <= p || strncmp(name, prefix, p) != 0)
        return false;
    for (size_t i = 0; tails != NULL && tails[i] != NULL; i++) {
        size_t t = strlen(tails[i]);
        if (n > p + t && strcmp(name + n - t, tails[i]) == 0) {
            n -= t;
            break;
        }
    }
    const char *rest = name + p;
    size_t len = n - p;
    size_t digits = strspn(rest, "0123456789");
    size_t host_len = strlen(host);
    /* PID "-" HOST "-" XXXXXX */
    if (digits == 0 || digits > 18 || len != digits + 1 + host_len + 1 + RANDOM_BYTES ||
        rest[digits] != '-' || strncmp(rest + digits + 1, host, host_len) != 0 ||
        rest[digits + 1 + host_len] != '-')
        return false;
    return !alive(strtol(rest, NULL, 10));
}

/* Removes a file, or a folder with the plain files in it. */
static bool remove_entry(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return false;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d == NULL)
            return false;
        struct dirent *e;
        size_t n = strlen(path);
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *inner = malloc(n + strlen(e->d_name) + 2);
            if (inner == NULL)
                break;
            sprintf(inner, "%s/%s", path, e->d_name);
            unlink(inner);
            free(inner);
        }
        closedir(d);
        return rmdir(path) == 0;
    }
    return unlink(path) == 0;
}

size_t gar_leftover_clean(const char *dir, const char *prefix, const char *const *tails)
{
    char host[HOST_BYTES + 1];
    this_host(host);
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    size_t removed = 0, n = strlen(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!dead_owners(e->d_name, prefix, tails, host))
            continue;
        char *path = malloc(n + strlen(e->d_name) + 2);
        if (path == NULL)
            break;
        sprintf(path, "%s/%s", dir, e->d_name);
        removed += remove_entry(path);
        free(path);
    }
    closedir(d);
    return removed;
}
