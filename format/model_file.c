/* model_file.c: the network model file (see model_file.h and doc/model-format.md): the
 * probe's samples as the file holds them, the models fitted to them, and writing the file
 * with jansson (reading: model_file_read.c). */
#include "model_file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net_samples.h"
#include "ofile.h"
#include "utf8.h"

void pmf_free(pmf_t *f)
{
    free(f->hosts);
    free(f->s);
    for (int k = 0; k <= PNM_LOGGP; k++)
        pnm_free(&f->m[k]);
    memset(f, 0, sizeof(*f));
}

void pmf_samples_from_probe(pnm_sample_t *s, const plog_probe_entry_t *e, size_t n,
                            const uint64_t *sizes)
{
    for (size_t i = 0; i < n; i++) {
        s[i].src = e[i].src;
        s[i].dst = e[i].dst;
        s[i].bytes = sizes[e[i].size_idx];
        s[i].q.n = e[i].q.n;
        const plog_probe_q_t *q = &e[i].q;
        const double v[PNM_NQ] = {q->min, q->q10, q->q25, q->q50, q->q75, q->q90, q->max};
        memcpy(s[i].q.v, v, sizeof(v));
        s[i].q.mean = e[i].q.mean;
        s[i].way = e[i].way == PLOG_PROBE_ONEWAY ? PNM_ONEWAY : PNM_EXCHANGE;
    }
}

