/* osc_priv.h: what osc_model.c and osc_dp45.c share and nobody else sees. */
#ifndef OSC_PRIV_H
#define OSC_PRIV_H

#include "osc_model.h"
#include "why.h"

#include <math.h>

#define OSC_2PI 6.283185307179586476925


/* The noise window holding t: floor(t / window), corrected so that a time the integrator
 * landed on as (w + 1) * window (computed that way) is in window w + 1, whatever the
 * rounding of the division. Both the integrator and osc_model_rhs use it. */
static inline int64_t osc_noise_window(double window, double t)
{
    int64_t w = (int64_t)floor(t / window);
    if ((double)(w + 1) * window <= t)
        w++;
    else if ((double)w * window > t)
        w--;
    return w;
}

/* V(x) (osc_pot_eval). fast: tanh through one exp, for the integrator's inner loop (2.3x
 * faster than libm's tanh, absolute error ~2e-16, which is all a sum into a rate sees;
 * exp's 0 and inf give -1 and 1). */
static inline double osc_pot_v(const osc_pot_t *p, double x, int fast)
{
    switch (p->kind) {
    case OSC_POT_TANH:
        return fast ? 1 - 2 / (exp(2 * p->s * x) + 1) : tanh(p->s * x);
    case OSC_POT_PIECEWISE:
        if (fabs(x) < p->sigma)
            return -sin(3 * M_PI * x / (2 * p->sigma));
        return x > 0 ? 1 : x < 0 ? -1 : 0;
    case OSC_POT_FOURIER:
        return sin(x) - p->a * sin(p->harmonic * x) + p->b * sin(2 * p->harmonic * x);
    case OSC_POT_WAIT: {
        double y = x + p->sigma;
        if (y >= 0)
            return 0;
        return fast ? 1 - 2 / (exp(2 * p->s * y) + 1) : tanh(p->s * y);
    }
    default:
        return sin(x);
    }
}

/* Rank i is held back at t (any perturbation with p.t <= t < p.t + delta). */
int osc_held(const osc_model_t *m, int32_t i, double t);

#endif
