/* phases_plot.c: the figures of `phasor phases --plots`: aggregation while the grid is
 * walked (bounded by the PP_MAX_* limits, not by the grid or P^2) and the SVG/HTML writers
 * on top of the primitives of phasor_svg.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofile.h"
#include "phases_plot.h"
#include "pstat.h"
#include "phasor_svg.h"

const char *const pp_files[PP_NFILES] = {
    "circle.svg", "order.svg", "entropy.svg", "gradient.svg", "dtheta.svg",
    "dtheta_hist.svg", "heatmap.svg", "potential.svg", "index.html"};

static const double quant[5] = {0.05, 0.25, 0.5, 0.75, 0.95};

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

int pp_init(pp_t *pp, int32_t P, const ph_grid_t *g, const int32_t *pairs, size_t npairs,
            int wrap, int heat_wrap)
{
    memset(pp, 0, sizeof(*pp));
    pp->P = P;
    pp->wrap = wrap;
    pp->heat_wrap = heat_wrap;
    pp->t0 = g->t0;
    pp->dt = g->dt;
    pp->n = g->n;
    pp->per = ceil_div(g->n, PP_MAX_BINS);
    pp->nbins = ceil_div(g->n, pp->per);
    size_t nb = pp->nbins;
    pp->t = calloc(nb, sizeof(double));
    pp->cnt = calloc(nb, sizeof(size_t));
    int bad = pp->t == NULL || pp->cnt == NULL;
    for (int k = 0; k < 3; k++) {
        pp->r[k] = calloc(nb, sizeof(double));
        pp->s[k] = calloc(nb, sizeof(double));
        pp->e[k] = calloc(nb, sizeof(double));
        bad |= !pp->r[k] || !pp->s[k] || !pp->e[k];
    }
    pp->gper = ceil_div(g->n, PP_MAX_COLS);
    pp->gcol = ceil_div(g->n, pp->gper);
    pp->rblock = (int32_t)ceil_div((size_t)P, PP_MAX_ROWS);
    pp->grow = ceil_div((size_t)P, (size_t)pp->rblock);
    pp->gsum = calloc(pp->grow * pp->gcol, sizeof(double));
    pp->gcnt = calloc(pp->grow * pp->gcol, sizeof(uint32_t));
    bad |= !pp->gsum || !pp->gcnt;
    pp->pairs = pairs;
    pp->npairs = npairs;
    /* a few pairs as lines: all of them when few, else two of the chosen (neighbours, with
     * the default pairs of a large run) and the far pairs (P/2, 0), (P-1, 0) */
    if (npairs <= PP_MAX_HL) {
        for (size_t k = 0; k < npairs; k++) {
            pp->hl[k][0] = pairs[2 * k];
            pp->hl[k][1] = pairs[2 * k + 1];
        }
        pp->nhl = (int)npairs;
    } else {
        for (int q = 0; q < 5; q++) {
            pp->q[q] = malloc(nb * sizeof(double));
            bad |= !pp->q[q];
        }
        pp->scratch = malloc(npairs * sizeof(double));
        bad |= !pp->scratch;
        int32_t cand[4][2] = {{pairs[0], pairs[1]},
                              {pairs[2 * (npairs / 2)], pairs[2 * (npairs / 2) + 1]},
                              {P / 2, 0}, {P - 1, 0}};
        for (int c = 0; c < 4; c++) {
            int dup = cand[c][0] == cand[c][1];
            for (int k = 0; k < pp->nhl; k++)
                dup |= pp->hl[k][0] == cand[c][0] && pp->hl[k][1] == cand[c][1];
            if (!dup) {
                pp->hl[pp->nhl][0] = cand[c][0];
                pp->hl[pp->nhl][1] = cand[c][1];
                pp->nhl++;
            }
        }
    }
    for (int k = 0; k < pp->nhl; k++) {
        pp->hls[k] = malloc(nb * sizeof(double));
        bad |= !pp->hls[k];
    }
    pp->nblock = P < PP_MAX_BLOCK ? P : PP_MAX_BLOCK;
    pp->bsize = (int32_t)ceil_div((size_t)P, (size_t)pp->nblock);
    pp->nblock = (int32_t)ceil_div((size_t)P, (size_t)pp->bsize);
    return bad ? -1 : 0;
}

void pp_free(pp_t *pp)
{
    free(pp->t);
    free(pp->cnt);
    for (int k = 0; k < 3; k++) {
        free(pp->r[k]);
        free(pp->s[k]);
        free(pp->e[k]);
    }
    free(pp->gsum);
    free(pp->gcnt);
    for (int q = 0; q < 5; q++)
        free(pp->q[q]);
    free(pp->scratch);
    for (int k = 0; k < PP_MAX_HL; k++)
        free(pp->hls[k]);
    for (size_t k = 0; k < pp->nsnap; k++) {
        free(pp->snap[k].wrapped);
        free(pp->snap[k].hcount);
        free(pp->snap[k].block);
    }
    memset(pp, 0, sizeof(*pp));
}

static void acc(double *a[3], size_t b, int first, double v)
{
    if (first) {
        a[0][b] = v;
        a[1][b] = v;
        a[2][b] = v;
        return;
    }
    a[0][b] += v;
    if (v < a[1][b])
        a[1][b] = v;
    if (v > a[2][b])
        a[2][b] = v;
}

