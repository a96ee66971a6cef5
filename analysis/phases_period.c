/* phases_period.c: the period of a rank's call-signature sequence and the signatures that
 * occur once per period (phases.h, ph_detect_period), from which the iteration marker is
 * chosen when the program has no MPI_Pcontrol markers. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"

/* Fraction of positions i >= from with s[i] == s[i + p]; stops early (returning what it has,
 * below PH_PERIOD_MATCH) once the mismatches alone rule the threshold out. */
static double match_fraction(const uint64_t *s, size_t n, size_t p, size_t from)
{
    if (p == 0 || from + p >= n)
        return 0;
    size_t total = n - p - from, miss = 0;
    size_t limit = (size_t)((1 - PH_PERIOD_MATCH) * (double)total);
    for (size_t i = from; i + p < n; i++)
        if (s[i] != s[i + p] && ++miss > limit)
            return 0;
    return (double)(total - miss) / (double)total;
}

typedef struct sigpos {
    uint64_t sig;
    size_t pos;
} sigpos_t;

static int cmp_sigpos(const void *a, const void *b)
{
    const sigpos_t *x = a, *y = b;
    if (x->sig != y->sig)
        return x->sig < y->sig ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

typedef struct sigrun {
    size_t count, first, last;
} sigrun_t;

static int cmp_run_count(const void *a, const void *b)
{
    const sigrun_t *x = a, *y = b;
    return x->count > y->count ? -1 : x->count < y->count;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

#define PH_PERIOD_SIGS 32 /* the most frequent signatures propose periods */

uint32_t ph_detect_period(const uint64_t *s, size_t n, uint64_t *anchors, size_t max_anchors,
                          size_t *n_anchors)
{
    if (n_anchors)
        *n_anchors = 0;
    if (n < 3)
        return 0;
    sigpos_t *sp = malloc(n * sizeof(*sp));
    sigrun_t *runs = malloc(n * sizeof(*runs));
    size_t *cand = malloc(4 * PH_PERIOD_SIGS * sizeof(*cand));
    size_t best = 0;
    if (sp == NULL || runs == NULL || cand == NULL)
        goto out;
    for (size_t i = 0; i < n; i++)
        sp[i] = (sigpos_t){s[i], i};
    qsort(sp, n, sizeof(*sp), cmp_sigpos);
    size_t nruns = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && sp[j].sig == sp[i].sig)
            j++;
        runs[nruns++] = (sigrun_t){j - i, sp[i].pos, sp[j - 1].pos};
        i = j;
    }
    qsort(runs, nruns, sizeof(*runs), cmp_run_count);
    /* candidates: a signature seen c >= 3 times proposes its mean gap times m = 1..4 (it may
     * occur m times per period) */
    size_t ncand = 0;
    for (size_t k = 0; k < nruns && k < PH_PERIOD_SIGS && runs[k].count >= 3; k++) {
        double gap = (double)(runs[k].last - runs[k].first) / (double)(runs[k].count - 1);
        for (int m = 1; m <= 4; m++) {
            size_t p = (size_t)llround(gap * m);
            if (p != 0 && 3 * p <= n) {
                assert(ncand < 4 * PH_PERIOD_SIGS);
                cand[ncand++] = p;
            }
        }
    }
    qsort(cand, ncand, sizeof(*cand), cmp_size);
    /* the smallest candidate that repeats the sequence; a set-up prefix is allowed: the match
     * is measured past the first p positions */
    for (size_t a = 0; a < ncand && best == 0; a++)
        if ((a == 0 || cand[a] != cand[a - 1]) &&
            match_fraction(s, n, cand[a], cand[a]) >= PH_PERIOD_MATCH)
            best = cand[a];
    /* the true period may divide the one found (from m >= 2): try its divisors */
    for (size_t d = 2; best != 0 && d <= best; d++)
        if (best % d == 0 && match_fraction(s, n, best / d, best / d) >= PH_PERIOD_MATCH) {
            best /= d;
            d = 1;
        }
    if (best != 0 && anchors != NULL && n_anchors != NULL) {
        /* periodic part: the last whole periods; count occurrences there */
        size_t periods = (n - best) / best, from = n - periods * best, m = periods * best;
        _Static_assert(sizeof(sigrun_t) >= sizeof(uint64_t), "runs[] holds n signatures");
        uint64_t *sorted = (uint64_t *)runs; /* no longer needed; n words fit */
        assert(m <= n);
        memcpy(sorted, s + from, m * sizeof(*s));
        qsort(sorted, m, sizeof(*sorted), ph_cmp_u64);
        for (size_t i = 0; i < m;) {
            size_t j = i;
            while (j < m && sorted[j] == sorted[i])
                j++;
            if (j - i == periods && *n_anchors < max_anchors)
                anchors[(*n_anchors)++] = sorted[i];
            i = j;
        }
    }
out:
    free(sp);
    free(runs);
    free(cand);
    return (uint32_t)best;
}
