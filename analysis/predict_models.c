/* predict_models.c: the models `phasor predict` evaluates, fitted to the run's own probe
 * (PROBE frames) or read from a model file (doc/model-format.md). */
#include "predict_models.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_file.h"
#include "net_model.h"
#include "plog_probeset.h"
#include "pstat.h"

/* The scratch of max_of is shared by the models: predict evaluates one step at a time. */
typedef struct scratch {
    pnm_q_t *dist;
    size_t dcap;
} scratch_t;

struct priv;

typedef struct slot { /* a model's ctx */
    pnm_model_t fit;
    scratch_t *scratch;
    const struct priv *owner;
} slot_t;

typedef struct priv {
    slot_t slot[PRED_MAXMODELS];
    /* the pairs the links' load is read from, when no slot is the lookup table: the
     * probe's (or the file's) own, fitted for that alone (pairs.fit.kind PNM_LOOKUP) */
    slot_t pairs;
    double *load; /* per model (or one for all, from the pairs): pr_load_t's out, then in */
    scratch_t scratch;
    const int32_t *host; /* the run's host per world rank, or NULL */
    int32_t world;
    uint8_t *between;    /* per world rank: the samples have pairs of it between hosts */
} priv_t;

/* Hockney and LogGP fit a source to its pooled samples, which for a source with pairs between
 * hosts are mostly those pairs (only those, where the probe's pairs shared host links:
 * pmf_unshare rebuilds them), so a message it sends within its host is not what that fit
 * describes: the pair's own samples price it, when the probe measured the pair. */
static int own_pair(const slot_t *sl, int32_t src, int32_t dst, uint64_t bytes, int twoway,
                    pnm_q_t *q)
{
    const priv_t *p = sl->owner;
    if (!p->between || sl->fit.kind == PNM_LOOKUP || src == dst || src < 0 || dst < 0 ||
        src >= p->world || dst >= p->world || !p->between[src] || p->host[src] != p->host[dst])
        return 0;
    return pnm_pair_dist(pnm_way(&sl->fit, twoway), src, dst, bytes, q);
}

static double time_of(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    const slot_t *sl = ctx;
    pnm_q_t q;
    if (own_pair(sl, src, dst, bytes, twoway, &q))
        return q.v[PNM_Q50];
    return pnm_time(pnm_way(&sl->fit, twoway), src, dst, bytes);
}

static int max_of(const void *ctx, const ci_xfer_t *const *x, const uint8_t *twoway,
                  const double *shift, size_t n, double *mean, double *p90)
{
    const slot_t *sl = ctx;
    scratch_t *p = sl->scratch;
    if (n > p->dcap) {
        pnm_q_t *d = realloc(p->dist, n * sizeof(*d));
        if (!d)
            return -1;
        p->dist = d;
        p->dcap = n;
    }
    for (size_t i = 0; i < n; i++) {
        if (!own_pair(sl, x[i]->src, x[i]->dst, x[i]->bytes, twoway[i], &p->dist[i]))
            pnm_dist(pnm_way(&sl->fit, twoway[i]), x[i]->src, x[i]->dst, x[i]->bytes,
                     &p->dist[i]);
        for (int k = 0; shift && k < PNM_NQ; k++)
            p->dist[i].v[k] += shift[i];
        if (shift)
            p->dist[i].mean += shift[i];
    }
    return pnm_max_of(p->dist, n, mean, p90);
}

/* A model file's hosts split the run's ranks as the run's own hosts do (same rank count,
 * ranks together on one host in the file exactly when they are in the run): only then do its
 * pairs within a host mean the run's. */
