/* coll_mpich_smp.c: generation for MPICH 4.0.2 (ch4:ucx): the node-aware compositions over
 * node_comm and node_roots_comm (ch4 alpha and beta, MPIR smp, the sched_smp and sched_naive
 * ones), each phase an MPIR algorithm re-selected on its sub-communicator, and the plain MPIR
 * algorithms on the communicator (coll_mpich_run.c). */
#include <string.h>

#include "coll_mpich.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

static const pcs_mpich_env_t default_env;

static int local_rank_of(const pcs_topo_t *t, int r)
{
    int l = 0;
    for (int q = 0; q < r; q++)
        l += t->nidx[q] == t->nidx[r];
    return l;
}
static bool has_node_comm(const pcs_topo_t *t) { return t->parent && t->nlocal > 1; }
static bool is_leader(const pcs_topo_t *t) { return t->parent && t->lrank == 0; }

/* ---- generation ---- */

typedef struct gen {
    pcs_ctx_t c;
    const pcs_args_t *a;
    const pcs_topo_t *t;
    bool user_op;
    const pcs_mpich_env_t *env;
    int throttle;
    bool nb;       /* a sched_smp composition: sub-steps by MPIR_I<coll>_intra_sched_auto */
    uint32_t step; /* next free step */
} gen_t;

static int throttle_of(const pcs_mpich_env_t *env)
{
    return env->alltoall_throttle;
}

/* MPIR_<Coll>_impl on a communicator that is not PARENT (node_comm, node_roots_comm, ...) */
static pcs_alg_t sub_alg(gen_t *g, const pcs_args_t *sa)
{
    pcs_choice_t ch;
    pcs_hier_t h = {false, false};
    if (g->nb)
        return pcs_mpich_nb_auto(sa, h, g->user_op);
    pcs_alg_t alg = pcs_mpich_mpir_select(sa, h, g->user_op, g->env, &ch);
    if (alg == PCS_NALGS && ch.lib_alg > 0 &&
        pcs_mpich_blocking_nb(sa, h, g->user_op, g->env, &ch) == PCS_OK)
        alg = ch.alg; /* a forced "nb" on the sub-communicator */
    return alg;
}

enum { ON_NODE = 1, ON_ROOTS = 2 };

/* sub-call args for node k's node_comm (ON_NODE) or node_roots_comm */
static pcs_args_t sub_args(const gen_t *g, int on, int k, pcs_coll_t coll, int root,
                           int64_t count, uint64_t ts, bool in_place)
{
    pcs_args_t sa = *g->a;
    sa.coll = coll;
    sa.size = on == ON_NODE ? g->t->nsize[k] : g->t->nnodes;
    sa.rank = 0;
    sa.root = root;
    sa.count = count;
    sa.type_size = ts;
    sa.in_place = in_place;
    return sa;
}

/* steps a phase spans: the most any node's sub-call takes */
static int64_t phase_steps(gen_t *g, int on, pcs_coll_t coll, int root_of_node_mode,
                           int64_t count, uint64_t ts, int only_node)
{
    int64_t m = 0;
    if (on == ON_ROOTS) {
        if (g->t->nnodes < 2)
            return 0;
        pcs_args_t sa = sub_args(g, ON_ROOTS, 0, coll, root_of_node_mode, count, ts, false);
        return pcs_mpich_steps(&sa, sub_alg(g, &sa), g->throttle);
    }
    for (int k = 0; k < g->t->nnodes; k++) {
        if (g->t->nsize[k] < 2 || (only_node >= 0 && k != only_node))
            continue;
        int root = root_of_node_mode;
        pcs_args_t sa = sub_args(g, ON_NODE, k, coll, root, count, ts, false);
        int64_t s = pcs_mpich_steps(&sa, sub_alg(g, &sa), g->throttle);
        m = s > m ? s : m;
    }
    return m;
}

