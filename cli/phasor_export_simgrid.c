/* phasor_export_simgrid.c: `phasor export --format simgrid -o DIR`: the run as SimGrid 3.32's
 * time-independent traces (one file per rank and the list of them, for `smpirun -replay`), a
 * platform whose links carry the run's probe fitted as piecewise Hockney, the hostfile and
 * the command line that replays it (doc/export-format.md, "SimGrid"). The action grammar is
 * that of SimGrid 3.32's src/smpi/internals/smpi_replay.cpp; what it cannot express becomes
 * compute and is counted on stderr.
 *
 * Each rank is read twice through its own iterator: first for what its receives turned out to
 * be (any-source and any-tag receives are written with the source and tag their statuses
 * name; receives never completed are left out, as a replay would wait for them forever),
 * then to write its actions. Memory: the rank's receive requests and open requests. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hmap.h"
#include "ofile.h"
#include "phasor_cmd.h"
#include "phasor_export.h"
#include "plog_reader.h"
#include "predict_models.h"
#include "whole_replay.h"
#include "vec.h"

#define SG_VERSION 1
#define SG_FLOPS 1e9 /* host speed: one flop per ns of the log's gaps */

/* What the trace cannot say as the program did it; each is a warning with its count. */
enum {
    AX_SUBCOMM,  /* collective on a communicator that is not all of the world */
    AX_ICOLL,    /* nonblocking collective: replayed blocking at its start */
    AX_NOACTION, /* a communicating call SimGrid has no action for (probes, neighbour...) */
    AX_RECVLOST, /* a receive never completed, cancelled, or its source not known */
    AX_THREADS,  /* a second thread's calls, serialised into the rank's one stream */
    AX_TESTS,    /* Testall/Testany/Testsome that completed nothing: became compute */
    AX_CLAMP,    /* a count above INT_MAX, SimGrid's parsers' limit: clamped */
    AX_TAGS,     /* a message on a communicator other than the world (tags share one space) */
    AX_RUNCAP,   /* a run of polls with more tests than SG_RUN_TESTS: that many written */
    AX_N
};
static const char *const ax_what[AX_N] = {
    "collectives on a communicator that is not the whole world (SimGrid 3.32 replays "
    "collectives on MPI_COMM_WORLD only): their time became compute",
    "nonblocking collectives: replayed as the blocking collective at their start",
    "calls with communication SimGrid's replay has no action for (probes, Alltoallw without "
    "counts, neighbourhood collectives): their time became compute",
    "receives never completed, cancelled, or with no known source: left out",
    "calls of threads other than the rank's first: serialised into its one stream",
    "Testall/Testany/Testsome that completed nothing: their time became compute",
    "counts above 2^31-1 bytes (SimGrid's int parsers): clamped",
    "point-to-point messages on communicators other than MPI_COMM_WORLD: replayed on "
    "MPI_COMM_WORLD with their tag",
    "runs of more than 65536 unsuccessful MPI_Test calls: written as 65536 tests, with the "
    "compute between their polls kept",
};
/* The tests written for one run of polls at most: a rank that waited seconds in a Test loop
 * made tens of millions, whose lines would swamp the trace and the replay. */
#define SG_RUN_TESTS 65536

typedef struct rv { /* a receive request as its completion showed it */
    int32_t src, tag;
    uint64_t bytes;
} rv_t;

typedef struct oreq { /* an exported request, for its wait line: SimGrid keys them so */
    int32_t src, dst, tag;
} oreq_t;

typedef struct sgx {
    plog_run_t *run;
    int32_t nr, me;
    FILE *f;
    uint64_t ax[AX_N];
    /* pass 1 keeps only what a receive's posting does not say: */
    hmap_t rmap; /* request id + 1 -> index in rv + 1: completed with another source, tag
                    or size than posted (wildcards, short messages) */
    rv_t *rv;
    size_t nrv, rvcap;
    hmap_t pend; /* receives posted and not yet completed (pass 1: in flight) */
    hmap_t lost; /* never completed, cancelled, or without a source: no action */
    hmap_t omap; /* open request id + 1 -> index in oq */
    oreq_t *oq;
    size_t noq, oqcap;
    size_t *ofree; /* free slots of oq */
    size_t nfree, freecap;
    uint64_t nopen;
    int64_t last;  /* end of the last call written (the compute gap starts there) */
    wr_span_t *probes;        /* phasor's own probes: the shim's time, not compute */
    size_t nprobes, pfrom;
    int inited;
    uint16_t thread0;
    int oom;
} sgx_t;

