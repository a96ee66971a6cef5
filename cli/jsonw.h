/* jsonw.h: the one JSON value writer of the phasor command: strings and numbers, to a FILE
 * or to the buffered out_t (phasor_out.h wraps these as o_jstr, o_jnum). Every JSON output
 * escapes strings here, so that a path or host name with control characters or bytes that
 * are not UTF-8 still gives a document strict parsers accept. */
#ifndef JSONW_H
#define JSONW_H

#include <stddef.h>
#include <stdio.h>

/* Where the text goes: put(sink, bytes, n). */
typedef void (*jsonw_put_fn)(void *sink, const char *s, size_t n);

/* s as a JSON string, quotes included: well-formed UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF) is kept as it is; '"', '\\' and the control
 * characters below U+0020 are escaped; every byte that does not begin a well-formed
 * sequence becomes \ufffd. NULL is written as null. */
void jsonw_str(jsonw_put_fn put, void *sink, const char *s);
void jsonw_fstr(FILE *f, const char *s);

/* A number with printf's %.<digits>g, or null when it is not finite (JSON has no NaN). */
void jsonw_num(jsonw_put_fn put, void *sink, double v, int digits);
void jsonw_fnum(FILE *f, double v, int digits);

#endif
