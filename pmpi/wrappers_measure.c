/* wrappers_measure.c: PHASOR_STEPS=measure for the blocking collectives: each function turns
 * the call's arguments into the schedule arguments of models/ (counts in elements of the
 * datatype that describes the packed bytes: the library's view) and asks phasor_measure to
 * perform it; when it did not (*measured = 0), the library does. Called only from the
 * generated wrappers (gen/pmpi_wrappers.c, `measure` in pmpi/mpi_spec.txt); *measured < 0
 * on entry: the wrapper is not recording (nested call, thread without a slot), so this rank
 * vetoes, but it still takes part in the ranks' agreement. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_measure.h"
#include "phasor_rt.h"
#include "wrappers_measure.h"

/* phasor_type_size signed, for the count and displacement arithmetic below */
static int64_t tsize(MPI_Datatype t) { return (int64_t)phasor_type_size(t); }

/* Common part; 0 when phasor does not perform calls on comm (intercommunicators). Reads the
 * wrapper's veto from *measured (< 0: not recording) and clears it. */
static int setup(phasor_measure_t *mc, pcs_coll_t coll, MPI_Comm comm, int *measured)
{
    memset(mc, 0, sizeof(*mc));
    mc->veto = *measured < 0;
    *measured = 0;
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return 0;
    PMPI_Comm_size(comm, &mc->args.size);
    PMPI_Comm_rank(comm, &mc->args.rank);
    mc->args.coll = coll;
    mc->args.commutative = true;
    mc->comm = comm;
    mc->stype = mc->rtype = mc->optype = MPI_DATATYPE_NULL;
    mc->op = MPI_OP_NULL;
    return 1;
}

static void set_op(phasor_measure_t *mc, MPI_Op op, MPI_Datatype dt)
{
    uint64_t w = phasor_op_word(op);
    mc->op = op;
    mc->optype = dt;
    mc->args.commutative = (w & PLOG_OP_COMMUTATIVE) != 0;
    mc->user_op = (w & 0xff) == PLOG_OP_USER;
}

/* int counts and displacements as models/ takes them; NULL on failure (then not measured) */
static int64_t *i64(const int *v, int n)
{
    if (v == NULL || n <= 0)
        return NULL;
    int64_t *o = malloc((size_t)n * sizeof(*o));
    if (o)
        for (int i = 0; i < n; i++)
            o[i] = v[i];
    return o;
}

/* ---- datatypes that are not contiguous ----
 * models/ sees a buffer as bytes of the packed layout: element i of a block at displacement d
 * (in elements) is at byte (d + i) * size. A side whose datatype is not laid out so is
 * packed into a stage of that layout before the call (the receive side too: in place data,
 * and what the call leaves alone, must come back unchanged) and, for the receive side,
 * unpacked after phasor performed the call. The stage then stands in for the user's buffer.
 * Element i of the user's buffer is at i * extent (MPI's rule); PMPI_Pack/Unpack take int
 * sizes, so long blocks go in pieces of whole elements. */
typedef struct stage {
    uint8_t *p;
    void *user;
    MPI_Datatype t;
    int64_t size, extent;
    int nb;                   /* blocks: nb of counts[k] elements at displs[k] (NULL: at 0) */
    const int *counts, *displs;
    int64_t count;            /* nb == 0: one block of count elements at 0 */
} stage_t;

static int contiguous_type(MPI_Datatype t)
{
    MPI_Count size;
    MPI_Aint lb, extent, tlb, textent;
    return PMPI_Type_size_x(t, &size) == MPI_SUCCESS && PMPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent(t, &tlb, &textent) == MPI_SUCCESS && lb == 0 && tlb == 0 &&
           extent == size && textent == size;
}

static int elems(stage_t *st, int64_t at, int64_t n, int unpack, MPI_Comm comm)
{
    int64_t step = st->size > 0 ? INT_MAX / st->size : n;
    for (int64_t k = 0; k < n;) {
        int64_t c = n - k < step ? n - k : step;
        uint8_t *u = (uint8_t *)st->user + (at + k) * st->extent, *p = st->p + (at + k) * st->size;
        int pos = 0, rc = unpack ? PMPI_Unpack(p, (int)(c * st->size), &pos, u, (int)c, st->t, comm)
                                 : PMPI_Pack(u, (int)c, st->t, p, (int)(c * st->size), &pos, comm);
        if (rc != MPI_SUCCESS)
            return 0;
        k += c;
    }
    return 1;
}

