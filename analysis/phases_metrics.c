/* phases_metrics.c: the metrics of one grid point (phases.h, section 3): order parameter,
 * Freedman-Diaconis bins and the synchronisation entropy, phase gradients, the potentials V
 * and the energy E. Pure. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"
#include "pstat.h"

void ph_order(const double *theta, size_t n, double *R, double *psi)
{
    double c = 0, s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(theta[i])) {
            c += cos(theta[i]);
            s += sin(theta[i]);
            k++;
        }
    if (k == 0) {
        *R = 0;
        *psi = 0;
        return;
    }
    c /= (double)k;
    s /= (double)k;
    *R = hypot(c, s);
    if (*R > 1)
        *R = 1;
    *psi = *R > 1e-12 ? atan2(s, c) : 0;
}

void ph_fd_bins(double *x, size_t n, ph_bins_t *b)
{
    memset(b, 0, sizeof(*b));
    b->n = 1;
    if (n == 0)
        return;
    qsort(x, n, sizeof(*x), pstat_cmp_double);
    double range = x[n - 1] - x[0];
    b->lo = x[0];
    if (!(range > 0)) {
        b->width = 0;
        return;
    }
    double iqr = pstat_quantile(x, n, 0.75) - pstat_quantile(x, n, 0.25);
    if (iqr < range / 10) /* the MATLAB guard, also for an IQR that rounds to nearly 0 */
        iqr = range / 10;
    double h = 2 * iqr * pow((double)n, -1.0 / 3.0);
    double nb = ceil(range / h - 1e-9);
    if (nb < 1)
        nb = 1;
    if (nb > PH_MAX_BINS)
        nb = PH_MAX_BINS;
    b->n = (uint32_t)nb;
    b->width = range / nb;
    assert(b->n >= 1 && b->n <= PH_MAX_BINS && b->width > 0);
}

uint32_t ph_bin_of(const ph_bins_t *b, double x)
{
    if (b->n <= 1 || !(b->width > 0))
        return 0;
    double k = floor((x - b->lo) / b->width);
    if (k < 0)
        return 0;
    if (k >= b->n)
        return b->n - 1;
    return (uint32_t)k;
}

/* -sum p log p over the runs of equal values of sorted x[0..k) */
static double entropy_of_sorted_runs(const double *x, size_t k, const ph_bins_t *b)
{
    double S = 0;
    size_t i = 0;
    while (i < k) {
        uint32_t bin = b ? ph_bin_of(b, x[i]) : (uint32_t)x[i];
        size_t j = i;
        while (j < k && (b ? ph_bin_of(b, x[j]) : (uint32_t)x[j]) == bin)
            j++;
        double p = (double)(j - i) / (double)k;
        S -= p * log(p);
        i = j;
    }
    return S;
}

static double entropy_circle(const double *theta, size_t n, double psi, double *x,
                             uint32_t *nbins)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(theta[i]))
            k++;
    uint32_t nb = k < 1 ? 1 : k > PH_MAX_BINS ? PH_MAX_BINS : (uint32_t)k;
    *nbins = nb;
    if (nb == 1)
        return 0;
    const double w = 2 * M_PI / nb;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(theta[i])) {
            /* bin 0 is centred on psi: [-w/2, w/2); the bins wrap round the circle */
            double b = floor(ph_wrap_pi(theta[i] - psi) / w + 0.5);
            if (b < 0)
                b += nb;
            x[m++] = b >= nb ? 0 : b;
        }
    qsort(x, m, sizeof(*x), pstat_cmp_double);
    return entropy_of_sorted_runs(x, m, NULL);
}

int ph_entropy_parse(const char *s, int *kind)
{
    if (strcmp(s, "circle") == 0)
        *kind = PH_ENTROPY_CIRCLE;
    else if (strcmp(s, "fd") == 0)
        *kind = PH_ENTROPY_FD;
    else
        return -1;
    return 0;
}

const char *ph_entropy_name(int kind)
{
    return kind == PH_ENTROPY_FD ? "fd" : "circle";
}

double ph_entropy(const double *theta, size_t n, double psi, double *x, uint32_t *nbins,
                  int kind)
{
    if (kind != PH_ENTROPY_FD)
        return entropy_circle(theta, n, psi, x, nbins);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(theta[i]))
            x[k++] = ph_wrap_pi(theta[i] - psi);
    ph_bins_t b;
    ph_fd_bins(x, k, &b);
    *nbins = b.n;
    if (k == 0 || b.n == 1)
        return 0;
    return entropy_of_sorted_runs(x, k, &b); /* x is sorted: each bin's values are one run */
}

void ph_gradient(const double *theta, const ph_topo_t *t, double *g_abs, double *g_signed)
{
    for (int32_t i = 0; i < t->n; i++) {
        double a = 0, s = 0;
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            double d = theta[t->nb[k]] - theta[i];
            a += fabs(d);
            s += d;
        }
        g_abs[i] = a;
        g_signed[i] = s;
    }
}

double ph_energy(const double *theta, const ph_topo_t *t, const ph_potential_t *p)
{
    double E = 0;
    for (int32_t i = 0; i < t->n; i++) {
        if (isnan(theta[i]))
            continue;
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            double th = theta[t->nb[k]];
            if (isnan(th))
                continue;
            double v = osc_pot_eval(p, th - theta[i]);
            E += v * v;
        }
    }
    return E;
}
