/* experiments/sweep/format.h — snprintf for labels and captions that may be cut.
 *
 * Names, labels and captions are written into fixed buffers sized for any
 * sane input; a longer one is cut rather than overflowed.  Going through a
 * va_list says so to the compiler, which otherwise warns at every call
 * whose inputs could, in theory, exceed the buffer. */
#ifndef GAR_FORMAT_H
#define GAR_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int gar_format(char *buf, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(buf, size, format, ap);
    va_end(ap);
    return n;
}

#endif
