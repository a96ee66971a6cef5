/* test_replay.c: `phasor predict --method replay` (analysis/predict_replay.c) on instances
 * small enough to replay by hand: a ping between two ranks, Open MPI's binomial bcast on
 * four ranks with staggered entries (eager and rendezvous), link sharing at a gather root,
 * a reduction's cost, members outside the schedule, background load shared flow by flow,
 * flows sharing a host link over time.
 * Models are constant or affine. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll_sched.h"
#include "predict_replay.h"

static double t_const(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)src;
    (void)dst;
    (void)bytes;
    (void)twoway;
    return *(const double *)ctx;
}

/* 10 ns + 1 ns per 100 bytes */
static double t_affine(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    (void)twoway;
    return 10 + (double)bytes / 100;
}

/* an instance of n members (world ranks 0..n-1) entering at entry[], exiting at exit[] */
static ci_inst_t inst(int n, const int64_t *entry, const int64_t *exit, ci_member_t *mem)
{
    ci_inst_t in;
    memset(&in, 0, sizeof(in));
    in.size = n;
    in.seen = n;
    in.nmem = (size_t)n;
    for (int r = 0; r < n; r++) /* fed out of rank order, as the merged stream does */
        mem[r] = (ci_member_t){n - 1 - r, entry[n - 1 - r], exit ? exit[n - 1 - r] : 0};
    in.mem = mem;
    return in;
}

/* the same, with the sends x[0..nx) */
static ci_inst_t inst_x(int n, const int64_t *entry, const int64_t *exit, ci_member_t *mem,
                        ci_xfer_t *x, size_t nx)
{
    ci_inst_t in = inst(n, entry, exit, mem);
    in.x = x;
    in.nx = nx;
    return in;
}

static const pr_opts_t eager = {.gamma = 0, .eager = UINT64_MAX};
static const pr_opts_t rndv = {.gamma = 0, .eager = 0};

Test(replay, ping_two_ranks)
{
    ci_member_t mem[2];
    ci_xfer_t x = {0, 1, 0, 100};
    double c = 10, span, err;
    pr_t p;
    memset(&p, 0, sizeof(p));

    /* the receiver is there first: it waits for the message */
    int64_t e1[2] = {0, 3}, x1[2] = {10, 12};
    ci_inst_t in = inst_x(2, e1, x1, mem, &x, 1);
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &eager, &span, &err), 0);
    cr_assert_float_eq(span, 10, 1e-9);
    cr_assert_float_eq(err, 1, 1e-9); /* |10-10| and |10-12|: median 1 */

    /* the receiver comes late: an eager message is already there, it leaves at once */
    int64_t e2[2] = {0, 25};
    in = inst_x(2, e2, NULL, mem, &x, 1);
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 25, 1e-9);
    /* above the eager size the data moves only once the receive is posted */
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 35, 1e-9);
    /* the eager size is the largest eager message: 100 B is eager at 100, not at 99 */
    pr_opts_t at = {.gamma = 0, .eager = 100};
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &at, &span, NULL), 0);
    cr_assert_float_eq(span, 25, 1e-9);
    at.eager = 99;
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &at, &span, NULL), 0);
    cr_assert_float_eq(span, 35, 1e-9);
    pr_free(&p);
}

/* the sends of Open MPI's binomial bcast (tuned, unsegmented) on n ranks, root 0 */
static size_t binomial_bcast(int n, uint64_t bytes, ci_xfer_t *out)
{
    pcs_sched_t s = PCS_SCHED_INIT;
    size_t m = 0;
    for (int r = 0; r < n; r++) {
        pcs_args_t a = {.coll = PCS_BCAST, .size = n, .rank = r, .root = 0, .type_size = 1,
                        .count = (int64_t)bytes};
        pcs_choice_t ch = {.component = PCS_COMP_TUNED, .alg = PCS_ALG_BCAST_BINOMIAL};
        pcs_sched_reset(&s);
        cr_assert_eq(pcs_generate(&a, &ch, &s), PCS_OK);
        for (size_t i = 0; i < s.n; i++)
            if (s.ops[i].kind == PCS_OP_SEND || s.ops[i].kind == PCS_OP_ISEND)
                out[m++] = (ci_xfer_t){r, s.ops[i].peer, s.ops[i].step, s.ops[i].len};
    }
    pcs_sched_free(&s);
    return m;
}

