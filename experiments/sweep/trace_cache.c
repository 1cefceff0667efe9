/* experiments/sweep/trace_cache.c — a trace's binary cache: checked and
 * mapped, or built from the text and then mapped (trace_cache.h). */
#define _POSIX_C_SOURCE 200809L

#include "sweep/trace_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/trace/alloc.h"
#include "sim/trace/atomic_file.h"
#include "import/content_hash.h"
#include "sim/trace/key_index.h"
#include "sim/trace/leftover.h"
#include "sim/trace/mapped_guard.h"
#include "sweep/word_checksum.h"

#define CACHE_MAGIC "gar-trace-cache"
#define CACHE_VERSION 2u /* 2: the header carries a checksum */
#define HEADER_BYTES 128
#define BYTE_ORDER_MARK UINT64_C(0x0102030405060708)
#define IO_BLOCK (64 * 1024)
#define ROWS_A_BLOCK 4096

typedef struct header {
    char magic[16];
    uint32_t version, row_bytes;
    uint64_t byte_order;
    uint64_t text_hash, text_bytes; /* the key */
    uint64_t rows;
    uint32_t columns, streams, points, reserved;
    uint64_t checksum; /* header_checksum: the header (this field 0) and the rest */
    unsigned char pad[HEADER_BYTES - 80];
} header;

_Static_assert(sizeof(header) == HEADER_BYTES, "the header is 128 bytes");
_Static_assert(HEADER_BYTES % _Alignof(gar_trace_row) == 0, "rows start aligned");
_Static_assert(sizeof(gar_trace_row) % sizeof(uint32_t) == 0, "numbers start aligned");

static int io_error(gar_error *err, const char *path, const char *what)
{
    return gar_error_set(err, GAR_E_IO, 3, path, what, strerror(errno != 0 ? errno : EIO));
}

static int no_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a trace cache", "exhausted");
}

/* A cache another process truncated while it was mapped and read (its
 * pages past the new end read as zeros: mapped_guard.h). */
static int cut_error(gar_error *err, const char *path)
{
    return gar_error_set(err, GAR_E_IO, 3, path, "read",
                         "the trace cache was cut short while it was mapped (another process"
                         " truncated it)");
}

/* Unguards and unmaps `bytes` at `map`; returns `rc`. */
static int unmap(void *map, size_t bytes, int guard, int rc)
{
    gar_mapped_guard_remove(guard);
    munmap(map, bytes);
    return rc;
}

char *gar_trace_cache_path(const char *text_path)
{
    const char *slash = strrchr(text_path, '/');
    size_t dir = slash != NULL ? (size_t)(slash - text_path) + 1 : 0;
    const char *name = text_path + dir;
    static const char ext[] = ".gar-cache";
    char *path = gar_malloc(dir + 1 + strlen(name) + sizeof ext);
    if (path == NULL)
        return NULL;
    memcpy(path, text_path, dir);
    path[dir] = '.';
    memcpy(path + dir + 1, name, strlen(name));
    memcpy(path + dir + 1 + strlen(name), ext, sizeof ext);
    return path;
}

/* The refusal of `path`, of file type `mode`, where a regular file (`what`)
 * is expected: -GAR_E_IO. */
static int not_regular(const char *path, mode_t mode, const char *what, gar_error *err)
{
    char why[200];
    snprintf(why, sizeof why, "is not a regular file but a %s: it must be %s",
             S_ISFIFO(mode) ? "FIFO" : S_ISDIR(mode) ? "folder" : "device or socket", what);
    return gar_error_set(err, GAR_E_IO, 3, path, "open", why);
}

/* Opens `path` to read if it is a regular file, without waiting (a FIFO
 * with no writer would block an open forever).  Returns the descriptor, or
 * -GAR_E_IO naming the file: absent, unreadable, or anything but a regular
 * file (`what` says what it was to be). */
