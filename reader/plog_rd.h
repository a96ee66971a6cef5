/* plog_rd.h: what the reader's files (plog_rd_*.c) share; private to libplogread, not installed.
 *
 * Modules, one prefix each: warn_ (bounded warning lists), intern_ (interned rank lists),
 * clock_ (aligning one rank's times), frame_ (reading one frame), rank_ (one rank file),
 * comm_ (communicators and their matching across ranks), run_ (the run), stream_ (one rank's
 * events, merged across its threads), req_ (a stream's request table), rec_ (building a
 * record), iter_ (the merged iterator, plog_rd_iter.c). */
#ifndef PLOG_RD_H
#define PLOG_RD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "plog_calls.h"
#include "plog_codec.h"
#include "plog_error.h"
#include "plog_extras.h"
#include "plog_format.h"
#include "plog_reader.h"

/* What follows is internal: hidden, so that the library exports only its public API and calls
 * between its files (and into util/, linked in) are direct rather than through the PLT. */
#pragma GCC visibility push(hidden)

#include "hmap.h"
#include "vec.h"

/* ==== warn_: a bounded list of distinct warning lines ==================================== */

typedef struct warn_list {
    char **v;
    size_t n, cap;
    size_t dropped; /* lines not kept: past the limit, or out of memory */
} warn_list_t;