static int file_hosts_match(const pmf_t *mf, const int32_t *host, int32_t nhosts,
                            int32_t world)
{
    if (!mf->hosts || mf->nranks != world || nhosts <= 0)
        return 0;
    int32_t *id = malloc((size_t)world * sizeof(*id));
    int32_t *to_run = malloc((size_t)world * sizeof(*to_run)); /* file host -> run host */
    int32_t *to_file = malloc((size_t)nhosts * sizeof(*to_file));
    int ok = id && to_run && to_file;
    if (ok) {
        int32_t nf = pmf_host_ids(mf, id);
        for (int32_t h = 0; h < nf; h++)
            to_run[h] = -1;
        for (int32_t h = 0; h < nhosts; h++)
            to_file[h] = -1;
        for (int32_t r = 0; r < world && ok; r++) { /* one to one, both ways */
            if (to_run[id[r]] < 0 && to_file[host[r]] < 0)
                to_run[id[r]] = host[r], to_file[host[r]] = id[r];
            ok = to_run[id[r]] == host[r] && to_file[host[r]] == id[r];
        }
    }
    free(id);
    free(to_run);
    free(to_file);
    return ok;
}

/* Which sources have pairs between hosts in the models' samples (by the run's hosts), and
 * how many pairs within a host own_pair will price: named in the model line. -1 no memory. */
static int within_hosts(priv_t *p, const plog_run_t *run, const int32_t *host,
                        pred_models_t *pm)
{
    int32_t world = plog_run_world_size(run);
    const pnm_model_t *m = NULL;
    char kinds[64] = "";
    for (int i = 0; i < pm->n; i++)
        if (p->slot[i].fit.kind != PNM_LOOKUP) {
            if (!m)
                m = &p->slot[i].fit;
            size_t len = strlen(kinds);
            snprintf(kinds + len, sizeof(kinds) - len, "%s%s", len ? " and " : "",
                     pnm_kind_name(p->slot[i].fit.kind));
        }
    if (!m || world <= 0)
        return 0;
    p->between = calloc((size_t)world, 1);
    if (!p->between)
        return -1;
    p->host = host;
    p->world = world;
    for (size_t i = 0; i < m->n; i++) {
        const pnm_sample_t *x = &m->s[i];
        if (x->dst >= 0 && x->src < world && x->dst < world && host[x->src] != host[x->dst])
            p->between[x->src] = 1;
    }
    size_t pairs = 0; /* samples are sorted by (src, dst, bytes) */
    for (size_t i = 0; i < m->n; i++) {
        const pnm_sample_t *x = &m->s[i];
        if (x->dst >= 0 && x->src < world && x->dst < world && p->between[x->src] &&
            host[x->src] == host[x->dst] && (i == 0 || m->s[i - 1].src != x->src ||
                                             m->s[i - 1].dst != x->dst))
            pairs++;
    }
    if (pairs > 0) {
        size_t len = strlen(pm->source);
        snprintf(pm->source + len, sizeof(pm->source) - len,
                 "; %s price %zu pair%s within a host by their own samples", kinds, pairs,
                 pairs == 1 ? "" : "s");
    }
    return 0;
}

/* The host links' background load as model m shows it (pr_load_t), into lo (2 world
 * doubles: out, then in) and load. A pair is as slow as the busier of its source's link
 * out and its destination's link in, so a rank's least slow pair out (in) tells its link
 * out (in); a per-source model (Hockney, LogGP) has no destinations' links to show, and a
 * rank's link in comes out as loaded as the least loaded source's link out, mostly 1
 * (pred_models_load reads the pairs' instead). An unloaded link's time per byte: the first
 * quartile of the pairs', not their fastest, which noise puts below the rest (17.0 against
 * 17.3-17.9 ns/B on unloaded 500 Mbit/s links; 14.3 against 16 under contention). Pairs
 * between hosts (any two ranks without hosts); each source against at most 16
 * destinations spread over the world, so that a large run does not price all its pairs.
 * -1 out of memory. */
