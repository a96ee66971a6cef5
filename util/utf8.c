/* utf8.c: well-formed UTF-8 (utf8.h). */
#include "utf8.h"

#include <string.h>

size_t utf8_seq_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    return n;
}

size_t utf8_sanitize(char *dst, size_t cap, const char *s)
{
    static const char repl[] = "\xef\xbf\xbd"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)s;
    size_t need = 0, used = 0;
    int full = cap == 0;
    while (*p) {
        size_t n = *p < 0x80 ? 1 : utf8_seq_len(p);
        const char *piece = n ? (const char *)p : repl;
        size_t len = n ? n : 3;
        if (!full && used + len < cap) {
            memcpy(dst + used, piece, len);
            used += len;
        } else
            full = 1;
        need += len;
        p += n ? n : 1;
    }
    if (cap > 0)
        dst[used] = '\0';
    return need;
}
