/* coll_ompi_vrs.c: per-rank schedules of Open MPI 4.1's v-variant collectives (allgatherv,
 * alltoallv/w, gatherv, scatterv), its reduce-scatters (reduce_scatter, reduce_scatter_block)
 * and scans (scan, exscan), written from a reading of ompi/mca/coll/base and coll/basic
 * v4.1.4: the same messages in the same order, the same buffers and the same reduction
 * operand order. */
#include "coll_ompi.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- allgatherv (coll_base_allgatherv.c) ---- */

static void piece_blocks(pcs_ctx_t *c, int buf, const int64_t *counts, const int64_t *displs,
                         int first, int n)
{
    for (int i = 0; i < n; i++) {
        int j = (first + i) % c->size;
        if (counts[j] > 0)
            pcs_piece(c, buf, pcs_vdisp(c->ts, counts, displs, j), (uint64_t)counts[j] * c->ts);
    }
}

static uint64_t sum_blocks(const pcs_ctx_t *c, const int64_t *counts, int first, int n)
{
    uint64_t t = 0;
    for (int i = 0; i < n; i++)
        t += (uint64_t)counts[(first + i) % c->size];
    return t * c->ts;
}

/* block i of the receive buffer: byte offset, bytes */
#define D(i) pcs_vdisp(c->ts, c->a->counts, c->a->displs, (i))
#define N(i) ((uint64_t)c->a->counts[(i)] * c->ts)

static void allgatherv_gatherv_bcast(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    const int64_t *cn = a->counts, *dp = a->displs;
    const bool inplace = a->in_place;
    /* l.591: gatherv to 0 (coll/basic; in place, a rank sends its block of rbuf, so
     * even rank 0 is not MPI_IN_PLACE there), then a bcast through the rules of one
     * indexed datatype covering every block */
    pcs_args_t ga = *a, ba = *a;
    ga.coll = PCS_GATHERV;
    ga.root = 0;
    ga.own_count = cn[rank];
    ga.in_place = false;
    pcs_choice_t gc = {.component = PCS_COMP_BASIC, .lib_alg = 1,
                       .alg = PCS_ALG_GATHERV_LINEAR};
    pcs_ctx_t g = *c;
    if (inplace) {
        g.map[S] = c->map[R];
        g.shift[S] = c->shift[R] + D(rank);
    }
    int64_t g1 = 0, g2 = 0;
    if (pcs_gen_sub(&g, &ga, &gc, &g1))
        return;
    ba.coll = PCS_BCAST;
    ba.root = 0;
    ba.count = 1;
    ba.type_size = sum_blocks(c, cn, 0, size);
    ba.in_place = false;
    pcs_choice_t bc;
    pcs_err_t e = pcs_ompi41_select(&ba, NULL, &bc);
    if (e) {
        c->s->err = e;
        return;
    }
    pcs_ctx_t b = *c;
    b.step_base += (uint32_t)g1;
    b.map[R] = PCS_BUF_VIEW;
    b.vbuf = c->map[R];
    b.nv = size;
    b.vcounts = cn;
    b.vdispls = dp;
    b.vts = ts;
    pcs_gen_sub(&b, &ba, &bc, &g2);
    *gsteps = g1 + g2;
}

/* l.101 */
static void allgatherv_bruck(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank, size = c->size;
    const int64_t *cn = a->counts, *dp = a->displs;
    const bool inplace = a->in_place;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, D(rank), N(rank));
    int k = 0;
    for (int d = 1; d < size; d <<= 1, k++) {
        const int from = (rank + d) % size, to = (rank - d + size) % size;
        const int bc = d <= (size >> 1) ? d : size - d;
        pcs_at(c, k);
        pcs_xfer(c, PCS_OP_IRECV, 0, from, sum_blocks(c, cn, from, bc), 0);
        piece_blocks(c, R, cn, dp, from, bc);
        pcs_xfer(c, PCS_OP_SEND, 0, to, sum_blocks(c, cn, rank, bc), 0);
        piece_blocks(c, R, cn, dp, rank, bc);
        pcs_wait(c, 0);
    }
    *gsteps = k;
}

/* l.235 */
static void allgatherv_ring(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank, size = c->size;
    const bool inplace = a->in_place;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, D(rank), N(rank));
    for (int i = 0; i < size - 1; i++) {
        const int rdf = (rank - i - 1 + size) % size, sdf = (rank - i + size) % size;
        pcs_at(c, i);
        pcs_sendrecv(c, 0, (rank + 1) % size, R, D(sdf), N(sdf), (rank - 1 + size) % size,
                     R, D(rdf), N(rdf));
    }
    *gsteps = size - 1;
}

