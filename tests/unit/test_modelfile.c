/* test_modelfile.c: the model file (format/model_file.c, model_file_read.c): write, read
 * back the same models, exchange and one-way; version 1 files still read; each kind of
 * damage refused with the file and the field named; and the samples' rewriting before the
 * fits (models/net_samples.c: pns_shrink, pns_unshare by the probe's tournament). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "model_file.h"
#include "net_samples.h"

static pnm_q_t point(double t)
{
    pnm_q_t q = {.n = 9, .mean = t};
    for (int i = 0; i < PNM_NQ; i++)
        q.v[i] = t * (0.8 + 0.1 * i);
    q.mean = q.v[3];
    return q;
}

static const uint64_t sizes[5] = {4096, 16384, 65536, 131072, 1048576};

/* p ranks, every pair and pooled source at the study's sizes, exchanges; with oneway,
 * one-way samples too, at half the exchange's time; a pair's time grows by dspread per
 * destination rank */
static void make_probe(pmf_t *f, int p, int oneway, double dspread)
{
    memset(f, 0, sizeof(*f));
    f->mode = 1;
    f->nranks = p;
    f->reps = 12;
    f->elapsed_s = 0.5;
    f->seed = 0xfedcba9876543210ull;
    snprintf(f->created, sizeof(f->created), "2026-11-22T10:00:00Z");
    snprintf(f->library, sizeof(f->library), "Open MPI v4.1.4");
    f->s = calloc(2 * (size_t)p * (size_t)p * 5, sizeof(*f->s));
    for (int w = PNM_EXCHANGE; w <= (oneway ? PNM_ONEWAY : PNM_EXCHANGE); w++)
        for (int s = 0; s < p; s++)
            for (int d = -1; d < p; d++)
                for (int z = 0; d != s && z < 5; z++)
                    f->s[f->n++] = (pnm_sample_t){
                        s, d, sizes[z],
                        point((3000 + 0.2 * (double)sizes[z] * (s + 1)) * (1 + dspread * (d + 1)) /
                              (w == PNM_ONEWAY ? 2 : 1)),
                        w};
    plog_error_t err;
    cr_assert_eq(pmf_fit_all(f, NULL, &err), PLOG_OK, "%s", err.msg);
}

static void make_ways(pmf_t *f, int oneway) { make_probe(f, 3, oneway, 0); }
static void make(pmf_t *f) { make_ways(f, 1); }

static char path[64];

static void setup(void)
{
    snprintf(path, sizeof(path), "/tmp/test_modelfile.XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
}

static void teardown(void) { unlink(path); }

TestSuite(modelfile, .init = setup, .fini = teardown);

Test(modelfile, round_trip)
{
    pmf_t f, g;
    make(&f);
    plog_error_t err;
    cr_assert_eq(pmf_write(path, &f, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(pmf_read(path, &g, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(g.mode, 1);
    cr_assert_eq(g.nranks, 3);
    cr_assert_eq(g.n, f.n);
    cr_assert_eq(g.seed, f.seed);
    cr_assert_str_eq(g.library, "Open MPI v4.1.4");
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        cr_assert(g.has[k], "%s missing", pnm_kind_name((pnm_kind_t)k));
        cr_assert(g.m[k].oneway != NULL, "%s: no one-way part", pnm_kind_name((pnm_kind_t)k));
        for (int tw = 0; tw < 2; tw++)
            for (int s = 0; s < 3; s++)
                for (int z = 0; z < 5; z++) {
                    uint64_t b = sizes[z] + 1000;
                    double a = pnm_time(pnm_way(&f.m[k], tw), s, (s + 1) % 3, b),
                           c = pnm_time(pnm_way(&g.m[k], tw), s, (s + 1) % 3, b);
                    cr_assert_float_eq(a, c, 1e-6 * a, "%s %d: %g vs %g",
                                       pnm_kind_name((pnm_kind_t)k), s, a, c);
                }
        /* one way is the half-time samples' model */
        double ex = pnm_time(pnm_way(&g.m[k], 1), 0, 1, 65536),
               ow = pnm_time(pnm_way(&g.m[k], 0), 0, 1, 65536);
        cr_assert_float_eq(ow, ex / 2, 0.02 * ex, "%s: one way %g, exchange %g",
                           pnm_kind_name((pnm_kind_t)k), ow, ex);
    }
    pmf_free(&f);
    pmf_free(&g);
}

/* Replace the first occurrence of `from` in the written file by `to`; the read must fail
 * with a message naming the file and containing `want`. */
static void damaged(const char *from, const char *to, const char *want)
{
    pmf_t f, g;
    make(&f);
    plog_error_t err;
    cr_assert_eq(pmf_write(path, &f, &err), PLOG_OK);
    pmf_free(&f);
    FILE *in = fopen(path, "r");
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf) - 1, in);
    fclose(in);
    buf[n] = '\0';
    char *p = strstr(buf, from);
    cr_assert(p != NULL, "'%s' not in the file", from);
    FILE *out = fopen(path, "w");
    fwrite(buf, 1, (size_t)(p - buf), out);
    fputs(to, out);
    fputs(p + strlen(from), out);
    fclose(out);
    cr_assert_neq(pmf_read(path, &g, &err), PLOG_OK, "accepted %s -> %s", from, to);
    cr_assert(strstr(err.msg, path) != NULL, "file not named: %s", err.msg);
    cr_assert(strstr(err.msg, want) != NULL, "'%s' not in: %s", want, err.msg);
}

Test(modelfile, wrong_format) { damaged("\"phasor-model\"", "\"other\"", "not a phasor model file"); }
Test(modelfile, wrong_version) { damaged("\"version\": 9", "\"version\": 10", "version 10"); }
Test(modelfile, oneway_params_without_samples)
{
    damaged("\"oneway_samples\"", "\"other_samples\"", "models.lookup.oneway: the file has no oneway_samples");
}
Test(modelfile, oneway_samples_in_version_1) { damaged("\"version\": 9", "\"version\": 1", "oneway_samples"); }
Test(modelfile, oneway_sample_damaged) { damaged("\"oneway_samples\": [\n  [\n   0,", "\"oneway_samples\": [\n  [\n   9,", "oneway_samples[0]"); }

/* The file f wrote, with its version set to v. */
static void set_version(int v)
{
    FILE *in = fopen(path, "r");
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf) - 1, in);
    fclose(in);
    buf[n] = '\0';
    char *p = strstr(buf, "\"version\": 9");
    cr_assert(p != NULL);
    p[11] = (char)('0' + v);
    FILE *out = fopen(path, "w");
    fputs(buf, out);
    fclose(out);
}

