/* coll_ompi_gen.c: generation for Open MPI 4.1: a choice of pcs_ompi41_select to its
 * family's generator with the collective's tag, coll/self's local copies, and the
 * composite algorithms' entry (pcs_gen_sub). */
#include "coll_ompi.h"

/* ompi/mca/coll/base/coll_tags.h */
enum {
    TAG_ALLGATHER = -10, TAG_ALLGATHERV = -11, TAG_ALLREDUCE = -12, TAG_ALLTOALL = -13,
    TAG_ALLTOALLV = -14, TAG_ALLTOALLW = -15, TAG_BARRIER = -16, TAG_BCAST = -17,
    TAG_EXSCAN = -18,
    TAG_GATHER = -19, TAG_GATHERV = -20, TAG_REDUCE = -21, TAG_REDUCE_SCATTER = -22,
    TAG_REDUCE_SCATTER_BLOCK = -23, TAG_SCAN = -24, TAG_SCATTER = -25, TAG_SCATTERV = -26
};

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

void pcs_gen_pick(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps,
                  const pcs_alg_gen_t *algs, size_t n)
{
    *gsteps = 0;
    for (size_t i = 0; i < n; i++)
        if (algs[i].alg == ch->alg) {
            algs[i].gen(c, ch, gsteps);
            return;
        }
    c->s->err = PCS_E_UNSUPPORTED;
}

/* each collective's tag and generator */
static const struct {
    int32_t tag;
    pcs_gen_fn *gen;
} family[PCS_NCOLLS] = {
    [PCS_BCAST] = {TAG_BCAST, pcs_gen_bcast},
    [PCS_REDUCE] = {TAG_REDUCE, pcs_gen_reduce},
    [PCS_ALLREDUCE] = {TAG_ALLREDUCE, pcs_gen_allreduce},
    [PCS_GATHER] = {TAG_GATHER, pcs_gen_gather},
    [PCS_SCATTER] = {TAG_SCATTER, pcs_gen_scatter},
    [PCS_BARRIER] = {TAG_BARRIER, pcs_gen_barrier},
    [PCS_ALLGATHER] = {TAG_ALLGATHER, pcs_gen_allgather},
    [PCS_ALLTOALL] = {TAG_ALLTOALL, pcs_gen_alltoall},
    [PCS_SCAN] = {TAG_SCAN, pcs_gen_scan},
    [PCS_EXSCAN] = {TAG_EXSCAN, pcs_gen_scan},
    [PCS_ALLGATHERV] = {TAG_ALLGATHERV, pcs_gen_allgatherv},
    [PCS_ALLTOALLV] = {TAG_ALLTOALLV, pcs_gen_alltoallv},
    [PCS_ALLTOALLW] = {TAG_ALLTOALLW, pcs_gen_alltoallv},
    [PCS_REDUCE_SCATTER] = {TAG_REDUCE_SCATTER, pcs_gen_reduce_scatter},
    [PCS_REDUCE_SCATTER_BLOCK] = {TAG_REDUCE_SCATTER_BLOCK, pcs_gen_rsb},
    [PCS_GATHERV] = {TAG_GATHERV, pcs_gen_gatherv},
    [PCS_SCATTERV] = {TAG_SCATTERV, pcs_gen_gatherv},
};

pcs_err_t pcs_gen_sub(pcs_ctx_t *c, const pcs_args_t *sub, const pcs_choice_t *ch,
                      int64_t *gsteps)
{
    pcs_ctx_t cc = *c;
    cc.a = sub;
    cc.rank = sub->rank;
    cc.size = sub->size;
    cc.ts = sub->type_size;
    *gsteps = 0;
    if (ch->alg == PCS_ALG_NONE)
        return c->s->err;
    const pcs_coll_t coll = pcs_alg_coll(ch->alg);
    if ((unsigned)coll >= PCS_NCOLLS || !family[coll].gen) {
        pcs_fail(c, PCS_E_UNSUPPORTED);
        return c->s->err;
    }
    cc.tag = family[coll].tag;
    family[coll].gen(&cc, ch, gsteps);
    return c->s->err;
}

/* coll/self (size 1): the local copy the collective's definition implies, no messages */
static void self_copy(pcs_ctx_t *c)
{
    const pcs_args_t *a = c->a;
    uint64_t n = (uint64_t)a->count * c->ts;
    if (a->in_place)
        return;
    switch (a->coll) {
    case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_ALLGATHER: case PCS_ALLTOALL:
    case PCS_GATHER: case PCS_SCATTER: case PCS_REDUCE_SCATTER_BLOCK:
        pcs_copy(c, S, 0, R, 0, n);
        break;
    case PCS_ALLGATHERV: case PCS_GATHERV: case PCS_SCATTERV: case PCS_REDUCE_SCATTER: {
        const bool from_disp = a->coll == PCS_SCATTERV;
        const bool to_disp = a->coll == PCS_ALLGATHERV || a->coll == PCS_GATHERV;
        n = (uint64_t)a->counts[0] * c->ts;
        pcs_copy(c, S, from_disp ? pcs_vdisp(c->ts, a->counts, a->displs, 0) : 0, R,
                 to_disp ? pcs_vdisp(c->ts, a->counts, a->displs, 0) : 0, n);
        break;
    }
    case PCS_ALLTOALLV:
    case PCS_ALLTOALLW:
        pcs_copy(c, S, pcs_vdisp(c->ts, a->scounts, a->sdispls, 0), R,
                 pcs_vdisp(c->ts, a->counts, a->displs, 0), (uint64_t)a->scounts[0] * c->ts);
        break;
    default: break;
    }
}

pcs_err_t pcs_generate(const pcs_args_t *a, const pcs_choice_t *ch, pcs_sched_t *s)
{
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return s->err = PCS_E_ARG;
    pcs_ctx_t c;
    pcs_ctx_init(&c, a, s, 0);
    c.step_base = s->nsteps;
    s->alg = ch->alg;
    if (ch->component == PCS_COMP_SELF) {
        self_copy(&c);
        return s->err;
    }
    int64_t g;
    if (ch->component == PCS_COMP_LIBNBC) {
        pcs_gen_nbc(&c, ch, &g);
        return s->err;
    }
    return pcs_gen_sub(&c, a, ch, &g);
}

pcs_err_t pcs_ompi41_schedule(const pcs_args_t *a, const pcs_ompi_forced_t *forced,
                              pcs_sched_t *s)
{
    pcs_choice_t ch;
    pcs_err_t e = pcs_ompi41_select(a, forced, &ch);
    if (e)
        return s->err = e;
    return pcs_generate(a, &ch, s);
}

