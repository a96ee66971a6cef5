/* coll_recon.c: logged collective calls -> the library's schedules (coll_recon.h). */
#include "coll_recon.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "vec.h"

typedef struct rank_info {
    recon_lib_t lib;
    pcs_ompi_forced_t forced;
    pcs_mpich_env_t menv;
    int host;          /* hosts numbered by first appearance in rank order */
} rank_info_t;

/* Schedules of recent calls: a run repeats the same collective with the same arguments
 * (an Allreduce per iteration), and selecting and generating its schedule cost ~70% of
 * report's time on a log of collectives. Select and generate are pure functions of the
 * arguments and the rank's settings, so a call equal in both gets a copy of the schedule.
 * Only calls without per-rank lists (no v-variants); large schedules are not kept, so the
 * cache stays small (at most SCHED_CACHE x SCHED_CACHE_OPS operations, < 4 MB). */
#define SCHED_CACHE 64
#define SCHED_CACHE_OPS 1024

typedef struct sched_ent {
    int valid;
    int32_t rank;       /* world rank: whose library settings */
    int32_t comm;       /* global communicator (MPICH: its node layout) */
    bool user_op;
    pcs_args_t a;       /* scalars only: the list pointers are NULL */
    recon_skip_t why;
    pcs_choice_t ch;
    pcs_sched_t s;      /* its own operations */
} sched_ent_t;

struct recon {
    const plog_run_t *run;
    int32_t world;
    rank_info_t *ranks;     /* world entries */
    int32_t **inverse;      /* by global comm id: world rank -> comm rank (lazily) */
    size_t ncomms;
    int64_t *counts, *displs, *scounts; /* scratch for v-variants, world entries each */
    int *node;                          /* scratch: host of each communicator rank */
    int assumed_bytes;
    sched_ent_t *cache;     /* SCHED_CACHE entries */
};

const char *recon_lib_name(recon_lib_t l)
{
    switch (l) {
    case RECON_LIB_AUTO: return "auto";
    case RECON_LIB_OMPI41: return "ompi41";
    case RECON_LIB_MPICH40: return "mpich40";
    default: return "unknown";
    }
}

int recon_lib_parse(const char *name)
{
    if (strcmp(name, "auto") == 0)
        return RECON_LIB_AUTO;
    if (strcmp(name, "ompi41") == 0)
        return RECON_LIB_OMPI41;
    if (strcmp(name, "mpich40") == 0)
        return RECON_LIB_MPICH40;
    return -1;
}

const char *recon_skip_name(recon_skip_t why)
{
    static const char *const names[RECON__COUNT] = {
        "ok", "not a collective", "nonblocking, its algorithm not in the catalogue (MPICH's tsp_* or a forced sched_auto)",
        "intercommunicator", "the call failed", "unknown communicator",
        "no rules for this MPI library", "algorithm not in the catalogue yet",
        "recorded values inconsistent"};
    return why < RECON__COUNT ? names[why] : "?";
}

/* ---- per rank: library and forcing variables ---- */

/* The library's variables from the environment the rank recorded (env.NAME=VALUE). */
static void settings_of(const plog_rank_t *rk, rank_info_t *ri)
{
    memset(&ri->forced, 0, sizeof(ri->forced));
    memset(&ri->menv, 0, sizeof(ri->menv));
    for (const char *kv = plog_rank_kv_next(rk, NULL); kv; kv = plog_rank_kv_next(rk, kv)) {
        if (strncmp(kv, "env.", 4) != 0)
            continue;
        const char *eq = strchr(kv, '=');
        if (!eq || (size_t)(eq - kv - 4) >= 128)
            continue;
        char name[128];
        memcpy(name, kv + 4, (size_t)(eq - kv - 4));
        name[eq - kv - 4] = '\0';
        if (!pcs_ompi_forced_set(&ri->forced, name, eq + 1))
            pcs_mpich_env_set(&ri->menv, name, eq + 1);
    }
}

static recon_lib_t lib_of(const plog_rank_t *rk)
{
    switch (pcs_library_of(plog_rank_kv(rk, "mpi_library"))) {
    case PCS_LIB_OMPI41: return RECON_LIB_OMPI41;
    case PCS_LIB_MPICH40: return RECON_LIB_MPICH40;
    default: return RECON_LIB_UNKNOWN;
    }
}