/* run a sub-call with this rank's buffers: sb/so as its send buffer, rb/ro as its receive */
static pcs_err_t run_sub(gen_t *g, int on, pcs_args_t *sa, int sb, uint64_t so, int rb,
                         uint64_t ro)
{
    const pcs_topo_t *t = g->t;
    pcs_mv_t v;
    memset(&v, 0, sizeof v);
    v.c = &g->c;
    if (on == ON_NODE) {
        v.rank = t->lrank;
        v.size = t->nlocal;
        v.peer = t->members;
    } else {
        v.rank = t->nidx[t->rank];
        v.size = t->nnodes;
        v.peer = t->leader;
    }
    sa->rank = v.rank;
    sa->size = v.size;
    for (int b = 0; b < PCS_NBUFS; b++)
        v.map[b] = (uint8_t)b;
    v.map[S] = (uint8_t)sb;
    v.off[S] = so;
    v.map[R] = (uint8_t)rb;
    v.off[R] = ro;
    v.step0 = g->step;
    int64_t n;
    return pcs_mpich_run(&v, sa, sub_alg(g, sa), g->throttle, &n);
}

static void p2p(gen_t *g, bool send, int peer, int buf, uint64_t off, uint64_t len, int tag)
{
    pcs_at(&g->c, g->step);
    g->c.tag = g->nb ? MT_NBC : tag;
    if (send)
        pcs_send(&g->c, peer, buf, off, len);
    else
        pcs_recv(&g->c, peer, buf, off, len);
}

/* Bcast: ch4 alpha (and smp's short branch), beta (and smp's medium branch) */
static pcs_err_t bcast_nodeaware(gen_t *g, bool beta, bool smp)
{
    const pcs_args_t *a = g->a;
    const pcs_topo_t *t = g->t;
    const int root = a->root, rn = t->nidx[root], rl = local_rank_of(t, root);
    const bool my_node = t->nidx[t->rank] == rn;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    if (!beta) {
        /* the root, if not its node's leader, sends the whole message to it (also 0 bytes
         * in alpha; smp returned early on 0 bytes) */
        if (rl > 0) {
            if (my_node && t->rank == root)
                p2p(g, true, t->members[0], R, 0, (uint64_t)a->count * a->type_size, MT_BCAST);
            else if (my_node && t->lrank == 0)
                p2p(g, false, root, R, 0, (uint64_t)a->count * a->type_size, MT_BCAST);
            g->step++;
        }
    } else if (rl > 0) {
        if (my_node) {
            sa = sub_args(g, ON_NODE, rn, PCS_BCAST, rl, a->count, a->type_size, false);
            e = run_sub(g, ON_NODE, &sa, R, 0, R, 0);
        }
        g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, rl, a->count, a->type_size, rn);
    }
    if (e)
        return e;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_BCAST, rn, a->count, a->type_size, false);
        e = run_sub(g, ON_ROOTS, &sa, R, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_BCAST, rn, a->count, a->type_size, -1);
    if (e)
        return e;
    /* alpha: every node from its leader; beta: the nodes the root's bcast did not cover */
    int64_t m = 0;
    for (int k = 0; k < t->nnodes; k++)
        if (!(beta && rl > 0 && k == rn)) {
            int64_t s = phase_steps(g, ON_NODE, PCS_BCAST, 0, a->count, a->type_size, k);
            m = s > m ? s : m;
        }
    if (has_node_comm(t) && !(beta && rl > 0 && my_node)) {
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_NODE, &sa, R, 0, R, 0);
    }
    g->step += (uint32_t)m;
    (void)smp;
    return e;
}

