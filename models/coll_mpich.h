/* coll_mpich.h: what coll_mpich40.c (selection, ch4 compositions) and coll_mpich_algs.c (the
 * MPIR algorithms) share; internal to models/. MPICH runs algorithms on sub-communicators
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
