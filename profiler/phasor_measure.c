/* phasor_measure.c: PHASOR_STEPS=measure: the shim performs blocking collectives itself,
 * running the MPI library's own schedule (models/) with PMPI point-to-point calls on a
 * private duplicate of the communicator, and records every transfer as a STEP event
 * (start, end, peer, bytes, step) ahead of the collective's own event (flag MEASURED).
 *
 * Results equal the library's because the schedule is its algorithm, reductions apply the
 * op with MPI_Reduce_local in the library's operand order (on the datatype's own layout when
 * it is not contiguous), and data moves as bytes of the same packed layout (the callers in
 * pmpi/wrappers_measure.c pack what is not contiguous). What phasor cannot perform (no rules
 * for this library, an algorithm not in the catalogue, no memory, what the callers veto)
 * goes to the library instead; every rank of the call must decide alike, so the decision is
 * agreed with one MPI_Allreduce on the private communicator before anything else is sent.
 *
 * Off the hot path by design: opt-in, allocates, locks the per-communicator table. */
#define _GNU_SOURCE
#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sched.h"
#include "phasor_internal.h"
#include "phasor_measure.h"
#include "vec.h"

int phasor_steps_mode;

enum { LIB_NONE, LIB_OMPI41, LIB_MPICH40 };
static int lib;
static pcs_ompi_forced_t ompi_forced;
static pcs_mpich_env_t mpich_env;

/* Private duplicate (and MPICH's node numbers) per user communicator. */
typedef struct mcomm {
    MPI_Comm user, dup;
    int *node; /* host of each rank (MPICH's node-aware rules) */
    struct mcomm *next;
} mcomm_t;
static mcomm_t *mcomms;
static pthread_mutex_t mcomm_lock = PTHREAD_MUTEX_INITIALIZER;

/* A nonblocking transfer of the schedule in flight: recorded when its wait completes it. */
typedef struct mreq {
    MPI_Request r;
    uint64_t t0;    /* when it was posted */
    uint32_t op;    /* its op in the schedule */
    uint32_t seq;   /* its number among the schedule's transfers (numbered when posted) */
    uint64_t stage; /* offset in stage of a multi-piece receive, scattered at its wait */
} mreq_t;

/* Per-thread working memory, kept between calls. */
typedef struct mthread {
    pcs_sched_t s;
    uint8_t *tmp[3];
    size_t tmp_cap[3];
    mreq_t *reqs;
    size_t req_cap;
    uint8_t *stage; /* multi-piece (PCS_BUF_IOV) messages, packed */
    size_t stage_cap;
    uint8_t *lay[2]; /* reduction operands in their datatype's layout */
    size_t lay_cap[2];
} mthread_t;
static PHASOR_TLS mthread_t *mth;

int phasor_measure_init(const char *mode, const char *library)
{
    phasor_steps_mode = 0;
    if (!mode || !*mode || strcmp(mode, "off") == 0)
        return 1;
    if (strcmp(mode, "measure") != 0)
        return -1;
    switch (pcs_library_of(library)) {
    case PCS_LIB_OMPI41: lib = LIB_OMPI41; break;
    case PCS_LIB_MPICH40: lib = LIB_MPICH40; break;
    default: return 0;
    }
    /* the library's forcing variables, as the offline tools read them from the log */
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || (size_t)(eq - *e) >= 128)
            continue;
        char name[128];
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = '\0';
        if (!pcs_ompi_forced_set(&ompi_forced, name, eq + 1))
            pcs_mpich_env_set(&mpich_env, name, eq + 1);
    }
    phasor_steps_mode = 1;
    return 1;
}

/* The private duplicate of comm, made on its first measured collective (every rank of comm
 * is in that call, so the duplication is collective-safe). NULL on failure. */
