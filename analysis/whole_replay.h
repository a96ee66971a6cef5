/* whole_replay.h: the whole run replayed against a network model (`phasor replay`,
 * doc/replay.md): every rank's calls in its own order, the compute between them as measured
 * (or scaled), its messages matched as the log recorded them and priced by the model, its
 * collectives as their rebuilt steps (predict_replay.h) or priced whole (the steps method),
 * each call ending when what it waits for has arrived; the predicted end of every rank, its
 * time in MPI, and the critical path.
 *
 * A discrete-event replay: each rank reads its own events (one iterator per rank) and runs
 * until a call waits for something another rank has not yet produced; ranks take turns,
 * the earliest in predicted time first. Memory holds the messages, requests and collective
 * instances open at the time, the iterators, and the critical path's live part; never the
 * log. Never prints. */
#ifndef WHOLE_REPLAY_H
#define WHOLE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "plog_error.h"
#include "plog_reader.h"
#include "predict.h"

/* A network model with the what-ifs applied: a message's time t(src, dst, n) of the base
 * model is split into its bytes' part, n times the model's time per byte at 2-4 MiB
 * (pr_per_byte; at most t), and the rest, its latency; the bytes' part is divided by bw, the
 * latency multiplied by lat. */
typedef struct wr_net_cache wr_net_cache_t;
typedef struct wr_net {
    pr_time_fn t;
    const void *ctx;
    double lat, bw;         /* 1, 1: the model as it is */
    wr_net_cache_t *cache;  /* the times already asked for (NULL: none); a run asks for the
                               same few (pair, size) again and again */
} wr_net_t;
double wr_net_time(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway);

/* A span of time [a, b), ns on the run's aligned clock. */
typedef struct wr_span {
    double a, b;
} wr_span_t;

/* phasor's own network probes of run (PHASOR_PROBE: the one after MPI_Init, the periodic
 * ones after collectives) as spans in time order, from the earliest rank's start to the latest
 * rank's end: the shim's time between the application's calls, which every replay of the
 * application (this one, the SimGrid export) leaves out of its compute. *out NULL and *n 0
 * when there are none; free(*out). */
plog_err_t wr_probe_spans(const plog_run_t *run, wr_span_t **out, size_t *n,
                          plog_error_t *err);
/* The time spans v[0..n) take of [a, b). *from: the first span that may still overlap a later
 * [a, b) of the same caller (spans asked for in time order; start it at 0). */
double wr_spans_within(const wr_span_t *v, size_t n, double a, double b, size_t *from);

typedef struct wr_opts {
    const pred_model_t *model; /* messages and collectives: a model of pred_models_t (a
                                  LogGP one prices sends and receives apart), or one of
                                  the caller's with ctx NULL */
    double lat, bw;            /* what-if on the model (1: none) */
    const pred_t *pred;        /* hosts, eager size, gamma, as pred_open set them */
    int whole;                 /* collectives priced whole by the steps method, not replayed
                                  step by step */
    double compute_scale;      /* every rank's compute between calls (1: as measured) */
    int32_t slow_rank;         /* -1: none; else its compute times slow_factor */
    double slow_factor;
    int path;                  /* keep the critical path */
    recon_lib_t lib;           /* the MPI library's rules for rebuilding the steps */
} wr_opts_t;

typedef struct wr_rank {
    int32_t rank;
    int present;               /* its log was read */
    double m_begin;            /* measured end of MPI_Init (its first call's end), ns */
    double m_end, p_end;       /* measured and predicted start of MPI_Finalize (or the end of
                                  its last call), ns on the aligned clock; measured times
                                  less the time of phasor's probes before them */
    double m_mpi, p_mpi;       /* time in MPI calls between them, measured and predicted */
    uint64_t events;
} wr_rank_t;

/* How the critical path came to a rank */
enum wr_from {
    WR_FROM_START = 0, /* the path starts here */
    WR_FROM_MSG = 1,   /* a message's arrival ended a call that waited for it */
    WR_FROM_RECV = 2,  /* a synchronous or rendezvous send waited for its receive's posting */
    WR_FROM_COLL = 3,  /* a collective waited for its last member */
    WR_FROM_PROBE = 4  /* a probe waited for a message's envelope */
};
const char *wr_from_name(int from); /* "start", "message", "receive-posted", ... */

/* One stretch of the critical path on one rank, in time order. */
typedef struct wr_seg {
    int32_t rank;
    double p_start, p_end;     /* predicted, ns */
    double m_start, m_end;     /* the same events' measured times, ns */
    double compute, mpi;       /* predicted time computing and in MPI calls, ns */
    uint64_t ev_first, ev_last; /* the rank's event ordinals (0 its first event) */
    /* what brought the path here from the segment before (WR_FROM_START: nothing) */
    int from;
    int32_t peer;              /* the rank it came from */
    uint64_t bytes;            /* the message's bytes (collectives: the instance's size) */
    uint16_t call;             /* the call on this rank that waited (enum plog_call) */
    double edge;               /* predicted ns from leaving the peer to ending that call */
} wr_seg_t;

/* One MPI call's time over the run's ranks, between MPI_Init and MPI_Finalize. */
#define WR_NCALLS 1024 /* call ids are below it (enum plog_call) */
typedef struct wr_call {
    uint64_t count;
    double measured, predicted; /* ns */
} wr_call_t;

typedef struct wr_result {
    int32_t world;
    wr_rank_t *ranks;          /* world entries */
    double t0;                 /* the earliest measured end of MPI_Init, ns */
    double measured, predicted; /* the run's end minus t0, ns */
    double probes;             /* ns of phasor's probes (PHASOR_PROBE) left out of both: the
                                  shim's time between the application's calls */
    uint64_t events;           /* replayed (excluding the steps the shim logs inside
                                  collectives) */
    uint64_t messages, eager, rendezvous;
    uint64_t colls, colls_steps, colls_priced, colls_tail, colls_local;
    /* calls whose wait the replay could not resolve and took as measured (a partner's log
     * missing, or an order the log cannot tell), and rendezvous sends taken as eager to
     * break a wait the replay could not order */
    uint64_t forced, forced_eager;
    uint64_t unmatched_sends, unmatched_recvs;
    uint64_t wildcard;         /* receives whose source came from their status */
    uint64_t polls;            /* unsuccessful tests and probes, replayed as measured */
    size_t peak_messages, peak_requests, peak_nodes;
    wr_call_t *calls;          /* WR_NCALLS entries, by call id */
    wr_seg_t *path;            /* the critical path, first to last (path option) */
    size_t npath;
} wr_result_t;

/* Replays run. r is zeroed first; wr_result_free it in every case. */
plog_err_t wr_run(plog_run_t *run, const wr_opts_t *o, wr_result_t *r, plog_error_t *err);
void wr_result_free(wr_result_t *r);

#endif
