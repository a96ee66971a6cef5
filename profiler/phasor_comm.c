/* phasor_comm.c: communicator handle -> log id table, read lock-free on every MPI call.
 *
 * Open addressing keyed by the handle's bits. Inserts and removals happen only when the app
 * creates or frees a communicator, under a mutex; lookups take no lock. A table that gets
 * too full is replaced by a larger copy and the old one is kept (never freed) so a lookup
 * racing the swap still reads valid memory: the waste is bounded by the final size. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_internal.h"

#define SLOT_EMPTY ((uintptr_t)0)
#define SLOT_TOMB ((uintptr_t)1)

typedef struct comm_slot {
    uintptr_t key; /* handle bits; written last (release) so readers see a complete info */
    phasor_comm_info_t info;
} comm_slot_t;

typedef struct comm_table {
    size_t cap; /* power of two */
    size_t used; /* live + tombstones */
    comm_slot_t *slots;
} comm_table_t;

static comm_table_t *volatile table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_id = PLOG_COMM_SELF + 1;

static uintptr_t comm_key(MPI_Comm c)
{
    uintptr_t k = 0;
    memcpy(&k, &c, sizeof(c) < sizeof(k) ? sizeof(c) : sizeof(k));
    /* 0 and 1 are the empty and tombstone markers; shift real keys away from them. */
    return k + 2;
}

