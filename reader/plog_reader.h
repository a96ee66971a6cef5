/* plog_reader.h: read a phasor log (a directory of rank files, or one file) as events with
 * world ranks, global communicator ids, linked requests and aligned times, in bounded memory.
 *
 * Links zstd and zlib, never MPI. Library code never prints: every function that can fail
 * returns a plog_err_t and fills an optional caller-supplied plog_error_t with a one-line
 * message naming the file and the byte offset. Warnings (data that is odd but readable) are
 * collected on the run and listed by plog_run_warning().
 *
 * Typical use:
 *     plog_error_t err;
 *     plog_run_t *run;
 *     if (plog_run_open(path, &run, &err) != PLOG_OK) { fprintf(stderr, "%s\n", err.msg); ... }
 *     plog_iter_t *it;
 *     plog_iter_open(run, rank_or_PLOG_ALL_RANKS, &it, &err);
 *     const plog_rec_t *e;
 *     while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL) { ...use e... }
 *     plog_iter_close(it);   // folds the iterator's warnings into the run
 *     plog_run_close(run);
 *
 * Cost model: plog_run_open reads every file's header, walks the frame headers (seeking past
 * payloads) and decodes only the small frames (communicators, clock samples, metadata).
 * EVENTS frames are decompressed lazily by the iterators: an iterator holds one decoded frame
 * per thread of each rank it reads, with its next events decoded in batches of 256.
 * Nothing here is shared between iterators except the read-only run, so iterators over
 * different ranks may run in different threads as long as their plog_iter_close() calls are
 * serialised. */
#ifndef PLOG_READER_H
#define PLOG_READER_H

#include <stddef.h>
#include <stdint.h>

#include "plog_error.h"
#include "plog_format.h"

/* ---- values the reader adds to the format's specials (PLOG_NONE ... PLOG_ROOT_ROOT) ---- */
#define PLOG_R_BADRANK (-5)       /* a rank that could not be translated (see the warnings) */
#define PLOG_R_COMM_UNKNOWN (-1)  /* global communicator id of an unknown communicator */
#define PLOG_ALL_RANKS (-1)       /* plog_iter_open: every loaded rank, merged by start_ns */

const char *plog_class_name(int cls); /* "isend", "coll", ...; "other" for unknown values */
const char *plog_comm_kind_name(uint32_t kind); /* "intra", "inter", "cart", ... */
const char *plog_op_name(unsigned op); /* enum plog_op: "sum", ..., "user"; "none" for 0 */

/* ---- clock alignment (pure functions) ----
 * aligned(t) = t + offset(t), offset linear through the best (lowest round-trip) Init and
 * Finalize samples, extrapolated outside them; constant with one usable sample; zero with
 * none. A slope over PLOG_CLOCK_MAX_DRIFT (that no real oscillator has) is not used: the
 * offset is then the Init sample's, constant. */
#define PLOG_CLOCK_MAX_DRIFT 1e-3

enum plog_clockfit_flags {
    PLOG_CLOCKFIT_NONE = 1u << 0,     /* no samples: offset 0 */
    PLOG_CLOCKFIT_SINGLE = 1u << 1,   /* one usable phase: constant offset */
    PLOG_CLOCKFIT_BADSLOPE = 1u << 2, /* the two samples disagree beyond drift + noise */
    PLOG_CLOCKFIT_BADORDER = 1u << 3  /* the Finalize sample is not after the Init sample */
};

typedef struct plog_clockfit {
    int n;           /* 0: offset 0; 1: constant o0; 2: linear through (t0,o0), (t1,o1) */
    uint64_t t0, t1; /* local times of the samples */
    int64_t o0, o1;  /* their offsets (rank-0 time minus local time), ns */
} plog_clockfit_t;

/* Fit from a rank's samples; returns enum plog_clockfit_flags (0 = linear fit, all good). */
unsigned plog_clock_fit(const plog_sync_sample_t *s, size_t n, plog_clockfit_t *fit);
/* Offset at local time t (floor of the linear interpolation; saturates instead of wrapping). */
int64_t plog_clock_offset(const plog_clockfit_t *fit, uint64_t t);
/* Aligned time of local t relative to ref (ref: rank 0's t_init_ns on rank 0's axis). */
int64_t plog_clock_align(const plog_clockfit_t *fit, uint64_t t, uint64_t ref);
/* The same, and the stretch of local time [*lo, *hi) around t over which the result is t plus
 * the same amount, as wide as that holds (bounded where t + amount would leave int64_t): a
 * reader aligning many times of one rank adds while they stay in it. *lo = *hi = 0 when there
 * is none to give (the result saturated; or, without a 128-bit integer type, a drifting clock). */