void pp_add(pp_t *pp, size_t g, const double *theta, double R, double S, double E,
            const double *gabs)
{
    size_t b = g / pp->per;
    int first = g % pp->per == 0;
    acc(pp->r, b, first, R);
    acc(pp->s, b, first, S);
    acc(pp->e, b, first, E);
    pp->cnt[b]++;
    size_t col = g / pp->gper;
    for (int32_t r = 0; r < pp->P; r++)
        if (isfinite(gabs[r])) {
            size_t cell = (size_t)(r / pp->rblock) * pp->gcol + col;
            pp->gsum[cell] += gabs[r];
            pp->gcnt[cell]++;
        }
    if (!first)
        return;
    for (int k = 0; k < pp->nhl; k++)
        pp->hls[k][b] = ph_dtheta(theta, pp->hl[k][0], pp->hl[k][1], pp->wrap);
    if (pp->scratch != NULL) {
        size_t m = 0;
        for (size_t p = 0; p < pp->npairs; p++) {
            double d = ph_dtheta(theta, pp->pairs[2 * p], pp->pairs[2 * p + 1], pp->wrap);
            if (isfinite(d))
                pp->scratch[m++] = d;
        }
        qsort(pp->scratch, m, sizeof(double), pstat_cmp_double);
        for (int q = 0; q < 5; q++)
            pp->q[q][b] = m ? pstat_quantile(pp->scratch, m, quant[q]) : NAN;
    }
}

int pp_want_snapshot(size_t k, size_t n, int64_t gk, int64_t gmin)
{
    if (n <= PP_MAX_SNAP || gk == gmin)
        return 1;
    for (size_t i = 0; i < PP_MAX_SNAP - 1; i++)
        if (k == (size_t)llround((double)i * (double)(n - 1) / (PP_MAX_SNAP - 2)))
            return 1;
    return 0;
}

int pp_snapshot(pp_t *pp, const ph_snapshot_t *sn)
{
    if (pp->nsnap == PP_MAX_SNAP)
        return 0;
    const double *theta = sn->theta;
    pp_snap_t *s = &pp->snap[pp->nsnap++];
    memset(s, 0, sizeof(*s));
    s->t = sn->t;
    size_t P = (size_t)pp->P;
    ph_order(theta, P, &s->R, &s->psi);
    for (size_t r = 0; r < P; r++)
        if (isfinite(theta[r])) {
            double w = ph_wrap_pi(theta[r]) + M_PI; /* [0, 2 pi) */
            int k = (int)(w / (2 * M_PI) * PP_RING_BINS);
            s->nring[k < 0 ? 0 : k >= PP_RING_BINS ? PP_RING_BINS - 1 : k]++;
        }
    if (P <= PP_POINTS_UP_TO) {
        s->wrapped = malloc(P * sizeof(double));
        if (s->wrapped == NULL)
            return -1;
        for (size_t r = 0; r < P; r++)
            s->wrapped[r] = isfinite(theta[r]) ? ph_wrap_pi(theta[r]) : NAN;
    }
    if (sn->nd > 0) {
        const ph_bins_t *b = &sn->bins;
        s->hlo = b->lo;
        s->hw = b->width;
        s->hn = b->n;
        s->hcount = malloc(b->n * sizeof(uint64_t));
        if (s->hcount == NULL)
            return -1;
        memcpy(s->hcount, sn->count, b->n * sizeof(uint64_t));
        s->htotal = sn->nd;
    }
    size_t nb = (size_t)pp->nblock;
    s->block = calloc(nb * nb, sizeof(double));
    uint32_t *c = calloc(nb * nb, sizeof(uint32_t));
    if (s->block == NULL || c == NULL) {
        free(c);
        return -1;
    }
    for (size_t i = 0; i < P; i++) {
        if (!isfinite(theta[i]))
            continue;
        size_t bi = i / (size_t)pp->bsize;
        for (size_t j = 0; j < P; j++) {
            if (!isfinite(theta[j]))
                continue;
            size_t cell = bi * nb + j / (size_t)pp->bsize;
            s->block[cell] += ph_dtheta(theta, (int32_t)i, (int32_t)j, pp->heat_wrap);
            c[cell]++;
        }
    }
    for (size_t k = 0; k < nb * nb; k++)
        s->block[k] = c[k] ? s->block[k] / c[k] : NAN;
    free(c);
    return 0;
}

/* ---- writers ---- */

typedef struct tunit {
    double scale;
    const char *name;
} tunit_t;

static tunit_t time_unit(const pp_t *pp)
{
    double span = (double)(pp->n ? pp->n - 1 : 0) * (double)pp->dt;
    if (span < 2e6)
        return (tunit_t){1e3, "us"};
    if (span < 2e9)
        return (tunit_t){1e6, "ms"};
    return (tunit_t){1e9, "s"};
}

static double bin_time(const pp_t *pp, size_t b)
{
    return (double)pp->t0 + (double)pp->dt * ((double)(b * pp->per) + (double)(pp->cnt[b] - 1) / 2);
}

static double t_end(const pp_t *pp)
{
    return (double)pp->t0 + (double)pp->dt * (double)(pp->n ? pp->n - 1 : 0);
}

/* Resynchronisation excursions as shaded spans, the idle wave's source as a line. */
#define MAX_SPANS 500
static void mark_events(const svg_plot_t *p, const pp_summary_t *sm, tunit_t u)
{
    char tip[160];
    for (size_t k = 0; k < sm->rs->n && k < MAX_SPANS; k++) {
        const ph_excursion_t *x = &sm->rs->v[k];
        if (x->recovered)
            snprintf(tip, sizeof(tip), "R < %.2f from %.4g to %.4g %s: resynchronised after "
                     "%.4g %s", sm->thr, x->start_ns / u.scale, x->end_ns / u.scale, u.name,
                     (double)(x->end_ns - x->start_ns) / u.scale, u.name);
        else
            snprintf(tip, sizeof(tip), "R < %.2f from %.4g %s to the end: not resynchronised",
                     sm->thr, x->start_ns / u.scale, u.name);
        svg_vspan(p, (double)x->start_ns, (double)x->end_ns, "#d62728", 0.12, tip);
    }
    if (sm->wave->found) {
        char lab[64];
        snprintf(lab, sizeof(lab), "delay: rank %d", (int)sm->wave->source);
        svg_vline(p, (double)sm->wave_t, "#d62728", "5,3", lab);
    }
}

