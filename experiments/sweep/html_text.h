/* experiments/sweep/html_text.h — text written into an HTML page as text.
 *
 * Trace, host and plan names come from users' files; each page the testbed
 * writes (the report, its verification and auto sections) escapes them the
 * same way, so a name never becomes markup. */
#ifndef GAR_HTML_TEXT_H
#define GAR_HTML_TEXT_H

#include <stdio.h>

/* Writes `s` to `f` with <, >, & and " as their entities. */
static inline void gar_html_text(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

#endif
