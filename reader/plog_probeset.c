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

/* One PROBE frame of a rank, decompressed, its header read: the entries follow at c. */
typedef struct ps_frame {
    const plog_rank_t *rk;
    size_t f;
    void *raw;
    size_t len;
    plog_rcur_t c;
    plog_probe_info_t info;
    plog_probe_when_t when;
} ps_frame_t;

static plog_err_t ps_frame_open(const plog_rank_t *rk, size_t f, ps_frame_t *fr,
                                plog_error_t *err)
{
    memset(fr, 0, sizeof(*fr));
    fr->rk = rk;
    fr->f = f;
    plog_err_t e = plog_rank_read_frame(rk, f, &fr->raw, &fr->len, err);
    if (e != PLOG_OK)
        return e;
    fr->c = (plog_rcur_t){fr->raw, (const uint8_t *)fr->raw + fr->len, PLOG_OK};
    if ((e = plog_probe_get_info(&fr->c, rk->hdr.version, &fr->info, &fr->when)) != PLOG_OK) {
        e = plog_fail(err, e, rk->path, (int64_t)rk->frames[f].offset, "PROBE frame header");
        free(fr->raw);
        fr->raw = NULL;
    }
    return e;
}

/* Add the entries of rank r's open PROBE frame fr to out (capacity *cap); frees the frame.
 * Every entry is r's and none repeats another's key (checked here, where the file offset is
 * the frame's). */
static plog_err_t ps_add_frame(plog_probeset_t *out, size_t *cap, int32_t r, ps_frame_t *fr,
                               plog_error_t *err)
{
    const plog_frame_ix_t *fx = &fr->rk->frames[fr->f];
    const char *path = fr->rk->path;
    int64_t off = (int64_t)fx->offset;
    const plog_probe_info_t *info = &fr->info;
    plog_err_t e = PLOG_OK;
    size_t first = out->n;
    if (out->ranks > 0 && !ps_same_setup(info, &out->info)) {
        e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                      "probe mode, sizes or repetitions differ from the other ranks'");
    } else if (fx->count > fr->len / 68) { /* an entry is >= 4 + 64 bytes */
        e = plog_fail(err, PLOG_E_CORRUPT, path, off, "%u entries cannot fit in %zu bytes",
                      fx->count, fr->len);
    } else {
        double el = out->ranks > 0 && out->info.elapsed_s > info->elapsed_s ? out->info.elapsed_s
                                                                             : info->elapsed_s;
        out->info = *info;
        out->info.elapsed_s = el;
        out->ranks++;
        if (VEC_GROW(out->e, *cap, out->n + fx->count) != 0)
            e = plog_fail(err, PLOG_E_NOMEM, path, off, "probe entries");
        for (uint32_t k = 0; k < fx->count && e == PLOG_OK; k++) {
            plog_probe_entry_t *pe = &out->e[out->n];
            if ((e = plog_probe_get_entry(&fr->c, info, out->world, pe)) != PLOG_OK)
                e = plog_fail(err, e, path, off, "PROBE entry %u", k);
            else if (pe->src != r)
                e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                              "PROBE entry %u is rank %d's, in rank %d's log", k, (int)pe->src,
                              (int)r);
            else
                out->n++;
        }
        if (e == PLOG_OK && fr->c.p != fr->c.end)
            e = plog_fail(err, PLOG_E_CORRUPT, path, off, "%zu bytes after the last PROBE entry",
                          (size_t)(fr->c.end - fr->c.p));
    }
    if (e == PLOG_OK) { /* sorted: a repeated key is next to its first */
        qsort(out->e + first, out->n - first, sizeof(*out->e), ps_pooled_last);
        for (size_t i = first + 1; i < out->n && e == PLOG_OK; i++) {
            const plog_probe_entry_t *x = &out->e[i];
            if (ps_pooled_last(&out->e[i - 1], x) == 0)
                e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                              "two PROBE entries for source %d, destination %d, way %u, size %" PRIu64,
                              (int)x->src, (int)x->dst, (unsigned)x->way,
                              out->info.sizes[x->size_idx]);
        }
    }
    free(fr->raw);
    fr->raw = NULL;
    return e;
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
            if (seen++ && rk->hdr.version < 10) {
                e = plog_fail(err, PLOG_E_CORRUPT, rk->path, (int64_t)rk->frames[f].offset,
                              "a second PROBE frame");
                break;
            }
            ps_frame_t fr;
            if ((e = ps_frame_open(rk, f, &fr, err)) != PLOG_OK)
                break;
            if (fr.when.seq == 0)
                e = ps_add_frame(out, &cap, r, &fr, err);
            else
                free(fr.raw);
            if (rk->hdr.version >= 10)
                break; /* the probe at MPI_Init comes first or not at all (the series checks) */
        }
    }
    if (e == PLOG_OK && out->ranks == 0)
        /* the message names the run, not a place in a file: "<path>: <detail>" */
        e = plog_fail(err, PLOG_E_MISSING, NULL, PLOG_NO_OFFSET,
                      "%s: no rank ran the network probe (PHASOR_PROBE=quick|full)",
                      plog_run_path(run));
    if (e == PLOG_OK)
        qsort(out->e, out->n, sizeof(*out->e), ps_pooled_last);
    if (e != PLOG_OK)
        plog_probeset_free(out);
    return e;
}

void plog_probeset_free(plog_probeset_t *ps)
{
    free(ps->e);
    memset(ps, 0, sizeof(*ps));
}

/* ---- every probe of the run ---- */

