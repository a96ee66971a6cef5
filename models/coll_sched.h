/* coll_sched.h: per-rank schedules of MPI collectives (the point-to-point messages and local
 * data operations a library performs inside one collective call), the selection rules that
 * choose the algorithm, and the generators that write the schedules.
 *
 * Pure C, libc only, no MPI and no I/O: used by the shim (PHASOR_STEPS=measure executes a
 * schedule with PMPI point-to-point calls) and offline (`phasor steps`, `phasor predict`).
 * The representation and the Open MPI 4.1 rules are described in doc/collectives.md.
 *
 * Typical use, one rank r of a communicator of size P:
 *     pcs_args_t a = { .coll = PCS_ALLREDUCE, .size = P, .rank = r, .type_size = 8,
 *                      .count = n, .commutative = true };
 *     pcs_choice_t c;
 *     pcs_sched_t s = PCS_SCHED_INIT;            // reuse it across calls: keeps its capacity
 *     if (pcs_ompi41_select(&a, NULL, &c) == PCS_OK && pcs_generate(&a, &c, &s) == PCS_OK)
 *         for (size_t i = 0; i < s.n; i++) ...s.ops[i]...
 *     pcs_sched_free(&s);
 *
 * Cost: a generator is O(number of operations it writes) in time, plus O(P) for the
 * tree-building ones, and writes only into the caller's growable array (amortised doubling;
 * the one other allocation is MPICH's node table, O(P) ints per call). Per rank and call that is O(log P) operations for the tree and
 * recursive algorithms, O(P) for ring, linear, pairwise and the roots of linear algorithms;
 * composite algorithms (reduce then bcast, ...) are the sum of their parts. */
#ifndef COLL_SCHED_H
#define COLL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- errors ---- */
typedef enum pcs_err {
    PCS_OK = 0,
    PCS_E_NOMEM = 1,       /* the operation array could not grow */
    PCS_E_ARG = 2,         /* invalid arguments (rank outside the communicator, ...) */
    PCS_E_UNSUPPORTED = 3, /* algorithm not in the catalogue (yet) */
} pcs_err_t;
const char *pcs_strerror(pcs_err_t e);

/* ---- collectives ---- */
#define PCS_COLLS(X)                                                                        \
    X(BCAST, "bcast") X(REDUCE, "reduce") X(ALLREDUCE, "allreduce")                         \
    X(ALLGATHER, "allgather") X(ALLGATHERV, "allgatherv") X(ALLTOALL, "alltoall")           \
    X(ALLTOALLV, "alltoallv") X(BARRIER, "barrier") X(GATHER, "gather")                     \
    X(SCATTER, "scatter") X(REDUCE_SCATTER, "reduce_scatter")                               \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block") X(SCAN, "scan") X(EXSCAN, "exscan")     \
    X(GATHERV, "gatherv") X(SCATTERV, "scatterv") X(ALLTOALLW, "alltoallw")
typedef enum pcs_coll {
#define PCS_X_(id, name) PCS_##id,
    PCS_COLLS(PCS_X_)
#undef PCS_X_
    PCS_NCOLLS
} pcs_coll_t;
const char *pcs_coll_name(pcs_coll_t c); /* "allreduce"; "?" if out of range */

/* ---- algorithms (library-independent catalogue; names are printed by `phasor steps`) ----
 * X(id, collective, name). The names are an output format: never rename, only add. */
