/* phasor_out.h: a small buffered writer for the subcommands that stream large outputs
 * (dump, steps): printf per field would dominate them. Header-only so the per-field calls
 * inline. */
#ifndef PHASOR_OUT_H
#define PHASOR_OUT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"

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

static inline void o_put(void *o, const char *s, size_t len) { o_mem((out_t *)o, s, len); }

/* printf into o; a line longer than 1023 bytes is cut there (summaries, not data). */
static inline void o_fmt(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void o_fmt(out_t *o, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0)
        o_mem(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* JSON values, by the one JSON writer (jsonw.h). */
static inline void o_jstr(out_t *o, const char *s) { jsonw_str(o_put, o, s); }
static inline void o_jnum(out_t *o, double v, int digits) { jsonw_num(o_put, o, v, digits); }

#endif