typedef struct ps_series {
    plog_probe_run_t *p;
    size_t n, cap;
    size_t *ecap; /* per probe: capacity of p[i].set.e */
    size_t ecap_cap;
} ps_series_t;

/* The probe with this seq, made (kept in seq order) if it is new; NULL out of memory. */
static plog_probe_run_t *ps_series_at(ps_series_t *s, uint32_t seq, int32_t world,
                                      uint32_t trigger, size_t **ecap)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->p[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == s->n || s->p[lo].seq != seq) {
        if (VEC_GROW(s->p, s->cap, s->n + 1) != 0 ||
            VEC_GROW(s->ecap, s->ecap_cap, s->n + 1) != 0)
            return NULL;
        memmove(&s->p[lo + 1], &s->p[lo], (s->n - lo) * sizeof(*s->p));
        memmove(&s->ecap[lo + 1], &s->ecap[lo], (s->n - lo) * sizeof(*s->ecap));
        s->n++;
        memset(&s->p[lo], 0, sizeof(*s->p));
        s->p[lo].seq = seq;
        s->p[lo].trigger = trigger;
        s->p[lo].set.world = world;
        s->p[lo].start_ns = INT64_MAX;
        s->p[lo].end_ns = INT64_MIN;
        s->ecap[lo] = 0;
    }
    *ecap = &s->ecap[lo];
    return &s->p[lo];
}

/* Rank r's PROBE frames into the series: in file order, seq rising, each starting after the
 * one before ended, one trigger per seq across the ranks. */
static plog_err_t ps_series_rank(const plog_run_t *run, ps_series_t *s, int32_t r,
                                 plog_error_t *err)
{
    const plog_rank_t *rk = plog_run_rank(run, r);
    uint64_t ref = plog_run_time_ref(run);
    int seen = 0;
    uint32_t prev_seq = 0;
    uint64_t prev_end = 0;
    for (size_t f = 0; rk != NULL && f < rk->n_frames; f++) {
        if (rk->frames[f].kind != PLOG_FRAME_PROBE)
            continue;
        int64_t off = (int64_t)rk->frames[f].offset;
        if (seen && rk->hdr.version < 10)
            return plog_fail(err, PLOG_E_CORRUPT, rk->path, off, "a second PROBE frame");
        ps_frame_t fr;
        plog_err_t e = ps_frame_open(rk, f, &fr, err);
        if (e != PLOG_OK)
            return e;
        const plog_probe_when_t *w = &fr.when;
        if (seen && w->seq <= prev_seq)
            e = plog_fail(err, PLOG_E_CORRUPT, rk->path, off,
                          "PROBE frame of probe %u after probe %u", w->seq, prev_seq);
        else if (seen && w->t_start_ns < prev_end)
            e = plog_fail(err, PLOG_E_CORRUPT, rk->path, off,
                          "probe %u starts before probe %u ended", w->seq, prev_seq);
        if (e != PLOG_OK) {
            free(fr.raw);
            return e;
        }
        seen = 1;
        prev_seq = w->seq;
        prev_end = w->t_end_ns;
        size_t *ecap;
        plog_probe_run_t *p = ps_series_at(s, w->seq, plog_run_world_size(run), w->trigger, &ecap);
        if (!p) {
            free(fr.raw);
            return plog_fail(err, PLOG_E_NOMEM, rk->path, off, "probe series");
        }
        if (p->trigger != w->trigger) {
            free(fr.raw);
            return plog_fail(err, PLOG_E_CORRUPT, rk->path, off,
                             "probe %u was started by %s here, by %s on other ranks", w->seq,
                             plog_probe_trigger_name(w->trigger),
                             plog_probe_trigger_name(p->trigger));
        }
        /* before version 10 the one probe ran inside MPI_Init: its time stands for both */
        uint64_t t0 = rk->hdr.version >= 10 ? w->t_start_ns : rk->hdr.t_init_ns;
        uint64_t t1 = rk->hdr.version >= 10 ? w->t_end_ns : rk->hdr.t_init_ns;
        int64_t a0 = plog_clock_align(&rk->clock, t0, ref);
        int64_t a1 = plog_clock_align(&rk->clock, t1, ref);
        if (a0 < p->start_ns)
            p->start_ns = a0;
        if (a1 > p->end_ns)
            p->end_ns = a1;
        if ((e = ps_add_frame(&p->set, ecap, r, &fr, err)) != PLOG_OK)
            return e;
    }
    return PLOG_OK;
}

plog_err_t plog_probeseries_load(const plog_run_t *run, plog_probe_run_t **out, size_t *n,
                                 plog_error_t *err)
{
    *out = NULL;
    *n = 0;
    ps_series_t s = {0};
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < plog_run_world_size(run) && e == PLOG_OK; r++)
        e = ps_series_rank(run, &s, r, err);
    free(s.ecap);
    if (e != PLOG_OK) {
        plog_probeseries_free(s.p, s.n);
        return e;
    }
    for (size_t i = 0; i < s.n; i++) {
        plog_probeset_t *ps = &s.p[i].set;
        qsort(ps->e, ps->n, sizeof(*ps->e), ps_pooled_last);
        if (s.p[i].end_ns < s.p[i].start_ns) /* clocks aligned apart: never an empty span */
            s.p[i].end_ns = s.p[i].start_ns;
    }
    *out = s.p;
    *n = s.n;
    return PLOG_OK;
}

void plog_probeseries_free(plog_probe_run_t *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++)
        plog_probeset_free(&p[i].set);
    free(p);
}