/* a lookup table and a Hockney model fitted to f's samples, pooled or not (no hosts) */
static void fit_raw(const pmf_t *f, int pooled, pnm_model_t *lookup, pnm_model_t *hockney)
{
    pnm_sample_t *s = malloc(f->n * sizeof(*s));
    memcpy(s, f->s, f->n * sizeof(*s));
    size_t moved = 0;
    if (pooled) {
        cr_assert_eq(pns_shrink(s, f->n, NULL, &moved), 0);
        cr_assert_gt(moved, 0, "the fixture must give pooling something to do");
    }
    pnm_samples_t in = {f->nranks, f->mode, f->n, s};
    char why[256];
    cr_assert_eq(pnm_fit(PNM_LOOKUP, &in, NULL, lookup, why, sizeof(why)), PNM_OK, "%s", why);
    cr_assert_eq(pnm_fit(PNM_HOCKNEY, &in, NULL, hockney, why, sizeof(why)), PNM_OK, "%s", why);
    free(s);
}

static void same_time(const pnm_model_t *a, const pnm_model_t *b, int ways, const char *what)
{
    for (int w = 0; w < ways; w++)
        for (int z = 0; z < 5; z++) {
            double x = pnm_time(pnm_way(a, w), 1, 2, sizes[z]), y = pnm_time(pnm_way(b, w), 1, 2, sizes[z]);
            cr_assert_float_eq(x, y, 1e-6 * x, "%s, way %d, %zu B: %g vs %g", what, w,
                               (size_t)sizes[z], x, y);
        }
}

/* Files of versions 1, 3 and 4 read as they did: their Hockney and LogGP parameters as
 * written, their lookup table the samples as measured; version 4's lookup table and every
 * fit of pmf_fit_all are of the pooled samples (pns_shrink). 5 ranks whose pairs differ
 * by destination, so that pooling moves them. */
static void version_reads(int v, int oneway)
{
    pmf_t f, g;
    make_probe(&f, 5, oneway, 0.05);
    plog_error_t err;
    cr_assert_eq(pmf_write(path, &f, &err), PLOG_OK, "%s", err.msg);
    if (v != PMF_VERSION)
        set_version(v);
    cr_assert_eq(pmf_read(path, &g, &err), PLOG_OK, "%s", err.msg);
    pnm_model_t raw_l, raw_h, pool_l, pool_h;
    fit_raw(&f, 0, &raw_l, &raw_h);
    fit_raw(&f, 1, &pool_l, &pool_h);
    cr_assert_neq(pnm_time(&raw_l, 1, 2, 16384), pnm_time(&pool_l, 1, 2, 16384),
                  "pooling changes nothing here: the test would prove nothing");
    same_time(&f.m[PNM_HOCKNEY], &pool_h, 1 + oneway, "pmf_fit_all's Hockney, pooled");
    same_time(&g.m[PNM_LOOKUP], v >= 4 ? &pool_l : &raw_l, 1 + oneway, "the file's lookup");
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        cr_assert(g.has[k] && (g.m[k].oneway != NULL) == oneway);
        if (k != PNM_LOOKUP) /* parameters as written */
            same_time(&g.m[k], &f.m[k], 1 + oneway, pnm_kind_name((pnm_kind_t)k));
    }
    /* LogGP's L and o as written from version 9; before, not told apart (o 0, L = L2o) */
    for (int32_t r = 0; r < g.nranks; r++) {
        const pnm_loggp_t *a = &g.m[PNM_LOGGP].lgp[r], *b = &f.m[PNM_LOGGP].lgp[r];
        cr_assert_eq(a->lo_split, v >= 9 ? b->lo_split : PNM_LO_SPLIT_NONE);
        for (int i = 0; i < a->nband; i++) {
            cr_assert_float_eq(a->o[i], v >= 9 ? b->o[i] : 0, 1e-6); /* 10 digits written */
            cr_assert_float_eq(a->L[i], v >= 9 ? b->L[i] : fmax(0, b->L2o[i]), 1e-6 * (1 + a->L[i]), "v%d src %d band %d: %.17g vs %.17g", v, (int)r, i, a->L[i], v >= 9 ? b->L[i] : fmax(0, b->L2o[i]));
        }
    }
    pnm_free(&raw_l);
    pnm_free(&raw_h);
    pnm_free(&pool_l);
    pnm_free(&pool_h);
    pmf_free(&f);
    pmf_free(&g);
}

