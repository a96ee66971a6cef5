/* plog_rd_stream.c: one rank's events: a stream per thread slot decoding its EVENTS frames in
 * batches, merged by local start time (ties by thread); the stream's warnings, counted by
 * category and folded into the run at the end. */
#include "plog_rd.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

/* Column numbers of the EVENTS payload (their order is part of the on-disk format,
 * doc/log-format.md): the reader peeks at nextra to size the extras buffer exactly. */
#define COL_NEXTRA 13
#define COL_EXTRAS 14

#define STREAM_BX_MIN 1024       /* extras words of a batch; grows for events with long lists */
#define STREAM_BX_MAX (1u << 16) /* beyond: such events are decoded one by one */

static const char *const stream_wcat_text[W__COUNT] = {
    [W_UNMATCHED] = "request completions or frees matched no open request start",
    [W_START_NODEF] = "Start calls named a handle with no persistent request defined",
    [W_BADRANK] = "ranks could not be translated (outside the communicator, or bad value)",
    [W_UNKNOWN_COMM] = "events used a communicator phasor never saw created",
    [W_UNDEF_COMM] = "events named a communicator id the log does not define",
    [W_UNKNOWN_CALL] = "events have a call id this reader does not know",
    [W_CUT] = "events had their extras cut by the shim (PLOG_F_TRUNCATED)",
    [W_NEWCOMM] = "events created a communicator id the log does not define",
    [W_ORPHAN] = "request starts were never seen completing",
    [W_CANCEL] = "statuses were marked cancelled although no MPI_Cancel named their request "
                 "(mark ignored)",
    [W_PROCNULL] = "statuses of receives from MPI_PROC_NULL were not the empty status MPI "
                   "defines (reported as the empty status)",
    [W_POLLS] = "runs of unsuccessful polls (PLOG_F_POLLS) were on a call that does not poll, "
                "or had a true flag or an error (shown as recorded)",
};

void stream_warn(rstream_t *s, enum stream_wcat c, const char *fmt, ...)
{
    assert((unsigned)c < W__COUNT);
    if (s->wcount[c]++ != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->wfirst[c], sizeof(s->wfirst[c]), fmt, ap);
    va_end(ap);
}

plog_err_t stream_error(rstream_t *s, plog_err_t code, uint64_t off, plog_error_t *err,
                        const char *what)
{
    return plog_fail(err, code, s->rp->path, (int64_t)off, "%s", what);
}

/* ==== one thread's events ================================================================ */

/* Decode the next batch of t's frame into t->bev; *refilled = 0 when the frame has no more,
 * or its next event must be decoded alone (damage, or more extras than a batch holds). */
static plog_err_t stream_refill(rstream_t *s, tstream_t *t, int *refilled, plog_error_t *err)
{
    plog_events_dec_t *d = &t->dec;
    *refilled = 0;
    while (d->i < d->n && t->bev != NULL) {
        uint32_t got = 0;
        plog_err_t e = plog_events_dec_batch(d, t->bev, PLOG_DEC_BATCH, t->bx, t->bxcap,
                                             t->bxoff, &got);
        if (e == PLOG_E_TOOBIG && t->bxcap < STREAM_BX_MAX) {
            if (VEC_GROW(t->bx, t->bxcap, 2 * t->bxcap) != 0)
                return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "extras");
            continue;
        }
        t->bn = got;
        t->bpos = 0;
        *refilled = e == PLOG_OK && got > 0;
        return PLOG_OK;
    }
    return PLOG_OK;
}

/* Decode t's next event alone into t->ev, which says exactly what is wrong with a damaged
 * one; *done = 1 at the end of the frame. */
static plog_err_t stream_decode_one(rstream_t *s, tstream_t *t, int *done, plog_error_t *err)
{
    plog_events_dec_t *d = &t->dec;
    if (d->i < d->n) {
        plog_rcur_t peek = d->col[COL_NEXTRA];
        uint64_t k = plog_get_varint(&peek);
        size_t left = (size_t)(d->col[COL_EXTRAS].end - d->col[COL_EXTRAS].p);
        if (!peek.err && k > left) {
            char what[96];
            snprintf(what, sizeof(what), "event %u of %u has more extras than its frame",
                     d->i + 1, d->n);
            return stream_error(s, PLOG_E_CORRUPT, t->frame_off, err, what);
        }
        if (!peek.err && VEC_GROW(t->x, t->xcap, (size_t)k) != 0)
            return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "extras");
    }
    *done = 0;
    plog_err_t e = plog_events_dec_next(d, &t->ev, t->x, t->xcap, done);
    if (e != PLOG_OK) {
        char what[96];
        snprintf(what, sizeof(what), "EVENTS frame, event %u of %u", d->i + 1, d->n);
        return stream_error(s, e == PLOG_E_TRUNCATED ? PLOG_E_CORRUPT : e, t->frame_off, err,
                            what);
    }
    if (!*done) {
        t->head = &t->ev;
        t->headx = t->x;
    }
    return PLOG_OK;
}