recon_t *recon_new(const plog_run_t *run, recon_lib_t force)
{
    recon_t *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->run = run;
    r->world = plog_run_world_size(run);
    r->ncomms = plog_run_ncomms(run);
    r->ranks = calloc((size_t)r->world, sizeof(*r->ranks));
    r->inverse = calloc(r->ncomms + 1, sizeof(*r->inverse));
    r->counts = malloc((size_t)r->world * sizeof(int64_t));
    r->displs = malloc((size_t)r->world * sizeof(int64_t));
    r->scounts = malloc((size_t)r->world * sizeof(int64_t));
    r->node = malloc((size_t)r->world * sizeof(int));
    r->cache = calloc(SCHED_CACHE, sizeof(*r->cache));
    const char **hosts = calloc((size_t)r->world, sizeof(*hosts));
    if (!r->ranks || !r->inverse || !r->counts || !r->displs || !r->scounts || !r->node ||
        !r->cache || !hosts) {
        free(hosts);
        recon_free(r);
        return NULL;
    }
    int nhosts = 0;
    for (int32_t i = 0; i < r->world; i++) {
        const plog_rank_t *rk = plog_run_rank(run, i);
        r->ranks[i].host = -1 - i; /* a rank without a log: a host of its own */
        if (!rk)
            continue;
        r->ranks[i].lib = force != RECON_LIB_AUTO ? force : lib_of(rk);
        settings_of(rk, &r->ranks[i]);
        const char *h = plog_rank_kv(rk, "hostname");
        if (!h)
            continue;
        int k = 0; /* hosts are few: a linear search, once per rank */
        while (k < nhosts && strcmp(hosts[k], h) != 0)
            k++;
        if (k == nhosts)
            hosts[nhosts++] = h;
        r->ranks[i].host = k;
    }
    free(hosts);
    return r;
}

int recon_host(const recon_t *r, int32_t rank)
{
    return rank >= 0 && rank < r->world ? r->ranks[rank].host : -1 - rank;
}

void recon_free(recon_t *r)
{
    if (!r)
        return;
    if (r->inverse)
        for (size_t i = 0; i <= r->ncomms; i++)
            free(r->inverse[i]);
    free(r->inverse);
    free(r->ranks);
    free(r->counts);
    free(r->displs);
    free(r->scounts);
    free(r->node);
    if (r->cache)
        for (size_t i = 0; i < SCHED_CACHE; i++)
            pcs_sched_free(&r->cache[i].s);
    free(r->cache);
    free(r);
}

static int args_eq(const pcs_args_t *x, const pcs_args_t *y)
{
    return x->coll == y->coll && x->size == y->size && x->rank == y->rank &&
           x->root == y->root && x->type_size == y->type_size && x->count == y->count &&
           x->own_count == y->own_count && x->in_place == y->in_place &&
           x->commutative == y->commutative && x->nonblocking == y->nonblocking;
}

static size_t args_slot(const pcs_args_t *a, int32_t rank)
{
    uint64_t h = (uint64_t)a->coll * 0x9e3779b97f4a7c15ull;
    h = (h ^ (uint64_t)(uint32_t)rank) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (uint64_t)a->count) * 0x9e3779b97f4a7c15ull;
    h = (h ^ a->type_size ^ (uint64_t)(uint32_t)a->root << 32) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (uint64_t)(uint32_t)a->size ^ (uint64_t)a->own_count << 20 ^
         (uint64_t)a->in_place << 62 ^ (uint64_t)a->commutative << 63 ^
         (uint64_t)a->nonblocking << 61) *
        0x9e3779b97f4a7c15ull;
    _Static_assert(SCHED_CACHE <= 64, "the slot takes the hash's top 6 bits");
    return (size_t)(h >> 58) % SCHED_CACHE;
}

/* dst = src, operations included; -1 when out of memory (dst is then unusable). */
static int sched_copy(pcs_sched_t *dst, const pcs_sched_t *src)
{
    if (VEC_GROW(dst->ops, dst->cap, src->n) != 0)
        return -1;
    pcs_op_t *ops = dst->ops;
    size_t cap = dst->cap;
    *dst = *src;
    dst->ops = ops;
    dst->cap = cap;
    if (src->n)
        memcpy(dst->ops, src->ops, src->n * sizeof(*ops));
    return 0;
}