static int stage_move(stage_t *st, int unpack, MPI_Comm comm)
{
    if (st->nb == 0)
        return elems(st, 0, st->count, unpack, comm);
    for (int k = 0; k < st->nb; k++)
        if (!elems(st, st->displs ? st->displs[k] : 0, st->counts[k], unpack, comm))
            return 0;
    return 1;
}

/* Side (buf, t) as blocks; when t is not contiguous, pack it and make *buf the stage.
 * 0: phasor cannot (then the call is vetoed). */
static int stage_in(stage_t *st, void **buf, MPI_Datatype t, int nb, const int *counts,
                    const int *displs, int64_t count, MPI_Comm comm)
{
    memset(st, 0, sizeof(*st));
    if (t == MPI_DATATYPE_NULL || contiguous_type(t))
        return 1;
    int size;
    MPI_Aint lb, extent;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        size <= 0 || size == MPI_UNDEFINED || extent <= 0)
        return 0; /* zero-size, negative-extent or > INT_MAX-byte elements: the library */
    int64_t bytes = nb ? 0 : count * size;
    for (int k = 0; k < nb; k++) {
        int64_t d = displs ? displs[k] : 0;
        if (d < 0 || counts[k] < 0)
            return 0;
        if ((d + counts[k]) * size > bytes)
            bytes = (d + counts[k]) * size;
    }
    st->user = *buf;
    st->t = t;
    st->size = size;
    st->extent = extent;
    st->nb = nb;
    st->counts = counts;
    st->displs = displs;
    st->count = count;
    st->p = malloc((size_t)bytes + 1);
    if (!st->p || !stage_move(st, 0, comm)) {
        free(st->p);
        st->p = NULL;
        return 0;
    }
    *buf = st->p;
    return 1;
}

/* phasor's result back into the user's receive buffer; frees both stages. */
static int stage_out(stage_t *snd, stage_t *rcv, int measured, int rc, MPI_Comm comm)
{
    if (measured && rc == MPI_SUCCESS && rcv->p && !stage_move(rcv, 1, comm))
        rc = MPI_ERR_INTERN;
    free(snd->p);
    free(rcv->p);
    return rc;
}

/* Both sides of mc staged (the buffers and types mc names; counts as the call gives them);
 * the stages stand in for the user's buffers and phasor sees contiguous bytes. */
static void stage_sides(phasor_measure_t *mc, stage_t *snd, int snb, const int *scounts,
                        const int *sdispls, int64_t scount, stage_t *rcv, int rnb,
                        const int *rcounts, const int *rdispls, int64_t rcount)
{
    void *sb = (void *)(uintptr_t)mc->sbuf;
    int ok = stage_in(snd, &sb, mc->stype, snb, scounts, sdispls, scount, mc->comm);
    ok = stage_in(rcv, &mc->rbuf, mc->rtype, rnb, rcounts, rdispls, rcount, mc->comm) && ok;
    mc->sbuf = sb;
    if (snd->p)
        mc->stype = MPI_DATATYPE_NULL;
    if (rcv->p)
        mc->rtype = MPI_DATATYPE_NULL;
    mc->veto = mc->veto || !ok;
}

/* phasor_measure or, when it did not perform the call, the library. Every rank of the call
 * must reach phasor_measure (it agrees with the others): what only this rank cannot do is a
 * veto, never a shortcut to the library. */
#define MEASURE_OR(mc, measured, fallback)                                                  \
    do {                                                                                    \
        int rc_ = phasor_measure(mc, measured);                                             \
        if (*(measured))                                                                    \
            return rc_;                                                                     \
        return fallback;                                                                    \
    } while (0)

int pw_measure_Barrier(MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_BARRIER, comm, measured))
        return PMPI_Barrier(comm);
    mc.args.type_size = 1;
    MEASURE_OR(&mc, measured, PMPI_Barrier(comm));
}

/* phasor_measure on the staged sides (snd, rcv), the result unpacked, and the call's own
 * arrays of counts freed (owned: NULL, or OWNED(...) of up to four); else the library. */
