/* test_clockalign.c: clock-offset fitting and alignment (plog_clock_* in plog_reader.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_reader.h"
#include "plog_testgen.h"

static plog_sync_sample_t S(unsigned phase, uint64_t local, int64_t off, uint64_t rtt)
{
    plog_sync_sample_t s = {phase, local, off, rtt};
    return s;
}

Test(clockalign, no_samples_means_zero_offset)
{
    plog_clockfit_t f;
    unsigned flags = plog_clock_fit(NULL, 0, &f);
    cr_assert_eq(flags, PLOG_CLOCKFIT_NONE);
    cr_assert_eq(f.n, 0);
    cr_assert_eq(plog_clock_offset(&f, 0), 0);
    cr_assert_eq(plog_clock_offset(&f, 123456789), 0);
    cr_assert_eq(plog_clock_align(&f, 5000, 1000), 4000);
}

Test(clockalign, single_init_sample_is_constant)
{
    plog_sync_sample_t s[1] = {S(PLOG_SYNC_INIT, 1000, -250, 40)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 1, &f), PLOG_CLOCKFIT_SINGLE);
    cr_assert_eq(f.n, 1);
    cr_assert_eq(plog_clock_offset(&f, 0), -250);
    cr_assert_eq(plog_clock_offset(&f, 1000), -250);
    cr_assert_eq(plog_clock_offset(&f, 1000000000000ull), -250);
}

Test(clockalign, single_finalize_sample_is_constant)
{
    plog_sync_sample_t s[1] = {S(PLOG_SYNC_FINALIZE, 9000, 777, 40)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 1, &f), PLOG_CLOCKFIT_SINGLE);
    cr_assert_eq(plog_clock_offset(&f, 12), 777);
    cr_assert_eq(plog_clock_align(&f, 1000, 0), 1777);
}

Test(clockalign, interpolates_between_init_and_finalize)
{
    /* 100 ppm drift: offset grows by 1000 ns over 10 ms */
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, 1000000, 5000, 100),
                               S(PLOG_SYNC_FINALIZE, 11000000, 6000, 100)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), 0);
    cr_assert_eq(f.n, 2);
    cr_assert_eq(plog_clock_offset(&f, 1000000), 5000);
    cr_assert_eq(plog_clock_offset(&f, 11000000), 6000);
    cr_assert_eq(plog_clock_offset(&f, 6000000), 5500);
    cr_assert_eq(plog_clock_offset(&f, 1000010), 5000); /* +0.001 ns floors to +0 */
    cr_assert_eq(plog_clock_offset(&f, 1010000), 5001);
}

Test(clockalign, floor_rounding)
{
    /* slope 1/1000: offsets between samples round down, also below zero */
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, 1000000, 0, 0),
                               S(PLOG_SYNC_FINALIZE, 2000000, 1000, 0)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), 0);
    cr_assert_eq(plog_clock_offset(&f, 1000999), 0);
    cr_assert_eq(plog_clock_offset(&f, 1001000), 1);
    cr_assert_eq(plog_clock_offset(&f, 999999), -1); /* -0.001 floors to -1 */
    cr_assert_eq(plog_clock_offset(&f, 999000), -1);
    cr_assert_eq(plog_clock_offset(&f, 998999), -2);
}

Test(clockalign, extrapolates_outside_the_samples)
{
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, 10000000, -1000, 10),
                               S(PLOG_SYNC_FINALIZE, 20000000, -2000, 10)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), 0);
    cr_assert_eq(plog_clock_offset(&f, 30000000), -3000);
    cr_assert_eq(plog_clock_offset(&f, 0), 0);
    cr_assert_eq(plog_clock_offset(&f, 5000000), -500);
}

Test(clockalign, drift_over_a_long_run)
{
    /* 50 ppm over an hour: 180 ms */
    uint64_t t0 = 3600ull * 1000000000ull, t1 = t0 + 3600ull * 1000000000ull;
    int64_t o0 = -123456789, o1 = o0 + 180000000;
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, t0, o0, 5000), S(PLOG_SYNC_FINALIZE, t1, o1, 5000)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), 0);
    cr_assert_eq(plog_clock_offset(&f, t0 + (t1 - t0) / 2), o0 + 90000000);
    cr_assert_eq(plog_clock_offset(&f, t0 + (t1 - t0) / 4), o0 + 45000000);
    /* aligned = local + offset - ref */
    cr_assert_eq(plog_clock_align(&f, t1, (uint64_t)((int64_t)t0 + o0)),
                 (int64_t)(t1 - t0) + (o1 - o0));
}