Test(replay, binomial_bcast_four_ranks_staggered)
{
    ci_xfer_t x[8];
    size_t nx = binomial_bcast(4, 1000, x);
    /* the tree the numbers below assume: 0 -> 1 and 0 -> 2 in step 0, 1 -> 3 in step 1 */
    cr_assert_eq(nx, 3);
    int seen = 0;
    for (size_t i = 0; i < nx; i++) {
        if (x[i].src == 0 && (x[i].dst == 1 || x[i].dst == 2) && x[i].step == 0)
            seen |= 1 << x[i].dst;
        if (x[i].src == 1 && x[i].dst == 3 && x[i].step == 1)
            seen |= 8;
    }
    cr_assert_eq(seen, 2 | 4 | 8, "binomial bcast tree changed");

    ci_member_t mem[4];
    int64_t entry[4] = {0, 20, 5, 3}; /* the inner node 1 comes last */
    ci_inst_t in = inst_x(4, entry, NULL, mem, x, nx);
    double c = 10, span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    /* eager: 2 has its message at 10; 1 enters at 20 with it there, sends to 3 until 30 */
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 30, 1e-9);
    /* rendezvous: 0 -> 2 moves 5..15, 0 -> 1 moves 20..30, 1 -> 3 30..40 */
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 40, 1e-9);
    /* predicted exits 30, 40, 15, 40; measured 4 ns later each -> error 4 */
    int64_t ex[4] = {34, 44, 19, 44};
    in = inst_x(4, entry, ex, mem, x, nx);
    double err;
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &rndv, &span, &err), 0);
    cr_assert_float_eq(err, 4, 1e-9);
    /* everyone on time: the steps method's sum, 2 steps of 10 */
    int64_t zero[4] = {0, 0, 0, 0};
    in = inst_x(4, zero, NULL, mem, x, nx);
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 20, 1e-9);
    pr_free(&p);
}

Test(replay, link_shared_at_the_root)
{
    /* linear gather of 1000 B from 1, 2, 3 to 0 in one step: the root's link takes one
     * message of 3000 B (10 + 30 ns), every sender is done when it has arrived */
    ci_xfer_t x[3] = {{1, 0, 0, 1000}, {2, 0, 0, 1000}, {3, 0, 0, 1000}};
    ci_member_t mem[4];
    int64_t entry[4] = {0, 0, 0, 6};
    ci_inst_t in = inst_x(4, entry, NULL, mem, x, 3);
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_affine, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 46, 1e-9); /* the last sender starts at 6 */
    pr_free(&p);
}

Test(replay, reduction_cost)
{
    /* 1 sends 800 B to 0, which reduces them: 10 ns + 800 B x 0.5 ns/B */
    ci_xfer_t x = {1, 0, 0, 800};
    ci_red_t red = {0, 0, 800};
    ci_member_t mem[2];
    int64_t entry[2] = {0, 0};
    ci_inst_t in = inst_x(2, entry, NULL, mem, &x, 1);
    in.red = &red;
    in.nred = 1;
    pr_opts_t o = {.gamma = 0.5, .eager = UINT64_MAX};
    double c = 10, span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 410, 1e-9);
    /* a reduction in a step of its own (no message) still costs */
    red.step = 1;
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 410, 1e-9);
    o.gamma = 0;
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 10, 1e-9);
    pr_free(&p);
}

Test(replay, members_without_messages)
{
    /* no schedule (alg none): each member leaves when it comes; a transfer naming a rank
     * that is not a member is ignored */
    ci_xfer_t x = {0, 7, 0, 10};
    ci_member_t mem[3];
    int64_t entry[3] = {100, 140, 120}, ex[3] = {100, 150, 120};
    ci_inst_t in = inst_x(3, entry, ex, mem, &x, 1);
    double c = 10, span, err;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_const, &c, &eager, &span, &err), 0);
    cr_assert_float_eq(span, 40, 1e-9);
    cr_assert_float_eq(err, 0, 1e-9); /* errors 0, 10, 0 */
    pr_free(&p);
}

Test(replay, gamma_measured)
{
    double g = pr_measure_gamma();
    /* a sum of doubles: well under 100 ns per byte, and not free */
    cr_assert(g > 0 && g < 100, "gamma %g ns/B", g);
}

/* 100 ns for a message with data moving the other way at one of its ends, 10 ns without */
static double t_way(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    (void)bytes;
    return twoway ? 100 : 10;
}

