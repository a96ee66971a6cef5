/* osc_dp45.c: Dormand-Prince 5(4) for the oscillator model (osc_model.h) and for any small
 * ODE (osc_ode_solve). Coefficients: Dormand & Prince, J. Comp. Appl. Math. 6 (1980) 19-26;
 * the dense output (the 4th-order continuous extension) and the PI step-size control are
 * those of Hairer, Norsett & Wanner, Solving ODEs I (2nd ed.), II.5-II.6 and their DOPRI5.
 * The error norm is MATLAB ode45's: max over components of |err_i| / max(atol, rtol
 * max(|y_i|, |y_i new|)).
 *
 * Delays: each accepted step's dense-output coefficients go to a ring of steps reaching back
 * to t - max tau. A step longer than the smallest positive delay (short delays: message
 * latencies are ~1e-4 of a period) is iterated as dde23 does (Shampine & Thompson, "Solving
 * DDEs in MATLAB", Appl. Numer. Math. 37 (2001) 441-458): a delayed time inside the step is
 * first predicted by extrapolating the last accepted step's interpolant, then the step is
 * recomputed with its own interpolant from the previous pass until the end value changes by
 * a small fraction of the tolerance (else the step is rejected and halved).
 * The right-hand side is piecewise smooth (noise windows, perturbations): the integrator
 * lands exactly on every breakpoint and starts the next piece with a fresh first stage. */
