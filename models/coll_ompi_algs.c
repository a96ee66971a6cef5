/* coll_ompi_algs.c: per-rank schedules of Open MPI 4.1's base collective algorithms
 * (ompi/mca/coll/base, coll/basic), written from a reading of v4.1.4: the same messages in
 * the same order, the same buffers and the same reduction operand order. */
#include <stdlib.h>
#include <string.h>

#include "coll_build.h"

/* ompi/mca/coll/base/coll_tags.h */
enum {
    TAG_ALLGATHER = -10, TAG_ALLGATHERV = -11, TAG_ALLREDUCE = -12, TAG_ALLTOALL = -13,
    TAG_ALLTOALLV = -14, TAG_ALLTOALLW = -15, TAG_BARRIER = -16, TAG_BCAST = -17,
    TAG_EXSCAN = -18,
    TAG_GATHER = -19, TAG_GATHERV = -20, TAG_REDUCE = -21, TAG_REDUCE_SCATTER = -22,
    TAG_REDUCE_SCATTER_BLOCK = -23, TAG_SCAN = -24, TAG_SCATTER = -25, TAG_SCATTERV = -26
};

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- trees (coll_base_topo.c) ---- */
#define MAXKIDS 128
typedef enum { TR_BIN, TR_CHAIN, TR_BM, TR_INORDER_BM, TR_KM, TR_INORDER_BIN } trkind_t;
typedef struct tree {
    trkind_t kind;
    int param; /* fanout (chain), radix (kmtree) */
    int size, root;
} tree_t;
typedef struct node {
    int prev; /* -1 at the tree's root */
    int n;
    int next[MAXKIDS];
} node_t;

static int pown(int f, int k)
{
    int p = 1;
    while (k-- > 0)
        p *= f;
    return p;
}

static void node_bin(const tree_t *t, int rank, node_t *nd)
{
    const int fanout = 2, size = t->size, root = t->root;
    int sr = (rank - root + size) % size, level = 0, num = 0;
    for (level = 0, num = 0; num <= sr; level++)
        num += pown(fanout, level);
    level--;
    int delta = pown(fanout, level);
    for (int i = 0; i < fanout; i++) {
        int sc = sr + delta * (i + 1);
        if (sc >= size)
            break;
        nd->next[nd->n++] = (sc + root) % size;
    }
    int slimit = (pown(fanout, level) - 1) / (fanout - 1), sp = sr;
    if (sp < fanout)
        sp = 0;
    else
        while (sp >= slimit)
            sp -= delta / fanout;
    nd->prev = sr == 0 ? -1 : (sp + root) % size;
}

static void node_chain(const tree_t *t, int rank, node_t *nd)
{
    int size = t->size, root = t->root, fanout = t->param;
    if (fanout < 1)
        fanout = 1;
    if (fanout > 32)
        fanout = 32;
    if (size - 1 < fanout)
        fanout = size - 1;
    int sr = (rank - root + size) % size;
    if (fanout <= 1) {
        nd->prev = sr == 0 ? -1 : (sr - 1 + root) % size;
        if (sr + 1 < size)
            nd->next[nd->n++] = (sr + 1 + root) % size;
        return;
    }
    int maxlen = (size - 1) / fanout, mark;
    if ((size - 1) % fanout != 0) {
        maxlen++;
        mark = (size - 1) % fanout;
    } else {
        mark = fanout + 1;
    }
    if (sr != 0) {
        int head, len;
        if (sr - 1 < mark * maxlen) {
            head = 1 + (sr - 1) / maxlen * maxlen;
            len = maxlen;
        } else {
            int column = mark + (sr - 1 - mark * maxlen) / (maxlen - 1);
            head = mark * maxlen + 1 + (column - mark) * (maxlen - 1);
            len = maxlen - 1;
        }
        nd->prev = ((sr == head ? 0 : sr - 1) + root) % size;
        if (sr != head + len - 1 && sr + 1 < size)
            nd->next[nd->n++] = (sr + 1 + root) % size;
    } else {
        nd->prev = -1;
        nd->next[0] = (root + 1) % size;
        for (int i = 1; i < fanout; i++) {
            nd->next[i] = nd->next[i - 1] + maxlen;
            if (i > mark)
                nd->next[i]--;
            nd->next[i] %= size;
        }
        nd->n = fanout;
    }
}

static void node_bm(const tree_t *t, int rank, node_t *nd)
{
    int size = t->size, root = t->root, index = (rank - root + size) % size;
    int mask = 1;
    while (mask <= index) /* opal_next_poweroftwo: strictly greater */
        mask <<= 1;
    nd->prev = rank == root ? -1 : ((index ^ (mask >> 1)) + root) % size;
    for (; mask < size; mask <<= 1) {
        int remote = index ^ mask;
        if (remote >= size)
            break;
        nd->next[nd->n++] = (remote + root) % size;
    }
}

static void node_inorder_bm(const tree_t *t, int rank, node_t *nd)
{
    int size = t->size, root = t->root, vrank = (rank - root + size) % size;
    nd->prev = -1;
    for (int mask = 1; mask < size; mask <<= 1) {
        int remote = vrank ^ mask;
        if (remote < vrank) {
            nd->prev = (remote + root) % size;
            break;
        } else if (remote < size) {
            nd->next[nd->n++] = (remote + root) % size;
        }
    }
}

static void node_km(const tree_t *t, int rank, node_t *nd)
{
    int size = t->size, root = t->root, radix = t->param;
    int vrank = (rank - root + size) % size, mask = 1;
    nd->prev = -1;
    while (mask < size) {
        if (vrank % (radix * mask)) {
            nd->prev = (vrank / (radix * mask) * (radix * mask) + root) % size;
            break;
        }
        mask *= radix;
    }
    for (mask /= radix; mask > 0; mask /= radix)
        for (int r = 1; r < radix; r++) {
            int child = vrank + mask * r;
            if (child < size && nd->n < MAXKIDS)
                nd->next[nd->n++] = (child + root) % size;
        }
}

static void node_inorder_bin(const tree_t *t, int rank, node_t *nd)
{
    int size = t->size, myrank = rank, parent = size - 1, delta = 0;
    int next0 = -1, next1 = -1;
    nd->prev = -1;
    for (;;) {
        int rightsize = size >> 1, lchild = -1, rchild = -1;
        if (size - 1 > 0) {
            lchild = parent - 1;
            if (lchild > 0)
                rchild = rightsize - 1;
        }
        if (myrank == parent) {
            if (lchild >= 0)
                next0 = lchild + delta;
            if (rchild >= 0)
                next1 = rchild + delta;
            break;
        }
        if (myrank > rchild) {
            if (myrank == lchild)
                nd->prev = parent + delta;
            size = size - rightsize - 1;
            delta += rightsize;
            myrank -= rightsize;
            parent = size - 1;
        } else {
            if (myrank == rchild)
                nd->prev = parent + delta;
            size = rightsize;
            parent = rchild;
        }
    }
    /* tree_nextsize counts next[0] and next[1] separately; next[1] without next[0] cannot
     * happen (rchild >= 0 implies lchild > 0) */
    if (next0 >= 0)
        nd->next[nd->n++] = next0;
    if (next1 >= 0)
        nd->next[nd->n++] = next1;
}

static void tree_node(const tree_t *t, int rank, node_t *nd)
{
    nd->n = 0;
    switch (t->kind) {
    case TR_BIN: node_bin(t, rank, nd); break;
    case TR_CHAIN: node_chain(t, rank, nd); break;
    case TR_BM: node_bm(t, rank, nd); break;
    case TR_INORDER_BM: node_inorder_bm(t, rank, nd); break;
    case TR_KM: node_km(t, rank, nd); break;
    case TR_INORDER_BIN: node_inorder_bin(t, rank, nd); break;
    }
}

/* Edges from the tree's root to rank: O(depth) node computations. */
static int tree_depth(const tree_t *t, int rank)
{
    node_t nd;
    int d = 0;
    for (tree_node(t, rank, &nd); nd.prev >= 0; tree_node(t, nd.prev, &nd))
        d++;
    return d;
}

/* Longest path down from rank: O(subtree size). */
static int tree_height(const tree_t *t, int rank)
{
    node_t nd;
    tree_node(t, rank, &nd);
    int h = 0;
    for (int i = 0; i < nd.n; i++) {
        int hc = 1 + tree_height(t, nd.next[i]);
        if (hc > h)
            h = hc;
    }
    return h;
}

/* Height of the whole tree, memoised: every rank of a call needs it (the schedule's step
 * count) and computing it is O(P). It depends on the shape only (kind, parameter, size): the
 * trees are built on ranks shifted by the root, and the in-order ones have a fixed root. */
