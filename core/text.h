/* core/text.h — small text helpers shared inside core/ (core has no stdio).
 * Internal: not installed, not exported from the shared libgar, and named
 * gar__ so no one mistakes them for the public API. */
#ifndef GAR_CORE_TEXT_H
#define GAR_CORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes needed for any u64 in decimal, NUL included. */
#define GAR__U64_TEXT_BYTES 21

/* Writes `value` in decimal into `buf` (at least GAR__U64_TEXT_BYTES) and
 * returns `buf`. */
char *gar__u64_text(uint64_t value, char buf[GAR__U64_TEXT_BYTES]);

/* An output cursor over a caller's buffer with snprintf semantics: writes
 * what fits (always NUL-terminated when size > 0) and counts what the whole
 * text needs. */
typedef struct gar__text_out {
    char *buf;
    size_t size;
    size_t len; /* length the whole text needs so far */
} gar__text_out;

gar__text_out gar__text_out_make(char *buf, size_t size);
void gar__text_put(gar__text_out *out, const char *s, size_t n);
void gar__text_puts(gar__text_out *out, const char *s);
void gar__text_put_u64(gar__text_out *out, uint64_t value);

/* Puts the `n` bytes at `s` as gar shows untrusted text: printable ASCII
 * and well-formed UTF-8 (C1 controls excepted) as themselves, every other
 * byte — NUL, control bytes, DEL, a byte of no well-formed sequence — as
 * \xNN (two lowercase hex digits).  So a message stays one line of valid
 * UTF-8, whatever bytes it quotes (gar_error_show_bytes). */
void gar__text_put_shown(gar__text_out *out, const char *s, size_t n);

#endif
