/* model_file_read.c: reading the network model file (model_file.h, doc/model-format.md)
 * with jansson: every field checked, a refusal naming the file and the field. */
#include "model_file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* plog_fail with the message "<path>: <detail>" */
static plog_err_t bad(plog_error_t *err, plog_err_t code, const char *path, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
static plog_err_t bad(plog_error_t *err, plog_err_t code, const char *path, const char *fmt,
                      ...)
{
    char d[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d, sizeof(d), fmt, ap);
    va_end(ap);
    return plog_fail(err, code, NULL, PLOG_NO_OFFSET, "%s: %s", path, d);
}

static int num(json_t *v, double *out)
{
    if (!json_is_number(v))
        return 0;
    *out = json_number_value(v);
    return isfinite(*out);
}

/* where.name (Hockney's "segments", LogGP's "bands"): an array of min to max, *n of them.
 * min is 0 for the pooled fit ("all"), which a probe without pooled samples leaves empty:
 * the file must read back as the fit that was written. */
static plog_err_t read_array(const char *path, const char *where, const char *name, json_t *a,
                             int min, int max, int *n, plog_error_t *err)
{
    if (!json_is_array(a) || json_array_size(a) < (size_t)min || json_array_size(a) > (size_t)max)
        return bad(err, PLOG_E_CORRUPT, path, "%s.%s: not an array of %d to %d %s", where, name,
                   min, max, name);
    *n = (int)json_array_size(a);
    return PLOG_OK;
}

/* Member i of n of where.name, m: its upper bound "hi" into hi[i], a positive integer above
 * hi[i - 1], or null (UINT64_MAX) for the last; unbounded: what to say when the last's is
 * not null. */
static plog_err_t read_hi(const char *path, const char *where, const char *name, json_t *m,
                          int i, int n, const char *unbounded, uint64_t *hi, plog_error_t *err)
{
    json_t *h = json_object_get(m, "hi");
    int last = i == n - 1;
    if (last ? !json_is_null(h) : !json_is_integer(h) || json_integer_value(h) <= 0)
        return bad(err, PLOG_E_CORRUPT, path, "%s.%s[%d].hi: %s", where, name, i,
                   last ? unbounded : "not a positive integer");
    hi[i] = last ? UINT64_MAX : (uint64_t)json_integer_value(h);
    if (i > 0 && hi[i] <= hi[i - 1])
        return bad(err, PLOG_E_CORRUPT, path, "%s.%s[%d].hi: not increasing", where, name, i);
    return PLOG_OK;
}

static plog_err_t read_segs(const char *path, const char *where, json_t *a, int min,
                            pnm_hockney_src_t *h, plog_error_t *err)
{
    int n;
    plog_err_t e = read_array(path, where, "segments", a, min, PNM_MAXSEG, &n, err);
    if (e != PLOG_OK)
        return e;
    memset(h, 0, sizeof(*h));
    h->nseg = n;
    for (int s = 0; s < h->nseg; s++) {
        json_t *seg = json_array_get(a, (size_t)s);
        if ((e = read_hi(path, where, "segments", seg, s, h->nseg,
                         "must be null (the last segment is unbounded)", h->hi, err)) != PLOG_OK)
            return e;
        if (!num(json_object_get(seg, "a_ns"), &h->a[s]) ||
            !num(json_object_get(seg, "b_ns_per_byte"), &h->b[s]))
            return bad(err, PLOG_E_CORRUPT, path, "%s.segments[%d]: a_ns and b_ns_per_byte must "
                       "be finite numbers", where, s);
    }
    return PLOG_OK;
}

static const char *const lo_split_name[] = {"none", "handshake", "bound"}; /* PNM_LO_SPLIT_* */

static plog_err_t read_loggp(const char *path, const char *where, json_t *o, int min,
                             json_int_t ver, pnm_loggp_t *g, plog_error_t *err)
{
    json_t *b = json_object_get(o, "bands");
    int n;
    plog_err_t e = read_array(path, where, "bands", b, min, PNM_MAXBAND, &n, err);
    if (e != PLOG_OK)
        return e;
    memset(g, 0, sizeof(*g));
    g->nband = n;
    for (int i = 0; i < g->nband; i++) {
        json_t *band = json_array_get(b, (size_t)i);
        if ((e = read_hi(path, where, "bands", band, i, g->nband, "must be null", g->band_hi,
                         err)) != PLOG_OK)
            return e;
        /* a band above the first starts where the band below ends, so its L2o (its line
         * at 0 bytes) can be below 0 (version 7 on); its line must not be where it starts */
        if (!num(json_object_get(band, "L2o_ns"), &g->L2o[i]) ||
            !num(json_object_get(band, "G_ns_per_byte"), &g->G[i]) || g->G[i] < 0 ||
            (i == 0 ? g->L2o[i] < 0
                    : g->L2o[i] + g->G[i] * (double)(g->band_hi[i - 1] - 1) < -1e-6))
            return bad(err, PLOG_E_CORRUPT, path, "%s.bands[%d]: L2o_ns and G_ns_per_byte must "
                       "be numbers, G_ns_per_byte >= 0 and the band's line >= 0 where it "
                       "starts (L2o_ns >= 0 in the first band)", where, i);
        /* before version 9 only L + 2o was fitted: not told apart, as the fit says so */
        g->L[i] = fmax(0, g->L2o[i]);
        g->o[i] = 0;
        if (ver >= 9 && (!num(json_object_get(band, "L_ns"), &g->L[i]) || g->L[i] < 0 ||
                         !num(json_object_get(band, "o_ns"), &g->o[i]) || g->o[i] < 0))
            return bad(err, PLOG_E_CORRUPT, path, "%s.bands[%d]: L_ns and o_ns must be numbers "
                       ">= 0", where, i);
    }
    json_t *r = json_object_get(o, "rndv");
    if (!json_is_integer(r) || json_integer_value(r) < 0)
        return bad(err, PLOG_E_CORRUPT, path, "%s.rndv: not an integer >= 0", where);
    g->rndv = (uint64_t)json_integer_value(r);
    if (!num(json_object_get(o, "handshake_ns"), &g->handshake) || g->handshake < 0 ||
        !num(json_object_get(o, "g_ns"), &g->g) || g->g < 0)
        return bad(err, PLOG_E_CORRUPT, path, "%s: handshake_ns and g_ns must be numbers >= 0",
                   where);
    g->lo_split = PNM_LO_SPLIT_NONE;
    if (ver < 9)
        return PLOG_OK;
    json_t *sp = json_object_get(o, "L_o_split");
    int k = 0;
    while (k < 3 && !(json_is_string(sp) && !strcmp(json_string_value(sp), lo_split_name[k])))
        k++;
    if (k == 3)
        return bad(err, PLOG_E_CORRUPT, path, "%s.L_o_split: not \"none\", \"handshake\" or "
                   "\"bound\"", where);
    g->lo_split = k;
    /* the handshake is 2L + 2o of the band above the eager limit, never a free jump */
    if (g->rndv) {
        int rb = 0;
        while (rb < g->nband - 1 && g->rndv + 1 > g->band_hi[rb])
            rb++;
        double want = 2 * g->L[rb] + 2 * g->o[rb];
        if (fabs(g->handshake - want) > 1e-6 * want + 1e-3)
            return bad(err, PLOG_E_CORRUPT, path, "%s: handshake_ns %g is not 2 L_ns + 2 o_ns "
                       "(%g) of bands[%d], the band above rndv", where, g->handshake, want, rb);
    }
    return PLOG_OK;
}

/* Appends the rows of array a (named where) to f->s as samples of the given way. */
static plog_err_t read_samples(const char *path, const char *where, json_t *a, int way,
                               pmf_t *f, plog_error_t *err)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *row = json_array_get(a, i);
        pnm_sample_t *s = &f->s[f->n];
        if (!json_is_array(row) || json_array_size(row) != 4 + PNM_NQ + 1 ||
            !json_is_integer(json_array_get(row, 0)) || !json_is_integer(json_array_get(row, 1)) ||
            !json_is_integer(json_array_get(row, 2)) || !json_is_integer(json_array_get(row, 3)))
            return bad(err, PLOG_E_CORRUPT, path,
                       "%s[%zu]: not [src, dst, bytes, n, 7 quantiles, mean]", where, i);
        json_int_t src = json_integer_value(json_array_get(row, 0)),
                   dst = json_integer_value(json_array_get(row, 1)),
                   bytes = json_integer_value(json_array_get(row, 2)),
                   n = json_integer_value(json_array_get(row, 3));
        if (src < 0 || src >= f->nranks || dst < -1 || dst >= f->nranks || dst == src ||
            bytes < 0 || n <= 0 || n > UINT32_MAX)
            return bad(err, PLOG_E_CORRUPT, path,
                       "%s[%zu]: src %lld, dst %lld, bytes %lld or n %lld out "
                       "of range (%d ranks)", where, i, (long long)src, (long long)dst,
                       (long long)bytes, (long long)n, (int)f->nranks);
        s->src = (int32_t)src;
        s->dst = (int32_t)dst;
        s->bytes = (uint64_t)bytes;
        s->q.n = (uint32_t)n;
        s->way = way;
        for (int k = 0; k <= PNM_NQ; k++) {
            double x;
            if (!num(json_array_get(row, 4 + (size_t)k), &x) || x < 0 ||
                (k > 0 && k < PNM_NQ && x < s->q.v[k - 1]))
                return bad(err, PLOG_E_CORRUPT, path,
                           "%s[%zu][%d]: times must be numbers >= 0, the "
                           "quantiles non-decreasing", where, i, 4 + k);
            if (k < PNM_NQ)
                s->q.v[k] = x;
            else
                s->q.mean = x;
        }
        f->n++;
    }
    return PLOG_OK;
}