int pmf_from_probe(pmf_t *f, const plog_probe_info_t *info, int32_t nranks,
                   const plog_probe_entry_t *e, size_t n)
{
    memset(f, 0, sizeof(*f));
    f->s = calloc(n ? n : 1, sizeof(*f->s));
    if (!f->s)
        return -1;
    f->mode = (int)info->mode;
    f->nranks = nranks;
    f->reps = info->reps;
    f->elapsed_s = info->elapsed_s;
    f->seed = info->seed;
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(f->created, sizeof(f->created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    f->n = n;
    pmf_samples_from_probe(f->s, e, n, info->sizes);
    return 0;
}

void pmf_set_library(pmf_t *f, const char *lib)
{
    snprintf(f->library, sizeof(f->library), "%.*s", (int)strcspn(lib, "\n"), lib);
}

int pmf_fit_samples(pnm_sample_t *s, size_t n, int mode, int32_t nranks, const int32_t *host,
                    int32_t nhosts, unsigned how, size_t *unshared, size_t *pooled)
{
    *unshared = 0;
    *pooled = 0;
    if (mode == PLOG_PROBE_QUICK && host)
        *unshared = pns_unshare(s, n, nranks, host, nhosts, how & (PNS_SLOWEST | PNS_SMALLEST),
                                plog_probe_partner);
    return how & PMF_FIT_POOL ? pns_shrink(s, n, host, pooled) : 0;
}

int32_t pmf_host_ids(const pmf_t *f, int32_t *id)
{
    int32_t nh = 0;
    for (int32_t r = 0; r < f->nranks; r++) {
        int32_t k = 0;
        if (f->hosts[r][0]) /* ranks are few here: a scan per rank */
            while (k < r && strcmp(f->hosts[k], f->hosts[r]) != 0)
                k++;
        else
            k = r;
        id[r] = k < r ? id[k] : nh++;
    }
    return nh;
}

pnm_sample_t *pmf_fit_copy(const pmf_t *f, unsigned how, size_t *changed)
{
    pnm_sample_t *s = malloc((f->n ? f->n : 1) * sizeof(*s));
    int32_t *id = f->hosts ? malloc((size_t)f->nranks * sizeof(*id)) : NULL, nh = 0;
    if (!s || (f->hosts && !id)) {
        free(s);
        free(id);
        return NULL;
    }
    memcpy(s, f->s, f->n * sizeof(*s));
    if (id)
        nh = pmf_host_ids(f, id);
    size_t pooled;
    if (pmf_fit_samples(s, f->n, f->mode, f->nranks, id, nh, how, changed, &pooled) != 0) {
        free(s);
        s = NULL;
    }
    free(id);
    return s;
}

plog_err_t pmf_fit_all(pmf_t *f, const pnm_opts_t *o, plog_error_t *err)
{
    size_t changed;
    pnm_sample_t *s = pmf_fit_copy(f, PMF_FIT_NOW, &changed);
    if (!s)
        return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    pnm_samples_t in = {f->nranks, f->mode, f->n, s};
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        char w[256];
        pnm_free(&f->m[k]);
        f->has[k] = 0;
        pnm_err_t e = pnm_fit((pnm_kind_t)k, &in, o, &f->m[k], w, sizeof(w));
        if (e == PNM_OK)
            f->has[k] = 1;
        else if (k == PNM_LOOKUP || e != PNM_E_NODATA) {
            free(s);
            return plog_fail(err, PLOG_E_CORRUPT, NULL, PLOG_NO_OFFSET, "%s model: %s",
                             pnm_kind_name((pnm_kind_t)k), w);
        }
    }
    free(s);
    return PLOG_OK;
}

/* ---- writing ---- */

static json_t *jnum(double x) { return json_real(x); }

static json_t *segs_json(const pnm_hockney_src_t *h)
{
    json_t *a = json_array();
    for (int s = 0; s < h->nseg; s++)
        json_array_append_new(a, json_pack("{s:o, s:o, s:o}", "hi",
                                           h->hi[s] == UINT64_MAX ? json_null()
                                                                  : json_integer((json_int_t)h->hi[s]),
                                           "a_ns", jnum(h->a[s]), "b_ns_per_byte", jnum(h->b[s])));
    return a;
}

static json_t *loggp_json(const pnm_loggp_t *g)
{
    json_t *b = json_array();
    for (int i = 0; i < g->nband; i++)
        json_array_append_new(b, json_pack("{s:o, s:o, s:o, s:o, s:o}", "hi",
                                           g->band_hi[i] == UINT64_MAX
                                               ? json_null()
                                               : json_integer((json_int_t)g->band_hi[i]),
                                           "L2o_ns", jnum(g->L2o[i]), "G_ns_per_byte",
                                           jnum(g->G[i]), "L_ns", jnum(g->L[i]), "o_ns",
                                           jnum(g->o[i])));
    static const char *const split[] = {"none", "handshake", "bound"}; /* PNM_LO_SPLIT_* */
    return json_pack("{s:o, s:I, s:o, s:o, s:s}", "bands", b, "rndv", (json_int_t)g->rndv,
                     "handshake_ns", jnum(g->handshake), "g_ns", jnum(g->g), "L_o_split",
                     split[g->lo_split >= 0 && g->lo_split <= 2 ? g->lo_split : 0]);
}

/* A model's parameters: {} for the lookup table (its samples are the model) */
static json_t *params_json(const pnm_model_t *m)
{
    json_t *src = json_array();
    if (m->kind == PNM_HOCKNEY) {
        for (int32_t r = 0; r < m->nranks; r++)
            if (m->hock[r].nseg)
                json_array_append_new(src, json_pack("{s:i, s:o}", "src", (int)r, "segments",
                                                     segs_json(&m->hock[r])));
        return json_pack("{s:o, s:o}", "sources", src, "all",
                         json_pack("{s:o}", "segments", segs_json(&m->hock_all)));
    }
    if (m->kind == PNM_LOGGP) {
        for (int32_t r = 0; r < m->nranks; r++)
            if (m->lgp[r].nband) {
                json_t *o = loggp_json(&m->lgp[r]);
                json_object_set_new(o, "src", json_integer(r));
                json_array_append_new(src, o);
            }
        return json_pack("{s:o, s:o}", "sources", src, "all", loggp_json(&m->lgp_all));
    }
    json_decref(src);
    return json_object();
}

/* A string from the run (host names, the library's version) as JSON: jansson refuses one
 * that is not UTF-8, so it is repaired here (utf8.h) instead of silently dropped. */
static json_t *jtext(const char *s)
{
    size_t need = utf8_sanitize(NULL, 0, s);
    char *buf = malloc(need + 1);
    if (buf == NULL)
        return NULL;
    utf8_sanitize(buf, need + 1, s);
    json_t *j = json_string(buf);
    free(buf);
    return j;
}

/* The file's JSON document, or NULL when a part of it could not be made (out of memory). */
static json_t *file_json(const pmf_t *f)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(PMF_FORMAT));
    json_object_set_new(root, "version", json_integer(PMF_VERSION));
    char seedhex[24];
    snprintf(seedhex, sizeof(seedhex), "0x%016llx", (unsigned long long)f->seed);
    json_t *hosts = json_array();
    int whole = root != NULL && hosts != NULL;
    for (int32_t r = 0; whole && f->hosts && r < f->nranks; r++)
        whole = json_array_append_new(hosts, jtext(f->hosts[r])) == 0;
    json_t *probe = json_pack("{s:s, s:i, s:I, s:o, s:s, s:s, s:o, s:o}", "mode",
                              f->mode == 2 ? "full" : "quick", "ranks", (int)f->nranks,
                              "repetitions", (json_int_t)f->reps, "elapsed_s",
                              jnum(f->elapsed_s), "seed", seedhex, "created", f->created,
                              "library", jtext(f->library), "hosts", hosts);
    /* json_pack released what it stole when it failed; set_new releases probe when it does */
    if (!whole || probe == NULL || json_object_set_new(root, "probe", probe) != 0) {
        if (!whole)
            json_decref(probe);
        json_decref(root);
        return NULL;
    }
    /* "samples": the way the mode is named for; a quick probe's one-way samples apart */
    int main_way = f->mode == 2 ? PNM_ONEWAY : PNM_EXCHANGE;
    json_t *samples = json_array(), *oneway = json_array();
    for (size_t i = 0; i < f->n; i++) {
        const pnm_sample_t *s = &f->s[i];
        json_t *row = json_pack("[i, i, I, I]", (int)s->src, (int)s->dst, (json_int_t)s->bytes,
                                (json_int_t)s->q.n);
        for (int k = 0; k < PNM_NQ; k++)
            json_array_append_new(row, jnum(s->q.v[k]));
        json_array_append_new(row, jnum(s->q.mean));
        json_array_append_new(s->way == main_way ? samples : oneway, row);
    }
    json_object_set_new(root, "samples", samples);
    if (json_array_size(oneway))
        json_object_set_new(root, "oneway_samples", oneway);
    else
        json_decref(oneway);
    json_t *models = json_object();
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        if (!f->has[k])
            continue;
        json_t *mj = params_json(&f->m[k]);
        if (f->m[k].oneway)
            json_object_set_new(mj, "oneway", params_json(f->m[k].oneway));
        json_object_set_new(models, pnm_kind_name((pnm_kind_t)k), mj);
    }
    json_object_set_new(root, "models", models);
    return root;
}

plog_err_t pmf_write(const char *path, const pmf_t *f, plog_error_t *err)
{
    /* beside it, then renamed over it (ofile.h): a failed write leaves a file already there
     * whole, and nothing planted at either name is followed */
    json_t *root = file_json(f);
    if (root == NULL)
        return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET,
                         "%s: cannot write the file: out of memory", path);
    ofile_t of;
    int rc = ofile_open(&of, AT_FDCWD, path);
    if (rc == 0) {
        rc = json_dumpf(root, of.f, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
        errno = 0;
        if (ofile_close(&of, rc == 0) != 0)
            rc = -1;
    }
    int e = errno;
    json_decref(root);
    if (rc != 0)
        return plog_fail(err, PLOG_E_IO, NULL, PLOG_NO_OFFSET, "%s: cannot write the file%s%s",
                         path, e ? ": " : "", e ? strerror(e) : "");
    return PLOG_OK;
}
