/* coll_ompi_tree.c: the trees of Open MPI 4.1's base algorithms (ompi/mca/coll/base/
 * coll_base_topo.c v4.1.4): each rank's parent and children, computed per rank in O(depth) or
 * O(fanout), and the depths and heights the schedules number their steps by. */
#include <stdlib.h>

#include "coll_ompi.h"

static int pown(int f, int k)
{
    int p = 1;
    while (k-- > 0)
        p *= f;
    return p;
}

static void node_bin(const pcs_tree_t *t, int rank, pcs_node_t *nd)
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

static void node_chain(const pcs_tree_t *t, int rank, pcs_node_t *nd)
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

static void node_bm(const pcs_tree_t *t, int rank, pcs_node_t *nd)
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

static void node_inorder_bm(const pcs_tree_t *t, int rank, pcs_node_t *nd)
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

static void node_km(const pcs_tree_t *t, int rank, pcs_node_t *nd)
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
            if (child < size && nd->n < PCS_TREE_MAXKIDS)
                nd->next[nd->n++] = (child + root) % size;
        }
}

static void node_inorder_bin(const pcs_tree_t *t, int rank, pcs_node_t *nd)
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

void pcs_tree_node(const pcs_tree_t *t, int rank, pcs_node_t *nd)
{
    nd->n = 0;
    switch (t->kind) {
    case PCS_TR_BIN: node_bin(t, rank, nd); break;
    case PCS_TR_CHAIN: node_chain(t, rank, nd); break;
    case PCS_TR_BM: node_bm(t, rank, nd); break;
    case PCS_TR_INORDER_BM: node_inorder_bm(t, rank, nd); break;
    case PCS_TR_KM: node_km(t, rank, nd); break;
    case PCS_TR_INORDER_BIN: node_inorder_bin(t, rank, nd); break;
    }
}

int pcs_tree_depth(const pcs_tree_t *t, int rank)
{
    pcs_node_t nd;
    int d = 0;
    for (pcs_tree_node(t, rank, &nd); nd.prev >= 0; pcs_tree_node(t, nd.prev, &nd))
        d++;
    return d;
}

int pcs_tree_height(const pcs_tree_t *t, int rank)
{
    pcs_node_t nd;
    pcs_tree_node(t, rank, &nd);
    int h = 0;
    for (int i = 0; i < nd.n; i++) {
        int hc = 1 + pcs_tree_height(t, nd.next[i]);
        if (hc > h)
            h = hc;
    }
    return h;
}

/* Height of the whole tree, memoised: every rank of a call needs it (the schedule's step
 * count) and computing it is O(P). It depends on the shape only (kind, parameter, size): the
 * trees are built on ranks shifted by the root, and the in-order ones have a fixed root. */
int pcs_tree_root_height(const pcs_tree_t *t)
{
    enum { MEMO = 64 };
    static _Thread_local struct { int kind, param, size, height; } memo[MEMO];
    unsigned slot = ((unsigned)t->kind * 31u + (unsigned)t->param * 7u + (unsigned)t->size) % MEMO;
    if (memo[slot].size == t->size && memo[slot].size > 0 && memo[slot].kind == (int)t->kind &&
        memo[slot].param == t->param) {
#ifdef PCS_CHECK_MEMO
        if (memo[slot].height != pcs_tree_height(t, t->root))
            abort();
#endif
        return memo[slot].height;
    }
    int h = pcs_tree_height(t, t->root);
    memo[slot].kind = (int)t->kind;
    memo[slot].param = t->param;
    memo[slot].size = t->size;
    memo[slot].height = h;
    return h;
}