static void series_range(const double *const *v, int nv, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < nv; k++)
        for (size_t i = 0; i < n; i++)
            if (isfinite(v[k][i])) {
                if (v[k][i] < *lo)
                    *lo = v[k][i];
                if (v[k][i] > *hi)
                    *hi = v[k][i];
            }
    if (!(*hi >= *lo)) {
        *lo = 0;
        *hi = 1;
    }
    if (*hi - *lo < 1e-12 * (fabs(*hi) + 1)) {
        *lo -= 0.5;
        *hi += 0.5;
    } else {
        double pad = (*hi - *lo) * 0.05;
        *lo -= pad;
        *hi += pad;
    }
}

#define W 900
#define H 480
static svg_plot_t time_plot(FILE *f, const pp_t *pp, double y0, double y1)
{
    svg_plot_t p = {.f = f, .x0 = (double)pp->t0, .x1 = t_end(pp), .y0 = y0, .y1 = y1,
                    .x = 80, .y = 56, .w = W - 110, .h = H - 56 - 110};
    if (!(p.x1 > p.x0))
        p.x1 = p.x0 + 1;
    return p;
}

/* R(t), S(t), E(t): the mean per time column, its min-max band, the events. */
static int line_figure(const pp_t *pp, const pp_summary_t *sm, FILE *f, int which)
{
    static const char *const title[3] = {"Order parameter R(t)", "Synchronisation entropy S(t)",
                                         "Potential energy E(t)"};
    static const char *const ylab[3] = {"R (1 = in phase, 0 = spread)", "S (nats)",
                                        "E = sum T_ij V^2(dtheta) (dimensionless)"};
    double *const *a = which == 0 ? pp->r : which == 1 ? pp->s : pp->e;
    tunit_t u = time_unit(pp);
    size_t n = pp->nbins;
    double *x = malloc(n * sizeof(double)), *m = malloc(n * sizeof(double));
    if (!x || !m) {
        free(x);
        free(m);
        return -1;
    }
    for (size_t b = 0; b < n; b++) {
        x[b] = bin_time(pp, b);
        m[b] = a[0][b] / (double)pp->cnt[b];
    }
    char sub[200];
    if (pp->per > 1)
        snprintf(sub, sizeof(sub), "%zu grid points, mean of every %zu with their min-max band; "
                 "shaded: R below %.2f", pp->n, pp->per, sm->thr);
    else
        snprintf(sub, sizeof(sub), "%zu grid points; shaded: R below %.2f", pp->n, sm->thr);
    svg_begin(f, W, H, title[which], sub);
    double lo, hi;
    if (which == 0) {
        lo = 0;
        hi = 1.05;
    } else {
        const double *v[2] = {a[1], a[2]};
        series_range(v, 2, n, &lo, &hi);
        if (lo > 0 && which == 1)
            lo = 0;
    }
    svg_plot_t p = time_plot(f, pp, lo, hi);
    mark_events(&p, sm, u);
    char xl[32];
    snprintf(xl, sizeof(xl), "time (%s)", u.name);
    svg_axes(&p, u.scale, 1, xl, ylab[which]);
    if (pp->per > 1)
        svg_band(&p, x, a[1], a[2], n, "#1f77b4", 0.25);
    svg_polyline(&p, x, m, n, "#1f77b4", 1.5, NULL);
    svg_key_t k[4];
    size_t nk = 0;
    k[nk++] = (svg_key_t){which == 0 ? "R" : which == 1 ? "S" : "E", "#1f77b4", NULL, 1.5};
    if (pp->per > 1)
        k[nk++] = (svg_key_t){"min-max per column", "#1f77b4", NULL, 0};
    if (which == 0) {
        char lab[40];
        snprintf(lab, sizeof(lab), "threshold R* = %.2f", sm->thr);
        svg_hline(&p, sm->thr, "#555", "4,3", NULL);
        k[nk++] = (svg_key_t){"threshold R*", "#555", "4,3", 1};
    }
    if (sm->rs->n > 0)
        k[nk++] = (svg_key_t){"R < R* (to resynchronisation)", "#d62728", NULL, 0};
    svg_legend(&p, k, nk);
    free(x);
    free(m);
    return svg_end(f);
}