/* Allreduce ch4 alpha = MPIR smp: reduce to each leader, allreduce among leaders, bcast */
static pcs_err_t allreduce_nodeaware(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const pcs_topo_t *t = g->t;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    if (has_node_comm(t)) {
        if (a->in_place && t->lrank != 0) {
            sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, false);
            e = run_sub(g, ON_NODE, &sa, R, 0, T3, 0); /* sendbuf = recvbuf, recvbuf unused */
        } else {
            sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, a->in_place);
            e = run_sub(g, ON_NODE, &sa, S, 0, R, 0);
        }
    } else if (!a->in_place) {
        pcs_copy(&g->c, S, 0, R, 0, n);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_REDUCE, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_ALLREDUCE, 0, a->count, a->type_size, true);
        e = run_sub(g, ON_ROOTS, &sa, R, 0, R, 0);
    }
    {
        pcs_args_t s2 = sub_args(g, ON_ROOTS, 0, PCS_ALLREDUCE, 0, a->count, a->type_size, true);
        if (t->nnodes > 1)
            g->step += (uint32_t)pcs_mpich_steps(&s2, sub_alg(g, &s2), g->throttle);
    }
    if (e)
        return e;
    if (has_node_comm(t)) {
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_NODE, &sa, R, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, 0, a->count, a->type_size, -1);
    return e;
}

/* Reduce ch4 alpha: to leaders, to comm rank 0, then 0 -> root on the comm */
static pcs_err_t reduce_alpha(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const pcs_topo_t *t = g->t;
    const int root = a->root;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    /* leaders other than the root reduce into a scratch buffer (T3) */
    const int rb = is_leader(t) && t->rank != root ? T3 : R;
    if (rb == T3)
        pcs_need_tmp(&g->c, T3, n);
    int ib; /* what the leaders' internode reduce sends */
    if (has_node_comm(t)) {
        /* a non-leader root with MPI_IN_PLACE passes MPI_IN_PLACE as a non-root here (an
         * MPICH bug); we model the data it meant: its receive buffer */
        bool ip = a->in_place && t->lrank == 0;
        sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, ip);
        e = run_sub(g, ON_NODE, &sa, a->in_place ? R : S, 0, rb, 0);
        ib = rb;
    } else {
        ib = a->in_place ? R : S;
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_REDUCE, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (is_leader(t)) {
        bool zero = t->nidx[t->rank] == 0;
        sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, 0, a->count, a->type_size, zero);
        if (zero && ib != rb)
            pcs_copy(&g->c, ib, 0, rb, 0, n); /* MPI_IN_PLACE on recvbuf: data is there */
        e = run_sub(g, ON_ROOTS, &sa, ib, 0, rb, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_REDUCE, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (root != 0) {
        if (t->rank == 0)
            p2p(g, true, root, rb, 0, n, MT_REDUCE);
        else if (t->rank == root)
            p2p(g, false, 0, R, 0, n, MT_REDUCE);
        g->step++;
    }
    return PCS_OK;
}

/* Reduce ch4 beta = MPIR smp: other nodes to their leaders, leaders to the root's leader,
 * then the root's node to the root */
static pcs_err_t reduce_beta(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const pcs_topo_t *t = g->t;
    const int root = a->root, rn = t->nidx[root], rl = local_rank_of(t, root);
    const bool my_node = t->nidx[t->rank] == rn;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    int sb = a->in_place && t->rank == root ? R : S;
    bool sb_inplace = a->in_place && t->rank == root;
    if (is_leader(t))
        pcs_need_tmp(&g->c, T3, n);
    int64_t m = 0;
    for (int k = 0; k < t->nnodes; k++)
        if (k != rn) {
            int64_t s = phase_steps(g, ON_NODE, PCS_REDUCE, 0, a->count, a->type_size, k);
            m = s > m ? s : m;
        }
    if (has_node_comm(t) && !my_node) {
        sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_NODE, &sa, S, 0, T3, 0);
    }
    g->step += (uint32_t)m;
    if (e)
        return e;
    if (is_leader(t)) {
        if (!my_node) {
            sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, rn, a->count, a->type_size, false);
            e = run_sub(g, ON_ROOTS, &sa, has_node_comm(t) ? T3 : S, 0, T3, 0);
        } else if (t->rank != root) {
            sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, rn, a->count, a->type_size, false);
            e = run_sub(g, ON_ROOTS, &sa, S, 0, T3, 0);
            sb = T3;
        } else {
            sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, rn, a->count, a->type_size, sb_inplace);
            e = run_sub(g, ON_ROOTS, &sa, sb, 0, R, 0);
            sb_inplace = true;
            sb = R;
        }
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_REDUCE, rn, a->count, a->type_size, -1);
    if (e)
        return e;
    if (has_node_comm(t) && my_node) {
        sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, rl, a->count, a->type_size,
                      t->rank == root && sb_inplace);
        e = run_sub(g, ON_NODE, &sa, sb, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_REDUCE, rl, a->count, a->type_size, rn);
    return e;
}