#define PCS_ALGS(X)                                                                         \
    X(NONE, NCOLLS, "none") /* no messages: size 1, count 0, early return */                \
    X(BCAST_LINEAR, BCAST, "linear")                                                        \
    X(BCAST_CHAIN, BCAST, "chain")         /* generic tree bcast on chains (fanout 1: pipeline) */ \
    X(BCAST_SPLIT_BINTREE, BCAST, "split_bintree")                                         \
    X(BCAST_BINTREE, BCAST, "binary_tree")                                                  \
    X(BCAST_BINOMIAL, BCAST, "binomial")                                                    \
    X(BCAST_KNOMIAL, BCAST, "knomial")                                                      \
    X(BCAST_SCATTER_ALLGATHER, BCAST, "scatter_allgather")                                  \
    X(BCAST_SCATTER_ALLGATHER_RING, BCAST, "scatter_allgather_ring")                        \
    X(REDUCE_LINEAR, REDUCE, "linear")                                                      \
    X(REDUCE_CHAIN, REDUCE, "chain")                                                        \
    X(REDUCE_BINARY, REDUCE, "binary")                                                      \
    X(REDUCE_BINOMIAL, REDUCE, "binomial")                                                  \
    X(REDUCE_IN_ORDER_BINARY, REDUCE, "in_order_binary")                                    \
    X(REDUCE_REDSCAT_GATHER, REDUCE, "rabenseifner")                                        \
    X(ALLREDUCE_LINEAR, ALLREDUCE, "linear")                                                \
    X(ALLREDUCE_NONOVERLAPPING, ALLREDUCE, "nonoverlapping")                                \
    X(ALLREDUCE_RECURSIVE_DOUBLING, ALLREDUCE, "recursive_doubling")                        \
    X(ALLREDUCE_RING, ALLREDUCE, "ring")                                                    \
    X(ALLREDUCE_RABENSEIFNER, ALLREDUCE, "rabenseifner")                                    \
    X(ALLGATHER_LINEAR, ALLGATHER, "linear")                                                \
    X(ALLGATHER_BRUCK, ALLGATHER, "bruck")                                                  \
    X(ALLGATHER_RECURSIVE_DOUBLING, ALLGATHER, "recursive_doubling")                        \
    X(ALLGATHER_RING, ALLGATHER, "ring")                                                    \
    X(ALLGATHER_NEIGHBOR, ALLGATHER, "neighbor_exchange")                                   \
    X(ALLGATHER_TWO_PROCS, ALLGATHER, "two_procs")                                          \
    X(ALLGATHERV_DEFAULT, ALLGATHERV, "gatherv_bcast")                                      \
    X(ALLGATHERV_BRUCK, ALLGATHERV, "bruck")                                                \
    X(ALLGATHERV_RING, ALLGATHERV, "ring")                                                  \
    X(ALLGATHERV_NEIGHBOR, ALLGATHERV, "neighbor_exchange")                                 \
    X(ALLGATHERV_TWO_PROCS, ALLGATHERV, "two_procs")                                        \
    X(ALLTOALL_LINEAR, ALLTOALL, "linear")                                                  \
    X(ALLTOALL_PAIRWISE, ALLTOALL, "pairwise")                                              \
    X(ALLTOALL_BRUCK, ALLTOALL, "modified_bruck")                                           \
    X(ALLTOALL_LINEAR_SYNC, ALLTOALL, "linear_sync")                                        \
    X(ALLTOALL_TWO_PROCS, ALLTOALL, "two_procs")                                            \
    X(ALLTOALL_INPLACE, ALLTOALL, "inplace")                                                \
    X(ALLTOALLV_LINEAR, ALLTOALLV, "linear")                                                \
    X(ALLTOALLV_PAIRWISE, ALLTOALLV, "pairwise")                                            \
    X(ALLTOALLV_INPLACE, ALLTOALLV, "inplace")                                              \
    X(BARRIER_LINEAR, BARRIER, "linear")                                                    \
    X(BARRIER_DOUBLE_RING, BARRIER, "double_ring")                                          \
    X(BARRIER_RECURSIVE_DOUBLING, BARRIER, "recursive_doubling")                            \
    X(BARRIER_BRUCK, BARRIER, "bruck")                                                      \
    X(BARRIER_TWO_PROCS, BARRIER, "two_procs")                                              \
    X(BARRIER_TREE, BARRIER, "tree")                                                        \
    X(GATHER_LINEAR, GATHER, "linear")                                                      \
    X(GATHER_BINOMIAL, GATHER, "binomial")                                                  \
    X(GATHER_LINEAR_SYNC, GATHER, "linear_sync")                                            \
    X(SCATTER_LINEAR, SCATTER, "linear")                                                    \
    X(SCATTER_BINOMIAL, SCATTER, "binomial")                                                \
    X(SCATTER_LINEAR_NB, SCATTER, "linear_nb")                                              \
    X(REDUCE_SCATTER_NONOVERLAPPING, REDUCE_SCATTER, "reduce_scatterv")                     \
    X(REDUCE_SCATTER_RECURSIVE_HALVING, REDUCE_SCATTER, "recursive_halving")                \
    X(REDUCE_SCATTER_RING, REDUCE_SCATTER, "ring")                                          \
    X(REDUCE_SCATTER_BUTTERFLY, REDUCE_SCATTER, "butterfly")                                \
    X(RSB_LINEAR, REDUCE_SCATTER_BLOCK, "reduce_scatter")                                   \
    X(RSB_RECURSIVE_DOUBLING, REDUCE_SCATTER_BLOCK, "recursive_doubling")                   \
    X(RSB_RECURSIVE_HALVING, REDUCE_SCATTER_BLOCK, "recursive_halving")                     \
    X(RSB_BUTTERFLY, REDUCE_SCATTER_BLOCK, "butterfly")                                     \
    X(SCAN_LINEAR, SCAN, "linear")                                                          \
    X(SCAN_RECURSIVE_DOUBLING, SCAN, "recursive_doubling")                                  \
    X(EXSCAN_LINEAR, EXSCAN, "linear")                                                      \
    X(EXSCAN_RECURSIVE_DOUBLING, EXSCAN, "recursive_doubling")                              \
    X(GATHERV_LINEAR, GATHERV, "linear")                                                    \
    X(SCATTERV_LINEAR, SCATTERV, "linear")                                                  \
    X(ALLTOALLW_LINEAR, ALLTOALLW, "linear")    /* coll/basic (persistent requests) */      \
    X(ALLTOALLW_INPLACE, ALLTOALLW, "inplace")                                              \
    /* Open MPI 4.1 coll/libnbc (coll_ompi_nbc.c): the MPI_I* collectives, by the names of   \
     * libnbc's coll_libnbc_*_algorithm values where it has them */                         \
    X(NBC_BARRIER_DISSEMINATION, BARRIER, "dissemination")                                  \
    X(NBC_BCAST_LINEAR, BCAST, "linear")                                                    \
    X(NBC_BCAST_BINOMIAL, BCAST, "binomial")                                                \
    X(NBC_BCAST_CHAIN, BCAST, "chain")                                                      \
    X(NBC_BCAST_KNOMIAL, BCAST, "knomial")                                                  \
    X(NBC_REDUCE_BINOMIAL, REDUCE, "binomial")                                              \
    X(NBC_REDUCE_CHAIN, REDUCE, "chain")                                                    \
    X(NBC_REDUCE_REDSCAT_GATHER, REDUCE, "rabenseifner")                                    \
    X(NBC_ALLREDUCE_RING, ALLREDUCE, "ring")                                                \
    X(NBC_ALLREDUCE_BINOMIAL, ALLREDUCE, "binomial")                                        \
    X(NBC_ALLREDUCE_REDSCAT_ALLGATHER, ALLREDUCE, "rabenseifner")                           \
    X(NBC_ALLREDUCE_RECURSIVE_DOUBLING, ALLREDUCE, "recursive_doubling")                    \
    X(NBC_ALLGATHER_LINEAR, ALLGATHER, "linear")                                            \
    X(NBC_ALLGATHER_RECURSIVE_DOUBLING, ALLGATHER, "recursive_doubling")                    \
    X(NBC_ALLGATHERV_LINEAR, ALLGATHERV, "linear")                                          \
    X(NBC_ALLTOALL_LINEAR, ALLTOALL, "linear")                                              \
    X(NBC_ALLTOALL_INPLACE, ALLTOALL, "inplace")                                            \
    X(NBC_ALLTOALLV_LINEAR, ALLTOALLV, "linear")                                            \
    X(NBC_ALLTOALLV_INPLACE, ALLTOALLV, "inplace")                                          \
    X(NBC_ALLTOALLW_LINEAR, ALLTOALLW, "linear")                                            \
    X(NBC_ALLTOALLW_INPLACE, ALLTOALLW, "inplace")                                          \
    X(NBC_GATHER_LINEAR, GATHER, "linear")                                                  \
    X(NBC_GATHERV_LINEAR, GATHERV, "linear")                                                \
    X(NBC_SCATTER_LINEAR, SCATTER, "linear")                                                \
    X(NBC_SCATTERV_LINEAR, SCATTERV, "linear")                                              \
    X(NBC_REDUCE_SCATTER_BINOMIAL_LINEAR, REDUCE_SCATTER, "binomial_linear")                \
    X(NBC_RSB_BINOMIAL_LINEAR, REDUCE_SCATTER_BLOCK, "binomial_linear")                     \
    X(NBC_SCAN_LINEAR, SCAN, "linear")                                                      \
    X(NBC_SCAN_RECURSIVE_DOUBLING, SCAN, "recursive_doubling")                              \
    X(NBC_EXSCAN_LINEAR, EXSCAN, "linear")                                                  \
    X(NBC_EXSCAN_RECURSIVE_DOUBLING, EXSCAN, "recursive_doubling")                          \
    /* MPICH 4.0 (coll_mpich_algs.c, coll_mpich40.c): MPIR algorithms by their MPICH names, \
     * the node-aware ones (smp, ch4 compositions) as what they compose */                  \
    X(MPICH_BCAST_BINOMIAL, BCAST, "binomial")                                              \
    X(MPICH_BCAST_SCATTER_RD_ALLGATHER, BCAST, "scatter_recursive_doubling_allgather")      \
    X(MPICH_BCAST_SCATTER_RING_ALLGATHER, BCAST, "scatter_ring_allgather")                  \
    X(MPICH_BCAST_SMP, BCAST, "smp")                                                        \
    X(MPICH_BCAST_CH4_ALPHA, BCAST, "ch4_alpha")                                            \
    X(MPICH_BCAST_CH4_BETA, BCAST, "ch4_beta")                                              \
    X(MPICH_REDUCE_BINOMIAL, REDUCE, "binomial")                                            \
    X(MPICH_REDUCE_RSG, REDUCE, "reduce_scatter_gather")                                    \
    X(MPICH_REDUCE_SMP, REDUCE, "smp")                                                      \
    X(MPICH_REDUCE_CH4_ALPHA, REDUCE, "ch4_alpha")                                          \
    X(MPICH_REDUCE_CH4_BETA, REDUCE, "ch4_beta")                                            \
    X(MPICH_ALLREDUCE_RD, ALLREDUCE, "recursive_doubling")                                  \
    X(MPICH_ALLREDUCE_RSA, ALLREDUCE, "reduce_scatter_allgather")                           \
    X(MPICH_ALLREDUCE_SMP, ALLREDUCE, "smp")                                                \
    X(MPICH_ALLREDUCE_CH4_ALPHA, ALLREDUCE, "ch4_alpha")                                    \
    X(MPICH_ALLGATHER_RD, ALLGATHER, "recursive_doubling")                                  \
    X(MPICH_ALLGATHER_BRUCKS, ALLGATHER, "brucks")                                          \
    X(MPICH_ALLGATHER_RING, ALLGATHER, "ring")                                              \
    X(MPICH_ALLGATHERV_RD, ALLGATHERV, "recursive_doubling")                                \
    X(MPICH_ALLGATHERV_BRUCKS, ALLGATHERV, "brucks")                                        \
    X(MPICH_ALLGATHERV_RING, ALLGATHERV, "ring")                                            \
    X(MPICH_ALLTOALL_SCATTERED, ALLTOALL, "scattered")                                      \
    X(MPICH_ALLTOALL_PAIRWISE, ALLTOALL, "pairwise")                                        \
    X(MPICH_ALLTOALL_BRUCKS, ALLTOALL, "brucks")                                            \
    X(MPICH_ALLTOALL_SENDRECV_REPLACE, ALLTOALL, "pairwise_sendrecv_replace")               \
    X(MPICH_ALLTOALLV_SCATTERED, ALLTOALLV, "scattered")                                    \
    X(MPICH_ALLTOALLV_SENDRECV_REPLACE, ALLTOALLV, "pairwise_sendrecv_replace")             \
    X(MPICH_BARRIER_DISSEMINATION, BARRIER, "dissemination")                                \
    X(MPICH_BARRIER_SMP, BARRIER, "smp")                                                    \
    X(MPICH_BARRIER_CH4_ALPHA, BARRIER, "ch4_alpha")                                        \
    X(MPICH_GATHER_BINOMIAL, GATHER, "binomial")                                            \
    X(MPICH_SCATTER_BINOMIAL, SCATTER, "binomial")                                          \
    X(MPICH_RS_NONCOMMUTATIVE, REDUCE_SCATTER, "noncommutative")                            \
    X(MPICH_RS_PAIRWISE, REDUCE_SCATTER, "pairwise")                                        \
    X(MPICH_RS_RECURSIVE_DOUBLING, REDUCE_SCATTER, "recursive_doubling")                    \
    X(MPICH_RS_RECURSIVE_HALVING, REDUCE_SCATTER, "recursive_halving")                      \
    X(MPICH_RSB_NONCOMMUTATIVE, REDUCE_SCATTER_BLOCK, "noncommutative")                     \
    X(MPICH_RSB_PAIRWISE, REDUCE_SCATTER_BLOCK, "pairwise")                                 \
    X(MPICH_RSB_RECURSIVE_DOUBLING, REDUCE_SCATTER_BLOCK, "recursive_doubling")             \
    X(MPICH_RSB_RECURSIVE_HALVING, REDUCE_SCATTER_BLOCK, "recursive_halving")               \
    X(MPICH_SCAN_RD, SCAN, "recursive_doubling")                                            \
    X(MPICH_SCAN_SMP, SCAN, "smp")                                                          \
    X(MPICH_SCAN_CH4_ALPHA, SCAN, "ch4_alpha")                                              \
    X(MPICH_EXSCAN_RD, EXSCAN, "recursive_doubling")                                        \
    X(MPICH_GATHERV_LINEAR, GATHERV, "linear")                                              \
    X(MPICH_SCATTERV_LINEAR, SCATTERV, "linear")                                          \
    X(ALLREDUCE_SEGMENTED_RING, ALLREDUCE, "segmented_ring")                              \
    /* MPICH 4.0 nonblocking (MPIR_I<coll>_intra_sched_*) and blocking Alltoallw, by the   \
     * values of MPIR_CVAR_I<COLL>_INTRA_ALGORITHM */                                      \
    X(MPICH_IBARRIER_RD, BARRIER, "sched_recursive_doubling")                               \
    X(MPICH_IBCAST_BINOMIAL, BCAST, "sched_binomial")                                       \
    X(MPICH_IBCAST_SCATTER_RD_ALLGATHER, BCAST, "sched_scatter_recursive_doubling_allgather") \
    X(MPICH_IBCAST_SCATTER_RING_ALLGATHER, BCAST, "sched_scatter_ring_allgather")           \
    X(MPICH_IBCAST_SMP, BCAST, "sched_smp")                                                 \
    X(MPICH_IREDUCE_BINOMIAL, REDUCE, "sched_binomial")                                     \
    X(MPICH_IREDUCE_RSG, REDUCE, "sched_reduce_scatter_gather")                             \
    X(MPICH_IREDUCE_SMP, REDUCE, "sched_smp")                                               \
    X(MPICH_IALLREDUCE_RD, ALLREDUCE, "sched_recursive_doubling")                           \
    X(MPICH_IALLREDUCE_RSA, ALLREDUCE, "sched_reduce_scatter_allgather")                    \
    X(MPICH_IALLGATHER_RD, ALLGATHER, "sched_recursive_doubling")                           \
    X(MPICH_IALLGATHER_BRUCKS, ALLGATHER, "sched_brucks")                                   \
    X(MPICH_IALLGATHER_RING, ALLGATHER, "sched_ring")                                       \
    X(MPICH_IALLGATHERV_RD, ALLGATHERV, "sched_recursive_doubling")                         \
    X(MPICH_IALLGATHERV_BRUCKS, ALLGATHERV, "sched_brucks")                                 \
    X(MPICH_IALLGATHERV_RING, ALLGATHERV, "sched_ring")                                     \
    X(MPICH_IALLTOALL_PERMUTED_SENDRECV, ALLTOALL, "sched_permuted_sendrecv")               \
    X(MPICH_IALLTOALL_PAIRWISE, ALLTOALL, "sched_pairwise")                                 \
    X(MPICH_IALLTOALL_BRUCKS, ALLTOALL, "sched_brucks")                                     \
    X(MPICH_IALLTOALL_INPLACE, ALLTOALL, "sched_inplace")                                   \
    X(MPICH_IALLTOALLV_BLOCKED, ALLTOALLV, "sched_blocked")                                 \
    X(MPICH_IALLTOALLV_INPLACE, ALLTOALLV, "sched_inplace")                                 \
    X(MPICH_IALLTOALLW_BLOCKED, ALLTOALLW, "sched_blocked")                                 \
    X(MPICH_IALLTOALLW_INPLACE, ALLTOALLW, "sched_inplace")                                 \
    X(MPICH_IGATHER_BINOMIAL, GATHER, "sched_binomial")                                     \
    X(MPICH_ISCATTER_BINOMIAL, SCATTER, "sched_binomial")                                   \
    X(MPICH_IGATHERV_LINEAR, GATHERV, "sched_linear")                                       \
    X(MPICH_ISCATTERV_LINEAR, SCATTERV, "sched_linear")                                     \
    X(MPICH_IRS_NONCOMMUTATIVE, REDUCE_SCATTER, "sched_noncommutative")                     \
    X(MPICH_IRS_PAIRWISE, REDUCE_SCATTER, "sched_pairwise")                                 \
    X(MPICH_IRS_RECURSIVE_DOUBLING, REDUCE_SCATTER, "sched_recursive_doubling")             \
    X(MPICH_IRS_RECURSIVE_HALVING, REDUCE_SCATTER, "sched_recursive_halving")               \
    X(MPICH_IRSB_NONCOMMUTATIVE, REDUCE_SCATTER_BLOCK, "sched_noncommutative")              \
    X(MPICH_IRSB_PAIRWISE, REDUCE_SCATTER_BLOCK, "sched_pairwise")                          \
    X(MPICH_IRSB_RECURSIVE_DOUBLING, REDUCE_SCATTER_BLOCK, "sched_recursive_doubling")      \
    X(MPICH_IRSB_RECURSIVE_HALVING, REDUCE_SCATTER_BLOCK, "sched_recursive_halving")        \
    X(MPICH_ISCAN_RD, SCAN, "sched_recursive_doubling")                                     \
    X(MPICH_ISCAN_SMP, SCAN, "sched_smp")                                                   \
    X(MPICH_IEXSCAN_RD, EXSCAN, "sched_recursive_doubling")                                 \
    X(MPICH_ALLTOALLW_SCATTERED, ALLTOALLW, "scattered")                                    \
    X(MPICH_ALLTOALLW_SENDRECV_REPLACE, ALLTOALLW, "pairwise_sendrecv_replace")             \
    X(MPICH_IALLREDUCE_SMP, ALLREDUCE, "sched_smp")                                         \
    X(MPICH_IALLREDUCE_NAIVE, ALLREDUCE, "sched_naive")
