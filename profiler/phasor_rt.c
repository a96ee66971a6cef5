/* phasor_rt.c: the per-thread record buffers behind phasor_rt.h (slots: phasor_core.h), and
 * the few records the runtime makes itself (Init, Finalize, Pcontrol). */
#define _GNU_SOURCE
#include <assert.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "phasor_core.h"
#include "vec.h"

volatile int phasor_active;
volatile int phasor_cancel_seen;
PHASOR_TLS phasor_thread_t *phasor_tls;
static PHASOR_TLS phasor_thread_t tls_dead = {.dead = 1};
uint64_t phasor_dead_calls;

int phasor_world_rank, phasor_world_size;
MPI_Comm phasor_shim_comm = MPI_COMM_NULL;

slot_t phasor_slots[MAX_SLOTS];
static int nslots; /* claimed so far (atomic) */
_Static_assert(offsetof(slot_t, th) == 0, "phasor_thread_t pointers are slot pointers");

int phasor_slots_used(void)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_RELAXED);
    return n < phasor_cfg.max_threads ? n : phasor_cfg.max_threads;
}

uint64_t phasor_dead_thread_calls(void)
{
    return __atomic_load_n(&phasor_dead_calls, __ATOMIC_RELAXED);
}

void phasor_totals(uint64_t *events, uint64_t *dropped, int *threads)
{
    int n = phasor_slots_used();
    *events = 0;
    for (int i = 0; i < n; i++)
        *events += phasor_slots[i].th.nevents;
    *dropped = phasor_writer_dropped() + phasor_dead_thread_calls();
    *threads = n;
}

void phasor_handoff(slot_t *s)
{
    phasor_thread_t *th = &s->th;
    assert(th->buf == s->bufs[s->cur] && th->pos >= th->buf && th->pos <= th->end);
    size_t len = (size_t)(th->pos - th->buf);
    uint32_t n = (uint32_t)(th->nevents - s->ev_mark);
    th->nflush++;
    if (len == 0)
        return;
    /* odd while buf/pos change: the watch thread leaves the slot alone (phasor_watch.c) */
    uint32_t g = th->swap_gen;
    __atomic_store_n(&th->swap_gen, g + 1, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    phasor_writer_take(s, len, n);
    th->buf = s->bufs[s->cur];
    __atomic_store_n(&th->pos, th->buf, __ATOMIC_RELAXED);
    th->end = th->buf + phasor_cfg.buffer;
    s->ev_mark = th->nevents;
    __atomic_store_n(&th->swap_gen, g + 2, __ATOMIC_RELEASE);
}

plog_event_t *phasor_event_begin_slow(phasor_thread_t *th, size_t need)
{
    (void)need; /* a record larger than a whole buffer gets what room there is */
    phasor_handoff((slot_t *)th);
    return (size_t)(th->end - th->pos) >= sizeof(plog_event_t) ? (plog_event_t *)th->pos : NULL;
}

static phasor_thread_t *claim_slot(void)
{
    int idx = __atomic_fetch_add(&nslots, 1, __ATOMIC_RELAXED);
    if (idx >= phasor_cfg.max_threads || idx >= MAX_SLOTS)
        return NULL;
    slot_t *s = &phasor_slots[idx];
    s->bufs[0] = malloc(phasor_cfg.buffer);
    s->bufs[1] = malloc(phasor_cfg.buffer);
    if (!s->bufs[0] || !s->bufs[1]) {
        free(s->bufs[0]);
        free(s->bufs[1]);
        s->bufs[0] = s->bufs[1] = NULL;
        return NULL;
    }
    s->tid = (pid_t)syscall(SYS_gettid);
    s->th.slot = (uint16_t)idx;
    s->th.buf = s->th.pos = s->bufs[0];
    s->th.end = s->th.buf + phasor_cfg.buffer;
    s->th.cs_cache = phasor_callsite_cache_new(); /* NULL: this thread's sites are 0 */
    __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
    return &s->th;
}

phasor_thread_t *phasor_thread_attach(void)
{
    phasor_thread_t *th = claim_slot();
    if (th == NULL) {
        /* Over the thread budget (or out of memory): this thread's calls are counted (here
         * and in phasor_enter), and the log says how many were not recorded. */
        __atomic_fetch_add(&phasor_dead_calls, 1, __ATOMIC_RELAXED);
        phasor_tls = &tls_dead;
        return NULL;
    }
    phasor_tls = th;
    return th;
}

int phasor_scratch_reserve(phasor_thread_t *th, size_t n)
{
    if (n <= th->scratch_cap)
        return 1;
    /* the two arrays share one capacity: grow each to the same size, then note it */
    size_t cap_r = th->scratch_cap, cap_s = th->scratch_cap;
    if (VEC_GROW(th->req_scratch, cap_r, n) != 0 || VEC_GROW(th->st_scratch, cap_s, n) != 0)
        return 0;
    th->scratch_cap = cap_r < cap_s ? cap_r : cap_s;
    return 1;
}

void phasor_flush_all_slots_locked(void)
{
    int n = phasor_slots_used();
    for (int i = 0; i < n; i++) {
        slot_t *s = &phasor_slots[i];
        if (!s->th.buf)
            continue;
        phasor_write_slot_locked(s, s->th.buf == s->bufs[1], (size_t)(s->th.pos - s->th.buf),
                                 (uint32_t)(s->th.nevents - s->ev_mark));
        s->th.pos = s->th.buf;
        s->ev_mark = s->th.nevents;
    }
}

void phasor_record_raw(unsigned call, uint64_t t0, uint64_t t1, int rc, int32_t tag)
{
    phasor_thread_t *th = phasor_tls;
    if (th == NULL || th->dead)
        return;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, 0);
    if (ev) {
        ev->tag = tag;
        phasor_event_end(th, ev, 0);
    }
}

void phasor_record_pcontrol(uint64_t t0, uint64_t t1, int level)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Pcontrol, t0, t1, MPI_SUCCESS, 0);
    if (ev) {
        ev->tag = level;
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
}
