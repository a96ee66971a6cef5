/* coll_instances.c: collective calls matched across ranks (see coll_instances.h). */
#include "coll_instances.h"

#include <stdlib.h>
#include <string.h>

/* uint64 -> uint64 open addressing, linear probing, backward-shift deletion; key 0 free */
typedef struct umap {
    uint64_t *k, *v;
    size_t cap, n;
} umap_t;

static size_t um_slot(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static uint64_t *um_find(umap_t *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = um_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->k[i] == key)
            return &m->v[i];
        if (m->k[i] == 0)
            return NULL;
    }
}

static int um_grow(umap_t *m)
{
    size_t nc = m->cap ? 2 * m->cap : 64;
    uint64_t *k = calloc(nc, sizeof(*k)), *v = calloc(nc, sizeof(*v));
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->k[i] == 0)
            continue;
        size_t j = um_slot(m->k[i], nc);
        while (k[j] != 0)
            j = (j + 1) & (nc - 1);
        k[j] = m->k[i];
        v[j] = m->v[i];
    }
    free(m->k);
    free(m->v);
    m->k = k;
    m->v = v;
    m->cap = nc;
    return 0;
}

/* the value slot of key, inserted as 0 if absent; NULL on out of memory */
static uint64_t *um_put(umap_t *m, uint64_t key)
{
    uint64_t *p = um_find(m, key);
    if (p)
        return p;
    if ((m->n + 1) * 4 > m->cap * 3 && um_grow(m) != 0)
        return NULL;
    size_t i = um_slot(key, m->cap);
    while (m->k[i] != 0)
        i = (i + 1) & (m->cap - 1);
    m->k[i] = key;
    m->v[i] = 0;
    m->n++;
    return &m->v[i];
}

static void um_del(umap_t *m, uint64_t key)
{
    if (m->cap == 0)
        return;
    size_t i = um_slot(key, m->cap);
    while (m->k[i] != key) {
        if (m->k[i] == 0)
            return;
        i = (i + 1) & (m->cap - 1);
    }
    for (size_t j = (i + 1) & (m->cap - 1); m->k[j] != 0; j = (j + 1) & (m->cap - 1)) {
        size_t home = um_slot(m->k[j], m->cap);
        /* move j back to i when its home is not in (i, j] (cyclically) */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->k[i] = m->k[j];
            m->v[i] = m->v[j];
            i = j;
        }
    }
    m->k[i] = 0;
    m->v[i] = 0;
    m->n--;
}

static void um_free(umap_t *m)
{
    free(m->k);
    free(m->v);
    memset(m, 0, sizeof(*m));
}

struct ci {
    recon_t *rc;
    pcs_sched_t s;
    umap_t next;  /* (rank, comm) -> next ordinal */
    umap_t open;  /* (comm, ordinal) -> ci_inst_t * */
};

int ci_host(const ci_t *c, int32_t rank)
{
    return recon_host(c->rc, rank);
}

ci_t *ci_new(const plog_run_t *run, recon_lib_t lib)
{
    ci_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->rc = recon_new(run, lib);
    if (!c->rc) {
        free(c);
        return NULL;
    }
    c->s = (pcs_sched_t)PCS_SCHED_INIT;
    return c;
}

static void inst_free(ci_inst_t *in)
{
    if (in) {
        free(in->x);
        free(in->mem);
        free(in->red);
        free(in);
    }
}

void ci_free(ci_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->open.cap; i++)
        if (c->open.k[i])
            inst_free((ci_inst_t *)(uintptr_t)c->open.v[i]);
    um_free(&c->open);
    um_free(&c->next);
    pcs_sched_free(&c->s);
    recon_free(c->rc);
    free(c);
}

static uint64_t size_class(const pcs_args_t *a)
{
    int64_t n = a->count;
    if (a->counts && a->size > 0) {
        int64_t sum = 0;
        for (int i = 0; i < a->size; i++)
            sum += a->counts[i];
        n = a->coll == PCS_REDUCE_SCATTER ? sum : sum / a->size;
    } else if (a->coll == PCS_GATHERV || a->coll == PCS_SCATTERV) {
        n = a->own_count;
    }
    return a->coll == PCS_BARRIER || n < 0 ? 0 : (uint64_t)n * a->type_size;
}

static int add_sends(ci_inst_t *in, const plog_rec_t *e, const pcs_sched_t *s)
{
    size_t need = 0;
    for (size_t i = 0; i < s->n; i++)
        need += s->ops[i].kind == PCS_OP_SEND || s->ops[i].kind == PCS_OP_ISEND;
    if (need == 0)
        return 0;
    ci_xfer_t *x = realloc(in->x, (in->nx + need) * sizeof(*x));
    if (!x)
        return -1;
    in->x = x;
    for (size_t i = 0; i < s->n; i++) {
        const pcs_op_t *op = &s->ops[i];
        if (op->kind != PCS_OP_SEND && op->kind != PCS_OP_ISEND)
            continue;
        in->x[in->nx++] = (ci_xfer_t){e->rank, recon_world(e, op->peer), op->step, op->len};
    }
    if (s->nsteps > in->nsteps)
        in->nsteps = s->nsteps;
    return 0;
}