/* l.368, even size (selection: ring otherwise) */
static void allgatherv_neighbor(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank, size = c->size;
    const int64_t *cn = a->counts, *dp = a->displs;
    const bool inplace = a->in_place;
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, D(rank), N(rank));
    const bool even = rank % 2 == 0;
    int nb[2], rdf[2], off[2];
    nb[0] = even ? (rank + 1) % size : (rank - 1 + size) % size;
    nb[1] = even ? (rank - 1 + size) % size : (rank + 1) % size;
    rdf[0] = rdf[1] = even ? rank : nb[0];
    off[0] = even ? 2 : -2;
    off[1] = even ? -2 : 2;
    pcs_sendrecv(c, 0, nb[0], R, D(rank), N(rank), nb[0], R, D(nb[0]), N(nb[0]));
    int sdf = even ? rank : rdf[0];
    for (int i = 1; i < size / 2; i++) {
        const int ip = i % 2;
        rdf[ip] = (rdf[ip] + off[ip] + size) % size;
        pcs_at(c, i);
        pcs_xfer(c, PCS_OP_IRECV, 0, nb[ip], sum_blocks(c, cn, rdf[ip], 2), 0);
        piece_blocks(c, R, cn, dp, rdf[ip], 2);
        pcs_xfer(c, PCS_OP_SEND, 0, nb[ip], sum_blocks(c, cn, sdf, 2), 0);
        piece_blocks(c, R, cn, dp, sdf, 2);
        pcs_wait(c, 0);
        sdf = rdf[ip];
    }
    *gsteps = size / 2;
}

/* l.531 */
static void allgatherv_two_procs(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank;
    const bool inplace = a->in_place;
    const int r = rank ^ 1;
    pcs_at(c, 0);
    pcs_sendrecv(c, 0, r, inplace ? R : S, inplace ? D(rank) : 0, N(rank), r, R, D(r), N(r));
    if (!inplace)
        pcs_copy(c, S, 0, R, D(rank), N(rank));
    *gsteps = 1;
}

void pcs_gen_allgatherv(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_ALLGATHERV_DEFAULT, allgatherv_gatherv_bcast},
        {PCS_ALG_ALLGATHERV_BRUCK, allgatherv_bruck},
        {PCS_ALG_ALLGATHERV_RING, allgatherv_ring},
        {PCS_ALG_ALLGATHERV_NEIGHBOR, allgatherv_neighbor},
        {PCS_ALG_ALLGATHERV_TWO_PROCS, allgatherv_two_procs},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}
#undef D
#undef N

/* ---- alltoallv (coll_base_alltoallv.c): counts/displs receive side, scounts/sdispls send
 * side ---- */
/* block i of the receive and the send buffer: byte offset, bytes */
#define RD(i) pcs_vdisp(c->ts, c->a->counts, c->a->displs, (i))
#define RN(i) ((uint64_t)c->a->counts[(i)] * c->ts)
#define SD(i) pcs_vdisp(c->ts, c->a->scounts, c->a->sdispls, (i))
#define SN(i) ((uint64_t)c->a->scounts[(i)] * c->ts)

/* l.259: persistent requests (monitoring: external) */
static void alltoallv_linear(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank, size = c->size;
    pcs_at(c, 0);
    if (a->scounts[rank] != 0)
        pcs_copy(c, S, SD(rank), R, RD(rank), SN(rank));
    int k = 0;
    for (int i = 0; i < size; i++)
        if (i != rank)
            pcs_irecv(c, k++, i, R, RD(i), RN(i));
    for (int i = 0; i < size; i++)
        if (i != rank)
            pcs_isend_flags(c, k++, i, S, SD(i), SN(i), PCS_F_PERSISTENT);
    for (int i = 0; i < k; i++)
        pcs_wait(c, i);
    *gsteps = 1;
}

/* l.183 */
static void alltoallv_pairwise(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    for (int st = 0; st < size; st++) {
        const int to = (rank + st) % size, from = (rank + size - st) % size;
        pcs_at(c, st);
        pcs_sendrecv(c, 0, to, S, SD(to), SN(to), from, R, RD(from), RN(from));
    }
    *gsteps = size;
}

/* coll_basic_alltoallw.c:177: persistent requests, empty messages skipped (unlike
 * alltoallv) */
static void alltoallw_linear(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    pcs_at(c, 0);
    pcs_copy(c, S, SD(rank), R, RD(rank), SN(rank));
    if (size == 1)
        return;
    int k = 0;
    for (int i = 0; i < size; i++)
        if (i != rank && RN(i) != 0)
            pcs_irecv(c, k++, i, R, RD(i), RN(i));
    for (int i = 0; i < size; i++)
        if (i != rank && SN(i) != 0)
            pcs_isend_flags(c, k++, i, S, SD(i), SN(i), PCS_F_PERSISTENT);
    for (int i = 0; i < k; i++)
        pcs_wait(c, i);
    *gsteps = 1;
}

/* alltoallv.c:42 (coll_basic_alltoallw.c:47 the same exchanges): with rank +- i, a packed
 * copy out */