#include "osc_priv.h"
#include "vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Butcher tableau (c, a), 5th-order weights (= last row of a: FSAL), error weights
 * e = b5 - b4, dense-output weights d (Hairer's DOPRI5 CONTD5). */
#define C2 (1.0 / 5)
#define C3 (3.0 / 10)
#define C4 (4.0 / 5)
#define C5 (8.0 / 9)
#define A21 (1.0 / 5)
#define A31 (3.0 / 40)
#define A32 (9.0 / 40)
#define A41 (44.0 / 45)
#define A42 (-56.0 / 15)
#define A43 (32.0 / 9)
#define A51 (19372.0 / 6561)
#define A52 (-25360.0 / 2187)
#define A53 (64448.0 / 6561)
#define A54 (-212.0 / 729)
#define A61 (9017.0 / 3168)
#define A62 (-355.0 / 33)
#define A63 (46732.0 / 5247)
#define A64 (49.0 / 176)
#define A65 (-5103.0 / 18656)
#define A71 (35.0 / 384)
#define A73 (500.0 / 1113)
#define A74 (125.0 / 192)
#define A75 (-2187.0 / 6784)
#define A76 (11.0 / 84)
#define E1 (71.0 / 57600)
#define E3 (-71.0 / 16695)
#define E4 (71.0 / 1920)
#define E5 (-17253.0 / 339200)
#define E6 (22.0 / 525)
#define E7 (-1.0 / 40)
#define D1 (-12715105075.0 / 11282082432.0)
#define D3 (87487479700.0 / 32700410799.0)
#define D4 (-10690763975.0 / 1880347072.0)
#define D5 (701980252875.0 / 199316789632.0)
#define D6 (-1453857185.0 / 822651844.0)
#define D7 (69997945.0 / 29380423.0)

#define NC 5 /* dense-output coefficients per component */

void osc_solver_defaults(osc_solver_opts_t *so)
{
    memset(so, 0, sizeof(*so));
    so->rtol = 1e-3;
    so->atol = 1e-6;
}

/* The interpolant of one component over its step, at s = (t - told) / h in [0, 1]. */
static inline double dense(const double *c, double s)
{
    double s1 = 1 - s;
    return c[0] + s * (c[1] + s1 * (c[2] + s * (c[3] + s1 * c[4])));
}

/* ---- the oscillator model's state beside the stepper ---- */

enum { DELAY_NONE = 0, DELAY_ONE = 1, DELAY_EDGE = 2 };

typedef struct ost {
    const osc_model_t *m;
    const osc_run_t *r;
    int32_t n;
    double c; /* vp / n */
    int delay;
    double tau_one, tau_min, tau_max;
    double track[8]; /* the distinct positive delays whose jumps are tracked (<= 8) */
    int ntrack;
    /* the current piece of the right-hand side */
    double *base;        /* omega_i + zeta_i */
    unsigned char *held; /* n */
    unsigned char *pact; /* nperturb: perturbation active in this piece */
    int noisy;
    int64_t w;
    /* ring of past steps: start time, length, NC n coefficients each (component-major) */
    size_t hcap, hhead, hcount, hpeak;
    double *ht, *hh, *hc;
    double *dl;  /* DELAY_ONE: every node's delayed phase for the stage being evaluated */
    /* the step being tried, for delayed times inside it (s > tcur) */
    double tcur, hcur;
    const double *py, *pk1; /* y(tcur) and f(tcur, y): the linear predictor */
    int iter;               /* 1: read ic (the previous pass's interpolant); 0: predict */
    int pred_poly;          /* the last ring step is of this piece: extrapolate it */
    double *ic;             /* n x NC: the interpolant of the previous pass */
    double *yprev;          /* n: the previous pass's end values */
    double *cur; /* the dense coefficients of the step just taken when there is no ring */
    /* output */
    double *sbuf;
    int64_t snext, smax;
    osc_crossings_t *cx;
    int64_t *knext;
    size_t *xcap;
    size_t bytes;
    int nomem; /* osc_accepted's -1 was ours, not the sample function's */
} ost_t;

static inline size_t hphys(const ost_t *o, size_t l)
{
    size_t p = o->hhead + l;
    return p >= o->hcap ? p - o->hcap : p;
}

/* The ring slot holding time s (s > t0 and the ring not empty): the latest step starting at
 * or before s. */
static size_t hfind(const ost_t *o, double s)
{
    size_t lo = 0, hi = o->hcount - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (o->ht[hphys(o, mid)] <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    return hphys(o, lo);
}

static inline double hsigma(const ost_t *o, size_t p, double s)
{
    double x = (s - o->ht[p]) / o->hh[p];
    return x < 0 ? 0 : x > 1 ? 1 : x; /* rounding only: the slot holds s */
}

/* Where theta_j(s) for s > tcur (inside the step being tried) comes from: the previous
 * pass's interpolant (iterating), the last accepted step's interpolant extrapolated up to
 * OSC_EXTRAP of its own lengths past its end (predicting, same piece: as dde23, which
 * extrapolates without a limit; the limit only keeps the quartic from running away after a
 * step much shorter than this one), or y + (s - tcur) f (predicting after a new piece, at
 * the first step, or farther out). Returns the coefficients to read at *sg, or NULL for the
 * linear predictor. */
#define OSC_EXTRAP 2.0
static const double *cur_src(const ost_t *o, double s, double *sg)
{
    double x = s - o->tcur;
    if (o->iter) {
        *sg = x / o->hcur;
        return o->ic;
    }
    if (o->pred_poly && o->hcount) {
        size_t p = hphys(o, o->hcount - 1);
        if (x <= OSC_EXTRAP * o->hh[p]) {
            *sg = 1 + x / o->hh[p];
            return o->hc + p * (size_t)o->n * NC;
        }
    }
    return NULL;
}

/* theta_j(s) for s before t0 (the free-running prehistory), in the ring, or in the step
 * being tried. */
static double hist_one(const ost_t *o, double s, int32_t j)
{
    if (s <= o->r->t0)
        return o->r->theta0[j] + o->m->omega[j] * (s - o->r->t0);
    if (s > o->tcur || o->hcount == 0) {
        double sg;
        const double *c = cur_src(o, s, &sg);
        return c ? dense(c + (size_t)j * NC, sg) : o->py[j] + (s - o->tcur) * o->pk1[j];
    }
    size_t p = hfind(o, s);
    return dense(o->hc + (p * (size_t)o->n + (size_t)j) * NC, hsigma(o, p, s));
}

static void hist_all(const ost_t *o, double s, double *out)
{
    int32_t n = o->n;
    if (s <= o->r->t0) {
        const double *th = o->r->theta0, *om = o->m->omega;
        double dt = s - o->r->t0;
        for (int32_t j = 0; j < n; j++)
            out[j] = th[j] + om[j] * dt;
        return;
    }
    if (s > o->tcur || o->hcount == 0) {
        double sg, x = s - o->tcur;
        const double *c = cur_src(o, s, &sg);
        if (c)
            for (int32_t j = 0; j < n; j++, c += NC)
                out[j] = dense(c, sg);
        else
            for (int32_t j = 0; j < n; j++)
                out[j] = o->py[j] + x * o->pk1[j];
        return;
    }
    size_t p = hfind(o, s);
    double sg = hsigma(o, p, s);
    const double *c = o->hc + p * (size_t)n * NC;
    for (int32_t j = 0; j < n; j++, c += NC)
        out[j] = dense(c, sg);
}

static void osc_f(void *ctx, double t, const double *y, double *dy)
{
    ost_t *o = ctx;
    const osc_graph_t *g = o->m->graph;
    const osc_pot_t *pp = &o->m->pot;
    const double *src = y;
    int32_t n = o->n;
    if (!g) {
        for (int32_t i = 0; i < n; i++)
            dy[i] = o->held[i] ? 0 : o->base[i];
        return;
    }
    if (o->delay == DELAY_ONE) {
        hist_all(o, t - o->tau_one, o->dl);
        src = o->dl;
    }
    const uint32_t *off = g->off;
    const int32_t *nb = g->nb;
    for (int32_t i = 0; i < n; i++) {
        if (o->held[i]) {
            dy[i] = 0;
            continue;
        }
        double s = 0, yi = y[i];
        if (o->delay == DELAY_EDGE) {
            for (uint32_t k = off[i]; k < off[i + 1]; k++) {
                double tau = g->tau[k];
                double th = tau > 0 ? hist_one(o, t - tau, nb[k]) : y[nb[k]];
                s += osc_pot_v(pp, th - yi, 1);
            }
        } else {
            for (uint32_t k = off[i]; k < off[i + 1]; k++)
                s += osc_pot_v(pp, src[nb[k]] - yi, 1);
        }
        double v = o->base[i] + o->c * s;
        dy[i] = o->m->forward && v < 0 ? 0 : v;
    }
}

/* Set the piece of the right-hand side that starts at t (noise window, held ranks).
 * 1 if it differs from the previous one. */
static int piece_set(ost_t *o, double t, int first)
{
    const osc_model_t *m = o->m;
    int changed = first;
    if (o->noisy) {
        int64_t w = osc_noise_window(m->noise.window, t);
        if (first || w != o->w) {
            o->w = w;
            for (int32_t i = 0; i < o->n; i++)
                o->base[i] =
                    m->omega[i] * (1 + m->noise.share * osc_noise_r(&m->noise, i, w));
            changed = 1;
        }
    } else if (first) {
        memcpy(o->base, m->omega, (size_t)o->n * sizeof(double));
    }
    for (size_t k = 0; k < m->nperturb; k++) {
        const osc_perturb_t *p = &m->perturb[k];
        unsigned char a = p->t <= t && t < p->t + p->delta;
        if (a != o->pact[k])
            changed = 1;
        o->pact[k] = a;
        o->held[p->rank] = 0;
    }
    for (size_t k = 0; k < m->nperturb; k++)
        if (o->pact[k])
            o->held[m->perturb[k].rank] = 1;
    return changed;
}

/* The first point after x where the right-hand side or the history's slope jumps: t0 (the
 * free-running history meets the solution), a noise window's edge, a perturbation's ends. */
static double base_after(const ost_t *o, double x)
{
    const osc_model_t *m = o->m;
    double b = o->r->t0 > x ? o->r->t0 : INFINITY;
    if (o->noisy) {
        double e = (double)(osc_noise_window(m->noise.window, x) + 1) * m->noise.window;
        if (e > x && e < b)
            b = e;
    }
    for (size_t k = 0; k < m->nperturb; k++) {
        const osc_perturb_t *p = &m->perturb[k];
        double e = p->t + p->delta;
        if (p->t > x && p->t < b)
            b = p->t;
        if (p->delta > 0 && e > x && e < b)
            b = e;
    }
    return b;
}

/* The first breakpoint after t: t1, the end of the noise window, a perturbation's ends; with
 * delays also where those jumps reach through the delays (b + k tau, k = 1..OSC_TRACK: a
 * jump in theta' at b is one in the (k+1)-th derivative at b + k tau, which the error
 * estimate would miss inside a step). Tracked points closer than a rounding error to t or to
 * a jump are dropped: they would only make sliver steps. A delay shorter than OSC_TRACK_MIN
 * of the step h the controller wants has only b + tau tracked (one step of tau after each
 * jump): its later points b + k tau lie a few tau into the step that follows, and landing on
 * each would cost OSC_TRACK steps of tau per jump and delay. Left inside a step, the jump of
 * theta^(k+1) at b + k tau changes the step's result by about |jump| (k tau)^(k+1) / (k+1)!:
 * for k = 1 a jump of theta'' makes |jump| tau^2 / 2, worth landing on (a delayed pair at
 * tau = 1e-4 period, atol 1e-8: 4.6e-7 without, 1.4e-8 with); for k >= 2 it is O(tau^3) and
 * left to the error control. */
#define OSC_TRACK 5
#define OSC_TRACK_MIN 0.25
static double next_break(const ost_t *o, double t, double h)
{
    double bp = base_after(o, t);
    if (o->r->t1 < bp)
        bp = o->r->t1;
    double eps = 1e-12 * (fabs(t) + o->tau_max);
    for (int d = 0; d < o->ntrack; d++)
        for (int k = 1, kmax = o->track[d] >= OSC_TRACK_MIN * h ? OSC_TRACK : 1; k <= kmax;
             k++) {
            double lag = k * o->track[d], x = t - lag;
            for (int it = 0; it < 4; it++) {
                double b = base_after(o, x);
                if (!(b + lag < bp - eps))
                    break;
                if (b + lag > t + eps) {
                    bp = b + lag;
                    break;
                }
                x = b;
            }
        }
    return bp;
}

/* ---- the stepper ---- */

typedef struct dp {
    size_t n;
    osc_ode_fn f;
    void *ctx;
    double rtol, atol, hmax, hfixed;
    size_t max_steps;
    double *y, *y5, *yt, *k[7];
    double *mem;
    osc_stats_t st;
    ost_t *o; /* NULL for osc_ode_solve */
} dp_t;

static double dp_norm_scale(const dp_t *d, double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    double s = d->rtol * m;
    return s > d->atol ? s : d->atol;
}

/* One trial step from (t, y) with k[0] = f(t, y): y5, k[6] = f(t + h, y5), and the error
 * norm (<= 1: accept). Infinity when something is not finite. */
static double dp_try(dp_t *d, double t, double h)
{
    size_t n = d->n;
    double *y = d->y, *yt = d->yt, *y5 = d->y5;
    double *k1 = d->k[0], *k2 = d->k[1], *k3 = d->k[2], *k4 = d->k[3], *k5 = d->k[4],
           *k6 = d->k[5], *k7 = d->k[6];
    for (size_t i = 0; i < n; i++)
        yt[i] = y[i] + h * A21 * k1[i];
    d->f(d->ctx, t + C2 * h, yt, k2);
    for (size_t i = 0; i < n; i++)
        yt[i] = y[i] + h * (A31 * k1[i] + A32 * k2[i]);
    d->f(d->ctx, t + C3 * h, yt, k3);
    for (size_t i = 0; i < n; i++)
        yt[i] = y[i] + h * (A41 * k1[i] + A42 * k2[i] + A43 * k3[i]);
    d->f(d->ctx, t + C4 * h, yt, k4);
    for (size_t i = 0; i < n; i++)
        yt[i] = y[i] + h * (A51 * k1[i] + A52 * k2[i] + A53 * k3[i] + A54 * k4[i]);
    d->f(d->ctx, t + C5 * h, yt, k5);
    for (size_t i = 0; i < n; i++)
        yt[i] = y[i] + h * (A61 * k1[i] + A62 * k2[i] + A63 * k3[i] + A64 * k4[i] + A65 * k5[i]);
    d->f(d->ctx, t + h, yt, k6);
    for (size_t i = 0; i < n; i++)
        y5[i] = y[i] + h * (A71 * k1[i] + A73 * k3[i] + A74 * k4[i] + A75 * k5[i] + A76 * k6[i]);
    d->f(d->ctx, t + h, y5, k7);
    d->st.evals += 6;
    double err = 0;
    for (size_t i = 0; i < n; i++) {
        double e = h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] +
                        E7 * k7[i]);
        double r = fabs(e) / dp_norm_scale(d, y[i], y5[i]);
        if (!(r <= err)) /* also catches NaN */
            err = isnan(r) ? INFINITY : r;
    }
    return err;
}

