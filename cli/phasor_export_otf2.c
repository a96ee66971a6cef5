/* phasor_export_otf2.c: `phasor export --format otf2`: the log as an OTF2 archive written by
 * libotf2 (doc/export-format.md). Events stream from the merged iterator to one event writer
 * per (rank, thread); libotf2 flushes their chunks to disk, so memory stays bounded by the
 * number of locations, not the length of the log. Built only when configure found libotf2. */
#define _GNU_SOURCE /* nftw */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_cmd.h"
#include "phasor_export.h"
#include "plog_reader.h"
#include "vec.h"

#ifdef HAVE_OTF2
#include <ftw.h>
#include <otf2/otf2.h>
#include <sys/stat.h>
#include <unistd.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool fin)
{
    (void)u, (void)ft, (void)l, (void)c, (void)fin;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u, (void)ft, (void)l;
    return 0;
}
static const OTF2_FlushCallbacks flush_cbs = {pre_flush, post_flush};

/* Event chunks per location in memory: refusing a further one makes libotf2 flush the
 * buffer to its file, which bounds the memory by the number of locations. */
#define OX_EVT_CHUNKS 2

typedef struct chunks {
    void *head; /* chunks linked through their first word, data after 16 bytes */
    unsigned n;
} chunks_t;

static void *mem_alloc(void *u, OTF2_FileType ft, OTF2_LocationRef l, void **pb, uint64_t size)
{
    (void)u, (void)l;
    chunks_t *c = *pb;
    if (!c && !(c = *pb = calloc(1, sizeof(*c))))
        return NULL;
    if (ft == OTF2_FILETYPE_EVENTS && c->n >= OX_EVT_CHUNKS)
        return NULL;
    char *p = malloc(16 + (size_t)size);
    if (!p)
        return NULL;
    *(void **)p = c->head;
    c->head = p;
    c->n++;
    return p + 16;
}

static void mem_free_all(void *u, OTF2_FileType ft, OTF2_LocationRef l, void **pb, bool final)
{
    (void)u, (void)ft, (void)l;
    chunks_t *c = *pb;
    if (!c)
        return;
    for (void *p = c->head, *nx; p; p = nx) {
        nx = *(void **)p;
        free(p);
    }
    c->head = NULL;
    c->n = 0;
    if (final) {
        free(c);
        *pb = NULL;
    }
}
static const OTF2_MemoryCallbacks mem_cbs = {mem_alloc, mem_free_all};

typedef struct loc {
    int32_t rank;
    uint16_t thread;
    OTF2_EvtWriter *w;
    uint64_t nev;
    int64_t last;               /* last timestamp written (OTF2 wants them non-decreasing) */
    int pending;                /* a call's Leave waits for the steps nested in it */
    uint32_t p_region;
    int64_t p_end;
    int p_coll;                 /* the pending call is a collective: its End record too */
    OTF2_CollectiveOp p_op;
    int32_t p_comm, p_root;
    uint64_t p_sent, p_recv;
} loc_t;

