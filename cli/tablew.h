/* tablew.h: the one table writer of the phasor command: a table's columns declared once
 * (name and kind), its rows written field by field, out as CSV with a header row or as one
 * JSON document, over the buffered out_t (phasor_out.h) and the one JSON writer (jsonw.h).
 *
 * CSV: the header row (the column names), then a line per row; a string is quoted
 * (RFC 4180) only when it holds a comma, a quote or a line break; a missing value is empty.
 * JSON, the same rows as objects keyed by the column names:
 *
 *   {"format": "<name>", "version": <n>[, the caller's members],
 *   "rows": [
 *   {"col": value, ...},
 *   ...
 *   ]}
 *
 * A missing value is null, a string a JSON string, a number that is not finite null.
 * Between tablew_begin and the first row the caller may write members of its own into
 * tablew_out(t), each as `, "key": value`, and name the array otherwise (tablew_rows_key).
 *
 *   tablew_row_t r = TABLEW_ROW(&t, cols);
 *   tablew_i64(&r, rank); tablew_str(&r, name); ...
 *   tablew_row_end(&r);
 *
 * A row is written through a cursor of its own, a local variable: the output buffer's
 * stores cannot alias it, so its state stays in registers (a field costs about what the
 * hand-written separator and number did). */
#ifndef TABLEW_H
#define TABLEW_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "phasor_out.h"

typedef enum tablew_kind {
    TABLEW_INT, /* integers: tablew_i64, tablew_u64 */
    TABLEW_STR, /* text: tablew_str, or tablew_open .. tablew_close */
    TABLEW_NAME, /* a name from the program's own tables (a call, an algorithm): tablew_name */
    TABLEW_GEN, /* doubles as %.<prec>g: tablew_num */
    TABLEW_FIX, /* doubles as %.<prec>f: tablew_num */
} tablew_kind_t;

typedef struct tablew_col {
    const char *name; /* letters, digits and '_' only: written as they are */
    tablew_kind_t kind;
    int prec; /* digits of TABLEW_GEN and TABLEW_FIX */
} tablew_col_t;

/* The number of columns of a column array. */
#define TABLEW_NCOLS(cols) (sizeof(cols) / sizeof((cols)[0]))

typedef enum tablew_fmt { TABLEW_CSV, TABLEW_JSON } tablew_fmt_t;

typedef struct tablew {
    out_t *o;
    tablew_fmt_t fmt;
    const tablew_col_t *cols;
    size_t ncols;
    uint64_t rows;        /* rows ended so far */
    const char *rows_key; /* JSON: the member holding the rows */
    int in_rows;          /* JSON: the rows array is open */
    int in_row;           /* a row's cursor is out */
} tablew_t;

/* The cursor of the row being written. */
typedef struct tablew_row {
    tablew_t *t;
    out_t *o;
    const tablew_col_t *cols;
    uint32_t col, ncols; /* col: the column of the next field */
    int json;
} tablew_row_t;

/* Start a table on o: the CSV header row, or the JSON document's opening
 * {"format": format, "version": version (format and version are not used for CSV). */
void tablew_begin(tablew_t *t, out_t *o, tablew_fmt_t fmt, const tablew_col_t *cols,
                  size_t ncols, const char *format, int version);
/* JSON: the name of the array holding the rows ("rows" unless set before the first row). */
static inline void tablew_rows_key(tablew_t *t, const char *key) { t->rows_key = key; }
/* Where the JSON document's own members go (between tablew_begin and the first row). */
static inline out_t *tablew_out(tablew_t *t) { return t->o; }
/* The document's end: JSON closes the array and the object; CSV writes nothing. */
void tablew_end(tablew_t *t);

/* Out of line: JSON's row opening (col 0) or separator, then the key of column col; a
 * double; a CSV string that needs quotes. */
void tablew_jkey_(tablew_t *t, uint32_t col);
void tablew_num_(out_t *o, const tablew_col_t *c, int json, double v);
void tablew_csv_quoted_(out_t *o, const char *s);
/* The bytes that end a plain CSV field: NUL, and those that need quoting. */
extern const unsigned char tablew_csv_stop_[256];