static int add_reductions(ci_inst_t *in, const plog_rec_t *e, const pcs_sched_t *s)
{
    size_t need = 0;
    for (size_t i = 0; i < s->n; i++)
        need += s->ops[i].kind == PCS_OP_REDUCE;
    if (need == 0)
        return 0;
    ci_red_t *r = realloc(in->red, (in->nred + need) * sizeof(*r));
    if (!r)
        return -1;
    in->red = r;
    for (size_t i = 0; i < s->n; i++)
        if (s->ops[i].kind == PCS_OP_REDUCE)
            in->red[in->nred++] = (ci_red_t){e->rank, s->ops[i].step, s->ops[i].len};
    return 0;
}

int ci_feed(ci_t *c, const plog_rec_t *e, ci_done_fn done, void *arg)
{
    if (e->cls != PLOG_CLASS_COLL && e->cls != PLOG_CLASS_ICOLL)
        return 0;
    if (e->comm <= 0)
        return 0;
    /* the ordinal counts every collective call on the communicator, as phasor steps does */
    uint64_t *nx = um_put(&c->next, (uint64_t)(uint32_t)e->rank << 32 | (uint32_t)e->comm);
    if (!nx)
        return -1;
    uint64_t ord = (*nx)++;
    pcs_coll_t coll;
    bool nb;
    if (!recon_call_coll(e->call, &coll, &nb) || !e->lcomm)
        return 0; /* neighbourhood collectives and the like, or no communicator table */
    uint64_t key = (uint64_t)(uint32_t)e->comm << 40 | (ord & ((1ull << 40) - 1));
    key += 1; /* never 0 */
    uint64_t *slot = um_put(&c->open, key);
    if (!slot)
        return -1;
    ci_inst_t *in = (ci_inst_t *)(uintptr_t)*slot;
    if (!in) {
        in = calloc(1, sizeof(*in));
        if (!in) {
            um_del(&c->open, key);
            return -1;
        }
        *slot = (uint64_t)(uintptr_t)in;
        in->comm = e->comm;
        in->ordinal = ord;
        in->call = e->call;
        in->coll = coll;
        in->nonblocking = nb;
        in->size = (int32_t)(e->lcomm->n_local + e->lcomm->n_remote);
        in->first_start = e->start_ns;
        in->last_end = e->end_ns;
        in->first_rank = in->last_rank = e->rank;
        in->alg = PCS_ALG_NONE;
        in->why = RECON__COUNT; /* none rebuilt yet */
    }
    in->seen++;
    if (!in->mem) { /* once: the members are known */
        in->mem = malloc((size_t)(in->size > 0 ? in->size : 1) * sizeof(*in->mem));
        if (!in->mem)
            return -1;
    }
    if (in->nmem < (size_t)in->size)
        in->mem[in->nmem++] = (ci_member_t){e->rank, e->start_ns, e->end_ns};
    if (e->start_ns < in->first_start) {
        in->first_start = e->start_ns;
        in->first_rank = e->rank;
    }
    if (e->end_ns > in->last_end) {
        in->last_end = e->end_ns;
        in->last_rank = e->rank;
    }
    pcs_args_t a;
    pcs_choice_t ch;
    recon_skip_t why = recon_event(c->rc, e, &a, &ch, &c->s);
    if (in->why == RECON__COUNT) { /* the first member sets the class */
        if (why == RECON_OK) {
            in->bytes = size_class(&a);
            in->alg = c->s.alg;
        }
        in->why = why;
    } else if (in->why == RECON_OK && why != RECON_OK) {
        in->why = why;
    }
    if (why == RECON_OK && in->why == RECON_OK &&
        (add_sends(in, e, &c->s) != 0 || add_reductions(in, e, &c->s) != 0))
        return -1;
    if (in->seen >= in->size) {
        um_del(&c->open, key);
        done(arg, in);
        inst_free(in);
    }
    return 0;
}

void ci_finish(ci_t *c, ci_done_fn done, void *arg)
{
    for (size_t i = 0; i < c->open.cap; i++) {
        if (!c->open.k[i])
            continue;
        ci_inst_t *in = (ci_inst_t *)(uintptr_t)c->open.v[i];
        done(arg, in);
        inst_free(in);
        c->open.k[i] = 0;
    }
    c->open.n = 0;
}