static void alltoallv_inplace(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    uint64_t maxn = 0, maxt = 0;
    /* alltoallw sizes its scratch by the right-hand peers only (l.66) */
    const bool w = ch->alg == PCS_ALG_ALLTOALLW_INPLACE;
    for (int i = 0; i < size; i++) {
        if (i != rank && RN(i) > maxn)
            maxn = RN(i);
        if (i != rank && RN(i) > maxt && (!w || (i - rank + size) % size <= size / 2))
            maxt = RN(i);
    }
    if (size == 1 || maxn == 0)
        return;
    pcs_need_tmp(c, T, maxt);
    for (int i = 1; i <= size / 2; i++) {
        const int right = (rank + i) % size, left = (rank + size - i) % size;
        bool posted = false;
        pcs_at(c, i - 1);
        if (RN(right) != 0) {
            pcs_copy(c, R, RD(right), T, 0, RN(right));
            pcs_irecv(c, 0, right, R, RD(right), RN(right));
            posted = true;
        }
        if (left != right && RN(left) != 0) {
            pcs_send(c, left, R, RD(left), RN(left));
            if (posted)
                pcs_wait(c, 0);
            pcs_irecv(c, 0, left, R, RD(left), RN(left));
            posted = true;
        }
        if (RN(right) != 0)
            pcs_send(c, right, T, 0, RN(right));
        if (posted)
            pcs_wait(c, 0);
    }
    *gsteps = size / 2;
}

void pcs_gen_alltoallv(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_ALLTOALLV_LINEAR, alltoallv_linear},
        {PCS_ALG_ALLTOALLV_PAIRWISE, alltoallv_pairwise},
        {PCS_ALG_ALLTOALLW_LINEAR, alltoallw_linear},
        {PCS_ALG_ALLTOALLV_INPLACE, alltoallv_inplace},
        {PCS_ALG_ALLTOALLW_INPLACE, alltoallv_inplace},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}
#undef RD
#undef RN
#undef SD
#undef SN

/* ---- gatherv / scatterv (coll/basic): linear, zero counts skipped ---- */
void pcs_gen_gatherv(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const bool scatter = ch->alg == PCS_ALG_SCATTERV_LINEAR;
    const pcs_args_t *a = c->a;
    const uint64_t ts = c->ts;
    *gsteps = 1;
    pcs_at(c, 0);
    if (c->rank != a->root) {
        if (a->own_count > 0) {
            if (scatter)
                pcs_recv(c, a->root, R, 0, (uint64_t)a->own_count * ts);
            else
                pcs_send(c, a->root, S, 0, (uint64_t)a->own_count * ts);
        }
        return;
    }
    for (int i = 0; i < c->size; i++) {
        uint64_t n = (uint64_t)a->counts[i] * ts, off = pcs_vdisp(ts, a->counts, a->displs, i);
        if (i == c->rank) {
            if (!a->in_place) {
                if (scatter)
                    pcs_copy(c, S, off, R, 0, n);
                else
                    pcs_copy(c, S, 0, R, off, n);
            }
        } else if (n > 0) {
            if (scatter)
                pcs_send(c, i, S, off, n);
            else
                pcs_recv(c, i, R, off, n);
        }
    }
}

/* ---- reduce_scatter (coll_base_reduce_scatter.c): counts = recvcounts, blocks packed ---- */

/* rs halving: the counts of the shrunk communicator (pairs of the remainder merged) */
static int64_t rs_tcount(const pcs_ctx_t *c, int rem, int i)
{
    const int64_t *cn = c->a->counts;
    return i < rem ? cn[2 * i] + cn[2 * i + 1] : cn[i + rem];
}
static int64_t rs_tsum(const pcs_ctx_t *c, int rem, int lo, int hi) /* [lo, hi) */
{
    int64_t t = 0;
    for (int i = lo; i < hi; i++)
        t += rs_tcount(c, rem, i);
    return t;
}

/* l.629: elements of the shrunk blocks lo..hi (inclusive) */
static int64_t rs_sum_counts(const pcs_ctx_t *c, int rem, int lo, int hi)
{
    lo = lo < rem ? lo * 2 : lo + rem;
    hi = hi < rem ? hi * 2 + 1 : hi + rem;
    return (int64_t)(pcs_vdisp(1, c->a->counts, NULL, hi) + (uint64_t)c->a->counts[hi] -
                     pcs_vdisp(1, c->a->counts, NULL, lo));
}

#define D(i) pcs_vdisp(c->ts, c->a->counts, NULL, (i))
#define N(i) ((uint64_t)c->a->counts[(i)] * c->ts)