Test(clockalign, best_round_trip_wins)
{
    plog_sync_sample_t s[4] = {S(PLOG_SYNC_INIT, 1000, 900, 500), S(PLOG_SYNC_INIT, 1100, 100, 50),
                               S(PLOG_SYNC_FINALIZE, 100000000, 150, 60),
                               S(PLOG_SYNC_FINALIZE, 100000100, 9000, 600)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 4, &f), 0);
    cr_assert_eq(f.t0, 1100);
    cr_assert_eq(f.o0, 100);
    cr_assert_eq(f.t1, 100000000);
    cr_assert_eq(f.o1, 150);
}

Test(clockalign, implausible_slope_is_refused)
{
    /* 1 ms of offset change over 10 ms of time (10 %), far beyond the round trips */
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, 1000000, 0, 100),
                               S(PLOG_SYNC_FINALIZE, 11000000, 1000000, 100)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), PLOG_CLOCKFIT_BADSLOPE);
    cr_assert_eq(f.n, 1);
    cr_assert_eq(plog_clock_offset(&f, 11000000), 0);
}

Test(clockalign, steep_slope_within_noise_is_quietly_constant)
{
    /* a 20 us run: 500 ns difference is within the 2 us round trips */
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, 1000000, 100, 2000),
                               S(PLOG_SYNC_FINALIZE, 1020000, 600, 2000)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), 0);
    cr_assert_eq(f.n, 1);
    cr_assert_eq(plog_clock_offset(&f, 1020000), 100);
}

Test(clockalign, finalize_before_init_is_flagged)
{
    plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, 5000000, 10, 1),
                               S(PLOG_SYNC_FINALIZE, 4000000, 20, 1)};
    plog_clockfit_t f;
    cr_assert_eq(plog_clock_fit(s, 2, &f), PLOG_CLOCKFIT_BADORDER);
    cr_assert_eq(f.n, 1);
    cr_assert_eq(plog_clock_offset(&f, 4000000), 10);
}

Test(clockalign, aligned_time_never_runs_backwards)
{
    uint64_t seed = 42;
    for (int trial = 0; trial < 200; trial++) {
        uint64_t t0 = pgen_rand(&seed) % (1ull << 50);
        uint64_t dt = 1 + pgen_rand(&seed) % (1ull << 40);
        int64_t o0 = (int64_t)(pgen_rand(&seed) % (1ull << 40)) - (1ll << 39);
        int64_t maxd = (int64_t)(dt / 1000); /* within PLOG_CLOCK_MAX_DRIFT */
        int64_t d = maxd ? (int64_t)(pgen_rand(&seed) % (uint64_t)(2 * maxd + 1)) - maxd : 0;
        plog_sync_sample_t s[2] = {S(PLOG_SYNC_INIT, t0, o0, 0),
                                   S(PLOG_SYNC_FINALIZE, t0 + dt, o0 + d, 0)};
        plog_clockfit_t f;
        cr_assert_eq(plog_clock_fit(s, 2, &f), 0);
        uint64_t t = t0 > 1000000 ? t0 - 1000000 : 0;
        int64_t prev = plog_clock_align(&f, t, 0);
        for (int k = 0; k < 2000; k++) {
            t += 1 + pgen_rand(&seed) % 3;
            int64_t a = plog_clock_align(&f, t, 0);
            cr_assert_geq(a, prev, "trial %d: aligned %lld after %lld", trial, (long long)a,
                          (long long)prev);
            prev = a;
        }
    }
}

Test(clockalign, saturates_instead_of_wrapping)
{
    plog_sync_sample_t s[1] = {S(PLOG_SYNC_INIT, 0, INT64_MAX, 0)};
    plog_clockfit_t f;
    plog_clock_fit(s, 1, &f);
    cr_assert_eq(plog_clock_align(&f, UINT64_MAX, 0), INT64_MAX);
    plog_sync_sample_t n[1] = {S(PLOG_SYNC_INIT, 0, INT64_MIN, 0)};
    plog_clock_fit(n, 1, &f);
    cr_assert_eq(plog_clock_align(&f, 0, UINT64_MAX), INT64_MIN);
}

/* The stretch around t is exact: the same amount at both its ends, another just outside (but
 * where it stops short of overflowing), for drifts of both signs up to the limit, constant
 * offsets, times far before and after the samples, and near INT64_MAX and UINT64_MAX. */