static int open_regular(const char *path, const char *what, gar_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return io_error(err, path, "open");
    struct stat st;
    int rc = fstat(fd, &st) != 0      ? io_error(err, path, "stat")
             : !S_ISREG(st.st_mode) ? not_regular(path, st.st_mode, what, err)
                                    : 0;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    /* Reads of a regular file never wait: the flag is cleared for clarity. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* The text's key: the FNV-1a hash of its bytes as stored, and their count. */
static int text_key(const char *path, uint64_t *hash, uint64_t *bytes, gar_error *err)
{
    int fd = open_regular(path, "a trace read more than once (give a file, not a pipe)", err);
    if (fd < 0)
        return fd;
    FILE *in = fdopen(fd, "rb");
    if (in == NULL) {
        close(fd);
        return io_error(err, path, "open");
    }
    unsigned char *buf = gar_malloc(IO_BLOCK);
    if (buf == NULL) {
        fclose(in);
        return no_memory(err);
    }
    uint64_t h = GAR_HASH_OFFSET, n = 0;
    size_t got;
    errno = 0;
    while ((got = fread(buf, 1, IO_BLOCK, in)) > 0) {
        h = gar_hash_bytes(h, buf, got);
        n += got;
    }
    int rc = ferror(in) ? io_error(err, path, "read") : 0;
    gar_free(buf);
    fclose(in);
    *hash = h;
    *bytes = n;
    return rc;
}

/* The file's size for `rows` rows and `streams` streams; false past size_t. */
static bool layout(uint64_t rows, uint64_t streams, size_t *bytes)
{
    const uint64_t most = SIZE_MAX / 2;
    uint64_t per_row = sizeof(gar_trace_row) + 2 * sizeof(uint32_t);
    if (rows > most / per_row || streams > most / sizeof(uint32_t))
        return false;
    uint64_t total = HEADER_BYTES + rows * per_row + streams * sizeof(uint32_t);
    if (total > most)
        return false;
    *bytes = (size_t)total;
    return true;
}

/* The checksum the header of the cache mapped at `map` (`bytes` long)
 * must carry: its other fields and every byte after it. */
static uint64_t header_checksum(const void *map, size_t bytes)
{
    header h;
    memcpy(&h, map, sizeof h);
    h.checksum = 0;
    uint64_t sum = gar_hash_bytes(GAR_HASH_OFFSET, &h, sizeof h);
    return gar_hash_u64(sum, gar_word_checksum((const unsigned char *)map + HEADER_BYTES,
                                               bytes - HEADER_BYTES));
}

/* Whether every row's numbers are those first appearance gives, and each
 * stream number names its id.  -GAR_E_CAPACITY when the check's memory
 * runs out, else 1 (they are) or 0. */
static int numbers_hold(const gar_trace *trace, const gar_replay_index *ix, gar_error *err)
{
    gar_key_index streams, points;
    bool ready = gar_key_index_init(&streams);
    ready = gar_key_index_init(&points) && ready;
    int rc = ready ? 1 : no_memory(err);
    for (size_t r = 0; r < trace->count && rc == 1; r++) {
        uint32_t s = gar_key_index_add(&streams, trace->row[r].stream);
        uint32_t p = gar_key_index_add(&points, trace->row[r].point);
        if (s == GAR_KEY_INDEX_NONE || p == GAR_KEY_INDEX_NONE)
            rc = no_memory(err);
        else if (s != ix->stream_of_row[r] || p != ix->point_of_row[r] ||
                 ix->stream_id[s] != trace->row[r].stream)
            rc = 0;
    }
    if (rc == 1 && (streams.count != ix->streams || points.count != ix->points))
        rc = 0;
    gar_key_index_free(&streams);
    gar_key_index_free(&points);
    return rc;
}

/* Maps `fd` and checks every part against the key.  Returns 0 with `out`
 * filled, 1 when the file is no good cache (stale, malformed), or a
 * negative error. */
static int map_checked(int fd, const char *path, uint64_t hash, uint64_t text_bytes,
                       gar_trace_cache *out, gar_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return io_error(err, path, "stat");
    if (st.st_size < HEADER_BYTES || (uint64_t)st.st_size > SIZE_MAX / 2)
        return 1;
    size_t bytes = (size_t)st.st_size;
    void *map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return io_error(err, path, "map");
    char *name = gar_malloc(strlen(path) + 1);
    if (name == NULL) {
        munmap(map, bytes);
        return no_memory(err);
    }
    memcpy(name, path, strlen(path) + 1);
    int guard = gar_mapped_guard_add(map, bytes);
    header h;
    memcpy(&h, map, sizeof h);
    size_t expect = 0;
    bool ok = memcmp(h.magic, CACHE_MAGIC, sizeof CACHE_MAGIC) == 0 &&
              h.version == CACHE_VERSION && h.row_bytes == sizeof(gar_trace_row) &&
              h.byte_order == BYTE_ORDER_MARK && h.text_hash == hash &&
              h.text_bytes == text_bytes && h.rows > 0 && h.streams > 0 && h.points > 0 &&
              h.streams <= h.rows && h.points <= h.rows &&
              (h.columns & ~(unsigned)(GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM)) == 0 &&
              layout(h.rows, h.streams, &expect) && expect == bytes &&
              h.checksum == header_checksum(map, bytes);
    if (!ok || gar_mapped_guard_cut(guard)) {
        gar_free(name);
        return unmap(map, bytes, guard, ok ? cut_error(err, path) : 1);
    }
    gar_trace_row *rows = (gar_trace_row *)(void *)((unsigned char *)map + HEADER_BYTES);
    uint32_t *stream_of_row = (uint32_t *)(void *)(rows + h.rows);
    gar_trace trace = { .row = rows, .count = (size_t)h.rows, .capacity = (size_t)h.rows,
                        .columns = h.columns };
    gar_replay_index index = {
        .rows = (size_t)h.rows,
        .stream_of_row = stream_of_row,
        .point_of_row = stream_of_row + h.rows,
        .stream_id = stream_of_row + 2 * h.rows,
        .streams = h.streams,
        .points = h.points,
    };
    int held = numbers_hold(&trace, &index, err);
    int rc = held < 0 ? held : held == 0 ? 1 : gar_trace_check(&trace, path, NULL) == 0 ? 0 : 1;
    if (gar_mapped_guard_cut(guard)) /* what was checked was partly zeros */
        rc = cut_error(err, path);
    if (rc != 0) {
        gar_free(name);
        return unmap(map, bytes, guard, rc);
    }
    *out = (gar_trace_cache){ .map = map, .bytes = bytes, .guard = guard, .path = name,
                              .trace = trace, .index = index };
    return 0;
}

/* Writes all of `n` bytes. */
static int put(int fd, const void *data, size_t n, const char *path, gar_error *err)
{
    const unsigned char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return io_error(err, path, "write");
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads all of `n` bytes at `offset`. */
static int get(int fd, void *data, size_t n, uint64_t offset, const char *path, gar_error *err)
{
    unsigned char *p = data;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)offset);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return io_error(err, path, "read back");
        p += r;
        n -= (size_t)r;
        offset += (uint64_t)r;
    }
    return 0;
}