/* Hairer's starting step (HINIT), RMS norms, capped by hmax. */
static double dp_hinit(dp_t *d, double t, double span)
{
    size_t n = d->n;
    double dnf = 0, dny = 0;
    for (size_t i = 0; i < n; i++) {
        double sk = d->atol + d->rtol * fabs(d->y[i]);
        dnf += (d->k[0][i] / sk) * (d->k[0][i] / sk);
        dny += (d->y[i] / sk) * (d->y[i] / sk);
    }
    dnf /= (double)n;
    dny /= (double)n;
    double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : sqrt(dny / dnf) * 0.01;
    double lim = d->hmax;
    if (lim > span)
        lim = span;
    if (h > lim)
        h = lim;
    for (size_t i = 0; i < n; i++)
        d->yt[i] = d->y[i] + h * d->k[0][i];
    d->f(d->ctx, t + h, d->yt, d->k[1]);
    d->st.evals++;
    double der2 = 0;
    for (size_t i = 0; i < n; i++) {
        double sk = d->atol + d->rtol * fabs(d->y[i]);
        double v = (d->k[1][i] - d->k[0][i]) / sk;
        der2 += v * v;
    }
    der2 = sqrt(der2 / (double)n) / h;
    double der12 = der2 > sqrt(dnf) ? der2 : sqrt(dnf);
    double h1 = der12 <= 1e-15 ? fmax(1e-6, h * 1e-3) : pow(0.01 / der12, 0.2);
    h = fmin(100 * h, h1);
    return fmin(h, lim);
}

