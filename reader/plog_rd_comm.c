/* plog_rd_comm.c: communicators: each rank's table (from its COMMS frames, plus the
 * predefined ones), and their matching across ranks into the run's, with global ids.
 *
 * One communicator = (kind, its two member sets as an unordered pair, ordinal), where the
 * ordinal counts earlier communicators with the same kind and sets on the same rank. Global
 * ids: 1 = MPI_COMM_WORLD, then in order of first appearance scanning ranks 0, 1, ... and
 * each rank's communicators by local id. */
#include "plog_rd.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define COMM_TOPO_CAP 256 /* topology words accepted per communicator */

/* ==== a rank's table ===================================================================== */

static int comm_cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int comm_cmp_local_id(const void *a, const void *b)
{
    uint32_t x = ((const plog_lcomm_t *)a)->local_id, y = ((const plog_lcomm_t *)b)->local_id;
    return (x > y) - (x < y);
}

/* Add one definition to the rank's table (member lists interned). */
static plog_err_t comm_add(plog_run_t *run, rank_priv_t *rp, const plog_comm_def_t *d,
                           int64_t off, plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    const char *path = rp->path;
    if (VEC_GROW(rp->comms, rp->comms_cap, rk->n_comms + 1) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
    if ((d->kind == PLOG_COMMK_INTER) != (d->n_remote > 0))
        return plog_fail(err, PLOG_E_CORRUPT, path, off,
                         "communicator %u: kind %u with %u remote members", d->id, d->kind,
                         d->n_remote);
    if (d->n_local == 0)
        return plog_fail(err, PLOG_E_CORRUPT, path, off, "communicator %u has no members",
                         d->id);
    plog_lcomm_t *c = &rp->comms[rk->n_comms];
    memset(c, 0, sizeof(*c));
    c->local_id = d->id;
    c->kind = d->kind;
    c->call = d->call;
    c->parent = d->parent;
    c->n_local = d->n_local;
    c->n_remote = d->n_remote;
    c->local = intern_list(&run->intern, d->local, d->n_local);
    c->remote = intern_list(&run->intern, d->remote, d->n_remote);
    if (c->local == NULL || c->remote == NULL)
        return plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
    c->my_rank = -1;
    for (uint32_t i = 0; i < d->n_local; i++)
        if (d->local[i] == rk->rank)
            c->my_rank = (int32_t)i;
    rk->n_comms++;
    rk->comms = rp->comms;
    return PLOG_OK;
}

plog_err_t comm_parse_frame(plog_run_t *run, rank_priv_t *rp, const plog_frame_ix_t *fx,
                            const uint8_t *raw, plog_error_t *err)
{
    const char *path = rp->path;
    int64_t off = (int64_t)fx->offset;
    /* this file's own world size: the run's is not known yet while its first file loads */
    int32_t world = rp->pub.hdr.world_size;
    uint32_t cap = (uint32_t)world > COMM_TOPO_CAP ? (uint32_t)world : COMM_TOPO_CAP;
    int32_t *loc = malloc(cap * sizeof(*loc)), *rem = malloc(cap * sizeof(*rem));
    int64_t *topo = malloc(cap * sizeof(*topo));
    plog_err_t e = PLOG_OK;
    if (loc == NULL || rem == NULL || topo == NULL) {
        e = plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
        goto out;
    }
    plog_rcur_t r = {raw, raw + fx->raw_len, PLOG_OK};
    for (uint32_t i = 0; i < fx->count; i++) {
        plog_comm_def_t d;
        plog_err_t de = plog_comm_decode(&r, &d, loc, rem, topo, cap, world);
        if (de != PLOG_OK) {
            e = plog_fail(err, de == PLOG_E_TRUNCATED ? PLOG_E_CORRUPT : de, path, off,
                          "communicator definition %u of %u", i + 1, fx->count);
            goto out;
        }
        if (d.id == PLOG_COMM_UNKNOWN) {
            e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                          "communicator definition with a reserved id");
            goto out;
        }
        if ((e = comm_add(run, rp, &d, off, err)) != PLOG_OK)
            goto out;
    }
    if (r.p != r.end)
        e = plog_fail(err, PLOG_E_CORRUPT, path, off,
                      "%zu bytes after %u communicator definitions", (size_t)(r.end - r.p),
                      fx->count);
out:
    free(loc);
    free(rem);
    free(topo);
    return e;
}