static mcomm_t *mcomm_get(MPI_Comm comm)
{
    pthread_mutex_lock(&mcomm_lock);
    for (mcomm_t *c = mcomms; c; c = c->next)
        if (c->user == comm) {
            pthread_mutex_unlock(&mcomm_lock);
            return c;
        }
    pthread_mutex_unlock(&mcomm_lock);
    mcomm_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    int size = 0;
    if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || PMPI_Comm_dup(comm, &c->dup) != MPI_SUCCESS) {
        free(c);
        return NULL;
    }
    c->user = comm;
    if (lib == LIB_MPICH40) { /* ranks sharing a host share a node */
        const uint64_t key = phasor_host_key();
        int h = (int)(uint32_t)(key ^ (key >> 32)); /* the schedules take int node ids */
        c->node = malloc((size_t)size * sizeof(int));
        if (!c->node || PMPI_Allgather(&h, 1, MPI_INT, c->node, 1, MPI_INT, c->dup) != MPI_SUCCESS) {
            free(c->node);
            c->node = NULL; /* all on one node */
        }
    }
    pthread_mutex_lock(&mcomm_lock);
    c->next = mcomms;
    mcomms = c;
    pthread_mutex_unlock(&mcomm_lock);
    return c;
}

void phasor_measure_release(MPI_Comm comm)
{
    if (!phasor_steps_mode || comm == MPI_COMM_NULL)
        return;
    pthread_mutex_lock(&mcomm_lock);
    mcomm_t **pp = &mcomms, *c = NULL;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->user == comm) {
            c = *pp;
            *pp = c->next;
            break;
        }
    pthread_mutex_unlock(&mcomm_lock);
    if (c) { /* the user's free is collective: so is ours */
        PMPI_Comm_free(&c->dup);
        free(c->node);
        free(c);
    }
}

static mthread_t *mthread(void)
{
    if (!mth)
        mth = calloc(1, sizeof(*mth));
    return mth;
}

/* A datatype whose `count` elements are `count * size` contiguous bytes from the buffer. */
static int contiguous(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return 1;
    MPI_Count size;
    MPI_Aint lb, extent, tlb, textent;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    return tlb == 0 && lb == 0 && textent == size && extent == size;
}

int phasor_measure_redtype(MPI_Datatype t, bool user_op)
{
    int ni, na, nd, comb;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 0;
    /* predefined ops on derived types: both libraries refuse them, and their error is the
     * answer the program must get */
    if (comb != MPI_COMBINER_NAMED && !user_op)
        return 0;
    MPI_Aint lb, extent;
    int size;
    if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS || extent <= 0)
        return 0;
    if (contiguous(t))
        return 1;
    /* unpacked in pieces of whole elements of at most INT_MAX bytes */
    return PMPI_Type_size(t, &size) == MPI_SUCCESS && size > 0 && size != MPI_UNDEFINED ? 2 : 0;
}

/* region b := a (op) b for len packed bytes of mc's type that is not contiguous: both operands
 * unpacked to the type's own layout (what the library hands the op, a user function
 * included), reduced there and the result packed back, at most INT_MAX bytes at a time. */