/* l.47: reduce of the whole vector to 0 (rules), then coll/basic scatterv */
static void rs_nonoverlapping(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int rank = c->rank;
    const int64_t total = pcs_sum(a->counts, 0, c->size);
    pcs_args_t ra = *a, sa = *a;
    ra.coll = PCS_REDUCE;
    ra.root = 0;
    ra.count = total;
    ra.in_place = a->in_place && rank == 0;
    pcs_ctx_t g = *c;
    int tmp = R; /* where rank 0 holds the reduced vector */
    if (a->in_place && rank != 0) {
        g.map[S] = c->map[R];
        g.shift[S] = c->shift[R];
    } else if (!a->in_place && rank == 0) {
        pcs_need_tmp(c, T3, (uint64_t)total * c->ts);
        g.map[R] = c->map[T3];
        g.shift[R] = c->shift[T3];
        tmp = T3;
    }
    pcs_choice_t rc;
    pcs_err_t e = pcs_ompi41_select(&ra, NULL, &rc);
    int64_t g1 = 0, g2 = 0;
    if (e) {
        c->s->err = e;
        return;
    }
    if (pcs_gen_sub(&g, &ra, &rc, &g1))
        return;
    sa.coll = PCS_SCATTERV;
    sa.root = 0;
    sa.displs = NULL;
    sa.own_count = a->counts[rank];
    sa.in_place = a->in_place && rank == 0;
    pcs_choice_t sc = {.component = PCS_COMP_BASIC, .lib_alg = 1,
                       .alg = PCS_ALG_SCATTERV_LINEAR};
    pcs_ctx_t h = *c;
    h.step_base += (uint32_t)g1;
    h.map[S] = c->map[tmp];
    h.shift[S] = c->shift[tmp];
    pcs_gen_sub(&h, &sa, &sc, &g2);
    *gsteps = g1 + g2;
}

/* l.132: result_buf T, recv_buf T2 */
static void rs_recursive_halving(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts, tb = (uint64_t)pcs_sum(c->a->counts, 0, size) * ts;
    const int tsize = pcs_pow2_floor(size), remain = size - tsize;
    const int base = remain > 0 ? 1 : 0, lg = pcs_log2_floor(tsize);
    pcs_need_tmp(c, T, tb);
    pcs_need_tmp(c, T2, tb);
    pcs_at(c, 0);
    pcs_copy(c, c->a->in_place ? R : S, 0, T, 0, tb);
    const int trank = pcs_fold_even(c, remain, T, T2, tb);
    if (trank >= 0) {
        int si = 0, ri = 0, last = tsize, k = 0;
        for (int mask = tsize >> 1; mask > 0; mask >>= 1, k++) {
            const int tpeer = trank ^ mask, peer = pcs_fold_rank(tpeer, remain);
            int64_t sc, rcn;
            if (trank < tpeer) {
                si = ri + mask;
                sc = rs_tsum(c, remain, si, last);
                rcn = rs_tsum(c, remain, ri, si);
            } else {
                ri = si + mask;
                sc = rs_tsum(c, remain, si, ri);
                rcn = rs_tsum(c, remain, ri, last);
            }
            const uint64_t ro = (uint64_t)rs_tsum(c, remain, 0, ri) * ts;
            pcs_at(c, base + k);
            if (rcn > 0)
                pcs_irecv(c, 0, peer, T2, ro, (uint64_t)rcn * ts);
            if (sc > 0)
                pcs_send(c, peer, T, (uint64_t)rs_tsum(c, remain, 0, si) * ts,
                         (uint64_t)sc * ts);
            if (rcn > 0) {
                pcs_wait(c, 0);
                pcs_reduce(c, T2, ro, T, ro, (uint64_t)rcn * ts);
            }
            si = ri;
            last = ri + mask;
        }
        pcs_copy(c, T, D(rank), R, 0, N(rank));
    }
    if (rank < 2 * remain) { /* the folded ranks get their block back */
        pcs_at(c, base + lg);
        if ((rank & 1) == 0) {
            if (c->a->counts[rank])
                pcs_recv(c, rank + 1, R, 0, N(rank));
        } else if (c->a->counts[rank - 1]) {
            pcs_send(c, rank - 1, T, D(rank - 1), N(rank - 1));
        }
    }
    *gsteps = base + lg + (remain > 0 ? 1 : 0);
}

/* l.456: accumbuf T, inbuf[2] T2 */
static void rs_ring(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const int64_t *cn = c->a->counts;
    int64_t maxb = 0;
    for (int i = 0; i < size; i++)
        maxb = cn[i] > maxb ? cn[i] : maxb;
    const uint64_t half = (uint64_t)maxb * c->ts;
    pcs_need_tmp(c, T, (uint64_t)pcs_sum(cn, 0, size) * c->ts);
    pcs_need_tmp(c, T2, 2 * half);
    pcs_at(c, 0);
    pcs_copy(c, c->a->in_place ? R : S, 0, T, 0, (uint64_t)pcs_sum(cn, 0, size) * c->ts);
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int inbi = 0;
    /* the k-th message from `from` carries block (rank - 1 - k) */
    pcs_irecv(c, inbi, from, T2, 0, N((rank + 2 * size - 2) % size));
    pcs_send(c, to, T, D(from), N(from));
    for (int k = 2; k < size; k++) {
        const int prev = (rank + size - k) % size;
        inbi ^= 1;
        pcs_at(c, k - 1);
        pcs_irecv(c, inbi, from, T2, inbi * half, N((rank + 2 * size - 1 - k) % size));
        pcs_wait(c, inbi ^ 1);
        pcs_reduce(c, T2, (inbi ^ 1) * half, T, D(prev), N(prev));
        pcs_send(c, to, T, D(prev), N(prev));
    }
    pcs_wait(c, inbi);
    pcs_reduce(c, T2, inbi * half, T, D(rank), N(rank));
    pcs_copy(c, T, D(rank), R, 0, N(rank));
    *gsteps = size - 1;
}