/* Dense-output coefficients of the step (t, h) just tried, component-major into c. */
static void dp_dense(const dp_t *d, double h, double *c)
{
    const double *y = d->y, *y5 = d->y5, *k1 = d->k[0], *k3 = d->k[2], *k4 = d->k[3],
                 *k5 = d->k[4], *k6 = d->k[5], *k7 = d->k[6];
    for (size_t i = 0; i < d->n; i++, c += NC) {
        double ydiff = y5[i] - y[i], bspl = h * k1[i] - ydiff;
        c[0] = y[i];
        c[1] = ydiff;
        c[2] = bspl;
        c[3] = ydiff - h * k7[i] - bspl;
        c[4] = h * (D1 * k1[i] + D3 * k3[i] + D4 * k4[i] + D5 * k5[i] + D6 * k6[i] +
                    D7 * k7[i]);
    }
}

/* The first s in [0, 1] where the interpolant reaches level (it is below at 0, at or above
 * at 1): the first quarter where it is reached, then Illinois regula falsi. */
static double first_reach(const double *c, double level)
{
    double a = 0, fa = dense(c, 0) - level, b = 1, fb = dense(c, 1) - level;
    for (int q = 1; q <= 4; q++) {
        double s = q / 4.0, fs = q == 4 ? fb : dense(c, s) - level;
        if (fs >= 0) {
            b = s, fb = fs;
            break;
        }
        a = s, fa = fs;
    }
    if (fa >= 0)
        return a;
    int side = 0;
    for (int it = 0; it < 100 && b - a > 1e-15; it++) {
        double s = b - fb * (b - a) / (fb - fa);
        if (!(s > a && s < b))
            s = 0.5 * (a + b);
        double fs = dense(c, s) - level;
        if (fs >= 0) {
            b = s, fb = fs;
            if (side == 1)
                fa *= 0.5;
            side = 1;
        } else {
            a = s, fa = fs;
            if (side == -1)
                fb *= 0.5;
            side = -1;
        }
        if (fabs(fs) <= 4 * DBL_EPSILON * fabs(level))
            return s;
    }
    return b;
}