#define OWNED(...) ((int64_t *[4]){__VA_ARGS__})
#define STAGED_OR(mc, snd, rcv, measured, owned, fallback)                                  \
    do {                                                                                    \
        int rc_ = phasor_measure(mc, measured);                                             \
        rc_ = stage_out(snd, rcv, *(measured), rc_, (mc)->comm);                            \
        int64_t **o_ = (owned);                                                             \
        for (int k_ = 0; o_ && k_ < 4; k_++)                                                \
            free(o_[k_]);                                                                   \
        if (*(measured))                                                                    \
            return rc_;                                                                     \
        return fallback;                                                                    \
    } while (0)

int pw_measure_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_BCAST, comm, measured))
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    mc.args.root = root;
    mc.args.count = count;
    mc.args.type_size = phasor_type_size(datatype);
    mc.rbuf = buffer;
    mc.rtype = datatype;
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, 0, &rcv, 0, NULL, NULL, count);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Bcast(buffer, count, datatype, root, comm));
}

static void reduction(phasor_measure_t *mc, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int in_place)
{
    mc->args.count = count;
    mc->args.type_size = phasor_type_size(datatype);
    mc->args.in_place = in_place;
    mc->sbuf = sendbuf;
    mc->rbuf = recvbuf;
    mc->stype = in_place ? MPI_DATATYPE_NULL : datatype;
    mc->rtype = datatype;
    set_op(mc, op, datatype);
    int how = phasor_measure_redtype(datatype, mc->user_op);
    mc->veto = mc->veto || how == 0;
    mc->red_laid_out = how == 2;
}

int pw_measure_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_REDUCE, comm, measured))
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    mc.args.root = root;
    reduction(&mc, sendbuf, recvbuf, count, datatype, op,
              mc.args.rank == root && sendbuf == MPI_IN_PLACE);
    if (mc.args.rank != root) /* recvbuf is not significant */
        mc.rtype = MPI_DATATYPE_NULL;
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, count, &rcv, 0, NULL, NULL, count);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
}

/* Allreduce, Scan and Exscan: the same arguments, each rank's whole buffer on both sides. */
typedef int allreduce_fn(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static int elementwise(pcs_coll_t coll, allreduce_fn *fn, const void *sendbuf, void *recvbuf,
                       int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, coll, comm, measured))
        return fn(sendbuf, recvbuf, count, datatype, op, comm);
    reduction(&mc, sendbuf, recvbuf, count, datatype, op, sendbuf == MPI_IN_PLACE);
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, count, &rcv, 0, NULL, NULL, count);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL, fn(sendbuf, recvbuf, count, datatype, op, comm));
}

int pw_measure_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, int *measured)
{
    return elementwise(PCS_ALLREDUCE, PMPI_Allreduce, sendbuf, recvbuf, count, datatype, op,
                       comm, measured);
}

int pw_measure_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, int *measured)
{
    return elementwise(PCS_SCAN, PMPI_Scan, sendbuf, recvbuf, count, datatype, op, comm,
                       measured);
}

int pw_measure_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, int *measured)
{
    return elementwise(PCS_EXSCAN, PMPI_Exscan, sendbuf, recvbuf, count, datatype, op, comm,
                       measured);
}

int pw_measure_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_REDUCE_SCATTER_BLOCK, comm, measured))
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    int in_place = sendbuf == MPI_IN_PLACE;
    int64_t all = (int64_t)recvcount * mc.args.size;
    reduction(&mc, sendbuf, recvbuf, recvcount, datatype, op, in_place);
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, all, &rcv, 0, NULL, NULL, in_place ? all : recvcount);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

