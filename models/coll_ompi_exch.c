/* coll_ompi_exch.c: per-rank schedules of Open MPI 4.1's barrier, allgather and alltoall
 * (ompi/mca/coll/base coll_base_barrier.c, _allgather.c, _alltoall.c v4.1.4), where every rank
 * both sends and receives: the same messages in the same order and the same buffers. */
#include "coll_ompi.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- barrier (0-byte messages) ---- */
static void barrier_linear(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    *gsteps = 2;
    if (rank > 0) {
        pcs_at(c, 0);
        pcs_send(c, 0, T, 0, 0);
        pcs_at(c, 1);
        pcs_recv(c, 0, T, 0, 0);
        return;
    }
    pcs_at(c, 0);
    for (int i = 1; i < size; i++)
        pcs_irecv(c, i - 1, PCS_ANY_SOURCE, T, 0, 0);
    for (int i = 1; i < size; i++)
        pcs_wait(c, i - 1);
    pcs_at(c, 1);
    for (int i = 1; i < size; i++)
        pcs_send(c, i, T, 0, 0);
}

/* barrier.c:98: a token around the ring twice, the second time synchronous; the message
 * from rank r is step r of its ring */
static void barrier_double_ring(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const int left = (size + rank - 1) % size, right = (rank + 1) % size;
    *gsteps = 2 * size;
    for (int ring = 0; ring < 2; ring++) {
        const int b = ring * size;
        if (rank > 0) {
            pcs_at(c, b + rank - 1);
            pcs_recv(c, left, T, 0, 0);
        }
        pcs_at(c, b + rank);
        if (ring == 0)
            pcs_send(c, right, T, 0, 0);
        else
            pcs_ssend(c, right, T, 0, 0);
        if (rank == 0) {
            pcs_at(c, b + size - 1);
            pcs_recv(c, left, T, 0, 0);
        }
    }
}

static void barrier_rdbl(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    int adj = pcs_pow2_floor(size), extra = size != adj, k = 0;
    *gsteps = pcs_log2_floor(adj) + 2 * extra;
    if (extra) {
        if (rank >= adj) {
            /* sendrecv_zero: its receive is answered by the partner's final ssend */
            pcs_at(c, *gsteps - 1);
            pcs_irecv(c, 0, rank - adj, T, 0, 0);
            pcs_at(c, 0);
            pcs_send(c, rank - adj, T, 0, 0);
            pcs_wait(c, 0);
        } else if (rank < size - adj)
            pcs_recv(c, rank + adj, T, 0, 0);
        k = 1;
    }
    if (rank < adj)
        for (int mask = 1; mask < adj; mask <<= 1, k++) {
            pcs_at(c, k);
            pcs_sendrecv_actual(c, 0, rank ^ mask, T, 0, 0, rank ^ mask, T, 0, 0);
        }
    if (extra && rank < size - adj) {
        pcs_at(c, *gsteps - 1);
        pcs_ssend(c, rank + adj, T, 0, 0);
    }
}

static void barrier_bruck(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    int k = 0;
    for (int d = 1; d < size; d <<= 1, k++) {
        pcs_at(c, k);
        pcs_sendrecv_actual(c, 0, (rank + d) % size, T, 0, 0, (rank - d + size) % size, T,
                            0, 0);
    }
    *gsteps = k;
}

static void barrier_two_procs(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank;
    pcs_at(c, 0);
    pcs_sendrecv_actual(c, 0, rank ^ 1, T, 0, 0, rank ^ 1, T, 0, 0);
    *gsteps = 1;
}

static void barrier_tree(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    int depth = 1, k = 0;
    while (depth < size)
        depth <<= 1;
    for (int jump = 1; jump < depth; jump <<= 1, k++) {
        int partner = rank ^ jump;
        if (!(partner & (jump - 1)) && partner < size) {
            pcs_at(c, k);
            if (partner > rank)
                pcs_recv(c, partner, T, 0, 0);
            else if (partner < rank)
                pcs_send(c, partner, T, 0, 0);
        }
    }
    for (int jump = depth >> 1; jump > 0; jump >>= 1, k++) {
        int partner = rank ^ jump;
        if (!(partner & (jump - 1)) && partner < size) {
            pcs_at(c, k);
            if (partner > rank)
                pcs_send(c, partner, T, 0, 0);
            else if (partner < rank)
                pcs_recv(c, partner, T, 0, 0);
        }
    }
    *gsteps = k;
}