Test(replay, one_way_and_two_way_messages)
{
    ci_member_t mem[3];
    double span;
    int64_t e[3] = {0, 0, 0};
    pr_t p;
    memset(&p, 0, sizeof(p));
    /* a chain step: 0 -> 1 -> 2 at once; rank 1 sends and receives, so both are two-way */
    ci_xfer_t chain[2] = {{0, 1, 0, 100}, {1, 2, 0, 100}};
    ci_inst_t in = inst_x(3, e, NULL, mem, chain, 2);
    cr_assert_eq(pr_replay(&p, &in, t_way, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 100, 1e-9);
    /* the same messages in two steps: each one way */
    chain[1].step = 1;
    cr_assert_eq(pr_replay(&p, &in, t_way, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 20, 1e-9);
    /* a fan-out from 0: one way (its link carries both, as one message) */
    ci_xfer_t fan[2] = {{0, 1, 0, 100}, {0, 2, 0, 100}};
    in.x = fan;
    cr_assert_eq(pr_replay(&p, &in, t_way, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 10, 1e-9);
    /* an exchange 0 <-> 1 */
    ci_xfer_t ex[2] = {{0, 1, 0, 100}, {1, 0, 0, 100}};
    in.x = ex;
    cr_assert_eq(pr_replay(&p, &in, t_way, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 100, 1e-9);
    pr_free(&p);
}

/* 1 ns per 100 bytes one way, twice that two-way */
static double t_duplex(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    return (double)bytes / 100 * (twoway ? 2 : 1);
}

Test(replay, rendezvous_to_a_late_receiver_moves_alone)
{
    /* 0 sends 1000 B to 1 and 2 in one step (its link: 2000 B, 30 ns); 2 comes at 50. Its
     * message moves then, taking its own 20 ns, as 1's went out meanwhile: 70, not the 80
     * of the whole link's time from 50 */
    ci_member_t mem[3];
    ci_xfer_t x[2] = {{0, 1, 0, 1000}, {0, 2, 0, 1000}};
    int64_t e[3] = {0, 0, 50};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    ci_inst_t in = inst_x(3, e, NULL, mem, x, 2);
    cr_assert_eq(pr_replay(&p, &in, t_affine, NULL, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 70, 1e-9);
    /* and no earlier than the sender's link allows: 2 there at 5, the link busy until 30 */
    e[2] = 5;
    in = inst_x(3, e, NULL, mem, x, 2);
    cr_assert_eq(pr_replay(&p, &in, t_affine, NULL, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 30, 1e-9);
    pr_free(&p);
}

/* a path whose queue holds messages up to 64 KiB back: 100 ns + 0.1 ns per byte up to
 * 64 KiB, then 0.01 ns per byte (the bandwidth); two-way 5 ns more. With ctx pointing to
 * 1, the other way round: 0.01 ns per byte up to 64 KiB, then 0.1; to 2, 0.1 ns per byte
 * up to 1 MiB and flat above. */
static double t_queued(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)src;
    (void)dst;
    double n = (double)bytes, lo = 0.1, hi = 0.01;
    int v = ctx ? *(const int *)ctx : 0;
    if (v == 1) {
        lo = 0.01;
        hi = 0.1;
    } else if (v == 2) {
        return 100 + fmin(n, 1048576) / 10 + (twoway ? 5 : 0);
    }
    return 100 + (n <= 65536 ? n * lo : 65536 * lo + (n - 65536) * hi) + (twoway ? 5 : 0);
}

Test(replay, several_messages_add_their_bytes_at_the_bandwidth)
{
    ci_member_t mem[4];
    double span;
    int64_t e[4] = {0, 0, 0, 0};
    pr_t p;
    memset(&p, 0, sizeof(p));
    /* linear Bcast of 1000 B: the root's 3 messages, on their own connections, take the
     * time of one (200) and 2000 B more at 0.01 ns a byte (20), not the 400 of 3000 B */
    ci_xfer_t x[3] = {{0, 1, 0, 1000}, {0, 2, 0, 1000}, {0, 3, 0, 1000}};
    ci_inst_t in = inst_x(4, e, NULL, mem, x, 3);
    cr_assert_eq(pr_replay(&p, &in, t_queued, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 220, 1e-9);
    /* never more than the summed bytes' own time: with 0.1 ns a byte above 64 KiB, one
     * message and 2000 B more would be 310, the 3000 B take 130 */
    int slow_large = 1;
    cr_assert_eq(pr_replay(&p, &in, t_queued, &slow_large, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 130, 1e-9);
    /* a model with no bandwidth past 1 MiB (a flat last segment) says nothing of the
     * link: the summed bytes' time, 400 */
    int flat = 2;
    cr_assert_eq(pr_replay(&p, &in, t_queued, &flat, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 400, 1e-9);
    /* an eager all-to-all of 1000 B on 3 ranks: one way, 1000 B and 1000 B more (210),
     * above the exchange of one message (205) */
    ci_xfer_t a[6] = {{0, 1, 0, 1000}, {0, 2, 0, 1000}, {1, 0, 0, 1000},
                      {1, 2, 0, 1000}, {2, 0, 0, 1000}, {2, 1, 0, 1000}};
    in = inst_x(3, e, NULL, mem, a, 6);
    cr_assert_eq(pr_replay(&p, &in, t_queued, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 210, 1e-9);
    /* rendezvous: the same on the two-way path, 205 + 10 */
    cr_assert_eq(pr_replay(&p, &in, t_queued, NULL, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 215, 1e-9);
    pr_free(&p);
}

Test(replay, eager_messages_both_ways_share_a_full_duplex_link)
{
    ci_member_t mem[3];
    double span;
    int64_t e[3] = {0, 0, 0};
    pr_t p;
    memset(&p, 0, sizeof(p));
    /* an all-to-all of 1000 B on 3 ranks in one step: each rank sends 2000 B and receives
     * 2000 B, all two-way */
    ci_xfer_t x[6] = {{0, 1, 0, 1000}, {0, 2, 0, 1000}, {1, 0, 0, 1000},
                      {1, 2, 0, 1000}, {2, 0, 0, 1000}, {2, 1, 0, 1000}};
    ci_inst_t in = inst_x(3, e, NULL, mem, x, 6);
    /* eager: the one-way time of 2000 B (20 ns), no less than one 1000 B exchange (20) */
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 20, 1e-9);
    /* rendezvous: the exchange's time of the 2000 B */
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 40, 1e-9);
    /* eager, 3000 B out of rank 0 (one message of 2000 B): the exchange of the largest, 40,
     * is more than the 30 of the bytes one way */
    x[1].bytes = 2000;
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 40, 1e-9);
    /* a single exchange stays an exchange */
    ci_xfer_t ex[2] = {{0, 1, 0, 1000}, {1, 0, 0, 1000}};
    in.x = ex;
    in.nx = 2;
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 20, 1e-9);
    /* at the eager size still eager, one byte less and the 2000 B message is a rendezvous:
     * the exchange's time of the 3000 B */
    in.x = x;
    in.nx = 6;
    pr_opts_t o = {.gamma = 0, .eager = 2000};
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 40, 1e-9);
    o.eager = 1999;
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 60, 1e-9);
    pr_free(&p);
}

Test(replay, eager_all_to_all_one_way_time_wins)
{
    /* 4 ranks, 1000 B to each other rank in one step: 3000 B each way per rank; one way
     * that is 30 ns, more than one 1000 B exchange (20); as one exchange it was 60 */
    ci_member_t mem[4];
    ci_xfer_t x[12];
    size_t n = 0;
    for (int32_t s = 0; s < 4; s++)
        for (int32_t d = 0; d < 4; d++)
            if (s != d)
                x[n++] = (ci_xfer_t){s, d, 0, 1000};
    int64_t e[4] = {0, 0, 0, 0};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    ci_inst_t in = inst_x(4, e, NULL, mem, x, n);
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 30, 1e-9);
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &rndv, &span, NULL), 0);
    cr_assert_float_eq(span, 60, 1e-9);
    /* a rendezvous step first, then an eager one: each step is priced by its own messages */
    for (size_t i = 0; i < n; i++)
        x[i].step = 1;
    ci_xfer_t big[2] = {{0, 1, 0, 5000}, {1, 0, 0, 5000}};
    ci_xfer_t all[14];
    memcpy(all, big, sizeof(big));
    memcpy(all + 2, x, sizeof(x));
    in.x = all;
    in.nx = 14;
    pr_opts_t o = {.gamma = 0, .eager = 1000};
    /* step 0: the 5000 B exchange of 0 and 1, rendezvous, 100 ns (two-way); step 1, eager,
     * 30 ns a rank: 0 and 1 reach it at 100, so their sends end at 130 */
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 130, 1e-9);
    pr_free(&p);
}