static int tree_root_height(const tree_t *t)
{
    enum { MEMO = 64 };
    static _Thread_local struct { int kind, param, size, height; } memo[MEMO];
    unsigned slot = ((unsigned)t->kind * 31u + (unsigned)t->param * 7u + (unsigned)t->size) % MEMO;
    if (memo[slot].size == t->size && memo[slot].size > 0 && memo[slot].kind == (int)t->kind &&
        memo[slot].param == t->param) {
#ifdef PCS_CHECK_MEMO
        if (memo[slot].height != tree_height(t, t->root))
            abort();
#endif
        return memo[slot].height;
    }
    int h = tree_height(t, t->root);
    memo[slot].kind = (int)t->kind;
    memo[slot].param = t->param;
    memo[slot].size = t->size;
    memo[slot].height = h;
    return h;
}

/* ---- bcast ---- */

/* ompi_coll_base_bcast_intra_generic (bcast.c:38). Buffer is R. Step of a segment's
 * message = sender's depth + segment index. */
static void bcast_generic(pcs_ctx_t *c, int64_t count, int64_t segcount, const tree_t *t)
{
    const uint64_t ts = c->ts;
    node_t nd;
    tree_node(t, c->rank, &nd);
    int64_t nseg = (count + segcount - 1) / segcount;
    uint64_t seg = (uint64_t)segcount * ts;
#define SEGLEN(s) ((uint64_t)((s) == nseg - 1 ? count - (s) * segcount : segcount) * ts)
    int depth = tree_depth(t, c->rank);
    if (nd.prev < 0) {
        for (int64_t s = 0; s < nseg; s++) {
            pcs_at(c, s);
            for (int i = 0; i < nd.n; i++)
                pcs_isend(c, 2 + i, nd.next[i], R, s * seg, SEGLEN(s));
            for (int i = 0; i < nd.n; i++)
                pcs_wait(c, 2 + i);
        }
        return;
    }
    int ri = 0;
    pcs_at(c, depth - 1);
    pcs_irecv(c, ri, nd.prev, R, 0, SEGLEN(0));
    for (int64_t s = 1; s < nseg; s++) {
        ri ^= 1;
        pcs_at(c, depth - 1 + s);
        pcs_irecv(c, ri, nd.prev, R, s * seg, SEGLEN(s));
        pcs_wait(c, ri ^ 1);
        for (int i = 0; i < nd.n; i++)
            pcs_isend(c, 2 + i, nd.next[i], R, (s - 1) * seg, seg);
        for (int i = 0; i < nd.n; i++)
            pcs_wait(c, 2 + i);
    }
    pcs_wait(c, ri);
    if (nd.n > 0) {
        pcs_at(c, depth + nseg - 1);
        for (int i = 0; i < nd.n; i++)
            pcs_isend(c, 2 + i, nd.next[i], R, (nseg - 1) * seg, SEGLEN(nseg - 1));
        for (int i = 0; i < nd.n; i++)
            pcs_wait(c, 2 + i);
    }
#undef SEGLEN
}

/* Global steps of bcast_generic: the deepest receiver's last segment. */
static int64_t bcast_generic_steps(const tree_t *t, int64_t count, int64_t segcount)
{
    return tree_root_height(t) + (count + segcount - 1) / segcount - 1;
}

/* ompi_coll_base_bcast_intra_basic_linear (bcast.c:628) */
static void bcast_linear(pcs_ctx_t *c, int64_t count, int root)
{
    uint64_t len = (uint64_t)count * c->ts;
    pcs_at(c, 0);
    if (c->rank != root) {
        pcs_recv(c, root, R, 0, len);
        return;
    }
    int k = 0;
    for (int i = 0; i < c->size; i++)
        if (i != root)
            pcs_isend(c, k++, i, R, 0, len);
    for (int i = 0; i < k; i++)
        pcs_wait(c, i);
}

/* bcast.c:361, both halves non-empty (selection falls back to chain(1) otherwise). Tree
 * messages: step = sender's depth + segment; then the pair exchange. */
static void bcast_split_bintree(pcs_ctx_t *c, int64_t count, int root, uint64_t segsize,
                                int64_t *gsteps)
{
    const int size = c->size, rank = c->rank;
    const uint64_t ts = c->ts;
    tree_t t = {.kind = TR_BIN, .size = size, .root = root};
    node_t nd;
    tree_node(&t, rank, &nd);
    int64_t cnt[2] = {(count + 1) / 2, 0}, segc[2], nseg[2];
    cnt[1] = count - cnt[0];
    for (int i = 0; i < 2; i++) {
        if (segsize > 0 && ts > 0) {
            segc[i] = (int64_t)((segsize < ts ? ts : segsize) / ts);
            nseg[i] = (cnt[i] + segc[i] - 1) / segc[i];
        } else {
            segc[i] = cnt[i];
            nseg[i] = 1;
        }
    }
    const uint64_t base[2] = {0, (uint64_t)cnt[0] * ts};
#define SOFF(i, s) (base[i] + (uint64_t)((s) * segc[i]) * ts)
#define SLEN(i, s) ((uint64_t)((s) == nseg[i] - 1 ? cnt[i] - (s) * segc[i] : segc[i]) * ts)
    const int lr = ((rank - root + size) % size + 1) % 2;
    const int depth = tree_depth(&t, rank);
    const int64_t G = tree_height(&t, root) + nseg[0] - 1;
    if (rank == root) {
        for (int64_t sg = 0; sg < nseg[0]; sg++)
            for (int i = 0; i < nd.n && i < 2; i++) {
                if (sg >= nseg[i])
                    continue;
                pcs_at(c, sg);
                pcs_send(c, nd.next[i], R, SOFF(i, sg), SLEN(i, sg));
            }
    } else if (nd.n > 0) {
        int cur = 0;
        pcs_at(c, depth - 1);
        pcs_irecv(c, cur, nd.prev, R, SOFF(lr, 0), SLEN(lr, 0));
        for (int64_t sg = 1; sg < nseg[lr]; sg++) {
            pcs_at(c, depth - 1 + sg);
            pcs_irecv(c, cur ^ 1, nd.prev, R, SOFF(lr, sg), SLEN(lr, sg));
            pcs_wait(c, cur);
            pcs_at(c, depth + sg - 1);
            for (int i = 0; i < nd.n; i++)
                pcs_send(c, nd.next[i], R, SOFF(lr, sg - 1), (uint64_t)segc[lr] * ts);
            cur ^= 1;
        }
        pcs_wait(c, cur);
        pcs_at(c, depth + nseg[lr] - 1);
        for (int i = 0; i < nd.n; i++)
            pcs_send(c, nd.next[i], R, SOFF(lr, nseg[lr] - 1), SLEN(lr, nseg[lr] - 1));
    } else {
        for (int64_t sg = 0; sg < nseg[lr]; sg++) {
            pcs_at(c, depth - 1 + sg);
            pcs_recv(c, nd.prev, R, SOFF(lr, sg), SLEN(lr, sg));
        }
    }
#undef SOFF
#undef SLEN
    /* the pair in the other subtree exchanges halves; with an even size the last rank has
     * no pair and gets the second half from the root */
    const int pair = lr == 0 ? (rank + 1) % size : (rank + size - 1) % size;
    pcs_at(c, G);
    if (size % 2 != 0 && rank != root) {
        pcs_sendrecv(c, 0, pair, R, base[lr], (uint64_t)cnt[lr] * ts, pair, R, base[lr ^ 1],
                     (uint64_t)cnt[lr ^ 1] * ts);
    } else if (size % 2 == 0) {
        if (rank == root)
            pcs_send(c, (root + size - 1) % size, R, base[1], (uint64_t)cnt[1] * ts);
        else if (rank == (root + size - 1) % size)
            pcs_recv(c, root, R, base[1], (uint64_t)cnt[1] * ts);
        else
            pcs_sendrecv(c, 0, pair, R, base[lr], (uint64_t)cnt[lr] * ts, pair, R,
                         base[lr ^ 1], (uint64_t)cnt[lr ^ 1] * ts);
    }
    *gsteps = G + 1;
}

