/* plog_probeset.c: gather and check the PROBE frames of a run (see plog_probeset.h). */
#include "plog_probeset.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plog_rd.h"

static int ps_same_setup(const plog_probe_info_t *a, const plog_probe_info_t *b)
{
    return a->mode == b->mode && a->nsizes == b->nsizes && a->reps == b->reps &&
           memcmp(a->sizes, b->sizes, a->nsizes * sizeof(a->sizes[0])) == 0;
}

static int ps_pooled_last(const void *x, const void *y)
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

/* Add the entries of rank r's PROBE frame f to out (capacity *cap). */
static plog_err_t ps_add_frame(plog_probeset_t *out, size_t *cap, const plog_rank_t *rk,
                               int32_t r, size_t f, plog_error_t *err)
{
    const plog_frame_ix_t *fx = &rk->frames[f];
    const char *path = rk->path;
    int64_t off = (int64_t)fx->offset;
    void *raw = NULL;
    size_t len = 0;
    plog_err_t e = plog_rank_read_frame(rk, f, &raw, &len, err);
    if (e != PLOG_OK)
        return e;
    plog_rcur_t c = {raw, (const uint8_t *)raw + len, PLOG_OK};
    plog_probe_info_t info;
    if ((e = plog_probe_get_info(&c, rk->hdr.version, &info)) != PLOG_OK) {
        e = plog_fail(err, e, path, off, "PROBE frame header");
    } else if (out->ranks > 0 && !ps_same_setup(&info, &out->info)) {
        e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                      "probe mode, sizes or repetitions differ from the other ranks'");
    } else if (fx->count > len / 68) { /* an entry is >= 4 + 64 bytes */
        e = plog_fail(err, PLOG_E_CORRUPT, path, off, "%u entries cannot fit in %zu bytes",
                      fx->count, len);
    } else {
        double el = out->ranks > 0 && out->info.elapsed_s > info.elapsed_s ? out->info.elapsed_s
                                                                            : info.elapsed_s;
        out->info = info;
        out->info.elapsed_s = el;
        out->ranks++;
        if (VEC_GROW(out->e, *cap, out->n + fx->count) != 0)
            e = plog_fail(err, PLOG_E_NOMEM, path, off, "probe entries");
        for (uint32_t k = 0; k < fx->count && e == PLOG_OK; k++) {
            plog_probe_entry_t *pe = &out->e[out->n];
            if ((e = plog_probe_get_entry(&c, &info, out->world, pe)) != PLOG_OK)
                e = plog_fail(err, e, path, off, "PROBE entry %u", k);
            else if (pe->src != r)
                e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                              "PROBE entry %u is rank %d's, in rank %d's log", k, (int)pe->src,
                              (int)r);
            else
                out->n++;
        }
        if (e == PLOG_OK && c.p != c.end)
            e = plog_fail(err, PLOG_E_CORRUPT, path, off, "%zu bytes after the last PROBE entry",
                          (size_t)(c.end - c.p));
    }
    free(raw);
    return e;
}

/* Sorted entries: a repeated key is next to its first. */
static plog_err_t ps_check_unique(const plog_run_t *run, const plog_probeset_t *ps,
                                  plog_error_t *err)
{
    for (size_t i = 1; i < ps->n; i++) {
        if (ps_pooled_last(&ps->e[i - 1], &ps->e[i]) != 0)
            continue;
        const plog_probe_entry_t *x = &ps->e[i];
        const plog_rank_t *rk = plog_run_rank(run, x->src);
        uint64_t off = 0;
        for (size_t f = 0; rk && f < rk->n_frames; f++)
            if (rk->frames[f].kind == PLOG_FRAME_PROBE)
                off = rk->frames[f].offset;
        return plog_fail(err, PLOG_E_CORRUPT, rk ? rk->path : plog_run_path(run), (int64_t)off,
                         "two PROBE entries for source %d, destination %d, way %u, size %" PRIu64,
                         (int)x->src, (int)x->dst, (unsigned)x->way, ps->info.sizes[x->size_idx]);
    }
    return PLOG_OK;
}

plog_err_t plog_probeset_load(const plog_run_t *run, plog_probeset_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->world = plog_run_world_size(run);
    size_t cap = 0;
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < out->world && e == PLOG_OK; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        int seen = 0;
        for (size_t f = 0; rk != NULL && f < rk->n_frames && e == PLOG_OK; f++) {
            if (rk->frames[f].kind != PLOG_FRAME_PROBE)
                continue;
            if (seen++)
                e = plog_fail(err, PLOG_E_CORRUPT, rk->path, (int64_t)rk->frames[f].offset,
                              "a second PROBE frame");
            else
                e = ps_add_frame(out, &cap, rk, r, f, err);
        }
    }
    if (e == PLOG_OK && out->ranks == 0)
        /* the message names the run, not a place in a file: "<path>: <detail>" */
        e = plog_fail(err, PLOG_E_MISSING, NULL, PLOG_NO_OFFSET,
                      "%s: no rank ran the network probe (PHASOR_PROBE=quick|full)",
                      plog_run_path(run));
    if (e == PLOG_OK) {
        qsort(out->e, out->n, sizeof(*out->e), ps_pooled_last);
        e = ps_check_unique(run, out, err);
    }
    if (e != PLOG_OK)
        plog_probeset_free(out);
    return e;
}

void plog_probeset_free(plog_probeset_t *ps)
{
    free(ps->e);
    memset(ps, 0, sizeof(*ps));
}
