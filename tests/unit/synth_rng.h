/* synth_rng.h: the seeded draws of the synthetic series (the HMM's tests, its Python
 * cross-check, bench/regimes_synth, the health tests): splitmix64, uniform in (0, 1) and
 * standard Gaussian (Box-Muller). Header only; the same seed gives the same series
 * everywhere. */
#ifndef SYNTH_RNG_H
#define SYNTH_RNG_H

#include <math.h>
#include <stdint.h>

static inline uint64_t srng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline double srng_unif(uint64_t *s)
{
    return ((double)(srng_next(s) >> 11) + 0.5) * 0x1p-53;
}

static inline double srng_gauss(uint64_t *s)
{
    return sqrt(-2 * log(srng_unif(s))) * cos(6.283185307179586 * srng_unif(s));
}

#endif