int recon_assumed_bytes(const recon_t *r) { return r->assumed_bytes; }

/* Communicator rank of world rank w in global communicator gid; -1 if not a member. */
static int32_t comm_rank_of(recon_t *r, int32_t gid, int32_t w)
{
    if (gid <= 0 || (size_t)gid > r->ncomms || w < 0 || w >= r->world)
        return -1;
    if (!r->inverse[gid]) {
        const plog_gcomm_t *g = plog_run_comm(r->run, gid);
        int32_t *inv = malloc((size_t)r->world * sizeof(int32_t));
        if (!g || !inv) {
            free(inv);
            return -1;
        }
        for (int32_t i = 0; i < r->world; i++)
            inv[i] = -1;
        for (uint32_t i = 0; i < g->n_members; i++)
            if (g->members[i] >= 0 && g->members[i] < r->world)
                inv[g->members[i]] = (int32_t)i;
        r->inverse[gid] = inv;
    }
    return r->inverse[gid][w];
}

/* ---- one event ---- */

typedef struct callmap {
    uint16_t call;
    uint8_t coll;
    uint8_t nonblocking;
} callmap_t;

static const callmap_t calls[] = {
    {PLOG_CALL_MPI_Barrier, PCS_BARRIER, 0},
    {PLOG_CALL_MPI_Bcast, PCS_BCAST, 0},
    {PLOG_CALL_MPI_Gather, PCS_GATHER, 0},
    {PLOG_CALL_MPI_Gatherv, PCS_GATHERV, 0},
    {PLOG_CALL_MPI_Scatter, PCS_SCATTER, 0},
    {PLOG_CALL_MPI_Scatterv, PCS_SCATTERV, 0},
    {PLOG_CALL_MPI_Allgather, PCS_ALLGATHER, 0},
    {PLOG_CALL_MPI_Allgatherv, PCS_ALLGATHERV, 0},
    {PLOG_CALL_MPI_Alltoall, PCS_ALLTOALL, 0},
    {PLOG_CALL_MPI_Alltoallv, PCS_ALLTOALLV, 0},
    {PLOG_CALL_MPI_Alltoallw, PCS_ALLTOALLW, 0},
    {PLOG_CALL_MPI_Reduce, PCS_REDUCE, 0},
    {PLOG_CALL_MPI_Allreduce, PCS_ALLREDUCE, 0},
    {PLOG_CALL_MPI_Reduce_scatter, PCS_REDUCE_SCATTER, 0},
    {PLOG_CALL_MPI_Reduce_scatter_block, PCS_REDUCE_SCATTER_BLOCK, 0},
    {PLOG_CALL_MPI_Scan, PCS_SCAN, 0},
    {PLOG_CALL_MPI_Exscan, PCS_EXSCAN, 0},
    {PLOG_CALL_MPI_Ibarrier, PCS_BARRIER, 1},
    {PLOG_CALL_MPI_Ibcast, PCS_BCAST, 1},
    {PLOG_CALL_MPI_Igather, PCS_GATHER, 1},
    {PLOG_CALL_MPI_Igatherv, PCS_GATHERV, 1},
    {PLOG_CALL_MPI_Iscatter, PCS_SCATTER, 1},
    {PLOG_CALL_MPI_Iscatterv, PCS_SCATTERV, 1},
    {PLOG_CALL_MPI_Iallgather, PCS_ALLGATHER, 1},
    {PLOG_CALL_MPI_Iallgatherv, PCS_ALLGATHERV, 1},
    {PLOG_CALL_MPI_Ialltoall, PCS_ALLTOALL, 1},
    {PLOG_CALL_MPI_Ialltoallv, PCS_ALLTOALLV, 1},
    {PLOG_CALL_MPI_Ialltoallw, PCS_ALLTOALLW, 1},
    {PLOG_CALL_MPI_Ireduce, PCS_REDUCE, 1},
    {PLOG_CALL_MPI_Iallreduce, PCS_ALLREDUCE, 1},
    {PLOG_CALL_MPI_Ireduce_scatter, PCS_REDUCE_SCATTER, 1},
    {PLOG_CALL_MPI_Ireduce_scatter_block, PCS_REDUCE_SCATTER_BLOCK, 1},
    {PLOG_CALL_MPI_Iscan, PCS_SCAN, 1},
    {PLOG_CALL_MPI_Iexscan, PCS_EXSCAN, 1},
};