/* l.691: psend/precv swap between T and T2 */
static void rs_butterfly(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts, tb = (uint64_t)pcs_sum(c->a->counts, 0, size) * ts;
    const int pof2 = pcs_pow2_floor(size), rem = size - pof2, lg = pcs_log2_floor(pof2);
    const int base = rem > 0 ? 1 : 0;
    pcs_need_tmp(c, T, tb);
    pcs_need_tmp(c, T2, tb);
    pcs_at(c, 0);
    pcs_copy(c, c->a->in_place ? R : S, 0, T, 0, tb);
    int ps = T, pr = T2;
    const int vrank = pcs_fold_even(c, rem, ps, pr, tb);
#define IDX(i) ((i) < rem ? 2 * (i) : rem + (i))
    if (vrank != -1) {
        int nblocks = pof2, si = 0, ri = 0, k = 0;
        for (int mask = 1; mask < pof2; mask <<= 1, k++) {
            const int vpeer = vrank ^ mask, peer = pcs_fold_rank(vpeer, rem);
            nblocks /= 2;
            if ((vrank & mask) == 0)
                si += nblocks;
            else
                ri += nblocks;
            const uint64_t sn = (uint64_t)rs_sum_counts(c, rem, si, si + nblocks - 1) * ts;
            const uint64_t rn = (uint64_t)rs_sum_counts(c, rem, ri, ri + nblocks - 1) * ts;
            const uint64_t so = D(IDX(si)), ro = D(IDX(ri));
            pcs_at(c, base + k);
            pcs_sendrecv(c, 0, peer, ps, so, sn, peer, pr, ro, rn);
            if (vrank < vpeer) {
                pcs_reduce(c, ps, ro, pr, ro, rn);
                int x = ps;
                ps = pr;
                pr = x;
            } else {
                pcs_reduce(c, pr, ro, ps, ro, rn);
            }
            si = ri;
        }
        /* the blocks to their owners: vrank holds the one of its bit-reversed vrank */
        const int vpeer = pcs_mirror(vrank, lg), peer = pcs_fold_rank(vpeer, rem);
        int idx = IDX(si);
        pcs_at(c, base + lg);
        if (vpeer < rem) {
            pcs_send(c, peer - 1, ps, D(idx), N(idx));
            idx++;
        }
        if (vpeer != vrank)
            pcs_sendrecv(c, 0, peer, ps, D(idx), N(idx), peer, R, 0, N(rank));
        else
            pcs_copy(c, ps, D(rank), R, 0, N(rank));
    } else {
        const int vpeer = pcs_mirror((rank + 1) / 2, lg);
        pcs_at(c, base + lg);
        pcs_recv(c, pcs_fold_rank(vpeer, rem), R, 0, N(rank));
    }
#undef IDX
    *gsteps = base + lg + 1;
}
#undef D
#undef N

void pcs_gen_reduce_scatter(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_REDUCE_SCATTER_NONOVERLAPPING, rs_nonoverlapping},
        {PCS_ALG_REDUCE_SCATTER_RECURSIVE_HALVING, rs_recursive_halving},
        {PCS_ALG_REDUCE_SCATTER_RING, rs_ring},
        {PCS_ALG_REDUCE_SCATTER_BUTTERFLY, rs_butterfly},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}

/* ---- reduce_scatter_block (coll_base_reduce_scatter_block.c): count = rcount ---- */

/* l.380: blocks a..b of the shrunk communicator, in blocks of the original one */
static int range_sum(int a, int b, int r)
{
    if (r < a)
        return b - a + 1;
    if (r > b)
        return 2 * (b - a + 1);
    return 2 * (r - a + 1) + b - r;
}

/* an indexed datatype of two blocks (bytes): [0, l0) and [d1, d1 + l1) of buf */
static void two_pieces(pcs_ctx_t *c, pcs_opkind_t kind, int peer, int buf, uint64_t l0,
                       uint64_t d1, uint64_t l1)
{
    pcs_xfer(c, kind, 0, peer, l0 + l1, 0);
    if (l0)
        pcs_piece(c, buf, 0, l0);
    if (l1)
        pcs_piece(c, buf, d1, l1);
}

/* l.56: reduce to 0 (never in place: sbuf = rbuf then) and scatter, both through the rules;
 * rank 0 reduces into a temporary (T3) */