static int hist_grow(ost_t *o)
{
    size_t ncap = o->hcap ? 2 * o->hcap : 8, nn = (size_t)o->n * NC;
    if (ncap > SIZE_MAX / sizeof(double) / nn)
        return -1;
    double *t = malloc(ncap * sizeof(double)), *h = malloc(ncap * sizeof(double));
    double *c = malloc(ncap * nn * sizeof(double));
    if (!t || !h || !c) {
        free(t);
        free(h);
        free(c);
        return -1;
    }
    for (size_t l = 0; l < o->hcount; l++) {
        size_t p = hphys(o, l);
        t[l] = o->ht[p];
        h[l] = o->hh[p];
        memcpy(c + l * nn, o->hc + p * nn, nn * sizeof(double));
    }
    free(o->ht);
    free(o->hh);
    free(o->hc);
    o->bytes += (ncap - o->hcap) * (nn + 2) * sizeof(double);
    o->ht = t, o->hh = h, o->hc = c;
    o->hcap = ncap;
    o->hhead = 0;
    return 0;
}

/* After an accepted step (t, h) ending at tnew: history, samples, crossings. 0, the sample
 * function's value, or -1 with o->nomem set. */
static int osc_accepted(dp_t *d, double t, double h, double tnew, int last)
{
    ost_t *o = d->o;
    const osc_run_t *r = o->r;
    int want = o->delay != DELAY_NONE || r->sample || o->cx;
    if (!want)
        return 0;
    size_t nn = (size_t)o->n * NC;
    double *c = o->cur;
    if (o->delay != DELAY_NONE) {
        if (o->hcount == o->hcap && hist_grow(o) != 0) {
            o->nomem = 1;
            return -1;
        }
        size_t p = hphys(o, o->hcount++);
        o->ht[p] = t;
        o->hh[p] = h;
        c = o->hc + p * nn;
        if (o->hcount > o->hpeak)
            o->hpeak = o->hcount;
    }
    dp_dense(d, h, c);
    if (r->sample) {
        while (o->snext <= o->smax) {
            double ts = r->t0 + (double)o->snext * r->dt_out;
            if (ts > tnew && !last)
                break;
            if (ts >= tnew) {
                memcpy(o->sbuf, d->y5, (size_t)o->n * sizeof(double));
                if (ts > r->t1)
                    ts = r->t1;
            } else {
                double s = (ts - t) / h;
                for (int32_t i = 0; i < o->n; i++)
                    o->sbuf[i] = dense(c + (size_t)i * NC, s);
            }
            o->snext++;
            int rc = r->sample(r->ctx, ts, o->sbuf);
            if (rc)
                return rc;
        }
    }
    if (o->cx) {
        osc_crossings_t *cx = o->cx;
        for (int32_t i = 0; i < o->n; i++) {
            double level = OSC_2PI * (double)o->knext[i];
            while (d->y5[i] >= level) {
                const double *ci = c + (size_t)i * NC;
                double tc = t + first_reach(ci, level) * h;
                if (cx->count[i] == UINT32_MAX ||
                    VEC_GROW(cx->t[i], o->xcap[i], (size_t)cx->count[i] + 1) != 0) {
                    o->nomem = 1;
                    return -1;
                }
                /* a later level reached in the same step cannot come earlier */
                if (cx->count[i] && tc < cx->t[i][cx->count[i] - 1])
                    tc = cx->t[i][cx->count[i] - 1];
                cx->t[i][cx->count[i]++] = tc;
                level = OSC_2PI * (double)++o->knext[i];
            }
        }
    }
    return 0;
}

/* Drop the steps that end before t - max tau: no stage from t on looks back there. */
static void hist_drop(ost_t *o, double t)
{
    double keep = t - o->tau_max;
    while (o->hcount > 1 && o->ht[o->hhead] + o->hh[o->hhead] < keep) {
        o->hhead = o->hhead + 1 == o->hcap ? 0 : o->hhead + 1;
        o->hcount--;
    }
}

/* A step (t, h) longer than the smallest delay: some delayed times of its stages fall inside
 * it. The first pass predicts them (cur_src), each further pass reads them from the previous
 * pass's interpolant; converged when the end values moved by at most OSC_ITER_TOL in the
 * error norm's units (a tenth of what a step may err). Returns the last pass's error norm,
 * or NaN when OSC_ITER_MAX corrections did not converge (with h_fixed: every pass is made
 * and the last one is taken, there being no tolerance to test against). */
#define OSC_ITER_MAX 3
#define OSC_ITER_TOL 0.1
static double dp_iterate(dp_t *d, double t, double h)
{
    ost_t *o = d->o;
    size_t n = d->n;
    o->iter = 0;
    double err = dp_try(d, t, h);
    for (int it = 0; it < OSC_ITER_MAX; it++) {
        if (!isfinite(err))
            return err; /* rejected as any step whose state went non-finite */
        dp_dense(d, h, o->ic);
        memcpy(o->yprev, d->y5, n * sizeof(double));
        o->iter = 1;
        err = dp_try(d, t, h);
        o->iter = 0;
        if (d->hfixed > 0)
            continue;
        double ch = 0;
        for (size_t i = 0; i < n; i++) {
            double r = fabs(d->y5[i] - o->yprev[i]) / dp_norm_scale(d, d->y[i], d->y5[i]);
            if (!(r <= ch))
                ch = isnan(r) ? INFINITY : r;
        }
        if (ch <= OSC_ITER_TOL)
            return err;
    }
    return d->hfixed > 0 ? err : NAN;
}

