/* phasor_out.h: a small buffered writer for the subcommands that stream large outputs
 * (dump, steps): printf per field would dominate them. Header-only so the per-field calls
 * inline. */
#ifndef PHASOR_OUT_H
#define PHASOR_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct out {
    FILE *f;
    size_t n;
    char buf[1 << 16];
} out_t;

static inline void o_flush(out_t *o)
{
    if (o->n > 0)
        fwrite(o->buf, 1, o->n, o->f);
    o->n = 0;
}

static inline void o_mem(out_t *o, const char *s, size_t len)
{
    if (len > sizeof(o->buf) - o->n) {
        o_flush(o);
        if (len > sizeof(o->buf)) {
            fwrite(s, 1, len, o->f);
            return;
        }
    }
    memcpy(o->buf + o->n, s, len);
    o->n += len;
}

static inline void o_str(out_t *o, const char *s) { o_mem(o, s, strlen(s)); }

static inline void o_chr(out_t *o, char c)
{
    if (o->n == sizeof(o->buf))
        o_flush(o);
    o->buf[o->n++] = c;
}

static inline void o_u64(out_t *o, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof(tmp);
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    o_mem(o, tmp + i, sizeof(tmp) - i);
}

static inline void o_i64(out_t *o, int64_t v)
{
    if (v < 0) {
        o_chr(o, '-');
        o_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        o_u64(o, (uint64_t)v);
    }
}

/* A JSON string: escapes quotes, backslashes and control characters; bytes that are not
 * UTF-8 become U+FFFD so that strict parsers accept the document. */
static inline void o_jstr(out_t *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    o_chr(o, '"');
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            o_chr(o, '\\');
            o_chr(o, (char)c);
            p++;
        } else if (c < 0x20) {
            char tmp[8];
            snprintf(tmp, sizeof(tmp), "\\u%04x", c);
            o_str(o, tmp);
            p++;
        } else if (c < 0x80) {
            o_chr(o, (char)c);
            p++;
        } else {
            size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            size_t k = 1;
            while (len && k < len && (p[k] & 0xc0) == 0x80)
                k++;
            if (len == 0 || k != len) {
                o_str(o, "\\ufffd");
                p++;
            } else {
                o_mem(o, (const char *)p, len);
                p += len;
            }
        }
    }
    o_chr(o, '"');
}

#endif
