/* plog_rd_clock.c: clock alignment: the offset fit through a rank's clock-sync samples, and
 * aligned times, with the stretches over which an aligned time is the local time plus one
 * amount (plog_reader.h). Pure functions. */
#include "plog_rd.h"

#include <math.h>
#include <string.h>

unsigned plog_clock_fit(const plog_sync_sample_t *s, size_t n, plog_clockfit_t *fit)
{
    memset(fit, 0, sizeof(*fit));
    const plog_sync_sample_t *bi = NULL, *bf = NULL;
    for (size_t i = 0; i < n; i++) {
        const plog_sync_sample_t **best = s[i].phase == PLOG_SYNC_INIT ? &bi
                                          : s[i].phase == PLOG_SYNC_FINALIZE ? &bf : NULL;
        if (best != NULL && (*best == NULL || s[i].rtt_ns < (*best)->rtt_ns))
            *best = &s[i];
    }
    if (bi == NULL && bf == NULL)
        return PLOG_CLOCKFIT_NONE;
    const plog_sync_sample_t *one = bi != NULL ? bi : bf;
    fit->n = 1;
    fit->t0 = fit->t1 = one->local_ns;
    fit->o0 = fit->o1 = one->offset_ns;
    if (bi == NULL || bf == NULL)
        return PLOG_CLOCKFIT_SINGLE;
    fit->t1 = bf->local_ns;
    fit->o1 = bf->offset_ns;
    if (bf->local_ns <= bi->local_ns)
        return PLOG_CLOCKFIT_BADORDER;
    double dt = (double)(bf->local_ns - bi->local_ns);
    double d_off = (double)bf->offset_ns - (double)bi->offset_ns;
    if (d_off < 0)
        d_off = -d_off;
    if (d_off > PLOG_CLOCK_MAX_DRIFT * dt) {
        /* Each offset is known to within half its round trip: a difference inside that is
         * noise on a short run (keep the Init offset); beyond it the samples are wrong. */
        double noise = ((double)bi->rtt_ns + (double)bf->rtt_ns) / 2;
        return d_off > noise ? PLOG_CLOCKFIT_BADSLOPE : 0;
    }
    fit->n = 2;
    return 0;
}

#ifdef __SIZEOF_INT128__
typedef __int128 wide_t;
#else
typedef long double wide_t;
#endif

static inline int64_t sat64(wide_t v)
{
    if (v > (wide_t)INT64_MAX)
        return INT64_MAX;
    if (v < (wide_t)INT64_MIN)
        return INT64_MIN;
    return (int64_t)v;
}

/* Whether the fit's offset is the same at every t (0 without samples, else o0). */
static inline int fit_constant(const plog_clockfit_t *fit)
{
    return fit->n <= 1 || fit->t1 <= fit->t0 || fit->o1 == fit->o0;
}

static inline wide_t offset_wide(const plog_clockfit_t *fit, uint64_t t)
{
    if (fit_constant(fit))
        return fit->n <= 0 ? 0 : fit->o0;
    /* the same floor in 64 bits when everything fits: the 128-bit division is a libgcc
     * call, and this runs twice per event */
    int64_t d_off, d_t, n64;
    uint64_t d64 = fit->t1 - fit->t0;
    if (!__builtin_sub_overflow(fit->o1, fit->o0, &d_off) && d64 <= INT64_MAX &&
        (t >= fit->t0 ? t - fit->t0 <= INT64_MAX : fit->t0 - t <= INT64_MAX)) {
        d_t = t >= fit->t0 ? (int64_t)(t - fit->t0) : -(int64_t)(fit->t0 - t);
        if (!__builtin_mul_overflow(d_off, d_t, &n64)) {
            int64_t q = n64 / (int64_t)d64;
            if (n64 % (int64_t)d64 != 0 && n64 < 0)
                q -= 1;
            return (wide_t)fit->o0 + q;
        }
    }
    /* |o1 - o0| <= 1e-3 (t1 - t0) (plog_clock_fit), so the product stays below 2^118 */
    wide_t num = ((wide_t)fit->o1 - (wide_t)fit->o0) * ((wide_t)t - (wide_t)fit->t0);
    wide_t den = (wide_t)(fit->t1 - fit->t0);
#ifdef __SIZEOF_INT128__
    wide_t q = num / den;
    if (num % den != 0 && num < 0)
        q -= 1; /* floor, so that aligned time never runs backwards */
#else
    wide_t q = floorl(num / den);
#endif
    return (wide_t)fit->o0 + q;
}

