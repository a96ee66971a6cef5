/* test_tablew.c: the table writer (cli/tablew.c): the CSV header and rows, quoting only
 * where a string needs it, an empty field for a missing value; the JSON document (format,
 * version, the caller's members, rows as objects keyed by the columns, null for a missing
 * or non-finite value, the rows array named as asked, empty when there are no rows); the
 * same table in both forms. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tablew.h"

static const tablew_col_t cols[] = {{"id", TABLEW_INT, 0},   {"name", TABLEW_NAME, 0},
                                    {"text", TABLEW_STR, 0}, {"x", TABLEW_GEN, 3},
                                    {"q", TABLEW_FIX, 1},    {"list", TABLEW_STR, 0}};

/* The output of fn(t) as a string (freed by the caller). */
static char *render(tablew_fmt_t fmt, void (*fn)(tablew_t *t))
{
    static out_t o;
    char *mem = NULL;
    size_t len = 0;
    o.f = open_memstream(&mem, &len);
    o.n = 0;
    cr_assert_not_null(o.f);
    tablew_t t;
    tablew_begin(&t, &o, fmt, cols, TABLEW_NCOLS(cols), "phasor-test", 3);
    fn(&t);
    tablew_end(&t);
    o_flush(&o);
    fclose(o.f);
    return mem;
}

static void two_rows(tablew_t *t)
{
    tablew_row_t r = TABLEW_ROW(t, cols);
    tablew_i64(&r, -7);
    tablew_name(&r, "ring");
    tablew_str(&r, "plain");
    tablew_num(&r, 0.1234567);
    tablew_num(&r, 2.25);
    out_t *o = tablew_open(&r);
    o_u64(o, 1);
    o_chr(o, ';');
    o_u64(o, 2);
    tablew_close(&r);
    tablew_row_end(&r);
    r = TABLEW_ROW(t, cols);
    tablew_u64(&r, UINT64_MAX);
    tablew_null(&r);
    tablew_str(&r, "a,b \"c\"\nd");
    tablew_num(&r, NAN);
    tablew_null(&r);
    tablew_open(&r);
    tablew_close(&r);
    tablew_row_end(&r);
}

static void no_rows(tablew_t *t) { (void)t; }

static void members_and_key(tablew_t *t)
{
    if (t->fmt == TABLEW_JSON) /* the document's own members: JSON only */
        o_str(tablew_out(t), ", \"mode\": \"quick\"");
    tablew_rows_key(t, "entries");
    tablew_row_t r = TABLEW_ROW(t, cols);
    tablew_i64(&r, 1);
    tablew_name(&r, "");
    tablew_str(&r, "");
    tablew_num(&r, 1e300 * 1e300);
    tablew_num(&r, -0.05);
    tablew_null(&r);
    tablew_row_end(&r);
}

Test(tablew, csv)
{
    char *s = render(TABLEW_CSV, two_rows);
    cr_expect_str_eq(s, "id,name,text,x,q,list\n"
                        "-7,ring,plain,0.123,2.2,1;2\n"
                        "18446744073709551615,,\"a,b \"\"c\"\"\nd\",nan,,\n");
    free(s);
    s = render(TABLEW_CSV, no_rows);
    cr_expect_str_eq(s, "id,name,text,x,q,list\n");
    free(s);
}

Test(tablew, json)
{
    char *s = render(TABLEW_JSON, two_rows);
    cr_expect_str_eq(s, "{\"format\": \"phasor-test\", \"version\": 3,\n\"rows\": [\n"
                        "{\"id\": -7, \"name\": \"ring\", \"text\": \"plain\", \"x\": 0.123, "
                        "\"q\": 2.2, \"list\": \"1;2\"},\n"
                        "{\"id\": 18446744073709551615, \"name\": null, "
                        "\"text\": \"a,b \\\"c\\\"\\u000ad\", \"x\": null, \"q\": null, "
                        "\"list\": \"\"}\n]}\n");
    free(s);
    s = render(TABLEW_JSON, no_rows);
    cr_expect_str_eq(s, "{\"format\": \"phasor-test\", \"version\": 3,\n\"rows\": [\n]}\n");
    free(s);
}

Test(tablew, json_members_and_rows_key)
{
    char *s = render(TABLEW_JSON, members_and_key);
    cr_expect_str_eq(s, "{\"format\": \"phasor-test\", \"version\": 3, \"mode\": \"quick\",\n"
                        "\"entries\": [\n{\"id\": 1, \"name\": \"\", \"text\": \"\", "
                        "\"x\": null, \"q\": -0.1, \"list\": null}\n]}\n");
    free(s);
    s = render(TABLEW_CSV, members_and_key);
    cr_expect_str_eq(s, "id,name,text,x,q,list\n1,,,inf,-0.1,\n");
    free(s);
}

/* Misuse is caught by the asserts: a field of the wrong kind, a row cut short. */
static void wrong_kind(tablew_t *t)
{
    tablew_row_t r = TABLEW_ROW(t, cols);
    tablew_name(&r, "not an id");
}

static void short_row(tablew_t *t)
{
    tablew_row_t r = TABLEW_ROW(t, cols);
    tablew_i64(&r, 1);
    tablew_row_end(&r);
}

Test(tablew, wrong_kind_aborts, .signal = SIGABRT)
{
    free(render(TABLEW_CSV, wrong_kind));
}

Test(tablew, short_row_aborts, .signal = SIGABRT)
{
    free(render(TABLEW_CSV, short_row));
}