static const callmap_t *map_call(unsigned call)
{
    static int8_t idx[PLOG_CALL__MAX + 1];
    static int ready;
    if (!ready) { /* call ids are < PLOG_CALL__MAX: a direct table */
        memset(idx, -1, sizeof(idx));
        for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
            idx[calls[i].call] = (int8_t)i;
        ready = 1;
    }
    return call <= PLOG_CALL__MAX && idx[call] >= 0 ? &calls[idx[call]] : NULL;
}

int recon_call_coll(unsigned call, pcs_coll_t *coll, bool *nonblocking)
{
    const callmap_t *m = map_call(call);
    if (!m)
        return 0;
    *coll = (pcs_coll_t)m->coll;
    *nonblocking = m->nonblocking;
    return 1;
}

/* elements = bytes / type size; 0 type size with bytes > 0 is inconsistent */
static int elems(uint64_t bytes, uint64_t ts, int64_t *out)
{
    if (ts == 0) {
        *out = 0;
        return bytes == 0;
    }
    if (bytes % ts != 0 || bytes / ts > INT64_MAX)
        return 0;
    *out = (int64_t)(bytes / ts);
    return 1;
}

/* Whether the byte counts and offsets stay below 2^50 (1 PiB) per call: the schedule
 * builders multiply counts by element sizes and ranks in 64-bit integers, and only a
 * damaged log holds more (doubles here, so the check itself cannot overflow). */
static bool args_in_range(const pcs_args_t *a)
{
    const double lim = 0x1p50, ts = (double)a->type_size, n = a->size > 0 ? a->size : 1;
    if (ts * fabs((double)a->count) * n >= lim || ts * fabs((double)a->own_count) >= lim)
        return false;
    const int64_t *v[4] = {a->counts, a->displs, a->scounts, a->sdispls};
    for (int k = 0; k < 4; k++) {
        double sum = 0;
        for (int i = 0; v[k] && i < a->size; i++)
            sum += fabs((double)v[k][i]);
        if (ts * sum >= lim)
            return false;
    }
    return true;
}

static int list_elems(const uint64_t *v, uint32_t n, int size, uint64_t ts, int64_t *out)
{
    if (v == NULL || (int)n != size)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (!elems(v[i], ts, &out[i]))
            return 0;
    return 1;
}

/* Gather, Scatter: the root's count from its side of the call (root_bytes of root_ts), the
 * others' from theirs. 0 when the recorded values cannot be the call's. */
static int rooted_count(pcs_args_t *a, int is_root, uint64_t root_bytes, uint64_t root_ts,
                        uint64_t own_bytes, uint64_t own_ts)
{
    a->type_size = is_root ? root_ts : own_ts;
    return is_root ? elems(root_bytes, root_ts, &a->count) : elems(own_bytes, own_ts, &a->count);
}

/* Gatherv, Scatterv: the root's per-rank list (of list_ts elements) and everyone's own block
 * (own_bytes of own_ts; the root's own entry of the list when in place). */
static int rooted_v(recon_t *r, pcs_args_t *a, int is_root, const uint64_t *list, uint32_t n,
                    uint64_t list_ts, uint64_t own_bytes, uint64_t own_ts)
{
    a->type_size = is_root ? list_ts : own_ts;
    if (!is_root)
        return elems(own_bytes, own_ts, &a->own_count);
    a->counts = r->counts;
    if (!list_elems(list, n, a->size, list_ts, r->counts))
        return 0;
    if (a->in_place) {
        a->own_count = r->counts[a->rank];
        return 1;
    }
    return elems(own_bytes, own_ts, &a->own_count);
}

