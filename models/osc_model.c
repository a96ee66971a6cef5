/* osc_model.c: the oscillator model's parts (osc_model.h): potentials, coupling graphs,
 * noise, perturbations, initial states, the model check and the delay-free right-hand side.
 * The integrator is osc_dp45.c. */
#include "osc_priv.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the potential ---- */

int osc_pot_parse(const char *s, osc_pot_t *p)
{
    memset(p, 0, sizeof(*p));
    char tail;
    if (strcmp(s, "sin") == 0) {
        p->kind = OSC_POT_SIN;
        return 0;
    }
    if (strcmp(s, "tanh") == 0) {
        p->kind = OSC_POT_TANH;
        p->s = 1;
        return 0;
    }
    if (sscanf(s, "tanh:%lf%c", &p->s, &tail) == 1 && p->s > 0 && isfinite(p->s)) {
        p->kind = OSC_POT_TANH;
        return 0;
    }
    if (strcmp(s, "piecewise") == 0) {
        p->kind = OSC_POT_PIECEWISE;
        p->sigma = M_PI;
        return 0;
    }
    if (sscanf(s, "piecewise:%lf%c", &p->sigma, &tail) == 1 && p->sigma > 0 &&
        isfinite(p->sigma)) {
        p->kind = OSC_POT_PIECEWISE;
        return 0;
    }
    if (sscanf(s, "fourier:%lf,%lf,%d%c", &p->a, &p->b, &p->harmonic, &tail) == 3 &&
        isfinite(p->a) && isfinite(p->b) && p->harmonic >= 1) {
        p->kind = OSC_POT_FOURIER;
        return 0;
    }
    if (strncmp(s, "wait", 4) == 0 && (s[4] == '\0' || s[4] == ':')) {
        p->kind = OSC_POT_WAIT;
        p->sigma = 2 * M_PI;
        p->s = 4;
        int got = s[4] == '\0' ? 0 : sscanf(s + 4, ":%lf%c", &p->sigma, &tail);
        if (got == 2 && tail == ':')
            got = sscanf(s + 4, ":%lf:%lf%c", &p->sigma, &p->s, &tail) == 2 ? 0 : -1;
        else if (got == 1)
            got = 0;
        else if (s[4] != '\0')
            got = -1;
        if (got == 0 && p->sigma >= 0 && isfinite(p->sigma) && p->s > 0 && isfinite(p->s))
            return 0;
    }
    memset(p, 0, sizeof(*p));
    return -1;
}

int osc_pot_format(const osc_pot_t *p, char *buf, size_t n)
{
    switch (p->kind) {
    case OSC_POT_TANH: return snprintf(buf, n, "tanh:%.9g", p->s);
    case OSC_POT_PIECEWISE: return snprintf(buf, n, "piecewise:%.9g", p->sigma);
    case OSC_POT_FOURIER:
        return snprintf(buf, n, "fourier:%.9g,%.9g,%d", p->a, p->b, p->harmonic);
    case OSC_POT_WAIT: return snprintf(buf, n, "wait:%.9g:%.9g", p->sigma, p->s);
    default: return snprintf(buf, n, "sin");
    }
}

double osc_pot_eval(const osc_pot_t *p, double x)
{
    return osc_pot_v(p, x, 0);
}