#ifdef __SIZEOF_INT128__
Test(clockalign, stretch_is_exact)
{
    uint64_t seed = 11;
    int checked_out = 0;
    for (int trial = 0; trial < 4000; trial++) {
        uint64_t t0 = pgen_rand(&seed) % (1ull << 50);
        uint64_t span = 1 + pgen_rand(&seed) % (trial % 3 == 0 ? 100000 : (1ull << 40));
        int64_t maxd = (int64_t)(span / 1001); /* at the drift limit, safely inside it */
        int64_t d = trial % 5 == 0   ? 0
                    : trial % 5 == 1 ? maxd
                    : trial % 5 == 2 ? -maxd
                    : maxd ? (int64_t)(pgen_rand(&seed) % (uint64_t)(2 * maxd + 1)) - maxd : 0;
        /* offsets near 2^62 with no drift (a drift is measured in doubles, to 512 ns there) */
        int64_t o0 = d == 0 && trial % 2 == 0
                         ? INT64_MAX / 2 - (int64_t)(pgen_rand(&seed) % 1000)
                         : (int64_t)(pgen_rand(&seed) % (1ull << 40)) - (1ll << 39);
        plog_sync_sample_t sm[2] = {S(PLOG_SYNC_INIT, t0, o0, 0),
                                    S(PLOG_SYNC_FINALIZE, t0 + span, o0 + d, 0)};
        plog_clockfit_t f;
        unsigned fr = plog_clock_fit(sm, 2, &f);
        cr_assert_eq(fr, 0, "trial %d: fit %u (span %llu, d %lld)", trial, fr,
                     (unsigned long long)span, (long long)d);
        uint64_t ref = trial % 4 == 0 ? 0 : pgen_rand(&seed) % (1ull << 50);
        uint64_t t;
        switch (trial % 6) {
        case 0: t = pgen_rand(&seed); break;                            /* anywhere */
        case 1: t = (uint64_t)INT64_MAX - pgen_rand(&seed) % 100000; break;
        case 2: t = UINT64_MAX - pgen_rand(&seed) % 1000; break;
        case 3: t = pgen_rand(&seed) % 1000; break;                      /* before */
        default: t = t0 + pgen_rand(&seed) % (2 * span + 1); break;       /* around */
        }
        uint64_t lo, hi;
        int64_t a = plog_clock_align_stretch(&f, t, ref, &lo, &hi);
        cr_assert_eq(a, plog_clock_align(&f, t, ref));
        if (lo == hi) { /* none: only where the result is at a limit */
            cr_assert(a == INT64_MAX || a == INT64_MIN || t > (uint64_t)INT64_MAX - 1,
                      "trial %d: no stretch at t %llu", trial, (unsigned long long)t);
            continue;
        }
        cr_assert(lo <= t && t < hi, "trial %d", trial);
        int64_t add = a - (int64_t)t;
        /* the ends hold the same amount, with no overflow */
        cr_assert_eq(plog_clock_align(&f, lo, ref), (int64_t)lo + add, "trial %d lo", trial);
        cr_assert_eq(plog_clock_align(&f, hi - 1, ref), (int64_t)(hi - 1) + add, "trial %d",
                     trial);
        cr_assert(hi - 1 <= (uint64_t)INT64_MAX && (add <= 0 || (int64_t)(hi - 1) <=
                                                                  INT64_MAX - add));
        /* just outside: another amount, unless the stretch stopped at a limit of its own */
        if (lo > 0) {
            cr_assert_neq(plog_clock_align(&f, lo - 1, ref), (int64_t)(lo - 1) + add,
                          "trial %d: lo %llu could be lower", trial, (unsigned long long)lo);
            checked_out++;
        }
        uint64_t top = add > 0 ? (uint64_t)(INT64_MAX - add) + 1 : (uint64_t)INT64_MAX;
        if (hi < top) {
            int64_t b = plog_clock_align(&f, hi, ref);
            cr_assert(b != (int64_t)hi + add, "trial %d: hi %llu could be higher", trial,
                      (unsigned long long)hi);
            checked_out++;
        } else {
            cr_assert_eq(hi, top, "trial %d: hi past where t + amount overflows", trial);
        }
    }
    cr_assert_gt(checked_out, 3000, "too few stretch ends checked (%d)", checked_out);
}
#endif

/* The reader aligns by an add while the offset stays the same (a cached stretch of local
 * time): every record must still equal plog_clock_align, for drifts of either sign up to the
 * limit, times before, between and after the samples, small steps and jumps across many
 * stretches, and a second thread going back in time. */
