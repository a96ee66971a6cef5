/* test_predict_models.c: the models `phasor predict` fits to a run's own probe
 * (analysis/predict_models.c), on a synthetic 3-rank run whose ranks 0 and 1 share a host:
 * a message within a host from a source that has pairs between hosts is priced by that
 * pair's own samples; every other message by the source's fit; the host links' load as
 * the fits show it. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "model_file.h"
#include "predict_models.h"
#include "plog_probe.h"
#include "plog_testgen.h"

static const uint64_t sizes[5] = {4096, 16384, 65536, 131072, 1048576};

/* exchanges of a pair (or a source pooled, dst -1) taking a + b n ns, without spread (so
 * that pooling leaves them as they are) */
static size_t line(plog_probe_entry_t *e, int32_t src, int32_t dst, double a, double b)
{
    for (uint32_t z = 0; z < 5; z++) {
        double t = a + b * (double)sizes[z];
        e[z] = (plog_probe_entry_t){.src = src, .dst = dst, .size_idx = z,
                                    .way = PLOG_PROBE_EXCHANGE,
                                    .q = {3, t, t, t, t, t, t, t, t}};
    }
    return 5;
}

/* The probe's entries of rank r (3 ranks) into e; their count. */
static size_t entries(int32_t r, plog_probe_entry_t *e)
{
    size_t n = 0;
    if (r == 0) {
        n += line(e + n, 0, -1, 4000, 8); /* what it recorded over both partners */
        n += line(e + n, 0, 1, 1000, 0.1); /* within node0 */
        n += line(e + n, 0, 2, 5000, 10);  /* between hosts */
    } else if (r == 1) { /* no pair between hosts: its fit is its own pooled samples */
        n += line(e + n, 1, -1, 3000, 5);
        n += line(e + n, 1, 0, 1000, 0.1);
    } else {
        n += line(e + n, 2, -1, 5000, 10);
        n += line(e + n, 2, 0, 5000, 10);
    }
    return n;
}

/* pgen_open's hosts: node0 for ranks 0 and 1, node1 for rank 2 */
static char *three_ranks(void)
{
    char *dir = pgen_tmpdir();
    plog_probe_info_t in = {.mode = PLOG_PROBE_QUICK, .nsizes = 5, .reps = 3, .rounds = 2,
                            .elapsed_s = 0.1, .seed = 7};
    memcpy(in.sizes, sizes, sizeof(sizes));
    for (int32_t r = 0; r < 3; r++) {
        plog_probe_entry_t e[15];
        size_t n = entries(r, e);
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 3, 100), 0);
        uint8_t buf[PLOG_PROBE_BOUND(15)];
        plog_wcur_t w = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&w, &in, NULL, e, n);
        cr_assert_eq(w.overflow, 0);
        cr_assert_eq(plog_writer_frame(&g.w, PLOG_FRAME_PROBE, 0, (uint32_t)n, buf,
                                       (size_t)(w.p - buf)), PLOG_OK);
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    return dir;
}

/* three_ranks(), opened; close_run() removes it */
static plog_run_t *open_run(char **dir)
{
    *dir = three_ranks();
    plog_run_t *run = NULL;
    plog_error_t err;
    cr_assert_eq(plog_run_open(*dir, &run, &err), PLOG_OK, "%s", err.msg);
    return run;
}

static const int32_t host[3] = {0, 0, 1}; /* node0, node0, node1 */

