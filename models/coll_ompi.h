/* coll_ompi.h: what the Open MPI 4.1 files of models/ share (internal): the trees of
 * coll_base_topo.c and the generator of each collective family. coll_ompi_gen.c gives a
 * choice to its family's generator with the collective's tag; composite algorithms come
 * back through pcs_gen_sub for their parts. */
#ifndef COLL_OMPI_H
#define COLL_OMPI_H

#include "coll_build.h"

/* ---- trees (coll_ompi_tree.c) ---- */
#define PCS_TREE_MAXKIDS 128
typedef enum {
    PCS_TR_BIN, PCS_TR_CHAIN, PCS_TR_BM, PCS_TR_INORDER_BM, PCS_TR_KM, PCS_TR_INORDER_BIN
} pcs_trkind_t;
typedef struct pcs_tree {
    pcs_trkind_t kind;
    int param; /* fanout (chain), radix (kmtree) */
    int size, root;
} pcs_tree_t;
typedef struct pcs_node {
    int prev; /* -1 at the tree's root */
    int n;
    int next[PCS_TREE_MAXKIDS];
} pcs_node_t;

/* rank's parent and children */
void pcs_tree_node(const pcs_tree_t *t, int rank, pcs_node_t *nd);
/* Edges from the tree's root to rank: O(depth) node computations. */
int pcs_tree_depth(const pcs_tree_t *t, int rank);
/* Longest path down from rank: O(subtree size). */
int pcs_tree_height(const pcs_tree_t *t, int rank);
/* Height of the whole tree, memoised per thread (every rank of a call needs it). */
int pcs_tree_root_height(const pcs_tree_t *t);

/* ---- the fold to a power of two (coll_ompi_reduce.c) ----
 * Recursive doubling and halving on size = pof2 + rem: among the first 2 rem ranks the even
 * ones send their whole vector (acc, len bytes) to the odd ones, which reduce it into acc
 * (received in tmp). Returns the rank among the pof2 that go on (odd r < 2 rem: r / 2,
 * r >= 2 rem: r - rem) or -1 (the even ones). Call at the step of the fold. */
int pcs_fold_even(pcs_ctx_t *c, int rem, int acc, int tmp, uint64_t len);
/* the rank of the one that goes on as v */
static inline int pcs_fold_rank(int v, int rem) { return v < rem ? v * 2 + 1 : v + rem; }

/* ---- the generators: rank c->rank's schedule of call c->a with choice ch (its collective),
 * *gsteps = the steps it spans; errors are sticky in c->s ---- */
/* coll_ompi_bcast.c */
void pcs_gen_bcast(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_gather(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_scatter(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
/* coll_ompi_reduce.c */
void pcs_gen_reduce(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_allreduce(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
/* coll_ompi_exch.c */
void pcs_gen_barrier(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_allgather(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_alltoall(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
/* coll_ompi_vrs.c: the v-variants (alltoallv also serves alltoallw, gatherv scatterv), the
 * reduce-scatters and the scans (scan also serves exscan) */
void pcs_gen_allgatherv(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_alltoallv(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_gatherv(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_reduce_scatter(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_rsb(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_gen_scan(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);

/* ---- within a family: one generator per algorithm (coll_ompi_gen.c) ---- */
typedef void pcs_gen_fn(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);
typedef struct pcs_alg_gen {
    pcs_alg_t alg;
    pcs_gen_fn *gen;
} pcs_alg_gen_t;
/* Run the generator of ch->alg among algs[0..n); PCS_E_UNSUPPORTED when it has none. */
void pcs_gen_pick(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps,
                  const pcs_alg_gen_t *algs, size_t n);
#define PCS_GEN_PICK(c, ch, gsteps, algs) \
    pcs_gen_pick((c), (ch), (gsteps), (algs), sizeof(algs) / sizeof((algs)[0]))

/* coll_ompi_gen.c: generate a collective inside another (composite algorithms): sub's
 * schedule with ctx c's renaming, steps from c's step_base; *gsteps = the steps it used. */
pcs_err_t pcs_gen_sub(pcs_ctx_t *c, const pcs_args_t *sub, const pcs_choice_t *ch,
                      int64_t *gsteps);

/* ---- Open MPI coll/libnbc (coll_ompi_nbc.c, coll_ompi_nbc_red.c, coll_ompi_nbc_sel.c) ----
 * The choice for a->nonblocking, and its schedules (choice component PCS_COMP_LIBNBC). */
pcs_err_t pcs_ompi41_nbc_select(const pcs_args_t *a, const pcs_ompi_forced_t *forced,
                                pcs_choice_t *out);
void pcs_gen_nbc(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps);

/* libnbc's schedule calls. A round's sends and receives are posted in order, local copies
 * and reductions run as they are reached, and the round ends at NBC_Sched_barrier (or an
 * operation added with barrier=true): a WAIT on every request of the round. */
typedef struct nbc {
    pcs_ctx_t *c;
    unsigned nreq; /* requests of the current round */
} nbc_t;

static inline void nbc_barrier(nbc_t *n)
{
    for (unsigned i = 0; i < n->nreq; i++)
        pcs_wait(n->c, i);
    n->nreq = 0;
}
/* NBC_Sched_send / NBC_Sched_recv: a message of round step */
static inline void nbc_post(nbc_t *n, pcs_opkind_t kind, int64_t step, int peer, int buf,
                            uint64_t off, uint64_t len, bool barrier)
{
    pcs_at(n->c, step);
    if (kind == PCS_OP_ISEND)
        pcs_isend(n->c, n->nreq++, peer, buf, off, len);
    else
        pcs_irecv(n->c, n->nreq++, peer, buf, off, len);
    if (barrier)
        nbc_barrier(n);
}
static inline void nbc_send(nbc_t *n, int64_t step, int peer, int buf, uint64_t off,
                            uint64_t len, bool barrier)
{
    nbc_post(n, PCS_OP_ISEND, step, peer, buf, off, len, barrier);
}
static inline void nbc_recv(nbc_t *n, int64_t step, int peer, int buf, uint64_t off,
                            uint64_t len, bool barrier)
{
    nbc_post(n, PCS_OP_IRECV, step, peer, buf, off, len, barrier);
}
/* NBC_Sched_op(buf1, buf2): buf2 = buf1 (op) buf2, ompi_op_reduce's order */
static inline void nbc_op(nbc_t *n, int inb, uint64_t inoff, int iob, uint64_t iooff,
                          uint64_t len, bool barrier)
{
    pcs_reduce(n->c, inb, inoff, iob, iooff, len);
    if (barrier)
        nbc_barrier(n);
}
static inline void nbc_copy(nbc_t *n, int sb, uint64_t soff, int db, uint64_t doff,
                            uint64_t len, bool barrier)
{
    pcs_copy(n->c, sb, soff, db, doff, len);
    if (barrier)
        nbc_barrier(n);
}

static inline int nbc_popcount(int v)
{
    int k = 0;
    for (; v; v &= v - 1)
        k++;
    return k;
}
/* ibcast/ireduce/iallreduce RANK2VRANK: root and 0 swap places, the others stay */
static inline int nbc_swap_root(int x, int root) { return x == 0 ? root : x == root ? 0 : x; }

/* coll_ompi_nbc_red.c: the reductions (each a choice of its collective) */
void pcs_nbc_ireduce(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps);
void pcs_nbc_iallreduce(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps);
/* Ireduce_scatter(_block): binomial reduction to 0, linear scatter */
void pcs_nbc_ireduce_scatter(nbc_t *n, bool block, int64_t *gsteps);
void pcs_nbc_iscan(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps);

#endif
