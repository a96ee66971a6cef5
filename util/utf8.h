/* utf8.h: what well-formed UTF-8 is (RFC 3629: no overlongs, no surrogates, nothing above
 * U+10FFFF), for every writer of a format that requires it (JSON: the command's writer,
 * jansson in the model file). Strings from a log (host names, paths, library versions) are
 * bytes, and are made well-formed here rather than trusted. */
#ifndef UTF8_H
#define UTF8_H

#include <stddef.h>

/* Length (2-4) of the well-formed sequence starting at p, whose first byte is >= 0x80, or
 * 0 when it does not start one. Reads no further than the first byte that breaks it, so a
 * NUL-terminated string is never overrun. */
size_t utf8_seq_len(const unsigned char *p);

/* s with every byte that does not start a well-formed sequence (and is not ASCII) replaced
 * by U+FFFD, into dst of cap bytes (NUL-terminated; cut at a character boundary when it
 * does not fit). Returns the length the whole result needs, without the NUL, as snprintf. */
size_t utf8_sanitize(char *dst, size_t cap, const char *s);

#endif
