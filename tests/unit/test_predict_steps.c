/* test_predict_steps.c: how the steps method prices a step (pred_steps_price,
 * analysis/predict_steps.c), with a made-up model, against prices worked out by hand:
 * a rank's several messages of one step are the largest alone plus the rest at the
 * model's bandwidth, per source and per destination; between hosts, the bytes of every
 * rank of a host on its link; a message whose data also flows the other way is two-way;
 * a loaded link's background gives way to several messages; the text output's links line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_predict.h"
#include "predict.h"

/* 1000 + 2n ns up to 1 MiB, then 0.5 ns per byte more (the 2..4 MiB bandwidth); two-way
 * twice that */
static double fake_time(const void *ctx, int32_t src, int32_t dst, uint64_t n, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    double m = 1u << 20, x = (double)n;
    double t = x <= m ? 1000 + 2 * x : 1000 + 2 * m + 0.5 * (x - m);
    return twoway ? 2 * t : t;
}

/* the distributions of fake_time are points: the max is the largest shifted time */
static int fake_max_of(const void *ctx, const ci_xfer_t *const *x, const uint8_t *twoway,
                       const double *shift, size_t n, double *mean, double *p90)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fake_time(ctx, x[i]->src, x[i]->dst, x[i]->bytes, twoway[i]) +
                        (shift ? shift[i] : 0));
    *mean = *p90 = m;
    return 0;
}

static const pred_model_t fake = {"fake", NULL, fake_time, fake_max_of,
                                  {0, NULL, NULL, NULL, NULL}};

/* The steps method's price of one step of the n transfers x, ranks on host[] (nhosts),
 * by model m: an instance of that one step */
static double price_method(pred_method_t method, const pred_model_t *m, const ci_xfer_t *x,
                           size_t n, const int32_t *host, int32_t nhosts, int32_t world)
{
    pred_steps_t s;
    /* as phasor predict does: host links when ranks share hosts */
    cr_assert_eq(pred_steps_init(&s, method, host, nhosts, world), 0);
    cr_assert_eq(s.links.cap != 0, nhosts < world);
    ci_xfer_t *xs = calloc(n, sizeof(*xs));
    cr_assert_not_null(xs);
    memcpy(xs, x, n * sizeof(*xs));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(xs[i].step, xs[0].step, "one step");
    ci_inst_t in = {.nx = n, .x = xs};
    double e, q;
    cr_assert_eq(pred_steps_price(&s, &in, m, &e, &q), 0);
    cr_assert_float_eq(e, q, 1e-9, "steps: the P90 is the price");
    for (int32_t h = 0; s.links.cap && h < nhosts; h++) /* and the tallies are left clear */
        cr_assert(s.links.out[h] == 0 && s.links.in[h] == 0 && s.links.bigout[h] == 0 &&
                  s.links.bigin[h] == 0);
    pred_steps_free(&s);
    free(xs);
    return e;
}

static double price_by(const pred_model_t *m, const ci_xfer_t *x, size_t n,
                       const int32_t *host, int32_t nhosts, int32_t world)
{
    return price_method(PRED_STEPS, m, x, n, host, nhosts, world);
}

static double price(const ci_xfer_t *x, size_t n, const int32_t *host, int32_t nhosts,
                    int32_t world)
{
    return price_by(&fake, x, n, host, nhosts, world);
}

Test(predict_steps, several_messages_from_one_rank)
{
    /* rank 0 fans out 1000, 2000 and 4000 B: the largest (9000 ns) plus 3000 B at 0.5 ns,
     * not the sum's own 15000 ns nor the largest's 9000 */
    const ci_xfer_t x[3] = {{0, 1, 0, 1000}, {0, 2, 0, 2000}, {0, 3, 0, 4000}};
    const int32_t host[4] = {0, 1, 2, 3};
    cr_assert_float_eq(price(x, 3, host, 4, 4), 9000 + 1500, 1e-6);
}

Test(predict_steps, several_messages_into_one_rank)
{
    /* the fan-in: the same by destination */
    const ci_xfer_t x[3] = {{1, 0, 0, 1000}, {2, 0, 0, 2000}, {3, 0, 0, 4000}};
    const int32_t host[4] = {0, 1, 2, 3};
    cr_assert_float_eq(price(x, 3, host, 4, 4), 9000 + 1500, 1e-6);
}

Test(predict_steps, ranks_of_a_host_share_its_link)
{
    /* ranks 0, 1 on host 0 send 4000 and 2000 B to ranks 2, 3 on host 1: each message
     * alone would take 9000 ns, but both share host 0's link out and host 1's in */
    const ci_xfer_t x[2] = {{0, 2, 0, 4000}, {1, 3, 0, 2000}};
    const int32_t host[4] = {0, 0, 1, 1};
    cr_assert_float_eq(price(x, 2, host, 2, 4), 9000 + 1000, 1e-6);
    /* within a host they do not */
    const ci_xfer_t y[2] = {{0, 1, 0, 4000}, {2, 3, 0, 2000}};
    cr_assert_float_eq(price(y, 2, host, 2, 4), 9000, 1e-6);
}

Test(predict_steps, an_exchange_is_two_way)
{
    /* 0 and 1 swap 1000 B: two-way, 2 x 3000 ns; 0 -> 1 and 2 -> 3 are one way */
    const ci_xfer_t x[2] = {{0, 1, 0, 1000}, {1, 0, 0, 1000}};
    const int32_t host[4] = {0, 1, 2, 3};
    cr_assert_float_eq(price(x, 2, host, 4, 4), 6000, 1e-6);
    const ci_xfer_t y[2] = {{0, 1, 0, 1000}, {2, 3, 0, 1000}};
    cr_assert_float_eq(price(y, 2, host, 4, 4), 3000, 1e-6);
}