Test(replay, eager_messages_of_a_host_link)
{
    /* hosts {0,1} {2,3}: 0 <-> 2 exchange 1000 B, 1 <-> 3 3000 B, so each host link carries
     * 4000 B each way, and its largest message is 3000 B. Shared equally, the 1000 B flows
     * are through after 2000 B of the link, the 3000 B ones after all 4000 */
    static const int32_t host[4] = {0, 0, 1, 1};
    ci_member_t mem[4];
    ci_xfer_t x[4] = {{0, 2, 0, 1000}, {2, 0, 0, 1000}, {1, 3, 0, 3000}, {3, 1, 0, 3000}};
    int64_t e[4] = {0, 0, 0, 0}, ex[4] = {0, 0, 0, 0};
    double span, err;
    pr_t p;
    memset(&p, 0, sizeof(p));
    ci_inst_t in = inst_x(4, e, ex, mem, x, 4);
    pr_opts_t o = {.gamma = 0, .eager = 3000, .host = host, .nhosts = 2};
    /* eager: 1 and 3 take 4000 B one way (40), no less than a 3000 B exchange (60); 0 and 2
     * the exchange of their 2000 B (40) */
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &o, &span, &err), 0);
    cr_assert_float_eq(span, 60, 1e-9);
    cr_assert_float_eq(err, 50, 1e-9); /* exits 40, 40, 60, 60 */
    /* the 3000 B messages are rendezvous, exchanges at 0.02 ns/B: their flows take 60 ns
     * of the link alone, the 1000 B ones 10. Sharing it, the small ones are through at 20
     * (2000 B of their own time: 40 as an exchange), the others at 70, 3500 B of theirs:
     * 1 and 3 take 3500 B as one exchange (70) */
    o.eager = 2999;
    cr_assert_eq(pr_replay(&p, &in, t_duplex, NULL, &o, &span, &err), 0);
    cr_assert_float_eq(span, 70, 1e-9);
    cr_assert_float_eq(err, 55, 1e-9); /* exits 40, 40, 70, 70 */
    pr_free(&p);
}

/* hosts as ctx: 50 ns between hosts, 5 within one, + 1 ns per 100 bytes, + 1000 two-way */
static double t_hosts(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    return (pr_crosses(ctx, src, dst) ? 50 : 5) + (double)bytes / 100 + (twoway ? 1000 : 0);
}

