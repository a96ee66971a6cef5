/* test_probe.c: the PROBE payload (format/plog_probe.c): round trip, every truncation and
 * every kind of bad value rejected, payloads of logs before version 5 (no way per entry),
 * quantiles against hand-computed values. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "plog_probe.h"

static plog_probe_info_t info(void)
{
    plog_probe_info_t i = {.mode = PLOG_PROBE_QUICK, .nsizes = 3, .sizes = {4096, 65536, 1048576},
                           .reps = 7, .rounds = 3, .elapsed_s = 0.25, .seed = 0x1234567890abcdefull};
    return i;
}

static plog_probe_entry_t entry(int32_t src, int32_t dst, uint32_t z)
{
    plog_probe_entry_t e = {.src = src, .dst = dst, .size_idx = z,
                            .q = {21, 1000, 1100, 1200, 1300, 1400, 1500, 2000, 1310.5}};
    return e;
}

static size_t encode(uint8_t *buf, size_t cap, const plog_probe_info_t *in,
                     const plog_probe_entry_t *e, size_t n)
{
    plog_wcur_t w = {buf, buf + cap, 0};
    plog_probe_encode(&w, in, NULL, e, n);
    cr_assert_eq(w.overflow, 0);
    return (size_t)(w.p - buf);
}

/* decode the whole payload; returns the first error */
static plog_err_t decode(const uint8_t *buf, size_t len, size_t n, int32_t world,
                         plog_probe_info_t *out, plog_probe_entry_t *e)
{
    plog_rcur_t r = {buf, buf + len, PLOG_OK};
    plog_err_t err = plog_probe_get_info(&r, PLOG_VERSION, out, NULL);
    for (size_t k = 0; k < n && err == PLOG_OK; k++)
        err = plog_probe_get_entry(&r, out, world, &e[k]);
    if (err == PLOG_OK && r.p != r.end)
        return PLOG_E_CORRUPT;
    return err;
}

Test(probe, round_trip)
{
    plog_probe_info_t in = info(), out;
    plog_probe_entry_t e[3] = {entry(2, 0, 0), entry(2, 3, 2), entry(2, -1, 1)}, got[3];
    e[1].way = PLOG_PROBE_ONEWAY;
    uint8_t buf[PLOG_PROBE_BOUND(3)];
    size_t len = encode(buf, sizeof(buf), &in, e, 3);
    cr_assert_eq(decode(buf, len, 3, 4, &out, got), PLOG_OK);
    cr_assert_eq(out.mode, in.mode);
    cr_assert_eq(out.nsizes, 3);
    cr_assert_eq(out.sizes[2], 1048576);
    cr_assert_eq(out.reps, 7);
    cr_assert_eq(out.rounds, 3);
    cr_assert_eq(out.seed, in.seed);
    cr_assert_eq(out.elapsed_s, 0.25);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(got[k].src, e[k].src);
        cr_assert_eq(got[k].dst, e[k].dst);
        cr_assert_eq(got[k].size_idx, e[k].size_idx);
        cr_assert_eq(got[k].way, e[k].way);
        cr_assert_eq(got[k].q.n, e[k].q.n);
        cr_assert(memcmp(&got[k].q.min, &e[k].q.min, 8 * sizeof(double)) == 0); /* bit exact */
    }
}

Test(probe, every_truncation_is_an_error)
{
    plog_probe_info_t in = info(), out;
    plog_probe_entry_t e[2] = {entry(1, 0, 0), entry(1, -1, 2)}, got[2];
    uint8_t buf[PLOG_PROBE_BOUND(2)];
    size_t len = encode(buf, sizeof(buf), &in, e, 2);
    for (size_t cut = 0; cut < len; cut++)
        cr_assert_neq(decode(buf, cut, 2, 2, &out, got), PLOG_OK, "cut at %zu of %zu", cut, len);
}

/* one bad value at a time: each must be refused */
Test(probe, bad_values)
{
    plog_probe_info_t out;
    plog_probe_entry_t got;
    uint8_t buf[PLOG_PROBE_BOUND(1)];
    for (int c = 0; c < 15; c++) {
        plog_probe_info_t in = info();
        plog_probe_entry_t e = entry(1, 2, 1);
        int world = 4;
        switch (c) {
        case 0: in.mode = 3; break;
        case 1: in.nsizes = 0; break;
        case 2: in.sizes[1] = 4096; break;          /* not increasing */
        case 3: e.src = 4; break;                   /* outside the world */
        case 4: e.dst = 4; break;
        case 5: e.dst = 1; break;                   /* to itself */
        case 6: e.size_idx = 3; break;
        case 7: e.q.n = 0; break;
        case 8: e.q.q50 = NAN; break;
        case 9: e.q.min = -1; break;
        case 10: e.q.q75 = 1250; break;             /* below q50 */
        case 11: e.q.mean = 2500; break;            /* above max */
        case 12: in.elapsed_s = -0.5; break;
        case 13: world = 0; break;
        case 14: e.way = 2; break;                  /* neither exchange nor one way */
        }
        plog_wcur_t w = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&w, &in, NULL, &e, 1);
        cr_assert_neq(decode(buf, (size_t)(w.p - buf), 1, world, &out, &got), PLOG_OK,
                      "case %d accepted", c);
    }
    /* and the unmutated one passes */
    plog_probe_info_t in = info();
    plog_probe_entry_t e = entry(1, 2, 1);
    size_t len = encode(buf, sizeof(buf), &in, &e, 1);
    cr_assert_eq(decode(buf, len, 1, 4, &out, &got), PLOG_OK);
}

