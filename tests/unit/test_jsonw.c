/* test_jsonw.c: the one JSON value writer (cli/jsonw.c): well-formed UTF-8 kept byte for
 * byte, control characters escaped, every byte of a malformed sequence (overlong, surrogate,
 * above U+10FFFF, cut short, a stray continuation) replaced by \ufffd, numbers as %g or
 * null. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"

typedef struct buf {
    char s[512];
    size_t n;
} buf_t;

static void put(void *sink, const char *s, size_t n)
{
    buf_t *b = sink;
    cr_assert_lt(b->n + n, sizeof(b->s));
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static const char *js(const char *s)
{
    static buf_t b;
    b.n = 0;
    b.s[0] = '\0';
    jsonw_str(put, &b, s);
    return b.s;
}

Test(jsonw, ascii_and_escapes)
{
    cr_expect_str_eq(js(""), "\"\"");
    cr_expect_str_eq(js("rank-000001.plog"), "\"rank-000001.plog\"");
    cr_expect_str_eq(js("a\"b\\c"), "\"a\\\"b\\\\c\"");
    cr_expect_str_eq(js("tab\there\nnl\x01\x1f"), "\"tab\\u0009here\\u000anl\\u0001\\u001f\"");
    cr_expect_str_eq(js("del\x7f"), "\"del\x7f\"", "DEL needs no escape in JSON");
    cr_expect_str_eq(js(NULL), "null");
}

Test(jsonw, well_formed_utf8_is_kept)
{
    const char *s[] = {"h\xc3\xb4te", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbf",
                       "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        char want[64];
        snprintf(want, sizeof(want), "\"%s\"", s[i]);
        cr_expect_str_eq(js(s[i]), want, "case %zu", i);
    }
}

Test(jsonw, malformed_bytes_become_replacement_characters)
{
    cr_expect_str_eq(js("a\xff" "b"), "\"a\\ufffdb\"");
    cr_expect_str_eq(js("\x80"), "\"\\ufffd\"", "a stray continuation byte");
    cr_expect_str_eq(js("\xc0\xaf"), "\"\\ufffd\\ufffd\"", "overlong, two bytes");
    cr_expect_str_eq(js("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"", "overlong, three bytes");
    cr_expect_str_eq(js("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"", "a surrogate");
    cr_expect_str_eq(js("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
                     "above U+10FFFF");
    cr_expect_str_eq(js("\xe2\x82"), "\"\\ufffd\\ufffd\"", "cut short at the end");
    cr_expect_str_eq(js("\xe2\x82z"), "\"\\ufffd\\ufffdz\"", "cut short before ASCII");
}

Test(jsonw, numbers)
{
    buf_t b = {.n = 0};
    jsonw_num(put, &b, 0.25, 6);
    jsonw_num(put, &b, NAN, 6);
    jsonw_num(put, &b, INFINITY, 6);
    jsonw_num(put, &b, 123456789.0, 4);
    cr_expect_str_eq(b.s, "0.25nullnull1.235e+08");
}