Test(replay, paths_between_and_within_hosts)
{
    static const int32_t host[4] = {0, 0, 2, 2};
    pr_opts_t o = eager;
    o.host = host;
    ci_member_t mem[4];
    double span;
    int64_t e[4] = {0, 0, 0, 0};
    pr_t p;
    memset(&p, 0, sizeof(p));
    ci_inst_t in = inst(4, e, NULL, mem);
    /* 0 receives within its host and sends to another: neither message is two-way */
    ci_xfer_t x[2] = {{1, 0, 0, 100}, {0, 2, 0, 100}};
    in.x = x;
    in.nx = 2;
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 51, 1e-9);
    /* every rank on its own host: 0 sends and receives, both messages are two-way */
    cr_assert_eq(pr_replay(&p, &in, t_hosts, NULL, &eager, &span, NULL), 0);
    cr_assert_float_eq(span, 1051, 1e-9);
    /* a fan-out to a rank of its host and one of another: the summed bytes go on the path
     * of the slower, between hosts */
    ci_xfer_t fan[2] = {{0, 1, 0, 100}, {0, 2, 0, 100}};
    in.x = fan;
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 52, 1e-9);
    /* with the host links counted, only the message between hosts goes over 0's link */
    o.nhosts = 3;
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 51, 1e-9);
    pr_free(&p);
}

Test(replay, ranks_of_a_host_share_its_link)
{
    /* hosts {0,1} {2,3} {4,5}: 0 and 1 each send 1000 B to the other hosts in one step, so
     * host 0's link carries 4000 B: every message takes 50 + 40 ns; within host 0, 0 -> 1
     * rides along apart (5 + 10 ns). Host 1's link (ranks 2, 3) takes 2000 B in. */
    static const int32_t host[6] = {0, 0, 1, 1, 2, 2};
    pr_opts_t o = eager;
    o.host = host;
    o.nhosts = 3;
    ci_member_t mem[6];
    int64_t e[6] = {0};
    ci_xfer_t x[5] = {{0, 2, 0, 1000}, {0, 4, 0, 1000}, {1, 3, 0, 1000}, {1, 5, 0, 1000},
                      {0, 1, 0, 1000}};
    ci_inst_t in = inst_x(6, e, NULL, mem, x, 4);
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 90, 1e-9);
    /* without the host links shared: each rank's 2000 B alone */
    o.nhosts = 0;
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 70, 1e-9);
    /* the message within host 0 adds no bytes to the link; 1 is also a receiver within
     * its host, which makes nothing two-way (the kinds of path differ) */
    o.nhosts = 3;
    in.nx = 5;
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 90, 1e-9);
    /* the sums start again at zero in the next step */
    x[4] = (ci_xfer_t){0, 2, 1, 1000};
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 90 + 60, 1e-9);
    pr_free(&p);
}

Test(replay, flows_share_a_link_equally)
{
    /* 1 ns per byte; fin[i] for the i-th flow */
    uint32_t heap[4];
    double tag[4], fin[4];
    pr_flow_t one[1] = {{0, 5, 1000, 0}};
    pr_share_link(one, 1, 1, heap, tag, fin);
    cr_assert_float_eq(fin[0], 1005, 1e-9); /* alone */
    /* 1000 and 3000 B together: the small one after 2000 B of the link, the other after
     * all 4000; equal flows finish together */
    pr_flow_t two[3] = {{0, 0, 1000, 0}, {0, 0, 3000, 0}, {0, 0, 3000, 0}};
    pr_share_link(two, 3, 1, heap, tag, fin);
    cr_assert_float_eq(fin[0], 3000, 1e-9);
    cr_assert_float_eq(fin[1], 7000, 1e-9);
    cr_assert_float_eq(fin[2], 7000, 1e-9);
    /* 1000 B at 0, 1000 B at 500: the first has the link alone for 500 B, then half of it
     * for its other 500 (until 1500); the second, 500 B through by then, has it alone
     * again for its last 500; a flow after both, on an idle link, alone */
    pr_flow_t late[3] = {{0, 0, 1000, 0}, {0, 500, 1000, 1}, {0, 9000, 100, 2}};
    pr_share_link(late, 3, 1, heap, tag, fin);
    cr_assert_float_eq(fin[0], 1500, 1e-9);
    cr_assert_float_eq(fin[1], 2000, 1e-9);
    cr_assert_float_eq(fin[2], 9100, 1e-9);
    /* at 2 ns per byte the first has 250 B through when the second starts, and its other
     * 750 take 3000 ns shared; the second's last 250 then take 500 alone */
    pr_share_link(late, 3, 2, heap, tag, fin);
    cr_assert_float_eq(fin[0], 3500, 1e-9);
    cr_assert_float_eq(fin[1], 4000, 1e-9);
    cr_assert_float_eq(fin[2], 9200, 1e-9);
    /* a flow of no bytes is through as it starts, even on a busy link */
    pr_flow_t zero[2] = {{0, 0, 1000, 0}, {0, 10, 0, 1}};
    pr_share_link(zero, 2, 1, heap, tag, fin);
    cr_assert_float_eq(fin[1], 10, 1e-9);
    cr_assert_float_eq(fin[0], 1000, 1e-9);
}