typedef enum pcs_alg {
#define PCS_X_(id, coll, name) PCS_ALG_##id,
    PCS_ALGS(PCS_X_)
#undef PCS_X_
    PCS_NALGS
} pcs_alg_t;
const char *pcs_alg_name(pcs_alg_t a);   /* "ring"; "?" if out of range */
pcs_coll_t pcs_alg_coll(pcs_alg_t a);    /* the collective it implements (PCS_NCOLLS: none) */

/* ---- the arguments of one rank's call ----
 * Counts and displacements are in elements of one datatype of type_size bytes (the packed
 * size: what the library sends); sender and receiver types have the same signature, so one
 * size serves both. Arrays have `size` entries and are read only where the collective reads
 * them (gatherv: counts/displs at the root only). */
typedef struct pcs_args {
    pcs_coll_t coll;
    int size, rank, root; /* communicator ranks; root only for rooted collectives */
    uint64_t type_size;   /* bytes per element; 0 is allowed (moves nothing) */
    /* bcast/reduce/allreduce/scan/exscan: the vector; allgather/alltoall/gather/scatter: the
     * per-rank block (the receive count, as MPI equal send and receive signatures make it);
     * reduce_scatter_block: the per-rank result; gatherv/scatterv at a non-root and
     * allgatherv: ignored (use counts). */
    int64_t count;
    const int64_t *counts, *displs;   /* v-variants (receive side of allgatherv/gatherv/
                                       * alltoallv/w, send side of scatterv), reduce_scatter's
                                       * recvcounts; displs NULL = packed */
    const int64_t *scounts, *sdispls; /* alltoallv/w send side; sdispls NULL = packed.
                                       * alltoallw: type_size is 1, counts are bytes (one
                                       * datatype per peer, so only bytes are common) */
    int64_t own_count; /* gatherv: this rank's send count; scatterv: this rank's recv count */
    bool in_place;     /* MPI_IN_PLACE where the collective allows it (root only for rooted) */
    bool commutative;  /* the op (reductions) */
    bool nonblocking;  /* the MPI_I* form: the library's nonblocking path chooses (Open MPI:
                        * coll/libnbc, MPICH: the MPIR sched_ algorithms) */
} pcs_args_t;