static int circle_figure(const pp_t *pp, const pp_summary_t *sm, FILE *f)
{
    (void)sm;
    tunit_t u = time_unit(pp);
    size_t ns = pp->nsnap, cols = ns < 3 ? (ns ? ns : 1) : 3, rows = ns ? ceil_div(ns, 3) : 1;
    int pw = 290, ph = 290, top = 60;
    int width = (int)cols * pw + 20 + 90, height = top + (int)rows * ph + 30;
    char sub[200];
    int points = pp->P <= PP_POINTS_UP_TO;
    snprintf(sub, sizeof(sub), points ? "each rank at (cos theta, sin theta), colour = rank; "
             "red arrow: R e^{i psi}" : "%d ranks: bar length = ranks per 4-degree bin; red "
             "arrow: R e^{i psi}", (int)pp->P);
    svg_begin(f, width, height, "Phase circle snapshots", sub);
    for (size_t k = 0; k < ns; k++) {
        const pp_snap_t *s = &pp->snap[k];
        double cx = 20 + (double)(k % 3) * pw + pw / 2.0, cy = top + (double)(k / 3) * ph + ph / 2.0;
        double rad = 95;
        fprintf(f, "<g class=\"snapshot\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" "
                   "stroke=\"#888\"/>\n", cx, cy, rad);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                cx - rad - 8, cy, cx + rad + 8, cy, cx, cy - rad - 8, cx, cy + rad + 8);
        svg_text(f, cx + rad + 10, cy + 4, "start", 9, 0, "0");
        svg_text(f, cx, cy - rad - 10, "middle", 9, 0, "pi/2");
        svg_text(f, cx - rad - 10, cy + 4, "end", 9, 0, "pi");
        svg_text(f, cx, cy + rad + 18, "middle", 9, 0, "-pi/2");
        if (points && s->wrapped) {
            for (int32_t r = 0; r < pp->P; r++) {
                if (!isfinite(s->wrapped[r]))
                    continue;
                char col[8];
                svg_colour(pp->P > 1 ? (double)r / (pp->P - 1) : 0, 0, col);
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
                           "fill-opacity=\"0.55\"><title>rank %d</title></circle>\n",
                        cx + rad * cos(s->wrapped[r]), cy - rad * sin(s->wrapped[r]), col, (int)r);
            }
        } else {
            uint32_t mx = 1;
            for (int b = 0; b < PP_RING_BINS; b++)
                if (s->nring[b] > mx)
                    mx = s->nring[b];
            for (int b = 0; b < PP_RING_BINS; b++) {
                if (!s->nring[b])
                    continue;
                double a = -M_PI + (b + 0.5) * 2 * M_PI / PP_RING_BINS, len = 40.0 * s->nring[b] / mx;
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#3b528b\" "
                           "stroke-width=\"5\"><title>%u ranks</title></line>\n",
                        cx + rad * cos(a), cy - rad * sin(a), cx + (rad + len) * cos(a),
                        cy - (rad + len) * sin(a), s->nring[b]);
            }
        }
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                   "stroke-width=\"2.5\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#d62728\"/>\n",
                cx, cy, cx + rad * s->R * cos(s->psi), cy - rad * s->R * sin(s->psi),
                cx + rad * s->R * cos(s->psi), cy - rad * s->R * sin(s->psi));
        char lab[96];
        snprintf(lab, sizeof(lab), "t = %.4g %s, R = %.3f", s->t / u.scale, u.name, s->R);
        svg_text(f, cx, cy - rad - 24, "middle", 11, 0, lab);
        fputs("</g>\n", f);
    }
    if (ns == 0)
        svg_text(f, 30, 100, "start", 12, 0, "no snapshots (--snapshots 0)");
    if (points && pp->P > 1)
        svg_colourbar(f, width - 70, top + 20, 160, 0, pp->P - 1, 0, "rank");
    return svg_end(f);
}

static int gradient_figure(const pp_t *pp, const pp_summary_t *sm, FILE *f)
{
    tunit_t u = time_unit(pp);
    size_t R = pp->grow, C = pp->gcol;
    double *v = malloc(R * C * sizeof(double));
    if (v == NULL)
        return -1;
    double vmax = 0;
    for (size_t r = 0; r < R; r++) /* rank 0 at the bottom: rows flipped */
        for (size_t c = 0; c < C; c++) {
            size_t i = r * C + c;
            double m = pp->gcnt[i] ? pp->gsum[i] / pp->gcnt[i] : NAN;
            v[(R - 1 - r) * C + c] = m;
            if (m > vmax)
                vmax = m;
        }
    char sub[240];
    snprintf(sub, sizeof(sub), "g_i = sum_j T_ij |theta_j - theta_i| per rank over time%s; "
             "circles: the idle wave's arrival", pp->rblock > 1 ? " (mean over blocks of ranks)" : "");
    svg_begin(f, W + 60, H + 80, "Topological phase gradient g_i(t)", sub);
    svg_plot_t p = {.f = f, .x0 = (double)pp->t0, .x1 = t_end(pp), .y0 = 0,
                    .y1 = (double)(R * (size_t)pp->rblock), .x = 80, .y = 56, .w = W - 110,
                    .h = H + 80 - 56 - 56};
    if (!(p.x1 > p.x0))
        p.x1 = p.x0 + 1;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f2f2f2\"/>\n",
            p.x, p.y, p.w, p.h);
    svg_raster(&p, R, C, v, 0, vmax > 0 ? vmax : 1, 0);
    char xl[32];
    snprintf(xl, sizeof(xl), "time (%s)", u.name);
    svg_axes(&p, u.scale, 1, xl, pp->rblock > 1 ? "rank (blocks)" : "rank");
    mark_events(&p, sm, u);
    if (sm->wave->found)
        for (int32_t r = 0; r < pp->P; r++)
            if (sm->wave->arrival_iter[r] >= 0)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"white\" "
                           "stroke=\"#d62728\"/>\n", svg_px(&p, (double)sm->wave->arrival_ns[r]),
                        svg_py(&p, r + 0.5));
    svg_colourbar(f, p.x + p.w + 12, p.y, 200, 0, vmax > 0 ? vmax : 1, 0, "g_i (rad)");
    free(v);
    return svg_end(f);
}

static const char *const hl_col[PP_MAX_HL] = {"#d62728", "#ff7f0e", "#2ca02c", "#9467bd"};