static int link_load(const pred_model_t *m, double *lo, int32_t world, const int32_t *host,
                     pr_load_t *load)
{
    double *out = lo, *in = lo + world;
    int32_t step = world > 17 ? (world - 1) / 16 : 1;
    double *all = malloc(((size_t)world * 16 + 1) * sizeof(*all));
    size_t n = 0;
    if (!all)
        return -1;
    for (int32_t r = 0; r < world; r++)
        out[r] = in[r] = INFINITY;
    for (int32_t s = 0; s < world; s++)
        for (int32_t j = 1; j < world && j <= 16 * step; j += step) {
            int32_t d = (s + j) % world;
            if (host && host[s] == host[d])
                continue;
            double pb = pr_per_byte(m->time, m->ctx, s, d, 0);
            if (!(pb > 0) || !isfinite(pb))
                continue;
            all[n++] = pb;
            out[s] = fmin(out[s], pb);
            in[d] = fmin(in[d], pb);
        }
    double free_pb = 0;
    if (n) {
        qsort(all, n, sizeof(*all), pstat_cmp_double);
        free_pb = all[(n - 1) / 4];
    }
    free(all);
    for (int32_t r = 0; r < world; r++) {
        out[r] = isfinite(out[r]) && out[r] >= PR_LOAD_NOISE * free_pb ? out[r] / free_pb : 1;
        in[r] = isfinite(in[r]) && in[r] >= PR_LOAD_NOISE * free_pb ? in[r] / free_pb : 1;
    }
    *load = (pr_load_t){free_pb, free_pb > 0 ? out : NULL, free_pb > 0 ? in : NULL, NULL,
                        NULL};
    return 0;
}

/* The kinds asked for ("lookup,hockney"; NULL: every kind) into want[]. */
static plog_err_t parse_kinds(const char *kinds, int *want, plog_error_t *err)
{
    if (!kinds) {
        want[PNM_LOOKUP] = want[PNM_HOCKNEY] = want[PNM_LOGGP] = 1;
        return PLOG_OK;
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", kinds);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k = pnm_kind_parse(tok);
        if (k < 0)
            return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                             "--kind: unknown model '%s' (lookup, hockney, loggp)", tok);
        want[k] = 1;
    }
    return PLOG_OK;
}

/* The models of want[] a model file holds, into p's slots (explicit: each must be there);
 * its lookup table, when not wanted, for the links' load alone. *host becomes NULL when
 * the file's hosts do not split the run's ranks as the run's do. */
static plog_err_t load_file(pred_models_t *pm, priv_t *p, const plog_run_t *run,
                            const char *file, const int *want, int explicit_kinds,
                            const int32_t **host, int32_t nhosts, plog_error_t *err)
{
    pmf_t mf;
    plog_err_t e = pmf_read(file, &mf, err);
    if (e != PLOG_OK)
        return e;
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        if (!want[k])
            continue;
        if (!mf.has[k]) {
            if (explicit_kinds) {
                pmf_free(&mf);
                return plog_fail(err, PLOG_E_MISSING, NULL, PLOG_NO_OFFSET,
                                 "%s: no %s model in the file", file,
                                 pnm_kind_name((pnm_kind_t)k));
            }
            continue;
        }
        p->slot[pm->n].fit = mf.m[k];
        memset(&mf.m[k], 0, sizeof(mf.m[k])); /* moved */
        mf.has[k] = 0;
        pm->n++;
    }
    if (mf.has[PNM_LOOKUP]) { /* not wanted: only for the links' load */
        p->pairs.fit = mf.m[PNM_LOOKUP];
        memset(&mf.m[PNM_LOOKUP], 0, sizeof(mf.m[PNM_LOOKUP]));
        mf.has[PNM_LOOKUP] = 0;
    }
    snprintf(pm->source, sizeof(pm->source), "%s (%s probe, %d ranks)", file,
             mf.mode == 2 ? "full" : "quick", (int)mf.nranks);
    if (*host && !file_hosts_match(&mf, *host, nhosts, plog_run_world_size(run)))
        *host = NULL; /* its pairs within a host are not the run's */
    pmf_free(&mf);
    return PLOG_OK;
}

/* The models of want[] fitted to the run's probe (explicit: each must fit), into p's
 * slots, its samples unshared by host (pmf_fit_samples); the lookup table, when not
 * wanted, for the links' load alone. */