Test(probe, too_many_sizes)
{
    uint8_t buf[8] = {PLOG_PROBE_QUICK, PLOG_PROBE_MAXSIZES + 1};
    plog_rcur_t r = {buf, buf + sizeof(buf), PLOG_OK};
    plog_probe_info_t out;
    cr_assert_neq(plog_probe_get_info(&r, PLOG_VERSION, &out, NULL), PLOG_OK);
}

/* The header's last bytes from version 10: seq 0 and trigger init (a byte each), two u64
 * times. A payload of an older log is the current one without them. */
#define WHEN_AT_INIT_BYTES 18

/* A log before version 5 has no way per entry: quick probes measured exchanges, full
 * probes one-way times. Its payload is this one without the way byte (nor the v10 bytes). */
Test(probe, before_version_5_the_mode_gives_the_way)
{
    for (unsigned mode = PLOG_PROBE_QUICK; mode <= PLOG_PROBE_FULL; mode++) {
        plog_probe_info_t in = info(), out;
        in.mode = mode;
        uint8_t hdr[PLOG_PROBE_BOUND(0)], buf[PLOG_PROBE_BOUND(1)];
        size_t h = encode(hdr, sizeof(hdr), &in, NULL, 0);
        plog_probe_entry_t e = entry(1, 2, 1), got;
        e.way = mode == PLOG_PROBE_QUICK ? PLOG_PROBE_ONEWAY : PLOG_PROBE_EXCHANGE;
        size_t len = encode(buf, sizeof(buf), &in, &e, 1);
        cr_assert_eq(buf[h + 3], e.way); /* src, dst + 1, size index: one byte each */
        memmove(buf + h + 3, buf + h + 4, len - h - 4);
        len--;
        memmove(buf + h - WHEN_AT_INIT_BYTES, buf + h, len - h);
        len -= WHEN_AT_INIT_BYTES;
        plog_rcur_t r = {buf, buf + len, PLOG_OK};
        cr_assert_eq(plog_probe_get_info(&r, 4, &out, NULL), PLOG_OK);
        cr_assert_eq(plog_probe_get_entry(&r, &out, 4, &got), PLOG_OK);
        cr_assert_eq(r.p, r.end);
        cr_assert_eq(got.way, mode == PLOG_PROBE_QUICK ? PLOG_PROBE_EXCHANGE : PLOG_PROBE_ONEWAY);
        cr_assert_eq(got.q.q50, e.q.q50);
    }
}

/* Version 10: which probe and when, round trip; older logs: the probe at MPI_Init, no times */
Test(probe, when_round_trip_and_before_version_10)
{
    plog_probe_info_t in = info(), out;
    plog_probe_entry_t e = entry(1, 2, 1), got;
    const plog_probe_when_t w[] = {{0, PLOG_PROBE_AT_INIT, 5, 7},
                                   {1, PLOG_PROBE_EVERY, 1ull << 40, (1ull << 40) + 12345},
                                   {300, PLOG_PROBE_PCONTROL, UINT64_MAX - 1, UINT64_MAX}};
    uint8_t buf[PLOG_PROBE_BOUND(1)];
    for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
        plog_wcur_t wc = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&wc, &in, &w[k], &e, 1);
        cr_assert_eq(wc.overflow, 0);
        plog_rcur_t r = {buf, wc.p, PLOG_OK};
        plog_probe_when_t wo;
        cr_assert_eq(plog_probe_get_info(&r, PLOG_VERSION, &out, &wo), PLOG_OK);
        cr_assert_eq(plog_probe_get_entry(&r, &out, 4, &got), PLOG_OK);
        cr_assert_eq(r.p, r.end);
        cr_assert_eq(wo.seq, w[k].seq);
        cr_assert_eq(wo.trigger, w[k].trigger);
        cr_assert_eq(wo.t_start_ns, w[k].t_start_ns);
        cr_assert_eq(wo.t_end_ns, w[k].t_end_ns);
    }
    /* version 9: the same payload without the when bytes reads as the probe at MPI_Init */
    plog_probe_when_t at0 = {0, PLOG_PROBE_AT_INIT, 0, 0}, wo;
    size_t h = encode(buf, sizeof(buf), &in, NULL, 0);
    size_t len = encode(buf, sizeof(buf), &in, &e, 1);
    memmove(buf + h - WHEN_AT_INIT_BYTES, buf + h, len - h);
    plog_rcur_t r = {buf, buf + len - WHEN_AT_INIT_BYTES, PLOG_OK};
    memset(&wo, 0xff, sizeof(wo));
    cr_assert_eq(plog_probe_get_info(&r, 9, &out, &wo), PLOG_OK);
    cr_assert_eq(plog_probe_get_entry(&r, &out, 4, &got), PLOG_OK);
    cr_assert_eq(r.p, r.end);
    cr_assert(memcmp(&wo, &at0, sizeof(wo)) == 0);
}