/* A new row of t, whose columns are cols (the table's own, given again so that where cols
 * is a constant array the checks of every field's kind fold away). */
static inline tablew_row_t tablew_row(tablew_t *t, const tablew_col_t *cols, size_t ncols)
{
    assert(cols == t->cols && ncols == t->ncols && "a row of the table's own columns");
    assert(!t->in_row && "the previous row was not ended");
    t->in_row = 1;
    return (tablew_row_t){t, t->o, cols, 0, (uint32_t)ncols, t->fmt == TABLEW_JSON};
}
#define TABLEW_ROW(t, cols) tablew_row((t), (cols), TABLEW_NCOLS(cols))

/* The separator (and in JSON the key) of the next field, which must be of kind k. */
static inline void tablew_field_(tablew_row_t *r, tablew_kind_t k)
{
    assert(r->col < r->ncols && "more fields than columns");
    assert(r->cols[r->col].kind == k && "field of the wrong kind for its column");
    (void)k;
    if (r->json)
        tablew_jkey_(r->t, r->col);
    else if (r->col > 0)
        o_chr(r->o, ',');
    r->col++;
}

static inline void tablew_i64(tablew_row_t *r, int64_t v)
{
    tablew_field_(r, TABLEW_INT);
    o_i64(r->o, v);
}

static inline void tablew_u64(tablew_row_t *r, uint64_t v)
{
    tablew_field_(r, TABLEW_INT);
    o_u64(r->o, v);
}

/* CSV: s as it is when plain (one pass over it), else quoted. */
static inline void tablew_csv_str_(out_t *o, const char *s)
{
    const char *p = s;
    while (!tablew_csv_stop_[(unsigned char)*p])
        p++;
    if (*p == '\0')
        o_mem(o, s, (size_t)(p - s));
    else
        tablew_csv_quoted_(o, s);
}

static inline void tablew_str(tablew_row_t *r, const char *s)
{
    tablew_field_(r, TABLEW_STR);
    if (r->json)
        o_jstr(r->o, s);
    else
        tablew_csv_str_(r->o, s);
}

/* A name of the program's own (no comma, quote or line break: CSV takes it as it is, with
 * no scan for what would need quoting), or "". */
static inline void tablew_name(tablew_row_t *r, const char *s)
{
    tablew_field_(r, TABLEW_NAME);
    if (r->json)
        o_jstr(r->o, s);
    else
        o_str(r->o, s);
}

/* A double of a TABLEW_GEN or TABLEW_FIX column. */
static inline void tablew_num(tablew_row_t *r, double v)
{
    assert(r->col < r->ncols && "more fields than columns");
    const tablew_col_t *c = &r->cols[r->col];
    assert((c->kind == TABLEW_GEN || c->kind == TABLEW_FIX) && "a number needs a GEN or FIX column");
    tablew_field_(r, c->kind);
    tablew_num_(r->o, c, r->json, v);
}

/* No value: empty in CSV, null in JSON; any kind of column. */
static inline void tablew_null(tablew_row_t *r)
{
    assert(r->col < r->ncols && "more fields than columns");
    if (r->json) {
        tablew_jkey_(r->t, r->col);
        o_str(r->o, "null");
    } else if (r->col > 0) {
        o_chr(r->o, ',');
    }
    r->col++;
}

/* A string field written in pieces to the returned out_t until tablew_close (a list joined
 * by a separator, say). The pieces are plain: no quote, backslash, comma, line break or
 * other control character (numbers, names from a fixed table), so that neither form needs
 * to escape them. */
static inline out_t *tablew_open(tablew_row_t *r)
{
    tablew_field_(r, TABLEW_STR);
    if (r->json)
        o_chr(r->o, '"');
    return r->o;
}

static inline void tablew_close(tablew_row_t *r)
{
    if (r->json)
        o_chr(r->o, '"');
}

/* The row's end: every column has had its field. */
static inline void tablew_row_end(tablew_row_t *r)
{
    assert(r->col == r->ncols && "row ended before its last column");
    o_chr(r->o, r->json ? '}' : '\n');
    r->t->rows++;
    r->t->in_row = 0;
}

#endif
