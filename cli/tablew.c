/* tablew.c: the table writer's header row, JSON framing, CSV quoting and numbers
 * (tablew.h). */
#include "tablew.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Column names go out unescaped in both forms. */
static int plain_name(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

void tablew_begin(tablew_t *t, out_t *o, tablew_fmt_t fmt, const tablew_col_t *cols,
                  size_t ncols, const char *format, int version)
{
    assert(ncols > 0);
    *t = (tablew_t){.o = o, .fmt = fmt, .cols = cols, .ncols = ncols, .rows_key = "rows"};
    for (size_t i = 0; i < ncols; i++) {
        assert(plain_name(cols[i].name) && "a column name needs no quoting");
        assert(cols[i].prec >= 0 && cols[i].prec <= 17); /* %.17g round-trips any double */
    }
    if (fmt == TABLEW_CSV) {
        for (size_t i = 0; i < ncols; i++) {
            if (i > 0)
                o_chr(o, ',');
            o_str(o, cols[i].name);
        }
        o_chr(o, '\n');
        return;
    }
    o_str(o, "{\"format\": ");
    o_jstr(o, format);
    o_str(o, ", \"version\": ");
    o_i64(o, version);
}

static void open_rows(tablew_t *t)
{
    assert(plain_name(t->rows_key));
    o_str(t->o, ",\n\"");
    o_str(t->o, t->rows_key);
    o_str(t->o, "\": [");
    t->in_rows = 1;
}

void tablew_jkey_(tablew_t *t, uint32_t col)
{
    if (col == 0) {
        if (!t->in_rows)
            open_rows(t);
        o_str(t->o, t->rows ? ",\n{\"" : "\n{\"");
    } else {
        o_str(t->o, ", \"");
    }
    o_str(t->o, t->cols[col].name);
    o_str(t->o, "\": ");
}

void tablew_end(tablew_t *t)
{
    assert(!t->in_row && "the last row was not ended");
    if (t->fmt == TABLEW_CSV)
        return;
    if (!t->in_rows)
        open_rows(t);
    o_str(t->o, "\n]}\n");
}

const unsigned char tablew_csv_stop_[256] = {[0] = 1, [','] = 1, ['"'] = 1, ['\n'] = 1,
                                             ['\r'] = 1};

void tablew_csv_quoted_(out_t *o, const char *s)
{
    o_chr(o, '"');
    for (; *s; s++) {
        if (*s == '"')
            o_chr(o, '"');
        o_chr(o, *s);
    }
    o_chr(o, '"');
}

void tablew_num_(out_t *o, const tablew_col_t *c, int json, double v)
{
    if (json && !isfinite(v)) {
        o_str(o, "null");
        return;
    }
    char b[400]; /* %.Nf of the largest finite double */
    snprintf(b, sizeof(b), c->kind == TABLEW_FIX ? "%.*f" : "%.*g", c->prec, v);
    o_str(o, b);
}