/* 1 ns per byte, nothing else */
static double t_bytes(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    (void)twoway;
    return (double)bytes;
}

Test(replay, a_late_rank_finds_the_link_free)
{
    /* hosts {0,1} {2,3}: 0 -> 2 and 1 -> 3, 1000 B each, 1 entering when 0's bytes are
     * through. Summed over the step, 1 would take the host link's 2000 B from its entry
     * (to 3000); it has the link to itself */
    static const int32_t host[4] = {0, 0, 1, 1};
    ci_member_t mem[4];
    ci_xfer_t x[2] = {{0, 2, 0, 1000}, {1, 3, 0, 1000}};
    int64_t e[4] = {0, 1000, 0, 0};
    ci_inst_t in = inst_x(4, e, NULL, mem, x, 2);
    pr_opts_t o = {.gamma = 0, .eager = UINT64_MAX, .host = host, .nhosts = 2};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_bytes, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 2000, 1e-9);
    /* entering halfway through 0's bytes, 1 shares the link for 1000 B of it (until 1500),
     * then has it alone for its last 500 B: 1500 B from its entry */
    e[1] = 500;
    in = inst_x(4, e, NULL, mem, x, 2);
    cr_assert_eq(pr_replay(&p, &in, t_bytes, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 2000, 1e-9);
    /* together, each flow has half the link: 2000 B each, as the summed bytes were */
    e[1] = 0;
    in = inst_x(4, e, NULL, mem, x, 2);
    cr_assert_eq(pr_replay(&p, &in, t_bytes, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 2000, 1e-9);
    pr_free(&p);
}

/* a burst: 100 ns + 0.1 ns/B up to 10 kB (what a token bucket lets through at once),
 * 1 ns/B beyond (its rate, the bandwidth at 2-4 MiB) */
static double t_burst(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    (void)twoway;
    return bytes <= 10000 ? 100 + (double)bytes / 10 : 1100 + (double)(bytes - 10000);
}

Test(replay, back_to_back_messages_find_the_link_busy)
{
    /* 0 -> 1 on hosts of their own, 1000 B in step 0 and 1000 B in step 1. The first goes
     * out in 200 ns, but holds the link for 1000 at its rate: when the second leaves, at
     * 200, 800 B of the first are still on it. Sharing, the first is through at 1800 and
     * the second at 2000, 1800 B of the link after it left: priced as 1800 B, 280 ns */
    static const int32_t host[2] = {0, 1};
    ci_member_t mem[2];
    ci_xfer_t x[2] = {{0, 1, 0, 1000}, {0, 1, 1, 1000}};
    int64_t e[2] = {0, 0};
    ci_inst_t in = inst_x(2, e, NULL, mem, x, 2);
    pr_opts_t o = {.gamma = 0, .eager = UINT64_MAX, .host = host, .nhosts = 2};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_burst, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 200 + 280, 1e-9);
    /* hosts not counted: each message in its own time */
    o.nhosts = 0;
    cr_assert_eq(pr_replay(&p, &in, t_burst, NULL, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 400, 1e-9);
    pr_free(&p);
}

Test(replay, a_flow_stays_on_its_own_links)
{
    /* hosts of their own; step 0: 0 -> 2 5000 B and 1 -> 2 1000 B share 2's link in (1 -> 2
     * through at 2000, 0 -> 2 at 6000); step 1: 1 -> 3 1000 B from 2000, alone on 1's link
     * out (0 -> 2 never was on it): through at 3000; step 2: 3 -> 1 10000 B, to 13000. The
     * flow 0 -> 2, on 0's link out and 2's link in, must not turn up on 1's link out, which
     * would hold 1 -> 3 back to 4000 */
    static const int32_t host[4] = {0, 1, 2, 3};
    ci_member_t mem[4];
    ci_xfer_t x[4] = {{0, 2, 0, 5000}, {1, 2, 0, 1000}, {1, 3, 1, 1000}, {3, 1, 2, 10000}};
    int64_t e[4] = {0, 0, 0, 0};
    ci_inst_t in = inst_x(4, e, NULL, mem, x, 4);
    pr_opts_t o = {.gamma = 0, .eager = UINT64_MAX, .host = host, .nhosts = 4};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < 2; i++) { /* and again: the links start empty for each instance */
        cr_assert_eq(pr_replay(&p, &in, t_bytes, NULL, &o, &span, NULL), 0);
        cr_assert_float_eq(span, 13000, 1e-9);
    }
    pr_free(&p);
}

Test(replay, a_message_within_a_host_is_not_on_its_link)
{
    /* hosts {0,1} {2,3}: in step 0, 0 sends 1000 B to 2 (60 ns by t_hosts) and to 1 (15);
     * in step 1, 1 sends 1000 B to 3 (60). 1 has its data at 15, not when 0's message
     * between hosts is through, and the span is 75 */
    static const int32_t host[4] = {0, 0, 1, 1};
    ci_member_t mem[4];
    ci_xfer_t x[3] = {{0, 2, 0, 1000}, {0, 1, 0, 1000}, {1, 3, 1, 1000}};
    int64_t e[4] = {0, 0, 0, 0};
    ci_inst_t in = inst_x(4, e, NULL, mem, x, 3);
    pr_opts_t o = {.gamma = 0, .eager = UINT64_MAX, .host = host, .nhosts = 2};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 75, 1e-9);
    pr_free(&p);
}

