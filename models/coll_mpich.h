/* coll_mpich.h: what the MPICH files of models/ share (internal): coll_mpich40.c (selection,
 * ch4 compositions), coll_mpich_run.c (running an MPIR algorithm), coll_mpich_algs.c and
 * coll_mpich_red.c (the MPIR algorithms). MPICH runs algorithms on sub-communicators
 * (node_comm, node_roots_comm), so its generators write through a view that renames ranks,
 * buffers and steps, on top of the shared builder. */
#ifndef COLL_MPICH_H
#define COLL_MPICH_H

#include "coll_build.h"

/* src/include/mpir_tags.h v4.0.2 */
enum {
    MT_BARRIER = 1, MT_BCAST = 2, MT_GATHER = 3, MT_GATHERV = 4, MT_SCATTER = 5,
    MT_SCATTERV = 6, MT_ALLGATHER = 7, MT_ALLGATHERV = 8, MT_ALLTOALL = 9, MT_ALLTOALLV = 10,
    MT_REDUCE = 11, MT_ALLREDUCE = 14, MT_REDUCE_SCATTER = 17, MT_SCAN = 20, MT_EXSCAN = 24,
    MT_ALLTOALLW = 25, MT_REDUCE_SCATTER_BLOCK = 28,
    /* MPIR_FIRST_NBC_TAG: the first schedule on a communicator gets it, each further
     * nonblocking (or persistent-init) collective on it the next tag; the schedule carries
     * the first */
    MT_NBC = 287
};

/* One (sub-)communicator's view: ranks here, their ranks in the schedule's communicator,
 * buffers renamed and offset (a composition keeps its own data in scratch buffers). */
typedef struct pcs_mv {
    pcs_ctx_t *c;            /* builder, identity maps, step_base 0 */
    int rank, size;
    const int *peer;         /* schedule rank of each rank here; NULL: the same */
    uint8_t map[PCS_NBUFS];
    uint64_t off[PCS_NBUFS];
    uint32_t step0;          /* first step of this (sub-)collective */
    int32_t tag;
    bool sched;              /* the sched variant (MPIR_I<coll>_intra_sched_*): recursive
                              * halving's last block takes the remainder, the allgatherv
                              * ring cuts its pipeline differently */
} pcs_mv_t;

/* ---- writing through a view (MPIC_* calls; every transfer carries the view's tag) ---- */
static inline int mv_peer(const pcs_mv_t *v, int r) { return v->peer ? v->peer[r] : r; }
static inline int mv_buf(const pcs_mv_t *v, int b) { return v->map[b]; }
static inline uint64_t mv_off(const pcs_mv_t *v, int b, uint64_t off) { return v->off[b] + off; }
static inline void mv_at(pcs_mv_t *v, int64_t step) { pcs_at(v->c, (int64_t)v->step0 + step); }

static inline void mv_send(pcs_mv_t *v, int peer, int b, uint64_t off, uint64_t len)
{
    v->c->tag = v->tag;
    pcs_send(v->c, mv_peer(v, peer), mv_buf(v, b), mv_off(v, b, off), len);
}
static inline void mv_ssend(pcs_mv_t *v, int peer, int b, uint64_t off, uint64_t len)
{
    v->c->tag = v->tag;
    pcs_ssend(v->c, mv_peer(v, peer), mv_buf(v, b), mv_off(v, b, off), len);
}
static inline void mv_recv(pcs_mv_t *v, int peer, int b, uint64_t off, uint64_t len)
{
    v->c->tag = v->tag;
    pcs_recv(v->c, mv_peer(v, peer), mv_buf(v, b), mv_off(v, b, off), len);
}
static inline void mv_isend(pcs_mv_t *v, unsigned req, int peer, int b, uint64_t off,
                            uint64_t len)
{
    v->c->tag = v->tag;
    pcs_isend(v->c, req, mv_peer(v, peer), mv_buf(v, b), mv_off(v, b, off), len);
}
static inline void mv_irecv(pcs_mv_t *v, unsigned req, int peer, int b, uint64_t off,
                            uint64_t len)
{
    v->c->tag = v->tag;
    pcs_irecv(v->c, req, mv_peer(v, peer), mv_buf(v, b), mv_off(v, b, off), len);
}
/* a derived-datatype message: its pieces follow with mv_piece */
static inline void mv_xfer(pcs_mv_t *v, pcs_opkind_t k, unsigned req, int peer, uint64_t len)
{
    v->c->tag = v->tag;
    pcs_xfer(v->c, k, req, mv_peer(v, peer), len, 0);
}
static inline void mv_piece(pcs_mv_t *v, int b, uint64_t off, uint64_t len)
{
    pcs_piece(v->c, mv_buf(v, b), mv_off(v, b, off), len);
}
static inline void mv_copy(pcs_mv_t *v, int sb, uint64_t so, int db, uint64_t dof, uint64_t len)
{
    pcs_copy(v->c, mv_buf(v, sb), mv_off(v, sb, so), mv_buf(v, db), mv_off(v, db, dof), len);
}
/* MPIR_Reduce_local(in, inout) */
static inline void mv_reduce(pcs_mv_t *v, int ib, uint64_t io, int ob, uint64_t oo, uint64_t len)
{
    pcs_reduce(v->c, mv_buf(v, ib), mv_off(v, ib, io), mv_buf(v, ob), mv_off(v, ob, oo), len);
}
static inline void mv_need(pcs_mv_t *v, int b, uint64_t n)
{
    pcs_need_tmp(v->c, mv_buf(v, b), mv_off(v, b, n));
}
/* MPIC_Sendrecv (helper_fns.c): Irecv, Isend, wait send, wait receive */
static inline void mv_sendrecv(pcs_mv_t *v, int dst, int sb, uint64_t so, uint64_t sl, int src,
                               int rb, uint64_t ro, uint64_t rl)
{
    mv_irecv(v, 0, src, rb, ro, rl);
    mv_isend(v, 1, dst, sb, so, sl);
    pcs_wait(v->c, 1);
    pcs_wait(v->c, 0);
}