/* A model's parameters from mj (named where) over the fitted ones of m. */
static plog_err_t read_params(const char *path, const char *where, json_t *mj,
                              json_int_t ver, pnm_model_t *m, plog_error_t *err)
{
    if (m->kind == PNM_LOOKUP)
        return PLOG_OK;
    json_t *srcs = json_object_get(mj, "sources"), *all = json_object_get(mj, "all");
    if (!json_is_array(srcs) || !json_is_object(all))
        return bad(err, PLOG_E_CORRUPT, path, "%s: needs \"sources\" (array) and \"all\"", where);
    char w[128];
    snprintf(w, sizeof(w), "%s.all", where);
    plog_err_t e = m->kind == PNM_HOCKNEY
                       ? read_segs(path, w, json_object_get(all, "segments"), 0, &m->hock_all,
                                   err)
                       : read_loggp(path, w, all, 0, ver, &m->lgp_all, err);
    if (e != PLOG_OK)
        return e;
    for (size_t i = 0; i < json_array_size(srcs); i++) {
        json_t *so = json_array_get(srcs, i), *sr = json_object_get(so, "src");
        if (!json_is_integer(sr) || json_integer_value(sr) < 0 ||
            json_integer_value(sr) >= m->nranks)
            return bad(err, PLOG_E_CORRUPT, path, "%s.sources[%zu].src: not a rank of the %d",
                       where, i, (int)m->nranks);
        int32_t r = (int32_t)json_integer_value(sr);
        snprintf(w, sizeof(w), "%s.sources[%zu]", where, i);
        e = m->kind == PNM_HOCKNEY
                ? read_segs(path, w, json_object_get(so, "segments"), 1, &m->hock[r], err)
                : read_loggp(path, w, so, 1, ver, &m->lgp[r], err);
        if (e != PLOG_OK)
            return e;
    }
    return PLOG_OK;
}