/* Append the formatted line unless it is already listed; past max lines, count it dropped. */
void warn_vadd(warn_list_t *w, size_t max, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
void warn_free(warn_list_t *w);

/* ==== intern_: each distinct rank list stored once ======================================= */

typedef struct intern_entry {
    int32_t *v;
    uint32_t n;
    uint32_t next; /* index + 1 of the next list with the same hash, 0 = none */
} intern_entry_t;

typedef struct intern {
    intern_entry_t *l;
    size_t n, cap;
    hmap_t map; /* list hash -> index + 1 of the latest list with that hash */
} intern_t;

/* The stored copy of v[0..n), added if new; NULL when out of memory. */
const int32_t *intern_list(intern_t *in, const int32_t *v, uint32_t n);
void intern_free(intern_t *in);

/* ==== clock_: aligned times of one rank, by stretches ==================================== */

/* A stretch of local time over which the aligned time is t + add. A drifting rank's offset
 * changes by 1 ns every (t1 - t0) / |o1 - o0| of local time (a millisecond at 1 ppm), so one
 * stretch covers thousands of events, each aligned with an add instead of a division. */
typedef struct clock_piece {
    uint64_t lo, hi; /* lo <= t < hi */
    int64_t add;
} clock_piece_t;

/* plog_clock_align(fit, t, ref), and in *pc the stretch around t where the same add holds
 * (empty, lo = hi = 0, when there is none to keep: the result saturated, or no 128-bit type). */
int64_t clock_align_piece(const plog_clockfit_t *fit, uint64_t t, uint64_t ref,
                          clock_piece_t *pc);

static inline int clock_in_piece(const clock_piece_t *pc, uint64_t t)
{
    return t - pc->lo < pc->hi - pc->lo; /* lo <= t < hi, in one compare */
}

/* Both ends of a call aligned: by adds when both lie in the stretch of *pc (per event). */
static inline void clock_align2(const plog_clockfit_t *fit, uint64_t ref, clock_piece_t *pc,
                                uint64_t t0, uint64_t t1, int64_t *a0, int64_t *a1)
{
    *a0 = __builtin_expect(clock_in_piece(pc, t0), 1) ? (int64_t)t0 + pc->add
                                                       : clock_align_piece(fit, t0, ref, pc);
    *a1 = __builtin_expect(clock_in_piece(pc, t1), 1) ? (int64_t)t1 + pc->add
                                                       : clock_align_piece(fit, t1, ref, pc);
}

/* ==== frame_: reading one frame of a rank file =========================================== */

typedef struct frame_zbufs { /* a decompression context and its input buffer, reused */
    ZSTD_DCtx *dctx;
    uint8_t *cbuf;
    size_t ccap;
} frame_zbufs_t;

/* pread all of len bytes at off, or fewer at the end of the file (*got says how many). */
plog_err_t frame_read_at(int fd, void *buf, size_t len, uint64_t off, size_t *got);
/* Read, check and decompress frame fx (already bounds-checked against the file) of the open
 * file fd into *raw (capacity *rawcap, grown as needed). */
plog_err_t frame_decompress(int fd, const char *path, uint32_t version,
                            const plog_frame_ix_t *fx, frame_zbufs_t *z, uint8_t **raw,
                            size_t *rawcap, plog_error_t *err);
/* The same, opening and closing path around it. */
plog_err_t frame_load(const char *path, uint32_t version, const plog_frame_ix_t *fx,
                      frame_zbufs_t *z, uint8_t **raw, size_t *rawcap, plog_error_t *err);
void frame_zbufs_free(frame_zbufs_t *z);

/* ==== rank_ and run_: the run and its rank files ========================================= */

#define RUN_MAX_WARNINGS 200 /* run warnings kept; the rest are counted */

enum run_callf { /* what the reader needs to know of a call id (run->call_flags) */
    CALLF_KNOWN = 1,
    CALLF_TEST = 2,      /* MPI_Test* but Test_cancelled */
    CALLF_ALL = 4,       /* ...all */
    CALLF_GETSTATUS = 8, /* MPI_Request_get_status: names its request, completes nothing */
    CALLF_CANCEL = 16,
    CALLF_ARRAY = 32,    /* ...all, ...any, ...some */
    CALLF_NAMES = 64,    /* MPI_Grequest_complete: names its request, as Cancel, no more */
    CALLF_POLL = 128     /* may stand for a run of polls (PLOG_F_POLLS): Test, Testany,
                          * Testall, Testsome, Iprobe, Improbe, Request_get_status */
};

/* The first log format whose flag 1 << 14 is PLOG_F_POLLS (bit 14 means nothing before). */
#define RD_VERSION_POLLS 11u

typedef struct rank_priv {
    plog_rank_t pub;
    char *path;
    plog_frame_ix_t *frames;
    size_t frames_cap;
    plog_sync_sample_t *sync;
    size_t sync_cap;
    plog_lcomm_t *comms;
    size_t comms_cap;
    const int32_t **set_local, **set_remote; /* sorted member sets, parallel to comms */
    char *kv;
    size_t kv_cap;
    unsigned clockfit_flags;
    plog_drops_t drops; /* plog_rank_drops */
} rank_priv_t;

/* The largest world a rank file read alone may claim (doc/log-format.md, "Limits"): the
 * per-world arrays of the reader and of the analyses follow the header's world size, which
 * nothing in one file can confirm. A directory's world is confirmed by its files. */
#define PLOG_MAX_WORLD_ALONE (1 << 17)

struct plog_run {
    char *path;
    int is_dir;
    int64_t world_max;    /* the largest world size a header may say (rank_load) */
    const int32_t *found_ranks; /* a directory's rank files, sorted (while it is opened) */
    size_t n_found;
    int32_t world_size;
    rank_priv_t **ranks;  /* [world_size], NULL when not loaded */
    int32_t n_loaded;
    uint64_t time_ref;
    plog_gcomm_t *gcomms; /* [0] unused; ids 1..n_gcomms */
    size_t n_gcomms, gcomms_cap;
    intern_t intern;
    const int32_t *empty;
    uint8_t call_cls[65536];  /* class + 1, 0 = unknown call id */
    uint8_t call_complete[65536]; /* 1: a completion (extras skipped under PLOG_ITER_NOLINK) */
    uint8_t call_complete_nopoll[65536]; /* the same without the completions that poll: from
                                          * format 11 their POLLS words are read */
    uint8_t call_flags[65536];    /* enum run_callf */
    const char *call_name[PLOG_CALL__MAX]; /* plog_call_name() without a call per event */
    warn_list_t warn;
};

void run_warn(plog_run_t *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What each rank lost (plog_rank_drops): its tail's counters and the markers the shim leaves
 * beside the logs when a write fails; one warning per rank that lost events. */
void run_read_drops(plog_run_t *run);

/* Read one rank file: header, frame index, and the small frames (communicators, clock
 * samples, key=value strings). */
plog_err_t rank_load(plog_run_t *run, const char *path, rank_priv_t **out, frame_zbufs_t *z,
                     plog_error_t *err);
void rank_free(rank_priv_t *rp);

/* ==== comm_: communicators =============================================================== */

/* Add the definitions of a COMMS frame to the rank's table. */
plog_err_t comm_parse_frame(plog_run_t *run, rank_priv_t *rp, const plog_frame_ix_t *fx,
                            const uint8_t *raw, plog_error_t *err);
/* After the rank's file is read: the predefined communicators, sorted by id, member sets. */
plog_err_t comm_finish_rank(plog_run_t *run, rank_priv_t *rp, plog_error_t *err);
/* Match the ranks' communicators into the run's, giving every one its global id. */
plog_err_t comm_match(plog_run_t *run, plog_error_t *err);
const plog_lcomm_t *comm_find(const plog_rank_t *rk, uint32_t local_id);

/* Rank r of lc (of its remote group if inter) as a world rank; specials pass through. */
static inline int32_t comm_world(const plog_lcomm_t *lc, int inter, int32_t r)
{
    if (r == PLOG_NONE || r == PLOG_ANY_SOURCE || r == PLOG_PROC_NULL || r == PLOG_ROOT_ROOT)
        return r;
    if (lc == NULL || r < 0)
        return PLOG_R_BADRANK;
    uint32_t n = inter ? lc->n_remote : lc->n_local;
    const int32_t *v = inter ? lc->remote : lc->local;
    return (uint32_t)r < n ? v[r] : PLOG_R_BADRANK;
}

/* ==== req_: a stream's request table ===================================================== */

/* An entry: an open start, a persistent definition, or a matched-probe message. */
typedef struct req_ent {
    uint64_t handle;
    uint32_t next;        /* open: index + 1 of the next entry with the same handle;
                             free: the next free entry */
    uint8_t inter;
    uint8_t uncertain;    /* named by a completion that failed: it may have ended unseen */
    uint8_t cancelled;    /* an MPI_Cancel named it */
    uint16_t thread;      /* thread that started it */
    uint64_t picked;      /* serial of the event that last named it (see req_open_choose) */
    const plog_lcomm_t *lc;
    uint64_t t_end;
    plog_reqinfo_t info;
} req_ent_t;

typedef struct req_tab {
    hmap_t open, pers;    /* handle -> entry index + 1 (open: head of the handle's chain) */
    hmap_t msgs;          /* message handle -> entry index + 1 */
    req_ent_t *pool;
    size_t npool, cappool;
    uint32_t freelist;    /* index + 1 */
    uint64_t serial;      /* events that named requests (marks entries named in one event) */
    uint64_t orphans;     /* open starts given up (their handle was reused) */
} req_tab_t;

#define REQ_NONE UINT32_MAX /* no entry */

/* The open start a completion at time t on `thread` refers to (see plog_rd_req.c), REQ_NONE
 * if none; *slotp: the handle's slot, for req_open_close_at. */
uint32_t req_open_choose(req_tab_t *q, uint64_t handle, uint64_t t, uint16_t thread, int fifo,
                         size_t *slotp);
/* Close open start i, found at slot (SIZE_MAX: look it up). */
void req_open_close_at(req_tab_t *q, uint32_t i, size_t slot);
/* A new open start of handle, its info left for the caller to fill; NULL: out of memory. */
plog_reqinfo_t *req_open_new(req_tab_t *q, uint64_t handle, const plog_lcomm_t *lc, int inter,
                             uint64_t t_end, uint16_t thread);
uint64_t req_open_count(const req_tab_t *q);
/* A persistent definition of handle (replacing any), info copied; -1: out of memory. */
int req_pers_put(req_tab_t *q, uint64_t handle, const plog_lcomm_t *lc, int inter,
                 uint64_t t_end, uint16_t thread, const plog_reqinfo_t *info);
const req_ent_t *req_pers_get(const req_tab_t *q, uint64_t handle);
void req_pers_drop(req_tab_t *q, uint64_t handle);
/* Message handles (MPI_Message) from Mprobe/Improbe, until Mrecv/Imrecv consumes them. */
int req_msg_put(req_tab_t *q, uint64_t h, const plog_lcomm_t *lc, int inter, uint64_t id);
int req_msg_take(req_tab_t *q, uint64_t h, uint64_t *id, const plog_lcomm_t **lc, int *inter);
void req_free(req_tab_t *q);

/* ==== stream_: one rank's events, merged across its threads ============================== */

typedef struct tstream {  /* one thread of one rank, frame after frame */
    uint16_t thread;
    uint32_t *fidx;       /* indices of its EVENTS frames in the rank's frame table */
    size_t nf, fcap, next;
    uint64_t frame_off;
    uint8_t *raw;
    size_t rawcap;
    plog_events_dec_t dec;
    int active, have;
    const plog_event_t *head; /* head event: in bev, or ev */
    const uint64_t *headx;    /* its extras */
    plog_event_t ev;      /* decoded one by one (damage, huge extras) */
    uint64_t *x;
    size_t xcap;
    plog_event_t *bev;    /* decoded in bulk: bev[bpos..bn) are next */
    uint32_t *bxoff;      /* extras of bev[k]: bx + bxoff[k] */
    uint64_t *bx;
    size_t bxcap;
    uint32_t bn, bpos;
} tstream_t;

/* Warning categories of a stream: counted, the first of each described. */
enum stream_wcat { W_UNMATCHED, W_START_NODEF, W_BADRANK, W_UNKNOWN_COMM, W_UNDEF_COMM,
                   W_UNKNOWN_CALL, W_CUT, W_NEWCOMM, W_ORPHAN, W_CANCEL, W_PROCNULL, W_POLLS,
                   W__COUNT };

typedef struct stream_stord { uint64_t index; uint32_t pos; } stream_stord_t;

typedef struct rstream {
    plog_run_t *run;
    const rank_priv_t *rp;
    const plog_rank_t *rk;
    frame_zbufs_t *z;
    tstream_t *ts;
    size_t nts, tscap;
    uint32_t *heap;       /* of ts indices, by head start time */
    size_t nheap;
    tstream_t *pending;   /* returned last time: advance before the next pop */
    int started, done;
    int nolink;           /* PLOG_ITER_NOLINK: no open-request table */
    uint16_t fmask;       /* the flags this rank's format defines (bit 14 from format 11) */
    req_tab_t req;
    uint64_t next_id, next_msg_id;
    stream_stord_t *ord;  /* statuses in index order */
    size_t ordcap;
    const plog_lcomm_t *lc_cache;
    clock_piece_t clk;    /* the stretch of local time aligned last */
    /* record scratch */
    plog_rec_t rec;
    plog_reqinfo_t rinfo;
    plog_rreq_t *hv;
    plog_rstatus_t *sv;
    plog_reqinfo_t *iv;
    size_t hcap, scap, icap;
    uint64_t wcount[W__COUNT];
    char wfirst[W__COUNT][160];
} rstream_t;

rstream_t *stream_new(plog_run_t *run, int32_t rank, frame_zbufs_t *z);
void stream_free(rstream_t *s);
/* The next record of the rank in *rec, NULL at the end. */
plog_err_t stream_next(rstream_t *s, const plog_rec_t **rec, plog_error_t *err);
/* Fold the stream's warning counts into the run. */
void stream_report(rstream_t *s);
/* Count a warning of category c, describing it if it is the first. */
void stream_warn(rstream_t *s, enum stream_wcat c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
plog_err_t stream_error(rstream_t *s, plog_err_t code, uint64_t off, plog_error_t *err,
                        const char *what);

/* ==== rec_: building a record ============================================================ */

/* s->rec from t's head event ev with its extras x (per event). */
plog_err_t rec_build(rstream_t *s, tstream_t *t, const plog_event_t *ev, const uint64_t *x,
                     plog_error_t *err);

#pragma GCC visibility pop

#endif