/* Barrier ch4 alpha = MPIR smp */
static pcs_err_t barrier_nodeaware(gen_t *g)
{
    const pcs_topo_t *t = g->t;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    if (has_node_comm(t)) {
        sa = sub_args(g, ON_NODE, 0, PCS_BARRIER, 0, 0, 0, false);
        e = run_sub(g, ON_NODE, &sa, S, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BARRIER, 0, 0, 0, -1);
    if (e)
        return e;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_BARRIER, 0, 0, 0, false);
        e = run_sub(g, ON_ROOTS, &sa, S, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_BARRIER, 0, 0, 0, -1);
    if (e)
        return e;
    /* release with a 1-byte bcast (a 0-byte one would return at once) */
    if (has_node_comm(t)) {
        pcs_need_tmp(&g->c, T3, 1);
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, 1, 1, false);
        e = run_sub(g, ON_NODE, &sa, T3, 0, T3, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, 0, 1, 1, -1);
    return e;
}

/* Scan ch4 alpha = MPIR smp (node-consecutive). T3: tempbuf | prefulldata | localfulldata |
 * noneed */
static pcs_err_t scan_nodeaware(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const pcs_topo_t *t = g->t;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const int me = t->nidx[t->rank];
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    pcs_need_tmp(&g->c, T3, 3 * n + 4);
    if (has_node_comm(t)) {
        sa = sub_args(g, ON_NODE, 0, PCS_SCAN, 0, a->count, a->type_size, a->in_place);
        e = run_sub(g, ON_NODE, &sa, S, 0, R, 0);
    } else if (!a->in_place) {
        pcs_copy(&g->c, S, 0, R, 0, n);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_SCAN, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    uint64_t lfd = 2 * n;
    int lfb = T3;
    bool any_node_comm = false;
    for (int k = 0; k < t->nnodes; k++)
        any_node_comm = any_node_comm || t->nsize[k] > 1;
    if (is_leader(t) && has_node_comm(t))
        p2p(g, false, t->members[t->nlocal - 1], T3, lfd, n, MT_SCAN);
    else if (!is_leader(t) && t->lrank == t->nlocal - 1)
        p2p(g, true, t->members[0], R, 0, n, MT_SCAN);
    else if (is_leader(t)) {
        lfb = R;
        lfd = 0;
    }
    if (any_node_comm)
        g->step++;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_SCAN, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_ROOTS, &sa, lfb, lfd, T3, n);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_SCAN, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (t->nnodes > 1) {
        if (is_leader(t)) {
            if (me != t->nnodes - 1)
                p2p(g, true, t->leader[me + 1], T3, n, n, MT_SCAN);
            if (me != 0)
                p2p(g, false, t->leader[me - 1], T3, 0, n, MT_SCAN);
        }
        g->step++;
    }
    /* noneed (one MPI_INT) from the leader (blocking smp only), then tempbuf if the node is
     * not the first */
    if (has_node_comm(t) && !g->nb) {
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, 1, 4, false);
        e = run_sub(g, ON_NODE, &sa, T3, 3 * n, T3, 3 * n);
    }
    if (!g->nb)
        g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, 0, 1, 4, -1);
    if (e)
        return e;
    if (me != 0) {
        if (has_node_comm(t)) {
            sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, a->count, a->type_size, false);
            e = run_sub(g, ON_NODE, &sa, T3, 0, T3, 0);
        }
        pcs_reduce(&g->c, T3, 0, R, 0, n);
    }
    int64_t m = 0; /* only nodes after the first broadcast tempbuf */
    for (int k = 1; k < t->nnodes; k++) {
        int64_t s = phase_steps(g, ON_NODE, PCS_BCAST, 0, a->count, a->type_size, k);
        m = s > m ? s : m;
    }
    g->step += (uint32_t)m;
    return e;
}