/* The file's format and version (*ver), and its probe's fields into f. */
static plog_err_t read_probe(const char *path, json_t *root, json_int_t *ver, pmf_t *f,
                             plog_error_t *err)
{
    json_t *fmt = json_object_get(root, "format"), *v = json_object_get(root, "version");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), PMF_FORMAT) != 0)
        return bad(err, PLOG_E_BADMAGIC, path, "not a phasor model file (format is not \"%s\")",
                   PMF_FORMAT);
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > PMF_VERSION)
        return bad(err, PLOG_E_VERSION, path,
                   "version %lld: this phasor reads model files of versions 1 to %d",
                   json_is_integer(v) ? (long long)json_integer_value(v) : -1LL, PMF_VERSION);
    *ver = json_integer_value(v);
    json_t *probe = json_object_get(root, "probe");
    json_t *mode = json_object_get(probe, "mode"), *ranks = json_object_get(probe, "ranks");
    if (!json_is_string(mode) || (strcmp(json_string_value(mode), "quick") != 0 &&
                                  strcmp(json_string_value(mode), "full") != 0))
        return bad(err, PLOG_E_CORRUPT, path, "probe.mode: not \"quick\" or \"full\"");
    f->mode = strcmp(json_string_value(mode), "full") == 0 ? 2 : 1;
    if (!json_is_integer(ranks) || json_integer_value(ranks) <= 0 ||
        json_integer_value(ranks) > (1 << 24))
        return bad(err, PLOG_E_CORRUPT, path, "probe.ranks: not a rank count");
    f->nranks = (int32_t)json_integer_value(ranks);
    if ((v = json_object_get(probe, "repetitions")) && json_is_integer(v))
        f->reps = (uint32_t)json_integer_value(v);
    if ((v = json_object_get(probe, "elapsed_s")))
        num(v, &f->elapsed_s);
    if ((v = json_object_get(probe, "seed")) && json_is_string(v))
        f->seed = strtoull(json_string_value(v), NULL, 16);
    if ((v = json_object_get(probe, "created")) && json_is_string(v))
        snprintf(f->created, sizeof(f->created), "%s", json_string_value(v));
    if ((v = json_object_get(probe, "library")) && json_is_string(v))
        snprintf(f->library, sizeof(f->library), "%s", json_string_value(v));
    return PLOG_OK;
}