static int64_t clip64(int64_t x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* bcast.c:760 and :893, count >= size (selection falls back to linear otherwise): a binomial
 * scatter of ceil(count/size)-element blocks by vrank, then recursive doubling (with the
 * non-power-of-two fix-up) or a ring. Receive lengths are what the peer really sends (Open
 * MPI posts larger receives and reads the status). Step of a scatter message: top mask
 * first; the allgather round with mask 2^k uses one step plus k fix-up steps. */
static void bcast_scatter_allgather(pcs_ctx_t *c, int64_t count, int root, bool ring,
                                    int64_t *gsteps)
{
    const int size = c->size, rank = c->rank, vrank = (rank - root + size) % size;
    const uint64_t ts = c->ts;
    *gsteps = 0;
    if (size < 2 || ts == 0)
        return;
    const int64_t sc = (count + size - 1) / size;
    const int top = pcs_pow2_floor(size - 1), L = pcs_log2_floor(top);
    int64_t curr = rank == root ? count : 0;
    int mask = 2 * top;
    if (vrank != 0) {
        mask = vrank & -vrank;
        int64_t rc = count - (int64_t)vrank * sc;
        if (rc > 0) {
            rc = rc < mask * sc ? rc : mask * sc;
            pcs_at(c, L - pcs_log2_floor(mask));
            pcs_recv(c, (rank - mask + size) % size, R, (uint64_t)(vrank * sc) * ts,
                     (uint64_t)rc * ts);
            curr = rc;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vrank + mask >= size)
            continue;
        int64_t n = curr - sc * mask;
        if (n > 0) {
            pcs_at(c, L - pcs_log2_floor(mask));
            pcs_send(c, (rank + mask) % size, R, (uint64_t)(sc * (vrank + mask)) * ts,
                     (uint64_t)n * ts);
            curr -= n;
        }
    }
    const int64_t s1 = L + 1;
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    if (ring) {
        int sb = vrank, rb = (vrank - 1 + size) % size;
        for (int i = 1; i < size; i++) {
            int64_t rn = clip64(count - rb * sc, 0, sc), sn = clip64(count - sb * sc, 0, sc);
            pcs_at(c, s1 + i - 1);
            pcs_sendrecv(c, 0, right, R, (uint64_t)(sb * sc) * ts, (uint64_t)sn * ts, left, R,
                         (uint64_t)(rb * sc) * ts, (uint64_t)rn * ts);
            sb = rb;
            rb = (rb - 1 + size) % size;
        }
        *gsteps = s1 + size - 1;
        return;
    }
    curr = clip64(count - vrank * sc, 0, sc);
    int64_t bk = s1;
    int k = 0;
    for (mask = 1; mask < size; mask <<= 1, k++) {
        int vremote = vrank ^ mask, remote = (vremote + root) % size;
        int vtr = vrank & ~(mask - 1), vrtr = vremote & ~(mask - 1);
        if (vremote < size) {
            int64_t rc = clip64(count - vrtr * sc, 0, mask * sc);
            pcs_at(c, bk);
            pcs_sendrecv(c, 0, remote, R, (uint64_t)(vtr * sc) * ts, (uint64_t)curr * ts,
                         remote, R, (uint64_t)(vrtr * sc) * ts, (uint64_t)rc * ts);
            curr += rc;
        }
        if (vrtr + mask > size) {
            /* ranks of this half whose partner is missing get the other half from one that
             * has it: the other half's data, u elements */
            int nad = size - vtr - mask, j = 0;
            int64_t u = clip64(count - (vtr + mask) * sc, 0, mask * sc);
            uint64_t off = (uint64_t)(sc * (vtr + mask)) * ts;
            for (int rh = mask >> 1; rh > 0; rh >>= 1, j++) {
                int vr = vrank ^ rh, r = (vr + root) % size, tr = vrank & ~((rh << 1) - 1);
                pcs_at(c, bk + 1 + j);
                if (vr > vrank && vrank < tr + nad && vr >= tr + nad) {
                    pcs_send(c, r, R, off, (uint64_t)u * ts);
                } else if (vr < vrank && vr < tr + nad && vrank >= tr + nad) {
                    pcs_recv(c, r, R, off, (uint64_t)u * ts);
                    curr += u;
                }
            }
        }
        bk += 1 + k;
    }
    *gsteps = bk;
}

static pcs_err_t gen_bcast(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t count, int root,
                           int64_t *gsteps)
{
    tree_t t = {.size = c->size, .root = root};
    int64_t seg = pcs_segcount(ch->segsize, c->ts, count);
    switch (ch->alg) {
    case PCS_ALG_BCAST_LINEAR:
        bcast_linear(c, count, root);
        *gsteps = 1;
        return PCS_OK;
    case PCS_ALG_BCAST_CHAIN: t.kind = TR_CHAIN; t.param = ch->fanout; break;
    case PCS_ALG_BCAST_BINTREE: t.kind = TR_BIN; break;
    case PCS_ALG_BCAST_BINOMIAL: t.kind = TR_BM; break;
    case PCS_ALG_BCAST_KNOMIAL: t.kind = TR_KM; t.param = ch->radix; break;
    case PCS_ALG_BCAST_SPLIT_BINTREE:
        bcast_split_bintree(c, count, root, ch->segsize, gsteps);
        return PCS_OK;
    case PCS_ALG_BCAST_SCATTER_ALLGATHER:
    case PCS_ALG_BCAST_SCATTER_ALLGATHER_RING:
        bcast_scatter_allgather(c, count, root, ch->alg == PCS_ALG_BCAST_SCATTER_ALLGATHER_RING,
                                gsteps);
        return PCS_OK;
    default: return PCS_E_UNSUPPORTED;
    }
    if (seg < 1)
        seg = 1;
    bcast_generic(c, count, seg, &t);
    *gsteps = bcast_generic_steps(&t, count, seg);
    return PCS_OK;
}

/* ---- reduce ---- */

/* ompi_coll_base_reduce_generic (reduce.c:62), one tree_root. sbuf is S or R (in place at
 * the tree root); accumulator is R at the tree root when has_rbuf, else T. Incoming
 * segments go to T2 (two halves). Step of a segment's message = sender's height + index. */
static void reduce_generic(pcs_ctx_t *c, int sbuf, bool sbuf_inplace, bool has_rbuf,
                           int64_t count, int64_t segcount, const tree_t *t, int max_reqs)
{
    const uint64_t ts = c->ts;
    const bool commute = c->a->commutative;
    node_t nd;
    tree_node(t, c->rank, &nd);
    const int tree_root = t->root;
    int64_t nseg = (count + segcount - 1) / segcount;
    uint64_t seginc = (uint64_t)segcount * ts;
    int height = tree_height(t, c->rank);
    if (nd.n > 0) {
        int acc = (has_rbuf && c->rank == tree_root) ? R : T;
        if (acc == T)
            pcs_need_tmp(c, T, (uint64_t)count * ts);
        pcs_need_tmp(c, T2, 2 * seginc);
        const bool direct = commute && !(sbuf_inplace && c->rank == tree_root);
        if (!commute && !sbuf_inplace)
            pcs_copy(c, sbuf, 0, acc, 0, (uint64_t)count * ts);
        int inbi = 0;
        bool pending[2] = {false, false};
        int64_t recvcount = 0, prevcount;
        for (int64_t si = 0; si <= nseg; si++) {
            prevcount = recvcount;
            recvcount = segcount;
            if (si == nseg - 1)
                recvcount = count - segcount * si;
            for (int i = 0; i < nd.n; i++) {
                int lbuf = T2;
                uint64_t loff = (uint64_t)inbi * seginc;
                if (si < nseg) {
                    if (i == 0 && direct) {
                        lbuf = acc;
                        loff = (uint64_t)si * seginc;
                    }
                    /* the child's message: step = child's height + segment */
                    pcs_at(c, tree_height(t, nd.next[i]) + si);
                    pcs_irecv(c, inbi, nd.next[i], lbuf, loff, (uint64_t)recvcount * ts);
                    pending[inbi] = true;
                }
                if (pending[inbi ^ 1]) {
                    pcs_wait(c, inbi ^ 1);
                    pending[inbi ^ 1] = false;
                }
                int obuf = T2;
                uint64_t ooff = (uint64_t)(inbi ^ 1) * seginc;
                if (i > 0) {
                    if (i == 1 && direct) {
                        obuf = sbuf;
                        ooff = (uint64_t)si * seginc;
                    }
                    pcs_reduce(c, obuf, ooff, acc, (uint64_t)si * seginc,
                               (uint64_t)recvcount * ts);
                } else if (si > 0) {
                    if (nd.n <= 1 && direct) {
                        obuf = sbuf;
                        ooff = (uint64_t)(si - 1) * seginc;
                    }
                    pcs_reduce(c, obuf, ooff, acc, (uint64_t)(si - 1) * seginc,
                               (uint64_t)prevcount * ts);
                    if (c->rank != tree_root) {
                        pcs_at(c, height + si - 1);
                        pcs_send(c, nd.prev, acc, (uint64_t)(si - 1) * seginc,
                                 (uint64_t)prevcount * ts);
                    }
                    if (si == nseg)
                        break;
                }
                inbi ^= 1;
            }
        }
        return;
    }
    /* leaf */
    if (max_reqs == 0 || nseg <= max_reqs) {
        for (int64_t si = 0, left = count; left > 0; si++) {
            int64_t n = left < segcount ? left : segcount;
            pcs_at(c, si);
            pcs_send(c, nd.prev, sbuf, (uint64_t)si * seginc, (uint64_t)n * ts);
            left -= n;
        }
        return;
    }
    /* flow control with synchronous isends (only with forced max_requests) */
    int64_t left = count, si;
    for (si = 0; si < max_reqs; si++) {
        pcs_at(c, si);
        pcs_xfer(c, PCS_OP_ISEND, (unsigned)si, nd.prev, 0, PCS_F_SYNC);
        c->s->ops[c->s->n - 1].a.buf = (uint8_t)sbuf;
        c->s->ops[c->s->n - 1].a.off = (uint64_t)si * seginc;
        c->s->ops[c->s->n - 1].len = (uint64_t)segcount * ts;
        left -= segcount;
    }
    int creq = 0;
    int64_t sc = segcount;
    while (left > 0) {
        pcs_wait(c, creq);
        if (left < sc)
            sc = left;
        pcs_at(c, si);
        pcs_xfer(c, PCS_OP_ISEND, (unsigned)creq, nd.prev, 0, PCS_F_SYNC);
        c->s->ops[c->s->n - 1].a.buf = (uint8_t)sbuf;
        c->s->ops[c->s->n - 1].a.off = (uint64_t)si * seginc;
        c->s->ops[c->s->n - 1].len = (uint64_t)sc * ts;
        creq = (creq + 1) % max_reqs;
        si++;
        left -= sc;
    }
    for (int i = 0; i < max_reqs; i++)
        pcs_wait(c, i);
}

/* ompi_coll_base_reduce_intra_basic_linear (reduce.c:631). sbuf: S, or R when in place. The
 * root receives with blocking calls, from size - 1 down to 0, one after the other: a step
 * each (above the eager size a sender's data waits for its receive). */
static void reduce_linear(pcs_ctx_t *c, int sbuf, bool inplace, int64_t count, int root)
{
    uint64_t len = (uint64_t)count * c->ts;
    if (c->rank != root) {
        pcs_at(c, (c->size - 1 - c->rank) - (root > c->rank ? 1 : 0));
        pcs_send(c, root, sbuf, 0, len);
        return;
    }
    pcs_at(c, 0);
    int rbuf = R;
    if (inplace) { /* sbuf = rbuf; rbuf = temporary */
        sbuf = R;
        rbuf = T;
        pcs_need_tmp(c, T, len);
    }
    pcs_need_tmp(c, T2, len);
    int64_t st = 0;
    if (c->rank == c->size - 1) {
        pcs_copy(c, sbuf, 0, rbuf, 0, len);
        st = -1;
    } else {
        pcs_recv(c, c->size - 1, rbuf, 0, len);
    }
    for (int i = c->size - 2; i >= 0; i--) {
        if (i == c->rank) {
            pcs_reduce(c, sbuf, 0, rbuf, 0, len);
        } else {
            pcs_at(c, ++st);
            pcs_recv(c, i, T2, 0, len);
            pcs_reduce(c, T2, 0, rbuf, 0, len);
        }
    }
    if (inplace)
        pcs_copy(c, T, 0, R, 0, len);
}

/* reduce.c:795 (commutative, count >= pof2: selection falls back to linear otherwise):
 * Rabenseifner's reduce-scatter by recursive halving, then a binomial gather to the root.
 * rbuf is R at the root, T3 elsewhere; tmp_buf is T. */
static void reduce_redscat_gather(pcs_ctx_t *c, int64_t count, int root, bool inplace,
                                  int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    const int nsteps = pcs_log2_floor(size), pof2 = 1 << nsteps, rem = size - pof2;
    const int rb = rank == root ? R : T3;
    if (rb == T3)
        pcs_need_tmp(c, T3, (uint64_t)count * ts);
    pcs_need_tmp(c, T, (uint64_t)count * ts);
    pcs_at(c, 0);
    if (rank != root || !inplace)
        pcs_copy(c, S, 0, rb, 0, (uint64_t)count * ts);
    int vrank;
    if (rank < 2 * rem) {
        uint64_t lh = (uint64_t)(count / 2), rh = (uint64_t)count - lh;
        if (rank % 2 != 0) {
            pcs_sendrecv(c, 0, rank - 1, rb, 0, lh * ts, rank - 1, T, lh * ts, rh * ts);
            pcs_reduce(c, T, lh * ts, rb, lh * ts, rh * ts);
            pcs_at(c, 1);
            pcs_send(c, rank - 1, rb, lh * ts, rh * ts);
            vrank = -1;
        } else {
            pcs_sendrecv(c, 0, rank + 1, rb, lh * ts, rh * ts, rank + 1, T, 0, lh * ts);
            pcs_reduce(c, T, 0, rb, 0, lh * ts);
            pcs_at(c, 1);
            pcs_recv(c, rank + 1, rb, lh * ts, rh * ts);
            vrank = rank / 2;
        }
    } else {
        vrank = rank - rem;
    }
    const int base = rem > 0 ? 2 : 0;
    int64_t rindex[32], sindex[32], rcount[32], scount[32];
    if (vrank != -1) {
        int step = 0;
        int64_t wsize = count;
        sindex[0] = rindex[0] = 0;
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int vdest = vrank ^ mask, dest = vdest < rem ? vdest * 2 : vdest + rem;
            if (rank < dest) {
                rcount[step] = wsize / 2;
                scount[step] = wsize - rcount[step];
                sindex[step] = rindex[step] + rcount[step];
            } else {
                scount[step] = wsize / 2;
                rcount[step] = wsize - scount[step];
                rindex[step] = sindex[step] + scount[step];
            }
            pcs_at(c, base + step);
            pcs_sendrecv(c, 0, dest, rb, sindex[step] * ts, scount[step] * ts, dest, T,
                         rindex[step] * ts, rcount[step] * ts);
            pcs_reduce(c, T, rindex[step] * ts, rb, rindex[step] * ts, rcount[step] * ts);
            if (step + 1 < nsteps) {
                rindex[step + 1] = rindex[step];
                sindex[step + 1] = rindex[step];
                wsize = rcount[step];
                step++;
            }
        }
    }
    int64_t g = base + nsteps;
    int vroot;
    const bool oddroot = root < 2 * rem && root % 2 != 0;
    if (oddroot) {
        /* an odd root left the halving: rank 0 (vrank 0) hands it its part */
        vroot = 0;
        if (rank == root) {
            int64_t wsize = count;
            for (int st = 0; st < nsteps; st++) {
                rcount[st] = wsize / 2;
                scount[st] = wsize - rcount[st];
                rindex[st] = 0;
                sindex[st] = rcount[st];
                wsize /= 2;
            }
            pcs_at(c, g);
            pcs_recv(c, 0, R, 0, (uint64_t)rcount[nsteps - 1] * ts);
            vrank = 0;
        } else if (vrank == 0) {
            pcs_at(c, g);
            pcs_send(c, root, rb, 0, (uint64_t)rcount[nsteps - 1] * ts);
            vrank = -1;
        }
        g++;
    } else {
        vroot = root < 2 * rem ? root / 2 : root - rem;
    }
    if (vrank != -1) {
        int step = nsteps - 1, j = 0;
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1, j++) {
            int vdest = vrank ^ mask, dest = vdest < rem ? vdest * 2 : vdest + rem;
            if (vdest == 0 && oddroot)
                dest = root;
            pcs_at(c, g + j);
            if ((vdest >> step) == (vroot >> step)) {
                pcs_send(c, dest, rb, rindex[step] * ts, rcount[step] * ts);
                break;
            }
            pcs_recv(c, dest, rb, sindex[step] * ts, scount[step] * ts);
            step--;
        }
    }
    *gsteps = g + nsteps;
}