/* ---- the schedule ----
 * Buffers: the user's send and receive buffers (bcast's buffer is PCS_BUF_RECV; with
 * in_place the data is where MPI says, never in PCS_BUF_SEND) and three scratch buffers whose
 * needed sizes the generator records. Offsets and lengths are bytes. */
enum { PCS_BUF_SEND = 0, PCS_BUF_RECV = 1, PCS_BUF_TMP = 2, PCS_BUF_TMP2 = 3, PCS_BUF_TMP3 = 4,
       PCS_NBUFS = 5,
       /* a transfer whose a.buf is PCS_BUF_IOV carries len bytes gathered from (or scattered
        * to) the PCS_OP_PIECE operations that immediately follow it, in order: one message
        * of a derived datatype (Open MPI's indexed types in bruck, neighbor exchange, ...) */
       PCS_BUF_IOV = 255 };

typedef enum pcs_opkind {
    PCS_OP_SEND = 0,  /* blocking send of region a to peer */
    PCS_OP_RECV = 1,  /* blocking receive from peer (PCS_ANY_SOURCE allowed) into region a */
    PCS_OP_ISEND = 2, /* nonblocking send; completes at the PCS_OP_WAIT naming the same req */
    PCS_OP_IRECV = 3, /* nonblocking receive; region a is valid only after its wait */
    PCS_OP_WAIT = 4,  /* wait for request slot req */
    PCS_OP_COPY = 5,  /* local: region b := region a (len bytes) */
    PCS_OP_PIECE = 7, /* one piece (a, len) of the preceding PCS_BUF_IOV transfer */
    PCS_OP_REDUCE = 6 /* local: region b := a (op) b, elementwise, len bytes; the operand
                       * order is MPI_Reduce_local's (a is "in", b is "inout") and is what
                       * makes non-commutative ops and floating point bit-identical */
} pcs_opkind_t;