int64_t plog_clock_align_stretch(const plog_clockfit_t *fit, uint64_t t, uint64_t ref,
                                 uint64_t *lo, uint64_t *hi);

/* ---- the run and its ranks ---- */

typedef struct plog_run plog_run_t;

typedef struct plog_frame_ix {
    uint64_t offset;  /* of the frame header */
    uint32_t comp_len, raw_len, count;
    uint16_t kind, thread;
} plog_frame_ix_t;

/* A communicator as seen by one rank (local/remote from that rank's side). */
typedef struct plog_lcomm {
    uint32_t local_id;
    int32_t gid;             /* global id */
    uint32_t kind, call;     /* enum plog_comm_kind; creating call (0: predefined) */
    uint32_t parent;         /* local id of the parent communicator, 0 none */
    uint32_t n_local, n_remote;
    const int32_t *local;    /* world ranks in comm-rank order */
    const int32_t *remote;   /* intercommunicators: the remote group, else empty */
    int32_t my_rank;         /* index of this rank in local, -1 if absent */
} plog_lcomm_t;

/* A communicator of the run, matched across ranks. */
typedef struct plog_gcomm {
    int32_t id;              /* 1 = MPI_COMM_WORLD; ids are 1..plog_run_ncomms() */
    uint32_t kind, call;     /* creating call (0: predefined) */
    int32_t parent;          /* global id of the parent, 0 none, -1 unknown */
    uint32_t n_members, n_remote;
    const int32_t *members;  /* world ranks in comm-rank order; for an intercommunicator the
                                group whose sorted member list compares lower */
    const int32_t *remote;   /* the other group of an intercommunicator, else empty */
    int32_t first_rank;      /* lowest world rank that defined it */
    uint32_t n_holders;      /* loaded ranks that defined it */
} plog_gcomm_t;

typedef struct plog_rank {
    int32_t rank;
    const char *path;
    plog_file_header_t hdr;
    uint64_t file_size;
    int complete;            /* 1: the END frame was read */
    uint64_t end_offset;     /* complete: file size; else offset of the first missing byte
                                (start of the incomplete frame, or end of file) */
    uint64_t n_events;       /* sum of the EVENTS frames' counts */
    uint32_t n_threads;      /* distinct thread slots with EVENTS frames */
    size_t n_frames;
    const plog_frame_ix_t *frames;   /* every complete frame, in file order */
    size_t n_sync;
    const plog_sync_sample_t *sync;
    plog_clockfit_t clock;
    size_t n_comms;
    const plog_lcomm_t *comms;       /* sorted by local_id */
    const char *kv;          /* header, META and END key=value\0 strings, in file order */
    size_t kv_len;
} plog_rank_t;

/* Open a log directory (rank-NNNNNN.plog for every rank of the world) or one rank file.
 * Errors: unreadable/damaged headers or frames, missing ranks, inconsistent world sizes.
 * A file that ends early (partial last frame, or no END frame) is not an error. */
plog_err_t plog_run_open(const char *path, plog_run_t **out, plog_error_t *err);
void plog_run_close(plog_run_t *run);

const char *plog_run_path(const plog_run_t *run);
int32_t plog_run_world_size(const plog_run_t *run);
const plog_rank_t *plog_run_rank(const plog_run_t *run, int32_t rank); /* NULL: not loaded */

/* Events a rank recorded that its log does not hold, and why (since PLOGREAD_1.1;
 * doc/log-format.md, "Events the log does not hold"). A log that merely ends early (a crash,
 * a kill) is plog_rank_t.complete == 0; its lost events are not counted anywhere. */