static pcs_err_t gen_reduce(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t count, int root,
                            bool inplace, int64_t *gsteps)
{
    tree_t t = {.size = c->size, .root = root};
    int64_t seg = pcs_segcount(ch->segsize, c->ts, count);
    if (seg < 1)
        seg = 1;
    int sbuf = inplace ? R : S;
    switch (ch->alg) {
    case PCS_ALG_REDUCE_LINEAR:
        reduce_linear(c, sbuf, inplace, count, root);
        *gsteps = 1;
        return PCS_OK;
    case PCS_ALG_REDUCE_REDSCAT_GATHER:
        reduce_redscat_gather(c, count, root, inplace, gsteps);
        return PCS_OK;
    case PCS_ALG_REDUCE_CHAIN: t.kind = TR_CHAIN; t.param = ch->fanout; break;
    case PCS_ALG_REDUCE_BINARY: t.kind = TR_BIN; break;
    case PCS_ALG_REDUCE_BINOMIAL: t.kind = TR_INORDER_BM; break;
    case PCS_ALG_REDUCE_IN_ORDER_BINARY: {
        /* reduce.c:513: tree rooted at size-1, then a send to the real root */
        int io_root = c->size - 1;
        t.kind = TR_INORDER_BIN;
        t.root = io_root;
        int64_t nseg = (count + seg - 1) / seg;
        int64_t h = tree_root_height(&t) + nseg - 1;
        uint64_t len = (uint64_t)count * c->ts;
        if (io_root != root && c->rank == root && inplace) {
            /* the real root contributes a copy of its receive buffer (reduce.c:556) */
            pcs_need_tmp(c, PCS_BUF_TMP3, len);
            pcs_copy(c, R, 0, PCS_BUF_TMP3, 0, len);
            sbuf = PCS_BUF_TMP3;
            inplace = false;
        }
        if (io_root != root && c->rank == io_root)
            reduce_generic(c, sbuf, false, false, count, seg, &t, ch->max_requests);
        else
            reduce_generic(c, sbuf, inplace && c->rank == io_root, true, count, seg, &t,
                           ch->max_requests);
        *gsteps = h;
        if (io_root != root) {
            pcs_at(c, h);
            if (c->rank == root)
                pcs_recv(c, io_root, R, 0, len);
            else if (c->rank == io_root)
                pcs_send(c, root, T, 0, len);
            *gsteps = h + 1;
        }
        return PCS_OK;
    }
    default: return PCS_E_UNSUPPORTED;
    }
    bool has_rbuf = true;
    reduce_generic(c, sbuf, inplace && c->rank == root, has_rbuf, count, seg, &t,
                   ch->max_requests);
    int64_t nseg = (count + seg - 1) / seg;
    *gsteps = tree_root_height(&t) + nseg - 1;
    return PCS_OK;
}