static int dtheta_figure(const pp_t *pp, const pp_summary_t *sm, FILE *f)
{
    tunit_t u = time_unit(pp);
    size_t n = pp->nbins;
    double *x = malloc(n * sizeof(double));
    if (x == NULL)
        return -1;
    for (size_t b = 0; b < n; b++)
        x[b] = bin_time(pp, b);
    const double *all[PP_MAX_HL + 5];
    int nv = 0;
    for (int k = 0; k < pp->nhl; k++)
        all[nv++] = pp->hls[k];
    if (pp->scratch)
        for (int q = 0; q < 5; q++)
            all[nv++] = pp->q[q];
    double lo, hi;
    series_range(all, nv, n, &lo, &hi);
    char sub[240];
    if (pp->scratch)
        snprintf(sub, sizeof(sub), "dtheta_ij = theta_j - theta_i%s over the %zu pairs of "
                 "dtheta.csv: median, 25-75%% and 5-95%% bands; lines: single pairs",
                 pp->wrap ? " (wrapped)" : "", pp->npairs);
    else
        snprintf(sub, sizeof(sub), "dtheta_ij = theta_j - theta_i%s for each pair of dtheta.csv",
                 pp->wrap ? " (wrapped)" : "");
    svg_begin(f, W, H, "Phase differences over time", sub);
    svg_plot_t p = time_plot(f, pp, lo, hi);
    mark_events(&p, sm, u);
    char xl[32];
    snprintf(xl, sizeof(xl), "time (%s)", u.name);
    svg_axes(&p, u.scale, 1, xl, "dtheta (rad)");
    svg_key_t k[PP_MAX_HL + 3];
    char lab[PP_MAX_HL][40];
    size_t nk = 0;
    if (pp->scratch) {
        svg_band(&p, x, pp->q[0], pp->q[4], n, "#1f77b4", 0.18);
        svg_band(&p, x, pp->q[1], pp->q[3], n, "#1f77b4", 0.35);
        svg_polyline(&p, x, pp->q[2], n, "#1f77b4", 1.5, NULL);
        k[nk++] = (svg_key_t){"median over pairs", "#1f77b4", NULL, 1.5};
        k[nk++] = (svg_key_t){"25-75% / 5-95% of pairs", "#1f77b4", NULL, 0};
    }
    for (int h = 0; h < pp->nhl; h++) {
        svg_polyline(&p, x, pp->hls[h], n, hl_col[h], 1.2, pp->scratch ? "6,2" : NULL);
        snprintf(lab[h], sizeof(lab[h]), "theta_%d - theta_%d", (int)pp->hl[h][1],
                 (int)pp->hl[h][0]);
        k[nk++] = (svg_key_t){lab[h], hl_col[h], pp->scratch ? "6,2" : NULL, 1.2};
    }
    svg_legend(&p, k, nk);
    free(x);
    return svg_end(f);
}

static int hist_figure(const pp_t *pp, FILE *f)
{
    tunit_t u = time_unit(pp);
    double lo = INFINITY, hi = -INFINITY, ymax = 0;
    for (size_t k = 0; k < pp->nsnap; k++) {
        const pp_snap_t *s = &pp->snap[k];
        if (s->hn == 0)
            continue;
        lo = fmin(lo, s->hlo);
        hi = fmax(hi, s->hlo + s->hw * s->hn);
        for (uint32_t b = 0; b < s->hn; b++)
            ymax = fmax(ymax, (double)s->hcount[b] / (double)s->htotal);
    }
    if (!(hi > lo)) {
        lo = isfinite(lo) ? lo - 0.5 : -1;
        hi = lo + 1;
    }
    svg_begin(f, W, H, "Histogram of the pairwise phase differences",
              pp->wrap ? "every pair j < i, dtheta_ij = theta_j - theta_i wrapped to [-pi, pi); "
                         "Freedman-Diaconis bins; one curve per snapshot"
                       : "every pair j < i, dtheta_ij = theta_j - theta_i (unwrapped); "
                         "Freedman-Diaconis bins; one curve per snapshot");
    svg_plot_t p = {.f = f, .x0 = lo, .x1 = hi, .y0 = 0, .y1 = ymax > 0 ? ymax * 1.08 : 1,
                    .x = 80, .y = 56, .w = W - 110, .h = H - 56 - 130};
    svg_axes(&p, 1, 1, "dtheta (rad)", "fraction of pairs");
    svg_key_t k[PP_MAX_SNAP];
    char lab[PP_MAX_SNAP][64];
    char col[PP_MAX_SNAP][8];
    size_t nk = 0;
    for (size_t s = 0; s < pp->nsnap; s++) {
        const pp_snap_t *sn = &pp->snap[s];
        if (sn->hn == 0)
            continue;
        size_t m = 2 * (size_t)sn->hn + 2;
        double *x = malloc(m * sizeof(double)), *y = malloc(m * sizeof(double));
        if (!x || !y) {
            free(x);
            free(y);
            return -1;
        }
        size_t i = 0;
        x[i] = sn->hlo;
        y[i++] = 0;
        for (uint32_t b = 0; b < sn->hn; b++) {
            double fr = (double)sn->hcount[b] / (double)sn->htotal;
            x[i] = sn->hlo + b * sn->hw;
            y[i++] = fr;
            x[i] = sn->hlo + (b + 1) * sn->hw;
            y[i++] = fr;
        }
        x[i] = sn->hlo + sn->hn * sn->hw;
        y[i++] = 0;
        svg_colour(pp->nsnap > 1 ? (double)s / (double)(pp->nsnap - 1) * 0.85 : 0, 0, col[s]);
        svg_polyline(&p, x, y, i, col[s], 1.5, NULL);
        snprintf(lab[s], sizeof(lab[s]), "t = %.4g %s (R = %.3f)", sn->t / u.scale, u.name, sn->R);
        k[nk++] = (svg_key_t){lab[s], col[s], NULL, 1.5};
        free(x);
        free(y);
    }
    svg_legend(&p, k, nk);
    return svg_end(f);
}

