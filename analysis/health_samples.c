/* health_samples.c: the passive samples of health.h, in one merged pass over a run: messages
 * matched sender to receiver, and collective instances priced by the run's model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_instances.h"
#include "health.h"
#include "hmap.h"
#include "msg_match.h"
#include "plog_calls.h"
#include "predict.h"
#include "vec.h"

const char *hl_source_name(hl_source_t s)
{
    switch (s) {
    case HL_SRC_MESSAGES: return "messages";
    case HL_SRC_COLLECTIVES: return "collectives";
    case HL_SRC_PROBE: return "probe";
    }
    return "unknown";
}

uint32_t hl_bucket(uint64_t bytes)
{
    return bytes ? 64u - (uint32_t)__builtin_clzll(bytes) : 0u;
}

/* ---- messages ---- */

typedef struct msg_acc {
    hl_samples_t *out;
    size_t cap;
} msg_acc_t;

/* A matched message is a sample when the receiver was already waiting for it when it was
 * sent: its completing call began no later than the send's posting (health.h). */
static int on_message(void *arg, const mm_msg_t *m)
{
    msg_acc_t *a = arg;
    hl_samples_t *o = a->out;
    int64_t later = m->send.post > m->recv.post ? m->send.post : m->recv.post;
    int64_t dur = m->recv.end - later;
    if ((m->recv.flags & (MM_PROBED | MM_TESTED)) || m->recv.start > m->send.post || dur <= 0) {
        o->c.late_receiver++;
        return 0;
    }
    o->c.reliable++;
    if (VEC_GROW(o->s[HL_SRC_MESSAGES], a->cap, o->n[HL_SRC_MESSAGES] + 1) != 0)
        return -1;
    o->s[HL_SRC_MESSAGES][o->n[HL_SRC_MESSAGES]++] =
        (hl_sample_t){.t_ns = later, .dur_ns = dur, .value = (double)dur,
                      .bytes = m->send.bytes,
                      .cls = 2 * hl_bucket(m->send.bytes) + (o->host[m->src] != o->host[m->dst]),
                      .src = m->src, .dst = m->dst};
    return 0;
}

/* ---- collectives ---- */

typedef struct coll_acc {
    hl_samples_t *out;
    size_t cap;
    pred_models_t models;
    pred_steps_t steps;
    int have_model;
    hmap_t cls;               /* (collective, size, bucket) key -> class + 1 */
    size_t ccls;
    int failed;
} coll_acc_t;

static void coll_done(void *arg, const ci_inst_t *in)
{
    coll_acc_t *a = arg;
    hl_samples_t *o = a->out;
    if (in->nonblocking || a->failed)
        return;
    o->c.colls++;
    if (in->seen < in->size || in->nmem == 0)
        return;
    int64_t last_in = in->mem[0].start_ns;
    int32_t last_rank = in->mem[0].rank;
    for (size_t k = 1; k < in->nmem; k++)
        if (in->mem[k].start_ns > last_in) {
            last_in = in->mem[k].start_ns;
            last_rank = in->mem[k].rank;
        }
    int64_t dur = in->last_end - last_in;
    if (dur <= 0)
        return;
    double value = (double)dur;
    if (a->have_model) {
        double t = NAN, p90;
        if (in->why != RECON_OK ||
            pred_steps_price(&a->steps, in, &a->models.m[0], &t, &p90) != 0 || !(t > 0))
            return;
        value = (double)dur / t;
    }
    /* the class: (collective, communicator size, size bucket) */
    uint64_t key = ((uint64_t)in->coll << 48 | (uint64_t)(uint32_t)in->size << 8 |
                    hl_bucket(in->bytes)) + 1;
    uint64_t *v = hmap_put(&a->cls, key);
    if (v == NULL || (*v == 0 && VEC_GROW(o->coll_class, a->ccls, o->ncoll_class + 1) != 0)) {
        a->failed = 1;
        return;
    }
    if (*v == 0) {
        char name[96];
        uint32_t b = hl_bucket(in->bytes);
        snprintf(name, sizeof(name), "%s/%d/%lluB", pcs_coll_name(in->coll), (int)in->size,
                 (unsigned long long)(b ? 1ull << (b - 1) : 0));
        if ((o->coll_class[o->ncoll_class] = strdup(name)) == NULL) {
            a->failed = 1;
            return;
        }
        *v = ++o->ncoll_class;
    }
    uint32_t cls = (uint32_t)(*v - 1);
    if (VEC_GROW(o->s[HL_SRC_COLLECTIVES], a->cap, o->n[HL_SRC_COLLECTIVES] + 1) != 0) {
        a->failed = 1;
        return;
    }
    o->s[HL_SRC_COLLECTIVES][o->n[HL_SRC_COLLECTIVES]++] =
        (hl_sample_t){.t_ns = last_in, .dur_ns = dur, .value = value, .bytes = in->bytes,
                      .cls = cls, .src = in->first_rank, .dst = last_rank};
    o->c.colls_kept++;
}

/* ---- the pass ---- */

static int cmp_t(const void *a, const void *b)
{
    const hl_sample_t *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static plog_err_t nomem(plog_error_t *err, const plog_run_t *run)
{
    return plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                     "out of memory collecting the network's samples");
}

