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

void tablew_jkey_(tablew_t *t)
{
    if (t->col == 0) {
        if (!t->in_rows)
            open_rows(t);
        o_str(t->o, t->rows ? ",\n{\"" : "\n{\"");
    } else {
        o_str(t->o, ", \"");
    }
    o_str(t->o, t->cols[t->col].name);
    o_str(t->o, "\": ");
}

void tablew_end(tablew_t *t)
{
    assert(t->col == 0 && "the last row was not ended");
    if (t->fmt == TABLEW_CSV)
        return;
    if (!t->in_rows)
        open_rows(t);
    o_str(t->o, "\n]}\n");
}

void tablew_csv_str_(out_t *o, const char *s)
{
    size_t n = strlen(s);
    if (strcspn(s, ",\"\r\n") == n) {
        o_mem(o, s, n);
        return;
    }
    o_chr(o, '"');
    for (; *s; s++) {
        if (*s == '"')
            o_chr(o, '"');
        o_chr(o, *s);
    }
    o_chr(o, '"');
}

void tablew_num(tablew_t *t, double v)
{
    assert(t->col < t->ncols && "more fields than columns");
    const tablew_col_t *c = &t->cols[t->col];
    assert((c->kind == TABLEW_GEN || c->kind == TABLEW_FIX) && "a number needs a GEN or FIX column");
    tablew_field_(t, c->kind);
    if (t->fmt == TABLEW_JSON && !isfinite(v)) {
        o_str(t->o, "null");
        return;
    }
    char b[400]; /* %.Nf of the largest finite double */
    snprintf(b, sizeof(b), c->kind == TABLEW_FIX ? "%.*f" : "%.*g", c->prec, v);
    o_str(t->o, b);
}