static void close_run(plog_run_t *run, char *dir)
{
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

static double t_of(const pred_models_t *pm, int32_t src, int32_t dst, uint64_t bytes)
{
    return pm->m[0].time(pm->m[0].ctx, src, dst, bytes, 1);
}

Test(predict_models, within_a_host_the_pairs_own_samples)
{
    char *dir;
    plog_run_t *run = open_run(&dir);
    pnm_opts_t fit = {0};
    plog_error_t err;
    for (int kind = 0; kind < 2; kind++) {
        pred_models_t pm;
        cr_assert_eq(pred_models_load(&pm, run, NULL, kind ? "loggp" : "hockney", &fit, host,
                                      2, &err), PLOG_OK, "%s", err.msg);
        cr_assert_eq(pm.n, 1);
        /* 0 -> 1: within node0, and source 0 is fitted between hosts: the pair's samples */
        cr_assert_float_eq(t_of(&pm, 0, 1, 65536), 1000 + 0.1 * 65536, 1e-6);
        cr_assert_float_eq(t_of(&pm, 0, 1, 1048576), 1000 + 0.1 * 1048576, 1e-6);
        /* 0 -> 2 between hosts: the source's fit (of its pooled line, which both models
         * reproduce; no host link was shared, so nothing rebuilt it from the pair) */
        cr_assert_float_eq(t_of(&pm, 0, 2, 65536), 4000 + 8 * 65536.0, 1);
        /* 1 -> 0: source 1 has no pair between hosts, so its fit is of what it measured */
        cr_assert_float_eq(t_of(&pm, 1, 0, 131072), 3000 + 5 * 131072.0, 1);
        char want[64];
        snprintf(want, sizeof(want), "; %s price 1 pair within a host", kind ? "loggp" : "hockney");
        cr_assert(strstr(pm.source, want) != NULL, "%s", pm.source);
        /* the distribution of the step maximum follows the same choice */
        ci_xfer_t x = {.src = 0, .dst = 1, .bytes = 65536};
        const ci_xfer_t *xs[1] = {&x};
        uint8_t tw[1] = {1};
        double mean, p90;
        cr_assert_eq(pm.m[0].max_of(pm.m[0].ctx, xs, tw, NULL, 1, &mean, &p90), 0);
        cr_assert_float_eq(mean, 1000 + 0.1 * 65536, 1e-6);
        pred_models_free(&pm);

        /* without hosts every message is priced by its source's fit */
        cr_assert_eq(pred_models_load(&pm, run, NULL, kind ? "loggp" : "hockney", &fit, NULL,
                                      0, &err), PLOG_OK, "%s", err.msg);
        cr_assert_float_eq(t_of(&pm, 0, 1, 65536), 4000 + 8 * 65536.0, 1);
        cr_assert(strstr(pm.source, "within a host") == NULL, "%s", pm.source);
        pred_models_free(&pm);
    }
    close_run(run, dir);
}

/* The same probe as a model file (phasor-probe's): its pairs within a host count only when
 * the file's hosts group the ranks as the run's do. */
Test(predict_models, a_model_files_hosts_must_be_the_runs)
{
    char *dir;
    plog_run_t *run = open_run(&dir);
    char path[64];
    snprintf(path, sizeof(path), "/tmp/test_predict_models.XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    static const char *names[2][3] = {{"node0", "node0", "node1"}, {"a", "b", "c"}};
    for (int v = 0; v < 2; v++) {
        pmf_t f = {.mode = 1, .nranks = 3, .reps = 3};
        f.hosts = calloc(3, sizeof(*f.hosts));
        f.s = calloc(15 * 3, sizeof(*f.s));
        cr_assert(f.hosts && f.s);
        for (int32_t r = 0; r < 3; r++) {
            snprintf(f.hosts[r], sizeof(f.hosts[r]), "%s", names[v][r]);
            plog_probe_entry_t e[15];
            size_t n = entries(r, e);
            pmf_samples_from_probe(f.s + f.n, e, n, sizes);
            f.n += n;
        }
        plog_error_t err;
        cr_assert_eq(pmf_fit_all(&f, NULL, &err), PLOG_OK, "%s", err.msg);
        cr_assert_eq(pmf_write(path, &f, &err), PLOG_OK, "%s", err.msg);
        pmf_free(&f);
        pred_models_t pm;
        pnm_opts_t fit = {0};
        cr_assert_eq(pred_models_load(&pm, run, path, "hockney", &fit, host, 2, &err), PLOG_OK,
                     "%s", err.msg);
        double want = v == 0 ? 1000 + 0.1 * 65536 : 4000 + 8 * 65536.0;
        cr_assert_float_eq(t_of(&pm, 0, 1, 65536), want, 1, "hosts %s %s %s",
                           names[v][0], names[v][1], names[v][2]);
        cr_assert_eq(strstr(pm.source, "within a host") != NULL, v == 0, "%s", pm.source);
        pred_models_free(&pm);
    }
    unlink(path);
    close_run(run, dir);
}


/* The host links' background load (pr_load_t), read from the probe's pairs (the lookup
 * table, fitted for that alone when only Hockney is asked for): 0 -> 2 and 2 -> 0, 2 -> 1
 * take 10 ns/B, 1 -> 2 (not measured) falls back to source 1's 5. An unloaded link takes
 * the first quartile, 5, and each rank's least slow pair out (in) tells its link out (in).
 * Hockney's own fit of source 0 pools its partners (8 ns/B) and would say 1.6. */
Test(predict_models, background_load_of_the_links)
{
    char *dir;
    plog_run_t *run = open_run(&dir);
    pnm_opts_t fit = {0};
    plog_error_t err;
    for (int all = 0; all < 2; all++) {
        pred_models_t pm;
        cr_assert_eq(pred_models_load(&pm, run, NULL, all ? NULL : "hockney", &fit, host, 2,
                                      &err), PLOG_OK, "%s", err.msg);
        cr_assert_eq(pm.n, all ? 3 : 1);
        const pr_load_t *l = &pm.m[0].load;
        cr_assert_float_eq(l->per_byte, 5, 1e-3);
        cr_assert(l->out && l->in && l->t);
        const double out[3] = {2, 1, 2}, in[3] = {2, 2, 1};
        for (int r = 0; r < 3; r++) {
            cr_assert_float_eq(l->out[r], out[r], 1e-3, "rank %d out %g", r, l->out[r]);
            cr_assert_float_eq(l->in[r], in[r], 1e-3, "rank %d in %g", r, l->in[r]);
        }
        for (int i = 1; i < pm.n; i++) /* the links' load, the same for every model */
            cr_assert(pm.m[i].load.out == l->out && pm.m[i].load.t == l->t &&
                      pm.m[i].load.ctx == l->ctx && pm.m[i].load.per_byte == l->per_byte);
        /* what pr_aggregate_time is told: a link between hosts, and nothing within one */
        cr_assert_float_eq(pr_load_slow(l, host, 2, 0, 0), 2, 1e-3);
        cr_assert_float_eq(pr_load_slow(l, host, 0, 2, 1), 1, 1e-3);
        cr_assert_eq(pr_load_slow(l, host, 0, 1, 0), 0);
        pred_models_free(&pm);
    }
    close_run(run, dir);
}
