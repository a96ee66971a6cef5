/* plog_rd_req.c: a stream's request table: the open starts of nonblocking requests by handle
 * (several per handle when the MPI library reuses one), persistent definitions, and the
 * message handles of matched probes; entries in one pool with a free list. */
#include "plog_rd.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Open starts kept per handle: more means completions are missing from the log (dropped
 * events); the oldest is then given up, so memory stays bounded. */
#define REQ_MAX_OPEN_PER_HANDLE 65536

static uint32_t req_pool_new(req_tab_t *q)
{
    if (q->freelist != 0) {
        uint32_t i = q->freelist - 1;
        assert(i < q->npool);
        q->freelist = q->pool[i].next;
        return i;
    }
    if (q->npool >= UINT32_MAX - 1 || VEC_GROW(q->pool, q->cappool, q->npool + 1) != 0)
        return REQ_NONE;
    return (uint32_t)q->npool++;
}

static void req_pool_release(req_tab_t *q, uint32_t i)
{
    q->pool[i].next = q->freelist;
    q->freelist = i + 1;
}

/* The open start a completion at time t on thread `thread` refers to. Most handles have one
 * open start at a time, but MPI libraries give one static handle to every request that is
 * complete at once (Open MPI's for operations on MPI_PROC_NULL, or collectives on one
 * rank), so several can be open. Prefer, in order: a start that ended by t (a start ends
 * before the completion that consumes it begins), one started by the completing thread
 * (threads complete their own requests), then for a single-request call (Wait, Test) the
 * most recent, for an array call (fifo: Waitany/all/some..., statuses taken in index
 * order) the earliest posted, as arrays are usually filled in posting order. With none
 * ended by t (clock granularity across threads), the earliest ending. Starts already named
 * by this event (picked == q->serial) are passed over. */
uint32_t req_open_choose(req_tab_t *q, uint64_t handle, uint64_t t, uint16_t thread, int fifo,
                         size_t *slotp)
{
    size_t slot = handle == 0 ? SIZE_MAX : hmap_find(&q->open, handle);
    *slotp = slot;
    if (slot == SIZE_MAX)
        return REQ_NONE;
    uint32_t head = (uint32_t)q->open.vals[slot];
    if (q->pool[head - 1].next == 0) { /* one open start: the usual case */
        const req_ent_t *e = &q->pool[head - 1];
        return e->picked == q->serial ? REQ_NONE : head - 1;
    }
    uint32_t best = REQ_NONE;
    int best_rank = -1;
    for (uint32_t k = head; k != 0; k = q->pool[k - 1].next) {
        const req_ent_t *e = &q->pool[k - 1];
        if (e->picked == q->serial)
            continue;
        int rank = (e->t_end <= t) * 2 + (e->thread == thread);
        if (best != REQ_NONE && rank == best_rank) {
            const req_ent_t *b = &q->pool[best];
            int better = rank < 2 ? e->t_end < b->t_end
                         : fifo   ? e->info.id < b->info.id
                                  : e->info.id > b->info.id;
            if (!better)
                continue;
        } else if (rank < best_rank) {
            continue;
        }
        best = k - 1;
        best_rank = rank;
    }
    return best;
}

void req_open_close_at(req_tab_t *q, uint32_t i, size_t slot)
{
    if (slot == SIZE_MAX)
        slot = hmap_find(&q->open, q->pool[i].handle);
    if (slot == SIZE_MAX)
        return;
    uint32_t head = (uint32_t)q->open.vals[slot];
    if (head == i + 1 && q->pool[i].next == 0) { /* the handle's only open start */
        req_pool_release(q, i);
        hmap_del_at(&q->open, slot);
        return;
    }
    /* (no asserts above: up to four closes per Waitall event) */
    assert(i < q->npool && q->open.keys[slot] == q->pool[i].handle);
    uint32_t newhead = 0, *link = &newhead;
    int open = 0; /* i was in the chain: an open start, not a free or persistent entry */
    for (uint32_t k = head; k != 0;) {
        uint32_t nx = q->pool[k - 1].next;
        if (k - 1 == i) {
            req_pool_release(q, k - 1);
            open = 1;
        } else {
            *link = k;
            link = &q->pool[k - 1].next;
        }
        k = nx;
    }
    assert(open);
    (void)open;
    *link = 0;
    if (newhead == 0)
        hmap_del_at(&q->open, slot);
    else
        q->open.vals[slot] = newhead;
}

/* Before another start of a handle that has open ones (at slot): give up those a failed
 * completion named (the library reused the handle, so they ended unseen), and the oldest
 * beyond REQ_MAX_OPEN_PER_HANDLE. 1 when it did, which may have moved or deleted the slot. */