/* Bcast smp (MPIR, PARENT): short -> like alpha, medium & pow2 -> like beta, else ring */
static pcs_err_t bcast_smp(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    if (nb == 0)
        return PCS_OK;
    if (nb < 12288 || a->size < 8) /* BCAST_SHORT_MSG_SIZE, BCAST_MIN_PROCS */
        return bcast_nodeaware(g, false, true);
    if (nb < 524288 && !(a->size & (a->size - 1))) /* BCAST_LONG_MSG_SIZE */
        return bcast_nodeaware(g, true, true);
    pcs_mv_t v;
    memset(&v, 0, sizeof v);
    v.c = &g->c;
    v.rank = a->rank;
    v.size = a->size;
    for (int b = 0; b < PCS_NBUFS; b++)
        v.map[b] = (uint8_t)b;
    v.step0 = g->step;
    int64_t ns;
    pcs_err_t e =
        pcs_mpich_run(&v, a, PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER, g->throttle, &ns);
    g->step += (uint32_t)ns;
    return e;
}

/* what the binding does itself when it returns early: the local copy */
static void early_copy(gen_t *g)
{
    const pcs_args_t *a = g->a;
    if (a->size != 1 || a->in_place)
        return;
    switch (a->coll) {
    case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_REDUCE_SCATTER_BLOCK:
        pcs_copy(&g->c, S, 0, R, 0, (uint64_t)a->count * a->type_size);
        break;
    case PCS_ALLGATHERV:
        pcs_copy(&g->c, S, 0, R, a->displs ? (uint64_t)a->displs[0] * a->type_size : 0,
                 (uint64_t)a->counts[0] * a->type_size);
        break;
    case PCS_REDUCE_SCATTER:
        pcs_copy(&g->c, S, 0, R, 0, (uint64_t)a->counts[0] * a->type_size);
        break;
    default: break;
    }
}

static pcs_err_t generate_topo(gen_t *g, const pcs_choice_t *ch);

/* Iallreduce sched_naive: Ireduce to 0 then Ibcast from 0, each as MPIR_I<coll>_intra_
 * sched_auto picks on this communicator (the smp compositions on a PARENT one) */
static pcs_err_t iallreduce_naive(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const pcs_hier_t h = {g->t->parent, g->t->consecutive};
    pcs_args_t sa = *a;
    sa.coll = PCS_REDUCE;
    sa.root = 0;
    const uint8_t ms = g->c.map[S];
    if (a->in_place && a->rank != 0) { /* sendbuf = recvbuf, recvbuf unused */
        sa.in_place = false;
        g->c.map[S] = g->c.map[R];
    }
    pcs_choice_t ch = {.alg = pcs_mpich_nb_auto(&sa, h, g->user_op)};
    g->a = &sa;
    pcs_err_t e = generate_topo(g, &ch);
    g->c.map[S] = ms;
    g->nb = false;
    if (!e) {
        pcs_args_t sb = *a;
        sb.coll = PCS_BCAST;
        sb.root = 0;
        sb.in_place = false;
        ch.alg = pcs_mpich_nb_auto(&sb, h, g->user_op);
        g->a = &sb;
        e = generate_topo(g, &ch);
    }
    g->a = a;
    return e;
}