static int reduce_laid_out(mthread_t *m, const phasor_measure_t *mc, const uint8_t *pa, uint8_t *pb,
                           uint64_t len)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    if (PMPI_Type_size(mc->optype, &size) != MPI_SUCCESS || size <= 0 ||
        PMPI_Type_get_extent(mc->optype, &lb, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(mc->optype, &tlb, &text) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    uint64_t nel = len / (uint64_t)size, per = (uint64_t)(INT_MAX / size);
    uint64_t chunk = nel < per ? nel : per;
    if (chunk == 0)
        return MPI_SUCCESS;
    size_t span = (size_t)((chunk - 1) * (uint64_t)ext + (uint64_t)text);
    for (int i = 0; i < 2; i++)
        if (VEC_GROW(m->lay[i], m->lay_cap[i], span + 1) != 0)
            return MPI_ERR_NO_MEM;
    uint8_t *in = m->lay[0] - tlb, *io = m->lay[1] - tlb; /* element 0's origin */
    int rc = MPI_SUCCESS;
    for (uint64_t k = 0; k < nel && rc == MPI_SUCCESS;) {
        int c = (int)(nel - k < chunk ? nel - k : chunk), bytes = c * size, pos = 0;
        const uint8_t *x = pa + k * (uint64_t)size;
        uint8_t *y = pb + k * (uint64_t)size;
        rc = PMPI_Unpack(x, bytes, &pos, in, c, mc->optype, mc->comm);
        pos = 0;
        if (rc == MPI_SUCCESS)
            rc = PMPI_Unpack(y, bytes, &pos, io, c, mc->optype, mc->comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Reduce_local(in, io, c, mc->optype, mc->op);
        pos = 0;
        if (rc == MPI_SUCCESS)
            rc = PMPI_Pack(io, c, mc->optype, y, bytes, &pos, mc->comm);
        k += (uint64_t)c;
    }
    return rc;
}

/* region b := a (op) b for len packed bytes of mc's type: elementwise in pieces of at most
 * INT_MAX elements (the same result), or on the type's own layout. */
static int reduce(mthread_t *m, const phasor_measure_t *mc, const uint8_t *pa, uint8_t *pb,
                  uint64_t len)
{
    if (mc->red_laid_out)
        return reduce_laid_out(m, mc, pa, pb, len);
    uint64_t ts = mc->args.type_size ? mc->args.type_size : 1;
    int rc = MPI_SUCCESS;
    for (uint64_t k = 0, nel = len / ts; k < nel && rc == MPI_SUCCESS;) {
        uint64_t c1 = nel - k < INT_MAX ? nel - k : INT_MAX;
        rc = PMPI_Reduce_local(pa + k * ts, pb + k * ts, (int)c1, mc->optype, mc->op);
        k += c1;
    }
    return rc;
}

static void record_step(phasor_thread_t *th, uint64_t t0, uint64_t t1, uint32_t comm_id,
                        uint32_t site, const pcs_op_t *op, uint32_t seq)
{
    plog_event_t *ev = phasor_event_reserve(th, PLOG_CALL_PHASOR_Step, t0, t1, 0, 0, site);
    if (!ev)
        return;
    int send = op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND;
    ev->comm = comm_id;
    ev->peer = op->peer == PCS_ANY_SOURCE ? PLOG_ANY_SOURCE : op->peer;
    ev->tag = (int32_t)seq; /* 1-based position among the schedule's transfers */
    ev->bytes = send ? op->len : 0;
    ev->rbytes = send ? 0 : op->len;
    phasor_event_end(th, ev, 0);
}

/* Gather (dir 0) the pieces that follow the multi-piece transfer ops[i] into stage, or
 * scatter (dir 1) stage to them. */
static void pieces(const pcs_sched_t *s, size_t i, uint8_t *stage, uint8_t *const *buf, int dir)
{
    uint64_t pos = 0;
    for (size_t j = i + 1; j < s->n && s->ops[j].kind == PCS_OP_PIECE; j++) {
        const pcs_op_t *p = &s->ops[j];
        uint8_t *at = buf[p->a.buf] + p->a.off;
        if (dir)
            memcpy(at, stage + pos, p->len);
        else
            memcpy(stage + pos, at, p->len);
        pos += p->len;
    }
}

/* len bytes as (count, type): MPI_BYTE up to INT_MAX, beyond it one committed struct of
 * 1 GiB blocks and the rest (the caller frees it), so a message stays one message. */
static int byte_type(uint64_t len, MPI_Datatype *t, int *n)
{
    *t = MPI_BYTE;
    *n = (int)len;
    if (len <= INT_MAX)
        return MPI_SUCCESS;
    const uint64_t gib = 1ull << 30;
    if (len / gib > INT_MAX)
        return MPI_ERR_COUNT;
    MPI_Datatype g;
    int rc = PMPI_Type_contiguous((int)gib, MPI_BYTE, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    int bl[2] = {(int)(len / gib), (int)(len % gib)};
    MPI_Aint d[2] = {0, (MPI_Aint)(len - len % gib)};
    MPI_Datatype ts[2] = {g, MPI_BYTE};
    rc = PMPI_Type_create_struct(2, bl, d, ts, t);
    PMPI_Type_free(&g);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(t)) != MPI_SUCCESS)
        PMPI_Type_free(t);
    if (rc != MPI_SUCCESS)
        *t = MPI_BYTE;
    *n = 1;
    return rc;
}

/* Tags of the library's own (Open MPI's are negative) on our private communicator. */
static int our_tag(int32_t tag) { return tag < 0 ? -tag : tag; }

/* Can this rank perform mc's call? The schedule in m->s and the memory it needs. */
static int prepare(mthread_t *m, const phasor_measure_t *mc, const mcomm_t *c)
{
    phasor_thread_t *th = phasor_tls;
    if (m == NULL || mc->veto || th == NULL || th->dead || !contiguous(mc->stype) ||
        !contiguous(mc->rtype))
        return 0;
    pcs_sched_t *s = &m->s;
    pcs_sched_reset(s);
    pcs_err_t e;
    if (lib == LIB_MPICH40) {
        pcs_mpich_comm_t t = {.node = c->node, .user_op = mc->user_op};
        e = pcs_mpich40_schedule(&mc->args, &t, &mpich_env, s);
    } else {
        e = pcs_ompi41_schedule(&mc->args, &ompi_forced, s);
    }
    if (e != PCS_OK)
        return 0;
    uint64_t iov = 0; /* multi-piece messages travel packed, each in its own stage part */
    for (size_t i = 0; i < s->n; i++)
        if (s->ops[i].a.buf == PCS_BUF_IOV && s->ops[i].kind != PCS_OP_WAIT)
            iov += s->ops[i].len;
    if (iov >= SIZE_MAX / 2 || VEC_GROW(m->stage, m->stage_cap, (size_t)iov + 1) != 0)
        return 0;
    for (int i = 0; i < 3; i++)
        if (VEC_GROW(m->tmp[i], m->tmp_cap[i], s->tmp_bytes[i] + 1) != 0)
            return 0;
    return VEC_GROW(m->reqs, m->req_cap, (size_t)s->nreqs + 1) == 0;
}

/* What one schedule runs with: its buffers, the call's communicator (id, private
 * duplicate), its call site, and the transfers numbered so far. */
typedef struct mrun {
    mthread_t *m;
    const phasor_measure_t *mc;
    phasor_thread_t *th;
    MPI_Comm dup;
    uint8_t *buf[PCS_NBUFS];
    uint32_t comm_id, site, seq;
    uint64_t staged; /* stage bytes handed to multi-piece messages so far */
} mrun_t;

/* Op i of the schedule: a transfer (recorded as a STEP), a wait (recording the transfer it
 * completes), a copy or a reduction. */
static int run_op(mrun_t *r, size_t i)
{
    mthread_t *m = r->m;
    const pcs_sched_t *s = &m->s;
    const pcs_op_t *op = &s->ops[i];
    uint8_t *const *buf = r->buf;
    const int iov = op->a.buf == PCS_BUF_IOV && op->kind != PCS_OP_WAIT;
    uint8_t *pa = iov ? m->stage + r->staged : op->a.buf < PCS_NBUFS ? buf[op->a.buf] + op->a.off
                                                                     : NULL;
    if (iov) {
        r->staged += op->len;
        if (op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND)
            pieces(s, i, pa, buf, 0);
    }
    /* transfers move bytes of the packed layout, past INT_MAX as one message too */
    MPI_Datatype bt = MPI_BYTE;
    int n = 0, rc = MPI_SUCCESS;
    if (op->kind <= PCS_OP_IRECV && (rc = byte_type(op->len, &bt, &n)) != MPI_SUCCESS)
        return rc;
    int peer = op->peer == PCS_ANY_SOURCE ? MPI_ANY_SOURCE : op->peer, tag = our_tag(op->tag);
    uint64_t t0 = phasor_now();
    switch (op->kind) {
    case PCS_OP_SEND:
        rc = (op->flags & PCS_F_SYNC) ? PMPI_Ssend(pa, n, bt, peer, tag, r->dup)
                                      : PMPI_Send(pa, n, bt, peer, tag, r->dup);
        record_step(r->th, t0, phasor_now(), r->comm_id, r->site, op, ++r->seq);
        break;
    case PCS_OP_RECV:
        rc = PMPI_Recv(pa, n, bt, peer, tag, r->dup, MPI_STATUS_IGNORE);
        record_step(r->th, t0, phasor_now(), r->comm_id, r->site, op, ++r->seq);
        if (iov && rc == MPI_SUCCESS)
            pieces(s, i, pa, buf, 1);
        break;
    case PCS_OP_ISEND:
    case PCS_OP_IRECV: {
        /* numbered in schedule order, recorded when the wait completes it */
        assert(op->req < m->req_cap);
        mreq_t *q = &m->reqs[op->req];
        *q = (mreq_t){.t0 = t0, .op = (uint32_t)i, .seq = ++r->seq,
                      .stage = (uint64_t)(pa - m->stage)}; /* stage: iov receives only */
        rc = op->kind == PCS_OP_IRECV   ? PMPI_Irecv(pa, n, bt, peer, tag, r->dup, &q->r)
             : (op->flags & PCS_F_SYNC) ? PMPI_Issend(pa, n, bt, peer, tag, r->dup, &q->r)
                                        : PMPI_Isend(pa, n, bt, peer, tag, r->dup, &q->r);
        break;
    }
    case PCS_OP_WAIT: {
        mreq_t *q = &m->reqs[op->req];
        rc = PMPI_Wait(&q->r, MPI_STATUS_IGNORE);
        const pcs_op_t *xfer = &s->ops[q->op];
        record_step(r->th, q->t0, phasor_now(), r->comm_id, r->site, xfer, q->seq);
        if (rc == MPI_SUCCESS && xfer->kind == PCS_OP_IRECV && xfer->a.buf == PCS_BUF_IOV)
            pieces(s, q->op, m->stage + q->stage, buf, 1);
        break;
    }
    case PCS_OP_COPY:
        memmove(buf[op->b.buf] + op->b.off, pa, op->len);
        break;
    case PCS_OP_REDUCE:
        rc = reduce(m, r->mc, pa, buf[op->b.buf] + op->b.off, op->len);
        break;
    default: /* PCS_OP_PIECE: read with its transfer */
        break;
    }
    if (bt != MPI_BYTE)
        PMPI_Type_free(&bt); /* a pending transfer keeps its type alive */
    return rc;
}

int phasor_measure(const phasor_measure_t *mc, int *measured)
{
    *measured = 0;
    mthread_t *m = mthread();
    mcomm_t *c = mcomm_get(mc->comm);
    if (!c)
        return MPI_SUCCESS; /* no private communicator: the library performs the call */

    /* Can this rank perform it? Then agree: all or none (every rank gets here). */
    int ok = prepare(m, mc, c), all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->dup) != MPI_SUCCESS || !all)
        return MPI_SUCCESS;

    mrun_t r = {.m = m, .mc = mc, .th = phasor_tls, .dup = c->dup,
                .buf = {(uint8_t *)(uintptr_t)mc->sbuf, (uint8_t *)mc->rbuf, m->tmp[0],
                        m->tmp[1], m->tmp[2]},
                .comm_id = phasor_comm_id(mc->comm)};
    /* one unwind per call: every step carries the collective's site */
    r.site = phasor_cs_depth ? phasor_callsite(r.th) : 0;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < m->s.n && rc == MPI_SUCCESS; i++)
        rc = run_op(&r, i);
    *measured = 1;
    return rc;
}