/* MPI_COMM_WORLD (id 1) and MPI_COMM_SELF (id 2) for a log that does not define them. */
static plog_err_t comm_add_predefined(plog_run_t *run, rank_priv_t *rp, plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    int have_world = 0, have_self = 0;
    for (size_t i = 0; i < rk->n_comms; i++) {
        have_world |= rp->comms[i].local_id == PLOG_COMM_WORLD;
        have_self |= rp->comms[i].local_id == PLOG_COMM_SELF;
    }
    if (!have_world) {
        int32_t *all = malloc((size_t)run->world_size * sizeof(*all));
        if (all == NULL)
            return plog_fail(err, PLOG_E_NOMEM, rp->path, PLOG_NO_OFFSET, NULL);
        for (int32_t i = 0; i < run->world_size; i++)
            all[i] = i;
        plog_comm_def_t d = {PLOG_COMM_WORLD, 0, 0, PLOG_COMMK_INTRA, (uint32_t)run->world_size,
                             0, 0, all, NULL, NULL};
        plog_err_t e = comm_add(run, rp, &d, PLOG_NO_OFFSET, err);
        free(all);
        if (e != PLOG_OK)
            return e;
    }
    if (!have_self) {
        int32_t me = rk->rank;
        plog_comm_def_t d = {PLOG_COMM_SELF, 0, 0, PLOG_COMMK_INTRA, 1, 0, 0, &me, NULL, NULL};
        plog_err_t e = comm_add(run, rp, &d, PLOG_NO_OFFSET, err);
        if (e != PLOG_OK)
            return e;
    }
    return PLOG_OK;
}

/* Each communicator's member lists as interned sorted sets (rp->set_local, rp->set_remote),
 * for matching across ranks; a rank listed twice is an error. */
static plog_err_t comm_member_sets(plog_run_t *run, rank_priv_t *rp, plog_error_t *err)
{
    size_t n = rp->pub.n_comms;
    rp->set_local = calloc(n ? n : 1, sizeof(*rp->set_local));
    rp->set_remote = calloc(n ? n : 1, sizeof(*rp->set_remote));
    size_t maxn = 1;
    for (size_t i = 0; i < n; i++) {
        if (rp->comms[i].n_local > maxn)
            maxn = rp->comms[i].n_local;
        if (rp->comms[i].n_remote > maxn)
            maxn = rp->comms[i].n_remote;
    }
    int32_t *tmp = malloc(maxn * sizeof(*tmp));
    plog_err_t e = PLOG_OK;
    if (rp->set_local == NULL || rp->set_remote == NULL || tmp == NULL)
        e = plog_fail(err, PLOG_E_NOMEM, rp->path, PLOG_NO_OFFSET, NULL);
    for (size_t i = 0; i < n && e == PLOG_OK; i++) {
        const plog_lcomm_t *c = &rp->comms[i];
        for (int side = 0; side < 2 && e == PLOG_OK; side++) {
            uint32_t m = side ? c->n_remote : c->n_local;
            memcpy(tmp, side ? c->remote : c->local, m * sizeof(*tmp));
            qsort(tmp, m, sizeof(*tmp), comm_cmp_i32);
            for (uint32_t k = 1; k < m && e == PLOG_OK; k++)
                if (tmp[k] == tmp[k - 1])
                    e = plog_fail(err, PLOG_E_CORRUPT, rp->path, PLOG_NO_OFFSET,
                                  "communicator %u lists world rank %d twice", c->local_id,
                                  tmp[k]);
            if (e != PLOG_OK)
                break;
            const int32_t *s = intern_list(&run->intern, tmp, m);
            if (s == NULL)
                e = plog_fail(err, PLOG_E_NOMEM, rp->path, PLOG_NO_OFFSET, NULL);
            (side ? rp->set_remote : rp->set_local)[i] = s;
        }
    }
    free(tmp);
    return e;
}