#define PCS_ANY_SOURCE (-1)

enum pcs_opflags {
    PCS_F_SYNC = 1u << 0,       /* synchronous-mode send (MPI_Ssend semantics) */
    PCS_F_PERSISTENT = 1u << 1, /* started persistent request: Open MPI's pml monitoring
                                 * counts it as external traffic (tag forced to 1) */
};

typedef struct pcs_region {
    uint8_t buf;  /* PCS_BUF_* */
    uint64_t off; /* byte offset into buf */
} pcs_region_t;

typedef struct pcs_op {
    uint8_t kind;    /* pcs_opkind_t */
    uint8_t flags;   /* enum pcs_opflags */
    uint16_t req;    /* request slot of ISEND/IRECV/WAIT (reused after its wait) */
    uint32_t step;   /* round, from 0; global: a message has the same step at its sender
                      * and its receiver (a receive posted early carries its message's step) */
    int32_t peer;    /* communicator rank (transfers only) */
    int32_t tag;     /* the library's tag (Open MPI: -10..-26; libnbc: -27, see doc) */
    uint64_t len;    /* bytes */
    pcs_region_t a;  /* transfer: the data; copy/reduce: the source ("in") */
    pcs_region_t b;  /* copy/reduce: the destination ("inout") */
} pcs_op_t;