static size_t slot_of(uintptr_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

uint32_t phasor_comm_gen;
PHASOR_TLS phasor_comm_memo_t phasor_comm_memo;

const phasor_comm_info_t *phasor_comm_find(MPI_Comm comm)
{
    comm_table_t *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    if (!t)
        return NULL;
    uintptr_t key = comm_key(comm);
    for (size_t i = slot_of(key, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
        uintptr_t k = __atomic_load_n(&t->slots[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return &t->slots[i].info;
        if (k == SLOT_EMPTY)
            return NULL;
    }
    return NULL;
}

static comm_table_t *table_new(size_t cap)
{
    comm_table_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->slots = calloc(cap, sizeof(comm_slot_t));
    if (!t->slots) {
        free(t);
        return NULL;
    }
    t->cap = cap;
    return t;
}

static void table_put(comm_table_t *t, uintptr_t key, const phasor_comm_info_t *info)
{
    assert(key > SLOT_TOMB && t->used < t->cap); /* an empty slot ends every probe */
    size_t i = slot_of(key, t->cap);
    while (t->slots[i].key != SLOT_EMPTY && t->slots[i].key != SLOT_TOMB && t->slots[i].key != key)
        i = (i + 1) & (t->cap - 1);
    if (t->slots[i].key == SLOT_EMPTY)
        t->used++;
    t->slots[i].info = *info;
    __atomic_store_n(&t->slots[i].key, key, __ATOMIC_RELEASE);
    /* after: a memo taken at the new generation saw the slot complete */
    __atomic_fetch_add(&phasor_comm_gen, 1, __ATOMIC_ACQ_REL);
}

/* Caller holds table_lock. Returns 0 when memory ran out (the handle then reads as unknown). */
static int table_insert(uintptr_t key, const phasor_comm_info_t *info)
{
    comm_table_t *t = table;
    if (t == NULL || (t->used + 1) * 4 > t->cap * 3) {
        size_t cap = t ? t->cap * 2 : 1024;
        assert((cap & (cap - 1)) == 0); /* slot_of masks with cap - 1 */
        comm_table_t *nt = table_new(cap);
        if (!nt)
            return 0;
        if (t)
            for (size_t i = 0; i < t->cap; i++)
                if (t->slots[i].key > SLOT_TOMB)
                    table_put(nt, t->slots[i].key, &t->slots[i].info);
        __atomic_store_n(&table, nt, __ATOMIC_RELEASE);
        t = nt; /* the old table stays allocated for lookups still reading it */
    }
    table_put(t, key, info);
    return 1;
}

/* Topology description for the definition: Cart: ndims, dims..., periods... */
static uint32_t comm_topology(MPI_Comm c, int64_t *topo, uint32_t cap, uint32_t *kind,
                              phasor_comm_info_t *info)
{
    int status = MPI_UNDEFINED;
    PMPI_Topo_test(c, &status);
    uint32_t n = 0;
    if (status == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(c, &nd);
        *kind = PLOG_COMMK_CART;
        info->indegree = info->outdegree = 2 * nd;
        if ((uint32_t)(1 + 2 * nd) <= cap && nd > 0 && nd <= 64) {
            int dims[64], periods[64], coords[64];
            PMPI_Cart_get(c, nd, dims, periods, coords);
            topo[n++] = nd;
            for (int i = 0; i < nd; i++)
                topo[n++] = dims[i];
            for (int i = 0; i < nd; i++)
                topo[n++] = periods[i];
        }
    } else if (status == MPI_GRAPH) {
        int nn = 0;
        *kind = PLOG_COMMK_GRAPH;
        PMPI_Graph_neighbors_count(c, info->rank, &nn);
        info->indegree = info->outdegree = nn;
    } else if (status == MPI_DIST_GRAPH) {
        int in = 0, out = 0, weighted = 0;
        *kind = PLOG_COMMK_DIST_GRAPH;
        PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
        info->indegree = in;
        info->outdegree = out;
    }
    return n;
}

static int32_t *group_world_ranks(MPI_Group g, int n)
{
    MPI_Group world;
    int32_t *out = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int *in = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *res = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!out || !in || !res) {
        free(out);
        free(in);
        free(res);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, n, in, world, res);
    PMPI_Group_free(&world);
    for (int i = 0; i < n; i++)
        out[i] = res[i] == MPI_UNDEFINED ? -1 : res[i];
    free(in);
    free(res);
    return out;
}

/* Build and queue the definition of comm, taking membership from `like` (same as comm except
 * for Comm_idup, whose new handle may not be queried yet). */
static uint32_t register_as(MPI_Comm comm, MPI_Comm like, MPI_Comm parent, unsigned call,
                            uint32_t fixed_id)
{
    if (comm == MPI_COMM_NULL)
        return PLOG_COMM_NONE;
    phasor_comm_info_t info = {0};
    int inter = 0;
    PMPI_Comm_test_inter(like, &inter);
    PMPI_Comm_rank(like, &info.rank);
    PMPI_Comm_size(like, &info.size);
    MPI_Group lg = MPI_GROUP_NULL, rg = MPI_GROUP_NULL;
    PMPI_Comm_group(like, &lg);
    int32_t *local = group_world_ranks(lg, info.size), *remote = NULL;
    PMPI_Group_free(&lg);
    uint32_t kind = inter ? PLOG_COMMK_INTER : PLOG_COMMK_INTRA;
    if (inter) {
        PMPI_Comm_remote_size(like, &info.rsize);
        PMPI_Comm_remote_group(like, &rg);
        remote = group_world_ranks(rg, info.rsize);
        PMPI_Group_free(&rg);
    }
    int64_t topo[1 + 2 * 64];
    uint32_t ntopo = inter ? 0 : comm_topology(like, topo, 1 + 2 * 64, &kind, &info);

    pthread_mutex_lock(&table_lock);
    info.id = fixed_id ? fixed_id : next_id++;
    int ok = local != NULL && (!inter || remote != NULL) && table_insert(comm_key(comm), &info);
    pthread_mutex_unlock(&table_lock);

    if (ok) {
        const phasor_comm_info_t *pi = parent == MPI_COMM_NULL ? NULL : phasor_comm_lookup(parent);
        plog_comm_def_t def = {
            .id = info.id, .parent = pi ? pi->id : PLOG_COMM_NONE, .call = call, .kind = kind,
            .n_local = (uint32_t)info.size, .n_remote = inter ? (uint32_t)info.rsize : 0,
            .n_topo = ntopo, .local = local, .remote = remote, .topo = topo};
        phasor_queue_comm_def(&def);
    }
    free(local);
    free(remote);
    return ok ? info.id : PLOG_COMM_UNKNOWN;
}

uint32_t phasor_comm_register(MPI_Comm newcomm, MPI_Comm parent, unsigned creating_call)
{
    return register_as(newcomm, newcomm, parent, creating_call, 0);
}

uint32_t phasor_comm_register_dup(MPI_Comm newcomm, MPI_Comm parent, unsigned creating_call)
{
    return register_as(newcomm, parent, parent, creating_call, 0);
}

void phasor_comm_forget(MPI_Comm comm)
{
    uintptr_t key = comm_key(comm);
    pthread_mutex_lock(&table_lock);
    comm_table_t *t = table;
    if (t) {
        for (size_t i = slot_of(key, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
            if (t->slots[i].key == key) {
                __atomic_store_n(&t->slots[i].key, SLOT_TOMB, __ATOMIC_RELEASE);
                __atomic_fetch_add(&phasor_comm_gen, 1, __ATOMIC_ACQ_REL);
                break;
            }
            if (t->slots[i].key == SLOT_EMPTY)
                break;
        }
    }
    pthread_mutex_unlock(&table_lock);
}

int phasor_comm_table_init(void)
{
    if (register_as(MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_COMM_NULL, PLOG_CALL_MPI_Init,
                    PLOG_COMM_WORLD) != PLOG_COMM_WORLD)
        return 0;
    return register_as(MPI_COMM_SELF, MPI_COMM_SELF, MPI_COMM_NULL, PLOG_CALL_MPI_Init,
                       PLOG_COMM_SELF) == PLOG_COMM_SELF;
}