/* Decompress t's next EVENTS frame and start decoding it. */
static plog_err_t stream_open_frame(rstream_t *s, tstream_t *t, plog_error_t *err)
{
    assert(t->next < t->nf);
    if (t->bev == NULL) {
        t->bev = malloc(PLOG_DEC_BATCH * sizeof(*t->bev));
        t->bxoff = malloc((PLOG_DEC_BATCH + 1) * sizeof(*t->bxoff));
        t->bx = malloc(STREAM_BX_MIN * sizeof(*t->bx));
        if (t->bev == NULL || t->bxoff == NULL || t->bx == NULL) {
            free(t->bev);
            free(t->bxoff);
            free(t->bx);
            t->bev = NULL;
            t->bxoff = NULL;
            t->bx = NULL;
            return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "event batch");
        }
        t->bxcap = STREAM_BX_MIN;
    }
    const plog_frame_ix_t *fx = &s->rk->frames[t->fidx[t->next++]];
    t->frame_off = fx->offset;
    plog_err_t e = frame_load(s->rp->path, s->rk->hdr.version, fx, s->z, &t->raw, &t->rawcap,
                              err);
    if (e != PLOG_OK)
        return e;
    e = plog_events_dec_init(&t->dec, t->raw, fx->raw_len, fx->count, s->rk->hdr.version);
    if (s->nolink) { /* completions are not read: their extras need no decoding, but for
                      * a run of polls' count and time (format 11) */
        t->dec.skip_extras = s->fmask & PLOG_F_POLLS ? s->run->call_complete_nopoll
                                                     : s->run->call_complete;
        t->dec.skip_n = 65536;
    }
    if (e != PLOG_OK)
        return stream_error(s, e == PLOG_E_TRUNCATED ? PLOG_E_CORRUPT : e, fx->offset, err,
                            "EVENTS frame columns");
    t->active = 1;
    return PLOG_OK;
}

/* Make t's next event its head (t->have = 0 when its frames are done). */
static plog_err_t stream_advance(rstream_t *s, tstream_t *t, plog_error_t *err)
{
    for (;;) {
        if (t->active) {
            if (t->bpos < t->bn) {
                t->head = &t->bev[t->bpos];
                t->headx = t->bx + t->bxoff[t->bpos];
                t->bpos++;
                t->have = 1;
                return PLOG_OK;
            }
            int refilled, done;
            plog_err_t e = stream_refill(s, t, &refilled, err);
            if (e != PLOG_OK)
                return e;
            if (refilled)
                continue;
            if ((e = stream_decode_one(s, t, &done, err)) != PLOG_OK)
                return e;
            if (!done) {
                t->have = 1;
                return PLOG_OK;
            }
            t->active = 0;
        }
        if (t->next == t->nf) {
            t->have = 0;
            return PLOG_OK;
        }
        plog_err_t e = stream_open_frame(s, t, err);
        if (e != PLOG_OK)
            return e;
    }
}

/* ==== the rank's stream ================================================================== */

/* Heap order of the threads: by their head event's local start time, ties by thread. */
static inline int stream_less(const void *ctx, uint32_t a, uint32_t b)
{
    const tstream_t *x = &((const rstream_t *)ctx)->ts[a], *y = &((const rstream_t *)ctx)->ts[b];
    if (x->head->t_start != y->head->t_start)
        return x->head->t_start < y->head->t_start;
    return x->thread < y->thread;
}

void stream_free(rstream_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->nts; i++) {
        free(s->ts[i].fidx);
        free(s->ts[i].raw);
        free(s->ts[i].x);
        free(s->ts[i].bev);
        free(s->ts[i].bxoff);
        free(s->ts[i].bx);
    }
    free(s->ts);
    free(s->heap);
    req_free(&s->req);
    free(s->hv);
    free(s->sv);
    free(s->iv);
    free(s->ord);
    free(s);
}