static void rsb_linear(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    const int in = a->in_place ? R : S;
    pcs_args_t ra = *a, sa = *a;
    ra.coll = PCS_REDUCE;
    ra.root = 0;
    ra.count = a->count * c->size;
    ra.in_place = false;
    pcs_ctx_t g = *c;
    g.map[S] = c->map[in];
    g.shift[S] = c->shift[in];
    if (c->rank == 0) {
        pcs_need_tmp(c, T3, (uint64_t)a->count * c->ts * (uint64_t)c->size);
        g.map[R] = c->map[T3];
        g.shift[R] = c->shift[T3];
    }
    pcs_choice_t rch, sch;
    pcs_err_t e;
    sa.coll = PCS_SCATTER;
    sa.root = 0;
    sa.in_place = false;
    if ((e = pcs_ompi41_select(&ra, NULL, &rch)) || (e = pcs_ompi41_select(&sa, NULL, &sch))) {
        c->s->err = e;
        return;
    }
    int64_t g1 = 0, g2 = 0;
    if (pcs_gen_sub(&g, &ra, &rch, &g1))
        return;
    pcs_ctx_t h = *c;
    h.step_base += (uint32_t)g1;
    h.map[S] = c->map[T3];
    h.shift[S] = c->shift[T3];
    pcs_gen_sub(&h, &sa, &sch, &g2);
    *gsteps = g1 + g2;
}

/* l.196: tmpbuf T, tmprecv T2. A round with mask 2^k exchanges everything but the two
 * subtrees (an indexed type of two pieces), then k steps hand it to the ranks whose partner
 * is missing. */
static void rsb_recursive_doubling(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t rb = (uint64_t)c->a->count * c->ts, tb = rb * (uint64_t)size;
    pcs_need_tmp(c, T, tb);
    pcs_need_tmp(c, T2, tb);
    pcs_at(c, 0);
    pcs_copy(c, c->a->in_place ? R : S, 0, T, 0, tb);
    int64_t bk = 0;
    int k = 0;
    for (int mask = 1; mask < size; mask <<= 1, k++) {
        const int remote = rank ^ mask;
        const int ctr = rank & ~(mask - 1), rtr = remote & ~(mask - 1);
        const uint64_t s0 = rb * (uint64_t)ctr;
        const uint64_t s1 = size >= ctr + mask ? rb * (uint64_t)(size - ctr - mask) : 0;
        const uint64_t r0 = rb * (uint64_t)rtr;
        const uint64_t r1 = size >= rtr + mask ? rb * (uint64_t)(size - rtr - mask) : 0;
        bool got = false;
        if (remote < size) {
            pcs_at(c, bk);
            two_pieces(c, PCS_OP_IRECV, remote, T2, r0, tb - r1, r1);
            two_pieces(c, PCS_OP_SEND, remote, T, s0, tb - s1, s1);
            pcs_wait(c, 0);
            got = true;
        }
        if (rtr + mask > size) {
            /* ranks whose partner is missing get the other half's data from one that has it */
            const int nad = size - ctr - mask;
            int j = 0;
            for (int rh = mask >> 1; rh > 0; rh >>= 1, j++) {
                const int r = rank ^ rh, tr = rank & ~((rh << 1) - 1);
                pcs_at(c, bk + 1 + j);
                if (r > rank && rank < tr + nad && r >= tr + nad) {
                    two_pieces(c, PCS_OP_SEND, r, T2, r0, tb - r1, r1);
                } else if (r < rank && r < tr + nad && rank >= tr + nad) {
                    two_pieces(c, PCS_OP_RECV, r, T2, r0, tb - r1, r1);
                    got = true;
                }
            }
        }
        if (got) {
            if (c->a->commutative || rtr < ctr) {
                pcs_reduce(c, T2, 0, T, 0, r0);
                pcs_reduce(c, T2, tb - r1, T, tb - r1, r1);
            } else {
                pcs_reduce(c, T, 0, T2, 0, r0);
                pcs_reduce(c, T, tb - r1, T2, tb - r1, r1);
                pcs_copy(c, T2, 0, T, 0, r0);
                pcs_copy(c, T2, tb - r1, T, tb - r1, r1);
            }
        }
        bk += 1 + k;
    }
    pcs_copy(c, T, (uint64_t)rank * rb, R, 0, rb);
    *gsteps = bk;
}

#define DISPL(i) (rb * (uint64_t)((i) <= rem - 1 ? 2 * (i) : rem + (i)))

