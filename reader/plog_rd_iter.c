/* plog_rd_iter.c: the iterators of plog_reader.h: one rank's stream, or every loaded rank's
 * merged by aligned start time (ties by rank), with the one-step common case of
 * plog_iter_next kept apart from the general path.
 *
 * The merge: the stream returned last (pending) is out of the heap; the heap holds the
 * others, each entry with its current record's key (start_ns, rank) inside it. The pending
 * stream's next record is returned at once while its key is below the top's (a run of one
 * rank's events costs one comparison each); otherwise it replaces the top, whose stream is
 * returned and becomes the pending one (one sift-down). Ranks are distinct, so keys never
 * tie and the order is exactly that of the keys. */
#include "plog_rd.h"

#include <assert.h>
#include <stdlib.h>
#include <sys/types.h>

#include "heap.h"

struct plog_iter {
    plog_run_t *run;
    frame_zbufs_t z;      /* one decompression context for all the ranks read */
    rstream_t **rs;
    const plog_rec_t **cur;
    size_t nrs;
    heap_ent_t *heap;     /* key: current record's start_ns, tie: its rank, val: rs index */
    size_t nheap;
    int started;
    ssize_t pending;      /* stream returned last, -1 none */
    plog_err_t sticky;
    plog_error_t saved;
};

/* The heap entry of stream i at its current record r: by aligned start time, ties by
 * rank (a world rank: never negative, so its order as a uint32_t is the same). */
static inline heap_ent_t iter_ent(const plog_rec_t *r, size_t i)
{
    return (heap_ent_t){.key = r->start_ns, .tie = (uint32_t)r->rank, .val = (uint32_t)i};
}

/* Whether r, the pending stream's next record, comes before every stream in the heap. */
static inline int iter_before_top(const plog_iter_t *it, const plog_rec_t *r)
{
    return it->nheap == 0 || heap_ent_less(iter_ent(r, 0), it->heap[0]);
}

void plog_iter_close(plog_iter_t *it)
{
    if (it == NULL)
        return;
    for (size_t i = 0; i < it->nrs; i++) {
        if (it->rs[i] != NULL)
            stream_report(it->rs[i]);
        stream_free(it->rs[i]);
    }
    free(it->rs);
    free(it->cur);
    free(it->heap);
    frame_zbufs_free(&it->z);
    free(it);
}

plog_err_t plog_iter_open(plog_run_t *run, int32_t rank, plog_iter_t **out, plog_error_t *err)
{
    return plog_iter_open_opts(run, rank, 0, out, err);
}

plog_err_t plog_iter_open_opts(plog_run_t *run, int32_t rank, unsigned opts, plog_iter_t **out,
                               plog_error_t *err)
{
    *out = NULL;
    if (opts & ~(unsigned)PLOG_ITER_NOLINK)
        return plog_fail(err, PLOG_E_USAGE, run->path, PLOG_NO_OFFSET,
                         "unknown iterator options 0x%x", opts);
    if (rank != PLOG_ALL_RANKS && plog_run_rank(run, rank) == NULL)
        return plog_fail(err, PLOG_E_USAGE, run->path, PLOG_NO_OFFSET,
                         "rank %d is not in this log", (int)rank);
    plog_iter_t *it = calloc(1, sizeof(*it));
    size_t n = rank == PLOG_ALL_RANKS ? (size_t)run->n_loaded : 1;
    if (it == NULL || (it->rs = calloc(n, sizeof(*it->rs))) == NULL ||
        (it->cur = calloc(n, sizeof(*it->cur))) == NULL ||
        (it->heap = calloc(n, sizeof(*it->heap))) == NULL) {
        plog_iter_close(it);
        return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
    }
    it->run = run;
    it->pending = -1;
    for (int32_t r = 0; r < run->world_size; r++) {
        if (run->ranks[r] == NULL || (rank != PLOG_ALL_RANKS && r != rank))
            continue;
        assert(it->nrs < n);
        if ((it->rs[it->nrs] = stream_new(run, r, &it->z)) == NULL) {
            plog_iter_close(it);
            return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
        }
        it->rs[it->nrs]->nolink = (opts & PLOG_ITER_NOLINK) != 0;
        it->nrs++;
    }
    *out = it;
    return PLOG_OK;
}

static plog_err_t iter_next_slow(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err);

/* The pending stream's next record r comes after the heap's top: r's stream replaces the
 * top in the heap, the top's stream is returned and becomes the pending one. */
static const plog_rec_t *__attribute__((noinline)) iter_switch(plog_iter_t *it,
                                                               const plog_rec_t *r)
{
    uint32_t top = it->heap[0].val;
    heap_ent_replace_top(it->heap, it->nheap, iter_ent(r, (size_t)it->pending));
    it->pending = top;
    return it->cur[top];
}

plog_err_t plog_iter_next(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err)
{
    /* The common case, in one step: the stream returned last has more decoded events of
     * its one thread with events left. The same as the general path (stream_next's pending
     * branch), without its layers; kept apart from them so that this path saves no
     * registers it does not use. Its record is next unless another rank's comes first. */
    if (__builtin_expect(it->pending >= 0 && err != NULL, 1)) {
        rstream_t *s = it->rs[it->pending];
        tstream_t *t = s->pending;
        if (__builtin_expect(t != NULL && s->nheap == 0 && t->active && t->bpos < t->bn, 1)) {
            const plog_event_t *ev = &t->bev[t->bpos];
            const uint64_t *x = t->bx + t->bxoff[t->bpos];
            t->head = ev;
            t->headx = x;
            t->bpos++;
            plog_err_t e = rec_build(s, t, ev, x, err);
            if (__builtin_expect(e == PLOG_OK, 1)) {
                *rec = iter_before_top(it, &s->rec) ? &s->rec : iter_switch(it, &s->rec);
                return PLOG_OK;
            }
            *rec = NULL;
            it->pending = -1;
            it->sticky = e;
            it->saved = *err;
            return e;
        }
    }
    return iter_next_slow(it, rec, err);
}

static plog_err_t __attribute__((noinline))
iter_next_slow(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err)
{
    *rec = NULL;
    if (it->sticky != PLOG_OK) {
        if (err != NULL)
            *err = it->saved;
        return it->sticky;
    }
    plog_error_t local;
    plog_error_t *e_out = err != NULL ? err : &local;
    plog_err_t e = PLOG_OK;
    if (!it->started) {
        it->started = 1;
        for (size_t i = 0; i < it->nrs && e == PLOG_OK; i++) {
            e = stream_next(it->rs[i], &it->cur[i], e_out);
            if (e == PLOG_OK && it->cur[i] != NULL)
                heap_ent_push(it->heap, &it->nheap, iter_ent(it->cur[i], i));
        }
    } else if (it->pending >= 0) {
        size_t i = (size_t)it->pending;
        e = stream_next(it->rs[i], &it->cur[i], e_out);
        if (e == PLOG_OK && it->cur[i] != NULL) {
            *rec = iter_before_top(it, it->cur[i]) ? it->cur[i] : iter_switch(it, it->cur[i]);
            return PLOG_OK;
        }
        it->pending = -1;
    }
    if (e != PLOG_OK) {
        it->sticky = e;
        it->saved = *e_out;
        return e;
    }
    if (it->nheap == 0)
        return PLOG_OK;
    uint32_t i = heap_ent_pop(it->heap, &it->nheap).val;
    it->pending = i;
    *rec = it->cur[i];
    return PLOG_OK;
}