typedef struct pcs_sched {
    pcs_op_t *ops; /* grown with VEC_GROW (util/vec.h); kept across pcs_sched_reset */
    size_t n, cap;
    uint64_t tmp_bytes[3]; /* bytes PCS_BUF_TMP, _TMP2 and _TMP3 must hold */
    uint32_t nsteps;       /* steps used (max step + 1; 0 if no operation) */
    uint16_t nreqs;        /* request slots used */
    pcs_alg_t alg;         /* the algorithm that produced it (after fallbacks) */
    pcs_err_t err;         /* sticky: the first error while building */
    /* builder state */
    uint32_t cur_step;
} pcs_sched_t;
#define PCS_SCHED_INIT {0}

void pcs_sched_reset(pcs_sched_t *s); /* empty it, keep the capacity */
void pcs_sched_free(pcs_sched_t *s);

/* ---- selection ---- */
typedef enum pcs_component {
    PCS_COMP_NONE = 0,  /* nothing runs (size 1, early return in the MPI binding) */
    PCS_COMP_TUNED = 1, /* Open MPI coll/tuned */
    PCS_COMP_BASIC = 2, /* Open MPI coll/basic */
    PCS_COMP_SELF = 3,  /* Open MPI coll/self (size 1) */
    PCS_COMP_MPICH_CH4 = 4,  /* MPICH: a ch4 composition runs (lib_alg 1 = alpha, 2 = beta) */
    PCS_COMP_MPICH_MPIR = 5, /* MPICH: an MPIR algorithm (lib_alg: its CVAR value) */
    PCS_COMP_LIBNBC = 16,    /* Open MPI coll/libnbc (lib_alg: its coll_libnbc_*_algorithm
                              * value, 1 where it has no such variable) */
} pcs_component_t;