/* ---- the MPIR algorithms, by family (a: the call on v's communicator) ---- */
/* coll_mpich_algs.c: the data movements */
pcs_err_t pcs_mpich_bcast(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg);
void pcs_mpich_gather(pcs_mv_t *v, const pcs_args_t *a);  /* binomial */
void pcs_mpich_scatter(pcs_mv_t *v, const pcs_args_t *a); /* binomial */
void pcs_mpich_allgather(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg);
void pcs_mpich_allgatherv(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg);
/* alltoall, alltoallv and alltoallw (byte counts) */
void pcs_mpich_alltoall(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg, int throttle);
void pcs_mpich_linearv(pcs_mv_t *v, const pcs_args_t *a, bool scatter); /* gatherv, scatterv */
/* elements per message of the pipelined allgatherv ring (the sched ring cuts differently) */
int64_t pcs_mpich_ring_chunk(const pcs_args_t *a, int size, bool sched);
/* coll_mpich_red.c: the reductions */
void pcs_mpich_reduce(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg);
void pcs_mpich_allreduce(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg);
void pcs_mpich_reduce_scatter(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg); /* and _block */
void pcs_mpich_scan(pcs_mv_t *v, const pcs_args_t *a, bool ex);                 /* and exscan */

/* ---- selection (coll_mpich40.c) ---- */
/* The communicator's node structure (commutil.c: MPIR_Comm_create_subcomms). */
typedef struct pcs_topo {
    int P, rank, nnodes;
    int *nidx;    /* node of each rank, numbered by first appearance */
    int *nsize;   /* ranks per node */
    int *leader;  /* lowest rank of each node: node_roots_comm rank k */
    int *members; /* my node's ranks in order: node_comm */
    int nlocal, lrank;
    bool parent;      /* has node_comm / node_roots_comm (hierarchy_kind PARENT) */
    bool consecutive; /* is_node_consecutive */
    int *mem;
} pcs_topo_t;
pcs_err_t pcs_topo_init(pcs_topo_t *t, const pcs_args_t *a, const pcs_mpich_comm_t *mc);
void pcs_topo_free(pcs_topo_t *t);

/* What the MPIR layer's rules see of the hierarchy. */
typedef struct pcs_hier {
    bool parent, consecutive;
} pcs_hier_t;
/* MPIR_<Coll>_impl: a forced CVAR (its restrictions, silent fallback) or the MPIR JSON;
 * PCS_NALGS with out->lib_alg > 0: "nb" (pcs_mpich_blocking_nb then). */
pcs_alg_t pcs_mpich_mpir_select(const pcs_args_t *a, pcs_hier_t h, bool user_op,
                                const pcs_mpich_env_t *env, pcs_choice_t *out);
/* MPIR_<Coll>_allcomm_nb: the nonblocking path's choice on the same communicator. */
pcs_err_t pcs_mpich_blocking_nb(const pcs_args_t *a, pcs_hier_t h, bool user_op,
                                const pcs_mpich_env_t *env, pcs_choice_t *out);
/* MPIR_I<coll>_intra_sched_auto (the sub-steps of the sched_smp and sched_naive ones). */
pcs_alg_t pcs_mpich_nb_auto(const pcs_args_t *a, pcs_hier_t h, bool user_op);

/* ---- running an MPIR algorithm (coll_mpich_run.c) ---- */
/* Run the MPIR algorithm `alg` for the call sub (ranks of v's communicator) through view v.
 * Returns the schedule's error; *nsteps gets the steps it spans (the same at every rank). */
pcs_err_t pcs_mpich_run(pcs_mv_t *v, const pcs_args_t *sub, pcs_alg_t alg, int throttle,
                        int64_t *nsteps);
/* The steps an algorithm spans for a call, without generating it (aligns phases across
 * nodes of different sizes). */
int64_t pcs_mpich_steps(const pcs_args_t *sub, pcs_alg_t alg, int throttle);

/* The MPIR_I<coll>_intra_sched_* algorithms send what the blocking algorithm of the same
 * name sends, in the same order, only under the schedule's tag (checked source against
 * source for each pair): the blocking id for a sched id, the blocking smp composition for
 * the sched_smp ones (their restrictions are the same), PCS_NALGS for an id that is not
 * a sched algorithm. */
pcs_alg_t pcs_mpich_sched_base(pcs_alg_t alg);

#endif