/* ---- graphs ---- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int osc_graph_from_pairs(int32_t n, const int32_t *pairs, size_t npairs, osc_graph_t *g,
                         char *why, size_t nwhy)
{
    memset(g, 0, sizeof(*g));
    if (n < 1)
        return why_fail(why, nwhy, "graph of %d nodes", (int)n);
    if (npairs > UINT32_MAX)
        return why_fail(why, nwhy, "%zu pairs: more than 2^32 edges", npairs);
    for (size_t k = 0; k < npairs; k++) {
        int32_t i = pairs[2 * k], j = pairs[2 * k + 1];
        if (i < 0 || i >= n || j < 0 || j >= n)
            return why_fail(why, nwhy, "pair %zu (%d, %d): a rank outside 0..%d", k, (int)i,
                            (int)j, (int)n - 1);
        if (i == j)
            return why_fail(why, nwhy, "pair %zu: rank %d coupled to itself", k, (int)i);
    }
    g->off = calloc((size_t)n + 1, sizeof(*g->off));
    g->nb = malloc((npairs ? npairs : 1) * sizeof(*g->nb));
    if (!g->off || !g->nb) {
        osc_graph_free(g);
        return why_fail(why, nwhy, "out of memory");
    }
    g->n = n;
    /* counting sort by receiver, then each row sorted and its duplicates dropped */
    for (size_t k = 0; k < npairs; k++)
        g->off[pairs[2 * k] + 1]++;
    for (int32_t i = 0; i < n; i++)
        g->off[i + 1] += g->off[i];
    uint32_t *fill = malloc((size_t)n * sizeof(*fill));
    if (!fill) {
        osc_graph_free(g);
        return why_fail(why, nwhy, "out of memory");
    }
    memcpy(fill, g->off, (size_t)n * sizeof(*fill));
    for (size_t k = 0; k < npairs; k++)
        g->nb[fill[pairs[2 * k]]++] = pairs[2 * k + 1];
    free(fill);
    uint32_t w = 0;
    for (int32_t i = 0; i < n; i++) {
        uint32_t a = g->off[i], b = g->off[i + 1];
        qsort(g->nb + a, b - a, sizeof(*g->nb), cmp_i32);
        g->off[i] = w;
        for (uint32_t k = a; k < b; k++)
            if (k == a || g->nb[k] != g->nb[k - 1])
                g->nb[w++] = g->nb[k];
    }
    g->off[n] = w;
    g->nnz = w;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, int *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    long x = strtol(s, &end, 10);
    if (*end || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

int osc_topo_parse(const char *s, osc_topo_spec_t *t)
{
    memset(t, 0, sizeof(*t));
    t->distance = 1;
    char buf[128];
    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    char *save = NULL, *tok = strtok_r(buf, ":", &save);
    if (!tok || s[strlen(s) - 1] == ':' || strstr(s, "::"))
        return -1;
    static const char *const kinds[] = {"chain", "ring", "stencil2d", "stencil3d", "all"};
    t->kind = -1;
    for (int k = 0; k < 5; k++)
        if (strcmp(tok, kinds[k]) == 0)
            t->kind = k;
    if (t->kind < 0)
        goto bad;
    int seen_dir = 0, seen_d = 0, seen_dims = 0, seen_per = 0;
    while ((tok = strtok_r(NULL, ":", &save))) {
        if (t->kind == OSC_TOPO_CHAIN || t->kind == OSC_TOPO_RING) {
            if (!seen_dir && (strcmp(tok, "uni") == 0 || strcmp(tok, "bi") == 0)) {
                t->uni = tok[0] == 'u';
                seen_dir = 1;
            } else if (!seen_d && tok[0] == 'd' &&
                       parse_int(tok + 1, 1, 1 << 20, &t->distance) == 0) {
                seen_d = 1;
            } else {
                goto bad;
            }
        } else if (t->kind == OSC_TOPO_STENCIL2D || t->kind == OSC_TOPO_STENCIL3D) {
            int nd = t->kind == OSC_TOPO_STENCIL2D ? 2 : 3;
            if (!seen_per && strcmp(tok, "periodic") == 0) {
                t->periodic = 1;
                seen_per = 1;
            } else if (!seen_dims && tok[0] >= '0' && tok[0] <= '9') {
                char *x = tok;
                for (int k = 0; k < nd; k++) {
                    char *sep = k + 1 < nd ? strchr(x, 'x') : NULL;
                    if (k + 1 < nd && !sep)
                        goto bad;
                    if (sep)
                        *sep = '\0';
                    if (parse_int(x, 0, INT_MAX, &t->dims[k]) != 0)
                        goto bad;
                    x = sep ? sep + 1 : x;
                }
                seen_dims = 1;
            } else {
                goto bad;
            }
        } else {
            goto bad;
        }
    }
    return 0;
bad:
    memset(t, 0, sizeof(*t));
    return -1;
}

/* Fill the zero extents of dims[0..nd) so that their product is n, as even as possible and
 * larger first (as MPI_Dims_create). */
static int choose_dims(int32_t n, int nd, const int *in, int *out)
{
    long fixed = 1;
    int nfree = 0;
    for (int k = 0; k < nd; k++) {
        out[k] = in[k];
        if (in[k] < 0)
            return -1;
        if (in[k] == 0)
            nfree++;
        else
            fixed *= in[k];
        if (fixed > n)
            return -1;
    }
    if (n % fixed)
        return -1;
    long m = n / fixed;
    long best[3] = {m, 1, 1};
    if (nfree == 0)
        return m == 1 ? 0 : -1;
    if (nfree == 2) {
        for (long a = 1; a * a <= m; a++)
            if (m % a == 0)
                best[0] = m / a, best[1] = a;
    } else if (nfree == 3) {
        long spread = m;
        for (long a = 1; a * a * a <= m; a++) {
            if (m % a)
                continue;
            for (long b = a; a * b * b <= m; b++) {
                if ((m / a) % b)
                    continue;
                long c = m / a / b;
                if (c - a < spread)
                    spread = c - a, best[0] = c, best[1] = b, best[2] = a;
            }
        }
    }
    for (int k = 0, f = 0; k < nd; k++)
        if (out[k] == 0)
            out[k] = (int)best[f++];
    return 0;
}

static int graph_all(int32_t n, osc_graph_t *g, char *why, size_t nwhy)
{
    memset(g, 0, sizeof(*g));
    uint64_t nnz = (uint64_t)n * (uint64_t)(n - 1);
    if (nnz > UINT32_MAX)
        return why_fail(why, nwhy, "all-to-all of %d nodes: more than 2^32 edges", (int)n);
    g->off = malloc(((size_t)n + 1) * sizeof(*g->off));
    g->nb = malloc((nnz ? nnz : 1) * sizeof(*g->nb));
    if (!g->off || !g->nb) {
        osc_graph_free(g);
        return why_fail(why, nwhy, "out of memory");
    }
    g->n = n;
    size_t w = 0;
    for (int32_t i = 0; i < n; i++) {
        g->off[i] = (uint32_t)w;
        for (int32_t j = 0; j < n; j++)
            if (j != i)
                g->nb[w++] = j;
    }
    g->off[n] = (uint32_t)w;
    g->nnz = w;
    return 0;
}

int osc_graph_named(int32_t n, const osc_topo_spec_t *t, osc_graph_t *g, char *why, size_t nwhy)
{
    memset(g, 0, sizeof(*g));
    if (n < 1)
        return why_fail(why, nwhy, "graph of %d nodes", (int)n);
    if (t->kind == OSC_TOPO_ALL)
        return graph_all(n, g, why, nwhy);
    int32_t *pairs = NULL;
    size_t np = 0, cap;
    if (t->kind == OSC_TOPO_CHAIN || t->kind == OSC_TOPO_RING) {
        if (t->distance < 1)
            return why_fail(why, nwhy, "distance %d (>= 1)", t->distance);
        int d = t->distance < n ? t->distance : (int)n;
        cap = (size_t)n * (size_t)d * 2;
        if (!(pairs = malloc(cap * 2 * sizeof(*pairs))))
            return why_fail(why, nwhy, "out of memory");
        for (int32_t i = 0; i < n; i++)
            for (int k = 1; k <= d; k++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    if (dir > 0 && t->uni)
                        continue;
                    int64_t j = (int64_t)i + dir * k;
                    if (t->kind == OSC_TOPO_RING)
                        j = ((j % n) + n) % n;
                    if (j < 0 || j >= n || j == i)
                        continue;
                    pairs[2 * np] = i;
                    pairs[2 * np + 1] = (int32_t)j;
                    np++;
                }
    } else if (t->kind == OSC_TOPO_STENCIL2D || t->kind == OSC_TOPO_STENCIL3D) {
        int nd = t->kind == OSC_TOPO_STENCIL2D ? 2 : 3, dims[3] = {1, 1, 1};
        if (choose_dims(n, nd, t->dims, dims) != 0)
            return why_fail(why, nwhy, "stencil extents %dx%d%s%.0d do not multiply to %d",
                            t->dims[0], t->dims[1], nd == 3 ? "x" : "", nd == 3 ? t->dims[2] : 0,
                            (int)n);
        cap = (size_t)n * (size_t)nd * 2;
        if (!(pairs = malloc(cap * 2 * sizeof(*pairs))))
            return why_fail(why, nwhy, "out of memory");
        int stride[3] = {1, 1, 1};
        for (int k = nd - 2; k >= 0; k--)
            stride[k] = stride[k + 1] * dims[k + 1];
        for (int32_t i = 0; i < n; i++)
            for (int k = 0; k < nd; k++) {
                int c = (i / stride[k]) % dims[k];
                for (int dir = -1; dir <= 1; dir += 2) {
                    if (dir > 0 && t->uni)
                        continue;
                    int cn = c + dir;
                    if (t->periodic)
                        cn = (cn + dims[k]) % dims[k];
                    if (cn < 0 || cn >= dims[k] || cn == c)
                        continue;
                    pairs[2 * np] = i;
                    pairs[2 * np + 1] = i + (cn - c) * stride[k];
                    np++;
                }
            }
    } else {
        return why_fail(why, nwhy, "unknown topology kind %d", t->kind);
    }
    int rc = osc_graph_from_pairs(n, pairs, np, g, why, nwhy);
    free(pairs);
    return rc;
}

int osc_graph_set_delay(osc_graph_t *g, double tau)
{
    if (!(tau >= 0) || !isfinite(tau))
        return -1;
    if (!g->tau && !(g->tau = malloc((g->nnz ? g->nnz : 1) * sizeof(*g->tau))))
        return -1;
    for (size_t k = 0; k < g->nnz; k++)
        g->tau[k] = tau;
    return 0;
}

void osc_graph_free(osc_graph_t *g)
{
    if (!g)
        return;
    free(g->off);
    free(g->nb);
    free(g->tau);
    memset(g, 0, sizeof(*g));
}

/* ---- noise: a counter-based generator (splitmix64's finaliser over seed, rank, window) */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static double uniform3(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t h = mix64(mix64(mix64(seed) ^ a) ^ b);
    return (double)(h >> 11) * 0x1p-53; /* [0, 1) */
}

double osc_noise_r(const osc_noise_t *z, int32_t rank, int64_t window)
{
    if (z->kind == OSC_NOISE_NONE)
        return 0;
    double u = uniform3(z->seed, (uint64_t)(uint32_t)rank, (uint64_t)window);
    return z->kind == OSC_NOISE_EXP ? -log1p(-u) : u;
}

int osc_held(const osc_model_t *m, int32_t i, double t)
{
    for (size_t k = 0; k < m->nperturb; k++) {
        const osc_perturb_t *p = &m->perturb[k];
        if (p->rank == i && p->t <= t && t < p->t + p->delta)
            return 1;
    }
    return 0;
}

/* ---- initial state ---- */

int osc_init_parse(const char *s, osc_init_t *in)
{
    memset(in, 0, sizeof(*in));
    if (strcmp(s, "zero") == 0)
        return 0;
    if (strcmp(s, "splay") == 0) {
        in->kind = OSC_INIT_SPLAY;
        return 0;
    }
    if (strcmp(s, "random") == 0) {
        in->kind = OSC_INIT_RANDOM;
        in->seed = 1;
        return 0;
    }
    if (strncmp(s, "random:", 7) == 0) {
        char *end;
        const char *p = s + 7;
        if (*p < '0' || *p > '9')
            return -1;
        in->seed = strtoull(p, &end, 10);
        if (*end)
            goto bad;
        in->kind = OSC_INIT_RANDOM;
        return 0;
    }
    int k;
    double v;
    char tail;
    if (strncmp(s, "local:", 6) == 0 && s[6] >= '0' && s[6] <= '9' &&
        sscanf(s, "local:%d:%lf%c", &k, &v, &tail) == 2 && k >= 0 && isfinite(v)) {
        in->kind = OSC_INIT_LOCAL;
        in->k = k;
        in->v = v;
        return 0;
    }
bad:
    memset(in, 0, sizeof(*in));
    return -1;
}

int osc_init_fill(const osc_init_t *in, int32_t n, double *theta0)
{
    if (n < 1)
        return -1;
    switch (in->kind) {
    case OSC_INIT_ZERO:
        for (int32_t i = 0; i < n; i++)
            theta0[i] = 0;
        return 0;
    case OSC_INIT_RANDOM:
        for (int32_t i = 0; i < n; i++)
            theta0[i] = OSC_2PI * uniform3(in->seed, 0x696e6974ULL, (uint64_t)i);
        return 0;
    case OSC_INIT_SPLAY:
        for (int32_t i = 0; i < n; i++)
            theta0[i] = OSC_2PI * i / n;
        return 0;
    case OSC_INIT_LOCAL:
        if (in->k < 0 || in->k > n || !isfinite(in->v))
            return -1;
        for (int32_t i = 0; i < n; i++)
            theta0[i] = i < in->k ? in->v : 0;
        return 0;
    case OSC_INIT_GIVEN:
        if (!in->theta)
            return -1;
        for (int32_t i = 0; i < n; i++) {
            if (!isfinite(in->theta[i]))
                return -1;
            theta0[i] = in->theta[i];
        }
        return 0;
    }
    return -1;
}

/* ---- the model ---- */

int osc_model_check(const osc_model_t *m, char *why, size_t nwhy)
{
    if (m->n < 1)
        return why_fail(why, nwhy, "%d oscillators (>= 1)", (int)m->n);
    if (!m->omega)
        return why_fail(why, nwhy, "no frequencies");
    for (int32_t i = 0; i < m->n; i++)
        if (!isfinite(m->omega[i]) || m->omega[i] < 0)
            return why_fail(why, nwhy, "omega[%d] = %g: not a finite frequency >= 0", (int)i,
                            m->omega[i]);
    if (!isfinite(m->vp) || m->vp < 0)
        return why_fail(why, nwhy, "v_p = %g: not finite and >= 0", m->vp);
    const osc_pot_t *p = &m->pot;
    if ((p->kind == OSC_POT_TANH && !(p->s > 0 && isfinite(p->s))) ||
        (p->kind == OSC_POT_PIECEWISE && !(p->sigma > 0 && isfinite(p->sigma))) ||
        (p->kind == OSC_POT_FOURIER &&
         !(isfinite(p->a) && isfinite(p->b) && p->harmonic >= 1)) ||
        (p->kind == OSC_POT_WAIT &&
         !(p->s > 0 && isfinite(p->s) && p->sigma >= 0 && isfinite(p->sigma))) ||
        p->kind < OSC_POT_SIN || p->kind > OSC_POT_WAIT)
        return why_fail(why, nwhy, "a bad potential (kind %d)", p->kind);
    const osc_graph_t *g = m->graph;
    if (g) {
        if (g->n != m->n)
            return why_fail(why, nwhy, "graph of %d nodes for %d oscillators", (int)g->n,
                            (int)m->n);
        if (!g->off || (g->nnz && !g->nb) || g->off[0] != 0 || g->off[g->n] != g->nnz)
            return why_fail(why, nwhy, "a malformed graph");
        for (int32_t i = 0; i < g->n; i++) {
            if (g->off[i + 1] < g->off[i])
                return why_fail(why, nwhy, "a malformed graph (row %d)", (int)i);
            for (uint32_t k = g->off[i]; k < g->off[i + 1]; k++)
                if (g->nb[k] < 0 || g->nb[k] >= g->n || g->nb[k] == i)
                    return why_fail(why, nwhy, "graph edge %d <- %d: outside or a self loop",
                                    (int)i, (int)g->nb[k]);
        }
        if (g->tau)
            for (size_t k = 0; k < g->nnz; k++)
                if (!(g->tau[k] >= 0) || !isfinite(g->tau[k]))
                    return why_fail(why, nwhy, "delay of edge %zu = %g: not finite and >= 0", k,
                                    g->tau[k]);
    }
    const osc_noise_t *z = &m->noise;
    if (z->kind < OSC_NOISE_NONE || z->kind > OSC_NOISE_EXP)
        return why_fail(why, nwhy, "unknown noise kind %d", z->kind);
    if (z->kind != OSC_NOISE_NONE &&
        (!(z->share >= 0) || !isfinite(z->share) || !(z->window > 0) || !isfinite(z->window)))
        return why_fail(why, nwhy, "noise share %g, window %g: want share >= 0, window > 0",
                        z->share, z->window);
    if (m->nperturb && !m->perturb)
        return why_fail(why, nwhy, "%zu perturbations and no array", m->nperturb);
    for (size_t k = 0; k < m->nperturb; k++) {
        const osc_perturb_t *q = &m->perturb[k];
        if (q->rank < 0 || q->rank >= m->n)
            return why_fail(why, nwhy, "perturbation %zu: rank %d outside 0..%d", k,
                            (int)q->rank, (int)m->n - 1);
        if (!isfinite(q->t) || !isfinite(q->delta) || q->delta < 0)
            return why_fail(why, nwhy, "perturbation %zu: t %g, delta %g (want finite, >= 0)",
                            k, q->t, q->delta);
    }
    return 0;
}

void osc_model_rhs(const osc_model_t *m, double t, const double *theta, double *dtheta)
{
    const osc_graph_t *g = m->graph;
    double c = m->vp / m->n;
    int noisy = m->noise.kind != OSC_NOISE_NONE && m->noise.share > 0;
    int64_t w = noisy ? osc_noise_window(m->noise.window, t) : 0;
    for (int32_t i = 0; i < m->n; i++) {
        if (m->nperturb && osc_held(m, i, t)) {
            dtheta[i] = 0;
            continue;
        }
        double s = 0;
        if (g)
            for (uint32_t k = g->off[i]; k < g->off[i + 1]; k++)
                s += osc_pot_eval(&m->pot, theta[g->nb[k]] - theta[i]);
        double z = noisy ? m->noise.share * m->omega[i] * osc_noise_r(&m->noise, i, w) : 0;
        double v = m->omega[i] + z + c * s;
        dtheta[i] = m->forward && v < 0 ? 0 : v;
    }
}