/* version 1: exchanges only, no one-way parts */
Test(modelfile, version_1_reads) { version_reads(1, 0); }
Test(modelfile, version_3_reads) { version_reads(3, 1); }
Test(modelfile, version_4_reads) { version_reads(4, 1); }
Test(modelfile, version_5_reads) { version_reads(5, 1); }
Test(modelfile, version_6_reads) { version_reads(6, 1); }
Test(modelfile, version_7_reads) { version_reads(7, 1); }
Test(modelfile, version_8_reads) { version_reads(8, 1); }
Test(modelfile, version_9_reads) { version_reads(9, 1); }

/* the one-way lookup of f's samples rewritten by how, 0 -> 2 at 64 KiB (hosts 0 0 1 1) */
static double oneway_lookup(const pmf_t *f, unsigned how)
{
    pnm_sample_t *s = malloc(f->n * sizeof(*s));
    memcpy(s, f->s, f->n * sizeof(*s));
    const int32_t host[4] = {0, 0, 1, 1};
    size_t unshared, pooled;
    cr_assert_eq(pmf_fit_samples(s, f->n, f->mode, 4, host, 2, how, &unshared, &pooled), 0);
    cr_assert_gt(unshared, 0);
    pnm_samples_t in = {f->nranks, f->mode, f->n, s};
    pnm_model_t m;
    char why[256];
    cr_assert_eq(pnm_fit(PNM_LOOKUP, &in, NULL, &m, why, sizeof(why)), PNM_OK, "%s", why);
    double t = pnm_time(pnm_way(&m, 0), 0, 2, 65536);
    pnm_free(&m);
    free(s);
    return t;
}

/* A version 5 file's one-way samples are unshared from their own pair's times, as it was
 * written; from version 6, from the slowest flow on the link. 4 ranks on 2 hosts whose
 * pairs differ by destination, so that the flows sharing a link differ. */
Test(modelfile, version_5_unshares_one_way_by_the_pair)
{
    pmf_t f, g;
    make_probe(&f, 4, 1, 0.05);
    f.hosts = calloc(4, sizeof(*f.hosts));
    for (int r = 0; r < 4; r++)
        snprintf(f.hosts[r], sizeof(f.hosts[r]), "node%d", r / 2);
    plog_error_t err;
    cr_assert_eq(pmf_fit_all(&f, NULL, &err), PLOG_OK, "%s", err.msg);
    double now = oneway_lookup(&f, PMF_FIT_NOW), v5 = oneway_lookup(&f, PMF_FIT_POOL);
    cr_assert_gt(now, v5 * 1.001, "the link's slowest flow changes nothing here: %g vs %g", now,
                 v5);
    cr_assert_eq(pmf_write(path, &f, &err), PLOG_OK, "%s", err.msg);
    for (int v = 6; v >= 5; v--) {
        if (v == 5)
            set_version(5);
        cr_assert_eq(pmf_read(path, &g, &err), PLOG_OK, "%s", err.msg);
        double t = pnm_time(pnm_way(&g.m[PNM_LOOKUP], 0), 0, 2, 65536), want = v == 6 ? now : v5;
        cr_assert_float_eq(t, want, 1e-9 * want, "version %d: %g, expected %g", v, t, want);
        pmf_free(&g);
    }
    pmf_free(&f);
}

/* ---- few samples (pns_shrink) ---- */

/* quantiles around median t whose median has sampling variance se2 (se = 0.929 IQR / sqrt n) */
static pnm_q_t noisy(double t, double se2)
{
    pnm_q_t q = {.n = 9};
    double iqr = sqrt(se2 * 9) / 0.929;
    const double at[PNM_NQ] = {-1.5, -0.9, -0.5, 0, 0.5, 0.9, 1.5};
    for (int i = 0; i < PNM_NQ; i++)
        q.v[i] = t + at[i] * iqr;
    q.mean = t;
    return q;
}

Test(shrink, toward_the_mean_by_the_noise_share)
{
    /* medians 100, 100, 160: mean 120, variance 1200; sampling variance 300 each, so 900
     * between sources and each median keeps 900 / 1200 of its distance */
    pnm_sample_t s[3];
    for (int r = 0; r < 3; r++)
        s[r] = (pnm_sample_t){r, -1, 4096, noisy(r == 2 ? 160 : 100, 300), PNM_EXCHANGE};
    size_t moved;
    cr_assert_eq(pns_shrink(s, 3, NULL, &moved), 0);
    cr_assert_eq(moved, 3);
    const double want[3] = {105, 105, 150};
    for (int r = 0; r < 3; r++) {
        pnm_q_t o = noisy(r == 2 ? 160 : 100, 300);
        double d = want[r] - o.v[PNM_Q50];
        cr_assert_float_eq(s[r].q.v[PNM_Q50], want[r], 1e-9, "source %d", r);
        for (int i = 0; i < PNM_NQ; i++) /* the distribution moves whole, its spread kept */
            cr_assert_float_eq(s[r].q.v[i], o.v[i] + d, 1e-9, "source %d quantile %d", r, i);
        cr_assert_float_eq(s[r].q.mean, o.mean + d, 1e-9);
    }
}