static const struct { const char *name; OTF2_CollectiveOp op; } coll_ops[] = {
    {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER}, {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST},
    {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER}, {"MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
    {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER}, {"MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
    {"MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
    {"MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
    {"MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL}, {"MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
    {"MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
    {"MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE}, {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE},
    {"MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
    {"MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
    {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN}, {"MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
};

static int coll_op(const char *name, OTF2_CollectiveOp *op)
{
    for (size_t i = 0; i < sizeof(coll_ops) / sizeof(coll_ops[0]); i++)
        if (strcmp(coll_ops[i].name, name) == 0) {
            *op = coll_ops[i].op;
            return 1;
        }
    return 0;
}

typedef struct ox {
    plog_run_t *run;
    OTF2_Archive *ar;
    int64_t bias;               /* OTF2 timestamps are unsigned: ns - first start */
    int started;                /* bias is set */
    const char *dir;            /* the archive's, for messages */
    int64_t tmax;
    loc_t *locs;
    size_t nlocs, loccap;
    uint32_t region_of[65536];  /* by call id: region ref + 1, 0 = not defined yet */
    const char *region_name[65537]; /* by region ref; 0 is "step" */
    uint32_t nregions;
    OTF2_AttributeList *attrs;  /* a run of polls' attributes on its Enter */
    int polls;                  /* a run of polls was written: its attributes are defined */
} ox_t;

/* The attributes of a run of polls (PLOG_F_POLLS), defined when the archive has one. */
enum { OX_ATTR_NCALLS = 0, OX_ATTR_INSIDE_NS = 1 };

static OTF2_TimeStamp ts(ox_t *x, loc_t *l, int64_t ns)
{
    if (ns < l->last)
        ns = l->last;
    l->last = ns;
    if (ns > x->tmax)
        x->tmax = ns;
    return (OTF2_TimeStamp)(ns - x->bias); /* fits: the reader bounds times (log-format.md) */
}

static loc_t *loc_of(ox_t *x, int32_t rank, uint16_t thread)
{
    for (size_t i = 0; i < x->nlocs; i++)
        if (x->locs[i].rank == rank && x->locs[i].thread == thread)
            return &x->locs[i];
    if (VEC_GROW(x->locs, x->loccap, x->nlocs + 1) != 0)
        return NULL;
    loc_t *l = &x->locs[x->nlocs];
    memset(l, 0, sizeof(*l));
    l->rank = rank, l->thread = thread, l->last = INT64_MIN;
    l->w = OTF2_Archive_GetEvtWriter(x->ar, ((uint64_t)(uint32_t)rank << 16) | thread);
    if (!l->w)
        return NULL;
    x->nlocs++;
    return l;
}

/* rank of a world rank in an intracommunicator, or -1 */
static int32_t comm_rank(ox_t *x, int32_t comm, int32_t world)
{
    const plog_gcomm_t *g = comm > 0 ? plog_run_comm(x->run, comm) : NULL;
    if (!g || g->n_remote > 0 || world < 0)
        return -1;
    for (uint32_t i = 0; i < g->n_members; i++)
        if (g->members[i] == world)
            return (int32_t)i;
    return -1;
}

static int comm_ok(ox_t *x, int32_t comm)
{
    const plog_gcomm_t *g = comm > 0 ? plog_run_comm(x->run, comm) : NULL;
    return g && g->n_remote == 0;
}

static void flush_pending(ox_t *x, loc_t *l)
{
    if (!l->pending)
        return;
    OTF2_TimeStamp t = ts(x, l, l->p_end);
    if (l->p_coll) {
        OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, t, l->p_op, (OTF2_CommRef)(l->p_comm - 1),
                                        l->p_root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)l->p_root,
                                        l->p_sent, l->p_recv);
        l->nev++;
    }
    OTF2_EvtWriter_Leave(l->w, NULL, t, l->p_region);
    l->nev++;
    l->pending = 0;
    l->p_coll = 0;
}

static void event(ox_t *x, loc_t *l, const plog_rec_t *e)
{
    if (e->cls == PLOG_CLASS_STEP) { /* nested inside the pending collective */
        OTF2_EvtWriter_Enter(l->w, NULL, ts(x, l, e->start_ns), 0);
        OTF2_EvtWriter_Leave(l->w, NULL, ts(x, l, e->end_ns), 0);
        l->nev += 2;
        return;
    }
    flush_pending(x, l);
    /* OTF2 wants dense references in definition order: regions numbered as first seen */
    if (!x->region_of[e->call]) {
        x->region_name[x->nregions] = e->call_name;
        x->region_of[e->call] = ++x->nregions;
    }
    uint32_t region = x->region_of[e->call];
    OTF2_TimeStamp t0 = ts(x, l, e->start_ns);
    /* a run of polls: one region from the first poll's start to the last one's end, with
     * its calls and the ns inside them as attributes */
    OTF2_AttributeList *al = NULL;
    if (e->ncalls > 1 && (x->attrs != NULL || (x->attrs = OTF2_AttributeList_New()) != NULL)) {
        OTF2_AttributeList_AddUint64(x->attrs, OX_ATTR_NCALLS, e->ncalls);
        OTF2_AttributeList_AddUint64(x->attrs, OX_ATTR_INSIDE_NS, e->inside_ns);
        al = x->attrs;
        x->polls = 1;
    }
    OTF2_EvtWriter_Enter(l->w, al, t0, region);
    l->nev++;
    int32_t cr;
    switch (e->cls) {
    case PLOG_CLASS_SEND:
    case PLOG_CLASS_SENDRECV:
        if ((cr = comm_rank(x, e->comm, e->peer)) >= 0 && e->tag >= 0) {
            OTF2_EvtWriter_MpiSend(l->w, NULL, t0, (uint32_t)cr, (OTF2_CommRef)(e->comm - 1),
                                   (uint32_t)e->tag, e->bytes);
            l->nev++;
        }
        break;
    case PLOG_CLASS_ISEND:
        if ((cr = comm_rank(x, e->comm, e->peer)) >= 0 && e->tag >= 0) {
            OTF2_EvtWriter_MpiIsend(l->w, NULL, t0, (uint32_t)cr, (OTF2_CommRef)(e->comm - 1),
                                    (uint32_t)e->tag, e->bytes, e->request);
            l->nev++;
        }
        break;
    case PLOG_CLASS_IRECV:
        if (comm_ok(x, e->comm) && e->request) {
            OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, t0, e->request);
            l->nev++;
        }
        break;
    case PLOG_CLASS_COLL:
        if (comm_ok(x, e->comm)) {
            OTF2_CollectiveOp op;
            if (coll_op(e->call_name, &op)) {
                OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, t0);
                l->nev++;
                l->p_coll = 1, l->p_op = op, l->p_comm = e->comm;
                l->p_root = e->root >= 0 ? comm_rank(x, e->comm, e->root) : -1;
                l->p_sent = e->bytes, l->p_recv = e->rbytes;
            }
        }
        break;
    default:
        break;
    }
    int64_t end = e->end_ns;
    /* receive side, at the end of the call where it completed */
    if (e->cls == PLOG_CLASS_RECV || e->cls == PLOG_CLASS_SENDRECV) {
        int32_t src = e->n_status > 0 && e->status[0].source >= 0 ? e->status[0].source : e->peer;
        int32_t tag = e->n_status > 0 && e->status[0].tag >= 0 ? e->status[0].tag : e->tag;
        uint64_t b = e->n_status > 0 && e->status[0].bytes != PLOG_BYTES_UNKNOWN
                         ? e->status[0].bytes : e->rbytes;
        if (e->cls == PLOG_CLASS_SENDRECV) /* its receive half: only the status names it */
            src = e->n_status > 0 ? e->status[0].source : -1;
        if ((cr = comm_rank(x, e->comm, src)) >= 0 && tag >= 0) {
            OTF2_EvtWriter_MpiRecv(l->w, NULL, ts(x, l, end), (uint32_t)cr, (OTF2_CommRef)(e->comm - 1),
                                   (uint32_t)tag, b);
            l->nev++;
        }
    } else if (e->cls == PLOG_CLASS_COMPLETE) {
        for (uint32_t i = 0; i < e->n_status; i++) {
            const plog_rstatus_t *st = &e->status[i];
            if (!st->start || st->cancelled || !comm_ok(x, st->start->comm))
                continue;
            if (st->start->cls == PLOG_CLASS_ISEND &&
                comm_rank(x, st->start->comm, st->start->peer) >= 0) {
                OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, ts(x, l, end), st->start->id);
                l->nev++;
            } else if (st->start->cls == PLOG_CLASS_IRECV) {
                int32_t src = st->source >= 0 ? st->source : st->start->peer;
                int32_t tag = st->tag >= 0 ? st->tag : st->start->tag;
                if ((cr = comm_rank(x, st->start->comm, src)) >= 0 && tag >= 0) {
                    OTF2_EvtWriter_MpiIrecv(l->w, NULL, ts(x, l, end), (uint32_t)cr,
                                            (OTF2_CommRef)(st->start->comm - 1), (uint32_t)tag,
                                            st->bytes == PLOG_BYTES_UNKNOWN ? 0 : st->bytes,
                                            st->start->id);
                    l->nev++;
                }
            }
        }
    }
    l->pending = 1;
    l->p_region = region;
    l->p_end = end;
}

static uint32_t def_string(OTF2_GlobalDefWriter *g, uint32_t *next, const char *s)
{
    OTF2_GlobalDefWriter_WriteString(g, *next, s);
    return (*next)++;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(path) != 0 && errno != ENOENT;
}

/* A failed export leaves no partial archive: what libotf2 made in dir (traces.otf2,
 * traces.def, traces/) goes, and dir itself when this export created it. The directory held
 * no archive before (checked), so all of that is this export's. */
static void remove_archive(const char *dir, int made)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s/traces", dir);
    nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(p, sizeof(p), "%s/traces.otf2", dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/traces.def", dir);
    unlink(p);
    if (made)
        rmdir(dir);
}

static int write_defs(ox_t *x)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->ar);
    if (!g)
        return -1;
    int64_t len = x->tmax > x->bias ? x->tmax - x->bias : 0;
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, (uint64_t)len,
                                              OTF2_UNDEFINED_TIMESTAMP);
    uint32_t s = 0;
    uint32_t s_empty = def_string(g, &s, "");
    uint32_t s_mpi = def_string(g, &s, "MPI");
    OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS);
    uint32_t s_step = def_string(g, &s, "step");
    OTF2_GlobalDefWriter_WriteRegion(g, 0, s_step, s_step, s_step, OTF2_REGION_ROLE_COLL_OTHER,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, s_empty, 0, 0);
    for (uint32_t r = 1; r <= x->nregions; r++) {
        uint32_t n = def_string(g, &s, x->region_name[r - 1]);
        OTF2_GlobalDefWriter_WriteRegion(g, r, n, n, s_empty, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, s_empty, 0, 0);
    }
    if (x->polls) { /* names, then descriptions: the strings in a fixed order */
        uint32_t n_calls = def_string(g, &s, "ncalls");
        uint32_t d_calls = def_string(g, &s, "the calls a run of unsuccessful polls stands for");
        uint32_t n_inside = def_string(g, &s, "inside_ns");
        uint32_t d_inside = def_string(g, &s, "ns spent inside those calls (the rest of the "
                                              "region was the application's)");
        OTF2_GlobalDefWriter_WriteAttribute(g, OX_ATTR_NCALLS, n_calls, d_calls,
                                            OTF2_TYPE_UINT64);
        OTF2_GlobalDefWriter_WriteAttribute(g, OX_ATTR_INSIDE_NS, n_inside, d_inside,
                                            OTF2_TYPE_UINT64);
    }
    uint32_t s_node = def_string(g, &s, "machine");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_node, s_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    int32_t nr = plog_run_world_size(x->run);
    for (int32_t r = 0; r < nr; r++) {
        char nm[48];
        snprintf(nm, sizeof(nm), "rank %d", (int)r);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, def_string(g, &s, nm),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (size_t i = 0; i < x->nlocs; i++) {
        char nm[48];
        snprintf(nm, sizeof(nm), "rank %d thread %u", (int)x->locs[i].rank,
                 (unsigned)x->locs[i].thread);
        OTF2_GlobalDefWriter_WriteLocation(
            g, ((uint64_t)(uint32_t)x->locs[i].rank << 16) | x->locs[i].thread,
            def_string(g, &s, nm), OTF2_LOCATION_TYPE_CPU_THREAD, x->locs[i].nev,
            (uint32_t)x->locs[i].rank);
    }
    /* MPI ranks are the threads 0 of the ranks; communicators are groups of world ranks */
    uint64_t *ml = malloc((size_t)(nr > 0 ? nr : 1) * sizeof(*ml));
    if (!ml)
        return -1;
    for (int32_t r = 0; r < nr; r++)
        ml[r] = (uint64_t)(uint32_t)r << 16;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, def_string(g, &s, "MPI_COMM_WORLD locations"),
                                    OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)nr, ml);
    free(ml);
    size_t nc = plog_run_ncomms(x->run);
    for (size_t c = 1; c <= nc; c++) {
        const plog_gcomm_t *gc = plog_run_comm(x->run, (int32_t)c);
        if (!gc || gc->n_remote > 0)
            continue;
        uint64_t *m = malloc((gc->n_members ? gc->n_members : 1) * sizeof(*m));
        if (!m)
            return -1;
        for (uint32_t i = 0; i < gc->n_members; i++)
            m[i] = (uint64_t)(uint32_t)gc->members[i];
        char nm[48];
        snprintf(nm, sizeof(nm), c == 1 ? "MPI_COMM_WORLD" : "comm %zu", c);
        uint32_t sn = def_string(g, &s, nm);
        OTF2_GlobalDefWriter_WriteGroup(g, (uint32_t)c, sn, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, gc->n_members, m);
        free(m);
        const plog_gcomm_t *gp = gc->parent > 0 ? plog_run_comm(x->run, gc->parent) : NULL;
        OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)c - 1, sn, (uint32_t)c,
                                       gp && gp->n_remote == 0 && gc->parent < (int32_t)c
                                           ? (uint32_t)gc->parent - 1
                                           : OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
    }
    return 0;
}