static void act(sgx_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void act(sgx_t *x, const char *fmt, ...)
{
    va_list ap;
    fprintf(x->f, "%d ", (int)x->me);
    va_start(ap, fmt);
    vfprintf(x->f, fmt, ap);
    va_end(ap);
    fputc('\n', x->f);
}

/* The gap since the last call written, as compute, then the call's end is the new mark. */
static void gap(sgx_t *x, const plog_rec_t *e)
{
    if (x->inited && e->start_ns > x->last) {
        int64_t c = e->start_ns - x->last; /* less phasor's probes within it */
        c -= llround(wr_spans_within(x->probes, x->nprobes, (double)x->last,
                                     (double)e->start_ns, &x->pfrom));
        if (c > 0)
            act(x, "compute %" PRId64, c);
    }
    if (e->end_ns > x->last || !x->inited)
        x->last = e->end_ns;
    x->inited = 1;
}

static uint64_t clampc(sgx_t *x, uint64_t n)
{
    if (n > INT_MAX) {
        x->ax[AX_CLAMP]++;
        return INT_MAX;
    }
    return n;
}

/* ---- pass 1: what each receive request turned out to be ----
 * Memory holds the receives in flight and those whose completion differs from their
 * posting, not every receive of the rank. */

static void post_recv1(sgx_t *x, uint64_t id, int32_t peer)
{
    if (id && peer != PLOG_PROC_NULL && hmap_set(&x->pend, id + 1, 1) != 0)
        x->oom = 1;
}

static void note_recv(sgx_t *x, const plog_rstatus_t *s)
{
    const plog_reqinfo_t *ri = s->start;
    if (!s->request || !ri || (ri->cls != PLOG_CLASS_IRECV && ri->cls != PLOG_CLASS_PRECV_INIT))
        return;
    size_t slot = hmap_find(&x->pend, s->request + 1);
    if (slot == SIZE_MAX)
        return; /* not posted here (its posting not seen), or PROC_NULL */
    hmap_del_at(&x->pend, slot);
    if (s->cancelled || s->source < 0) {
        if (hmap_set(&x->lost, s->request + 1, 1) != 0)
            x->oom = 1;
        return;
    }
    uint64_t b = s->bytes != PLOG_BYTES_UNKNOWN ? s->bytes : ri->rbytes;
    if (s->source == ri->peer && s->tag == ri->tag && b == ri->rbytes)
        return; /* as posted */
    if (VEC_GROW(x->rv, x->rvcap, x->nrv + 1) != 0 || hmap_set(&x->rmap, s->request + 1, x->nrv + 1) != 0) {
        x->oom = 1;
        return;
    }
    x->rv[x->nrv++] = (rv_t){s->source, s->tag, b};
}

static void pass1_event(sgx_t *x, const plog_rec_t *e)
{
    if (e->cls == PLOG_CLASS_IRECV) {
        post_recv1(x, e->request, e->peer);
    } else if (e->cls == PLOG_CLASS_START) {
        uint32_t n = e->n_handles ? e->n_handles : e->req != NULL;
        for (uint32_t h = 0; h < n; h++) {
            const plog_reqinfo_t *ri = e->n_handles ? e->handles[h].start : e->req;
            if (ri && ri->cls == PLOG_CLASS_PRECV_INIT)
                post_recv1(x, e->n_handles ? e->handles[h].id : e->request, ri->peer);
        }
    } else if (e->cls == PLOG_CLASS_COMPLETE) {
        for (uint32_t i = 0; i < e->n_status; i++)
            note_recv(x, &e->status[i]);
    }
}

/* The receives never completed are lost too. */
static void pass1_end(sgx_t *x)
{
    for (size_t j = 0; j < x->pend.cap; j++)
        if (x->pend.keys[j] && hmap_set(&x->lost, x->pend.keys[j], 1) != 0)
            x->oom = 1;
    hmap_free(&x->pend);
}

/* ---- pass 2: the actions ---- */

static void open_req(sgx_t *x, uint64_t id, int32_t src, int32_t dst, int32_t tag)
{
    size_t i;
    if (x->nfree)
        i = x->ofree[--x->nfree];
    else if (VEC_GROW(x->oq, x->oqcap, x->noq + 1) == 0)
        i = x->noq++;
    else {
        x->oom = 1;
        return;
    }
    x->oq[i] = (oreq_t){src, dst, tag};
    if (hmap_set(&x->omap, id + 1, i) != 0)
        x->oom = 1;
    x->nopen++;
}

/* The open request id (exported), removed; NULL if it was not exported. */
static const oreq_t *close_req(sgx_t *x, uint64_t id)
{
    uint64_t *v = id ? hmap_get(&x->omap, id + 1) : NULL;
    if (!v)
        return NULL;
    size_t i = (size_t)*v;
    hmap_del(&x->omap, id + 1);
    if (VEC_GROW(x->ofree, x->freecap, x->nfree + 1) != 0)
        x->oom = 1;
    else
        x->ofree[x->nfree++] = i;
    x->nopen--;
    return &x->oq[i];
}

static void send_start(sgx_t *x, const char *verb, uint64_t id, int32_t peer, int32_t tag,
                       uint64_t bytes)
{
    if (peer < 0)
        return; /* MPI_PROC_NULL */
    act(x, "%s %d %d %" PRIu64, verb, (int)peer, (int)tag, bytes);
    if (id)
        open_req(x, id, x->me, peer, tag);
}

/* A receive posted from peer with tag for rbytes: as its completion showed it. */
static void irecv_start(sgx_t *x, uint64_t id, int32_t peer, int32_t tag, uint64_t rbytes)
{
    if (peer == PLOG_PROC_NULL)
        return;
    if (!id || hmap_get(&x->lost, id + 1)) {
        x->ax[AX_RECVLOST]++;
        return;
    }
    rv_t r = {peer, tag, rbytes};
    uint64_t *v = hmap_get(&x->rmap, id + 1);
    if (v)
        r = x->rv[*v - 1];
    act(x, "irecv %d %d %" PRIu64, (int)r.src, (int)r.tag, r.bytes);
    open_req(x, id, r.src, x->me, r.tag);
}

/* A persistent instance started by Start/Startall. */
static void pstart(sgx_t *x, uint64_t id, const plog_reqinfo_t *ri)
{
    if (!ri)
        return;
    if (ri->cls == PLOG_CLASS_PSEND_INIT)
        send_start(x, "isend", id, ri->peer, ri->tag, ri->bytes);
    else if (ri->cls == PLOG_CLASS_PRECV_INIT)
        irecv_start(x, id, ri->peer, ri->tag, ri->rbytes);
}

/* A blocking receive's source, tag and bytes from its status; 0 if not known. */
static int recv_of(const plog_rec_t *e, int32_t *src, int32_t *tag, uint64_t *bytes)
{
    *src = e->cls == PLOG_CLASS_SENDRECV ? e->recv_source : e->peer;
    *tag = e->cls == PLOG_CLASS_SENDRECV ? e->recv_tag : e->tag;
    *bytes = e->rbytes;
    if (e->n_status > 0) {
        if (e->status[0].source != PLOG_NONE)
            *src = e->status[0].source;
        if (e->status[0].tag != PLOG_NONE)
            *tag = e->status[0].tag;
        if (e->status[0].bytes != PLOG_BYTES_UNKNOWN)
            *bytes = e->status[0].bytes;
    }
    return *src >= 0 && *tag >= 0;
}

/* The rest of a run of unsuccessful MPI_Tests (its first test written): a test per poll,
 * the time between the polls, the application's, as compute spread evenly among them (a
 * run does not say how it was spread). */
static void run_tests(sgx_t *x, const plog_rec_t *e, const oreq_t *q)
{
    uint64_t n = e->ncalls;
    if (n > SG_RUN_TESTS) {
        x->ax[AX_RUNCAP]++;
        n = SG_RUN_TESTS;
    }
    uint64_t span = e->t_end - e->t_start;
    uint64_t between = span > e->inside_ns ? span - e->inside_ns : 0;
    uint64_t each = between / (n - 1), rem = between % (n - 1); /* exactly between in all */
    for (uint64_t i = 1; i < n; i++) {
        uint64_t c = each + (i <= rem);
        if (c > 0)
            act(x, "compute %" PRIu64, c);
        act(x, "test %d %d %d", (int)q->src, (int)q->dst, (int)q->tag);
    }
}

static void completion(sgx_t *x, const plog_rec_t *e)
{
    int done = 0;
    for (uint32_t i = 0; i < e->n_status; i++)
        if (e->status[i].request && hmap_get(&x->omap, e->status[i].request + 1))
            done++;
    if (done == 0) {
        /* an MPI_Test that found its request unfinished: SimGrid's test polls it again */
        uint64_t *v = e->request ? hmap_get(&x->omap, e->request + 1) : NULL;
        if (v && strcmp(e->call_name, "MPI_Test") == 0 && !(e->flags & PLOG_F_FLAG_TRUE)) {
            gap(x, e);
            const oreq_t *q = &x->oq[*v];
            act(x, "test %d %d %d", (int)q->src, (int)q->dst, (int)q->tag);
            if (e->ncalls > 1)
                run_tests(x, e, q);
        } else if (strncmp(e->call_name, "MPI_Test", 8) == 0 && e->request == 0)
            x->ax[AX_TESTS] += e->ncalls;
        return;
    }
    gap(x, e);
    /* SimGrid's waitall waits every open request: only when that is what completed here */
    if (done > 1 && (uint64_t)done == x->nopen) {
        for (uint32_t i = 0; i < e->n_status; i++)
            close_req(x, e->status[i].request);
        act(x, "waitall");
        return;
    }
    for (uint32_t i = 0; i < e->n_status; i++) {
        const oreq_t *q = close_req(x, e->status[i].request);
        if (q)
            act(x, "wait %d %d %d", (int)q->src, (int)q->dst, (int)q->tag);
    }
}

/* The communicator's members when it holds the whole world (in any order: roots and lists
 * are written by world rank), else NULL. */
static const plog_gcomm_t *world_like(sgx_t *x, const plog_rec_t *e)
{
    const plog_gcomm_t *g = e->comm > 0 ? plog_run_comm(x->run, e->comm) : NULL;
    if (!g || g->n_remote != 0 || g->n_members != (uint32_t)x->nr)
        return NULL;
    return g;
}

/* n counts of a per-peer list (comm-rank order) by world rank; 0 if the list is incomplete. */
static int vlist(sgx_t *x, const plog_gcomm_t *g, const uint64_t *v, uint32_t n, uint64_t *out)
{
    for (int32_t i = 0; i < x->nr; i++)
        out[i] = 0;
    if (!v || n != (uint32_t)x->nr)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (g->members[i] >= 0 && g->members[i] < x->nr)
            out[g->members[i]] = clampc(x, v[i]);
    return 1;
}

static void put_list(sgx_t *x, const uint64_t *v)
{
    for (int32_t i = 0; i < x->nr; i++)
        fprintf(x->f, " %" PRIu64, v[i]);
}

static uint64_t sum_list(const uint64_t *v, int32_t n)
{
    uint64_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* A collective (blocking, or nonblocking at its start) as SimGrid's action; 0 if there is
 * none to write (then its time stays in the gap). */
static int collective(sgx_t *x, const plog_rec_t *e, const char *name, uint64_t *v1, uint64_t *v2)
{
    const plog_gcomm_t *g = world_like(x, e);
    if (!g) {
        x->ax[AX_SUBCOMM]++;
        return 0;
    }
    uint64_t b = clampc(x, e->bytes), rb = clampc(x, e->rbytes);
    int root = e->root >= 0 && e->root < x->nr ? e->root : 0;
    int isroot = e->root == x->me;
#define IS(s) (strcmp(name, s) == 0)
    if (IS("Barrier")) {
        gap(x, e);
        act(x, "barrier");
    } else if (IS("Bcast")) {
        gap(x, e);
        act(x, "bcast %" PRIu64 " %d", b, root);
    } else if (IS("Reduce")) {
        gap(x, e);
        act(x, "reduce %" PRIu64 " 0 %d", b, root);
    } else if (IS("Allreduce") || IS("Scan") || IS("Exscan")) {
        gap(x, e);
        act(x, "%s %" PRIu64 " 0", IS("Allreduce") ? "allreduce" : IS("Scan") ? "scan" : "exscan",
            b);
    } else if (IS("Gather")) {
        gap(x, e);
        act(x, "gather %" PRIu64 " %" PRIu64 " %d", b, isroot ? rb : b, root);
    } else if (IS("Scatter")) {
        gap(x, e);
        act(x, "scatter %" PRIu64 " %" PRIu64 " %d", isroot ? b : rb, rb, root);
    } else if (IS("Allgather") || IS("Alltoall")) {
        gap(x, e);
        act(x, "%s %" PRIu64 " %" PRIu64, IS("Allgather") ? "allgather" : "alltoall", b, rb);
    } else if (IS("Gatherv") || IS("Allgatherv")) {
        int ok = vlist(x, g, e->vrecv, e->n_vrecv, v1);
        if (!ok && (IS("Allgatherv") || isroot))
            goto none;
        gap(x, e);
        fprintf(x->f, "%d %s %" PRIu64, (int)x->me, IS("Gatherv") ? "gatherv" : "allgatherv", b);
        put_list(x, v1);
        if (IS("Gatherv"))
            fprintf(x->f, " %d", root);
        fputc('\n', x->f);
    } else if (IS("Scatterv")) {
        if (!vlist(x, g, e->vsend, e->n_vsend, v1) && isroot)
            goto none;
        gap(x, e);
        fprintf(x->f, "%d scatterv", (int)x->me);
        put_list(x, v1);
        fprintf(x->f, " %" PRIu64 " %d\n", rb, root);
    } else if (IS("Alltoallv") || IS("Alltoallw")) {
        if (!vlist(x, g, e->vsend, e->n_vsend, v1) || !vlist(x, g, e->vrecv, e->n_vrecv, v2))
            goto none;
        gap(x, e);
        fprintf(x->f, "%d alltoallv %" PRIu64, (int)x->me, clampc(x, sum_list(v1, x->nr)));
        put_list(x, v1);
        fprintf(x->f, " %" PRIu64, clampc(x, sum_list(v2, x->nr)));
        put_list(x, v2);
        fputc('\n', x->f);
    } else if (IS("Reduce_scatter") || IS("Reduce_scatter_block")) {
        if (IS("Reduce_scatter_block"))
            for (int32_t i = 0; i < x->nr; i++)
                v1[i] = rb;
        else if (!vlist(x, g, e->vrecv, e->n_vrecv, v1))
            goto none;
        gap(x, e);
        fprintf(x->f, "%d reducescatter", (int)x->me);
        put_list(x, v1);
        fputs(" 0\n", x->f);
    } else
        goto none;
#undef IS
    return 1;
none:
    x->ax[AX_NOACTION]++;
    return 0;
}

static void event(sgx_t *x, const plog_rec_t *e, uint64_t *v1, uint64_t *v2)
{
    if (e->cls == PLOG_CLASS_STEP)
        return;
    if (e->thread != x->thread0)
        x->ax[AX_THREADS] += e->ncalls;
    if ((e->cls == PLOG_CLASS_SEND || e->cls == PLOG_CLASS_ISEND || e->cls == PLOG_CLASS_RECV ||
         e->cls == PLOG_CLASS_SENDRECV) && e->comm > 1)
        x->ax[AX_TAGS]++;
    int32_t src, tag;
    uint64_t bytes;
    switch (e->cls) {
    case PLOG_CLASS_ENV:
        if (strncmp(e->call_name, "MPI_Init", 8) == 0) {
            x->last = e->end_ns; /* the replay's clock starts at init */
            x->inited = 1;
        } else if (strcmp(e->call_name, "MPI_Finalize") == 0) {
            gap(x, e);
            act(x, "finalize");
        }
        break;
    case PLOG_CLASS_SEND:
        if (e->peer >= 0) {
            gap(x, e);
            send_start(x, "send", 0, e->peer, e->tag, e->bytes);
        }
        break;
    case PLOG_CLASS_RECV:
        if (recv_of(e, &src, &tag, &bytes)) {
            gap(x, e);
            act(x, "recv %d %d %" PRIu64, (int)src, (int)tag, bytes);
        } else if (src != PLOG_PROC_NULL)
            x->ax[AX_RECVLOST]++;
        break;
    case PLOG_CLASS_SENDRECV: {
        /* isend + recv + wait: SimGrid's sendRecv uses tag 0 on both sides, which would not
         * match a partner's Recv with the real tag */
        int r = recv_of(e, &src, &tag, &bytes);
        if (e->peer < 0 && !r)
            break;
        gap(x, e);
        if (e->peer >= 0)
            act(x, "isend %d %d %" PRIu64, (int)e->peer, (int)e->tag, e->bytes);
        if (r)
            act(x, "recv %d %d %" PRIu64, (int)src, (int)tag, bytes);
        if (e->peer >= 0)
            act(x, "wait %d %d %d", (int)x->me, (int)e->peer, (int)e->tag);
        break;
    }
    case PLOG_CLASS_ISEND:
        if (e->peer >= 0) {
            gap(x, e);
            send_start(x, "isend", e->request, e->peer, e->tag, e->bytes);
        }
        break;
    case PLOG_CLASS_IRECV:
        if (e->request && e->peer != PLOG_PROC_NULL && !hmap_get(&x->lost, e->request + 1))
            gap(x, e);
        irecv_start(x, e->request, e->peer, e->tag, e->rbytes);
        break;
    case PLOG_CLASS_START:
        gap(x, e);
        if (e->n_handles > 0) {
            for (uint32_t i = 0; i < e->n_handles; i++)
                pstart(x, e->handles[i].id, e->handles[i].start);
        } else
            pstart(x, e->request, e->req);
        break;
    case PLOG_CLASS_COMPLETE:
        completion(x, e);
        break;
    case PLOG_CLASS_COLL:
    case PLOG_CLASS_ICOLL: {
        const char *name = e->call_name + (strncmp(e->call_name, "MPI_", 4) == 0 ? 4 : 0);
        if (e->cls == PLOG_CLASS_ICOLL) {
            name++; /* Ibcast -> Bcast */
            x->ax[AX_ICOLL]++;
        }
        collective(x, e, name, v1, v2);
        break;
    }
    case PLOG_CLASS_COMM:
        /* no-ops in SimGrid 3.32's replay: the call's time stays compute */
        if (strncmp(e->call_name, "MPI_Comm_split", 14) == 0)
            act(x, "comm_split");
        else if (strcmp(e->call_name, "MPI_Comm_dup") == 0 ||
                 strcmp(e->call_name, "MPI_Comm_idup") == 0)
            act(x, "comm_dup");
        break;
    case PLOG_CLASS_PROBE:
        x->ax[AX_NOACTION] += e->ncalls;
        break;
    default: /* set-ups, frees, local calls: their time stays in the gap */
        break;
    }
}

/* One pass over rank r's events; pass 1 notes receives, pass 2 writes. */
static int rank_pass(sgx_t *x, int pass, uint64_t *v1, uint64_t *v2)
{
    x->pfrom = 0; /* each pass reads the rank from its start */
    plog_iter_t *it;
    plog_error_t err;
    if (plog_iter_open(x->run, x->me, &it, &err) != PLOG_OK) {
        fprintf(stderr, "phasor export: %s\n", err.msg);
        return PHASOR_EXIT_INPUT;
    }
    const plog_rec_t *e;
    plog_err_t rc;
    int first = 1;
    while ((rc = plog_iter_next(it, &e, &err)) == PLOG_OK && e && !x->oom) {
        if (first)
            x->thread0 = e->thread, first = 0;
        if (pass == 1)
            pass1_event(x, e);
        else
            event(x, e, v1, v2);
    }
    plog_iter_close(it);
    if (pass == 1)
        pass1_end(x);
    if (rc != PLOG_OK) {
        fprintf(stderr, "phasor export: %s\n", err.msg);
        return PHASOR_EXIT_INPUT;
    }
    if (x->oom) {
        fprintf(stderr, "phasor export: out of memory\n");
        return PHASOR_EXIT_INPUT;
    }
    return PHASOR_EXIT_OK;
}

/* ---- files ---- */

static int sg_open(int dirfd, const char *dir, const char *name, ofile_t *of)
{
    if (ofile_open(of, dirfd, name) != 0) {
        fprintf(stderr, "phasor export: %s/%s: cannot write: %s\n", dir, name, strerror(errno));
        return -1;
    }
    return 0;
}

static int sg_close(ofile_t *of, const char *dir, const char *name, int keep)
{
    int bad = keep && (fflush(of->f) != 0 || ferror(of->f));
    if (ofile_close(of, keep && !bad) != 0 || bad) {
        if (keep)
            fprintf(stderr, "phasor export: %s/%s: write failed: %s\n", dir, name,
                    strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

static int write_rank(sgx_t *x, int dirfd, const char *dir, uint64_t *v1, uint64_t *v2)
{
    char name[64];
    snprintf(name, sizeof(name), "rank-%06d.txt", (int)x->me);
    ofile_t of;
    if (sg_open(dirfd, dir, name, &of) != 0)
        return PHASOR_EXIT_INPUT;
    x->f = of.f;
    fprintf(x->f, "# phasor export simgrid version %d: rank %d, SimGrid 3.32 time-independent "
                  "trace, 1 flop = 1 ns, counts in bytes (MPI_BYTE)\n", SG_VERSION, (int)x->me);
    act(x, "init");
    int st = rank_pass(x, 1, v1, v2);
    if (st == PHASOR_EXIT_OK)
        st = rank_pass(x, 2, v1, v2);
    if (sg_close(&of, dir, name, st == PHASOR_EXIT_OK) != 0 && st == PHASOR_EXIT_OK)
        st = PHASOR_EXIT_INPUT;
    hmap_free(&x->rmap);
    hmap_free(&x->omap);
    hmap_free(&x->pend);
    hmap_free(&x->lost);
    x->nrv = x->noq = x->nfree = 0;
    x->nopen = 0;
    x->inited = 0;
    x->last = 0;
    return st;
}

/* ---- hosts and platform ---- */

typedef struct hosts {
    int32_t *of;   /* host index per rank */
    char **name;   /* sanitised, unique */
    int32_t *first, *count; /* first rank, ranks per host */
    int32_t n;
} hosts_t;

static void hosts_free(hosts_t *h)
{
    for (int32_t i = 0; i < h->n; i++)
        free(h->name[i]);
    free(h->name), free(h->of), free(h->first), free(h->count);
}

/* Hosts by the ranks' hostnames (a rank without one is a host of its own); names reduced to
 * what a SimGrid id and a hostfile line take. -1 when out of memory. */
static int hosts_make(plog_run_t *run, int32_t nr, hosts_t *h)
{
    memset(h, 0, sizeof(*h));
    const char **raw = calloc((size_t)nr, sizeof(*raw));
    h->of = calloc((size_t)nr, sizeof(*h->of));
    h->name = calloc((size_t)nr, sizeof(*h->name));
    h->first = calloc((size_t)nr, sizeof(*h->first));
    h->count = calloc((size_t)nr, sizeof(*h->count));
    if (!raw || !h->of || !h->name || !h->first || !h->count) {
        free(raw);
        return -1;
    }
    for (int32_t r = 0; r < nr; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        const char *hn = rk ? plog_rank_kv(rk, "hostname") : NULL;
        int32_t k = -1;
        for (int32_t j = 0; hn && j < h->n && k < 0; j++)
            if (raw[j] && strcmp(raw[j], hn) == 0)
                k = j;
        if (k < 0) {
            k = h->n++;
            raw[k] = hn;
            h->first[k] = r;
            char buf[96];
            if (hn && *hn)
                snprintf(buf, sizeof(buf), "%s", hn);
            else
                snprintf(buf, sizeof(buf), "rank%d", (int)r);
            for (char *p = buf; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
                    *p = '_';
            for (int32_t j = 0; j < k; j++) /* unique after sanitising */
                if (strcmp(h->name[j], buf) == 0) {
                    size_t l = strlen(buf);
                    snprintf(buf + (l < 80 ? l : 80), 16, "-%d", (int)k);
                    j = -1;
                }
            if (!(h->name[k] = strdup(buf))) {
                free(raw);
                return -1;
            }
        }
        h->of[r] = k;
        h->count[k]++;
    }
    free(raw);
    return 0;
}

typedef struct netp { /* what the platform says of the network */
    const pnm_model_t *m; /* one-way piecewise Hockney, NULL: none (defaults) */
    double lat_ref, bw_ref; /* of the pooled fit: segment 0's a, the last segment's b */
} netp_t;

/* A source's link: latency (s) and bandwidth (B/s). */
static void link_of(const netp_t *np, int32_t src, double *lat, double *bw)
{
    *lat = 1e-6, *bw = 1.25e9; /* no probe: 1 us, 10 Gb/s (said on stderr) */
    if (!np->m)
        return;
    const pnm_hockney_src_t *h = src >= 0 && src < np->m->nranks && np->m->hock[src].nseg
                                     ? &np->m->hock[src] : &np->m->hock_all;
    if (h->nseg <= 0)
        return;
    double a = h->a[0], b = h->b[h->nseg - 1];
    *lat = a > 0 ? a * 1e-9 : 0;
    *bw = b > 1e-6 ? 1e9 / b : 1e15;
}

/* SMPI's "size:factor;..." (a factor applies above its size): the pooled fit's segments
 * relative to the links' reference, so that a link's time is the fit's a + b n segment by
 * segment (exact for the pooled fit, the shape of it for each source). */
static void factors(FILE *f, const pnm_hockney_src_t *h, int lat)
{
    double ref = lat ? h->a[0] : h->b[h->nseg - 1];
    for (int s = 0; s < h->nseg; s++) {
        double v = lat ? h->a[s] : h->b[s], fac;
        if (lat)
            fac = ref > 0 && v > 0 ? v / ref : (v > 0 ? 1 : 0);
        else
            fac = ref > 1e-6 && v > 1e-6 ? ref / v : 1;
        fprintf(f, "%s%" PRIu64 ":%.6g", s ? ";" : "", s ? h->hi[s - 1] : (uint64_t)0, fac);
    }
}

static void write_platform(FILE *f, const hosts_t *h, const netp_t *np, const char *src)
{
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
               "\"https://simgrid.org/simgrid.dtd\">\n"
               "<!-- phasor export simgrid version %d, for SimGrid 3.32. Hosts: the run's, "
               "1 Gflop/s (1 flop = 1 ns of the log), a core per rank. Links: piecewise Hockney "
               "fitted to %s, one per ordered pair of hosts and one loopback per host. -->\n"
               "<platform version=\"4.1\">\n  <config>\n", SG_VERSION, src);
    if (np->m && np->m->hock_all.nseg > 0) {
        fputs("    <prop id=\"smpi/lat-factor\" value=\"", f);
        factors(f, &np->m->hock_all, 1);
        fputs("\"/>\n    <prop id=\"smpi/bw-factor\" value=\"", f);
        factors(f, &np->m->hock_all, 0);
        fputs("\"/>\n", f);
    } else
        fputs("    <prop id=\"smpi/lat-factor\" value=\"0:1\"/>\n"
              "    <prop id=\"smpi/bw-factor\" value=\"0:1\"/>\n", f);
    /* the log's gaps already hold what a test or probe cost */
    fputs("    <prop id=\"smpi/test\" value=\"0\"/>\n    <prop id=\"smpi/iprobe\" value=\"0\"/>\n"
          "  </config>\n  <zone id=\"phasor\" routing=\"Full\">\n", f);
    for (int32_t i = 0; i < h->n; i++)
        fprintf(f, "    <host id=\"%s\" speed=\"1Gf\" core=\"%d\"/>\n", h->name[i],
                (int)h->count[i]);
    for (int32_t i = 0; i < h->n; i++)
        for (int32_t j = 0; j < h->n; j++) {
            double lat, bw;
            link_of(np, h->first[i], &lat, &bw);
            fprintf(f, "    <link id=\"%s%s%s\" bandwidth=\"%.9gBps\" latency=\"%.9gs\"/>\n",
                    i == j ? "loop-" : h->name[i], i == j ? "" : "->",
                    i == j ? h->name[i] : h->name[j], bw, lat);
        }
    for (int32_t i = 0; i < h->n; i++)
        for (int32_t j = 0; j < h->n; j++)
            fprintf(f, "    <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"%s%s%s\"/>"
                       "</route>\n", h->name[i], h->name[j], i == j ? "loop-" : h->name[i],
                    i == j ? "" : "->", i == j ? h->name[i] : h->name[j]);
    fputs("  </zone>\n</platform>\n", f);
}

static void write_run(FILE *f, int32_t nr)
{
    fprintf(f, "#!/bin/sh\n# phasor export simgrid version %d: replay this directory with "
               "SimGrid 3.32's SMPI.\n# REPLAY: a replay program (bench/simgrid/replay.cpp), "
               "default SimGrid's own smpireplaymain.\nset -e\ncd \"$(dirname \"$0\")\"\n"
               "exec smpirun -np %d -platform platform.xml -hostfile hostfile -replay traces.txt "
               "--cfg=network/model:SMPI --cfg=smpi/privatization:no "
               "--log=smpi_config.thres:warning --log=xbt_cfg.thres:warning ${REPLAY:-} \"$@\"\n",
            SG_VERSION, (int)nr);
}

/* The network: the run's probe fitted as piecewise Hockney, one way. */
static int load_net(plog_run_t *run, const hosts_t *h, pred_models_t *pm, netp_t *np,
                    char *src, size_t srclen)
{
    memset(np, 0, sizeof(*np));
    pnm_opts_t fit;
    memset(&fit, 0, sizeof(fit));
    plog_error_t err;
    snprintf(src, srclen, "no probe (defaults: 1 us, 1.25 GB/s)");
    if (pred_models_load(pm, run, NULL, "hockney", &fit, h->of, h->n, &err) != PLOG_OK) {
        fprintf(stderr, "phasor export: no network model from the run's probe (%s): links get "
                        "1 us and 1.25 GB/s\n", err.msg);
        return 0;
    }
    for (int i = 0; i < pm->n; i++)
        if (strcmp(pm->m[i].name, "hockney") == 0) {
            const pnm_model_t *m = pred_model_fit(&pm->m[i]);
            np->m = m ? pnm_way(m, 0) : NULL;
        }
    if (np->m && np->m->kind == PNM_HOCKNEY)
        snprintf(src, srclen, "the run's probe (%s)", pm->source);
    else
        np->m = NULL;
    return 1;
}

int phasor_export_simgrid(plog_run_t *run, const char *dir)
{
    int32_t nr = plog_run_world_size(run);
    int dirfd = ofile_dir_open(dir);
    if (dirfd < 0) {
        fprintf(stderr, "phasor export: %s: %s\n", dir,
                errno == ELOOP ? "a symbolic link that is not yours; not followed"
                               : strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    sgx_t x;
    memset(&x, 0, sizeof(x));
    x.run = run, x.nr = nr;
    hosts_t h;
    memset(&h, 0, sizeof(h));
    pred_models_t pm;
    memset(&pm, 0, sizeof(pm));
    int loaded = 0;
    uint64_t *v1 = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*v1));
    uint64_t *v2 = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*v2));
    int st = PHASOR_EXIT_OK;
    if (!v1 || !v2 || hosts_make(run, nr, &h) != 0) {
        fprintf(stderr, "phasor export: out of memory\n");
        st = PHASOR_EXIT_INPUT;
        goto out_h;
    }
    plog_error_t perr;
    if (wr_probe_spans(run, &x.probes, &x.nprobes, &perr) != PLOG_OK) {
        fprintf(stderr, "phasor export: %s\n", perr.msg);
        st = PHASOR_EXIT_INPUT;
        goto out_h;
    }
    for (x.me = 0; x.me < nr && st == PHASOR_EXIT_OK; x.me++)
        if (plog_run_rank(run, x.me))
            st = write_rank(&x, dirfd, dir, v1, v2);
    if (st != PHASOR_EXIT_OK)
        goto out_h;
    netp_t np;
    char src[600];
    loaded = load_net(run, &h, &pm, &np, src, sizeof(src));
    ofile_t of;
    /* the list last: a directory with traces.txt is a complete export */
    static const char *const names[] = {"platform.xml", "hostfile", "run.sh", "traces.txt"};
    for (size_t k = 0; k < 4 && st == PHASOR_EXIT_OK; k++) {
        if (sg_open(dirfd, dir, names[k], &of) != 0) {
            st = PHASOR_EXIT_INPUT;
            break;
        }
        if (k == 0)
            write_platform(of.f, &h, &np, src);
        else if (k == 1)
            for (int32_t r = 0; r < nr; r++)
                fprintf(of.f, "%s\n", h.name[h.of[r]]);
        else if (k == 2)
            write_run(of.f, nr);
        else
            for (int32_t r = 0; r < nr; r++)
                fprintf(of.f, "rank-%06d.txt\n", (int)r);
        if (sg_close(&of, dir, names[k], 1) != 0)
            st = PHASOR_EXIT_INPUT;
        else if (k == 2)
            fchmodat(dirfd, names[k], 0755, 0);
    }
    if (st == PHASOR_EXIT_OK)
        for (int k = 0; k < AX_N; k++)
            if (x.ax[k])
                fprintf(stderr, "phasor export: warning: %" PRIu64 " %s\n", x.ax[k], ax_what[k]);
out_h:
    free(x.probes);
    hosts_free(&h);
    if (loaded)
        pred_models_free(&pm);
    free(v1), free(v2), free(x.rv), free(x.oq), free(x.ofree);
    close(dirfd);
    return st;
}
