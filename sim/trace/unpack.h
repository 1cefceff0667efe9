/* sim/trace/unpack.h — a file's bytes as they come, plain or gzip, to a consumer.
 *
 * The readers of gar's text inputs (traces, Kineto profiles) take a file
 * plain or gzip-compressed, told apart by content: gzip's two magic bytes
 * (0x1f 0x8b) at the start.  Several gzip members one after another
 * (`cat a.gz b.gz`) are one text, as gzip reads them; anything else after a
 * member (garbage, padding, a cut-off member header) is refused at its byte,
 * as is corrupt data and a member cut short — where zlib's gzread would stop
 * without a word.
 *
 * Use: gar_unpack_init; gar_unpack_bytes for each block read, in order;
 * gar_unpack_end always (it refuses a member left open and frees zlib).
 * The consumer gets the plain text in blocks of any size.  A fault of the
 * compressed bytes is GAR_E_INVALID_TRACE with `name` as the file, "byte N"
 * (1-based, in the compressed file) as the line and an empty column.  zlib's
 * memory comes through the allocation hook (alloc.h): a failure is
 * GAR_E_CAPACITY.  One gar_unpack per input; not shared between threads. */
#ifndef GAR_SIM_UNPACK_H
#define GAR_SIM_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include <gar/error.h>

/* Takes `len` plain bytes; returns 0 or a negative gar error (which stops
 * the unpacking and is returned by gar_unpack_bytes). */
typedef int (*gar_unpack_feed_fn)(void *context, const unsigned char *bytes, size_t len);

typedef struct gar_unpack {
    gar_unpack_feed_fn feed;
    void *context;
    const char *name;      /* the file, in errors (borrowed) */
    gar_error *err;
    bool gzip;             /* decided by the first two bytes */
    bool decided;
    bool in_member;        /* inside a gzip member */
    uint64_t members;      /* members ended */
    unsigned char head[2]; /* the first bytes of the file, or of a next member */
    size_t head_len;
    uint64_t offset;       /* compressed bytes consumed before those being fed */
    z_stream z;
    bool z_ready;
    unsigned char *out;    /* inflate's output block (owned) */
} gar_unpack;

/* Ready to take the first bytes of `name`, handing text to feed(context). */
void gar_unpack_init(gar_unpack *u, gar_unpack_feed_fn feed, void *context, const char *name,
                     gar_error *err);

/* Takes the next `len` bytes of the file.  Returns 0, the consumer's error,
 * -GAR_E_INVALID_TRACE (a gzip fault, at its byte) or -GAR_E_CAPACITY. */
int gar_unpack_bytes(gar_unpack *u, const unsigned char *bytes, size_t len);

/* Ends the file after a read that ended with `rc`: a one-byte file goes to
 * the consumer; a member left open was cut short.  Frees zlib's state.
 * Returns rc, or the refusal. */
int gar_unpack_end(gar_unpack *u, int rc);

/* Whether the bytes were gzip (known once the first two bytes came). */
bool gar_unpack_was_gzip(const gar_unpack *u);

/* zlib's allocator pair through the allocation hook, for a z_stream's
 * zalloc and zfree (the trace writer deflates with them too). */
voidpf gar_unpack_zalloc(voidpf opaque, uInt items, uInt size);
void gar_unpack_zfree(voidpf opaque, voidpf address);

#endif