enum plog_drop_count {
    PLOG_DROPS_EXACT = 0,    /* write_dropped is the count */
    PLOG_DROPS_AT_LEAST = 1, /* the rank ended before its final count: at least write_dropped */
    PLOG_DROPS_UNKNOWN = 2   /* writing failed, then the rank ended before it counted */
};
typedef struct plog_drops {
    int write_errno;         /* errno of the rank's failed write (ENOSPC, EDQUOT, EIO...), 0 none */
    int write_count;         /* enum plog_drop_count: how well write_dropped is known */
    uint64_t write_dropped;  /* events dropped because writing the log failed */
    int threads_known;       /* 0: the rank ended before it said (thread_dropped is 0) */
    uint64_t thread_dropped; /* calls of threads over the thread budget (PHASOR_MAX_THREADS) */
} plog_drops_t;
/* Fill *out for rank rk (of the run that returned it); costs nothing (read at open). */
void plog_rank_drops(const plog_rank_t *rk, plog_drops_t *out);
/* Time origin: rank 0's t_init_ns (or, without rank 0, the loaded rank's aligned t_init). */
uint64_t plog_run_time_ref(const plog_run_t *run);

size_t plog_run_ncomms(const plog_run_t *run);
const plog_gcomm_t *plog_run_comm(const plog_run_t *run, int32_t gid); /* NULL if no such id */
const plog_lcomm_t *plog_rank_comm(const plog_rank_t *rk, uint32_t local_id); /* NULL: none */
/* Rank r of communicator lc (of the remote group if inter) as a world rank; specials pass
 * through; PLOG_R_BADRANK if out of range. */
int32_t plog_lcomm_world(const plog_lcomm_t *lc, int inter, int32_t r);

/* Last value of key in the rank's strings (header, then META frames, then END), or NULL. */
const char *plog_rank_kv(const plog_rank_t *rk, const char *key);
/* Iterate the strings: pass NULL first; returns the next "key=value" or NULL. */
const char *plog_rank_kv_next(const plog_rank_t *rk, const char *prev);

/* Decompress frame i of a rank (any kind; the payload is malloc'd, the caller frees it). */
plog_err_t plog_rank_read_frame(const plog_rank_t *rk, size_t i, void **raw, size_t *raw_len,
                                plog_error_t *err);

size_t plog_run_nwarnings(const plog_run_t *run);
const char *plog_run_warning(const plog_run_t *run, size_t i);

/* ---- events ---- */

/* What a request start looked like; consumers use it to interpret completions. */
typedef struct plog_reqinfo {
    uint64_t id;             /* per-rank request id (1, 2, ...) */
    uint64_t def_id;         /* persistent instance: id of its Send_init/Recv_init, else 0 */
    uint16_t call;           /* the start (Isend, Irecv, Ibcast...) or, for a persistent
                                instance, the Send_init/Recv_init that defined it */
    uint16_t cls;            /* class of that call */
    int32_t comm;            /* global id */
    int32_t peer, tag, root; /* world ranks / specials, as in plog_rec_t */
    uint64_t bytes, rbytes;
    int64_t start_ns, end_ns; /* of the event that started it (Isend..., or Start) */
} plog_reqinfo_t;

typedef struct plog_rreq {   /* a request handle named by an event */
    uint64_t handle;         /* raw value recorded by the shim */
    uint64_t id;             /* linked request id, 0 = none found */
    const plog_reqinfo_t *start; /* its start, NULL if none */
} plog_rreq_t;

typedef struct plog_rstatus {
    uint64_t handle;         /* raw request handle (0 for blocking calls) */
    uint64_t request;        /* linked request id, 0 = none */
    int32_t source;          /* world rank or special; PLOG_NONE for send/collective
                                completions; PLOG_R_BADRANK if it could not be translated */
    int32_t tag;             /* PLOG_NONE for send/collective completions */
    uint64_t bytes;          /* PLOG_BYTES_UNKNOWN when unknown or not applicable */
    uint64_t index;
    int cancelled;
    const plog_reqinfo_t *start; /* linked start, NULL if none */
} plog_rstatus_t;