static plog_err_t fit_probe(pred_models_t *pm, priv_t *p, const plog_run_t *run,
                            const int *want, int explicit_kinds, const pnm_opts_t *fit,
                            const int32_t *host, int32_t nhosts, plog_error_t *err)
{
    plog_probeset_t ps;
    plog_error_t perr;
    plog_err_t e = plog_probeset_load(run, &ps, &perr);
    if (e != PLOG_OK)
        return plog_fail(err, e, NULL, PLOG_NO_OFFSET, "%s%s", perr.msg,
                         e == PLOG_E_MISSING ? "; give a model file with --model" : "");
    pnm_sample_t *s = malloc((ps.n ? ps.n : 1) * sizeof(*s));
    size_t unshared, pooled;
    if (s)
        pmf_samples_from_probe(s, ps.e, ps.n, ps.info.sizes);
    if (!s || pmf_fit_samples(s, ps.n, (int)ps.info.mode, ps.world, host, nhosts, PMF_FIT_NOW,
                              &unshared, &pooled) != 0) {
        e = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
        goto out;
    }
    pnm_samples_t in = {ps.world, (int)ps.info.mode, ps.n, s};
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        if (!want[k])
            continue;
        char w[256];
        pnm_err_t fe = pnm_fit((pnm_kind_t)k, &in, fit, &p->slot[pm->n].fit, w, sizeof(w));
        if (fe == PNM_OK) {
            pm->n++;
        } else if (explicit_kinds || fe != PNM_E_NODATA) {
            e = plog_fail(err, PLOG_E_CORRUPT, NULL, PLOG_NO_OFFSET,
                          "%s: the %s model cannot be fitted to the run's probe: %s",
                          plog_run_path(run), pnm_kind_name((pnm_kind_t)k), w);
            goto out;
        }
    }
    if (!want[PNM_LOOKUP] && pnm_fit(PNM_LOOKUP, &in, fit, &p->pairs.fit, NULL, 0) != PNM_OK)
        pnm_free(&p->pairs.fit); /* no pairs: each model shows the load itself */
    pm->probe_samples = (long)ps.n;
    pm->probe_pooled = (long)pooled;
    pm->probe_unshared = (long)unshared;
    snprintf(pm->source, sizeof(pm->source), "fitted to the run's %s probe (%d ranks, %u "
             "repetitions; %zu of %zu medians pooled toward their group, %zu rewritten "
             "for shared links)", ps.info.mode == 2 ? "full" : "quick", (int)ps.ranks,
             ps.info.reps, pooled, ps.n, unshared);
out:
    free(s);
    plog_probeset_free(&ps);
    return e;
}

/* The slots as pm's models, and the links' load each prices with: per-source models pool
 * their partners' loads, while the pairs tell a link from another, and the load is the
 * links', so every model takes the pairs' (a slot's lookup table, else p->pairs); without
 * pairs, each model its own. -1 out of memory. */
static int bind_models(pred_models_t *pm, priv_t *p, const plog_run_t *run,
                       const int32_t *host)
{
    const pred_model_t *pairs = NULL; /* the model whose pairs show the load */
    pred_model_t own = {"pairs", &p->pairs, time_of, max_of, {0, NULL, NULL, NULL, NULL}};
    p->pairs.scratch = &p->scratch;
    p->pairs.owner = p;
    for (int i = 0; i < pm->n; i++) {
        p->slot[i].scratch = &p->scratch;
        p->slot[i].owner = p;
        pm->m[i].name = pnm_kind_name(p->slot[i].fit.kind);
        pm->m[i].ctx = &p->slot[i];
        pm->m[i].time = time_of;
        pm->m[i].max_of = max_of;
        if (p->slot[i].fit.kind == PNM_LOOKUP)
            pairs = &pm->m[i];
    }
    if (!pairs && p->pairs.fit.kind == PNM_LOOKUP)
        pairs = &own;
    int32_t w = plog_run_world_size(run);
    size_t per = 2 * (size_t)(w > 0 ? w : 1);
    p->load = malloc((pairs ? 1 : (size_t)pm->n) * per * sizeof(double));
    pr_load_t shared;
    int bad = !p->load || (pairs && link_load(pairs, p->load, w, host, &shared) != 0);
    for (int i = 0; i < pm->n && !bad; i++) {
        if (pairs) {
            pm->m[i].load = shared;
            pm->m[i].load.t = pairs->time;
            pm->m[i].load.ctx = pairs->ctx;
        } else {
            bad = link_load(&pm->m[i], p->load + (size_t)i * per, w, host, &pm->m[i].load);
        }
    }
    return bad ? -1 : 0;
}