Test(shrink, not_below_zero)
{
    /* a median of 200 whose quartiles span 20..4000 (sampling variance about 1.5e6, more
     * than the medians' 12675) among two of 5: all three become the mean, 70, and the
     * wide one's low quantiles and its mean (50) stop at 0 */
    pnm_q_t wide = {.n = 9, .v = {0, 10, 20, 200, 4000, 5000, 6000}, .mean = 50};
    pnm_sample_t u[3] = {{0, -1, 4096, wide, 0}, {1, -1, 4096, noisy(5, 1), 0},
                         {2, -1, 4096, noisy(5, 1), 0}};
    size_t moved;
    cr_assert_eq(pns_shrink(u, 3, NULL, &moved), 0);
    cr_assert_eq(moved, 3);
    const double want[PNM_NQ] = {0, 0, 0, 70, 3870, 4870, 5870};
    for (int i = 0; i < PNM_NQ; i++)
        cr_assert_float_eq(u[0].q.v[i], want[i], 1e-9, "quantile %d", i);
    cr_assert_eq(u[0].q.mean, 0);
    for (int r = 1; r < 3; r++)
        cr_assert_float_eq(u[r].q.v[PNM_Q50], 70, 1e-9);
}

Test(shrink, spread_within_noise_pools_fully)
{
    /* medians 100, 110, 120 and 130: variance 166.7, less than their mean sampling
     * variance 300; the last has no spread, so it stays, but counts in the mean (115) */
    pnm_sample_t s[4];
    for (int r = 0; r < 4; r++)
        s[r] = (pnm_sample_t){r, -1, 4096, noisy(100 + 10 * r, r < 3 ? 400 : 0), PNM_ONEWAY};
    size_t moved;
    cr_assert_eq(pns_shrink(s, 4, NULL, &moved), 0);
    cr_assert_eq(moved, 3);
    for (int r = 0; r < 3; r++)
        cr_assert_float_eq(s[r].q.v[PNM_Q50], 115, 1e-9, "source %d", r);
    cr_assert_eq(s[3].q.v[PNM_Q50], 130);
}

Test(shrink, one_sample_as_noisy_as_its_group)
{
    /* a single sample (n = 1, no spread of its own) among two of 9 whose IQR gives sigma
     * 30 (sampling variance of their medians pi 900 / 18 = 157.1): it varies as one sample
     * of theirs, 900, so it moves toward the mean; two equal samples keep theirs */
    double iqr = 30 * 1.349, se2 = 0.929 * iqr * 0.929 * iqr / 9;
    pnm_sample_t s[3] = {{0, -1, 4096, noisy(100, se2), PNM_ONEWAY},
                         {1, -1, 4096, noisy(100, se2), PNM_ONEWAY},
                         {2, -1, 4096, {.n = 1, .v = {190, 190, 190, 190, 190, 190, 190},
                                        .mean = 190}, PNM_ONEWAY}};
    size_t moved;
    cr_assert_eq(pns_shrink(s, 3, NULL, &moved), 0);
    cr_assert_eq(moved, 3);
    double mean = 130, var = (900 + 900 + 3600) / 2.0, msev = (2 * se2 + 900) / 3;
    double tau2 = var - msev, w1 = tau2 / (tau2 + 900), w9 = tau2 / (tau2 + se2);
    cr_assert_float_eq(s[2].q.v[PNM_Q50], mean + w1 * 60, 1e-9);
    cr_assert_float_eq(s[2].q.v[0], mean + w1 * 60, 1e-9, "moved whole");
    cr_assert_float_eq(s[0].q.v[PNM_Q50], mean - w9 * 30, 1e-9);
    cr_assert_lt(w1, w9, "the single sample is pulled in further than the others");

    pnm_sample_t t[3] = {s[0], s[1], s[2]};
    t[0] = (pnm_sample_t){0, -1, 4096, noisy(100, se2), PNM_ONEWAY};
    t[1] = (pnm_sample_t){1, -1, 4096, noisy(100, se2), PNM_ONEWAY};
    t[2].q = (pnm_q_t){.n = 2, .v = {190, 190, 190, 190, 190, 190, 190}, .mean = 190};
    cr_assert_eq(pns_shrink(t, 3, NULL, &moved), 0);
    cr_assert_eq(t[2].q.v[PNM_Q50], 190, "two equal samples: no spread, kept");
}

Test(shrink, not_finite_left_alone)
{
    /* the readers refuse such times; a direct caller gets its group back as given */
    pnm_sample_t s[3] = {{0, -1, 4096, noisy(100, 400), 0}, {1, -1, 4096, noisy(200, 400), 0},
                         {2, -1, 4096, noisy(300, 400), 0}};
    s[2].q.v[PNM_Q50] = NAN;
    size_t moved;
    cr_assert_eq(pns_shrink(s, 3, NULL, &moved), 0);
    cr_assert_eq(moved, 0);
    cr_assert_eq(s[0].q.v[PNM_Q50], 100);
    cr_assert_eq(s[1].q.v[PNM_Q50], 200);
}