/* ---- allreduce ---- */

/* allreduce.c:130. T holds the running value; buffers swap roles as in the source. */
static void allreduce_rdbl(pcs_ctx_t *c, bool inplace, int64_t count)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)count * c->ts;
    pcs_need_tmp(c, T, len);
    pcs_at(c, 0);
    pcs_copy(c, inplace ? R : S, 0, T, 0, len);
    int tsend = T, trecv = R;
    int adjsize = pcs_pow2_floor(size), extra = size - adjsize, newrank;
    if (rank < 2 * extra) {
        if (rank % 2 == 0) {
            pcs_send(c, rank + 1, tsend, 0, len);
            newrank = -1;
        } else {
            pcs_recv(c, rank - 1, trecv, 0, len);
            pcs_reduce(c, trecv, 0, tsend, 0, len);
            newrank = rank >> 1;
        }
    } else {
        newrank = rank - extra;
    }
    int k = extra > 0 ? 1 : 0;
    for (int distance = 1; distance < adjsize && newrank >= 0; distance <<= 1, k++) {
        int newremote = newrank ^ distance;
        int remote = newremote < extra ? newremote * 2 + 1 : newremote + extra;
        pcs_at(c, k);
        pcs_sendrecv_actual(c, 0, remote, tsend, 0, len, remote, trecv, 0, len);
        if (rank < remote) {
            pcs_reduce(c, tsend, 0, trecv, 0, len);
            int x = trecv;
            trecv = tsend;
            tsend = x;
        } else {
            pcs_reduce(c, trecv, 0, tsend, 0, len);
        }
    }
    if (rank < 2 * extra) {
        pcs_at(c, 1 + pcs_log2_floor(adjsize));
        if (rank % 2 == 0) {
            pcs_recv(c, rank + 1, R, 0, len);
            tsend = R;
        } else {
            pcs_send(c, rank - 1, tsend, 0, len);
        }
    }
    pcs_copy(c, tsend, 0, R, 0, len);
}

/* allreduce.c:341 (count >= size) */
static void allreduce_ring(pcs_ctx_t *c, bool inplace, int64_t count)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    int split;
    int64_t early, late;
    pcs_blockcount(count, size, &split, &early, &late);
#define BOFF(b) ((uint64_t)((b) < split ? (int64_t)(b) * early : (int64_t)(b) * late + split) * ts)
#define BLEN(b) ((uint64_t)((b) < split ? early : late) * ts)
    pcs_need_tmp(c, T2, 2 * (uint64_t)early * ts);
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, (uint64_t)count * ts);
    int send_to = (rank + 1) % size, recv_from = (rank + size - 1) % size, inbi = 0;
    uint64_t half = (uint64_t)early * ts;
    pcs_irecv(c, inbi, recv_from, T2, 0, BLEN(recv_from));
    pcs_send(c, send_to, R, BOFF(rank), BLEN(rank));
    for (int k = 2; k < size; k++) {
        const int prevblock = (rank + size - k + 1) % size;
        inbi ^= 1;
        pcs_at(c, k - 1);
        /* the block arriving in step k-1 is (rank - k) mod size */
        int rb = (rank + size - k) % size;
        pcs_irecv(c, inbi, recv_from, T2, inbi * half, BLEN(rb));
        pcs_wait(c, inbi ^ 1);
        pcs_reduce(c, T2, (inbi ^ 1) * half, R, BOFF(prevblock), BLEN(prevblock));
        pcs_send(c, send_to, R, BOFF(prevblock), BLEN(prevblock));
    }
    pcs_wait(c, inbi);
    int rf = (rank + 1) % size;
    pcs_reduce(c, T2, inbi * half, R, BOFF(rf), BLEN(rf));
    for (int k = 0; k < size - 1; k++) {
        const int recv_data_from = (rank + size - k) % size;
        const int send_data_from = (rank + 1 + size - k) % size;
        pcs_at(c, size - 1 + k);
        pcs_sendrecv(c, 0, send_to, R, BOFF(send_data_from), BLEN(send_data_from), recv_from,
                     R, BOFF(recv_data_from), BLEN(recv_data_from));
    }
#undef BOFF
#undef BLEN
}

/* allreduce.c:618, count >= size * segcount: the ring's reduce-scatter in num_phases rounds
 * of one segment per block, then the ring allgather of whole blocks. */
static void allreduce_ring_segmented(pcs_ctx_t *c, bool inplace, int64_t count, uint64_t segsize)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    const int64_t seg = pcs_segcount(segsize, ts, count);
    int64_t nph = count / (size * seg), rm = count % (size * seg);
    if (rm >= size && rm > (size * seg) / 2)
        nph++;
    int split, xs;
    int64_t early, late, maxseg, xl;
    pcs_blockcount(count, size, &split, &early, &late);
    pcs_blockcount(early, (int)nph, &xs, &maxseg, &xl);
    const uint64_t half = (uint64_t)maxseg * ts;
    pcs_need_tmp(c, T2, 2 * half);
#define BOFF(b) ((b) < split ? (int64_t)(b) * early : (int64_t)(b) * late + split)
#define BCNT(b) ((b) < split ? early : late)
    /* phase ph of block b: (byte offset, bytes) */
    uint64_t po, pl;
#define PH(b, ph)                                                                           \
    do {                                                                                    \
        int sp_;                                                                            \
        int64_t e_, l_;                                                                     \
        pcs_blockcount(BCNT(b), (int)nph, &sp_, &e_, &l_);                                  \
        pl = (uint64_t)((ph) < sp_ ? e_ : l_) * ts;                                         \
        po = (uint64_t)(BOFF(b) + ((ph) < sp_ ? (ph) * e_ : (ph) * l_ + sp_)) * ts;         \
    } while (0)
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, (uint64_t)count * ts);
    const int send_to = (rank + 1) % size, recv_from = (rank + size - 1) % size;
    for (int64_t ph = 0; ph < nph; ph++) {
        const int64_t b0 = ph * (size - 1);
        int inbi = 0;
        pcs_at(c, b0);
        PH(recv_from, ph);
        pcs_irecv(c, inbi, recv_from, T2, 0, pl);
        PH(rank, ph);
        pcs_send(c, send_to, R, po, pl);
        for (int k = 2; k < size; k++) {
            const int prevblock = (rank + size - k + 1) % size;
            inbi ^= 1;
            pcs_at(c, b0 + k - 1);
            PH((rank + size - k) % size, ph);
            pcs_irecv(c, inbi, recv_from, T2, inbi * half, pl);
            pcs_wait(c, inbi ^ 1);
            PH(prevblock, ph);
            pcs_reduce(c, T2, (inbi ^ 1) * half, R, po, pl);
            pcs_send(c, send_to, R, po, pl);
        }
        pcs_wait(c, inbi);
        PH((rank + 1) % size, ph);
        pcs_reduce(c, T2, inbi * half, R, po, pl);
    }
    const int64_t b1 = nph * (size - 1);
    for (int k = 0; k < size - 1; k++) {
        const int rdf = (rank + size - k) % size, sdf = (rank + 1 + size - k) % size;
        pcs_at(c, b1 + k);
        pcs_sendrecv(c, 0, send_to, R, (uint64_t)BOFF(sdf) * ts, (uint64_t)BCNT(sdf) * ts,
                     recv_from, R, (uint64_t)BOFF(rdf) * ts, (uint64_t)BCNT(rdf) * ts);
    }