/* The samples (a quick probe's one-way samples too, version 2 on) and the hosts into f. */
static plog_err_t read_all_samples(const char *path, json_t *root, json_int_t ver, pmf_t *f,
                                   plog_error_t *err)
{
    json_t *samples = json_object_get(root, "samples");
    json_t *owj = json_object_get(root, "oneway_samples");
    if (!json_is_array(samples) || json_array_size(samples) == 0)
        return bad(err, PLOG_E_CORRUPT, path, "samples: not a non-empty array");
    if (owj && (ver < 2 || f->mode != 1 || !json_is_array(owj) || json_array_size(owj) == 0))
        return bad(err, PLOG_E_CORRUPT, path, "oneway_samples: only a quick probe's file of "
                   "version 2 or later has them, as a non-empty array");
    f->s = calloc(json_array_size(samples) + (owj ? json_array_size(owj) : 0), sizeof(*f->s));
    if (!f->s)
        return bad(err, PLOG_E_NOMEM, path, "out of memory");
    plog_err_t e = read_samples(path, "samples", samples,
                                f->mode == 2 ? PNM_ONEWAY : PNM_EXCHANGE, f, err);
    if (e == PLOG_OK && owj)
        e = read_samples(path, "oneway_samples", owj, PNM_ONEWAY, f, err);
    if (e != PLOG_OK)
        return e;
    json_t *hosts = json_object_get(json_object_get(root, "probe"), "hosts");
    if (json_is_array(hosts) && json_array_size(hosts) == (size_t)f->nranks) {
        f->hosts = calloc((size_t)f->nranks, sizeof(*f->hosts));
        if (!f->hosts) /* fitted without them, the models would not be the file's */
            return bad(err, PLOG_E_NOMEM, path, "out of memory");
        for (int32_t r = 0; r < f->nranks; r++) {
            json_t *h = json_array_get(hosts, (size_t)r);
            snprintf(f->hosts[r], sizeof(f->hosts[r]), "%s",
                     json_is_string(h) ? json_string_value(h) : "");
        }
    }
    return PLOG_OK;
}

/* The models of f, each named in the file: fitted again from the samples as the file's
 * version fitted them (which sets up their tables), then the parameters the file gives
 * replace the fit's, so an edited file means what it says. fs: scratch, the fit's
 * samples. */