/* The integration loop, shared: from (t0, d->y) to t1. */
static int dp_run(dp_t *d, double t0, double t1, char *why, size_t nwhy)
{
    ost_t *o = d->o;
    double t = t0;
    if (o) {
        piece_set(o, t, 1);
        o->tcur = t, o->hcur = 0;
        o->py = d->y, o->pk1 = d->k[0];
    }
    d->f(d->ctx, t, d->y, d->k[0]);
    d->st.evals++;
    double h = d->hfixed > 0 ? d->hfixed : dp_hinit(d, t, t1 - t0);
    double facold = 1e-4;
    int rejected_last = 0;
    while (t < t1) {
        if (o)
            hist_drop(o, t);
        double hh = d->hfixed > 0 ? d->hfixed : h < d->hmax ? h : d->hmax;
        double bp = o ? next_break(o, t, hh) : t1;
        int land = 0;
        if (d->hfixed > 0) {
            if (bp - t <= hh * (1 + 1e-9))
                hh = bp - t, land = 1;
        } else {
            if (bp - t <= 1.01 * hh)
                hh = bp - t, land = 1;
            else if (bp - t < 1.1 * hh) /* no sliver before bp: two near-equal steps */
                hh = 0.5 * (bp - t);
        }
        double hwant = h; /* what the controller asked for before bp cut it */
        double err;
        if (o && o->delay != DELAY_NONE) {
            o->tcur = t, o->hcur = hh;
            o->py = d->y, o->pk1 = d->k[0];
            err = hh > o->tau_min ? dp_iterate(d, t, hh) : dp_try(d, t, hh);
        } else {
            err = dp_try(d, t, hh);
        }
        if (isnan(err)) { /* the iteration did not converge: a shorter step contracts more */
            d->st.rejected++;
            rejected_last = 1;
            h = 0.5 * hh;
            if (h < 16 * DBL_EPSILON * fmax(fabs(t), 1e-300) || h < DBL_MIN)
                return why_fail(why, nwhy, "step size underflow at t = %.17g", t);
            continue;
        }
        if (d->hfixed > 0 || err <= 1) {
            double tnew = land ? bp : t + hh;
            if (d->hfixed <= 0) {
                double fac11 = pow(err, 0.17), fac = fac11 / pow(facold, 0.04);
                fac = fmax(0.1, fmin(5.0, fac / 0.9));
                h = hh / fac;
                if (rejected_last && h > hh)
                    h = hh;
                /* a step cut short by a breakpoint says little about the next one */
                else if (land && h < hwant)
                    h = hwant;
                facold = fmax(err, 1e-4);
                rejected_last = 0;
            }
            if (d->hfixed > 0) /* no error control: only refuse a state gone non-finite */
                for (size_t i = 0; i < d->n; i++)
                    if (!isfinite(d->y5[i]))
                        return why_fail(why, nwhy, "not finite at t = %g", tnew);
            if (o) {
                int rc = osc_accepted(d, t, hh, tnew, land && bp >= t1);
                if (rc && o->nomem)
                    return why_fail(why, nwhy, "out of memory");
                if (rc)
                    return rc;
            }
            double *sw = d->y;
            d->y = d->y5, d->y5 = sw;
            sw = d->k[0], d->k[0] = d->k[6], d->k[6] = sw;
            t = tnew;
            d->st.steps++;
            if (o)
                o->pred_poly = 1;
            if (d->max_steps && d->st.steps > d->max_steps && t < t1)
                return why_fail(why, nwhy, "more than %zu steps (t = %g of %g)", d->max_steps,
                                t, t1);
            if (o && land && t < t1 && piece_set(o, t, 0)) {
                /* a new piece: the FSAL stage is stale, the last step no predictor */
                o->tcur = t, o->hcur = 0;
                o->py = d->y, o->pk1 = d->k[0];
                o->pred_poly = 0;
                d->f(d->ctx, t, d->y, d->k[0]);
                d->st.evals++;
            }
        } else {
            d->st.rejected++;
            rejected_last = 1;
            double fac11 = isfinite(err) ? pow(err, 0.17) : 1e3;
            h = hh / fmin(5.0, fac11 / 0.9);
            if (h < 16 * DBL_EPSILON * fmax(fabs(t), 1e-300) || h < DBL_MIN)
                return why_fail(why, nwhy, "step size underflow at t = %.17g", t);
        }
    }
    return 0;
}

