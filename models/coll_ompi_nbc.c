/* coll_ompi_nbc.c: Open MPI 4.1's nonblocking collectives (coll/libnbc, which serves every
 * MPI_I* call on an intracommunicator): the per-rank schedules of the data movements and the
 * dispatch (the reductions are in coll_ompi_nbc_red.c, the choice in coll_ompi_nbc_sel.c),
 * written from a reading of ompi/mca/coll/libnbc/nbc_i*.c v4.1.4 (identical through 4.1.8).
 *
 * libnbc builds a list of rounds (coll_ompi.h: nbc_t): ISEND/IRECV in the same order, local
 * operations where libnbc has them, and a WAIT on every request of the round at its end.
 * Steps number the messages as the tree, chain or iteration they belong to, the same at both
 * ends. */
#include "coll_ompi.h"

/* ompi_coll_base_nbc_reserve_tags: the first nonblocking operation on a communicator gets
 * -27, the next ones count down; the schedule carries the first. */
enum { TAG_NBC = -27 };

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2 };

/* ==== Ibarrier (nbc_ibarrier.c:49): dissemination ==== */
static void ibarrier(nbc_t *n, int64_t *gsteps)
{
    const int rank = n->c->rank, p = n->c->size, maxround = pcs_log2_ceil(p) - 1;
    for (int round = 0; round <= maxround; round++) {
        nbc_send(n, round, (rank + (1 << round)) % p, R, 0, 0, false);
        nbc_recv(n, round, (rank - (1 << round) + p) % p, R, 0, 0, false);
        if (round < maxround)
            nbc_barrier(n);
    }
    *gsteps = maxround + 1;
}

/* ==== Ibcast (nbc_ibcast.c) ==== */

/* l.278 */
static void ibcast_linear(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    if (rank == root) {
        for (int peer = 0; peer < p; peer++)
            if (peer != root)
                nbc_send(n, 0, peer, R, 0, len, false);
    } else {
        nbc_recv(n, 0, root, R, 0, len, false);
    }
    *gsteps = 1;
}

/* l.238: vrank depth = its number of set bits */
static void ibcast_binomial(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const int maxr = pcs_log2_ceil(p), vrank = nbc_swap_root(rank, root);
    if (vrank != 0) {
        for (int r = 0; r < maxr; r++)
            if (vrank >= (1 << r) && vrank < (1 << (r + 1)))
                nbc_recv(n, nbc_popcount(vrank) - 1, nbc_swap_root(vrank - (1 << r), root),
                         R, 0, len, false);
        nbc_barrier(n);
    }
    for (int r = 0; r < maxr; r++)
        if ((vrank + (1 << r) < p && vrank < (1 << r)) || vrank == 0)
            nbc_send(n, nbc_popcount(vrank), nbc_swap_root(vrank + (1 << r), root), R, 0,
                     len, false);
    *gsteps = maxr;
}

/* l.304: fragments of segsize bytes down a chain */
static void ibcast_chain(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const int vrank = nbc_swap_root(rank, root);
    const int rpeer = nbc_swap_root(vrank - 1, root), speer = nbc_swap_root(vrank + 1, root);
    const int64_t count = a->count, fragsize = (int64_t)ch->segsize;
    if (count == 0 || fragsize <= 0 || len == 0)
        return; /* (a zero-size type divides by zero in libnbc) */
    int64_t numfrag = (int64_t)len / fragsize + ((int64_t)len % fragsize != 0);
    const int64_t fragcount = count / numfrag;
    for (int64_t f = 0; f < numfrag; f++) {
        const uint64_t off = (uint64_t)(f * fragcount) * ts;
        const int64_t thiscount = f == numfrag - 1 ? count - fragcount * f : fragcount;
        const uint64_t fl = (uint64_t)thiscount * ts;
        if (vrank != 0)
            nbc_recv(n, vrank - 1 + f, rpeer, R, off, fl, true);
        if (vrank != p - 1) {
            nbc_send(n, vrank + f, speer, R, off, fl, false);
            if (vrank == 0)
                nbc_barrier(n);
        }
    }
    *gsteps = p - 1 + numfrag - 1;
}

/* l.373: depth = non-zero base-radix digits */
static void ibcast_knomial(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const int k = ch->radix, vrank = (rank - root + p) % p;
    int depth = 0;
    for (int v = vrank; v; v /= k)
        depth += v % k != 0;
    int64_t mask = 1; /* 64 bits: k x mask for a radix near INT_MAX */
    while (mask < p) {
        int64_t span = k * mask;
        if (vrank % span) {
            int parent = (int)(vrank / span * span);
            nbc_recv(n, depth - 1, (parent + root) % p, R, 0, len, true);
            break;
        }
        mask = span;
    }
    mask /= k;
    /* children grow with r: stop at the first past the end, so a radix far above P (the
     * user's to set) costs no more than P, and mask * r stays below 2P */
    for (; mask > 0; mask /= k)
        for (int r = 1; r < k && vrank + (int64_t)mask * r < p; r++)
            nbc_send(n, depth, (int)((vrank + mask * r + root) % p), R, 0, len, false);
    int h = 0;
    for (int64_t m = 1; m < p; m *= k)
        h++;
    *gsteps = h;
}