static pcs_err_t generate_topo(gen_t *g, const pcs_choice_t *ch)
{
    const pcs_args_t *a = g->a;
    switch (ch->alg) {
    case PCS_ALG_NONE:
        if (ch->component == PCS_COMP_NONE)
            early_copy(g);
        return g->c.s->err;
    case PCS_ALG_MPICH_BCAST_CH4_ALPHA: return bcast_nodeaware(g, false, false);
    case PCS_ALG_MPICH_BCAST_CH4_BETA: return bcast_nodeaware(g, true, false);
    case PCS_ALG_MPICH_BCAST_SMP: return bcast_smp(g);
    case PCS_ALG_MPICH_ALLREDUCE_CH4_ALPHA: case PCS_ALG_MPICH_ALLREDUCE_SMP:
        return allreduce_nodeaware(g);
    case PCS_ALG_MPICH_REDUCE_CH4_ALPHA: return reduce_alpha(g);
    case PCS_ALG_MPICH_REDUCE_CH4_BETA: case PCS_ALG_MPICH_REDUCE_SMP: return reduce_beta(g);
    case PCS_ALG_MPICH_BARRIER_CH4_ALPHA: case PCS_ALG_MPICH_BARRIER_SMP:
        return barrier_nodeaware(g);
    case PCS_ALG_MPICH_SCAN_CH4_ALPHA: case PCS_ALG_MPICH_SCAN_SMP: return scan_nodeaware(g);
    /* the sched_smp compositions: Ibcast's is alpha's shape at every size, Ireduce's and
     * Iscan's those of the blocking smp (Iscan's without the "noneed" broadcast) */
    case PCS_ALG_MPICH_IBCAST_SMP: g->nb = true; return bcast_nodeaware(g, false, false);
    case PCS_ALG_MPICH_IALLREDUCE_SMP: g->nb = true; return allreduce_nodeaware(g);
    case PCS_ALG_MPICH_IALLREDUCE_NAIVE: return iallreduce_naive(g);
    case PCS_ALG_MPICH_IREDUCE_SMP: g->nb = true; return reduce_beta(g);
    case PCS_ALG_MPICH_ISCAN_SMP:
        if (g->t->consecutive) {
            g->nb = true;
            return scan_nodeaware(g);
        }
        ch = &(pcs_choice_t){.alg = PCS_ALG_MPICH_ISCAN_RD}; /* its own fallback */
        g->c.s->alg = ch->alg;
        /* fall through */
    default: {
        if (pcs_alg_coll(ch->alg) != a->coll)
            return g->c.s->err = PCS_E_ARG;
        pcs_mv_t v;
        memset(&v, 0, sizeof v);
        v.c = &g->c;
        v.rank = a->rank;
        v.size = a->size;
        for (int b = 0; b < PCS_NBUFS; b++)
            v.map[b] = (uint8_t)b;
        v.step0 = g->step;
        int64_t ns;
        pcs_err_t e = pcs_mpich_run(&v, a, ch->alg, g->throttle, &ns);
        g->step += (uint32_t)ns;
        return e;
    }
    }
}

pcs_err_t pcs_mpich40_generate(const pcs_args_t *a, const pcs_mpich_comm_t *mc,
                               const pcs_mpich_env_t *env, const pcs_choice_t *ch,
                               pcs_sched_t *s)
{
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return s->err = PCS_E_ARG;
    pcs_topo_t t;
    pcs_err_t e = pcs_topo_init(&t, a, mc);
    if (e)
        return s->err = e;
    gen_t g;
    memset(&g, 0, sizeof g);
    pcs_ctx_init(&g.c, a, s, 0);
    g.a = a;
    g.t = &t;
    g.user_op = mc && mc->user_op;
    g.env = env ? env : &default_env;
    g.throttle = throttle_of(g.env);
    g.step = s->nsteps;
    s->alg = ch->alg;
    e = generate_topo(&g, ch);
    if (e && !s->err)
        s->err = e;
    pcs_topo_free(&t);
    return s->err;
}

pcs_err_t pcs_mpich40_schedule(const pcs_args_t *a, const pcs_mpich_comm_t *mc,
                               const pcs_mpich_env_t *env, pcs_sched_t *s)
{
    pcs_choice_t ch;
    pcs_err_t e = pcs_mpich40_select(a, mc, env, &ch);
    if (e)
        return s->err = e;
    return pcs_mpich40_generate(a, mc, env, &ch, s);
}
