/* sim/trace/leftover.c — locked temporaries and removing unlocked ones gar made
 * (leftover.h). */
#define _DEFAULT_SOURCE /* flock, openat, mkdtemp, dirfd */

#include "sim/trace/leftover.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define HOST_BYTES 64
#define RANDOM_BYTES 6 /* the XXXXXX mkstemp and mkdtemp fill */
#define MARKER_TEXT "gar staging folder: its owner holds a lock on this file\n"
#define MARKER_NEW ".gar-owner.new" /* the marker before it takes its name */

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

int gar_leftover_claim_file(int fd)
{
    /* Blocking: a cleaner holds another's lock only while it looks. */
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR)
            return -1;
    int held = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (held < 0)
        flock(fd, LOCK_UN);
    return held;
}

int gar_leftover_make_folder(char *template)
{
    if (mkdtemp(template) == NULL)
        return -1;
    int dfd = open(template, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = dfd < 0 ? -1
                     : openat(dfd, MARKER_NEW, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && flock(fd, LOCK_EX) == 0 &&
              write(fd, MARKER_TEXT, sizeof MARKER_TEXT - 1) == (ssize_t)(sizeof MARKER_TEXT - 1) &&
              renameat(dfd, MARKER_NEW, dfd, GAR_LEFTOVER_MARKER) == 0;
    int saved = errno;
    if (!ok) {
        if (dfd >= 0)
            unlinkat(dfd, MARKER_NEW, 0);
        if (fd >= 0)
            close(fd);
        rmdir(template);
        fd = -1;
    }
    if (dfd >= 0)
        close(dfd);
    errno = saved;
    return fd;
}

void gar_leftover_drop_folder(const char *folder, int lock_fd)
{
    int dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        unlinkat(dfd, GAR_LEFTOVER_MARKER, 0);
        close(dfd);
    }
    rmdir(folder);
    if (lock_fd >= 0)
        close(lock_fd);
}

/* Opens `name` in the folder `dfd` and takes its lock: the descriptor,
 * locked, when it is a plain file whose lock no one holds (and the name
 * still leads to it), else -1. */
static int take_unlocked(int dfd, const char *name, int kind)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st, now;
    if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != (mode_t)kind ||
        flock(fd, LOCK_EX | LOCK_NB) != 0 || fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
        now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether `rest` (a name past its prefix, `len` bytes) is
 * "PID-HOST-XXXXXX" with HOST this machine's `host`: another machine's
 * entries are its own to clean, where a shared folder's locks might not
 * reach. */
static bool owner_tagged(const char *rest, size_t len, const char *host)
{
    size_t digits = strspn(rest, "0123456789");
    size_t host_len = strlen(host);
    return digits > 0 && digits <= 18 && len == digits + 1 + host_len + 1 + RANDOM_BYTES &&
           rest[digits] == '-' && strncmp(rest + digits + 1, host, host_len) == 0 &&
           rest[digits + 1 + host_len] == '-';
}

/* Whether the file open at `fd` begins with one of `signatures`. */
static bool signed_by(int fd, const char *const *signatures)
{
    char head[64];
    ssize_t n = pread(fd, head, sizeof head, 0);
    for (size_t i = 0; n > 0 && signatures[i] != NULL; i++) {
        size_t len = strlen(signatures[i]);
        if (len > 0 && len <= (size_t)n && memcmp(head, signatures[i], len) == 0)
            return true;
    }
    return false;
}

/* Whether `name` ends in one of `tails`, past at least `prefix_len` bytes. */
static bool has_tail(const char *name, size_t prefix_len, const char *const *tails)
{
    size_t n = strlen(name);
    for (size_t i = 0; tails != NULL && tails[i] != NULL; i++) {
        size_t t = strlen(tails[i]);
        if (n > prefix_len + t && strcmp(name + n - t, tails[i]) == 0)
            return true;
    }
    return false;
}

/* Removes `name`'s companions (name + tail) in `dfd`. */
static void remove_companions(int dfd, const char *name, const char *const *tails)
{
    for (size_t i = 0; tails != NULL && tails[i] != NULL; i++) {
        size_t n = strlen(name), t = strlen(tails[i]);
        char *companion = malloc(n + t + 1);
        if (companion == NULL)
            return;
        memcpy(companion, name, n);
        memcpy(companion + n, tails[i], t + 1);
        unlinkat(dfd, companion, 0);
        free(companion);
    }
}

static size_t clean_files(const char *dir, const char *prefix, const char *const *tails,
                          const char *const *signatures)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int dfd = dirfd(d);
    char host[HOST_BYTES + 1];
    this_host(host);
    size_t removed = 0, p = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t len = strlen(name);
        if (len <= p || strncmp(name, prefix, p) != 0 || has_tail(name, p, tails))
            continue;
        bool named = signatures == NULL ? owner_tagged(name + p, len - p, host)
                                        : len - p == RANDOM_BYTES;
        int fd = named ? take_unlocked(dfd, name, S_IFREG) : -1;
        if (fd < 0)
            continue;
        /* Removed while locked: a writer that made this very name since
         * waits on the lock, then finds its file gone (atomic_file.c). */
        if ((signatures == NULL || signed_by(fd, signatures)) && unlinkat(dfd, name, 0) == 0) {
            remove_companions(dfd, name, tails);
            removed++;
        }
        close(fd);
    }
    closedir(d);
    return removed;
}