/* l.403, commutative (selection: linear else) */
static void rsb_recursive_halving(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t rb = (uint64_t)c->a->count * c->ts, tb = rb * (uint64_t)size;
    const int pof2 = pcs_pow2_floor(size), rem = size - pof2, lg = pcs_log2_floor(pof2);
    const int base = rem > 0 ? 1 : 0;
    pcs_need_tmp(c, T, tb);
    pcs_need_tmp(c, T2, tb);
    pcs_at(c, 0);
    pcs_copy(c, c->a->in_place ? R : S, 0, T, 0, tb);
    const int vrank = pcs_fold_even(c, rem, T, T2, tb);
    if (vrank != -1) {
        int si = 0, ri = 0, last = pof2, k = 0;
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1, k++) {
            const int vpeer = vrank ^ mask, peer = pcs_fold_rank(vpeer, rem);
            uint64_t sn, rn;
            if (vrank < vpeer) {
                si = ri + mask;
                sn = rb * (uint64_t)range_sum(si, last - 1, rem - 1);
                rn = rb * (uint64_t)range_sum(ri, si - 1, rem - 1);
            } else {
                ri = si + mask;
                sn = rb * (uint64_t)range_sum(si, ri - 1, rem - 1);
                rn = rb * (uint64_t)range_sum(ri, last - 1, rem - 1);
            }
            pcs_at(c, base + k);
            if (rn > 0)
                pcs_irecv(c, 0, peer, T2, DISPL(ri), rn);
            if (sn > 0)
                pcs_send(c, peer, T, DISPL(si), sn);
            if (rn > 0) {
                pcs_wait(c, 0);
                pcs_reduce(c, T2, DISPL(ri), T, DISPL(ri), rn);
            }
            si = ri;
            last = ri + mask;
        }
        pcs_copy(c, T, (uint64_t)rank * rb, R, 0, rb);
    }
    if (rank < 2 * rem) { /* the folded ranks get their block back */
        pcs_at(c, base + lg);
        if (rank % 2 == 0)
            pcs_recv(c, rank + 1, R, 0, rb);
        else
            pcs_send(c, rank - 1, T, (uint64_t)(rank - 1) * rb, rb);
    }
    *gsteps = base + lg + (rem > 0 ? 1 : 0);
}

/* l.892: the butterfly on a power-of-two size, blocks in bit-reversed order */
static void rsb_butterfly_pof2(pcs_ctx_t *c, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts, rb = (uint64_t)c->a->count * ts;
    const int lg = pcs_log2_floor(size);
    int ps = T, pr = T2;
    pcs_at(c, 0);
    for (int i = 0; i < size; i++)
        pcs_copy(c, c->a->in_place ? R : S, (uint64_t)i * rb, T,
                 (uint64_t)pcs_mirror(i, lg) * rb, rb);
    int64_t nb = c->a->count * size, si = 0, ri = 0; /* elements, as Open MPI counts */
    int k = 0;
    for (int mask = 1; mask < size; mask <<= 1, k++) {
        const int peer = rank ^ mask;
        nb /= 2;
        if ((rank & mask) == 0)
            si += nb;
        else
            ri += nb;
        pcs_at(c, k);
        pcs_sendrecv(c, 0, peer, ps, (uint64_t)si * ts, (uint64_t)nb * ts, peer, pr,
                     (uint64_t)ri * ts, (uint64_t)nb * ts);
        if (rank < peer) {
            pcs_reduce(c, ps, (uint64_t)ri * ts, pr, (uint64_t)ri * ts, (uint64_t)nb * ts);
            int x = ps;
            ps = pr;
            pr = x;
        } else {
            pcs_reduce(c, pr, (uint64_t)ri * ts, ps, (uint64_t)ri * ts, (uint64_t)nb * ts);
        }
        si = ri;
    }
    pcs_copy(c, ps, (uint64_t)ri * ts, R, 0, rb);
    *gsteps = k;
}

/* l.645: the butterfly on the power of two left after the fold */
static void rsb_butterfly(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t rb = (uint64_t)c->a->count * c->ts, tb = rb * (uint64_t)size;
    pcs_need_tmp(c, T, tb);
    pcs_need_tmp(c, T2, tb);
    if ((size & (size - 1)) == 0) {
        rsb_butterfly_pof2(c, gsteps);
        return;
    }
    const int pof2 = pcs_pow2_floor(size), rem = size - pof2, lg = pcs_log2_floor(pof2);
    const int base = rem > 0 ? 1 : 0;
    int ps = T, pr = T2;
    pcs_at(c, 0);
    pcs_copy(c, c->a->in_place ? R : S, 0, T, 0, tb);
    const int vrank = pcs_fold_even(c, rem, ps, pr, tb);
    if (vrank != -1) {
        int nblocks = pof2, si = 0, ri = 0, k = 0;
        for (int mask = 1; mask < pof2; mask <<= 1, k++) {
            const int vpeer = vrank ^ mask, peer = pcs_fold_rank(vpeer, rem);
            nblocks /= 2;
            if ((vrank & mask) == 0)
                si += nblocks;
            else
                ri += nblocks;
            const uint64_t sn = rb * (uint64_t)range_sum(si, si + nblocks - 1, rem - 1);
            const uint64_t rn = rb * (uint64_t)range_sum(ri, ri + nblocks - 1, rem - 1);
            pcs_at(c, base + k);
            pcs_sendrecv(c, 0, peer, ps, DISPL(si), sn, peer, pr, DISPL(ri), rn);
            if (vrank < vpeer) {
                pcs_reduce(c, ps, DISPL(ri), pr, DISPL(ri), rn);
                int x = ps;
                ps = pr;
                pr = x;
            } else {
                pcs_reduce(c, pr, DISPL(ri), ps, DISPL(ri), rn);
            }
            si = ri;
        }
        /* the blocks to their owners: vrank holds the one of its bit-reversed vrank */
        const int vpeer = pcs_mirror(vrank, lg), peer = pcs_fold_rank(vpeer, rem);
        uint64_t so = DISPL(si);
        pcs_at(c, base + lg);
        if (vpeer < rem) {
            pcs_send(c, peer - 1, ps, so, rb);
            so += rb;
        }
        if (vpeer != vrank)
            pcs_sendrecv(c, 0, peer, ps, so, rb, peer, R, 0, rb);
        else
            pcs_copy(c, ps, so, R, 0, rb);
    } else {
        const int vpeer = pcs_mirror((rank + 1) / 2, lg);
        pcs_at(c, base + lg);
        pcs_recv(c, pcs_fold_rank(vpeer, rem), R, 0, rb);
    }
    *gsteps = base + lg + 1;
}
#undef DISPL