/* One pass over the rows written to `fd`, numbering one key of each row
 * (its stream, or its point) by first appearance and writing the numbers
 * after what is there; for streams, each number's id into *ids.  Returns 0
 * or an error. */
static int write_numbers(int fd, const char *path, uint64_t rows, bool streams_pass,
                         uint32_t **ids, uint32_t *count, gar_error *err)
{
    gar_trace_row *block = gar_malloc(ROWS_A_BLOCK * sizeof *block);
    uint32_t *numbers = gar_malloc(ROWS_A_BLOCK * sizeof *numbers);
    gar_key_index keys;
    bool ready = gar_key_index_init(&keys);
    int rc = block != NULL && numbers != NULL && ready ? 0 : no_memory(err);
    size_t room = 0;
    for (uint64_t at = 0; at < rows && rc == 0; at += ROWS_A_BLOCK) {
        size_t n = rows - at < ROWS_A_BLOCK ? (size_t)(rows - at) : ROWS_A_BLOCK;
        rc = get(fd, block, n * sizeof *block, HEADER_BYTES + at * sizeof *block, path, err);
        for (size_t j = 0; j < n && rc == 0; j++) {
            uint64_t key = streams_pass ? block[j].stream : block[j].point;
            size_t before = keys.count;
            numbers[j] = gar_key_index_add(&keys, key);
            if (numbers[j] == GAR_KEY_INDEX_NONE) {
                rc = no_memory(err);
            } else if (streams_pass && keys.count > before) {
                if (keys.count > room) {
                    size_t more = room > 0 ? 2 * room : 64;
                    uint32_t *grown = gar_realloc(*ids, more * sizeof *grown);
                    if (grown == NULL) {
                        rc = no_memory(err);
                        break;
                    }
                    *ids = grown;
                    room = more;
                }
                (*ids)[numbers[j]] = block[j].stream;
            }
        }
        if (rc == 0)
            rc = put(fd, numbers, n * sizeof *numbers, path, err);
    }
    *count = (uint32_t)keys.count;
    gar_key_index_free(&keys);
    gar_free(block);
    gar_free(numbers);
    return rc;
}

/* Reads the cache written to `fd` back, its header's checksum left 0,
 * and sets that checksum. */
static int write_checksum(int fd, const char *path, gar_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return io_error(err, path, "stat");
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return io_error(err, path, "map");
    int guard = gar_mapped_guard_add(map, (size_t)st.st_size);
    uint64_t sum = header_checksum(map, (size_t)st.st_size);
    bool cut = gar_mapped_guard_cut(guard);
    unmap(map, (size_t)st.st_size, guard, 0);
    if (cut)
        return cut_error(err, path);
    if (pwrite(fd, &sum, sizeof sum, offsetof(header, checksum)) != (ssize_t)sizeof sum)
        return io_error(err, path, "write");
    return 0;
}