static int dp_alloc(dp_t *d, size_t n)
{
    d->n = n;
    if (n > SIZE_MAX / sizeof(double) / 10)
        return -1;
    d->mem = malloc(10 * n * sizeof(double));
    if (!d->mem)
        return -1;
    d->y = d->mem;
    d->y5 = d->mem + n;
    d->yt = d->mem + 2 * n;
    for (int s = 0; s < 7; s++)
        d->k[s] = d->mem + (size_t)(3 + s) * n;
    return 0;
}

static int opts_check(const osc_solver_opts_t *so, char *why, size_t nwhy)
{
    if (!(so->rtol >= 0) || !(so->atol >= 0) || !isfinite(so->rtol) || !isfinite(so->atol) ||
        (so->rtol == 0 && so->atol == 0 && !(so->h_fixed > 0)))
        return why_fail(why, nwhy, "tolerances rtol %g, atol %g: want finite, >= 0, not both 0",
                        so->rtol, so->atol);
    if (!(so->h_max >= 0) || !(so->h_fixed >= 0) || !isfinite(so->h_max) ||
        !isfinite(so->h_fixed))
        return why_fail(why, nwhy, "h_max %g, h_fixed %g: want finite, >= 0", so->h_max,
                        so->h_fixed);
    return 0;
}

static void dp_setup(dp_t *d, const osc_solver_opts_t *so, double span)
{
    d->rtol = so->rtol < 100 * DBL_EPSILON && so->rtol > 0 ? 100 * DBL_EPSILON : so->rtol;
    d->atol = so->atol;
    d->hfixed = so->h_fixed;
    d->hmax = so->h_max > 0 ? so->h_max : span;
    d->max_steps = so->max_steps;
}

int osc_ode_solve(osc_ode_fn f, void *ctx, size_t n, double t0, double t1, double *y,
                  const osc_solver_opts_t *so, osc_stats_t *st, char *why, size_t nwhy)
{
    osc_solver_opts_t def;
    if (!so) {
        osc_solver_defaults(&def);
        so = &def;
    }
    if (st)
        memset(st, 0, sizeof(*st));
    if (n < 1 || !f || !y)
        return why_fail(why, nwhy, "no equations");
    if (!(t1 > t0) || !isfinite(t0) || !isfinite(t1))
        return why_fail(why, nwhy, "interval [%g, %g]: want finite t0 < t1", t0, t1);
    if (opts_check(so, why, nwhy) != 0)
        return -1;
    dp_t d = {0};
    dp_setup(&d, so, t1 - t0);
    d.f = f;
    d.ctx = ctx;
    if (dp_alloc(&d, n) != 0)
        return why_fail(why, nwhy, "out of memory");
    memcpy(d.y, y, n * sizeof(double));
    int rc = dp_run(&d, t0, t1, why, nwhy);
    if (rc == 0)
        memcpy(y, d.y, n * sizeof(double));
    d.st.bytes_peak = 10 * n * sizeof(double);
    if (st)
        *st = d.st;
    free(d.mem);
    return rc;
}

void osc_crossings_free(osc_crossings_t *cx)
{
    if (!cx)
        return;
    if (cx->t)
        for (int32_t i = 0; i < cx->n; i++)
            free(cx->t[i]);
    free(cx->t);
    free(cx->first);
    free(cx->count);
    memset(cx, 0, sizeof(*cx));
}

static int crossings_init(osc_crossings_t *cx, ost_t *o)
{
    int32_t n = o->n;
    memset(cx, 0, sizeof(*cx));
    cx->first = malloc((size_t)n * sizeof(*cx->first));
    cx->count = calloc((size_t)n, sizeof(*cx->count));
    cx->t = calloc((size_t)n, sizeof(*cx->t));
    o->knext = malloc((size_t)n * sizeof(*o->knext));
    o->xcap = calloc((size_t)n, sizeof(*o->xcap));
    if (!cx->first || !cx->count || !cx->t || !o->knext || !o->xcap)
        return -1;
    cx->n = n;
    double span = o->r->t1 - o->r->t0;
    for (int32_t i = 0; i < n; i++) {
        double th = o->r->theta0[i];
        int64_t k = (int64_t)floor(th / OSC_2PI) + 1;
        if (OSC_2PI * (double)k <= th)
            k++;
        else if (OSC_2PI * (double)(k - 1) > th)
            k--;
        cx->first[i] = o->knext[i] = k;
        /* room for the levels a free run would reach, so no step allocates */
        double est = o->m->omega[i] * span / OSC_2PI * 1.25 + 4;
        size_t want = est < (double)(1 << 20) ? (size_t)est : (size_t)1 << 20;
        if (VEC_GROW(cx->t[i], o->xcap[i], want) != 0)
            return -1;
    }
    return 0;
}

static void ost_free(ost_t *o)
{
    free(o->base);
    free(o->held);
    free(o->pact);
    free(o->ht);
    free(o->hh);
    free(o->hc);
    free(o->dl);
    free(o->ic);
    free(o->yprev);
    free(o->cur);
    free(o->sbuf);
    free(o->knext);
    free(o->xcap);
}