Test(clockalign, reader_matches_plog_clock_align, .timeout = 60)
{
    uint64_t seed = 7;
    for (int trial = 0; trial < 6; trial++) {
        char *dir = pgen_tmpdir();
        cr_assert_not_null(dir);
        const int nr = 4;
        for (int r = 0; r < nr; r++) {
            pgen_rank_t g;
            uint64_t t0 = 1000000 + pgen_rand(&seed) % 1000000000;
            uint64_t span = 1000000 + pgen_rand(&seed) % 100000000000ull;
            int64_t maxd = (int64_t)(span / 1000);
            /* rank 0 the reference (offset 0, as the format requires), rank 1 at the drift
             * limit, the others anywhere in it */
            int64_t d = r == 0   ? 0
                        : r == 1 ? (trial & 1 ? maxd : -maxd)
                                 : (int64_t)(pgen_rand(&seed) % (uint64_t)(2 * maxd + 1)) - maxd;
            int64_t o0 = (int64_t)(pgen_rand(&seed) % 2000000000) - 1000000000;
            if (r == 0)
                o0 = 0;
            cr_assert_eq(pgen_open(&g, dir, r, nr, t0), 0);
            pgen_sync(&g, PLOG_SYNC_INIT, t0, o0, 0);
            pgen_sync(&g, PLOG_SYNC_FINALIZE, t0 + span, o0 + d, 0);
            for (unsigned th = 0; th < 2; th++) {
                uint64_t t = t0 > 500000 ? t0 - 500000 : 0;
                for (int k = 0; k < 3000; k++) {
                    uint64_t step = k % 97 == 0 ? pgen_rand(&seed) % (span / 10 + 1)
                                                : pgen_rand(&seed) % (th ? 5000 : 50);
                    t += step;
                    pgen_event(&g, th, PLOG_CALL_MPI_Barrier, t, t + pgen_rand(&seed) % 20000);
                }
            }
            cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        }
        plog_run_t *run;
        plog_error_t err;
        cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
        plog_iter_t *it;
        cr_assert_eq(plog_iter_open(run, PLOG_ALL_RANKS, &it, &err), PLOG_OK);
        const plog_rec_t *e;
        size_t seen = 0;
        uint64_t ref = plog_run_time_ref(run);
        while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL) {
            const plog_clockfit_t *f = &plog_run_rank(run, e->rank)->clock;
            cr_assert_eq(f->n, 2);
            cr_assert_eq(e->start_ns, plog_clock_align(f, e->t_start, ref),
                         "trial %d rank %d t %llu", trial, e->rank,
                         (unsigned long long)e->t_start);
            cr_assert_eq(e->end_ns, plog_clock_align(f, e->t_end, ref), "trial %d rank %d",
                         trial, e->rank);
            seen++;
        }
        cr_assert_eq(seen, (size_t)nr * 2 * 3000);
        plog_iter_close(it);
        plog_run_close(run);
        pgen_rmdir(dir);
        free(dir);
    }
}

/* End to end: three ranks with different clocks, read back on rank 0's axis. */
Test(clockalign, reader_aligns_ranks, .timeout = 30)
{
    char *dir = pgen_tmpdir();
    cr_assert_not_null(dir);
    const uint64_t tinit[3] = {1000000, 90000000, 5000000};
    /* rank 1: 89 ms ahead, drifting 1e-4; rank 2: one sample; rank 0: offset 0 */
    for (int r = 0; r < 3; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 3, tinit[r]), 0);
        if (r == 0) {
            pgen_sync(&g, PLOG_SYNC_INIT, tinit[0], 0, 0);
            pgen_sync(&g, PLOG_SYNC_FINALIZE, tinit[0] + 1000000, 0, 0);
        } else if (r == 1) {
            pgen_sync(&g, PLOG_SYNC_INIT, tinit[1], -89000000, 100);
            pgen_sync(&g, PLOG_SYNC_FINALIZE, tinit[1] + 1000000, -89000000 + 100, 100);
        } else {
            pgen_sync(&g, PLOG_SYNC_INIT, tinit[2] + 10, -4000000, 100);
        }
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, tinit[r] + 500000, tinit[r] + 600000);
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(plog_run_time_ref(run), tinit[0]);
    plog_iter_t *it;
    cr_assert_eq(plog_iter_open(run, PLOG_ALL_RANKS, &it, &err), PLOG_OK);
    const plog_rec_t *e;
    /* rank 1: 90.5e6 - 89e6 + 50 (half the drift) = 1.50005e6 on rank 0's clock;
     * rank 2: 5.5e6 - 4e6 = 1.5e6; both minus the origin 1e6 */
    const int64_t want_start[3] = {500000, 500050, 500000};
    int seen = 0;
    while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL) {
        cr_assert_eq(e->start_ns, want_start[e->rank], "rank %d: %lld", e->rank,
                     (long long)e->start_ns);
        seen++;
    }
    cr_assert_eq(seen, 3);
    plog_iter_close(it);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(clockalign, missing_samples_warn, .timeout = 30)
{
    char *dir = pgen_tmpdir();
    for (int r = 0; r < 2; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 2, 1000), 0);
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 2000, 3000);
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    int found = 0;
    for (size_t i = 0; i < plog_run_nwarnings(run); i++) {
        const char *w = plog_run_warning(run, i);
        if (strstr(w, "rank-000001.plog") && strstr(w, "no clock-sync samples"))
            found = 1;
        cr_assert_null(strstr(w, "rank-000000.plog: no clock"), "rank 0 needs no samples");
    }
    cr_assert(found, "no warning about rank 1's missing clock samples");
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}