#undef PH
#undef BOFF
#undef BCNT
}

/* allreduce.c:970, commutative and count >= pof2 */
static void allreduce_rabenseifner(pcs_ctx_t *c, bool inplace, int64_t count)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    int nsteps = pcs_log2_floor(size), pof2 = 1 << nsteps, rem = size - pof2, vrank;
    pcs_need_tmp(c, T, (uint64_t)count * ts);
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, (uint64_t)count * ts);
    if (rank < 2 * rem) {
        int64_t lh = count / 2, rh = count - lh;
        if (rank % 2 != 0) {
            pcs_sendrecv(c, 0, rank - 1, R, 0, lh * ts, rank - 1, T, lh * ts, rh * ts);
            pcs_reduce(c, T, lh * ts, R, lh * ts, rh * ts);
            pcs_at(c, 1);
            pcs_send(c, rank - 1, R, lh * ts, rh * ts);
            vrank = -1;
        } else {
            pcs_sendrecv(c, 0, rank + 1, R, lh * ts, rh * ts, rank + 1, T, 0, lh * ts);
            pcs_reduce(c, T, 0, R, 0, lh * ts);
            pcs_at(c, 1);
            pcs_recv(c, rank + 1, R, lh * ts, rh * ts);
            vrank = rank / 2;
        }
    } else {
        vrank = rank - rem;
    }
    int base = rem > 0 ? 2 : 0;
    if (vrank != -1) {
        int64_t rindex[32], sindex[32], rcount[32], scount[32];
        int step = 0;
        int64_t wsize = count;
        sindex[0] = rindex[0] = 0;
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int vdest = vrank ^ mask;
            int dest = vdest < rem ? vdest * 2 : vdest + rem;
            if (rank < dest) {
                rcount[step] = wsize / 2;
                scount[step] = wsize - rcount[step];
                sindex[step] = rindex[step] + rcount[step];
            } else {
                scount[step] = wsize / 2;
                rcount[step] = wsize - scount[step];
                rindex[step] = sindex[step] + scount[step];
            }
            pcs_at(c, base + step);
            pcs_sendrecv(c, 0, dest, R, sindex[step] * ts, scount[step] * ts, dest, T,
                         rindex[step] * ts, rcount[step] * ts);
            pcs_reduce(c, T, rindex[step] * ts, R, rindex[step] * ts, rcount[step] * ts);
            if (step + 1 < nsteps) {
                rindex[step + 1] = rindex[step];
                sindex[step + 1] = rindex[step];
                wsize = rcount[step];
                step++;
            }
        }
        step = nsteps - 1;
        for (int mask = pof2 >> 1, k = 0; mask > 0; mask >>= 1, k++) {
            int vdest = vrank ^ mask;
            int dest = vdest < rem ? vdest * 2 : vdest + rem;
            pcs_at(c, base + nsteps + k);
            pcs_sendrecv(c, 0, dest, R, rindex[step] * ts, rcount[step] * ts, dest, R,
                         sindex[step] * ts, scount[step] * ts);
            step--;
        }
    }
    if (rank < 2 * rem) {
        pcs_at(c, base + 2 * nsteps);
        if (rank % 2 != 0)
            pcs_recv(c, rank - 1, R, 0, (uint64_t)count * ts);
        else
            pcs_send(c, rank + 1, R, 0, (uint64_t)count * ts);
    }
}

#define gen_sub pcs_gen_sub

/* allreduce.c:880 (linear) and :60 (nonoverlapping): reduce to 0, then bcast from 0 */
static pcs_err_t allreduce_reduce_bcast(pcs_ctx_t *c, bool linear, bool inplace, int64_t count,
                                        int64_t *gsteps)
{
    pcs_args_t ra = *c->a, ba = *c->a;
    ra.coll = PCS_REDUCE;
    ra.root = 0;
    ra.count = count;
    /* non-root ranks with MPI_IN_PLACE pass rbuf as their send buffer */
    ra.in_place = inplace && c->rank == 0;
    ba.coll = PCS_BCAST;
    ba.root = 0;
    ba.count = count;
    ba.in_place = false;
    pcs_choice_t rc, bc;
    pcs_err_t e;
    if (linear) {
        rc = (pcs_choice_t){.component = PCS_COMP_TUNED, .lib_alg = 1,
                            .alg = PCS_ALG_REDUCE_LINEAR};
        bc = (pcs_choice_t){.component = PCS_COMP_TUNED, .lib_alg = 1,
                            .alg = PCS_ALG_BCAST_LINEAR};
    } else {
        if ((e = pcs_ompi41_select(&ra, NULL, &rc)) || (e = pcs_ompi41_select(&ba, NULL, &bc)))
            return e;
    }
    uint8_t save = c->map[S];
    if (inplace && c->rank != 0)
        c->map[S] = R;
    int64_t g1, g2;
    e = gen_sub(c, &ra, &rc, &g1);
    c->map[S] = save;
    if (e)
        return e;
    uint32_t save_base = c->step_base;
    c->step_base += (uint32_t)g1;
    e = gen_sub(c, &ba, &bc, &g2);
    c->step_base = save_base;
    *gsteps = g1 + g2;
    return e;
}

static pcs_err_t gen_allreduce(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    int size = c->size;
    switch (ch->alg) {
    case PCS_ALG_ALLREDUCE_LINEAR:
        return allreduce_reduce_bcast(c, true, a->in_place, a->count, gsteps);
    case PCS_ALG_ALLREDUCE_NONOVERLAPPING:
        return allreduce_reduce_bcast(c, false, a->in_place, a->count, gsteps);
    case PCS_ALG_ALLREDUCE_RECURSIVE_DOUBLING:
        allreduce_rdbl(c, a->in_place, a->count);
        *gsteps = (size - pcs_pow2_floor(size) > 0 ? 2 : 0) + pcs_log2_floor(size);
        return PCS_OK;
    case PCS_ALG_ALLREDUCE_RING:
        allreduce_ring(c, a->in_place, a->count);
        *gsteps = 2 * (size - 1);
        return PCS_OK;
    case PCS_ALG_ALLREDUCE_SEGMENTED_RING: {
        allreduce_ring_segmented(c, a->in_place, a->count, ch->segsize);
        int64_t seg = pcs_segcount(ch->segsize, c->ts, a->count);
        int64_t nph = a->count / (size * seg), rm = a->count % (size * seg);
        if (rm >= size && rm > (size * seg) / 2)
            nph++;
        *gsteps = (nph + 1) * (size - 1);
        return PCS_OK;
    }
    case PCS_ALG_ALLREDUCE_RABENSEIFNER: {
        allreduce_rabenseifner(c, a->in_place, a->count);
        int rem = size - pcs_pow2_floor(size);
        *gsteps = (rem > 0 ? 3 : 0) + 2 * pcs_log2_floor(size);
        return PCS_OK;
    }
    default: return PCS_E_UNSUPPORTED;
    }
}

/* ---- gather / scatter (per-rank block of count elements) ---- */

/* ompi_coll_base_gather_intra_basic_linear: the root receives with blocking calls, from 0
 * up, one after the other: a step each */
static void gather_linear(pcs_ctx_t *c, int64_t count, int root, bool inplace)
{
    uint64_t len = (uint64_t)count * c->ts;
    if (c->rank != root) {
        pcs_at(c, c->rank - (c->rank > root ? 1 : 0));
        pcs_send(c, root, S, 0, len);
        return;
    }
    for (int i = 0, st = 0; i < c->size; i++) {
        if (i == root) { /* between the receives: no step of its own */
            pcs_at(c, st > 0 ? st - 1 : 0);
            if (!inplace)
                pcs_copy(c, S, 0, R, (uint64_t)i * len, len);
        } else {
            pcs_at(c, st++);
            pcs_recv(c, i, R, (uint64_t)i * len, len);
        }
    }
}