plog_err_t comm_finish_rank(plog_run_t *run, rank_priv_t *rp, plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    plog_err_t e = comm_add_predefined(run, rp, err);
    if (e != PLOG_OK)
        return e;
    qsort(rp->comms, rk->n_comms, sizeof(*rp->comms), comm_cmp_local_id);
    rk->comms = rp->comms;
    for (size_t i = 1; i < rk->n_comms; i++)
        if (rp->comms[i].local_id == rp->comms[i - 1].local_id)
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, PLOG_NO_OFFSET,
                             "communicator id %u defined twice", rp->comms[i].local_id);
    for (size_t i = 0; i < rk->n_comms; i++)
        if (rp->comms[i].my_rank < 0)
            run_warn(run, "%s: communicator %u (%s) does not list rank %d among its members",
                     rp->path, rp->comms[i].local_id, plog_comm_kind_name(rp->comms[i].kind),
                     rk->rank);
    return comm_member_sets(run, rp, err);
}

const plog_lcomm_t *comm_find(const plog_rank_t *rk, uint32_t local_id)
{
    size_t lo = 0, hi = rk->n_comms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->comms[mid].local_id < local_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rk->n_comms && rk->comms[lo].local_id == local_id ? &rk->comms[lo] : NULL;
}

const plog_lcomm_t *plog_rank_comm(const plog_rank_t *rk, uint32_t local_id)
{
    return comm_find(rk, local_id);
}

int32_t plog_lcomm_world(const plog_lcomm_t *lc, int inter, int32_t r)
{
    return comm_world(lc, inter, r);
}

size_t plog_run_ncomms(const plog_run_t *run) { return run->n_gcomms; }

const plog_gcomm_t *plog_run_comm(const plog_run_t *run, int32_t gid)
{
    if (gid < 1 || (size_t)gid > run->n_gcomms)
        return NULL;
    return &run->gcomms[gid];
}

/* ==== matching across ranks ============================================================== */

typedef struct ckey {
    uint32_t kind, ordinal;
    const int32_t *a, *b; /* interned sorted sets; a = local side as first seen */
} ckey_t;

static uint64_t comm_key_hash(const ckey_t *k)
{
    /* symmetric in a, b: an intercommunicator's two sides see them swapped */
    uint64_t h = hmap_mix((uint64_t)(uintptr_t)k->a) + hmap_mix((uint64_t)(uintptr_t)k->b);
    return hmap_mix(h ^ ((uint64_t)k->kind << 32) ^ k->ordinal) | 1;
}

static int comm_key_eq(const ckey_t *k, const ckey_t *o)
{
    return k->kind == o->kind && k->ordinal == o->ordinal &&
           ((k->a == o->a && k->b == o->b) || (k->a == o->b && k->b == o->a));
}

/* Keys numbered 1, 2, ... in order of insertion, found by hash (chains for equal hashes).
 * Used twice: the run's communicators (number = global id), and per rank the counters that
 * give ordinals. */
typedef struct ckeys {
    ckey_t *k;      /* [1..n] */
    uint32_t *next; /* [1..n]: the previous key with the same hash, 0 = none */
    size_t n, kcap, ncap;
    hmap_t map;     /* hash -> the latest key with it */
} ckeys_t;

static uint32_t comm_keys_find(const ckeys_t *t, const ckey_t *key, uint64_t h)
{
    const uint64_t *head = hmap_get(&t->map, h);
    for (uint32_t k = head != NULL ? (uint32_t)*head : 0; k != 0; k = t->next[k]) {
        assert(k <= t->n);
        if (comm_key_eq(&t->k[k], key))
            return k;
    }
    return 0;
}

/* The number of the new key (absent), 0 when out of memory. */
static uint32_t comm_keys_add(ckeys_t *t, const ckey_t *key, uint64_t h)
{
    size_t id = t->n + 1;
    uint64_t *head;
    if (id > INT32_MAX || VEC_GROW(t->k, t->kcap, id + 1) != 0 ||
        VEC_GROW(t->next, t->ncap, id + 1) != 0 || (head = hmap_put(&t->map, h)) == NULL)
        return 0;
    t->k[id] = *key;
    t->next[id] = (uint32_t)*head;
    *head = id;
    t->n = id;
    return (uint32_t)id;
}