static plog_err_t read_models(const char *path, json_t *models, json_int_t ver, pmf_t *f,
                              const pnm_sample_t *fs, size_t changed, plog_error_t *err)
{
    pnm_samples_t in = {f->nranks, f->mode, f->n, fs};
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        const char *name = pnm_kind_name((pnm_kind_t)k);
        json_t *mj = json_object_get(models, name);
        if (!mj)
            continue;
        char w[256];
        if (pnm_fit((pnm_kind_t)k, &in, NULL, &f->m[k], w, sizeof(w)) != PNM_OK)
            return bad(err, PLOG_E_CORRUPT, path, "samples: %s", w);
        f->has[k] = 1;
        /* before version 3, quick models were fitted to the shared times: refitted */
        if (changed && ver < 3)
            continue;
        char where[96];
        snprintf(where, sizeof(where), "models.%s", name);
        plog_err_t e = read_params(path, where, mj, ver, &f->m[k], err);
        if (e != PLOG_OK)
            return e;
        json_t *oj = json_object_get(mj, "oneway");
        if (oj && !f->m[k].oneway)
            return bad(err, PLOG_E_CORRUPT, path, "models.%s.oneway: the file has no "
                       "oneway_samples", name);
        snprintf(where, sizeof(where), "models.%s.oneway", name);
        if (oj && (e = read_params(path, where, oj, ver, f->m[k].oneway, err)) != PLOG_OK)
            return e;
    }
    return PLOG_OK;
}

/* The models object: only models this phasor knows; then read_models. */
static plog_err_t read_all_models(const char *path, json_t *root, json_int_t ver, pmf_t *f,
                                  plog_error_t *err)
{
    json_t *models = json_object_get(root, "models");
    if (!json_is_object(models))
        return bad(err, PLOG_E_CORRUPT, path, "models: not an object");
    const char *key;
    json_t *val;
    json_object_foreach(models, key, val) {
        if (pnm_kind_parse(key) < 0)
            return bad(err, PLOG_E_CORRUPT, path,
                       "models.%s: unknown model (lookup, hockney, loggp)", key);
    }
    size_t changed;
    /* as the file was written */
    pnm_sample_t *fs = pmf_fit_copy(f, (ver >= 4 ? PMF_FIT_POOL : 0u) |
                                           (ver >= 6 ? PMF_FIT_SLOWEST : 0u) |
                                           (ver >= 8 ? PMF_FIT_SMALLEST : 0u),
                                    &changed);
    if (!fs)
        return bad(err, PLOG_E_NOMEM, path, "out of memory");
    plog_err_t e = read_models(path, models, ver, f, fs, changed, err);
    free(fs);
    return e;
}

plog_err_t pmf_read(const char *path, pmf_t *f, plog_error_t *err)
{
    memset(f, 0, sizeof(*f));
    /* The whole document is held while it is read (jansson): about 0.9 KB per sample, some
     * 7 times the file's size. So the size is checked first (doc/model-format.md, "Limits"). */
    /* non-blocking open: a FIFO named here must not hang the command */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return bad(err, PLOG_E_IO, path, "%s",
                   strerror(errno));
    FILE *in = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (in = fdopen(fd, "r")) == NULL) {
        close(fd);
        return bad(err, PLOG_E_IO, path, "not a regular file");
    }
    if (st.st_size > PMF_MAX_BYTES) {
        fclose(in);
        return bad(err, PLOG_E_CORRUPT, path,
                   "%lld bytes; a model file may have at most %d MiB (about %d samples)",
                   (long long)st.st_size, PMF_MAX_BYTES >> 20, PMF_MAX_BYTES / 128);
    }
    json_error_t je;
    json_t *root = json_loadf(in, 0, &je);
    fclose(in);
    if (!root)
        return bad(err, PLOG_E_CORRUPT, path, "line %d: %s", je.line, je.text);
    json_int_t ver = 0;
    plog_err_t e = read_probe(path, root, &ver, f, err);
    if (e == PLOG_OK)
        e = read_all_samples(path, root, ver, f, err);
    if (e == PLOG_OK)
        e = read_all_models(path, root, ver, f, err);
    json_decref(root);
    if (e != PLOG_OK)
        pmf_free(f);
    return e;
}