/* The collective's arguments from record e (call m) on rank e->rank of its communicator lc:
 * counts from the recorded bytes and type sizes, the root as a communicator rank.
 * RECON_OK or RECON_BAD_ARGS. */
static recon_skip_t args_of(recon_t *r, const plog_rec_t *e, const callmap_t *m,
                            const plog_lcomm_t *lc, pcs_args_t *a)
{
    memset(a, 0, sizeof(*a));
    a->coll = (pcs_coll_t)m->coll;
    a->size = (int)lc->n_local;
    a->rank = lc->my_rank;
    a->in_place = (e->flags & PLOG_F_INPLACE) != 0;
    a->nonblocking = m->nonblocking;
    uint64_t sts = e->stype_size, rts = e->rtype_size;
    /* format 1: elements taken as bytes (Alltoallw never has COLLINFO: its lists are bytes) */
    if (!(e->flags & PLOG_F_COLLINFO) && a->coll != PCS_BARRIER && a->coll != PCS_ALLTOALLW) {
        sts = rts = 1;
        r->assumed_bytes = 1;
    }
    a->commutative = (e->flags & PLOG_F_COLLINFO) ? e->op_commutative != 0 : true;
    int rooted = a->coll == PCS_BCAST || a->coll == PCS_REDUCE || a->coll == PCS_GATHER ||
                 a->coll == PCS_GATHERV || a->coll == PCS_SCATTER || a->coll == PCS_SCATTERV;
    if (rooted) {
        a->root = comm_rank_of(r, e->comm, e->root);
        if (a->root < 0)
            return RECON_BAD_ARGS;
    }
    int is_root = rooted && a->root == a->rank;
    int ok = 1;
    switch (a->coll) {
    case PCS_BARRIER:
        a->type_size = 1;
        break;
    case PCS_BCAST: case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN:
        a->type_size = sts ? sts : rts;
        ok = elems(e->bytes, a->type_size, &a->count);
        break;
    case PCS_ALLGATHER: case PCS_ALLTOALL:
        a->type_size = rts;
        ok = elems(e->rbytes, rts, &a->count);
        break;
    case PCS_GATHER:
        ok = rooted_count(a, is_root, e->rbytes, rts, e->bytes, sts);
        break;
    case PCS_SCATTER:
        ok = rooted_count(a, is_root, e->bytes, sts, e->rbytes, rts);
        break;
    case PCS_REDUCE_SCATTER_BLOCK:
        a->type_size = sts ? sts : rts;
        ok = elems(e->rbytes, a->type_size, &a->count);
        break;
    case PCS_REDUCE_SCATTER:
        a->type_size = sts ? sts : rts;
        ok = list_elems(e->vrecv, e->n_vrecv, a->size, a->type_size, r->counts);
        a->counts = r->counts;
        break;
    case PCS_ALLGATHERV:
        a->type_size = rts;
        ok = list_elems(e->vrecv, e->n_vrecv, a->size, rts, r->counts);
        a->counts = r->counts;
        break;
    case PCS_GATHERV:
        ok = rooted_v(r, a, is_root, e->vrecv, e->n_vrecv, rts, e->bytes, sts);
        break;
    case PCS_SCATTERV:
        ok = rooted_v(r, a, is_root, e->vsend, e->n_vsend, sts, e->rbytes, rts);
        break;
    case PCS_ALLTOALLV:
        a->type_size = rts;
        ok = list_elems(e->vrecv, e->n_vrecv, a->size, rts, r->counts) &&
             list_elems(e->vsend, e->n_vsend, a->size, a->in_place ? rts : sts, r->scounts);
        a->counts = r->counts;
        a->scounts = r->scounts;
        break;
    case PCS_ALLTOALLW: /* per-peer datatypes: the lists are already bytes */
        a->type_size = 1;
        ok = list_elems(e->vrecv, e->n_vrecv, a->size, 1, r->counts) &&
             list_elems(e->vsend, e->n_vsend, a->size, 1, r->scounts);
        a->counts = r->counts;
        a->scounts = r->scounts;
        break;
    default:
        assert(!"a collective of the call table without arguments here");
        return RECON_BAD_ARGS;
    }
    return ok && args_in_range(a) ? RECON_OK : RECON_BAD_ARGS;
}