/* gather.c:41, in-order binomial tree; step = sender's subtree height */
static void gather_binomial(pcs_ctx_t *c, int64_t count, int root, bool inplace)
{
    const int size = c->size, rank = c->rank, vrank = (rank - root + size) % size;
    const uint64_t len = (uint64_t)count * c->ts;
    tree_t t = {.kind = TR_INORDER_BM, .size = size, .root = root};
    node_t nd;
    tree_node(&t, rank, &nd);
    int buf;
    if (rank == root) {
        buf = root == 0 ? R : T;
        if (buf == T)
            pcs_need_tmp(c, T, (uint64_t)size * len);
        if (!inplace)
            pcs_copy(c, S, 0, buf, 0, len);
        else if (root != 0)
            pcs_copy(c, R, (uint64_t)rank * len, T, 0, len);
    } else if (vrank % 2 == 0) {
        buf = T;
        pcs_need_tmp(c, T, (uint64_t)size * len);
        pcs_copy(c, S, 0, T, 0, len);
    } else {
        buf = S;
    }
    uint64_t total = len;
    if (vrank % 2 == 0)
        for (int i = 0; i < nd.n; i++) {
            int vkid = (nd.next[i] - root + size) % size;
            int my = vkid - vrank;
            if (my > size - vkid)
                my = size - vkid;
            pcs_at(c, tree_height(&t, nd.next[i]));
            pcs_recv(c, nd.next[i], buf, total, (uint64_t)my * len);
            total += (uint64_t)my * len;
        }
    if (rank != root) {
        pcs_at(c, tree_height(&t, rank));
        pcs_send(c, nd.prev, buf, 0, total);
    } else if (root != 0) {
        pcs_copy(c, T, 0, R, (uint64_t)root * len, (uint64_t)(size - root) * len);
        pcs_copy(c, T, (uint64_t)(size - root) * len, R, 0, (uint64_t)root * len);
    }
}

/* gather.c:208, first segment = whole block (segsize 0) */
static void gather_linear_sync(pcs_ctx_t *c, int64_t count, int root, bool inplace,
                               uint64_t segsize)
{
    const uint64_t len = (uint64_t)count * c->ts;
    int64_t first = count;
    if (segsize > 0 && c->ts > 0) {
        first = pcs_segcount(segsize, c->ts, count);
    }
    uint64_t flen = (uint64_t)first * c->ts;
    pcs_at(c, 0);
    if (c->rank != root) {
        pcs_recv(c, root, T, 0, 0);
        pcs_at(c, 1);
        pcs_send(c, root, S, 0, flen);
        pcs_send(c, root, S, flen, len - flen);
        return;
    }
    int k = 0;
    for (int i = 0; i < c->size; i++) {
        if (i == root)
            continue;
        pcs_at(c, 1);
        pcs_irecv(c, 0, i, R, (uint64_t)i * len, flen);
        pcs_at(c, 0);
        pcs_send(c, i, T, 0, 0);
        pcs_at(c, 1);
        pcs_irecv(c, 1 + k, i, R, (uint64_t)i * len + flen, len - flen);
        pcs_wait(c, 0);
        k++;
    }
    if (!inplace)
        pcs_copy(c, S, 0, R, (uint64_t)root * len, len);
    for (int i = 0; i < k; i++)
        pcs_wait(c, 1 + i);
}

static void scatter_linear(pcs_ctx_t *c, int64_t count, int root, bool inplace, bool nb)
{
    const uint64_t len = (uint64_t)count * c->ts;
    if (c->rank != root) { /* blocking sends go one after the other: a step each */
        pcs_at(c, nb ? 0 : c->rank - (c->rank > root ? 1 : 0));
        pcs_recv(c, root, R, 0, len);
        return;
    }
    int k = 0;
    for (int i = 0, st = 0; i < c->size; i++) {
        if (i == root) {
            pcs_at(c, nb || st == 0 ? 0 : st - 1);
            if (!inplace)
                pcs_copy(c, S, (uint64_t)i * len, R, 0, len);
        } else if (nb) {
            pcs_at(c, 0);
            pcs_isend(c, k++, i, S, (uint64_t)i * len, len);
        } else {
            pcs_at(c, st++);
            pcs_send(c, i, S, (uint64_t)i * len, len);
        }
    }
    for (int i = 0; i < k; i++)
        pcs_wait(c, i);
}

/* scatter.c:63; step = depth of the receiver minus one */
static void scatter_binomial(pcs_ctx_t *c, int64_t count, int root, bool inplace)
{
    const int size = c->size, rank = c->rank, vrank = (rank - root + size) % size;
    const uint64_t len = (uint64_t)count * c->ts;
    tree_t t = {.kind = TR_INORDER_BM, .size = size, .root = root};
    node_t nd;
    tree_node(&t, rank, &nd);
    int depth = tree_depth(&t, rank);
    if (vrank % 2) {
        pcs_at(c, depth - 1);
        pcs_recv(c, nd.prev, R, 0, len);
        return;
    }
    int buf;
    uint64_t curr;
    if (rank == root) {
        buf = S;
        if (root != 0) { /* packed in vrank order */
            buf = T;
            pcs_need_tmp(c, T, (uint64_t)size * len);
            pcs_copy(c, S, (uint64_t)root * len, T, 0, (uint64_t)(size - root) * len);
            pcs_copy(c, S, 0, T, (uint64_t)(size - root) * len, (uint64_t)root * len);
        }
        curr = (uint64_t)size * len;
    } else {
        int vparent = (nd.prev - root + size) % size, sub = vrank - vparent;
        if (size - vrank < sub)
            sub = size - vrank;
        buf = T;
        pcs_need_tmp(c, T, (uint64_t)sub * len);
        pcs_at(c, depth - 1);
        pcs_recv(c, nd.prev, T, 0, (uint64_t)sub * len);
        curr = (uint64_t)sub * len;
    }
    if (!(rank == root && inplace))
        pcs_copy(c, buf, 0, R, 0, len);
    for (int i = nd.n - 1; i >= 0; i--) {
        int vchild = (nd.next[i] - root + size) % size, sc = vchild - vrank;
        if (sc > size - vchild)
            sc = size - vchild;
        uint64_t n = (uint64_t)sc * len;
        pcs_at(c, depth);
        pcs_send(c, nd.next[i], buf, curr - n, n);
        curr -= n;
    }
}