plog_err_t hl_collect(plog_run_t *run, const hl_opts_t *o, hl_samples_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    int32_t P = plog_run_world_size(run);
    out->world = P;
    out->t_first = INT64_MAX;
    out->t_last = INT64_MIN;
    msg_acc_t ma = {.out = out};
    mm_t *mm = mm_new(P);
    coll_acc_t ca = {.out = out};
    ci_t *ci = ci_new(run, RECON_LIB_AUTO);
    out->host = calloc((size_t)(P > 0 ? P : 1), sizeof(int32_t));
    plog_err_t rc = PLOG_OK;
    if (ci == NULL || out->host == NULL || mm == NULL) {
        rc = nomem(err, run);
        goto done;
    }
    /* hosts: by the ranks' hostnames, as the collectives' node-aware rules see them */
    int32_t nh = 0;
    for (int32_t r = 0; r < P; r++) {
        int h = ci_host(ci, r); /* a rank without a log: negative, a host of its own */
        out->host[r] = h;
        if (h + 1 > nh)
            nh = h + 1;
    }
    for (int32_t r = 0; r < P; r++)
        if (out->host[r] < 0)
            out->host[r] = nh++;
    out->nhosts = nh;
    out->host_name = calloc((size_t)(nh > 0 ? nh : 1), sizeof(char *));
    if (out->host_name == NULL) {
        rc = nomem(err, run);
        goto done;
    }
    for (int32_t r = 0; r < P; r++) {
        int32_t h = out->host[r];
        if (out->host_name[h] != NULL)
            continue;
        const plog_rank_t *rk = plog_run_rank(run, r);
        const char *hn = rk ? plog_rank_kv(rk, "hostname") : NULL;
        char name[96];
        if (hn != NULL && *hn != '\0')
            snprintf(name, sizeof(name), "%s", hn);
        else
            snprintf(name, sizeof(name), "rank-%d", (int)r);
        if ((out->host_name[h] = strdup(name)) == NULL) {
            rc = nomem(err, run);
            goto done;
        }
    }
    /* the model collectives are priced by; none is not an error */
    pnm_opts_t fit;
    memset(&fit, 0, sizeof(fit));
    plog_error_t merr;
    if (pred_models_load(&ca.models, run, o ? o->model_file : NULL, NULL, &fit, out->host, nh,
                         &merr) == PLOG_OK &&
        ca.models.n > 0) {
        if (pred_steps_init(&ca.steps, PRED_STEPS, out->host, nh, P) != 0) {
            rc = nomem(err, run);
            goto done;
        }
        ca.have_model = 1;
        out->coll_model = 1;
        snprintf(out->model_source, sizeof(out->model_source), "the %s model %.480s",
                 ca.models.m[0].name, ca.models.source);
    } else if (o != NULL && o->model_file != NULL) {
        rc = plog_fail(err, merr.code, o->model_file, PLOG_NO_OFFSET, "%s", merr.msg);
        goto done;
    }

    plog_iter_t *it;
    if ((rc = plog_iter_open(run, PLOG_ALL_RANKS, &it, err)) != PLOG_OK)
        goto done;
    const plog_rec_t *e;
    while ((rc = plog_iter_next(it, &e, err)) == PLOG_OK && e != NULL) {
        out->c.events++;
        if (e->start_ns < out->t_first)
            out->t_first = e->start_ns;
        if (e->end_ns > out->t_last)
            out->t_last = e->end_ns;
        if (e->rc != 0 || e->cls == PLOG_CLASS_STEP)
            continue;
        if (mm_event(mm, e, on_message, &ma) != 0 || ci_feed(ci, e, coll_done, &ca) != 0 ||
            ca.failed) {
            rc = nomem(err, run);
            break;
        }
    }
    plog_iter_close(it);
    if (rc != PLOG_OK)
        goto done;
    ci_finish(ci, coll_done, &ca);
    if (ca.failed) {
        rc = nomem(err, run);
        goto done;
    }
    plog_error_t perr, *pe = err ? err : &perr;
    if (hl_probe_collect(run, out, pe) != 0) {
        rc = pe->code;
        goto done;
    }
    mm_counts_t mc;
    mm_counts(mm, &mc, &out->c.unmatched_sends, &out->c.unmatched_recvs);
    out->c.sends = mc.sends;
    out->c.recvs = mc.recvs;
    out->c.matched = mc.matched;
    out->c.skipped_recvs = mc.skipped_recvs;
    for (int k = 0; k < 3; k++)
        if (out->n[k] > 1)
            qsort(out->s[k], out->n[k], sizeof(hl_sample_t), cmp_t);
    if (out->t_first > out->t_last)
        out->t_first = out->t_last = 0;
done:
    mm_free(mm);
    if (ca.have_model)
        pred_steps_free(&ca.steps);
    pred_models_free(&ca.models);
    hmap_free(&ca.cls);
    ci_free(ci);
    if (rc != PLOG_OK)
        hl_samples_free(out);
    return rc;
}

void hl_samples_free(hl_samples_t *s)
{
    if (s == NULL)
        return;
    free(s->host);
    for (int32_t h = 0; s->host_name != NULL && h < s->nhosts; h++)
        free(s->host_name[h]);
    free(s->host_name);
    for (int k = 0; k < 3; k++)
        free(s->s[k]);
    for (size_t k = 0; k < s->ncoll_class; k++)
        free(s->coll_class[k]);
    free(s->coll_class);
    memset(s, 0, sizeof(*s));
}