void pcs_gen_barrier(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_BARRIER_LINEAR, barrier_linear},
        {PCS_ALG_BARRIER_DOUBLE_RING, barrier_double_ring},
        {PCS_ALG_BARRIER_RECURSIVE_DOUBLING, barrier_rdbl},
        {PCS_ALG_BARRIER_BRUCK, barrier_bruck},
        {PCS_ALG_BARRIER_TWO_PROCS, barrier_two_procs},
        {PCS_ALG_BARRIER_TREE, barrier_tree},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}

/* ---- allgather (block = count elements; own block from S, or R[rank] in place) ---- */
static void allgather_bruck(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    int k = 0;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, len);
    else if (rank != 0)
        pcs_copy(c, R, (uint64_t)rank * len, R, 0, len);
    for (int d = 1; d < size; d <<= 1, k++) {
        int bc = d <= (size >> 1) ? d : size - d;
        pcs_at(c, k);
        pcs_sendrecv(c, 0, (rank - d + size) % size, R, 0, (uint64_t)bc * len,
                     (rank + d) % size, R, (uint64_t)d * len, (uint64_t)bc * len);
    }
    *gsteps = k;
    if (rank != 0) {
        pcs_need_tmp(c, T, (uint64_t)(size - rank) * len);
        pcs_copy(c, R, 0, T, 0, (uint64_t)(size - rank) * len);
        pcs_copy(c, R, (uint64_t)(size - rank) * len, R, 0, (uint64_t)rank * len);
        pcs_copy(c, T, 0, R, (uint64_t)rank * len, (uint64_t)(size - rank) * len);
    }
}

/* power-of-two size */
static void allgather_rdbl(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    int k = 0;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, (uint64_t)rank * len, len);
    int sendblk = rank;
    for (int d = 1; d < size; d <<= 1, k++) {
        int remote = rank ^ d;
        uint64_t so = (uint64_t)sendblk * len, ro;
        if (rank < remote) {
            ro = (uint64_t)(sendblk + d) * len;
        } else {
            ro = (uint64_t)(sendblk - d) * len;
            sendblk -= d;
        }
        pcs_at(c, k);
        pcs_sendrecv(c, 0, remote, R, so, (uint64_t)d * len, remote, R, ro,
                     (uint64_t)d * len);
    }
    *gsteps = k;
}

static void allgather_ring(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, (uint64_t)rank * len, len);
    for (int i = 0; i < size - 1; i++) {
        int sfrom = (rank - i + size) % size, rfrom = (rank - i - 1 + size) % size;
        pcs_at(c, i);
        pcs_sendrecv(c, 0, (rank + 1) % size, R, (uint64_t)sfrom * len, len,
                     (rank - 1 + size) % size, R, (uint64_t)rfrom * len, len);
    }
    *gsteps = size - 1;
}

/* allgather.c:484, even size */
static void allgather_neighbor(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, (uint64_t)rank * len, len);
    const bool even = rank % 2 == 0;
    int nb[2], rdf[2], off[2];
    nb[0] = even ? (rank + 1) % size : (rank - 1 + size) % size;
    nb[1] = even ? (rank - 1 + size) % size : (rank + 1) % size;
    rdf[0] = rdf[1] = even ? rank : nb[0];
    off[0] = even ? 2 : -2;
    off[1] = even ? -2 : 2;
    pcs_sendrecv(c, 0, nb[0], R, (uint64_t)rank * len, len, nb[0], R,
                 (uint64_t)nb[0] * len, len);
    int sdf = even ? rank : rdf[0];
    for (int i = 1; i < size / 2; i++) {
        const int ip = i % 2;
        rdf[ip] = (rdf[ip] + off[ip] + size) % size;
        pcs_at(c, i);
        pcs_sendrecv(c, 0, nb[ip], R, (uint64_t)sdf * len, 2 * len, nb[ip], R,
                     (uint64_t)rdf[ip] * len, 2 * len);
        sdf = rdf[ip];
    }
    *gsteps = size / 2;
}

/* allgather.c:681: gather to 0 then bcast of the whole, both through the rules; a non-root
 * in place sends its block of rbuf */