typedef struct pcs_choice {
    pcs_component_t component;
    int lib_alg;       /* the library's own id (tuned: 1.. as in its MCA enum; 0 = none) */
    pcs_alg_t alg;     /* what actually runs, after the fallbacks inside the algorithm */
    uint64_t segsize;  /* bytes; 0 = unsegmented */
    int fanout;        /* chain fanout (bcast/reduce chain), 0 where unused */
    int radix;         /* knomial radix */
    int max_requests;  /* alltoall linear_sync, reduce leaves, scatter linear_nb */
    int64_t dsize;     /* the message size the decision compared (bytes; -1 if none) */
    int rule_line;     /* line of coll_tuned_decision_fixed.c v4.1.4 that chose, 0 if none */
} pcs_choice_t;

/* The OMPI_MCA_coll_tuned_* variables recorded at run time. Zero-initialised = defaults. */
typedef struct pcs_ompi_forced {
    bool use_dynamic_rules;              /* coll_tuned_use_dynamic_rules */
    int algorithm[PCS_NCOLLS];           /* coll_tuned_<coll>_algorithm (0 = fixed rules) */
    int64_t segsize[PCS_NCOLLS];         /* _algorithm_segmentsize */
    int chain_fanout[PCS_NCOLLS];        /* _algorithm_chain_fanout (0 = its default, 4) */
    int max_requests[PCS_NCOLLS];        /* _algorithm_max_requests */
    int knomial_radix;                   /* bcast_algorithm_knomial_radix (0 = 4) */
    /* OMPI_MCA_coll_libnbc_*: the nonblocking collectives */
    int nbc_algorithm[PCS_NCOLLS];       /* coll_libnbc_i<coll>_algorithm (0 = its rules) */
    int nbc_knomial_radix;               /* ibcast_knomial_radix (0 = 4) */
    bool nbc_ibcast_dt_decision;         /* ibcast_skip_dt_decision=false */
} pcs_ompi_forced_t;

/* One OMPI_MCA_coll_tuned_* variable (numeric values only; Open MPI also takes names) or
 * OMPI_MCA_coll_libnbc_* variable (numbers or the enum's names) into f: 1 if it is one of
 * these, 0 if not. Shared by the shim (its environment) and the
 * offline tools (the environment a rank recorded). */
int pcs_ompi_forced_set(pcs_ompi_forced_t *f, const char *name, const char *value);

/* Which rules describe a library, from MPI_Get_library_version's string. */
typedef enum pcs_library {
    PCS_LIB_UNKNOWN = 0,
    PCS_LIB_OMPI41 = 1,  /* "Open MPI v4.1.x" */
    PCS_LIB_MPICH40 = 2, /* "MPICH Version: 4.0.x" */
} pcs_library_t;
pcs_library_t pcs_library_of(const char *version_string);

/* Open MPI's ob1 sends a message eagerly when it fits in the BTL's eager limit (64 KiB over
 * TCP) together with its 56-byte PML header: measured between two emulated hosts, 65480 B
 * had arrived when the receive was posted late, 65481 B and 64 KiB had not. */
#define PCS_EAGER_OMPI41_TCP (65536u - 56u)

/* MPICH 4.0's ch4:ucx sends eagerly below UCX's rendezvous threshold, which UCX sets from
 * the transport's speed: over TCP between two emulated hosts (UCX_TLS=tcp,self), 19522 B
 * went eagerly and 19523 B waited for the receiver (within a host, by shared memory,
 * 8255 B). */
#define PCS_EAGER_MPICH40_UCX_TCP 19522u

/* The largest message a library sends eagerly between hosts, from its whole
 * MPI_Get_library_version string (MPICH names its device on a later line), as measured:
 * Open MPI 4.1 and MPICH 4.0's ch4:ucx over TCP; *what says whose. 0 (and *what NULL)
 * for any other library or none. */