/* One decoded event. Pointers stay valid until the next plog_iter_next on the same iterator. */
typedef struct plog_rec {
    int32_t rank;            /* world rank */
    uint16_t thread;
    uint16_t call;           /* enum plog_call */
    const char *call_name;   /* plog_call_name(), or "unknown" */
    int cls;                 /* enum plog_call_class (OTHER for unknown calls) */
    uint32_t flags;          /* enum plog_event_flags as recorded */
    int64_t start_ns, end_ns;  /* aligned, relative to plog_run_time_ref() */
    uint64_t t_start, t_end;   /* as recorded: local CLOCK_MONOTONIC ns */
    int32_t comm;            /* global id; 0 none; PLOG_R_COMM_UNKNOWN */
    uint32_t local_comm;     /* as recorded */
    const plog_lcomm_t *lcomm; /* the rank's view of comm, NULL if none/unknown */
    int32_t peer, root;      /* world ranks or specials (incl. PLOG_R_BADRANK) */
    int32_t tag;
    uint64_t bytes, rbytes;
    int32_t rc;
    uint32_t callsite;
    uint64_t handle;         /* raw request handle recorded */
    uint64_t request;        /* linked request id: new id for starts (Isend.., Send_init,
                                each Start instance), the completed/referenced id for
                                Wait/Test/Request_free/Cancel, 0 none */
    const plog_reqinfo_t *req; /* the start behind request, NULL if none */
    int32_t recv_source, recv_tag; /* PLOG_F_RECVSPEC: posted source (world) and tag */
    int32_t newcomm;         /* PLOG_F_NEWCOMM: global id, 0 = MPI_COMM_NULL, -1 unknown */
    uint64_t message;        /* PLOG_F_MESSAGE: per-rank message id, new for Mprobe/Improbe,
                                the one consumed for Mrecv/Imrecv (0: its probe not seen) */
    uint32_t n_handles;      /* PLOG_F_HANDLES (request handles, or the one message handle) */
    const plog_rreq_t *handles;
    uint32_t n_status;       /* PLOG_F_STATUS */
    const plog_rstatus_t *status;
    uint32_t n_vsend, n_vrecv; /* PLOG_F_VSEND / PLOG_F_VRECV byte counts */
    const uint64_t *vsend, *vrecv;
    /* PLOG_F_COLLINFO (format 2; else all 0): datatype sizes in bytes (0: not significant
     * on this rank) and the op (enum plog_op) with its commutativity */
    uint32_t stype_size, rtype_size;
    uint16_t op;
    uint8_t op_commutative;
    uint64_t frame_offset;   /* file offset of the frame the event came from */
    /* (appended with log format 11: the fields above keep their offsets) The calls the
     * record stands for: 1, or with PLOG_F_POLLS the n >= 2 unsuccessful polls of a run
     * (summing ncalls gives the exact count of calls), and the ns spent inside them:
     * end - start for one call, the run's time inside its n calls (at most its span; the
     * rest of the span, between the polls, was the application's) */
    uint64_t ncalls;
    uint64_t inside_ns;
} plog_rec_t;

typedef struct plog_iter plog_iter_t;

/* Events of one rank (merged across its threads by local start time, ties by thread), or
 * with PLOG_ALL_RANKS of every loaded rank merged by aligned start time (ties by rank). */
plog_err_t plog_iter_open(plog_run_t *run, int32_t rank, plog_iter_t **out, plog_error_t *err);
/* Options of plog_iter_open_opts.
 * PLOG_ITER_NOLINK: for consumers that aggregate starts and never look at completions (the
 * report): completions are not linked to the starts of non-persistent requests, which saves
 * the open-request table (about a sixth of the reading time on a nonblocking halo
 * exchange, more with the decoding of their handles and statuses, which is skipped).
 * Completions (Wait/Test families) then have no handles, no statuses, request 0 and req
 * NULL, and their extras are not checked (but for a run of polls' count and time inside:
 * ncalls and inside_ns are right in every record); starts keep their request ids;
 * Request_free/Cancel link to persistent definitions only. Send_init/Recv_init and Start(all) are linked as
 * always. The pairing diagnostics (unmatched completions, starts never completed,
 * cancelled statuses, MPI_PROC_NULL statuses) are not produced. */
#define PLOG_ITER_NOLINK 1u
plog_err_t plog_iter_open_opts(plog_run_t *run, int32_t rank, unsigned opts, plog_iter_t **out,
                               plog_error_t *err);
/* Next event in *rec, or *rec = NULL at the end. An error is sticky. */
plog_err_t plog_iter_next(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err);
/* Release; moves the iterator's warnings (unmatched completions, bad ranks...) to the run. */
void plog_iter_close(plog_iter_t *it);

#endif