Test(predict_steps, background_load_on_the_shared_link)
{
    /* the model's pairs take 0.5 ns/B past 1 MiB where an unloaded link takes 0.25: three
     * messages of 2 MiB share a link with one background flow and get 3/4 of it */
    const uint64_t mi = 1u << 20;
    double out[4] = {2, 1, 1, 1}, in[4] = {1, 1, 1, 1};
    pred_model_t m = fake;
    m.load = (pr_load_t){0.25, out, in, NULL, NULL};
    const int32_t host[4] = {0, 1, 2, 3};
    /* rank 0's link out: the largest (1000 + 2.5 Mi ns) and 1 Mi ns more, not 2 */
    const ci_xfer_t fan[3] = {{0, 1, 0, 2 * mi}, {0, 2, 0, 2 * mi}, {0, 3, 0, 2 * mi}};
    cr_assert_float_eq(price_by(&m, fan, 3, host, 4, 4), 1000 + 3.5 * mi, 1e-6);
    cr_assert_float_eq(price(fan, 3, host, 4, 4), 1000 + 4.5 * mi, 1e-6);
    /* into rank 0, its link in loaded: the same by destination */
    const ci_xfer_t into[3] = {{1, 0, 0, 2 * mi}, {2, 0, 0, 2 * mi}, {3, 0, 0, 2 * mi}};
    out[0] = 1;
    in[0] = 2;
    cr_assert_float_eq(price_by(&m, into, 3, host, 4, 4), 1000 + 3.5 * mi, 1e-6);
    /* the senders' links loaded instead, rank 0's in not: each sender's message is slow
     * alone, and the others' bytes pass rank 0's link at its full rate meanwhile */
    in[0] = 1;
    out[1] = out[2] = out[3] = 2;
    cr_assert_float_eq(price_by(&m, into, 3, host, 4, 4), 1000 + 3 * mi, 1e-6);
}

/* The links line of the text output: the unloaded time per byte and the slower links, the
 * slowest first, at most 8 */
Test(predict_steps, links_line)
{
    double out[10] = {1, 1.95, 1, 1.67, 1, 1, 1, 1, 1, 1};
    double in[10] = {1.95, 1, 1.69, 1, 1, 1, 1, 1, 1, 1};
    int32_t world = 4;
    pr_load_t l = {15.25, out, in, NULL, NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cr_assert_not_null(o);
    phasor_predict_links_text(o, world, &l);
    fflush(o);
    cr_assert(strstr(buf, "unloaded 15.25 ns/B") != NULL, "%s", buf);
    cr_assert(strstr(buf, "slower: rank 0 in 1.95x, rank 1 out 1.95x, rank 2 in 1.69x, "
                          "rank 3 out 1.67x\n") != NULL, "%s", buf);
    /* ten ranks all loaded out: 8 shown, the slowest first, and the 2 more counted */
    world = 10;
    for (int r = 0; r < 10; r++) {
        out[r] = 1.1 + 0.1 * r;
        in[r] = 1;
    }
    rewind(o);
    phasor_predict_links_text(o, world, &l);
    fflush(o);
    cr_assert(strstr(buf, "slower: rank 9 out 2.00x, rank 8 out 1.90x") != NULL, "%s", buf);
    cr_assert(strstr(buf, "rank 2 out 1.30x, and 2 more\n") != NULL, "%s", buf);
    /* nothing slower, and no pairs */
    for (int r = 0; r < 10; r++)
        out[r] = in[r] = 1;
    rewind(o);
    phasor_predict_links_text(o, world, &l);
    fflush(o);
    cr_assert(strstr(buf, "none slower by 10 % or more") != NULL, "%s", buf);
    l.per_byte = 0;
    rewind(o);
    phasor_predict_links_text(o, world, &l);
    fflush(o);
    cr_assert(strstr(buf, "no pair between hosts") != NULL, "%s", buf);
    fclose(o);
    free(buf);
}

/* expected-max prices a combined message by its largest message's distribution, shifted by
 * what the steps method adds for the rest: with point distributions, the same price */
Test(predict_steps, expected_max_shifts_the_largest)
{
    const ci_xfer_t fan[3] = {{0, 1, 0, 1000}, {0, 2, 0, 2000}, {0, 3, 0, 4000}};
    const int32_t host[4] = {0, 1, 2, 3};
    /* 9000 + 1500, not the 15000 of the summed 7000 B */
    cr_assert_float_eq(price_method(PRED_EXPECTED_MAX, &fake, fan, 3, host, 4, 4), 10500, 1e-6);
    /* with a load, as the steps method prices it too */
    const uint64_t mi = 1u << 20;
    double out[4] = {2, 1, 1, 1}, in[4] = {1, 1, 1, 1};
    pred_model_t m = fake;
    m.load = (pr_load_t){0.25, out, in, NULL, NULL};
    const ci_xfer_t big[3] = {{0, 1, 0, 2 * mi}, {0, 2, 0, 2 * mi}, {0, 3, 0, 2 * mi}};
    cr_assert_float_eq(price_method(PRED_EXPECTED_MAX, &m, big, 3, host, 4, 4),
                       price_by(&m, big, 3, host, 4, 4), 1e-6);
    cr_assert_float_eq(price_by(&m, big, 3, host, 4, 4), 1000 + 3.5 * mi, 1e-6);
}