plog_err_t pred_models_load(pred_models_t *pm, const plog_run_t *run, const char *file,
                            const char *kinds, const pnm_opts_t *fit, const int32_t *host,
                            int32_t nhosts, plog_error_t *err)
{
    memset(pm, 0, sizeof(*pm));
    pm->probe_samples = pm->probe_pooled = pm->probe_unshared = -1;
    priv_t *p = calloc(1, sizeof(*p));
    if (!p)
        return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    pm->priv = p;
    int want[PNM_LOGGP + 1] = {0};
    plog_err_t e = parse_kinds(kinds, want, err);
    if (e == PLOG_OK)
        e = file ? load_file(pm, p, run, file, want, kinds != NULL, &host, nhosts, err)
                 : fit_probe(pm, p, run, want, kinds != NULL, fit, host, nhosts, err);
    if (e == PLOG_OK && pm->n == 0)
        e = plog_fail(err, PLOG_E_MISSING, NULL, PLOG_NO_OFFSET, "%s: no model to predict with",
                      file ? file : plog_run_path(run));
    assert(e != PLOG_OK || (pm->n > 0 && pm->n <= PRED_MAXMODELS));
    if (e == PLOG_OK && ((host && within_hosts(p, run, host, pm) != 0) ||
                         bind_models(pm, p, run, host) != 0))
        e = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    if (e != PLOG_OK)
        pred_models_free(pm);
    return e;
}

plog_err_t pred_models_save(const plog_run_t *run, const pnm_opts_t *fit, const char *path,
                            plog_error_t *err)
{
    plog_probeset_t ps;
    plog_error_t perr;
    plog_err_t e = plog_probeset_load(run, &ps, &perr);
    if (e != PLOG_OK)
        return plog_fail(err, e, NULL, PLOG_NO_OFFSET, "--save-model: %s", perr.msg);
    pmf_t f;
    if (pmf_from_probe(&f, &ps.info, ps.world, ps.e, ps.n) != 0 ||
        !(f.hosts = calloc((size_t)(ps.world > 0 ? ps.world : 1), sizeof(*f.hosts)))) {
        e = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
        goto out;
    }
    for (int32_t r = 0; r < ps.world; r++) { /* a rank not loaded: a host of its own */
        const plog_rank_t *rk = plog_run_rank(run, r);
        const char *h = rk ? plog_rank_kv(rk, "hostname") : NULL;
        const char *lib = rk && !f.library[0] ? plog_rank_kv(rk, "mpi_library") : NULL;
        if (lib)
            pmf_set_library(&f, lib);
        if (h && strlen(h) >= sizeof(f.hosts[r])) {
            /* cut short, two hosts could become one */
            e = plog_fail(err, PLOG_E_TOOBIG, NULL, PLOG_NO_OFFSET,
                          "%s: rank %d's host name is longer than a model file holds "
                          "(%zu bytes)", path, (int)r, sizeof(f.hosts[r]) - 1);
            goto out;
        }
        snprintf(f.hosts[r], sizeof(f.hosts[r]), "%s", h ? h : "");
    }
    if ((e = pmf_fit_all(&f, fit, &perr)) != PLOG_OK) {
        e = plog_fail(err, e, NULL, PLOG_NO_OFFSET, "%s: %s", plog_run_path(run), perr.msg);
        goto out;
    }
    e = pmf_write(path, &f, err);
out:
    pmf_free(&f);
    plog_probeset_free(&ps);
    return e;
}

const pnm_model_t *pred_model_fit(const pred_model_t *m)
{
    return &((const slot_t *)m->ctx)->fit;
}

void pred_models_free(pred_models_t *pm)
{
    priv_t *p = pm->priv;
    if (p) {
        for (int i = 0; i < PRED_MAXMODELS; i++)
            pnm_free(&p->slot[i].fit);
        pnm_free(&p->pairs.fit);
        free(p->load);
        free(p->between);
        free(p->scratch.dist);
        free(p);
    }
    memset(pm, 0, sizeof(*pm));
}