/* Builds the cache of the text into `fd` (empty, open to read and write),
 * the text read as a stream.  Returns 0, or the text's refusal or read
 * error (*text_failed set), or an error of the cache's writing or memory. */
static int build(int fd, const char *path, const char *text_path, uint64_t hash,
                 uint64_t text_bytes, bool *text_failed, gar_error *err)
{
    header h;
    memset(&h, 0, sizeof h);
    int rc = put(fd, &h, sizeof h, path, err);
    gar_trace_stream *s = NULL;
    if (rc == 0 && (rc = gar_trace_stream_open(&s, text_path, err)) < 0)
        *text_failed = true;
    uint64_t rows = 0;
    const gar_trace_row *block;
    size_t count;
    while (rc == 0) {
        if ((rc = gar_trace_stream_next(s, &block, &count)) <= 0) {
            *text_failed = rc < 0;
            break;
        }
        rc = put(fd, block, count * sizeof *block, path, err);
        rows += count;
    }
    unsigned columns = s != NULL ? gar_trace_stream_columns(s) : 0;
    gar_trace_stream_close(s);
    uint32_t *ids = NULL, streams = 0, points = 0;
    if (rc == 0)
        rc = write_numbers(fd, path, rows, true, &ids, &streams, err);
    if (rc == 0)
        rc = write_numbers(fd, path, rows, false, NULL, &points, err);
    if (rc == 0)
        rc = put(fd, ids, streams * sizeof *ids, path, err);
    gar_free(ids);
    if (rc < 0)
        return rc;
    memcpy(h.magic, CACHE_MAGIC, sizeof CACHE_MAGIC);
    h.version = CACHE_VERSION;
    h.row_bytes = sizeof(gar_trace_row);
    h.byte_order = BYTE_ORDER_MARK;
    h.text_hash = hash;
    h.text_bytes = text_bytes;
    h.rows = rows;
    h.columns = columns;
    h.streams = streams;
    h.points = points;
    if (pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        return io_error(err, path, "write");
    return write_checksum(fd, path, err);
}

/* Built where no cache may be written: a private file, unlinked at once. */
static int build_private(gar_trace_cache *out, const char *text_path, uint64_t hash,
                         uint64_t text_bytes, bool *text_failed, gar_error *err)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    static const char name[] = "/gar-trace-cache.XXXXXX";
    char *path = gar_malloc(strlen(dir) + sizeof name);
    if (path == NULL)
        return no_memory(err);
    memcpy(path, dir, strlen(dir));
    memcpy(path + strlen(dir), name, sizeof name);
    int fd = mkstemp(path);
    int rc = 0;
    if (fd < 0) {
        rc = io_error(err, path, "create a private trace cache");
    } else {
        unlink(path); /* gone with the last descriptor or mapping */
        rc = build(fd, path, text_path, hash, text_bytes, text_failed, err);
        if (rc == 0 && (rc = map_checked(fd, path, hash, text_bytes, out, err)) == 1)
            rc = gar_error_set(err, GAR_E_IO, 3, path, "read back", "the cache just built differs");
        close(fd);
    }
    gar_free(path);
    if (rc == 0)
        out->how = GAR_TRACE_CACHE_PRIVATE;
    return rc;
}

/* Opens `path` and maps it if it is a good cache: 0, 1 (there is none),
 * 2 (there is one, unreadable, stale or malformed), or an error. */
static int map_existing(const char *path, uint64_t hash, uint64_t text_bytes,
                        gar_trace_cache *out, gar_error *err)
{
    /* A FIFO, device or folder there is refused, not replaced: it is not
     * a cache of ours, and opening a FIFO would wait for a writer. */
    static const char what[] = "gar's trace cache (move that away)";
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? 1 : 2;
    if (!S_ISREG(st.st_mode))
        return not_regular(path, st.st_mode, what, err);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 2; /* unreadable: built anew */
    int rc = map_checked(fd, path, hash, text_bytes, out, err);
    close(fd);
    return rc == 1 ? 2 : rc;
}

/* The temporary name's suffix beside `where`, carrying this process as its
 * owner, ".tmp-PID-HOST-XXXXXX"; and the temporaries of builds killed
 * before they renamed theirs (their owner gone) removed. */