int osc_integrate(const osc_model_t *m, const osc_solver_opts_t *so, const osc_run_t *r,
                  osc_crossings_t *cx, osc_stats_t *st, char *why, size_t nwhy)
{
    osc_solver_opts_t def;
    if (!so) {
        osc_solver_defaults(&def);
        so = &def;
    }
    if (st)
        memset(st, 0, sizeof(*st));
    if (cx)
        memset(cx, 0, sizeof(*cx));
    if (osc_model_check(m, why, nwhy) != 0 || opts_check(so, why, nwhy) != 0)
        return -1;
    if (!(r->t1 > r->t0) || !isfinite(r->t0) || !isfinite(r->t1))
        return why_fail(why, nwhy, "interval [%g, %g]: want finite t0 < t1", r->t0, r->t1);
    if (!r->theta0)
        return why_fail(why, nwhy, "no initial phases");
    for (int32_t i = 0; i < m->n; i++)
        if (!isfinite(r->theta0[i]))
            return why_fail(why, nwhy, "theta0[%d] is not finite", (int)i);
    if (r->sample && !(r->dt_out > 0 && isfinite(r->dt_out)))
        return why_fail(why, nwhy, "output step %g: want > 0", r->dt_out);
    int32_t n = m->n;
    ost_t o = {0};
    dp_t d = {0};
    int rc = -1;
    o.m = m;
    o.r = r;
    o.n = n;
    o.c = m->vp / n;
    o.noisy = m->noise.kind != OSC_NOISE_NONE && m->noise.share > 0;
    const osc_graph_t *g = m->graph;
    if (g && g->tau && g->nnz) {
        o.tau_min = INFINITY;
        int same = 1;
        for (size_t k = 0; k < g->nnz; k++) {
            double tau = g->tau[k];
            same &= tau == g->tau[0];
            if (tau > 0 && tau < o.tau_min)
                o.tau_min = tau;
            if (tau > o.tau_max)
                o.tau_max = tau;
        }
        if (o.tau_max > 0) {
            o.delay = same ? DELAY_ONE : DELAY_EDGE;
            o.tau_one = g->tau[0];
        }
        /* more than 8 distinct delays: their jumps are not tracked (error control only) */
        for (size_t k = 0; k < g->nnz && o.ntrack >= 0; k++) {
            double tau = g->tau[k];
            int seen = tau <= 0;
            for (int q = 0; q < o.ntrack && !seen; q++)
                seen = o.track[q] == tau;
            if (!seen)
                o.ntrack = o.ntrack < 8 ? (o.track[o.ntrack] = tau, o.ntrack + 1) : -1;
        }
        if (o.ntrack < 0)
            o.ntrack = 0;
    }
    dp_setup(&d, so, r->t1 - r->t0);
    if (!(so->h_max > 0)) {
        double wmax = 0;
        for (int32_t i = 0; i < n; i++)
            wmax = fmax(wmax, m->omega[i]);
        if (wmax > 0)
            d.hmax = 0.1 * OSC_2PI / wmax;
    }
    d.f = osc_f;
    d.ctx = &o;
    d.o = &o;
    size_t nz = (size_t)n * sizeof(double);
    o.bytes = 10 * nz + nz + (size_t)n + m->nperturb;
    if (dp_alloc(&d, (size_t)n) != 0 || !(o.base = malloc(nz)) ||
        !(o.held = calloc((size_t)n, 1)) || !(o.pact = calloc(m->nperturb + 1, 1)))
        goto nomem;
    if (o.delay == DELAY_ONE) {
        if (!(o.dl = malloc(nz)))
            goto nomem;
        o.bytes += nz;
    }
    if (o.delay != DELAY_NONE) {
        if (!(o.ic = malloc(nz * NC)) || !(o.yprev = malloc(nz)))
            goto nomem;
        o.bytes += nz * (NC + 1);
    }
    if (o.delay != DELAY_NONE) {
        /* the steps that fit in max tau at the longest step, then doubling when shorter */
        double want = o.tau_max / d.hmax + 4;
        size_t nslot = want < 1e6 ? (size_t)want : 1000000;
        while (o.hcap < nslot)
            if (hist_grow(&o) != 0)
                goto nomem;
    } else if (r->sample || (cx && r->crossings)) {
        if (!(o.cur = malloc(nz * NC)))
            goto nomem;
        o.bytes += nz * NC;
    }
    if (r->sample) {
        if (!(o.sbuf = malloc(nz)))
            goto nomem;
        o.bytes += nz;
        o.smax = (int64_t)floor((r->t1 - r->t0) / r->dt_out + 1e-9);
        o.snext = 1;
    }
    if (cx && r->crossings) {
        o.cx = cx;
        if (crossings_init(cx, &o) != 0)
            goto nomem;
    }
    memcpy(d.y, r->theta0, nz);
    if (r->sample && (rc = r->sample(r->ctx, r->t0, r->theta0)) != 0)
        goto out;
    rc = dp_run(&d, r->t0, r->t1, why, nwhy);
    goto out;
nomem:
    rc = why_fail(why, nwhy, "out of memory");
out:
    d.st.history_peak = o.hpeak;
    d.st.bytes_peak = o.bytes;
    if (st)
        *st = d.st;
    if (rc == -1 && cx)
        osc_crossings_free(cx);
    free(d.mem);
    ost_free(&o);
    return rc;
}