/* Up to four snapshots side by side (as in the paper), the lowest R always among them, on
 * one colour scale. */
#define HEAT_PANELS 4
static int heatmap_figure(const pp_t *pp, FILE *f)
{
    tunit_t u = time_unit(pp);
    size_t best = 0;
    for (size_t k = 1; k < pp->nsnap; k++)
        if (pp->snap[k].R < pp->snap[best].R)
            best = k;
    size_t pick[HEAT_PANELS], np = 0;
    if (pp->nsnap <= HEAT_PANELS)
        for (size_t k = 0; k < pp->nsnap; k++)
            pick[np++] = k;
    else {
        for (size_t i = 0; i < HEAT_PANELS; i++)
            pick[np++] = (size_t)llround((double)i * (double)(pp->nsnap - 1) / (HEAT_PANELS - 1));
        size_t near = 0; /* the lowest R replaces the nearest pick */
        for (size_t i = 1; i < np; i++)
            if (llabs((long long)pick[i] - (long long)best) <
                llabs((long long)pick[near] - (long long)best))
                near = i;
        pick[near] = best;
    }
    size_t nb = (size_t)pp->nblock;
    double amax = 0;
    for (size_t q = 0; q < np; q++)
        for (size_t c = 0; c < nb * nb; c++)
            if (fabs(pp->snap[pick[q]].block[c]) > amax)
                amax = fabs(pp->snap[pick[q]].block[c]);
    if (!(amax > 0))
        amax = 1;
    char sub[240];
    snprintf(sub, sizeof(sub), "cell (i, j): dtheta_ij = theta_j - theta_i%s%s at %zu snapshots "
             "(the lowest R among them); one colour scale", pp->heat_wrap ? ", wrapped" : "",
             pp->bsize > 1 ? ", mean over blocks of ranks" : "", np);
    int side = 340, gap = 90, cols = np < 2 ? 1 : 2, rows = np > 2 ? 2 : 1;
    svg_begin(f, 80 + cols * (side + gap) + 60, 70 + rows * (side + 80),
              "Heatmap of the pairwise phase differences", sub);
    double *v = malloc(nb * nb * sizeof(double));
    if (v == NULL)
        return -1;
    for (size_t q = 0; q < np; q++) {
        const pp_snap_t *s = &pp->snap[pick[q]];
        svg_plot_t p = {.f = f, .x0 = 0, .x1 = (double)(nb * (size_t)pp->bsize), .y0 = 0,
                        .y1 = (double)(nb * (size_t)pp->bsize),
                        .x = 80 + (double)(q % 2) * (side + gap),
                        .y = 80 + (double)(q / 2) * (side + 80), .w = side, .h = side};
        for (size_t i = 0; i < nb; i++) /* rank 0 at the bottom: rows flipped */
            for (size_t j = 0; j < nb; j++)
                v[(nb - 1 - i) * nb + j] = s->block[i * nb + j];
        fprintf(f, "<g class=\"snapshot\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\" fill=\"#f2f2f2\"/>\n", p.x, p.y, p.w, p.h);
        svg_raster(&p, nb, nb, v, -amax, amax, 1);
        svg_axes(&p, 1, 1, "rank j", "rank i");
        char lab[96];
        snprintf(lab, sizeof(lab), "t = %.4g %s, R = %.3f%s", s->t / u.scale, u.name, s->R,
                 pick[q] == best ? " (lowest)" : "");
        svg_text(f, p.x + p.w / 2, p.y - 8, "middle", 11, 0, lab);
        fputs("</g>\n", f);
    }
    if (np == 0)
        svg_text(f, 30, 100, "start", 12, 0, "no snapshots");
    svg_colourbar(f, 80 + cols * (side + gap) - gap + 20, 80, 220, -amax, amax, 1,
                  "dtheta (rad)");
    free(v);
    return svg_end(f);
}

/* ---- index.html ---- */

static void h_num(FILE *f, double v, const char *unit)
{
    if (isfinite(v))
        fprintf(f, "%.4g%s%s", v, unit ? " " : "", unit ? unit : "");
    else
        fputs("&ndash;", f);
}