/* The archive in dir, opened for its events: refused where one is already (libotf2 would
 * half-write into it). *made: dir was created here. PHASOR_EXIT_OK or the exit status. */
static int ox_create(ox_t *x, const char *dir, int *made)
{
    char probe[4096];
    struct stat sb;
    snprintf(probe, sizeof(probe), "%s/traces.otf2", dir);
    if (stat(probe, &sb) == 0) {
        fprintf(stderr, "phasor export: %s: holds an OTF2 archive already; give a new "
                        "directory\n", dir);
        return PHASOR_EXIT_INPUT;
    }
    *made = mkdir(dir, 0777) == 0;
    if (!*made && errno != EEXIST) {
        fprintf(stderr, "phasor export: %s: cannot create: %s\n", dir, strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    x->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!x->ar) {
        fprintf(stderr, "phasor export: %s: cannot create the OTF2 archive (does it exist "
                        "already, or is its directory unwritable?)\n", dir);
        return PHASOR_EXIT_INPUT;
    }
    OTF2_Archive_SetFlushCallbacks(x->ar, &flush_cbs, NULL);
    OTF2_Archive_SetMemoryCallbacks(x->ar, &mem_cbs, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(x->ar);
    OTF2_Archive_SetCreator(x->ar, "phasor export");
    if (OTF2_Archive_OpenEvtFiles(x->ar) != OTF2_SUCCESS) {
        fprintf(stderr, "phasor export: %s: cannot create the OTF2 event files\n", dir);
        OTF2_Archive_Close(x->ar);
        return PHASOR_EXIT_INPUT;
    }
    return PHASOR_EXIT_OK;
}

/* One event to its location's writer; 0, or -1 when the writer cannot be had (said here).
 * The merged stream starts with the earliest event: its start is the timestamps' zero. */
static int ox_event(void *ctx, const plog_rec_t *e)
{
    ox_t *x = ctx;
    if (!x->started)
        x->bias = e->start_ns, x->started = 1;
    loc_t *l = loc_of(x, e->rank, e->thread);
    if (!l) {
        fprintf(stderr, "phasor export: %s: cannot open an OTF2 event writer\n", x->dir);
        return -1;
    }
    event(x, l, e);
    return 0;
}

/* Close the event writers and files, write the definitions (when status is still
 * PHASOR_EXIT_OK) and close the archive; the exit status. */
static int ox_finish(ox_t *x, const char *dir, int status)
{
    int failed = 0;
    for (size_t i = 0; i < x->nlocs; i++) {
        flush_pending(x, &x->locs[i]);
        if (OTF2_Archive_CloseEvtWriter(x->ar, x->locs[i].w) != OTF2_SUCCESS)
            failed = 1;
    }
    if (OTF2_Archive_CloseEvtFiles(x->ar) != OTF2_SUCCESS)
        failed = 1;
    if (failed && status == PHASOR_EXIT_OK) {
        fprintf(stderr, "phasor export: %s: writing the OTF2 events failed\n", dir);
        status = PHASOR_EXIT_INPUT;
    }
    /* readers expect a (here empty) local definition file per location */
    OTF2_Archive_OpenDefFiles(x->ar);
    for (size_t i = 0; i < x->nlocs; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(
            x->ar, ((uint64_t)(uint32_t)x->locs[i].rank << 16) | x->locs[i].thread);
        if (dw)
            OTF2_Archive_CloseDefWriter(x->ar, dw);
    }
    OTF2_Archive_CloseDefFiles(x->ar);
    if (status == PHASOR_EXIT_OK && write_defs(x) != 0) {
        fprintf(stderr, "phasor export: %s: writing the OTF2 definitions failed\n", dir);
        status = PHASOR_EXIT_INPUT;
    }
    if (OTF2_Archive_Close(x->ar) != OTF2_SUCCESS && status == PHASOR_EXIT_OK) {
        fprintf(stderr, "phasor export: %s: closing the OTF2 archive failed\n", dir);
        status = PHASOR_EXIT_INPUT;
    }
    return status;
}

int phasor_export_otf2(plog_run_t *run, const char *dir)
{
    static ox_t x;
    memset(&x, 0, sizeof(x));
    x.run = run;
    x.tmax = INT64_MIN;
    int made = 0;
    int status = ox_create(&x, dir, &made);
    if (status != PHASOR_EXIT_OK)
        return status;
    x.dir = dir;
    status = ox_finish(&x, dir, phasor_each_event("export", run, ox_event, &x));
    free(x.locs);
    if (x.attrs != NULL)
        OTF2_AttributeList_Delete(x.attrs);
    if (status != PHASOR_EXIT_OK)
        remove_archive(dir, made);
    return status;
}
#else
int phasor_export_otf2(plog_run_t *run, const char *dir)
{
    (void)run;
    fprintf(stderr, "phasor export: --format otf2 (%s): this phasor was built without OTF2 "
                    "(configure found no libotf2; install libotf2-trace-dev and reconfigure "
                    "--with-otf2)\n", dir);
    return PHASOR_EXIT_USAGE;
}
#endif
