/* gar/api.h — GAR_API, the mark of what libgar exports.
 *
 * libgar is built with hidden symbol visibility: a function or object is
 * visible outside the shared library only when its declaration in a public
 * header carries GAR_API.  Everything else the library defines stays
 * internal, however it is named.  Code that includes the headers need not
 * do anything: the mark is harmless in a program and in the static
 * library. */
#ifndef GAR_API_H
#define GAR_API_H

#if defined(__GNUC__) || defined(__clang__)
#define GAR_API __attribute__((visibility("default")))
#else
#define GAR_API
#endif

#endif