static int req_open_prune(req_tab_t *q, size_t slot)
{
    uint32_t n = 0, oldest = REQ_NONE;
    int moved = 0;
    for (uint32_t k = (uint32_t)q->open.vals[slot]; k != 0;) {
        uint32_t i = k - 1;
        k = q->pool[i].next;
        if (q->pool[i].uncertain) {
            q->orphans++;
            req_open_close_at(q, i, SIZE_MAX);
            moved = 1;
            continue;
        }
        n++;
        if (oldest == REQ_NONE || q->pool[i].info.id < q->pool[oldest].info.id)
            oldest = i;
    }
    if (n >= REQ_MAX_OPEN_PER_HANDLE) {
        q->orphans++;
        req_open_close_at(q, oldest, SIZE_MAX);
        moved = 1;
    }
    return moved;
}

plog_reqinfo_t *req_open_new(req_tab_t *q, uint64_t handle, const plog_lcomm_t *lc, int inter,
                             uint64_t t_end, uint16_t thread)
{
    int found;
    size_t slot = hmap_probe(&q->open, handle, &found);
    if (__builtin_expect(!found, 1)) { /* no open start with this handle: one probe */
        uint32_t i = req_pool_new(q);
        if (i == REQ_NONE)
            return NULL;
        req_ent_t *e = &q->pool[i];
        e->handle = handle;
        e->next = 0;
        e->inter = (uint8_t)inter;
        e->uncertain = e->cancelled = 0;
        e->thread = thread;
        e->picked = 0;
        e->lc = lc;
        e->t_end = t_end;
        return hmap_put_at(&q->open, slot, handle, i + 1) == 0 ? &e->info : NULL;
    }
    if (req_open_prune(q, slot))
        slot = hmap_find(&q->open, handle);
    uint32_t head = slot != SIZE_MAX ? (uint32_t)q->open.vals[slot] : 0;
    uint32_t i = req_pool_new(q);
    if (i == REQ_NONE)
        return NULL;
    q->pool[i] = (req_ent_t){handle, head, (uint8_t)inter, 0, 0, thread, 0, lc, t_end, {0}};
    if (slot != SIZE_MAX) {
        q->open.vals[slot] = i + 1;
        return &q->pool[i].info;
    }
    return hmap_set(&q->open, handle, i + 1) == 0 ? &q->pool[i].info : NULL;
}

uint64_t req_open_count(const req_tab_t *q)
{
    uint64_t n = 0;
    for (size_t i = 0; i < q->open.cap; i++)
        if (q->open.keys[i] != 0)
            for (uint32_t k = (uint32_t)q->open.vals[i]; k != 0; k = q->pool[k - 1].next)
                n++;
    return n;
}

int req_pers_put(req_tab_t *q, uint64_t handle, const plog_lcomm_t *lc, int inter,
                 uint64_t t_end, uint16_t thread, const plog_reqinfo_t *info)
{
    req_pers_drop(q, handle); /* an unseen Request_free freed the old one */
    uint32_t i = req_pool_new(q);
    if (i == REQ_NONE || hmap_set(&q->pers, handle, i + 1) != 0)
        return -1;
    q->pool[i] = (req_ent_t){handle, 0, (uint8_t)inter, 0, 0, thread, 0, lc, t_end, *info};
    return 0;
}

const req_ent_t *req_pers_get(const req_tab_t *q, uint64_t handle)
{
    const uint64_t *v = handle != 0 ? hmap_get(&q->pers, handle) : NULL;
    return v != NULL ? &q->pool[*v - 1] : NULL;
}

void req_pers_drop(req_tab_t *q, uint64_t handle)
{
    size_t slot = handle != 0 ? hmap_find(&q->pers, handle) : SIZE_MAX;
    if (slot != SIZE_MAX) {
        req_pool_release(q, (uint32_t)q->pers.vals[slot] - 1);
        hmap_del_at(&q->pers, slot);
    }
}

int req_msg_put(req_tab_t *q, uint64_t h, const plog_lcomm_t *lc, int inter, uint64_t id)
{
    const uint64_t *v = hmap_get(&q->msgs, h);
    uint32_t i;
    if (v != NULL) { /* its receive was not seen: the handle was recycled */
        i = (uint32_t)*v - 1;
    } else if ((i = req_pool_new(q)) == REQ_NONE || hmap_set(&q->msgs, h, i + 1) != 0) {
        return -1;
    }
    memset(&q->pool[i], 0, sizeof(q->pool[i]));
    q->pool[i].handle = h;
    q->pool[i].lc = lc;
    q->pool[i].inter = (uint8_t)inter;
    q->pool[i].info.id = id;
    return 0;
}

int req_msg_take(req_tab_t *q, uint64_t h, uint64_t *id, const plog_lcomm_t **lc, int *inter)
{
    size_t slot = hmap_find(&q->msgs, h);
    if (slot == SIZE_MAX)
        return 0;
    uint32_t i = (uint32_t)q->msgs.vals[slot] - 1;
    *id = q->pool[i].info.id;
    *lc = q->pool[i].lc;
    *inter = q->pool[i].inter;
    req_pool_release(q, i);
    hmap_del_at(&q->msgs, slot);
    return 1;
}

void req_free(req_tab_t *q)
{
    hmap_free(&q->open);
    hmap_free(&q->pers);
    hmap_free(&q->msgs);
    free(q->pool);
    memset(q, 0, sizeof(*q));
}