static const char *const caption[8] = {
    "<b>Phase circle.</b> Each rank is a point at (cos &theta;<sub>i</sub>, sin &theta;<sub>i"
    "</sub>) at a snapshot; the red arrow is the order parameter R e<sup>i&psi;</sup>. "
    "Synchronised ranks sit in one cluster and the arrow reaches the circle; a spread (splay) "
    "state leaves a short arrow. Above 256 ranks the points become a density ring: the length "
    "of each bar is the number of ranks in that 4&deg; sector.",
    "<b>Order parameter R(t).</b> R = |(1/N) &Sigma; e<sup>i&theta;<sub>j</sub></sup>|: 1 when "
    "every rank is at the same phase (whole iterations apart count as equal), 0 when the "
    "phases are evenly spread. A one-off delay makes R dip; shaded spans are the excursions "
    "below the threshold R*, their end is the time to resynchronise. Compute-bound codes "
    "return to R &asymp; 1; memory-bound codes keep a wavefront and R stays low.",
    "<b>Synchronisation entropy S(t).</b> Shannon entropy of the phases (wrapped around "
    "&psi;) over N<sub>b</sub> bins tiling the circle, one centred on &psi; (with "
    "--entropy fd: Freedman&ndash;Diaconis bins over the phases' own range): 0 when all "
    "ranks share one bin, up to log N<sub>b</sub> when the bins are equally filled. It rises "
    "while a disturbance spreads and falls again when the ranks resynchronise.",
    "<b>Topological phase gradient g<sub>i</sub>(t).</b> g<sub>i</sub> = &Sigma;<sub>j</sub> "
    "T<sub>ij</sub> |&theta;<sub>j</sub> &minus; &theta;<sub>i</sub>| over the ranks i receives "
    "from, as a rank &times; time map (bright = far out of step with its neighbours). An idle "
    "wave shows as a bright diagonal stripe moving away from the delayed rank; its slope is "
    "the wave's speed. Circles mark where the detected wave reached each rank.",
    "<b>Phase differences &Delta;&theta;<sub>ij</sub>(t).</b> &theta;<sub>j</sub> &minus; "
    "&theta;<sub>i</sub> for the pairs of dtheta.csv. With many pairs the band shows their "
    "spread (median, 25&ndash;75 % and 5&ndash;95 %) and a few pairs are drawn as lines: "
    "neighbours and far pairs (P/2, 0) and (P&minus;1, 0). Flat lines at 0 mean lockstep; a "
    "constant non-zero offset is a stable lag; a step is a delay passing between the two.",
    "<b>Histogram of &Delta;&theta;.</b> The distribution of every pairwise difference at "
    "each snapshot, as the fraction of pairs per bin. Synchronised runs give one narrow peak "
    "at 0; a wavefront or a persistent lag gives a broad or multi-peaked distribution.",
    "<b>&Delta;&theta; heatmap.</b> All pairwise differences &theta;<sub>j</sub> &minus; "
    "&theta;<sub>i</sub> (row i, column j) at up to four snapshots, the one with the lowest R "
    "among them, on one colour scale (blue: j behind i, red: j ahead), wrapped to "
    "[&minus;&pi;, &pi;) as in the paper unless --heatmap unwrapped (then a rank whole "
    "iterations behind shows by how many). "
    "A delayed rank is a cross of one colour through its row and column; a wavefront gives a "
    "gradient from one corner to the other.",
    "<b>Potential energy E(t).</b> E = &Sigma; T<sub>ij</sub> V<sup>2</sup>(&theta;<sub>j</sub> "
    "&minus; &theta;<sub>i</sub>) with the chosen potential V: the &ldquo;tension&rdquo; in "
    "the coupling. It is 0 in lockstep and jumps when a delay pulls neighbours apart; a smooth "
    "decay to a minimum is the ranks locking again, sudden spikes are instabilities or phase "
    "slips, and a plateau above 0 is a stable desynchronised state (a wavefront)."};

