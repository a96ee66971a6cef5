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
 * tablew_out(t), each as `, "key": value`, and name the array otherwise (tablew_rows_key). */
#ifndef TABLEW_H
#define TABLEW_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "phasor_out.h"

typedef enum tablew_kind {
    TABLEW_INT,  /* integers: tablew_i64, tablew_u64 */
    TABLEW_STR,  /* text: tablew_str, or tablew_open .. tablew_close */
    TABLEW_GEN,  /* doubles as %.<prec>g: tablew_num */
    TABLEW_FIX,  /* doubles as %.<prec>f: tablew_num */
} tablew_kind_t;

typedef struct tablew_col {
    const char *name; /* letters, digits and '_' only: written as they are */
    tablew_kind_t kind;
    int prec; /* digits of TABLEW_GEN and TABLEW_FIX */
} tablew_col_t;

typedef enum tablew_fmt { TABLEW_CSV, TABLEW_JSON } tablew_fmt_t;

typedef struct tablew {
    out_t *o;
    tablew_fmt_t fmt;
    const tablew_col_t *cols;
    size_t ncols;
    size_t col;           /* the column of the next field; ncols: the row is complete */
    uint64_t rows;        /* rows ended so far */
    const char *rows_key; /* JSON: the member holding the rows */
    int in_rows;          /* JSON: the rows array is open */
} tablew_t;

/* Start a table on o: the CSV header row, or the JSON document's opening
 * {"format": format, "version": version (format and version are not used for CSV). */
void tablew_begin(tablew_t *t, out_t *o, tablew_fmt_t fmt, const tablew_col_t *cols,
                  size_t ncols, const char *format, int version);
/* JSON: the name of the array holding the rows ("rows" unless set before the first row). */
static inline void tablew_rows_key(tablew_t *t, const char *key) { t->rows_key = key; }
/* The document's end: JSON closes the array and the object; CSV writes nothing. */
void tablew_end(tablew_t *t);

/* Where the JSON document's own members go (between tablew_begin and the first row). */
static inline out_t *tablew_out(tablew_t *t) { return t->o; }

/* JSON: the separator and key of the next field (and the row's opening); out of line. */
void tablew_jkey_(tablew_t *t);
void tablew_csv_str_(out_t *o, const char *s);

/* The separator (and in JSON the key) of the next field, which must be of kind k. */
static inline void tablew_field_(tablew_t *t, tablew_kind_t k)
{
    assert(t->col < t->ncols && "more fields than columns");
    assert(t->cols[t->col].kind == k && "field of the wrong kind for its column");
    (void)k;
    if (t->fmt == TABLEW_CSV) {
        if (t->col > 0)
            o_chr(t->o, ',');
    } else {
        tablew_jkey_(t);
    }
    t->col++;
}

static inline void tablew_i64(tablew_t *t, int64_t v)
{
    tablew_field_(t, TABLEW_INT);
    o_i64(t->o, v);
}

static inline void tablew_u64(tablew_t *t, uint64_t v)
{
    tablew_field_(t, TABLEW_INT);
    o_u64(t->o, v);
}

static inline void tablew_str(tablew_t *t, const char *s)
{
    tablew_field_(t, TABLEW_STR);
    if (t->fmt == TABLEW_CSV)
        tablew_csv_str_(t->o, s);
    else
        o_jstr(t->o, s);
}

/* A double of a TABLEW_GEN or TABLEW_FIX column. */
void tablew_num(tablew_t *t, double v);

/* No value: empty in CSV, null in JSON; any kind of column. */
static inline void tablew_null(tablew_t *t)
{
    assert(t->col < t->ncols && "more fields than columns");
    if (t->fmt == TABLEW_CSV) {
        if (t->col > 0)
            o_chr(t->o, ',');
    } else {
        tablew_jkey_(t);
        o_str(t->o, "null");
    }
    t->col++;
}

/* A string field written in pieces to the returned out_t until tablew_close (a list joined
 * by a separator, say). The pieces are plain: no quote, backslash, comma, line break or
 * other control character (numbers, names from a fixed table), so that neither form needs
 * to escape them. */
static inline out_t *tablew_open(tablew_t *t)
{
    tablew_field_(t, TABLEW_STR);
    if (t->fmt == TABLEW_JSON)
        o_chr(t->o, '"');
    return t->o;
}

static inline void tablew_close(tablew_t *t)
{
    if (t->fmt == TABLEW_JSON)
        o_chr(t->o, '"');
}

/* The row's end: every column has had its field. */
static inline void tablew_row_end(tablew_t *t)
{
    assert(t->col == t->ncols && "row ended before its last column");
    o_chr(t->o, t->fmt == TABLEW_CSV ? '\n' : '}');
    t->col = 0;
    t->rows++;
}

#endif