Test(replay, each_kind_of_path_priced_apart)
{
    /* hosts {0,1,2} {3}, links counted. Step 0: 0 sends 1000 B to 1 and to 2 within its
     * host (15 ns each alone, 25 together by t_hosts) and 100 B to 3 between hosts (51);
     * step 1: 1 sends 1000 B to 3 (60). The two messages within host 0 share their path
     * with each other, not with the link: 1 has its data at 25, and the span is 85 */
    static const int32_t host[4] = {0, 0, 0, 1};
    ci_member_t mem[4];
    ci_xfer_t x[4] = {{0, 1, 0, 1000}, {0, 2, 0, 1000}, {0, 3, 0, 100}, {1, 3, 1, 1000}};
    int64_t e[4] = {0, 0, 0, 0};
    ci_inst_t in = inst_x(4, e, NULL, mem, x, 4);
    pr_opts_t o = {.gamma = 0, .eager = UINT64_MAX, .host = host, .nhosts = 2};
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 85, 1e-9);
    /* the slowest message out of 0 within its host (100000 B to 1: 1005 ns), 100 B to 3
     * between hosts (51), then 3 sends 100 B to 2 (51): the message between hosts does
     * not wait for the one within, so 3 is done at 102 and the span is 1005 */
    ci_xfer_t y[3] = {{0, 1, 0, 100000}, {0, 3, 0, 100}, {3, 2, 1, 100}};
    in = inst_x(4, e, NULL, mem, y, 3);
    cr_assert_eq(pr_replay(&p, &in, t_hosts, host, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 1005, 1e-9);
    pr_free(&p);
}

Test(replay, eager_size_of_the_library)
{
    const char *what;
    cr_assert_eq(pr_eager_of("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4", &what),
                 65480);
    cr_assert_str_eq(what, "Open MPI 4.1 over TCP");
    cr_assert_eq(pr_eager_of("MPICH Version:\t4.0.2 MPICH Release date:\tThu Apr  7 2022 "
                             "MPICH ABI:\t14:2:2 MPICH Device:\tch4:ucx MPICH configure: ...",
                             &what),
                 19522);
    cr_assert_str_eq(what, "MPICH 4.0 ch4:ucx over TCP");
    /* another device, version or library, or none: Open MPI's, saying so */
    const char *other[5] = {"MPICH Version:\t4.0.2 MPICH Device:\tch4:ofi",
                            "MPICH Version:\t4.1.2 MPICH Device:\tch4:ucx",
                            "Open MPI v5.0.3, package: Open MPI", "Intel(R) MPI", NULL};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(pr_eager_of(other[i], &what), 65480);
        cr_assert_str_eq(what, PRED_EAGER_UNMEASURED, "%s", other[i] ? other[i] : "NULL");
        /* what phasor-probe asks: nothing where nothing was measured */
        cr_assert_eq(pcs_eager_size(other[i], &what), 0);
        cr_assert_null(what);
    }
}

/* Links of 1 ns/B when unloaded; slope[s][d]: the pair's one-way ns/B (the busier of s's
 * link out and d's link in); 1000 ns of latency; two-way: twice the slower of both ways. */
static double t_loaded(const void *ctx, int32_t src, int32_t dst, uint64_t n, int twoway)
{
    const double(*slope)[4] = ctx;
    double c = twoway ? 2 * fmax(slope[src][dst], slope[dst][src]) : slope[src][dst];
    return 1000 + (double)n * c;
}

/* an unloaded link takes 1 ns/B; the pairs' slowdowns by the pricing model itself */
static const pr_load_t unloaded = {1, NULL, NULL, NULL, NULL};

