/* coll_instances.c: collective calls matched across ranks (see coll_instances.h). */
#include "coll_instances.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "vec.h"

struct ci {
    recon_t *rc;
    pcs_sched_t s;
    hmap_t next;  /* (rank, comm) -> next ordinal */
    hmap_t open;  /* (comm, ordinal) + 1 -> open_t * */
};

/* An instance still open: what the caller gets, and the capacities of its arrays. */
typedef struct open_inst {
    ci_inst_t in;
    size_t xcap, redcap;
} open_t;

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

static void inst_free(open_t *o)
{
    if (o) {
        free(o->in.x);
        free(o->in.mem);
        free(o->in.red);
        free(o);
    }
}

void ci_free(ci_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->open.cap; i++)
        if (c->open.keys[i])
            inst_free((open_t *)(uintptr_t)c->open.vals[i]);
    hmap_free(&c->open);
    hmap_free(&c->next);
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

static int add_sends(open_t *o, const plog_rec_t *e, const pcs_sched_t *s)
{
    ci_inst_t *in = &o->in;
    size_t need = 0;
    for (size_t i = 0; i < s->n; i++)
        need += s->ops[i].kind == PCS_OP_SEND || s->ops[i].kind == PCS_OP_ISEND;
    if (need == 0)
        return 0;
    if (VEC_GROW(in->x, o->xcap, in->nx + need) != 0)
        return -1;
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

static int add_reductions(open_t *o, const plog_rec_t *e, const pcs_sched_t *s)
{
    ci_inst_t *in = &o->in;
    size_t need = 0;
    for (size_t i = 0; i < s->n; i++)
        need += s->ops[i].kind == PCS_OP_REDUCE;
    if (need == 0)
        return 0;
    if (VEC_GROW(in->red, o->redcap, in->nred + need) != 0)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        if (s->ops[i].kind == PCS_OP_REDUCE)
            in->red[in->nred++] = (ci_red_t){e->rank, s->ops[i].step, s->ops[i].len};
    return 0;
}

/* The open instance of key, opened by its first member's event e (the call's ordinal on
 * its communicator ord); NULL out of memory. */
static open_t *open_at(ci_t *c, uint64_t key, const plog_rec_t *e, uint64_t ord,
                       pcs_coll_t coll, bool nb)
{
    uint64_t *slot = hmap_put(&c->open, key);
    if (!slot)
        return NULL;
    open_t *o = (open_t *)(uintptr_t)*slot;
    if (o)
        return o;
    o = calloc(1, sizeof(*o));
    if (!o) {
        hmap_del(&c->open, key);
        return NULL;
    }
    *slot = (uint64_t)(uintptr_t)o;
    ci_inst_t *in = &o->in;
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
    return o;
}

int ci_feed(ci_t *c, const plog_rec_t *e, ci_done_fn done, void *arg)
{
    if (e->cls != PLOG_CLASS_COLL && e->cls != PLOG_CLASS_ICOLL)
        return 0;
    if (e->comm <= 0)
        return 0;
    /* the ordinal counts every collective call on the communicator, as phasor steps does */
    uint64_t *nx = hmap_put(&c->next, (uint64_t)(uint32_t)e->rank << 32 | (uint32_t)e->comm);
    if (!nx)
        return -1;
    uint64_t ord = (*nx)++;
    pcs_coll_t coll;
    bool nb;
    if (!recon_call_coll(e->call, &coll, &nb) || !e->lcomm)
        return 0; /* neighbourhood collectives and the like, or no communicator table */
    uint64_t key = (uint64_t)(uint32_t)e->comm << 40 | (ord & ((1ull << 40) - 1));
    key += 1; /* never 0 */
    open_t *o = open_at(c, key, e, ord, coll, nb);
    if (!o)
        return -1;
    ci_inst_t *in = &o->in;
    in->seen++;
    if (!in->mem) { /* once: the members are known */
        in->mem = malloc((size_t)(in->size > 0 ? in->size : 1) * sizeof(*in->mem));
        if (!in->mem)
            return -1;
    }
    assert(in->nmem <= (size_t)in->seen);
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
        (add_sends(o, e, &c->s) != 0 || add_reductions(o, e, &c->s) != 0))
        return -1;
    if (in->seen >= in->size) {
        hmap_del(&c->open, key);
        done(arg, in);
        inst_free(o);
    }
    return 0;
}

void ci_finish(ci_t *c, ci_done_fn done, void *arg)
{
    for (size_t i = 0; i < c->open.cap; i++) {
        if (!c->open.keys[i])
            continue;
        open_t *o = (open_t *)(uintptr_t)c->open.vals[i];
        done(arg, &o->in);
        inst_free(o);
    }
    hmap_free(&c->open); /* empty again */
}