static void allgather_linear(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_args_t ga = *c->a, ba = *c->a;
    ga.coll = PCS_GATHER;
    ga.root = 0;
    ga.in_place = inplace && rank == 0;
    ba.coll = PCS_BCAST;
    ba.root = 0;
    ba.count = c->a->count * size;
    ba.in_place = false;
    pcs_choice_t gc, bc;
    pcs_err_t e;
    if ((e = pcs_ompi41_select(&ga, NULL, &gc)) || (e = pcs_ompi41_select(&ba, NULL, &bc))) {
        c->s->err = e;
        return;
    }
    pcs_ctx_t g = *c;
    if (inplace && rank != 0) {
        g.map[S] = c->map[R];
        g.shift[S] = c->shift[R] + (uint64_t)rank * len;
    }
    int64_t g1 = 0, g2 = 0;
    if (pcs_gen_sub(&g, &ga, &gc, &g1))
        return;
    pcs_ctx_t b = *c;
    b.step_base += (uint32_t)g1;
    pcs_gen_sub(&b, &ba, &bc, &g2);
    *gsteps = g1 + g2;
}

static void allgather_two_procs(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_at(c, 0);
    pcs_sendrecv(c, 0, rank ^ 1, inplace ? R : S, inplace ? (uint64_t)rank * len : 0, len,
                 rank ^ 1, R, (uint64_t)(rank ^ 1) * len, len);
    if (!inplace)
        pcs_copy(c, S, 0, R, (uint64_t)rank * len, len);
    *gsteps = 1;
}

void pcs_gen_allgather(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_ALLGATHER_BRUCK, allgather_bruck},
        {PCS_ALG_ALLGATHER_RECURSIVE_DOUBLING, allgather_rdbl},
        {PCS_ALG_ALLGATHER_RING, allgather_ring},
        {PCS_ALG_ALLGATHER_NEIGHBOR, allgather_neighbor},
        {PCS_ALG_ALLGATHER_LINEAR, allgather_linear},
        {PCS_ALG_ALLGATHER_TWO_PROCS, allgather_two_procs},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}

/* ---- alltoall (block = count elements per peer) ---- */
/* alltoall.c:598, persistent requests */
static void alltoall_linear(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_at(c, 0);
    pcs_copy(c, S, (uint64_t)rank * len, R, (uint64_t)rank * len, len);
    int k = 0;
    for (int i = (rank + 1) % size; i != rank; i = (i + 1) % size)
        pcs_irecv(c, k++, i, R, (uint64_t)i * len, len);
    for (int i = (rank + size - 1) % size; i != rank; i = (i + size - 1) % size)
        pcs_isend_flags(c, k++, i, S, (uint64_t)i * len, len, PCS_F_PERSISTENT);
    for (int i = 0; i < k; i++)
        pcs_wait(c, i);
    *gsteps = 1;
}

/* alltoall.c:440 with max_requests < size - 1: nr receives and nr sends in flight; Open MPI
 * refills whichever request completes first (wait_any). Here: the oldest receive, then the
 * oldest send, so the messages and their order per peer are the library's. Message m (the
 * m-th receive and send of every rank) is step m / nr. */
static void alltoall_window(pcs_ctx_t *c, int nr, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_at(c, 0);
    pcs_copy(c, S, (uint64_t)rank * len, R, (uint64_t)rank * len, len);
    int ri = (rank + 1) % size, si = (rank + size - 1) % size, nrr = 0, nss = 0;
    for (; nrr < nr; nrr++, ri = (ri + 1) % size)
        pcs_irecv(c, nrr, ri, R, (uint64_t)ri * len, len);
    for (; nss < nr; nss++, si = (si + size - 1) % size)
        pcs_isend(c, nr + nss, si, S, (uint64_t)si * len, len);
    for (int m = 0; m < size - 1; m++) {
        pcs_wait(c, m % nr);
        if (nrr < size - 1) {
            pcs_at(c, nrr / nr);
            pcs_irecv(c, m % nr, ri, R, (uint64_t)ri * len, len);
            nrr++;
            ri = (ri + 1) % size;
        }
        pcs_wait(c, nr + m % nr);
        if (nss < size - 1) {
            pcs_at(c, nss / nr);
            pcs_isend(c, nr + m % nr, si, S, (uint64_t)si * len, len);
            nss++;
            si = (si + size - 1) % size;
        }
    }
    *gsteps = (size - 2) / nr + 1;
}