/* ---- barrier (0-byte messages) ---- */
static void barrier_gen(pcs_ctx_t *c, pcs_alg_t alg, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    switch (alg) {
    case PCS_ALG_BARRIER_LINEAR:
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
        return;
    case PCS_ALG_BARRIER_DOUBLE_RING: {
        /* barrier.c:98: a token around the ring twice, the second time synchronous; the
         * message from rank r is step r of its ring */
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
        return;
    }
    case PCS_ALG_BARRIER_RECURSIVE_DOUBLING: {
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
        return;
    }
    case PCS_ALG_BARRIER_BRUCK: {
        int k = 0;
        for (int d = 1; d < size; d <<= 1, k++) {
            pcs_at(c, k);
            pcs_sendrecv_actual(c, 0, (rank + d) % size, T, 0, 0, (rank - d + size) % size, T,
                                0, 0);
        }
        *gsteps = k;
        return;
    }
    case PCS_ALG_BARRIER_TWO_PROCS:
        pcs_at(c, 0);
        pcs_sendrecv_actual(c, 0, rank ^ 1, T, 0, 0, rank ^ 1, T, 0, 0);
        *gsteps = 1;
        return;
    case PCS_ALG_BARRIER_TREE: {
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
        return;
    }
    default: *gsteps = 0; c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ---- allgather (block = count elements; own block from S, or R[rank] in place) ---- */
static void allgather_gen(pcs_ctx_t *c, pcs_alg_t alg, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const bool inplace = c->a->in_place;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    int k = 0;
    switch (alg) {
    case PCS_ALG_ALLGATHER_BRUCK:
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
        return;
    case PCS_ALG_ALLGATHER_RECURSIVE_DOUBLING: { /* power-of-two size */
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
        return;
    }
    case PCS_ALG_ALLGATHER_RING:
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
        return;
    case PCS_ALG_ALLGATHER_NEIGHBOR: { /* allgather.c:484, even size */
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
        return;
    }
    case PCS_ALG_ALLGATHER_LINEAR: {
        /* allgather.c:681: gather to 0 then bcast of the whole, both through the rules;
         * a non-root in place sends its block of rbuf */
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
        return;
    }
    case PCS_ALG_ALLGATHER_TWO_PROCS:
        pcs_at(c, 0);
        pcs_sendrecv(c, 0, rank ^ 1, inplace ? R : S, inplace ? (uint64_t)rank * len : 0, len,
                     rank ^ 1, R, (uint64_t)(rank ^ 1) * len, len);
        if (!inplace)
            pcs_copy(c, S, 0, R, (uint64_t)rank * len, len);
        *gsteps = 1;
        return;
    default: *gsteps = 0; c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ---- alltoall (block = count elements per peer) ---- */
static void alltoall_gen(pcs_ctx_t *c, pcs_alg_t alg, int max_requests, int64_t *gsteps)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)c->a->count * c->ts;
    switch (alg) {
    case PCS_ALG_ALLTOALL_LINEAR: { /* alltoall.c:598, persistent requests */
        pcs_at(c, 0);
        pcs_copy(c, S, (uint64_t)rank * len, R, (uint64_t)rank * len, len);
        int k = 0;
        for (int i = (rank + 1) % size; i != rank; i = (i + 1) % size)
            pcs_irecv(c, k++, i, R, (uint64_t)i * len, len);
        for (int i = (rank + size - 1) % size; i != rank; i = (i + size - 1) % size) {
            pcs_isend(c, k++, i, S, (uint64_t)i * len, len);
            c->s->ops[c->s->n - 1].flags |= PCS_F_PERSISTENT;
        }
        for (int i = 0; i < k; i++)
            pcs_wait(c, i);
        *gsteps = 1;
        return;
    }
    case PCS_ALG_ALLTOALL_LINEAR_SYNC: {
        const int nr = max_requests <= 0 || max_requests > size - 1 ? size - 1 : max_requests;
        if (nr < size - 1) {
            /* alltoall.c:440: nr receives and nr sends in flight; Open MPI refills whichever
             * request completes first (wait_any). Here: the oldest receive, then the oldest
             * send, so the messages and their order per peer are the library's. Message m
             * (the m-th receive and send of every rank) is step m / nr. */
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
        return;
    }
    case PCS_ALG_ALLTOALL_PAIRWISE:
        for (int step = 1; step <= size; step++) {
            int to = (rank + step) % size, from = (rank - step + size) % size;
            pcs_at(c, step - 1);
            pcs_sendrecv(c, 0, to, S, (uint64_t)to * len, len, from, R, (uint64_t)from * len,
                         len);
        }
        *gsteps = size;
        return;
    case PCS_ALG_ALLTOALL_BRUCK: { /* alltoall.c:220 */
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
        return;
    }
    case PCS_ALG_ALLTOALL_INPLACE: { /* alltoall.c:40: pairs (rank +- i), packed copy out */
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
        return;
    }
    case PCS_ALG_ALLTOALL_TWO_PROCS: {
        int r = rank ^ 1;
        pcs_at(c, 0);
        pcs_sendrecv(c, 0, r, S, (uint64_t)r * len, len, r, R, (uint64_t)r * len, len);
        pcs_copy(c, S, (uint64_t)rank * len, R, (uint64_t)rank * len, len);
        *gsteps = 1;
        return;
    }
    default: *gsteps = 0; c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ---- scan / exscan (coll/basic = base linear), gatherv / scatterv (coll/basic) ---- */
static void scan_gen(pcs_ctx_t *c, bool ex, int64_t *gsteps)
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

static uint64_t disp(const pcs_args_t *a, const int64_t *counts, const int64_t *displs, int i)
{
    if (displs)
        return (uint64_t)displs[i] * a->type_size;
    int64_t d = 0;
    for (int j = 0; j < i; j++)
        d += counts[j];
    return (uint64_t)d * a->type_size;
}

/* coll/basic gatherv/scatterv: linear, zero counts skipped */
static void gatherv_gen(pcs_ctx_t *c, bool scatter)
{
    const pcs_args_t *a = c->a;
    const uint64_t ts = c->ts;
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
        uint64_t n = (uint64_t)a->counts[i] * ts, off = disp(a, a->counts, a->displs, i);
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

/* ---- dispatch ---- */

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
    pcs_err_t e = PCS_OK;
    switch (pcs_alg_coll(ch->alg)) {
    case PCS_BCAST:
        cc.tag = TAG_BCAST;
        e = gen_bcast(&cc, ch, sub->count, sub->root, gsteps);
        break;
    case PCS_REDUCE:
        cc.tag = TAG_REDUCE;
        e = gen_reduce(&cc, ch, sub->count, sub->root, sub->in_place, gsteps);
        break;
    case PCS_ALLREDUCE:
        cc.tag = TAG_ALLREDUCE;
        e = gen_allreduce(&cc, ch, gsteps);
        break;
    case PCS_GATHER:
        cc.tag = TAG_GATHER;
        if (ch->alg == PCS_ALG_GATHER_LINEAR) {
            gather_linear(&cc, sub->count, sub->root, sub->in_place);
            *gsteps = 1;
        } else if (ch->alg == PCS_ALG_GATHER_BINOMIAL) {
            gather_binomial(&cc, sub->count, sub->root, sub->in_place);
            tree_t t = {.kind = TR_INORDER_BM, .size = sub->size, .root = sub->root};
            *gsteps = tree_root_height(&t);
        } else {
            gather_linear_sync(&cc, sub->count, sub->root, sub->in_place, ch->segsize);
            *gsteps = 2;
        }
        break;
    case PCS_SCATTER:
        cc.tag = TAG_SCATTER;
        if (ch->alg == PCS_ALG_SCATTER_BINOMIAL) {
            scatter_binomial(&cc, sub->count, sub->root, sub->in_place);
            tree_t t = {.kind = TR_INORDER_BM, .size = sub->size, .root = sub->root};
            *gsteps = tree_root_height(&t);
        } else if (ch->alg == PCS_ALG_SCATTER_LINEAR_NB && ch->max_requests > 1) {
            e = PCS_E_UNSUPPORTED;
        } else {
            scatter_linear(&cc, sub->count, sub->root, sub->in_place,
                           ch->alg == PCS_ALG_SCATTER_LINEAR_NB);
            *gsteps = 1;
        }
        break;
    case PCS_BARRIER:
        cc.tag = TAG_BARRIER;
        barrier_gen(&cc, ch->alg, gsteps);
        break;
    case PCS_ALLGATHER:
        cc.tag = TAG_ALLGATHER;
        allgather_gen(&cc, ch->alg, gsteps);
        break;
    case PCS_ALLTOALL:
        cc.tag = TAG_ALLTOALL;
        alltoall_gen(&cc, ch->alg, ch->max_requests, gsteps);
        break;
    case PCS_SCAN:
    case PCS_EXSCAN:
        cc.tag = pcs_alg_coll(ch->alg) == PCS_SCAN ? TAG_SCAN : TAG_EXSCAN;
        if (ch->alg == PCS_ALG_SCAN_RECURSIVE_DOUBLING ||
            ch->alg == PCS_ALG_EXSCAN_RECURSIVE_DOUBLING)
            pcs_gen_scan_rdbl(&cc, ch->alg == PCS_ALG_EXSCAN_RECURSIVE_DOUBLING, gsteps);
        else
            scan_gen(&cc, ch->alg == PCS_ALG_EXSCAN_LINEAR, gsteps);
        break;
    case PCS_ALLGATHERV:
        cc.tag = TAG_ALLGATHERV;
        pcs_gen_allgatherv(&cc, ch->alg, gsteps);
        break;
    case PCS_ALLTOALLV:
    case PCS_ALLTOALLW:
        cc.tag = pcs_alg_coll(ch->alg) == PCS_ALLTOALLV ? TAG_ALLTOALLV : TAG_ALLTOALLW;
        pcs_gen_alltoallv(&cc, ch->alg, gsteps);
        break;
    case PCS_REDUCE_SCATTER:
        cc.tag = TAG_REDUCE_SCATTER;
        pcs_gen_reduce_scatter(&cc, ch->alg, gsteps);
        break;
    case PCS_REDUCE_SCATTER_BLOCK:
        cc.tag = TAG_REDUCE_SCATTER_BLOCK;
        pcs_gen_rsb(&cc, ch->alg, gsteps);
        break;
    case PCS_GATHERV:
        cc.tag = TAG_GATHERV;
        gatherv_gen(&cc, false);
        *gsteps = 1;
        break;
    case PCS_SCATTERV:
        cc.tag = TAG_SCATTERV;
        gatherv_gen(&cc, true);
        *gsteps = 1;
        break;
    default: e = PCS_E_UNSUPPORTED; break;
    }
    if (e && !c->s->err)
        c->s->err = e;
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
    case PCS_ALLGATHERV: case PCS_GATHERV: case PCS_SCATTERV: case PCS_REDUCE_SCATTER:
        n = (uint64_t)a->counts[0] * c->ts;
        pcs_copy(c, S, a->coll == PCS_SCATTERV ? disp(a, a->counts, a->displs, 0) : 0, R,
                 a->coll == PCS_ALLGATHERV || a->coll == PCS_GATHERV
                     ? disp(a, a->counts, a->displs, 0) : 0, n);
        break;
    case PCS_ALLTOALLV:
    case PCS_ALLTOALLW:
        pcs_copy(c, S, disp(a, a->scounts, a->sdispls, 0), R, disp(a, a->counts, a->displs, 0),
                 (uint64_t)a->scounts[0] * c->ts);
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
    return gen_sub(&c, a, ch, &g);
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