void pcs_gen_rsb(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    static const pcs_alg_gen_t algs[] = {
        {PCS_ALG_RSB_LINEAR, rsb_linear},
        {PCS_ALG_RSB_RECURSIVE_DOUBLING, rsb_recursive_doubling},
        {PCS_ALG_RSB_RECURSIVE_HALVING, rsb_recursive_halving},
        {PCS_ALG_RSB_BUTTERFLY, rsb_butterfly},
    };
    PCS_GEN_PICK(c, ch, gsteps, algs);
}

/* ---- scan / exscan ---- */

/* coll/basic: the base linear algorithms */
static void scan_linear(pcs_ctx_t *c, bool ex, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    const int sb = inplace ? R : S;
    *gsteps = size - 1;
    if (!ex) {
        if (rank == 0) {
            if (!inplace)
                pcs_copy(c, S, 0, R, 0, len);
        } else {
            pcs_need_tmp(c, T, len);
            if (!inplace)
                pcs_copy(c, S, 0, R, 0, len);
            pcs_at(c, rank - 1);
            pcs_recv(c, rank - 1, T, 0, len);
            pcs_reduce(c, T, 0, R, 0, len);
        }
        if (rank < size - 1) {
            pcs_at(c, rank);
            pcs_send(c, rank + 1, R, 0, len);
        }
        return;
    }
    if (rank == 0) {
        pcs_at(c, 0);
        pcs_send(c, 1, sb, 0, len);
        return;
    }
    pcs_at(c, rank - 1);
    if (rank == size - 1) {
        pcs_recv(c, rank - 1, R, 0, len);
        return;
    }
    pcs_need_tmp(c, T, len);
    pcs_copy(c, sb, 0, T, 0, len);
    pcs_recv(c, rank - 1, R, 0, len);
    pcs_reduce(c, R, 0, T, 0, len);
    pcs_at(c, rank);
    pcs_send(c, rank + 1, T, 0, len);
}

/* recursive doubling (coll_base_scan.c:157, coll_base_exscan.c:142): psend T, precv T2 */
static void scan_rdbl(pcs_ctx_t *c, bool ex, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    const bool inplace = c->a->in_place;
    if (len == 0)
        return;
    pcs_at(c, 0);
    if (!ex && !inplace)
        pcs_copy(c, S, 0, R, 0, len);
    if (size < 2)
        return;
    pcs_need_tmp(c, T, len);
    pcs_need_tmp(c, T2, len);
    pcs_copy(c, ex ? (inplace ? R : S) : R, 0, T, 0, len);
    int ps = T, pr = T2, k = 0;
    bool first = true;
    for (int mask = 1; mask < size; mask <<= 1, k++) {
        const int remote = rank ^ mask;
        if (remote >= size)
            continue;
        pcs_at(c, k);
        pcs_sendrecv(c, 0, remote, ps, 0, len, remote, pr, 0, len);
        if (rank > remote) {
            if (ex && first)
                pcs_copy(c, pr, 0, R, 0, len);
            else
                pcs_reduce(c, pr, 0, R, 0, len);
            first = false;
            pcs_reduce(c, pr, 0, ps, 0, len);
        } else if (c->a->commutative) {
            pcs_reduce(c, pr, 0, ps, 0, len);
        } else {
            pcs_reduce(c, ps, 0, pr, 0, len);
            int x = ps;
            ps = pr;
            pr = x;
        }
    }
    *gsteps = k;
}

void pcs_gen_scan(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    *gsteps = 0;
    if (ch->alg == PCS_ALG_SCAN_RECURSIVE_DOUBLING || ch->alg == PCS_ALG_EXSCAN_RECURSIVE_DOUBLING)
        scan_rdbl(c, ch->alg == PCS_ALG_EXSCAN_RECURSIVE_DOUBLING, gsteps);
    else
        scan_linear(c, ch->alg == PCS_ALG_EXSCAN_LINEAR, gsteps);
}
