/* core/text.c — decimal numbers and a bounded output cursor, without stdio. */
#include "text.h"

#include <string.h>

char *gar_u64_text(uint64_t value, char buf[GAR_U64_TEXT_BYTES])
{
    char digits[GAR_U64_TEXT_BYTES];
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

gar_text_out gar_text_out_make(char *buf, size_t size)
{
    gar_text_out out = { buf, size, 0 };
    if (buf != NULL && size > 0)
        buf[0] = '\0';
    return out;
}

void gar_text_put(gar_text_out *out, const char *s, size_t n)
{
    if (out->buf != NULL && out->size > 0 && out->len < out->size - 1) {
        size_t room = out->size - 1 - out->len;
        size_t take = n < room ? n : room;
        memcpy(out->buf + out->len, s, take);
        out->buf[out->len + take] = '\0';
    }
    out->len += n;
}

void gar_text_puts(gar_text_out *out, const char *s)
{
    gar_text_put(out, s, strlen(s));
}

void gar_text_put_u64(gar_text_out *out, uint64_t value)
{
    char digits[GAR_U64_TEXT_BYTES];
    gar_text_puts(out, gar_u64_text(value, digits));
}
