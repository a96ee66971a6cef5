/* jsonw.c: the JSON value writer (jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at p (p[0] >= 0x80), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
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

void jsonw_str(jsonw_put_fn put, void *sink, const char *s)
{
    if (s == NULL) {
        put(sink, "null", 4);
        return;
    }
    const unsigned char *p = (const unsigned char *)s, *run = p;
    put(sink, "\"", 1);
    for (;;) {
        unsigned c = *p;
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            p++;
            continue;
        }
        size_t n = c >= 0x80 ? utf8_len(p) : 0;
        if (n > 0) {
            p += n;
            continue;
        }
        if (p > run)
            put(sink, (const char *)run, (size_t)(p - run));
        if (c == 0)
            break;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(sink, e, 2);
        } else {
            static const char hex[] = "0123456789abcdef";
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            if (c >= 0x80)
                put(sink, "\\ufffd", 6);
            else
                put(sink, e, 6);
        }
        run = ++p;
    }
    put(sink, "\"", 1);
}

void jsonw_num(jsonw_put_fn put, void *sink, double v, int digits)
{
    if (!isfinite(v)) {
        put(sink, "null", 4);
        return;
    }
    char tmp[40];
    int n = snprintf(tmp, sizeof(tmp), "%.*g", digits, v);
    put(sink, tmp, (size_t)n);
}

static void put_file(void *sink, const char *s, size_t n)
{
    fwrite(s, 1, n, (FILE *)sink);
}

void jsonw_fstr(FILE *f, const char *s) { jsonw_str(put_file, f, s); }

void jsonw_fnum(FILE *f, double v, int digits) { jsonw_num(put_file, f, v, digits); }
