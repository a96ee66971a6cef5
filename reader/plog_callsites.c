/* plog_callsites.c: merge the ranks' CALLSITES frames into one table (plog_callsites.h). */
#include "plog_callsites.h"

#include <stdlib.h>
#include <string.h>

#include "plog_rd.h"

struct plog_callsites {
    plog_cmodule_t **mods;
    size_t nmods, mods_cap;
    plog_csite_t *sites; /* sorted by id once loaded */
    size_t nsites, sites_cap;
    warn_list_t warn;
};

#define CS_MAX_WARNINGS 100

static void cs_warn(plog_callsites_t *cs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cs_warn(plog_callsites_t *cs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_vadd(&cs->warn, CS_MAX_WARNINGS, fmt, ap);
    va_end(ap);
}

/* The shared module for (path, build id), added if new. NULL: out of memory. */
static const plog_cmodule_t *cs_module_intern(plog_callsites_t *cs, const plog_site_rec_t *r)
{
    for (size_t i = 0; i < cs->nmods; i++) {
        const plog_cmodule_t *m = cs->mods[i];
        if (strlen(m->path) == r->path_len && memcmp(m->path, r->path, r->path_len) == 0 &&
            m->build_id_len == r->build_id_len &&
            (r->build_id_len == 0 || memcmp(m->build_id, r->build_id, r->build_id_len) == 0))
            return m;
    }
    if (VEC_GROW(cs->mods, cs->mods_cap, cs->nmods + 1) != 0)
        return NULL;
    plog_cmodule_t *m = calloc(1, sizeof(*m));
    char *path = malloc(r->path_len + 1);
    uint8_t *bid = r->build_id_len ? malloc(r->build_id_len) : NULL;
    if (!m || !path || (r->build_id_len && !bid)) {
        free(m);
        free(path);
        free(bid);
        return NULL;
    }
    memcpy(path, r->path, r->path_len);
    path[r->path_len] = '\0';
    if (bid)
        memcpy(bid, r->build_id, r->build_id_len);
    m->path = path;
    m->build_id = bid;
    m->build_id_len = r->build_id_len;
    cs->mods[cs->nmods++] = m;
    return m;
}

typedef struct cs_rank_mods {
    const plog_cmodule_t **at; /* by the rank's module index */
    size_t cap;
} cs_rank_mods_t;

/* An error about CALLSITES frame fx of rank file rk. */
static plog_err_t cs_fail(plog_error_t *err, plog_err_t code, const plog_rank_t *rk,
                          const plog_frame_ix_t *fx, const char *what)
{
    return plog_fail(err, code, rk->path, (int64_t)fx->offset, "%s", what);
}

static plog_err_t cs_load_frame(plog_callsites_t *cs, const plog_rank_t *rk, size_t fi,
                             cs_rank_mods_t *rm, plog_error_t *err)
{
    const plog_frame_ix_t *fx = &rk->frames[fi];
    void *raw;
    size_t len;
    plog_err_t e = plog_rank_read_frame(rk, fi, &raw, &len, err);
    if (e != PLOG_OK)
        return e;
    plog_rcur_t r = {raw, (const uint8_t *)raw + len, PLOG_OK};
    plog_site_rec_t rec;
    for (uint32_t k = 0; k < fx->count && e == PLOG_OK; k++) {
        if ((e = plog_site_get(&r, &rec)) != PLOG_OK) {
            e = cs_fail(err, e, rk, fx, "call-site record");
            break;
        }
        if (rec.type == PLOG_SITE_REC_MODULE) {
            size_t had = rm->cap;
            if (VEC_GROW(rm->at, rm->cap, (size_t)rec.module + 1) != 0) {
                e = cs_fail(err, PLOG_E_NOMEM, rk, fx, "module table");
                break;
            }
            memset(rm->at + had, 0, (rm->cap - had) * sizeof(*rm->at));
            if (rm->at[rec.module] != NULL) {
                e = cs_fail(err, PLOG_E_CORRUPT, rk, fx, "module defined twice");
                break;
            }
            if ((rm->at[rec.module] = cs_module_intern(cs, &rec)) == NULL)
                e = cs_fail(err, PLOG_E_NOMEM, rk, fx, "module table");
            continue;
        }
        if (VEC_GROW(cs->sites, cs->sites_cap, cs->nsites + 1) != 0) {
            e = cs_fail(err, PLOG_E_NOMEM, rk, fx, "call-site table");
            break;
        }
        plog_csite_t *s = &cs->sites[cs->nsites];
        memset(s, 0, sizeof(*s));
        s->id = rec.id;
        s->nframes = rec.nframes;
        s->n_ranks = 1;
        s->first_rank = rk->rank;
        for (uint32_t i = 0; i < rec.nframes; i++) {
            uint32_t mi = rec.frames[i].module;
            if (mi != 0 && (mi >= rm->cap || rm->at[mi] == NULL)) {
                e = cs_fail(err, PLOG_E_CORRUPT, rk, fx, "call site uses an undefined module");
                break;
            }
            s->frames[i].module = mi ? rm->at[mi] : NULL;
            s->frames[i].offset = rec.frames[i].offset;
        }
        if (e == PLOG_OK)
            cs->nsites++;
    }
    if (e == PLOG_OK && r.p != r.end)
        e = cs_fail(err, PLOG_E_CORRUPT, rk, fx, "bytes after the last call-site record");
    free(raw);
    return e;
}

static int cs_same_stack(const plog_csite_t *a, const plog_csite_t *b)
{
    if (a->nframes != b->nframes)
        return 0;
    for (uint32_t i = 0; i < a->nframes; i++)
        if (a->frames[i].module != b->frames[i].module ||
            a->frames[i].offset != b->frames[i].offset)
            return 0;
    return 1;
}

static int cs_cmp_site(const void *x, const void *y)
{
    const plog_csite_t *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->first_rank < b->first_rank ? -1 : a->first_rank > b->first_rank;
}

plog_err_t plog_callsites_load(const plog_run_t *run, plog_callsites_t **out, plog_error_t *err)
{
    *out = NULL;
    plog_callsites_t *cs = calloc(1, sizeof(*cs));
    if (!cs)
        return plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), 0, "call-site table");
    plog_err_t e = PLOG_OK;
    int32_t n = plog_run_world_size(run);
    for (int32_t r = 0; r < n && e == PLOG_OK; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (!rk)
            continue;
        cs_rank_mods_t rm = {0};
        for (size_t i = 0; i < rk->n_frames && e == PLOG_OK; i++)
            if (rk->frames[i].kind == PLOG_FRAME_CALLSITES)
                e = cs_load_frame(cs, rk, i, &rm, err);
        free(rm.at);
    }
    if (e != PLOG_OK) {
        plog_callsites_free(cs);
        return e;
    }
    /* One entry per id: the lowest rank's stack; others must agree (a thread-level
     * collision in one rank can make its id mean another stack). */
    if (cs->nsites > 1)
        qsort(cs->sites, cs->nsites, sizeof(*cs->sites), cs_cmp_site);
    size_t w = 0;
    for (size_t i = 0; i < cs->nsites;) {
        size_t j = i + 1;
        plog_csite_t keep = cs->sites[i];
        keep.n_ranks = 1;
        int32_t last = keep.first_rank;
        for (; j < cs->nsites && cs->sites[j].id == keep.id; j++) {
            const plog_csite_t *o = &cs->sites[j];
            if (o->first_rank == last)
                continue; /* a rank's log defines each id once; tolerate repeats */
            last = o->first_rank;
            if (cs_same_stack(&keep, o))
                keep.n_ranks++;
            else
                cs_warn(cs, "call site %u: rank %d recorded another stack than rank %d; its "
                        "calls with this id are counted under rank %d's stack", keep.id,
                        o->first_rank, keep.first_rank, keep.first_rank);
        }
        cs->sites[w++] = keep;
        i = j;
    }
    cs->nsites = w;
    *out = cs;
    return PLOG_OK;
}

void plog_callsites_free(plog_callsites_t *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->nmods; i++) {
        free((void *)cs->mods[i]->path);
        free((void *)cs->mods[i]->build_id);
        free(cs->mods[i]);
    }
    free(cs->mods);
    free(cs->sites);
    warn_free(&cs->warn);
    free(cs);
}

const plog_csite_t *plog_callsites_find(const plog_callsites_t *cs, uint32_t id)
{
    size_t lo = 0, hi = cs ? cs->nsites : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cs->sites[mid].id == id)
            return &cs->sites[mid];
        if (cs->sites[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t plog_callsites_count(const plog_callsites_t *cs) { return cs ? cs->nsites : 0; }

const plog_csite_t *plog_callsites_at(const plog_callsites_t *cs, size_t i)
{
    return cs && i < cs->nsites ? &cs->sites[i] : NULL;
}

size_t plog_callsites_nwarnings(const plog_callsites_t *cs) { return cs ? cs->warn.n : 0; }

const char *plog_callsites_warning(const plog_callsites_t *cs, size_t i)
{
    return cs && i < cs->warn.n ? cs->warn.v[i] : NULL;
}
