/* experiments/report/gnuplot_text.c — escaping names for gnuplot's strings. */
#include "report/gnuplot_text.h"

#include <string.h>

/* The characters enhanced text reads as markup. */
static const char markup[] = "_^@&{}~\\";

/* Writes `piece` (`n` bytes) when it fits with the NUL; returns whether it did. */
static int put(char *out, size_t size, size_t *at, const char *piece, size_t n)
{
    if (*at + n + 1 > size)
        return 0;
    memcpy(out + *at, piece, n);
    *at += n;
    return 1;
}

static size_t escape(const char *in, char *out, size_t size, int doubled)
{
    size_t at = 0;
    if (size == 0)
        return 0;
    for (; *in != '\0'; in++) {
        char c = (unsigned char)*in < 0x20 || *in == 0x7f ? ' ' : *in;
        char piece[6];
        size_t n = 0;
        if (c == '\\' && doubled) {
            memcpy(piece, "\\\\\\\\", 4); /* "\\\\": the string's \\, then the text's \ */
            n = 4;
        } else if (strchr(markup, c) != NULL) {
            piece[n++] = '\\';
            if (doubled)
                piece[n++] = '\\';
        } else if (c == '\'' && !doubled) {
            piece[n++] = '\'';
        } else if (c == '"' && doubled) {
            piece[n++] = '\\';
        }
        if (!(c == '\\' && doubled))
            piece[n++] = c;
        if (!put(out, size, &at, piece, n))
            break;
    }
    out[at] = '\0';
    return at;
}

size_t gar_gnuplot_single(const char *in, char *out, size_t size)
{
    return escape(in, out, size, 0);
}

size_t gar_gnuplot_double(const char *in, char *out, size_t size)
{
    return escape(in, out, size, 1);
}