static void comm_keys_free(ckeys_t *t)
{
    free(t->k);
    free(t->next);
    hmap_free(&t->map);
}

typedef struct cmatch {
    ckeys_t groups;  /* the run's communicators */
    ckeys_t ords;    /* this rank's (kind, sets), ordinal 0 */
    uint32_t *ordv;  /* [1..ords.n]: communicators of this rank seen with that key */
    size_t ordv_cap;
    const int32_t *world_set;
} cmatch_t;

/* Global id 1 for MPI_COMM_WORLD, whoever defines it. */
static plog_err_t comm_match_begin(plog_run_t *run, cmatch_t *m, plog_error_t *err)
{
    int32_t *allv = malloc((size_t)run->world_size * sizeof(*allv));
    if (allv == NULL)
        return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
    for (int32_t i = 0; i < run->world_size; i++)
        allv[i] = i;
    m->world_set = intern_list(&run->intern, allv, (uint32_t)run->world_size);
    free(allv);
    run->empty = intern_list(&run->intern, NULL, 0);
    if (m->world_set == NULL || run->empty == NULL ||
        VEC_GROW(run->gcomms, run->gcomms_cap, 2) != 0)
        return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
    memset(run->gcomms, 0, 2 * sizeof(*run->gcomms));
    ckey_t world = {PLOG_COMMK_INTRA, 0, m->world_set, run->empty};
    if (comm_keys_add(&m->groups, &world, comm_key_hash(&world)) != 1)
        return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
    run->n_gcomms = 1;
    return PLOG_OK;
}

/* The ordinal of key (its ordinal field 0) on the rank being matched; -1: out of memory. */
static int comm_next_ordinal(cmatch_t *m, const ckey_t *key, uint32_t *ordinal)
{
    uint64_t h = comm_key_hash(key);
    uint32_t k = comm_keys_find(&m->ords, key, h);
    if (k == 0) {
        if ((k = comm_keys_add(&m->ords, key, h)) == 0 ||
            VEC_GROW(m->ordv, m->ordv_cap, (size_t)k + 1) != 0)
            return -1;
        m->ordv[k] = 0;
    }
    *ordinal = m->ordv[k]++;
    return 0;
}

/* The global id of key, a new one if it is the first time; 0: out of memory. */
static uint32_t comm_group(plog_run_t *run, cmatch_t *m, const ckey_t *key)
{
    uint64_t h = comm_key_hash(key);
    uint32_t gid = comm_keys_find(&m->groups, key, h);
    if (gid != 0)
        return gid;
    if (VEC_GROW(run->gcomms, run->gcomms_cap, run->n_gcomms + 2) != 0 ||
        (gid = comm_keys_add(&m->groups, key, h)) == 0)
        return 0;
    assert(gid == run->n_gcomms + 1);
    memset(&run->gcomms[gid], 0, sizeof(run->gcomms[gid]));
    run->n_gcomms = gid;
    return gid;
}

