/* plog_callsites.c: merge the ranks' CALLSITES frames into one table (plog_callsites.h). */
#include "plog_callsites.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plog_callsites {
    plog_cmodule_t **mods;
    size_t nmods, mods_cap;
    plog_csite_t *sites; /* sorted by id once loaded */
    size_t nsites, sites_cap;
    char **warn;
    size_t nwarn;
};

#define MAX_WARNINGS 100

static void cs_warn(plog_callsites_t *cs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cs_warn(plog_callsites_t *cs, const char *fmt, ...)
{
    if (cs->nwarn >= MAX_WARNINGS)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    char **w = realloc(cs->warn, (cs->nwarn + 1) * sizeof(*w));
    if (!w)
        return;
    cs->warn = w;
    if ((w[cs->nwarn] = strdup(buf)) != NULL)
        cs->nwarn++;
}

static plog_err_t fail(plog_error_t *err, plog_err_t code, const char *file, uint64_t off,
                       const char *what)
{
    if (err) {
        err->code = code;
        err->offset = off;
        snprintf(err->msg, sizeof(err->msg), "%s: offset %llu: %s (%s)", file,
                 (unsigned long long)off, plog_strerror(code), what);
    }
    return code;
}

/* The shared module for (path, build id), added if new. NULL: out of memory. */
static const plog_cmodule_t *module_intern(plog_callsites_t *cs, const plog_site_rec_t *r)
{
    for (size_t i = 0; i < cs->nmods; i++) {
        const plog_cmodule_t *m = cs->mods[i];
        if (strlen(m->path) == r->path_len && memcmp(m->path, r->path, r->path_len) == 0 &&
            m->build_id_len == r->build_id_len &&
            (r->build_id_len == 0 || memcmp(m->build_id, r->build_id, r->build_id_len) == 0))
            return m;
    }
    if (cs->nmods == cs->mods_cap) {
        size_t cap = cs->mods_cap ? cs->mods_cap * 2 : 16;
        plog_cmodule_t **n = realloc(cs->mods, cap * sizeof(*n));
        if (!n)
            return NULL;
        cs->mods = n;
        cs->mods_cap = cap;
    }
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

typedef struct rank_mods {
    const plog_cmodule_t **at; /* by the rank's module index */
    size_t cap;
} rank_mods_t;

static plog_err_t load_frame(plog_callsites_t *cs, const plog_rank_t *rk, size_t fi,
                             rank_mods_t *rm, plog_error_t *err)
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
            e = fail(err, e, rk->path, fx->offset, "call-site record");
            break;
        }
        if (rec.type == PLOG_SITE_REC_MODULE) {
            if (rec.module >= rm->cap) {
                size_t cap = rec.module + 16;
                const plog_cmodule_t **n = realloc(rm->at, cap * sizeof(*n));
                if (!n) {
                    e = fail(err, PLOG_E_NOMEM, rk->path, fx->offset, "module table");
                    break;
                }
                memset(n + rm->cap, 0, (cap - rm->cap) * sizeof(*n));
                rm->at = n;
                rm->cap = cap;
            }
            if (rm->at[rec.module] != NULL) {
                e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset, "module defined twice");
                break;
            }
            if ((rm->at[rec.module] = module_intern(cs, &rec)) == NULL)
                e = fail(err, PLOG_E_NOMEM, rk->path, fx->offset, "module table");
            continue;
        }
        if (cs->nsites == cs->sites_cap) {
            size_t cap = cs->sites_cap ? cs->sites_cap * 2 : 256;
            plog_csite_t *n = realloc(cs->sites, cap * sizeof(*n));
            if (!n) {
                e = fail(err, PLOG_E_NOMEM, rk->path, fx->offset, "call-site table");
                break;
            }
            cs->sites = n;
            cs->sites_cap = cap;
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
                e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset,
                         "call site uses an undefined module");
                break;
            }
            s->frames[i].module = mi ? rm->at[mi] : NULL;
            s->frames[i].offset = rec.frames[i].offset;
        }
        if (e == PLOG_OK)
            cs->nsites++;
    }
    if (e == PLOG_OK && r.p != r.end)
        e = fail(err, PLOG_E_CORRUPT, rk->path, fx->offset, "bytes after the last call-site record");
    free(raw);
    return e;
}

static int same_stack(const plog_csite_t *a, const plog_csite_t *b)
{
    if (a->nframes != b->nframes)
        return 0;
    for (uint32_t i = 0; i < a->nframes; i++)
        if (a->frames[i].module != b->frames[i].module || a->frames[i].offset != b->frames[i].offset)
            return 0;
    return 1;
}

static int cmp_site(const void *x, const void *y)
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
        return fail(err, PLOG_E_NOMEM, plog_run_path(run), 0, "call-site table");
    plog_err_t e = PLOG_OK;
    int32_t n = plog_run_world_size(run);
    for (int32_t r = 0; r < n && e == PLOG_OK; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (!rk)
            continue;
        rank_mods_t rm = {0};
        for (size_t i = 0; i < rk->n_frames && e == PLOG_OK; i++)
            if (rk->frames[i].kind == PLOG_FRAME_CALLSITES)
                e = load_frame(cs, rk, i, &rm, err);
        free(rm.at);
    }
    if (e != PLOG_OK) {
        plog_callsites_free(cs);
        return e;
    }
    /* One entry per id: the lowest rank's stack; others must agree (a thread-level
     * collision in one rank can make its id mean another stack). */
    if (cs->nsites > 1)
        qsort(cs->sites, cs->nsites, sizeof(*cs->sites), cmp_site);
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
            if (same_stack(&keep, o))
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
    for (size_t i = 0; i < cs->nwarn; i++)
        free(cs->warn[i]);
    free(cs->warn);
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

size_t plog_callsites_nwarnings(const plog_callsites_t *cs) { return cs ? cs->nwarn : 0; }

const char *plog_callsites_warning(const plog_callsites_t *cs, size_t i)
{
    return cs && i < cs->nwarn ? cs->warn[i] : NULL;
}