Test(replay, background_load_is_shared_flow_by_flow)
{
    const double mb = 1e6;
    /* rank 0's link out carries one background flow: its pairs take 2 ns/B */
    const double out0[4][4] = {{1, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    /* 3 flows of 1 MB against it get 3/4 of the link: 4 MB of link time, not the largest
     * alone (2 MB) plus 2 MB at the pair's 2 ns/B */
    cr_assert_float_eq(pr_aggregate_time(t_loaded, out0, 0, 1, 3 * mb, mb, 0, 0, &unloaded, 2),
                       1000 + 4 * mb, 1e-6);
    /* the load not known, or not on the shared link (within a host): as before */
    cr_assert_float_eq(pr_aggregate_time(t_loaded, out0, 0, 1, 3 * mb, mb, 0, 0, NULL, 2),
                       1000 + 6 * mb, 1e-6);
    cr_assert_float_eq(pr_aggregate_time(t_loaded, out0, 0, 1, 3 * mb, mb, 0, 0, &unloaded, 0),
                       1000 + 6 * mb, 1e-6);
    /* unloaded links: the largest alone plus the others' bytes at the bandwidth */
    const double none[4][4] = {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    cr_assert_float_eq(pr_aggregate_time(t_loaded, none, 0, 1, 3 * mb, mb, 0, 0, &unloaded, 1),
                       1000 + 3 * mb, 1e-6);
    /* a pair 5 % slower than an unloaded link is within the noise: as before */
    const double noise[4][4] = {{1, 1.05, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    cr_assert_float_eq(pr_aggregate_time(t_loaded, noise, 0, 1, 3 * mb, mb, 0, 0, &unloaded, 1),
                       1000 + 3 * 1.05 * mb, 1e-6);
    /* rank 1's link in is loaded, rank 0's link out is not: the message to 1 takes its
     * 2 MB of time, and the other 2 MB go out on the unloaded link meanwhile and after:
     * 3 MB in all */
    const double in1[4][4] = {{1, 2, 1, 1}, {1, 1, 1, 1}, {1, 2, 1, 1}, {1, 2, 1, 1}};
    cr_assert_float_eq(pr_aggregate_time(t_loaded, in1, 0, 1, 3 * mb, mb, 0, 0, &unloaded, 1),
                       1000 + 3 * mb, 1e-6);
    /* two-way, 0 <-> 1 with 1 -> 0 loaded: the exchange's 4 ns/B less its 2x slowdown for
     * the others' bytes, 4 MB + 2 MB */
    const double back[4][4] = {{1, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    cr_assert_float_eq(pr_aggregate_time(t_loaded, back, 0, 1, 3 * mb, mb, 1, 0, &unloaded, 1),
                       1000 + 6 * mb, 1e-6);
    /* flows of 1 and 0.5 MB against the background flow: a third of the link each until
     * the small one is through (1.5 MB of time), then half for the other's last 0.5 MB
     * (1 MB): k = 1.5 flows of the largest's size give the same */
    cr_assert_float_eq(pr_aggregate_time(t_loaded, out0, 0, 1, 1.5 * mb, mb, 0, 0, &unloaded, 2),
                       1000 + 2.5 * mb, 1e-6);
}

Test(replay, background_load_of_the_run)
{
    /* a linear Bcast of 1 MB from 0 over rank 0's loaded link out: pr_opts_t's load is
     * what the replay prices the root's messages with */
    const double mb = 1e6;
    const double out0[4][4] = {{1, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    double out[4] = {2, 1, 1, 1}, in[4] = {1, 1, 1, 1};
    ci_xfer_t x[3] = {{0, 1, 0, 1000000}, {0, 2, 0, 1000000}, {0, 3, 0, 1000000}};
    ci_member_t mem[4];
    int64_t e[4] = {0, 0, 0, 0};
    ci_inst_t inx = inst_x(4, e, NULL, mem, x, 3);
    pr_opts_t o = eager;
    double span;
    pr_t p;
    memset(&p, 0, sizeof(p));
    cr_assert_eq(pr_replay(&p, &inx, t_loaded, out0, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 1000 + 6 * mb, 1e-6);
    o.load = (pr_load_t){1, out, in, NULL, NULL};
    cr_assert_eq(pr_replay(&p, &inx, t_loaded, out0, &o, &span, NULL), 0);
    cr_assert_float_eq(span, 1000 + 4 * mb, 1e-6);
    pr_free(&p);
}

/* A per-source model (every pair of a source alike; two-way: the source's exchanges with
 * all its partners pooled) and the pairs the load is read from */
static double t_source(const void *ctx, int32_t src, int32_t dst, uint64_t n, int twoway)
{
    (void)ctx;
    (void)dst;
    static const double one[4] = {1, 1, 1, 1}, two[4] = {4, 2, 2, 2};
    return 1000 + (double)n * (twoway ? two[src] : one[src]);
}

Test(replay, background_load_read_from_the_pairs)
{
    /* rank 0's exchanges took 4 ns/B, twice the others': its link in is loaded (the pairs
     * into 0 take 2 ns/B one-way), which the per-source model's one-way times do not show.
     * Out of 0 go 3 flows of 1 MB on an unloaded link: the exchange's 4 ns/B less the
     * pair's 2x slowdown for all 3 MB, the largest keeping its own 4 MB of time: 6 MB */
    const double mb = 1e6;
    const double in0[4][4] = {{1, 1, 1, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}};
    pr_load_t l = {1, NULL, NULL, t_loaded, in0};
    cr_assert_float_eq(pr_aggregate_time(t_source, NULL, 0, 1, 3 * mb, mb, 1, 0, &l, 1),
                       1000 + 6 * mb, 1e-6);
    /* by the model's own one-way times no pair is slower than the link: 4 + 2 x 4 MB */
    cr_assert_float_eq(pr_aggregate_time(t_source, NULL, 0, 1, 3 * mb, mb, 1, 0, &unloaded,
                                         1),
                       1000 + 12 * mb, 1e-6);
}