static int comm_list_cmp(const int32_t *x, uint32_t nx, const int32_t *y, uint32_t ny)
{
    for (uint32_t i = 0; i < nx && i < ny; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return (nx > ny) - (nx < ny);
}

/* Rank r holds c (sorted sets a, b) as global gid: the first holder describes it. */
static void comm_hold(plog_run_t *run, const rank_priv_t *rp, const plog_lcomm_t *c,
                      const int32_t *a, const int32_t *b, uint32_t gid, int32_t r)
{
    plog_gcomm_t *g = &run->gcomms[gid];
    if (g->n_holders++ != 0) {
        /* lists are interned: the same order is the same pointer, on either side */
        if (g->members != c->local && g->members != c->remote)
            run_warn(run, "%s: communicator %u (global %u) lists its members in another "
                     "order than rank %d", rp->path, c->local_id, gid, g->first_rank);
        return;
    }
    g->id = (int32_t)gid;
    g->kind = c->kind;
    g->call = c->call;
    g->first_rank = r;
    g->parent = (int32_t)c->parent; /* local id for now, resolved by comm_resolve_parents */
    int swap = c->n_remote > 0 && comm_list_cmp(b, c->n_remote, a, c->n_local) < 0;
    g->members = swap ? c->remote : c->local;
    g->n_members = swap ? c->n_remote : c->n_local;
    g->remote = swap ? c->local : c->remote;
    g->n_remote = swap ? c->n_local : c->n_remote;
}

static plog_err_t comm_match_rank(plog_run_t *run, cmatch_t *m, int32_t r, plog_error_t *err)
{
    rank_priv_t *rp = run->ranks[r];
    hmap_free(&m->ords.map); /* ordinals count per rank */
    m->ords.n = 0;
    for (size_t i = 0; i < rp->pub.n_comms; i++) {
        plog_lcomm_t *c = &rp->comms[i];
        ckey_t key = {c->kind, 0, rp->set_local[i], rp->set_remote[i]};
        uint32_t ordinal, gid = 0;
        if (comm_next_ordinal(m, &key, &ordinal) != 0)
            return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
        key.ordinal = ordinal;
        if ((gid = comm_group(run, m, &key)) == 0)
            return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
        c->gid = (int32_t)gid;
        comm_hold(run, rp, c, key.a, key.b, gid, r);
    }
    return PLOG_OK;
}

/* Nobody defined MPI_COMM_WORLD: id 1 is kept anyway. */
static void comm_keep_world(plog_run_t *run, const int32_t *world_set)
{
    plog_gcomm_t *g = &run->gcomms[1];
    if (g->n_holders != 0)
        return;
    g->id = 1;
    g->kind = PLOG_COMMK_INTRA;
    g->members = world_set;
    g->n_members = (uint32_t)run->world_size;
    g->remote = run->empty;
    g->first_rank = -1;
}

/* Parents: the first holder's local parent id, seen from that rank. */
static void comm_resolve_parents(plog_run_t *run)
{
    for (size_t gid = 1; gid <= run->n_gcomms; gid++) {
        plog_gcomm_t *g = &run->gcomms[gid];
        if (g->n_holders == 0 || g->parent == 0)
            continue;
        assert(g->first_rank >= 0 && g->first_rank < run->world_size &&
               run->ranks[g->first_rank] != NULL);
        const plog_lcomm_t *pc = comm_find(&run->ranks[g->first_rank]->pub, (uint32_t)g->parent);
        g->parent = pc != NULL ? pc->gid : -1;
    }
}

/* Every member of a communicator should have defined it (when every rank is loaded). */
static void comm_check_holders(plog_run_t *run)
{
    if (run->n_loaded != run->world_size)
        return;
    size_t reported = 0;
    for (size_t gid = 1; gid <= run->n_gcomms; gid++) {
        const plog_gcomm_t *g = &run->gcomms[gid];
        uint32_t expect = g->n_members + g->n_remote;
        if (g->n_holders == expect)
            continue;
        if (reported++ < 20)
            run_warn(run, "communicator %zu (%s, %s, %u ranks) was defined by %u ranks; the "
                     "logs of the others lack it or define it differently", gid,
                     plog_comm_kind_name(g->kind),
                     g->call ? (plog_call_name(g->call) ? plog_call_name(g->call) : "?")
                             : "predefined",
                     expect, g->n_holders);
    }
    if (reported > 20)
        run_warn(run, "%zu more communicators were not defined by all their ranks",
                 reported - 20);
}

plog_err_t comm_match(plog_run_t *run, plog_error_t *err)
{
    cmatch_t m = {0};
    plog_err_t e = comm_match_begin(run, &m, err);
    for (int32_t r = 0; r < run->world_size && e == PLOG_OK; r++)
        if (run->ranks[r] != NULL)
            e = comm_match_rank(run, &m, r, err);
    if (e == PLOG_OK) {
        comm_keep_world(run, m.world_set);
        comm_resolve_parents(run);
        comm_check_holders(run);
    }
    comm_keys_free(&m.groups);
    comm_keys_free(&m.ords);
    free(m.ordv);
    return e;
}