static void temp_suffix_and_clean(const char *where, char *suffix, size_t size)
{
    char owner[GAR_LEFTOVER_OWNER_BYTES];
    gar_leftover_owner(owner);
    snprintf(suffix, size, ".tmp-%s-XXXXXX", owner);
    const char *slash = strrchr(where, '/');
    const char *name = slash != NULL ? slash + 1 : where;
    size_t dir_len = slash != NULL ? (size_t)(slash - where) : 0;
    char *dir = gar_malloc(dir_len + 2);
    char *prefix = gar_malloc(strlen(name) + sizeof ".tmp-");
    if (dir != NULL && prefix != NULL) {
        if (slash != NULL) {
            memcpy(dir, where, dir_len);
            dir[dir_len] = '\0';
            if (dir_len == 0) /* a cache at the root */
                memcpy(dir, "/", 2);
        } else {
            memcpy(dir, ".", 2);
        }
        memcpy(prefix, name, strlen(name));
        memcpy(prefix + strlen(name), ".tmp-", sizeof ".tmp-");
        gar_leftover_clean(dir, prefix, NULL);
    }
    gar_free(dir);
    gar_free(prefix);
}

/* Builds the cache at `where` through a temporary file renamed onto it,
 * and maps it.  Returns 0, or as build, or -GAR_E_IO where the cache
 * cannot be written there or read back. */
static int build_beside(gar_trace_cache *out, const char *where, const char *text_path,
                        uint64_t hash, uint64_t text_bytes, bool *text_failed, gar_error *err)
{
    gar_atomic_file f;
    char suffix[GAR_LEFTOVER_OWNER_BYTES + 16];
    temp_suffix_and_clean(where, suffix, sizeof suffix);
    int rc = gar_atomic_file_begin(&f, where, suffix, err);
    if (rc < 0)
        return rc;
    rc = build(f.fd, f.temp, text_path, hash, text_bytes, text_failed, err);
    if (rc == 0)
        rc = gar_atomic_file_sync(&f, err);
    if (rc == 0)
        rc = gar_atomic_file_commit(&f, "replace the trace cache", err);
    rc = gar_atomic_file_end(&f, rc);
    if (rc == 0 && (rc = map_existing(where, hash, text_bytes, out, err)) > 0)
        rc = gar_error_set(err, GAR_E_IO, 3, where, "read back",
                           "the cache just built differs (replaced meanwhile?)");
    return rc;
}

int gar_trace_cache_open(gar_trace_cache *out, const char *text_path, const char *cache_path,
                         gar_error *err)
{
    if (out == NULL || text_path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_cache_open",
                             out == NULL ? "out" : "text_path", "is NULL");
    memset(out, 0, sizeof *out);
    char *path = cache_path != NULL ? NULL : gar_trace_cache_path(text_path);
    const char *where = cache_path != NULL ? cache_path : path;
    if (where == NULL)
        return no_memory(err);
    uint64_t hash = 0, text_bytes = 0;
    int rc = text_key(text_path, &hash, &text_bytes, err);
    int found = rc == 0 ? map_existing(where, hash, text_bytes, out, err) : rc;
    if (found == 0) {
        out->how = GAR_TRACE_CACHE_REUSED;
    } else if (found > 0) {
        /* Missing, or unreadable, stale or malformed: build it anew beside
         * the text, or privately where that cannot be written. */
        bool text_failed = false;
        rc = build_beside(out, where, text_path, hash, text_bytes, &text_failed, err);
        if (rc == 0)
            out->how = found == 1 ? GAR_TRACE_CACHE_BUILT : GAR_TRACE_CACHE_REBUILT;
        /* Any failure to write it (a full disk or quota, an I/O error, a
         * folder that cannot be written): built privately, else none. */
        if (rc == -GAR_E_IO && !text_failed)
            rc = build_private(out, text_path, hash, text_bytes, &text_failed, err);
        if (rc == -GAR_E_IO && !text_failed) {
            memset(out, 0, sizeof *out);
            out->how = GAR_TRACE_CACHE_NONE;
            rc = 0;
        }
    } else {
        rc = found;
    }
    gar_free(path);
    if (rc < 0)
        memset(out, 0, sizeof *out);
    return rc;
}

int gar_trace_cache_intact(const gar_trace_cache *cache, gar_error *err)
{
    if (cache == NULL || cache->map == NULL || !gar_mapped_guard_cut(cache->guard))
        return 0;
    return cut_error(err, cache->path);
}

void gar_trace_cache_close(gar_trace_cache *cache)
{
    if (cache == NULL || cache->map == NULL)
        return;
    unmap(cache->map, cache->bytes, cache->guard, 0);
    gar_free(cache->path);
    memset(cache, 0, sizeof *cache);
}