static void ibcast(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    switch (ch->alg) {
    case PCS_ALG_NBC_BCAST_LINEAR: ibcast_linear(n, ch, gsteps); break;
    case PCS_ALG_NBC_BCAST_BINOMIAL: ibcast_binomial(n, ch, gsteps); break;
    case PCS_ALG_NBC_BCAST_CHAIN: ibcast_chain(n, ch, gsteps); break;
    case PCS_ALG_NBC_BCAST_KNOMIAL: ibcast_knomial(n, ch, gsteps); break;
    default: n->c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ==== the v-variants: block i's byte offset and length ==== */
static uint64_t vd(const pcs_ctx_t *c, const int64_t *cnt, const int64_t *dsp, int i)
{
    return pcs_vdisp(c->ts, cnt, dsp, i);
}
static uint64_t vn(const pcs_ctx_t *c, const int64_t *cnt, int i)
{
    return (uint64_t)cnt[i] * c->ts;
}

/* ialltoallv/w in place (a2av_sched_inplace, a2aw_sched_inplace): pairs rank +- i, the block
 * for the left peer saved in T first. w: the final exchange of an even size is unconditional
 * (zero-byte messages included). Pair i is steps 2(i-1) and 2(i-1)+1. */
static void a2av_inplace(nbc_t *n, bool w)
{
    const pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const int64_t *cn = a->counts, *dp = a->displs;
    int i;
    for (i = 1; i < (p + 1) / 2; i++) {
        const int sp = (rank + i) % p, rp = (rank + p - i) % p;
        const int64_t st = 2 * (i - 1);
        if (cn[rp] != 0)
            nbc_copy(n, R, vd(c, cn, dp, rp), T, 0, vn(c, cn, rp), true);
        if (cn[sp] != 0)
            nbc_send(n, st, sp, R, vd(c, cn, dp, sp), vn(c, cn, sp), false);
        if (cn[rp] != 0)
            nbc_recv(n, st, rp, R, vd(c, cn, dp, rp), vn(c, cn, rp), true);
        if (cn[rp] != 0)
            nbc_send(n, st + 1, rp, T, 0, vn(c, cn, rp), false);
        if (cn[sp] != 0)
            nbc_recv(n, st + 1, sp, R, vd(c, cn, dp, sp), vn(c, cn, sp), true);
    }
    if (p % 2 == 0) {
        const int peer = (rank + p / 2) % p;
        const int64_t st = 2 * (i - 1);
        nbc_copy(n, R, vd(c, cn, dp, peer), T, 0, vn(c, cn, peer), true);
        if (w || cn[peer] != 0) {
            nbc_send(n, st, peer, T, 0, vn(c, cn, peer), false);
            nbc_recv(n, st, peer, R, vd(c, cn, dp, peer), vn(c, cn, peer), true);
        }
    }
}

static int64_t a2a_steps(int p) { return p < 2 ? 0 : 2 * ((p + 1) / 2 - 1) + (p % 2 == 0); }

/* ==== the size-1 copies libnbc makes before returning an empty request ==== */
static void size1_copies(nbc_t *n)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int p = c->size;
    const uint64_t ts = c->ts, blk = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    if (p == 1 && !inplace) {
        if (a->coll == PCS_REDUCE || a->coll == PCS_ALLREDUCE || a->coll == PCS_ALLGATHER)
            pcs_copy(c, S, 0, R, 0, blk);
        else if (a->coll == PCS_REDUCE_SCATTER)
            pcs_copy(c, S, 0, R, 0, (uint64_t)a->counts[0] * ts);
    }
}

/* ==== the data movements ==== */

/* nbc_iallgather.c: linear (l.330) or recursive doubling (l.388) */
static void iallgather(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const uint64_t ts = c->ts, blk = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    /* nbc_iallgather.c:99: the own block is copied before the schedule is built */
    if (!inplace)
        pcs_copy(c, S, 0, R, (uint64_t)rank * blk, blk);
    if (p == 1)
        return;
    if (ch->alg == PCS_ALG_NBC_ALLGATHER_LINEAR) { /* l.330 */
        for (int r = 0; r < p; r++)
            if (r != rank) {
                nbc_recv(n, 0, r, R, (uint64_t)r * blk, blk, false);
                nbc_send(n, 0, r, R, (uint64_t)rank * blk, blk, false);
            }
        *gsteps = 1;
    } else { /* l.388 */
        int loc = rank, k = 0;
        for (int d = 1; d < p; d <<= 1, k++) {
            const int remote = rank ^ d;
            const uint64_t so = (uint64_t)loc * blk;
            uint64_t ro;
            if (rank < remote) {
                ro = (uint64_t)(loc + d) * blk;
            } else {
                ro = (uint64_t)(loc - d) * blk;
                loc -= d;
            }
            nbc_send(n, k, remote, R, so, (uint64_t)d * blk, false);
            nbc_recv(n, k, remote, R, ro, (uint64_t)d * blk, true);
        }
        *gsteps = k;
    }
}

/* nbc_iallgatherv.c:53 */
static void iallgatherv(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const bool inplace = a->in_place;
    const int64_t *cn = a->counts, *dp = a->displs;
    if (!inplace)
        pcs_copy(c, S, 0, R, vd(c, cn, dp, rank), vn(c, cn, rank));
    for (int r = 1; r < p; r++) {
        const int sp = (rank + r) % p, rp = (rank - r + p) % p;
        nbc_recv(n, 0, rp, R, vd(c, cn, dp, rp), vn(c, cn, rp), false);
        nbc_send(n, 0, sp, R, vd(c, cn, dp, rank), vn(c, cn, rank), false);
    }
    *gsteps = p > 1;
}

/* nbc_ialltoall.c:200, a2a_sched_linear */
static void ialltoall_linear(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const uint64_t ts = c->ts, blk = (uint64_t)a->count * ts;
    nbc_copy(n, S, (uint64_t)rank * blk, R, (uint64_t)rank * blk, blk, false);
    for (int r = 0; r < p; r++)
        if (r != rank) {
            nbc_recv(n, 0, r, R, (uint64_t)r * blk, blk, false);
            nbc_send(n, 0, r, S, (uint64_t)r * blk, blk, false);
        }
    *gsteps = p > 1;
}

/* a2a_sched_inplace */
static void ialltoall_inplace(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const uint64_t ts = c->ts, blk = (uint64_t)a->count * ts;
    pcs_need_tmp(c, T, blk);
    int i;
    for (i = 1; i < (p + 1) / 2; i++) {
        const int sp = (rank + i) % p, rp = (rank + p - i) % p;
        const int64_t st = 2 * (i - 1);
        nbc_copy(n, R, (uint64_t)rp * blk, T, 0, blk, true);
        nbc_send(n, st, sp, R, (uint64_t)sp * blk, blk, false);
        nbc_recv(n, st, rp, R, (uint64_t)rp * blk, blk, true);
        nbc_send(n, st + 1, rp, T, 0, blk, false);
        nbc_recv(n, st + 1, sp, R, (uint64_t)sp * blk, blk, true);
    }
    if (p % 2 == 0) {
        const int peer = (rank + p / 2) % p;
        nbc_copy(n, R, (uint64_t)peer * blk, T, 0, blk, true);
        nbc_send(n, 2 * (i - 1), peer, T, 0, blk, false);
        nbc_recv(n, 2 * (i - 1), peer, R, (uint64_t)peer * blk, blk, true);
    }
    *gsteps = a2a_steps(p);
}

/* a2av_sched_linear, a2aw_sched_linear */
static void ialltoallv_linear(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const int64_t *rc = a->counts, *rd = a->displs, *sc = a->scounts, *sd = a->sdispls;
    if (sc[rank] != 0)
        nbc_copy(n, S, vd(c, sc, sd, rank), R, vd(c, rc, rd, rank), vn(c, sc, rank), false);
    for (int i = 0; i < p; i++) {
        if (i == rank)
            continue;
        if (sc[i] != 0) /* w: span > 0, the same for types of positive size */
            nbc_send(n, 0, i, S, vd(c, sc, sd, i), vn(c, sc, i), false);
        if (rc[i] != 0)
            nbc_recv(n, 0, i, R, vd(c, rc, rd, i), vn(c, rc, i), false);
    }
    *gsteps = p > 1;
}

/* ialltoallv/w in place: nothing when every block is empty */
static void ialltoallv_inplace(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int p = c->size;
    uint64_t maxn = 0; /* l.69: the largest block, this rank's own included */
    for (int i = 0; i < p; i++)
        if (vn(c, a->counts, i) > maxn)
            maxn = vn(c, a->counts, i);
    if (maxn == 0)
        return; /* an empty request */
    pcs_need_tmp(c, T, maxn);
    a2av_inplace(n, ch->alg == PCS_ALG_NBC_ALLTOALLW_INPLACE);
    *gsteps = a2a_steps(p);
}

/* nbc_igather.c:94, nbc_igatherv.c:63, nbc_iscatter.c:91, nbc_iscatterv.c:55: the root
 * posts one message per other rank in rank order (zero counts too) and copies its own block,
 * the others one message. v: blocks by counts/displs, else of count elements packed. A
 * non-root's message, and the root's own copy in a gatherv, is this rank's own count. */
static void linear_rooted(nbc_t *n, bool scatter, bool v, int64_t *gsteps)
{
    pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const uint64_t blk = (uint64_t)a->count * c->ts;
    const uint64_t own = v ? (uint64_t)a->own_count * c->ts : blk;
#define BOFF(i) (v ? vd(c, a->counts, a->displs, (i)) : (uint64_t)(i) * blk)
#define BLEN(i) (v ? vn(c, a->counts, (i)) : blk)
    if (rank != a->root) {
        if (scatter)
            nbc_recv(n, 0, a->root, R, 0, own, false);
        else
            nbc_send(n, 0, a->root, S, 0, own, false);
    } else {
        for (int i = 0; i < p; i++) {
            if (i == rank) {
                if (a->in_place)
                    continue;
                if (scatter)
                    nbc_copy(n, S, BOFF(i), R, 0, BLEN(i), false);
                else
                    nbc_copy(n, S, 0, R, BOFF(i), own, false);
            } else if (scatter) {
                nbc_send(n, 0, i, S, BOFF(i), BLEN(i), false);
            } else {
                nbc_recv(n, 0, i, R, BOFF(i), BLEN(i), false);
            }
        }
    }
#undef BOFF
#undef BLEN
    *gsteps = p > 1;
}

/* ==== dispatch ==== */
void pcs_gen_nbc(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    nbc_t nb = {.c = c, .nreq = 0}, *n = &nb;
    c->tag = TAG_NBC;
    *gsteps = 0;
    switch (ch->alg) {
    case PCS_ALG_NONE: size1_copies(n); break;
    case PCS_ALG_NBC_BARRIER_DISSEMINATION: ibarrier(n, gsteps); break;
    case PCS_ALG_NBC_BCAST_LINEAR: case PCS_ALG_NBC_BCAST_BINOMIAL:
    case PCS_ALG_NBC_BCAST_CHAIN: case PCS_ALG_NBC_BCAST_KNOMIAL:
        ibcast(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_REDUCE_BINOMIAL: case PCS_ALG_NBC_REDUCE_CHAIN:
    case PCS_ALG_NBC_REDUCE_REDSCAT_GATHER:
        pcs_nbc_ireduce(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLREDUCE_BINOMIAL: case PCS_ALG_NBC_ALLREDUCE_RING:
    case PCS_ALG_NBC_ALLREDUCE_REDSCAT_ALLGATHER: case PCS_ALG_NBC_ALLREDUCE_RECURSIVE_DOUBLING:
        pcs_nbc_iallreduce(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLGATHER_LINEAR: case PCS_ALG_NBC_ALLGATHER_RECURSIVE_DOUBLING:
        iallgather(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLGATHERV_LINEAR: iallgatherv(n, ch, gsteps); break;
    case PCS_ALG_NBC_ALLTOALL_LINEAR: ialltoall_linear(n, ch, gsteps); break;
    case PCS_ALG_NBC_ALLTOALL_INPLACE: ialltoall_inplace(n, ch, gsteps); break;
    case PCS_ALG_NBC_ALLTOALLV_LINEAR: case PCS_ALG_NBC_ALLTOALLW_LINEAR:
        ialltoallv_linear(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLTOALLV_INPLACE: case PCS_ALG_NBC_ALLTOALLW_INPLACE:
        ialltoallv_inplace(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_GATHER_LINEAR: linear_rooted(n, false, false, gsteps); break;
    case PCS_ALG_NBC_GATHERV_LINEAR: linear_rooted(n, false, true, gsteps); break;
    case PCS_ALG_NBC_SCATTER_LINEAR: linear_rooted(n, true, false, gsteps); break;
    case PCS_ALG_NBC_SCATTERV_LINEAR: linear_rooted(n, true, true, gsteps); break;
    case PCS_ALG_NBC_REDUCE_SCATTER_BINOMIAL_LINEAR:
        pcs_nbc_ireduce_scatter(n, false, gsteps);
        break;
    case PCS_ALG_NBC_RSB_BINOMIAL_LINEAR: pcs_nbc_ireduce_scatter(n, true, gsteps); break;
    case PCS_ALG_NBC_SCAN_LINEAR: case PCS_ALG_NBC_EXSCAN_LINEAR:
    case PCS_ALG_NBC_SCAN_RECURSIVE_DOUBLING: case PCS_ALG_NBC_EXSCAN_RECURSIVE_DOUBLING:
        pcs_nbc_iscan(n, ch, gsteps);
        break;
    default: c->s->err = PCS_E_UNSUPPORTED; return;
    }
    nbc_barrier(n); /* NBC_Sched_commit: the last round (the early returns posted nothing) */
}