uint64_t pcs_eager_size(const char *version_string, const char **what);

/* Open MPI 4.1.x (coll_tuned_decision_fixed.c, unchanged 4.1.0-4.1.8) on an intracommunicator;
 * a->nonblocking: coll/libnbc's choice (nbc_i<coll>.c, unchanged 4.1.0-4.1.8); Alltoallw:
 * coll/basic. forced may be NULL. Writes out even when it returns an error. */
pcs_err_t pcs_ompi41_select(const pcs_args_t *a, const pcs_ompi_forced_t *forced,
                            pcs_choice_t *out);
/* The fixed rules alone: algorithm id for (collective, comm size, dsize, commutative), with
 * the deciding line; exposed for the table test. dsize as pcs_ompi41_dsize computes it. */
int pcs_ompi41_fixed(pcs_coll_t c, int size, int64_t dsize, bool commutative, int *line);
int64_t pcs_ompi41_dsize(const pcs_args_t *a);

/* ---- generation ---- */
/* Append rank a->rank's schedule for choice c to s (after pcs_sched_reset, or appended to
 * what s holds: composite algorithms use this). Returns s->err. */
pcs_err_t pcs_generate(const pcs_args_t *a, const pcs_choice_t *c, pcs_sched_t *s);
/* Select with Open MPI 4.1's rules and generate, for composite algorithms and callers. */
pcs_err_t pcs_ompi41_schedule(const pcs_args_t *a, const pcs_ompi_forced_t *forced,
                              pcs_sched_t *s);

/* ---- MPICH 4.0 (ch4 device; doc/collectives.md "MPICH 4.0") ----
 * Choices: component PCS_COMP_MPICH_CH4 (a ch4 composition runs; lib_alg 1 = alpha, 2 = beta)
 * or PCS_COMP_MPICH_MPIR (an MPIR algorithm runs on the communicator; lib_alg = its value of
 * MPIR_CVAR_<COLL>_INTRA_ALGORITHM); rule_line = the line of the deciding leaf in the JSON
 * file of that layer (maint/tuning/coll/{ch4,mpir}/generic.json v4.0.2), 0 if forced. */

/* The MPIR_CVAR_* variables recorded at run time. Zero-initialised = MPICH's defaults. */
typedef struct pcs_mpich_env {
    int device_collectives;       /* MPIR_CVAR_DEVICE_COLLECTIVES: 0 percoll, 1 all, 2 none */
    bool no_device[PCS_NCOLLS];   /* MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE=0 */
    int intra_algorithm[PCS_NCOLLS]; /* MPIR_CVAR_<COLL>_INTRA_ALGORITHM: position of the value
                                      * in cvars.txt's list (0 = auto) */
    int alltoall_throttle;        /* MPIR_CVAR_ALLTOALL_THROTTLE: 0 = default 32, < 0 = MPICH's 0 */
    int nb_algorithm[PCS_NCOLLS]; /* MPIR_CVAR_I<COLL>_INTRA_ALGORITHM: position of the value
                                   * in cvars.txt's list (0 = auto) */
} pcs_mpich_env_t;
/* Take one variable (MPIR_CVAR_, MPICH_ or MPIR_PARAM_ prefix) into env: 1 if used, 0 if not
 * one of these, -1 if its value is not one MPICH accepts. */
int pcs_mpich_env_set(pcs_mpich_env_t *env, const char *name, const char *value);

/* What MPICH looks at beyond pcs_args_t. */
typedef struct pcs_mpich_comm {
    const int *node; /* node of each communicator rank (any ints, equal = same node: from the
                      * logs' hostnames); NULL = all ranks on one node */
    bool user_op;    /* the op is user-defined (MPICH tests built-in-ness; commutative user
                      * ops exist) */
} pcs_mpich_comm_t;

/* MPICH 4.0.x as built with ch4:ucx (no shared-memory collectives): binding early returns,
 * ch4 JSON, MPIR JSON / forced CVARs; a->nonblocking: MPIR_I<coll>_sched_impl (the I<COLL>
 * variable or the MPIR JSON's i<coll> rules, then a sched algorithm). t and env may be NULL. */
pcs_err_t pcs_mpich40_select(const pcs_args_t *a, const pcs_mpich_comm_t *t,
                             const pcs_mpich_env_t *env, pcs_choice_t *out);
/* Generate a choice of pcs_mpich40_select (the compositions re-select on node_comm and
 * node_roots_comm, hence t and env). Appends to s like pcs_generate. */
pcs_err_t pcs_mpich40_generate(const pcs_args_t *a, const pcs_mpich_comm_t *t,
                               const pcs_mpich_env_t *env, const pcs_choice_t *c,
                               pcs_sched_t *s);
pcs_err_t pcs_mpich40_schedule(const pcs_args_t *a, const pcs_mpich_comm_t *t,
                               const pcs_mpich_env_t *env, pcs_sched_t *s);

#endif