Test(shrink, groups_apart)
{
    /* source 0 to 1..4 at 4 KiB: 1 shares its host (fast), 2..4 do not; source 0 pooled
     * alone at 4 KiB; sources 0 and 1 pooled at 64 KiB by exchange, 0..3 one way */
    int32_t host[5] = {0, 0, 1, 2, 3};
    pnm_sample_t s[] = {
        {0, 1, 4096, noisy(10, 100), PNM_EXCHANGE},  {0, 2, 4096, noisy(100, 100), PNM_EXCHANGE},
        {0, 3, 4096, noisy(100, 100), PNM_EXCHANGE}, {0, 4, 4096, noisy(130, 100), PNM_EXCHANGE},
        {0, -1, 4096, noisy(100, 100), PNM_EXCHANGE},
        {0, -1, 65536, noisy(1000, 1e4), PNM_EXCHANGE}, {1, -1, 65536, noisy(2000, 1e4), PNM_EXCHANGE},
        {0, -1, 65536, noisy(1000, 1e4), PNM_ONEWAY},  {1, -1, 65536, noisy(1000, 1e4), PNM_ONEWAY},
        {2, -1, 65536, noisy(1000, 1e4), PNM_ONEWAY},  {3, -1, 65536, noisy(3000, 0), PNM_ONEWAY},
    };
    size_t n = sizeof(s) / sizeof(s[0]);
    pnm_sample_t o[sizeof(s) / sizeof(s[0])];
    memcpy(o, s, sizeof(s));
    size_t moved;
    cr_assert_eq(pns_shrink(s, n, host, &moved), 0);
    /* moved: the three pairs between hosts and the three one-way sources with spread */
    cr_assert_eq(moved, 6);
    cr_assert_float_eq(s[0].q.v[PNM_Q50], 10, 0, "the same-host pair is a group of one");
    double mean = 110, var = (100 + 100 + 400) / 2.0, tau2 = var - 100, w = tau2 / (tau2 + 100);
    for (int i = 1; i <= 3; i++)
        cr_assert_float_eq(s[i].q.v[PNM_Q50], mean + w * (o[i].q.v[PNM_Q50] - mean), 1e-9);
    cr_assert_float_eq(s[4].q.v[PNM_Q50], 100, 0, "a pooled source alone at its size");
    cr_assert_float_eq(s[5].q.v[PNM_Q50], 1000, 0, "two sources are too few");
    cr_assert_float_eq(s[6].q.v[PNM_Q50], 2000, 0, "two sources are too few");
    cr_assert_float_eq(s[10].q.v[PNM_Q50], 3000, 0, "no spread: kept as measured");
    cr_assert_lt(s[7].q.v[PNM_Q50], 1500 + 1e-9);
    cr_assert_gt(s[7].q.v[PNM_Q50], 1000);
}

Test(modelfile, bad_mode) { damaged("\"quick\"", "\"slow\"", "probe.mode"); }
Test(modelfile, bad_ranks) { damaged("\"ranks\": 3", "\"ranks\": 0", "probe.ranks"); }
Test(modelfile, sample_rank) { damaged("[\n   0,\n   -1,", "[\n   7,\n   -1,", "samples[0]"); }
Test(modelfile, sample_shape) { damaged("[\n   0,\n   -1,", "[\n   -1,", "samples[0]"); }
Test(modelfile, unknown_model) { damaged("\"lookup\": {", "\"nearest\": {", "models.nearest"); }
Test(modelfile, segment_order) { damaged("\"hi\": 131072", "\"hi\": 4096", "not increasing"); }
Test(modelfile, loggp_negative) { damaged("\"L2o_ns\": ", "\"L2o_ns\": -1", "L2o_ns"); }
Test(modelfile, not_json) { damaged("{", "[", "line"); }

/* A LogGP band above the first starts where the band below ends, so its L2o (its line at
 * 0 bytes) may be below 0 (version 7), but its line may not be below 0 where it starts. */
