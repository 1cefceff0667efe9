/* sim/trace/unpack.c — plain or gzip bytes to a consumer (unpack.h). */
#include "sim/trace/unpack.h"

#include "sim/trace/alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { UNPACK_OUT = 1 << 16 };

#define NOT_A_MEMBER "bytes after the gzip data that are not another gzip member"

voidpf gar_unpack_zalloc(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return size != 0 && items > SIZE_MAX / size ? Z_NULL : gar_malloc((size_t)items * size);
}

void gar_unpack_zfree(voidpf opaque, voidpf address)
{
    (void)opaque;
    gar_free(address);
}

void gar_unpack_init(gar_unpack *u, gar_unpack_feed_fn feed, void *context, const char *name,
                     gar_error *err)
{
    memset(u, 0, sizeof *u);
    u->feed = feed;
    u->context = context;
    u->name = name;
    u->err = err;
}

bool gar_unpack_was_gzip(const gar_unpack *u)
{
    return u->decided && u->gzip;
}

/* A fault of the compressed file at byte `at` (0-based). */
static int refuse_gzip(gar_unpack *u, uint64_t at, const char *fault)
{
    char where[40];
    snprintf(where, sizeof where, "byte %" PRIu64, at + 1);
    return gar_error_set(u->err, GAR_E_INVALID_TRACE, 4, u->name, where, "", fault);
}

/* Inflates bytes of the open member until they are used up or the member
 * ends; sets `*used` to how many it took. */
static int inflate_bytes(gar_unpack *u, const unsigned char *bytes, size_t len, size_t *used)
{
    *used = 0;
    if (u->out == NULL && (u->out = gar_malloc(UNPACK_OUT)) == NULL)
        return gar_error_set(u->err, GAR_E_CAPACITY, 2, "gzip buffer", "out of memory");
    u->z.next_in = (unsigned char *)bytes; /* zlib's API is not const */
    u->z.avail_in = (uInt)len;
    int zr;
    do {
        u->z.next_out = u->out;
        u->z.avail_out = UNPACK_OUT;
        zr = inflate(&u->z, Z_NO_FLUSH);
        size_t made = UNPACK_OUT - u->z.avail_out;
        int rc = made > 0 ? u->feed(u->context, u->out, made) : 0;
        if (rc < 0)
            return rc;
        if (zr == Z_MEM_ERROR)
            return gar_error_set(u->err, GAR_E_CAPACITY, 2, "gzip decompression",
                                 "out of memory");
        if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && u->z.avail_in == 0)) {
            char fault[GAR_ERROR_ARG_BYTES];
            snprintf(fault, sizeof fault, "corrupt gzip data (%s)",
                     u->z.msg != NULL ? u->z.msg : "inflate failed");
            return refuse_gzip(u, u->offset + (len - u->z.avail_in), fault);
        }
        /* Z_OK with the output block full: more output may be pending. */
    } while (zr == Z_OK && u->z.avail_out == 0);
    *used = len - u->z.avail_in;
    u->offset += *used;
    if (zr == Z_STREAM_END) {
        u->in_member = false;
        u->members++;
    }
    return 0;
}

int gar_unpack_bytes(gar_unpack *u, const unsigned char *bytes, size_t len)
{
    /* zlib counts input in uInt: hand it at most that much at a time. */
    while (len > UINT32_MAX) {
        int rc = gar_unpack_bytes(u, bytes, UINT32_MAX);
        if (rc < 0)
            return rc;
        bytes += UINT32_MAX;
        len -= UINT32_MAX;
    }
    while (len > 0) {
        if (u->decided && !u->gzip)
            return u->feed(u->context, bytes, len);
        size_t used;
        int rc;
        if (u->in_member) {
            rc = inflate_bytes(u, bytes, len, &used);
            if (rc < 0)
                return rc;
            bytes += used;
            len -= used;
            continue;
        }
        /* At the file's start or after a member: two bytes say what follows. */
        u->head[u->head_len++] = *bytes++;
        len--;
        if (u->head_len == 1 && u->head[0] == 0x1f)
            continue; /* the next byte says */
        bool magic = u->head_len == 2 && u->head[1] == 0x8b;
        if (!u->decided) {
            u->decided = true;
            u->gzip = magic;
            if (!magic) {
                rc = u->feed(u->context, u->head, u->head_len);
                u->head_len = 0;
                if (rc < 0)
                    return rc;
                continue;
            }
        }
        if (!magic)
            return refuse_gzip(u, u->offset, NOT_A_MEMBER);
        if (!u->z_ready) {
            u->z.zalloc = gar_unpack_zalloc;
            u->z.zfree = gar_unpack_zfree;
        }
        int zr = u->z_ready ? inflateReset(&u->z) : inflateInit2(&u->z, 16 + MAX_WBITS);
        if (zr != Z_OK)
            return gar_error_set(u->err, GAR_E_CAPACITY, 2, "gzip decompression",
                                 "out of memory");
        u->z_ready = true;
        u->in_member = true;
        u->head_len = 0;
        rc = inflate_bytes(u, u->head, 2, &used);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gar_unpack_end(gar_unpack *u, int rc)
{
    if (rc == 0 && !u->decided && u->head_len > 0)
        rc = u->feed(u->context, u->head, u->head_len); /* a one-byte file */
    else if (rc == 0 && u->in_member)
        rc = refuse_gzip(u, u->offset, "the gzip data is cut short");
    else if (rc == 0 && u->members > 0 && u->head_len > 0)
        rc = refuse_gzip(u, u->offset, NOT_A_MEMBER);
    if (u->z_ready)
        inflateEnd(&u->z);
    u->z_ready = false;
    gar_free(u->out);
    u->out = NULL;
    return rc;
}
