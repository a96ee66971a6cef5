/* coll_ompi_bcast.c: per-rank schedules of Open MPI 4.1's bcast, gather and scatter
 * (ompi/mca/coll/base coll_base_bcast.c, _gather.c, _scatter.c v4.1.4): data from one rank
 * to all or from all to one, on trees and lines; the same messages in the same order. */
#include "coll_ompi.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- bcast ---- */

/* ompi_coll_base_bcast_intra_generic (bcast.c:38). Buffer is R. Step of a segment's
 * message = sender's depth + segment index. */
static void bcast_generic(pcs_ctx_t *c, int64_t count, int64_t segcount, const pcs_tree_t *t)
{
    const uint64_t ts = c->ts;
    pcs_node_t nd;
    pcs_tree_node(t, c->rank, &nd);
    int64_t nseg = (count + segcount - 1) / segcount;
    uint64_t seg = (uint64_t)segcount * ts;
#define SEGLEN(s) ((uint64_t)((s) == nseg - 1 ? count - (s) * segcount : segcount) * ts)
    int depth = pcs_tree_depth(t, c->rank);
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
static int64_t bcast_generic_steps(const pcs_tree_t *t, int64_t count, int64_t segcount)
{
    return pcs_tree_root_height(t) + (count + segcount - 1) / segcount - 1;
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
    pcs_tree_t t = {.kind = PCS_TR_BIN, .size = size, .root = root};
    pcs_node_t nd;
    pcs_tree_node(&t, rank, &nd);
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
    const int depth = pcs_tree_depth(&t, rank);
    const int64_t G = pcs_tree_height(&t, root) + nseg[0] - 1;
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

/* A forced radix (coll_tuned_bcast_algorithm_knomial_radix) is the user's: below 2 the
 * tree never grows (Open MPI's own builder loops), and a node may have at most
 * (radix - 1) x ceil(log_radix P) children, which must fit a tree node. */
static bool knomial_fits(int radix, int size)
{
    if (radix < 2 || radix > PCS_TREE_MAXKIDS + 1)
        return false;
    int levels = 0;
    for (int64_t m = 1; m < size; m *= radix)
        levels++;
    return (int64_t)(radix - 1) * levels <= PCS_TREE_MAXKIDS;
}

void pcs_gen_bcast(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int64_t count = c->a->count;
    const int root = c->a->root;
    pcs_tree_t t = {.size = c->size, .root = root};
    int64_t seg = pcs_segcount(ch->segsize, c->ts, count);
    switch (ch->alg) {
    case PCS_ALG_BCAST_LINEAR:
        bcast_linear(c, count, root);
        *gsteps = 1;
        return;
    case PCS_ALG_BCAST_CHAIN: t.kind = PCS_TR_CHAIN; t.param = ch->fanout; break;
    case PCS_ALG_BCAST_BINTREE: t.kind = PCS_TR_BIN; break;
    case PCS_ALG_BCAST_BINOMIAL: t.kind = PCS_TR_BM; break;
    case PCS_ALG_BCAST_KNOMIAL:
        if (!knomial_fits(ch->radix, c->size)) {
            pcs_fail(c, PCS_E_UNSUPPORTED);
            return;
        }
        t.kind = PCS_TR_KM;
        t.param = ch->radix;
        break;
    case PCS_ALG_BCAST_SPLIT_BINTREE:
        bcast_split_bintree(c, count, root, ch->segsize, gsteps);
        return;
    case PCS_ALG_BCAST_SCATTER_ALLGATHER:
    case PCS_ALG_BCAST_SCATTER_ALLGATHER_RING:
        bcast_scatter_allgather(c, count, root, ch->alg == PCS_ALG_BCAST_SCATTER_ALLGATHER_RING,
                                gsteps);
        return;
    default: pcs_fail(c, PCS_E_UNSUPPORTED); return;
    }
    if (seg < 1)
        seg = 1;
    bcast_generic(c, count, seg, &t);
    *gsteps = bcast_generic_steps(&t, count, seg);
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
    pcs_tree_t t = {.kind = PCS_TR_INORDER_BM, .size = size, .root = root};
    pcs_node_t nd;
    pcs_tree_node(&t, rank, &nd);
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
            pcs_at(c, pcs_tree_height(&t, nd.next[i]));
            pcs_recv(c, nd.next[i], buf, total, (uint64_t)my * len);
            total += (uint64_t)my * len;
        }
    if (rank != root) {
        pcs_at(c, pcs_tree_height(&t, rank));
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
    pcs_tree_t t = {.kind = PCS_TR_INORDER_BM, .size = size, .root = root};
    pcs_node_t nd;
    pcs_tree_node(&t, rank, &nd);
    int depth = pcs_tree_depth(&t, rank);
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

void pcs_gen_gather(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    if (ch->alg == PCS_ALG_GATHER_LINEAR) {
        gather_linear(c, a->count, a->root, a->in_place);
        *gsteps = 1;
    } else if (ch->alg == PCS_ALG_GATHER_BINOMIAL) {
        gather_binomial(c, a->count, a->root, a->in_place);
        pcs_tree_t t = {.kind = PCS_TR_INORDER_BM, .size = a->size, .root = a->root};
        *gsteps = pcs_tree_root_height(&t);
    } else {
        gather_linear_sync(c, a->count, a->root, a->in_place, ch->segsize);
        *gsteps = 2;
    }
}

void pcs_gen_scatter(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    if (ch->alg == PCS_ALG_SCATTER_BINOMIAL) {
        scatter_binomial(c, a->count, a->root, a->in_place);
        pcs_tree_t t = {.kind = PCS_TR_INORDER_BM, .size = a->size, .root = a->root};
        *gsteps = pcs_tree_root_height(&t);
    } else if (ch->alg == PCS_ALG_SCATTER_LINEAR_NB && ch->max_requests > 1) {
        pcs_fail(c, PCS_E_UNSUPPORTED);
    } else {
        scatter_linear(c, a->count, a->root, a->in_place, ch->alg == PCS_ALG_SCATTER_LINEAR_NB);
        *gsteps = 1;
    }
}