size_t gar_leftover_clean(const char *dir, const char *prefix, const char *const *tails)
{
    return clean_files(dir, prefix, tails, NULL);
}

size_t gar_leftover_clean_signed(const char *dir, const char *prefix,
                                 const char *const *signatures)
{
    static const char *const none[] = { NULL };
    return clean_files(dir, prefix, NULL, signatures != NULL ? signatures : none);
}

/* clean_files in the folder of `path` (".", "/" or its leading part) for
 * the names that begin with `path`'s last part + `tag`: what writers of
 * `path` killed before their rename left beside it.  0 when memory runs out. */
static size_t clean_beside(const char *path, const char *tag, const char *const *tails,
                           const char *const *signatures)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    size_t dir_len = slash != NULL ? (size_t)(slash - path) : 0;
    char *dir = malloc(dir_len + 2), *prefix = malloc(strlen(base) + strlen(tag) + 1);
    size_t removed = 0;
    if (dir != NULL && prefix != NULL) {
        if (slash == NULL)
            strcpy(dir, ".");
        else if (dir_len == 0)
            strcpy(dir, "/");
        else {
            memcpy(dir, path, dir_len);
            dir[dir_len] = '\0';
        }
        strcpy(prefix, base);
        strcat(prefix, tag);
        removed = clean_files(dir, prefix, tails, signatures);
    }
    free(dir);
    free(prefix);
    return removed;
}

size_t gar_leftover_clean_beside(const char *path, const char *tag,
                                 const char *const *signatures)
{
    static const char *const none[] = { NULL };
    return clean_beside(path, tag, NULL, signatures != NULL ? signatures : none);
}

size_t gar_leftover_clean_owned_beside(const char *path, const char *tag,
                                       const char *const *tails)
{
    return clean_beside(path, tag, tails, NULL);
}

/* Empties and removes the folder `name` in `dfd` if it holds gar's marker,
 * unlocked: its plain files, the marker last, then the folder.  Returns
 * whether the folder went. */
static bool remove_marked_folder(int dfd, const char *name)
{
    int folder = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (folder < 0)
        return false;
    int lock = take_unlocked(folder, GAR_LEFTOVER_MARKER, S_IFREG);
    char text[sizeof MARKER_TEXT];
    ssize_t n = lock >= 0 ? pread(lock, text, sizeof text, 0) : -1;
    bool marked = n == (ssize_t)sizeof MARKER_TEXT - 1 &&
                  memcmp(text, MARKER_TEXT, sizeof MARKER_TEXT - 1) == 0;
    DIR *d = marked ? fdopendir(dup(folder)) : NULL;
    bool gone = false;
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            struct stat st;
            if (strcmp(e->d_name, GAR_LEFTOVER_MARKER) != 0 &&
                fstatat(folder, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
                unlinkat(folder, e->d_name, 0);
        }
        closedir(d);
        gone = unlinkat(folder, GAR_LEFTOVER_MARKER, 0) == 0 &&
               unlinkat(dfd, name, AT_REMOVEDIR) == 0;
    }
    if (lock >= 0)
        close(lock);
    close(folder);
    return gone;
}

size_t gar_leftover_clean_folders(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int dfd = dirfd(d);
    size_t removed = 0, p = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strlen(e->d_name) >= p + RANDOM_BYTES && strncmp(e->d_name, prefix, p) == 0)
            removed += remove_marked_folder(dfd, e->d_name);
    closedir(d);
    return removed;
}