int pw_measure_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_REDUCE_SCATTER, comm, measured))
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    int in_place = sendbuf == MPI_IN_PLACE;
    reduction(&mc, sendbuf, recvbuf, 0, datatype, op, in_place);
    int64_t *counts = i64(recvcounts, mc.args.size), all = 0;
    mc.args.counts = counts;
    mc.veto = mc.veto || counts == NULL;
    for (int i = 0; counts && i < mc.args.size; i++)
        all += counts[i];
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, all, &rcv, 0, NULL, NULL,
                in_place ? all : counts ? counts[mc.args.rank] : 0);
    STAGED_OR(&mc, &snd, &rcv, measured, OWNED(counts),
              PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

/* allgather / alltoall: the per-rank block in elements of the receive type */
static void blocks(phasor_measure_t *mc, const void *sendbuf, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    int in_place = sendbuf == MPI_IN_PLACE;
    mc->args.count = recvcount;
    mc->args.type_size = phasor_type_size(recvtype);
    mc->args.in_place = in_place;
    mc->sbuf = sendbuf;
    mc->rbuf = recvbuf;
    mc->stype = in_place ? MPI_DATATYPE_NULL : sendtype;
    mc->rtype = recvtype;
}

int pw_measure_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_ALLGATHER, comm, measured))
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    blocks(&mc, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, sendcount, &rcv, 0, NULL, NULL,
                (int64_t)recvcount * mc.args.size);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int pw_measure_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_ALLTOALL, comm, measured))
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    blocks(&mc, sendbuf, sendtype, recvbuf, recvcount, recvtype);
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, (int64_t)sendcount * mc.args.size, &rcv, 0, NULL,
                NULL, (int64_t)recvcount * mc.args.size);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int pw_measure_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_ALLGATHERV, comm, measured))
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
    blocks(&mc, sendbuf, sendtype, recvbuf, 0, recvtype);
    int64_t *c = i64(recvcounts, mc.args.size), *d = i64(displs, mc.args.size);
    mc.args.counts = c;
    mc.args.displs = d;
    mc.veto = mc.veto || !(c && d);
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, sendcount, &rcv, mc.args.size, recvcounts, displs, 0);
    STAGED_OR(&mc, &snd, &rcv, measured, OWNED(c, d),
              PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, comm));
}

int pw_measure_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_ALLTOALLV, comm, measured))
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    blocks(&mc, sendbuf, sendtype, recvbuf, 0, recvtype);
    int n = mc.args.size, in_place = sendbuf == MPI_IN_PLACE;
    int64_t *rcn = i64(recvcounts, n), *rd = i64(rdispls, n);
    int64_t *sc = in_place ? i64(recvcounts, n) : i64(sendcounts, n);
    int64_t *sd = in_place ? i64(rdispls, n) : i64(sdispls, n);
    mc.args.counts = rcn;
    mc.args.displs = rd;
    mc.args.scounts = sc;
    mc.args.sdispls = sd;
    mc.veto = mc.veto || !(rcn && rd && sc && sd);
    int64_t ss = tsize(sendtype), rs = tsize(recvtype);
    if (!in_place && ss != rs && !mc.veto) /* models/ has one element size: count bytes */
        for (int i = 0; i < n; i++) {
            sc[i] *= ss;
            sd[i] *= ss;
            rcn[i] *= rs;
            rd[i] *= rs;
            mc.args.type_size = 1;
        }
    stage_t snd, rcv;
    stage_sides(&mc, &snd, n, sendcounts, sdispls, 0, &rcv, n, recvcounts, rdispls, 0);
    STAGED_OR(&mc, &snd, &rcv, measured, OWNED(rcn, rd, sc, sd),
              PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                             rdispls, recvtype, comm));
}

int pw_measure_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_GATHER, comm, measured))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    int at_root = mc.args.rank == root, in_place = at_root && sendbuf == MPI_IN_PLACE;
    mc.args.root = root;
    mc.args.count = at_root ? recvcount : sendcount;
    mc.args.type_size = phasor_type_size(at_root ? recvtype : sendtype);
    mc.args.in_place = in_place;
    mc.sbuf = sendbuf;
    mc.rbuf = recvbuf;
    mc.stype = in_place ? MPI_DATATYPE_NULL : sendtype;
    mc.rtype = at_root ? recvtype : MPI_DATATYPE_NULL;
    /* the root's own block: sendcount of sendtype, the same bytes as recvcount of recvtype */
    mc.veto = mc.veto || (at_root && !in_place && (int64_t)sendcount * tsize(sendtype) !=
                                                      (int64_t)recvcount * tsize(recvtype));
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, sendcount, &rcv, 0, NULL, NULL,
                (int64_t)recvcount * mc.args.size);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int pw_measure_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_SCATTER, comm, measured))
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm);
    int at_root = mc.args.rank == root, in_place = at_root && recvbuf == MPI_IN_PLACE;
    mc.args.root = root;
    mc.args.count = at_root ? sendcount : recvcount;
    mc.args.type_size = phasor_type_size(at_root ? sendtype : recvtype);
    mc.args.in_place = in_place;
    mc.sbuf = sendbuf;
    mc.rbuf = recvbuf;
    mc.stype = at_root ? sendtype : MPI_DATATYPE_NULL;
    mc.rtype = in_place ? MPI_DATATYPE_NULL : recvtype;
    mc.veto = mc.veto || (at_root && !in_place && (int64_t)sendcount * tsize(sendtype) !=
                                                      (int64_t)recvcount * tsize(recvtype));
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, (int64_t)sendcount * mc.args.size, &rcv, 0, NULL,
                NULL, recvcount);
    STAGED_OR(&mc, &snd, &rcv, measured, NULL,
              PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                           comm));
}