/* a later probe is never seq 0, the probe at MPI_Init always; a probe ends after it starts;
 * triggers are known */
Test(probe, when_bad_values)
{
    plog_probe_info_t in = info(), out;
    const plog_probe_when_t bad[] = {{0, PLOG_PROBE_EVERY, 1, 2}, {3, PLOG_PROBE_AT_INIT, 1, 2},
                                     {2, PLOG_PROBE_PCONTROL, 9, 8}, {2, 3, 1, 2}};
    uint8_t buf[PLOG_PROBE_BOUND(0)];
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        plog_wcur_t wc = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&wc, &in, &bad[k], NULL, 0);
        plog_rcur_t r = {buf, wc.p, PLOG_OK};
        cr_assert_neq(plog_probe_get_info(&r, PLOG_VERSION, &out, NULL), PLOG_OK, "case %zu", k);
    }
    cr_assert_str_eq(plog_probe_trigger_name(PLOG_PROBE_AT_INIT), "init");
    cr_assert_str_eq(plog_probe_trigger_name(PLOG_PROBE_EVERY), "every");
    cr_assert_str_eq(plog_probe_trigger_name(PLOG_PROBE_PCONTROL), "pcontrol");
    cr_assert_str_eq(plog_probe_trigger_name(9), "unknown");
}

Test(probe, quantiles_type7)
{
    double v[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    plog_probe_q_t q;
    plog_probe_quantiles(v, 10, &q);
    cr_assert_eq(q.n, 10);
    cr_assert_float_eq(q.min, 1, 1e-12);
    cr_assert_float_eq(q.q10, 1.9, 1e-12); /* h = 0.9: 1 + 0.9 (2 - 1) */
    cr_assert_float_eq(q.q25, 3.25, 1e-12);
    cr_assert_float_eq(q.q50, 5.5, 1e-12);
    cr_assert_float_eq(q.q75, 7.75, 1e-12);
    cr_assert_float_eq(q.q90, 9.1, 1e-12);
    cr_assert_float_eq(q.max, 10, 1e-12);
    cr_assert_float_eq(q.mean, 5.5, 1e-12);
    double one = 42;
    plog_probe_quantiles(&one, 1, &q);
    cr_assert(q.n == 1 && q.min == 42 && q.q10 == 42 && q.q90 == 42 && q.mean == 42);
    plog_probe_quantiles(NULL, 0, &q);
    cr_assert_eq(q.n, 0);
}

/* An exchange sample runs from the later posting to the later end, whoever was late and
 * whatever the clocks say (log format 8). */
Test(probe, exchange_time_from_the_later_posting)
{
    /* together: the longer side */
    cr_assert_float_eq(plog_probe_exchange_time(0, 50, 0, 80, 0), 80, 1e-9);
    /* b leaves the barrier 1000 ns late; a waits for it (its time 1050) and b's own 50 ns
     * are the exchange: the old longer-side sample was 1050 */
    cr_assert_float_eq(plog_probe_exchange_time(0, 1050, 1000, 50, 0), 50, 1e-9);
    /* the same with b's clock 1e6 ns ahead, and with a's data still arriving after b's
     * Waitall (a ends 30 ns after b) */
    cr_assert_float_eq(plog_probe_exchange_time(0, 1050, 1e6 + 1000, 50, 1e6), 50, 1e-9);
    cr_assert_float_eq(plog_probe_exchange_time(0, 1080, 1e6 + 1000, 50, 1e6), 80, 1e-9);
    /* symmetric: the same sample from b's side, with the offset the other way */
    cr_assert_float_eq(plog_probe_exchange_time(1e6 + 1000, 50, 0, 1080, -1e6), 80, 1e-9);
    /* an offset wrong by more than the skew never gives a negative time */
    cr_assert_geq(plog_probe_exchange_time(0, 1050, 1000, 50, 5000), 0);
}

Test(probe, clock_offset_from_a_round_trip)
{
    /* b's clock 500 ahead, 20 ns each way: sent at 100, answered at 100 + 20 + 500,
     * back at 140 */
    cr_assert_float_eq(plog_probe_clock_offset(100, 140, 620), 500, 1e-9);
    /* asymmetric ways (10 there, 30 back): off by half the difference */
    cr_assert_float_eq(plog_probe_clock_offset(100, 140, 610), 490, 1e-9);
}
