/* jsonw.c: the JSON value writer (jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <stdint.h>

#include "utf8.h"

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
        size_t n = c >= 0x80 ? utf8_seq_len(p) : 0;
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