/* alltoall.c:440: every receive, then every send, then wait for all */
static void alltoall_linear_sync(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    const int mr = ch->max_requests;
    const int nr = mr <= 0 || mr > size - 1 ? size - 1 : mr;
    if (nr < size - 1) {
        alltoall_window(c, nr, gsteps);
        return;
    }
    pcs_at(c, 0);
    pcs_copy(c, S, (uint64_t)rank * len, R, (uint64_t)rank * len, len);
    int k = 0;
    for (int i = 1; i < size; i++) {
        int ri = (rank + i) % size;
        pcs_irecv(c, k++, ri, R, (uint64_t)ri * len, len);
    }
    for (int i = 1; i < size; i++) {
        int si = (rank - i + size) % size;
        pcs_isend(c, k++, si, S, (uint64_t)si * len, len);
    }
    for (int i = 0; i < k; i++)
        pcs_wait(c, i);
    *gsteps = 1;
}

static void alltoall_pairwise(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    for (int step = 1; step <= size; step++) {
        int to = (rank + step) % size, from = (rank - step + size) % size;
        pcs_at(c, step - 1);
        pcs_sendrecv(c, 0, to, S, (uint64_t)to * len, len, from, R, (uint64_t)from * len,
                     len);
    }
    *gsteps = size;
}

/* alltoall.c:220 */
static void alltoall_bruck(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    pcs_need_tmp(c, T, (uint64_t)size * len);
    pcs_at(c, 0);
    pcs_copy(c, S, (uint64_t)rank * len, T, 0, (uint64_t)(size - rank) * len);
    if (rank != 0)
        pcs_copy(c, S, 0, T, (uint64_t)(size - rank) * len, (uint64_t)rank * len);
    int k = 0;
    for (int d = 1; d < size; d <<= 1, k++) {
        int nb = 0;
        for (int i = 1; i < size; i++)
            nb += (i & d) == d;
        pcs_at(c, k);
        /* one indexed datatype: the blocks i with bit d set, both sides */
        pcs_xfer(c, PCS_OP_IRECV, 0, (rank - d + size) % size, (uint64_t)nb * len, 0);
        for (int i = 1; i < size; i++)
            if ((i & d) == d)
                pcs_piece(c, R, (uint64_t)i * len, len);
        pcs_xfer(c, PCS_OP_SEND, 0, (rank + d) % size, (uint64_t)nb * len, 0);
        for (int i = 1; i < size; i++)
            if ((i & d) == d)
                pcs_piece(c, T, (uint64_t)i * len, len);
        pcs_wait(c, 0);
        for (int i = 1; i < size; i++)
            if ((i & d) == d)
                pcs_copy(c, R, (uint64_t)i * len, T, (uint64_t)i * len, len);
    }
    for (int i = 0; i < size; i++)
        pcs_copy(c, T, (uint64_t)i * len, R, (uint64_t)((rank - i + size) % size) * len, len);
    *gsteps = k;
}

/* alltoall.c:40: pairs (rank +- i), packed copy out */
static void alltoall_inplace(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    *gsteps = 0;
    if (size == 1 || len == 0)
        return;
    pcs_need_tmp(c, T, len);
    for (int i = 1; i <= size / 2; i++) {
        const int right = (rank + i) % size, left = (rank + size - i) % size;
        pcs_at(c, i - 1);
        pcs_copy(c, R, (uint64_t)right * len, T, 0, len);
        pcs_irecv(c, 0, right, R, (uint64_t)right * len, len);
        if (left != right) {
            pcs_send(c, left, R, (uint64_t)left * len, len);
            pcs_wait(c, 0);
            pcs_irecv(c, 0, left, R, (uint64_t)left * len, len);
        }
        pcs_send(c, right, T, 0, len);
        pcs_wait(c, 0);
    }
    *gsteps = size / 2;
}

static void alltoall_two_procs(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    int r = rank ^ 1;
    pcs_at(c, 0);
    pcs_sendrecv(c, 0, r, S, (uint64_t)r * len, len, r, R, (uint64_t)r * len, len);
    pcs_copy(c, S, (uint64_t)rank * len, R, (uint64_t)rank * len, len);
    *gsteps = 1;
}

void pcs_gen_alltoall(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_ALLTOALL_LINEAR, alltoall_linear},
        {PCS_ALG_ALLTOALL_LINEAR_SYNC, alltoall_linear_sync},
        {PCS_ALG_ALLTOALL_PAIRWISE, alltoall_pairwise},
        {PCS_ALG_ALLTOALL_BRUCK, alltoall_bruck},
        {PCS_ALG_ALLTOALL_INPLACE, alltoall_inplace},
        {PCS_ALG_ALLTOALL_TWO_PROCS, alltoall_two_procs},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}
