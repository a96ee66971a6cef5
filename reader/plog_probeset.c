/* plog_probeset.c: gather and check the PROBE frames of a run (see plog_probeset.h). */
#include "plog_probeset.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static plog_err_t fail(plog_error_t *err, plog_err_t code, const char *path, uint64_t off,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static plog_err_t fail(plog_error_t *err, plog_err_t code, const char *path, uint64_t off,
                       const char *fmt, ...)
{
    if (err) {
        char detail[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
        err->code = code;
        err->offset = off;
        if (code == PLOG_E_MISSING) /* nothing at an offset: the run has no probe */
            snprintf(err->msg, sizeof(err->msg), "%s: %s", path, detail);
        else
            snprintf(err->msg, sizeof(err->msg), "%s: offset %llu: %s (%s)", path,
                     (unsigned long long)off, plog_strerror(code), detail);
    }
    return code;
}

static int same_setup(const plog_probe_info_t *a, const plog_probe_info_t *b)
{
    return a->mode == b->mode && a->nsizes == b->nsizes && a->reps == b->reps &&
           memcmp(a->sizes, b->sizes, a->nsizes * sizeof(a->sizes[0])) == 0;
}

static int pooled_last(const void *x, const void *y)
{
    const plog_probe_entry_t *a = x, *b = y;
    int pa = a->dst < 0, pb = b->dst < 0;
    if (pa != pb)
        return pa - pb;
    if (a->src != b->src)
        return (a->src > b->src) - (a->src < b->src);
    if (a->dst != b->dst)
        return (a->dst > b->dst) - (a->dst < b->dst);
    if (a->way != b->way)
        return (a->way > b->way) - (a->way < b->way);
    return (a->size_idx > b->size_idx) - (a->size_idx < b->size_idx);
}

plog_err_t plog_probeset_load(const plog_run_t *run, plog_probeset_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->world = plog_run_world_size(run);
    size_t cap = 0;
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < out->world && e == PLOG_OK; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (!rk)
            continue;
        int seen = 0;
        for (size_t f = 0; f < rk->n_frames && e == PLOG_OK; f++) {
            const plog_frame_ix_t *fx = &rk->frames[f];
            if (fx->kind != PLOG_FRAME_PROBE)
                continue;
            if (seen++) {
                e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset, "a second PROBE frame");
                break;
            }
            void *raw = NULL;
            size_t len = 0;
            if ((e = plog_rank_read_frame(rk, f, &raw, &len, err)) != PLOG_OK)
                break;
            plog_rcur_t c = {raw, (const uint8_t *)raw + len, PLOG_OK};
            plog_probe_info_t info;
            if ((e = plog_probe_get_info(&c, rk->hdr.version, &info)) != PLOG_OK) {
                e = fail(err, e, rk->path, fx->offset, "PROBE frame header");
            } else if (out->ranks > 0 && !same_setup(&info, &out->info)) {
                e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset,
                         "probe mode, sizes or repetitions differ from the other ranks'");
            } else if (fx->count > len / 68) { /* an entry is >= 4 + 64 bytes */
                e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset,
                         "%u entries cannot fit in %zu bytes", fx->count, len);
            } else {
                double el = out->ranks > 0 && out->info.elapsed_s > info.elapsed_s
                                ? out->info.elapsed_s : info.elapsed_s;
                out->info = info;
                out->info.elapsed_s = el;
                out->ranks++;
                if (out->n + fx->count > cap) {
                    size_t nc = cap ? cap : 64;
                    while (nc < out->n + fx->count)
                        nc *= 2;
                    plog_probe_entry_t *g = realloc(out->e, nc * sizeof(*g));
                    if (!g)
                        e = fail(err, PLOG_E_NOMEM, rk->path, fx->offset, "probe entries");
                    else {
                        out->e = g;
                        cap = nc;
                    }
                }
                for (uint32_t k = 0; k < fx->count && e == PLOG_OK; k++) {
                    plog_probe_entry_t *pe = &out->e[out->n];
                    if ((e = plog_probe_get_entry(&c, &info, out->world, pe)) != PLOG_OK)
                        e = fail(err, e, rk->path, fx->offset, "PROBE entry %u", k);
                    else if (pe->src != r)
                        e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset,
                                 "PROBE entry %u is rank %d's, in rank %d's log", k,
                                 (int)pe->src, (int)r);
                    else
                        out->n++;
                }
                if (e == PLOG_OK && c.p != c.end)
                    e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset,
                             "%zu bytes after the last PROBE entry", (size_t)(c.end - c.p));
            }
            free(raw);
        }
    }
    if (e == PLOG_OK && out->ranks == 0)
        e = fail(err, PLOG_E_MISSING, plog_run_path(run), 0,
                 "no rank ran the network probe (PHASOR_PROBE=quick|full)");
    if (e != PLOG_OK) {
        plog_probeset_free(out);
        return e;
    }
    qsort(out->e, out->n, sizeof(*out->e), pooled_last);
    for (size_t i = 1; i < out->n; i++) /* sorted: a repeated key is next to its first */
        if (pooled_last(&out->e[i - 1], &out->e[i]) == 0) {
            const plog_probe_entry_t *x = &out->e[i];
            const plog_rank_t *rk = plog_run_rank(run, x->src);
            uint64_t off = 0;
            for (size_t f = 0; rk && f < rk->n_frames; f++)
                if (rk->frames[f].kind == PLOG_FRAME_PROBE)
                    off = rk->frames[f].offset;
            fail(err, PLOG_E_CORRUPT, rk ? rk->path : plog_run_path(run), off,
                 "two PROBE entries for source %d, destination %d, way %u, size %" PRIu64,
                 (int)x->src, (int)x->dst, (unsigned)x->way, out->info.sizes[x->size_idx]);
            plog_probeset_free(out);
            return PLOG_E_CORRUPT;
        }
    return PLOG_OK;
}

void plog_probeset_free(plog_probeset_t *ps)
{
    free(ps->e);
    memset(ps, 0, sizeof(*ps));
}
