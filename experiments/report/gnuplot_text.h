/* experiments/report/gnuplot_text.h — names written into a gnuplot script so
 * that they print as they are.
 *
 * gnuplot's enhanced text reads _ ^ @ & { } ~ and \ as markup ("hta_alexnet"
 * would print "hta" with a subscript "alexnet") unless each is preceded by a
 * backslash that reaches the text.  How many backslashes that takes depends
 * on the quotes around the string: a single-quoted string keeps a backslash
 * as it is, a double-quoted one reads "\\" as one.  So there is one escape
 * for each kind of quotes, and a name must be escaped for the quotes it is
 * written between.
 *
 * Both write into `out` (`size` bytes, NUL included; a name that does not
 * fit is cut before an escape, never inside one) and return the length
 * written.  A control character (a newline in a name) becomes a
 * space: it would end the script's line. */
#ifndef GAR_GNUPLOT_TEXT_H
#define GAR_GNUPLOT_TEXT_H

#include <stddef.h>

/* For placing inside '...': markup characters get one backslash, a quote
 * is doubled (''). */
size_t gar_gnuplot_single(const char *in, char *out, size_t size);

/* For placing inside "...": markup characters get two backslashes (the
 * string reads them as one), a backslash four, a double quote \". */
size_t gar_gnuplot_double(const char *in, char *out, size_t size);

#endif