rstream_t *stream_new(plog_run_t *run, int32_t rank, frame_zbufs_t *z)
{
    rstream_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->run = run;
    s->rp = run->ranks[rank];
    s->rk = &s->rp->pub;
    s->z = z;
    s->next_id = 1;
    s->next_msg_id = 1;
    s->fmask = s->rk->hdr.version >= RD_VERSION_POLLS ? 0xffff : (uint16_t)~PLOG_F_POLLS;
    const plog_rank_t *rk = s->rk;
    /* one stream per thread slot, frames in file order */
    for (size_t i = 0; i < rk->n_frames; i++) {
        const plog_frame_ix_t *fx = &rk->frames[i];
        if (fx->kind != PLOG_FRAME_EVENTS)
            continue;
        tstream_t *t = NULL;
        for (size_t k = 0; k < s->nts && t == NULL; k++)
            if (s->ts[k].thread == fx->thread)
                t = &s->ts[k];
        if (t == NULL) {
            if (VEC_GROW(s->ts, s->tscap, s->nts + 1) != 0)
                goto fail;
            t = &s->ts[s->nts++];
            memset(t, 0, sizeof(*t));
            t->thread = fx->thread;
        }
        assert(i <= UINT32_MAX); /* frames are indexed by uint32_t */
        if (VEC_GROW(t->fidx, t->fcap, t->nf + 1) != 0)
            goto fail;
        t->fidx[t->nf++] = (uint32_t)i;
    }
    s->heap = malloc((s->nts ? s->nts : 1) * sizeof(*s->heap));
    if (s->heap == NULL)
        goto fail;
    return s;
fail:
    stream_free(s);
    return NULL;
}

plog_err_t stream_next(rstream_t *s, const plog_rec_t **rec, plog_error_t *err)
{
    *rec = NULL;
    tstream_t *t = NULL; /* the thread whose head is next, when known without the heap */
    if (!s->started) {
        s->started = 1;
        for (size_t i = 0; i < s->nts; i++) {
            plog_err_t e = stream_advance(s, &s->ts[i], err);
            if (e != PLOG_OK)
                return e;
            if (s->ts[i].have)
                heap_push(s->heap, &s->nheap, (uint32_t)i, stream_less, s);
        }
    } else if (s->pending != NULL) {
        t = s->pending;
        s->pending = NULL;
        if (t->active && t->bpos < t->bn) { /* stream_advance's common case, inline */
            t->head = &t->bev[t->bpos];
            t->headx = t->bx + t->bxoff[t->bpos];
            t->bpos++;
        } else {
            plog_err_t e = stream_advance(s, t, err);
            if (e != PLOG_OK)
                return e;
        }
        if (!t->have) {
            t = NULL;
        } else if (s->nheap != 0) { /* else the only thread with events left (often the only
                                       one): next without the heap */
            heap_push(s->heap, &s->nheap, (uint32_t)(t - s->ts), stream_less, s);
            t = NULL;
        }
    }
    if (t == NULL) {
        if (s->nheap == 0) {
            s->done = 1;
            return PLOG_OK;
        }
        t = &s->ts[heap_pop(s->heap, &s->nheap, stream_less, s)];
    }
    s->pending = t;
    plog_err_t e = rec_build(s, t, t->head, t->headx, err);
    if (e != PLOG_OK)
        return e;
    *rec = &s->rec;
    return PLOG_OK;
}

/* Fold the stream's warning counts into the run. Starts still open when a complete log has
 * been read to its end never completed as far as the log can tell. */
void stream_report(rstream_t *s)
{
    s->wcount[W_ORPHAN] += s->req.orphans;
    s->req.orphans = 0;
    if (s->done && s->rk->complete)
        s->wcount[W_ORPHAN] += req_open_count(&s->req);
    for (int c = 0; c < W__COUNT; c++) {
        if (s->wcount[c] == 0)
            continue;
        if (s->wfirst[c][0] != '\0')
            run_warn(s->run, "%s: %llu %s (first: %s)", s->rp->path,
                     (unsigned long long)s->wcount[c], stream_wcat_text[c], s->wfirst[c]);
        else
            run_warn(s->run, "%s: %llu %s", s->rp->path, (unsigned long long)s->wcount[c],
                     stream_wcat_text[c]);
    }
}