/* Gatherv/Scatterv at the root: the per-rank list (elements of listtype) and the root's own
 * part (own elements of owntype, or its entry of the list in place); a veto where models/
 * cannot describe the call. The caller frees *c and *d. */
static void root_list(phasor_measure_t *mc, const int *counts, const int *displs,
                      MPI_Datatype listtype, int own, MPI_Datatype owntype, int64_t **c,
                      int64_t **d)
{
    *c = i64(counts, mc->args.size);
    *d = i64(displs, mc->args.size);
    mc->args.counts = *c;
    mc->args.displs = *d;
    mc->args.own_count = mc->args.in_place && *c ? (*c)[mc->args.root] : own;
    mc->veto = mc->veto || !*c || !*d;
    int64_t ls = tsize(listtype), os = tsize(owntype);
    if (!mc->veto && !mc->args.in_place && ls != os) {
        /* models/ has one element size: count bytes (no algorithm choice depends on it) */
        for (int i = 0; i < mc->args.size; i++) {
            (*c)[i] *= ls;
            (*d)[i] *= ls;
        }
        mc->args.own_count = (int64_t)own * os;
        mc->args.type_size = 1;
    }
}

int pw_measure_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_GATHERV, comm, measured))
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm);
    int at_root = mc.args.rank == root;
    int64_t *c = NULL, *d = NULL;
    mc.args.root = root;
    mc.args.in_place = at_root && sendbuf == MPI_IN_PLACE;
    mc.args.own_count = sendcount;
    mc.args.type_size = phasor_type_size(at_root ? recvtype : sendtype);
    mc.sbuf = sendbuf;
    mc.rbuf = recvbuf;
    mc.stype = mc.args.in_place ? MPI_DATATYPE_NULL : sendtype;
    if (at_root) {
        mc.rtype = recvtype;
        root_list(&mc, recvcounts, displs, recvtype, sendcount, sendtype, &c, &d);
    }
    stage_t snd, rcv;
    stage_sides(&mc, &snd, 0, NULL, NULL, sendcount, &rcv, at_root ? mc.args.size : 0,
                recvcounts, displs, 0);
    STAGED_OR(&mc, &snd, &rcv, measured, OWNED(c, d),
              PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, comm));
}

int pw_measure_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, int *measured)
{
    phasor_measure_t mc;
    if (!setup(&mc, PCS_SCATTERV, comm, measured))
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
    int at_root = mc.args.rank == root;
    int64_t *c = NULL, *d = NULL;
    mc.args.root = root;
    mc.args.in_place = at_root && recvbuf == MPI_IN_PLACE;
    mc.args.own_count = recvcount;
    mc.args.type_size = phasor_type_size(at_root ? sendtype : recvtype);
    mc.sbuf = sendbuf;
    mc.rbuf = recvbuf;
    mc.rtype = mc.args.in_place ? MPI_DATATYPE_NULL : recvtype;
    if (at_root) {
        mc.stype = sendtype;
        root_list(&mc, sendcounts, displs, sendtype, recvcount, recvtype, &c, &d);
    }
    stage_t snd, rcv;
    stage_sides(&mc, &snd, at_root ? mc.args.size : 0, sendcounts, displs, 0, &rcv, 0, NULL,
                NULL, recvcount);
    STAGED_OR(&mc, &snd, &rcv, measured, OWNED(c, d),
              PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, comm));
}