static void index_resync(const pp_summary_t *sm, tunit_t u, FILE *f)
{
    fprintf(f, "<h3>Resynchronisation (R* = %.3g)</h3>\n", sm->thr);
    if (sm->rs->n == 0) {
        fputs("<p>R never fell below the threshold.</p>\n", f);
        return;
    }
    fputs("<table>\n<tr><th>R below R* from</th><th>lowest R</th><th>at</th>"
          "<th>time to resynchronise</th></tr>\n", f);
    size_t shown = sm->rs->n < 50 ? sm->rs->n : 50;
    for (size_t k = 0; k < shown; k++) {
        const ph_excursion_t *x = &sm->rs->v[k];
        fputs("<tr><td>", f);
        h_num(f, x->start_ns / u.scale, u.name);
        fputs(x->preceded ? "" : " (start of the grid)", f);
        fputs("</td><td>", f);
        h_num(f, x->r_min, NULL);
        fputs("</td><td>", f);
        h_num(f, x->min_ns / u.scale, u.name);
        fputs("</td><td>", f);
        if (x->recovered)
            h_num(f, (double)(x->end_ns - x->start_ns) / u.scale, u.name);
        else
            fputs("not resynchronised by the end", f);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (shown < sm->rs->n)
        fprintf(f, "<p>%zu more in resync.csv.</p>\n", sm->rs->n - shown);
}

static void index_wave(const pp_summary_t *sm, tunit_t u, FILE *f)
{
    fputs("<h3>Idle wave</h3>\n", f);
    const ph_wave_t *w = sm->wave;
    if (!w->found) {
        fputs("<p>No propagating delay found.</p>\n", f);
        return;
    }
    fprintf(f, "<p>Delay made on rank %d in iteration %u (%.4g %s longer than usual), "
               "reached %u ranks; speed ", (int)w->source, w->source_iter,
            w->source_excess_ns / u.scale, u.name, w->reached);
    h_num(f, w->ranks_per_iter, "ranks per iteration");
    fputs(", ", f);
    h_num(f, w->ranks_per_s, "ranks/s");
    fputs(".</p>\n", f);
}

/* The ranks furthest behind and ahead. */
static void index_lag(const pp_summary_t *sm, tunit_t u, FILE *f)
{
    fputs("<h3>Lag per rank</h3>\n<p>Mean of (mean phase &minus; &theta;<sub>i</sub>) / 2&pi;: "
          "positive = behind the mean (lag.csv has every rank).</p>\n", f);
    int32_t order[6];
    int no = 0;
    for (int pass = 0; pass < 2; pass++) /* 3 most behind, then 3 most ahead */
        for (int k = 0; k < 3; k++) {
            int32_t bestr = -1;
            for (int32_t r = 0; r < sm->ranks; r++) {
                double v = sm->lag_mean[r];
                if (!isfinite(v))
                    continue;
                int used = 0;
                for (int q = 0; q < no; q++)
                    used |= order[q] == r;
                if (used)
                    continue;
                if (bestr < 0 || (pass == 0 ? v > sm->lag_mean[bestr] : v < sm->lag_mean[bestr]))
                    bestr = r;
            }
            if (bestr >= 0)
                order[no++] = bestr;
        }
    if (no > 0) {
        fputs("<table>\n<tr><th>rank</th><th>mean lag (iterations)</th><th>mean lag (time)</th>"
              "</tr>\n", f);
        for (int q = 0; q < no; q++) {
            fprintf(f, "<tr><td>%d</td><td>", (int)order[q]);
            h_num(f, sm->lag_mean[order[q]], NULL);
            fputs("</td><td>", f);
            h_num(f, sm->lag_mean[order[q]] * sm->period_ns / u.scale, u.name);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
}

static int index_page(const pp_t *pp, const pp_summary_t *sm, FILE *f)
{
    tunit_t u = time_unit(pp);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>phasor phases: ", f);
    svg_escape(f, sm->log);
    fputs("</title>\n<style>\nbody{font-family:sans-serif;max-width:1000px;margin:1em auto;"
          "padding:0 1em;color:#222}\ntable{border-collapse:collapse;margin:.5em 0}\n"
          "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\nfigure{margin:1.5em 0}"
          "\nimg{max-width:100%;height:auto;border:1px solid #eee}\nfigcaption{font-size:.92em;"
          "line-height:1.4}\n</style>\n</head>\n<body>\n<h1>Phases of ", f);
    svg_escape(f, sm->log);
    fputs("</h1>\n<h2>Summary</h2>\n<table>\n", f);
    fprintf(f, "<tr><th>ranks</th><td>%d (%d with a phase)</td></tr>\n", (int)sm->ranks,
            (int)sm->with_phase);
    fputs("<tr><th>iteration marker</th><td>", f);
    svg_escape(f, sm->marker);
    fprintf(f, "</td></tr>\n<tr><th>iterations per rank</th><td>%u&ndash;%u</td></tr>\n",
            sm->it_min, sm->it_max);
    fputs("<tr><th>median iteration period</th><td>", f);
    h_num(f, sm->median_period_ns / u.scale, u.name);
    fprintf(f, "</td></tr>\n<tr><th>grid</th><td>%zu points, step %" PRId64 " ns%s</td></tr>\n",
            pp->n, pp->dt, sm->compute_only ? ", compute-only phases" : "");
    fputs("<tr><th>topology T<sub>ij</sub></th><td>", f);
    svg_escape(f, sm->topology);
    fputs("</td></tr>\n<tr><th>potential V</th><td>", f);
    svg_escape(f, sm->potential);
    fputs("</td></tr>\n<tr><th>R mean / min</th><td>", f);
    h_num(f, sm->r_mean, NULL);
    fputs(" / ", f);
    h_num(f, sm->r_min, NULL);
    fputs(" at ", f);
    h_num(f, sm->r_min_t / u.scale, u.name);
    fputs("</td></tr>\n<tr><th>S mean</th><td>", f);
    h_num(f, sm->s_mean, "nats");
    fputs("</td></tr>\n<tr><th>E mean</th><td>", f);
    h_num(f, sm->e_mean, NULL);
    fputs("</td></tr>\n</table>\n<h2>Derived figures</h2>\n", f);
    index_resync(sm, u, f);
    index_wave(sm, u, f);
    index_lag(sm, u, f);
    fputs("<h2>Figures</h2>\n<p>Red shading: R below the threshold; dashed red line: the "
          "start of the idle wave's source iteration. The CSV files next to this page hold "
          "the full-resolution data.</p>\n", f);
    for (int k = 0; k < 8; k++) {
        fprintf(f, "<figure id=\"%.*s\">\n<img src=\"%s\" alt=\"%s\">\n<figcaption>%s"
                   "</figcaption>\n</figure>\n", (int)(strlen(pp_files[k]) - 4), pp_files[k],
                pp_files[k], pp_files[k], caption[k]);
    }
    if (sm->extra_html != NULL)
        fputs(sm->extra_html, f);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}

int pp_write(const pp_t *pp, const pp_summary_t *sm, int dirfd, const char *dir, char *why,
             size_t wn)
{
    for (int k = 0; k < PP_NFILES; k++) {
        ofile_t of;
        if (ofile_open(&of, dirfd, pp_files[k]) != 0) {
            snprintf(why, wn, "%s/%s: %s", dir, pp_files[k], strerror(errno));
            return -1;
        }
        FILE *f = of.f;
        int rc;
        switch (k) {
        case 0: rc = circle_figure(pp, sm, f); break;
        case 1: rc = line_figure(pp, sm, f, 0); break;
        case 2: rc = line_figure(pp, sm, f, 1); break;
        case 3: rc = gradient_figure(pp, sm, f); break;
        case 4: rc = dtheta_figure(pp, sm, f); break;
        case 5: rc = hist_figure(pp, f); break;
        case 6: rc = heatmap_figure(pp, f); break;
        case 7: rc = line_figure(pp, sm, f, 2); break;
        default: rc = index_page(pp, sm, f); break;
        }
        int bad = rc != 0 && !ferror(f);
        if (ofile_close(&of, !bad && rc == 0) != 0 || rc != 0) {
            snprintf(why, wn, "%s/%s: %s", dir, pp_files[k],
                     bad ? "out of memory" : strerror(errno ? errno : EIO));
            return -1;
        }
    }
    return 0;
}
