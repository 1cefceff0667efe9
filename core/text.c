/* core/text.c — decimal numbers and a bounded output cursor, without stdio. */
#include "text.h"

#include <string.h>

char *gar__u64_text(uint64_t value, char buf[GAR__U64_TEXT_BYTES])
{
    char digits[GAR__U64_TEXT_BYTES];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < n; i++)
        buf[i] = digits[n - 1 - i];
    buf[n] = '\0';
    return buf;
}

gar__text_out gar__text_out_make(char *buf, size_t size)
{
    gar__text_out out = { buf, size, 0 };
    if (buf != NULL && size > 0)
        buf[0] = '\0';
    return out;
}

void gar__text_put(gar__text_out *out, const char *s, size_t n)
{
    if (out->buf != NULL && out->size > 0 && out->len < out->size - 1) {
        size_t room = out->size - 1 - out->len;
        size_t take = n < room ? n : room;
        memcpy(out->buf + out->len, s, take);
        out->buf[out->len + take] = '\0';
    }
    out->len += n;
}

void gar__text_puts(gar__text_out *out, const char *s)
{
    gar__text_put(out, s, strlen(s));
}

void gar__text_put_u64(gar__text_out *out, uint64_t value)
{
    char digits[GAR__U64_TEXT_BYTES];
    gar__text_puts(out, gar__u64_text(value, digits));
}

/* The length of the well-formed UTF-8 sequence at `p` (at most `left`
 * bytes), 0 when none starts there.  C1 controls (U+0080..U+009F) count as
 * none: a terminal acts on them. */
static size_t utf8_length(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        if (c == 0xc2)
            lo = 0xa0;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f; /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (left < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

void gar__text_put_shown(gar__text_out *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t plain = i;
        while (plain < n && p[plain] >= 0x20 && p[plain] < 0x7f)
            plain++;
        gar__text_put(out, s + i, plain - i);
        i = plain;
        if (i == n)
            break;
        size_t seq = p[i] >= 0x80 ? utf8_length(p + i, n - i) : 0;
        if (seq > 0) {
            gar__text_put(out, s + i, seq);
            i += seq;
        } else {
            char code[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
            gar__text_put(out, code, sizeof code);
            i++;
        }
    }
}