static plog_err_t read_with_band1(double L2o, double G, plog_error_t *err)
{
    pmf_t f, g;
    make(&f);
    cr_assert_eq(pmf_write(path, &f, err), PLOG_OK, "%s", err->msg);
    pmf_free(&f);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *src0 = json_array_get(
        json_object_get(json_object_get(json_object_get(root, "models"), "loggp"), "sources"),
        0);
    cr_assert_eq(json_integer_value(json_object_get(src0, "src")), 0);
    json_t *bands = json_object_get(src0, "bands");
    cr_assert(json_array_size(bands) >= 2);
    json_t *b1 = json_array_get(bands, 1);
    json_object_set_new(b1, "L2o_ns", json_real(L2o));
    json_object_set_new(b1, "G_ns_per_byte", json_real(G));
    cr_assert_eq(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
    plog_err_t rc = pmf_read(path, &g, err);
    if (rc == PLOG_OK) {
        double t = pnm_time(&g.m[PNM_LOGGP], 0, 1, 1025);
        pmf_free(&g);
        cr_assert_float_eq(t, L2o + G * 1024, 1e-9, "band 1 at 1025 bytes: %g", t);
    }
    return rc;
}

Test(modelfile, loggp_band_starts_at_or_above_0)
{
    plog_error_t err;
    /* band 0 ends at 1024 bytes: band 1's line at n - 1 = 1023 is 10 ns */
    cr_assert_eq(read_with_band1(10 - 2.0 * 1023, 2.0, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(read_with_band1(-10 - 2.0 * 1023, 2.0, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, path) && strstr(err.msg, "models.loggp.sources[0].bands[1]"), "%s",
              err.msg);
}

/* Version 9 carries LogGP's L and o per band and how they were told apart; its handshake
 * must be 2 L + 2 o of the band above the eager limit, so a file cannot hold a free jump. */
Test(modelfile, loggp_L_and_o_and_the_handshake)
{
    pmf_t f, g;
    make_probe(&f, 3, 0, 0.05);
    pnm_opts_t o = {0};
    o.rndv = 65480; /* 64 KiB, 128 KiB and 1 MiB above it */
    plog_error_t err;
    cr_assert_eq(pmf_fit_all(&f, &o, &err), PLOG_OK, "%s", err.msg); /* again, at that size */
    const pnm_loggp_t *w = &f.m[PNM_LOGGP].lgp[1];
    cr_assert_eq(w->rndv, 65480);
    cr_assert_neq(w->lo_split, PNM_LO_SPLIT_NONE);
    cr_assert_gt(w->handshake, 0);
    cr_assert_eq(pmf_write(path, &f, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(pmf_read(path, &g, &err), PLOG_OK, "%s", err.msg);
    const pnm_loggp_t *r = &g.m[PNM_LOGGP].lgp[1];
    cr_assert_eq(r->lo_split, w->lo_split);
    cr_assert_eq(r->rndv, 65480);
    for (int b = 0; b < r->nband; b++) {
        cr_assert_float_eq(r->L[b], w->L[b], 1e-6 * (1 + w->L[b]));
        cr_assert_float_eq(r->o[b], w->o[b], 1e-6 * (1 + w->o[b]));
    }
    pnm_loggp_parts_t pw, pr;
    cr_assert_eq(pnm_loggp_parts(&f.m[PNM_LOGGP], 1, 2, 1 << 20, &pw), 0);
    cr_assert_eq(pnm_loggp_parts(&g.m[PNM_LOGGP], 1, 2, 1 << 20, &pr), 0);
    cr_assert(pr.rndv && pw.rndv);
    cr_assert_float_eq(pr.send, pw.send, 1e-6 * pw.send);
    cr_assert_float_eq(pr.total, pw.total, 1e-6 * pw.total);
    pmf_free(&g);
    /* a handshake that is not 2 L + 2 o is refused, naming the field */
    json_t *root = json_load_file(path, 0, NULL);
    json_t *src1 = json_array_get(
        json_object_get(json_object_get(json_object_get(root, "models"), "loggp"), "sources"),
        1);
    json_object_set_new(src1, "handshake_ns", json_real(w->handshake * 3 + 1000));
    cr_assert_eq(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
    cr_assert_eq(pmf_read(path, &g, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, path) && strstr(err.msg, "models.loggp.sources[1]") &&
                  strstr(err.msg, "2 L_ns + 2 o_ns"),
              "%s", err.msg);
    pmf_free(&f);
}

Test(modelfile, loggp_L_o_split_named) { damaged("\"L_o_split\": \"", "\"L_o_split\": \"x", "L_o_split"); }
Test(modelfile, loggp_o_negative) { damaged("\"o_ns\": ", "\"o_ns\": -1", "o_ns"); }

Test(modelfile, missing_file)
{
    pmf_t g;
    plog_error_t err;
    cr_assert_eq(pmf_read("/nonexistent/model.json", &g, &err), PLOG_E_IO);
    cr_assert(strstr(err.msg, "/nonexistent/model.json") != NULL, "%s", err.msg);
}

/* ---- quick probes on shared host links (pns_unshare) ---- */

static double affine(uint64_t b) { return 100 + (double)b / 10; }

/* the round of a pair and its load, the slow way: every round, every rank */
static unsigned ref_load(const int32_t *host, int p, int a, int b, int way)
{
    int k = 0, nr = p % 2 ? p : p - 1;
    while (k < nr && plog_probe_partner(a, k, p) != b)
        k++;
    cr_assert_lt(k, nr, "ranks %d and %d meet in no round of %d", a, b, p);
    unsigned up = 0, down = 0;
    for (int r = 0; r < p; r++) {
        int q = plog_probe_partner(r, k, p);
        if (q < 0 || host[r] == host[q])
            continue;
        if (way == PNM_EXCHANGE) { /* everyone paired off-host sends and receives */
            up += host[r] == host[a];
            down += host[r] == host[b];
        } else { /* the senders are the pairs' ends on a's side of the order */
            int sender = (a < b) == (r < q);
            up += sender && host[r] == host[a];
            down += !sender && host[r] == host[b];
        }
    }
    return up > down ? up : down;
}

Test(unshare, pairs_take_their_own_time_at_a_share_of_the_bytes)
{
    static const uint64_t sz[3] = {1000, 2000, 4000};
    unsigned seed = 7;
    for (int p = 3; p <= 12; p++) {
        int32_t host[12], nh = 0;
        for (int r = 0; r < p; r++) { /* hosts of 1 to 4 consecutive ranks */
            if (r == 0 || rand_r(&seed) % 3 == 0)
                nh++;
            host[r] = nh - 1;
        }
        size_t n = 0;
        pnm_sample_t *s = calloc((size_t)(p * p + p) * 3 * 2, sizeof(*s));
        cr_assert_not_null(s);
        for (int w = PNM_EXCHANGE; w <= PNM_ONEWAY; w++)
            for (int a = 0; a < p; a++)
                for (int b = -1; b < p; b++)
                    for (int z = 0; b != a && z < 3; z++) {
                        s[n] = (pnm_sample_t){a, b, sz[z], point(affine(sz[z])), w};
                        n++;
                    }
        size_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += s[i].dst >= 0 && host[s[i].src] != host[s[i].dst] &&
                    ref_load(host, p, s[i].src, s[i].dst, s[i].way) > 1;
        size_t got = pns_unshare(s, n, p, host, nh, PNS_SLOWEST | PNS_SMALLEST, plog_probe_partner);
        cr_assert_eq(got, nh < p ? want : 0, "P=%d: %zu samples unshared, expected %zu", p,
                     got, want);
        for (size_t i = 0; i < n; i++) {
            const pnm_sample_t *x = &s[i];
            if (x->dst < 0)
                continue;
            unsigned L = host[x->src] == host[x->dst]
                             ? 1 : ref_load(host, p, x->src, x->dst, x->way);
            /* the bytes above the smallest size's (1000) are what the L flows share */
            double b = 1000 + ((double)x->bytes - 1000) / L, t = 100 + b / 10;
            pnm_q_t e = point(t);
            for (int j = 0; j < PNM_NQ; j++)
                cr_assert_float_eq(x->q.v[j], e.v[j], 1e-9, "P=%d %d->%d %zu B way %d load %u",
                                   p, x->src, x->dst, (size_t)x->bytes, x->way, L);
        }
        /* pooled: the mean over the source's pairs between hosts */
        for (size_t i = 0; i < n; i++) {
            const pnm_sample_t *x = &s[i];
            if (x->dst >= 0)
                continue;
            double sum = 0;
            int cnt = 0;
            for (size_t j = 0; j < n; j++)
                if (s[j].dst >= 0 && s[j].src == x->src && s[j].way == x->way &&
                    s[j].bytes == x->bytes && host[s[j].src] != host[s[j].dst]) {
                    sum += s[j].q.v[3];
                    cnt++;
                }
            double e = cnt && got ? sum / cnt : point(affine(x->bytes)).v[3];
            cr_assert_float_eq(x->q.v[3], e, 1e-9, "P=%d pooled %d at %zu B", p, x->src,
                               (size_t)x->bytes);
        }
        free(s);
    }
}

Test(unshare, a_host_per_rank_changes_nothing)
{
    int32_t host[4] = {0, 1, 2, 3};
    pnm_sample_t s[2] = {{0, 1, 4096, point(10), PNM_EXCHANGE}, {0, -1, 4096, point(10), 0}};
    cr_assert_eq(pns_unshare(s, 2, 4, host, 4, PNS_SLOWEST | PNS_SMALLEST, plog_probe_partner), 0);
    cr_assert_float_eq(s[0].q.v[3], point(10).v[3], 0);
}

/* One way, the flows sharing a link start apart, so each is unshared from the slowest of
 * them (the link is busy until the last is through); an exchange from its own pair; without
 * slowest, every sample from its own pair. 4 ranks on 2 hosts, each pair at its own speed. */
Test(unshare, one_way_from_the_slowest_flow_on_its_link)
{
    static const uint64_t sz[3] = {1000, 2000, 4000};
    const int32_t host[4] = {0, 0, 1, 1};
#define F(a, b) (1 + 0.1 * ((a) * 4 + (b)))
    for (int slowest = 0; slowest <= 1; slowest++) {
        pnm_sample_t s[2 * 8 * 3];
        size_t n = 0;
        for (int w = PNM_EXCHANGE; w <= PNM_ONEWAY; w++)
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    for (int z = 0; host[a] != host[b] && z < 3; z++)
                        s[n++] = (pnm_sample_t){a, b, sz[z], point(affine(sz[z]) * F(a, b)), w};
        cr_assert_eq(pns_unshare(s, n, 4, host, 2, (slowest ? PNS_SLOWEST : 0u) | PNS_SMALLEST,
                                 plog_probe_partner),
                     n);
        for (size_t i = 0; i < n; i++) {
            const pnm_sample_t *x = &s[i];
            if (x->bytes == 1000)
                continue; /* the smallest size: its own time */
            int k = 0;
            while (plog_probe_partner(x->src, k, 4) != x->dst)
                k++;
            /* the round's other pair, as it sends in the same repetitions */
            int r = 0;
            while (r == x->src || r == x->dst)
                r++;
            int q = plog_probe_partner(r, k, 4);
            if ((r < q) != (x->src < x->dst)) {
                int t = r;
                r = q;
                q = t;
            }
            cr_assert(host[r] == host[x->src] && host[q] == host[x->dst],
                      "the fixture's rounds must share both links");
            double f = F(x->src, x->dst);
            if (slowest && x->way == PNM_ONEWAY && F(r, q) > f)
                f = F(r, q);
            double want = point(affine(1000 + (x->bytes - 1000) / 2) * f).v[PNM_Q50];
            cr_assert_float_eq(x->q.v[PNM_Q50], want, 1e-9, "slowest %d: %d->%d %zu B way %d",
                               slowest, x->src, x->dst, (size_t)x->bytes, x->way);
        }
    }
#undef F
}

/* The same against a reference built the slow way, on hosts of uneven size whose ranks are
 * not in rank order, every ordered pair at its own speed: each one-way flow is unshared
 * from the slowest flow on its busier link, its source host's way out when both are as
 * busy. */
Test(unshare, one_way_slowest_flow_on_uneven_hosts)
{
    static const uint64_t sz[3] = {1000, 2000, 4000};
    unsigned seed = 11;
    for (int trial = 0; trial < 40; trial++) {
        int p = 3 + trial % 10, nh = 2 + (int)(rand_r(&seed) % (unsigned)(p - 1));
        int32_t host[12];
        for (int r = 0; r < p; r++)
            host[r] = r < nh ? r : (int32_t)(rand_r(&seed) % (unsigned)nh);
        for (int r = p - 1; r > 0; r--) { /* shuffled: hosts not in rank order */
            int j = (int)(rand_r(&seed) % (unsigned)(r + 1));
            int32_t t = host[r];
            host[r] = host[j];
            host[j] = t;
        }
        double f[12][12];
        for (int a = 0; a < p; a++)
            for (int b = 0; b < p; b++)
                f[a][b] = 1 + 0.5 * (double)(rand_r(&seed) % 1000) / 1000;
        pnm_sample_t *s = calloc((size_t)p * (size_t)p * 3, sizeof(*s));
        cr_assert_not_null(s);
        size_t n = 0;
        for (int a = 0; a < p; a++)
            for (int b = 0; b < p; b++)
                for (int z = 0; host[a] != host[b] && z < 3; z++)
                    s[n++] = (pnm_sample_t){a, b, sz[z], point(affine(sz[z]) * f[a][b]),
                                            PNM_ONEWAY};
        pns_unshare(s, n, p, host, nh, PNS_SLOWEST | PNS_SMALLEST, plog_probe_partner);
        for (size_t i = 0; i < n; i++) {
            int a = s[i].src, b = s[i].dst, k = 0, nr = p % 2 ? p : p - 1;
            while (plog_probe_partner(a, k, p) != b)
                k++;
            cr_assert_lt(k, nr);
            /* the round's flows in a's repetitions: the ends on a's side of each pair send */
            int fs[12], fd[12], nf = 0;
            unsigned up = 0, down = 0;
            for (int r = 0; r < p; r++) {
                int q = plog_probe_partner(r, k, p);
                if (q < 0 || host[r] == host[q] || (r < q) != (a < b))
                    continue;
                fs[nf] = r;
                fd[nf++] = q;
                up += host[r] == host[a];
                down += host[q] == host[b];
            }
            unsigned L = up > down ? up : down;
            double w = 1000 + ((double)s[i].bytes - 1000) / (L ? L : 1), fmax_ = f[a][b];
            for (int j = 0; L > 1 && j < nf; j++)
                if (up >= down ? host[fs[j]] == host[a] : host[fd[j]] == host[b])
                    fmax_ = fmax(fmax_, f[fs[j]][fd[j]]);
            double want = point((100 + fmax(w, 1000) / 10) * fmax_).v[PNM_Q50];
            if (L <= 1)
                want = point(affine(s[i].bytes) * f[a][b]).v[PNM_Q50];
            cr_assert_float_eq(s[i].q.v[PNM_Q50], want, 1e-6 * want,
                               "trial %d, P=%d: %d->%d %zu B, load %u: %g, expected %g", trial,
                               p, a, b, (size_t)s[i].bytes, L, s[i].q.v[PNM_Q50], want);
        }
        free(s);
    }
}

/* Version 7 and before unshared all the bytes: b / L, not s0 + (b - s0) / L (a version 7
 * file's lookup table is rebuilt so). 4 ranks on 2 hosts, every pair at L = 2 or alone. */
Test(unshare, all_the_bytes_before_version_8)
{
    static const uint64_t sz[3] = {1000, 2000, 4000};
    const int32_t host[4] = {0, 0, 1, 1};
    for (int smallest = 0; smallest <= 1; smallest++) {
        pnm_sample_t s[4 * 3 * 3];
        size_t n = 0;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int z = 0; host[a] != host[b] && z < 3; z++)
                    s[n++] = (pnm_sample_t){a, b, sz[z], point(affine(sz[z])), PNM_EXCHANGE};
        cr_assert_eq(
            pns_unshare(s, n, 4, host, 2, smallest ? PNS_SMALLEST : 0u, plog_probe_partner), n);
        for (size_t i = 0; i < n; i++) {
            /* every exchange between the hosts here shares its link with one other */
            double b = smallest ? 1000 + ((double)s[i].bytes - 1000) / 2
                                : fmax(1000, (double)s[i].bytes / 2);
            cr_assert_float_eq(s[i].q.v[PNM_Q50], point(affine((uint64_t)b)).v[PNM_Q50], 1e-9,
                               "smallest %d: %d->%d %zu B: %g", smallest, s[i].src, s[i].dst,
                               (size_t)s[i].bytes, s[i].q.v[PNM_Q50]);
        }
    }
}