int64_t plog_clock_offset(const plog_clockfit_t *fit, uint64_t t)
{
    return sat64(offset_wide(fit, t));
}

static inline int64_t clock_align(const plog_clockfit_t *fit, uint64_t t, uint64_t ref)
{
    return sat64((wide_t)t + offset_wide(fit, t) - (wide_t)ref);
}

int64_t plog_clock_align(const plog_clockfit_t *fit, uint64_t t, uint64_t ref)
{
    return clock_align(fit, t, ref);
}

#ifdef __SIZEOF_INT128__
static wide_t floor_div(wide_t a, wide_t b) /* b > 0 */
{
    wide_t q = a / b;
    return a % b != 0 && a < 0 ? q - 1 : q;
}

static wide_t ceil_div(wide_t a, wide_t b) /* b > 0 */
{
    wide_t q = a / b;
    return a % b != 0 && a > 0 ? q + 1 : q;
}
#endif

int64_t clock_align_piece(const plog_clockfit_t *fit, uint64_t t, uint64_t ref,
                          clock_piece_t *pc)
{
    wide_t off = offset_wide(fit, t);
    int64_t aligned = sat64((wide_t)t + off - (wide_t)ref);
    *pc = (clock_piece_t){0, 0, 0};
#ifdef __SIZEOF_INT128__ /* a long double may round the bounds: no stretches without it */
    wide_t add = off - (wide_t)ref;
    if (add < (wide_t)INT64_MIN || add > (wide_t)INT64_MAX || t > INT64_MAX ||
        (wide_t)t + add != (wide_t)aligned)
        return aligned;
    wide_t lo = 0, hi = (wide_t)UINT64_MAX; /* in t; hi exclusive */
    if (!fit_constant(fit)) {
        /* offset = o0 + floor(D dt / T), dt = t - t0: the dt with the same floor */
        wide_t D = (wide_t)fit->o1 - (wide_t)fit->o0, T = (wide_t)(fit->t1 - fit->t0);
        wide_t q = off - (wide_t)fit->o0, dlo, dhi;
        if (D > 0) { /* q T <= D dt < (q + 1) T */
            dlo = ceil_div(q * T, D);
            dhi = ceil_div((q + 1) * T, D);
        } else { /* with c = -q: (c - 1) T < -D dt <= c T */
            wide_t c = -q, Dn = -D;
            dlo = floor_div((c - 1) * T, Dn) + 1;
            dhi = floor_div(c * T, Dn) + 1;
        }
        lo = (wide_t)fit->t0 + dlo;
        hi = (wide_t)fit->t0 + dhi;
    }
    if (lo < 0)
        lo = 0;
    /* inside the stretch t + add is an int64_t: t <= INT64_MAX, and no overflow (t >= 0 and
     * add >= INT64_MIN, so only a positive add can overflow) */
    wide_t top = add > 0 ? (wide_t)INT64_MAX - add + 1 : (wide_t)INT64_MAX;
    if (hi > top)
        hi = top;
    if (lo <= (wide_t)t && (wide_t)t < hi) /* always, unless the arithmetic above is wrong */
        *pc = (clock_piece_t){(uint64_t)lo, (uint64_t)hi, (int64_t)add};
#endif
    return aligned;
}

int64_t plog_clock_align_stretch(const plog_clockfit_t *fit, uint64_t t, uint64_t ref,
                                 uint64_t *lo, uint64_t *hi)
{
    clock_piece_t pc;
    int64_t a = clock_align_piece(fit, t, ref, &pc);
    *lo = pc.lo;
    *hi = pc.hi;
    return a;
}