/* The library's choice and schedule for arguments a on rank ri (communicator lc), into ch
 * and s. MPICH's rules also look at the node layout of the communicator and built-in ops. */
static recon_skip_t schedule_of(recon_t *r, const rank_info_t *ri, const plog_lcomm_t *lc,
                                const pcs_args_t *a, bool user_op, pcs_choice_t *ch,
                                pcs_sched_t *s)
{
    pcs_sched_reset(s);
    pcs_err_t pe;
    if (ri->lib == RECON_LIB_MPICH40) {
        for (int i = 0; i < a->size; i++) {
            int32_t w = lc->local[i];
            r->node[i] = w >= 0 && w < r->world ? r->ranks[w].host : -1 - i;
        }
        pcs_mpich_comm_t t = {.node = r->node, .user_op = user_op};
        pe = pcs_mpich40_select(a, &t, &ri->menv, ch);
        if (pe == PCS_OK)
            pe = pcs_mpich40_generate(a, &t, &ri->menv, ch, s);
    } else {
        assert(ri->lib == RECON_LIB_OMPI41);
        pe = pcs_ompi41_select(a, &ri->forced, ch);
        if (pe == PCS_OK)
            pe = pcs_generate(a, ch, s);
    }
    return pe == PCS_OK                 ? RECON_OK
           : pe != PCS_E_UNSUPPORTED ? RECON_BAD_ARGS
           : a->nonblocking          ? RECON_NONBLOCKING
                                     : RECON_UNSUPPORTED;
}

/* The cache entry for a call of rank `rank` on communicator comm with arguments a, or NULL
 * for calls with per-rank lists (never cached). */
static sched_ent_t *cache_slot(recon_t *r, const pcs_args_t *a, int32_t rank)
{
    if (a->counts || a->displs || a->scounts || a->sdispls)
        return NULL;
    size_t i = args_slot(a, rank);
    assert(i < SCHED_CACHE);
    return &r->cache[i];
}

static int cache_hit(const sched_ent_t *ce, const plog_rec_t *e, const pcs_args_t *a,
                     bool user_op)
{
    return ce->valid && ce->rank == e->rank && ce->comm == e->comm && ce->user_op == user_op &&
           args_eq(&ce->a, a);
}

static void cache_put(sched_ent_t *ce, const plog_rec_t *e, const pcs_args_t *a, bool user_op,
                      recon_skip_t why, const pcs_choice_t *ch, const pcs_sched_t *s)
{
    if (s->n > SCHED_CACHE_OPS)
        return;
    ce->valid = sched_copy(&ce->s, s) == 0;
    ce->rank = e->rank;
    ce->comm = e->comm;
    ce->user_op = user_op;
    ce->a = *a;
    ce->why = why;
    ce->ch = *ch;
}

recon_skip_t recon_event(recon_t *r, const plog_rec_t *e, pcs_args_t *a, pcs_choice_t *ch,
                         pcs_sched_t *s)
{
    const callmap_t *m = map_call(e->call);
    if (!m)
        return RECON_NOT_COLL;
    if (e->flags & PLOG_F_INTER)
        return RECON_INTER;
    if (e->rc != 0)
        return RECON_FAILED;
    const plog_lcomm_t *lc = e->lcomm;
    if (!lc || lc->my_rank < 0 || e->rank < 0 || e->rank >= r->world)
        return RECON_NO_COMM;
    const rank_info_t *ri = &r->ranks[e->rank];
    if (ri->lib != RECON_LIB_OMPI41 && ri->lib != RECON_LIB_MPICH40)
        return RECON_LIBRARY;
    recon_skip_t why = args_of(r, e, m, lc, a);
    if (why != RECON_OK)
        return why;
    const bool user_op = (e->flags & PLOG_F_COLLINFO) && e->op == PLOG_OP_USER;
    sched_ent_t *ce = cache_slot(r, a, e->rank);
    if (ce && cache_hit(ce, e, a, user_op) && sched_copy(s, &ce->s) == 0) {
        *ch = ce->ch;
        return ce->why;
    }
    why = schedule_of(r, ri, lc, a, user_op, ch, s);
    if (ce)
        cache_put(ce, e, a, user_op, why, ch, s);
    return why;
}
