/* coll_instances.h: collective calls matched across ranks into instances (one call of one
 * communicator, seen from every member), with what each member's library schedule sent.
 *
 * MPI makes the members of a communicator call its collectives in the same order, so the
 * k-th collective call on communicator c (blocking or not) is the same instance on every
 * member. Feed the events of a run merged across ranks (plog_iter_open(run,
 * PLOG_ALL_RANKS)); an instance is handed to the caller as soon as its last member's event
 * arrives, so memory holds only the instances still open (for blocking collectives, those
 * that overlap in time). Used by `phasor predict`; meant also for whole-program replay. */
#ifndef COLL_INSTANCES_H
#define COLL_INSTANCES_H

#include <stdbool.h>
#include <stdint.h>

#include "coll_recon.h"
#include "coll_sched.h"
#include "plog_reader.h"

/* One message of a member's schedule (sends only: each message once). */
typedef struct ci_xfer {
    int32_t src, dst; /* world ranks */
    uint32_t step;    /* the algorithm's round (pcs_op_t.step) */
    uint64_t bytes;
} ci_xfer_t;

/* The order of transfers by step, then by source: <0, 0 or >0. */
static inline int ci_xfer_order(const ci_xfer_t *x, const ci_xfer_t *y)
{
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->src > y->src) - (x->src < y->src);
}

/* ci_xfer_order as a qsort comparator of pointers to transfers (const ci_xfer_t *) */
static inline int ci_cmp_step_src(const void *a, const void *b)
{
    return ci_xfer_order(*(const ci_xfer_t *const *)a, *(const ci_xfer_t *const *)b);
}

/* One member's call: its own entry and exit (aligned ns). */
typedef struct ci_member {
    int32_t rank; /* world rank */
    int64_t start_ns, end_ns;
} ci_member_t;

/* A local reduction of a member's schedule (PCS_OP_REDUCE), by the step it belongs to. */
typedef struct ci_red {
    int32_t rank; /* world rank */
    uint32_t step;
    uint64_t bytes;
} ci_red_t;

typedef struct ci_inst {
    int32_t comm;             /* global communicator id */
    uint64_t ordinal;         /* the call's position among the communicator's collectives */
    uint16_t call;            /* enum plog_call of the first member */
    pcs_coll_t coll;
    bool nonblocking;
    int32_t size;             /* members */
    int32_t seen;             /* members whose event was fed */
    int64_t first_start;      /* aligned ns: the earliest member's entry */
    int64_t last_end;         /* the latest member's exit (nonblocking: the I-call's) */
    int32_t first_rank, last_rank;
    uint64_t bytes;           /* size class: elements x type size per rank (the vector of
                                 bcast/reduce/allreduce/scan, a block of gather/allgather/
                                 alltoall...; v-variants: the mean block) at the first member */
    pcs_alg_t alg;            /* the first member's algorithm (PCS_ALG_NONE if not rebuilt) */
    recon_skip_t why;         /* RECON_OK if every member's schedule was rebuilt, else the
                                 first member's reason */
    uint32_t nsteps;          /* max over members */
    size_t nx;                /* sends of every member */
    ci_xfer_t *x;
    size_t nmem;              /* members fed (= seen), in the order their events came */
    ci_member_t *mem;
    size_t nred;              /* local reductions of every member (RECON_OK only) */
    ci_red_t *red;
} ci_inst_t;

typedef struct ci ci_t;
typedef void (*ci_done_fn)(void *arg, const ci_inst_t *inst);

/* NULL on out of memory. */
ci_t *ci_new(const plog_run_t *run, recon_lib_t lib);
/* The host id of a world rank (recon_host). */
int ci_host(const ci_t *c, int32_t rank);
void ci_free(ci_t *c);
/* One event (anything; non-collectives and failed calls are ignored). done() is called for
 * each instance this event completes; the instance is freed after it returns. -1: out of
 * memory. */
int ci_feed(ci_t *c, const plog_rec_t *e, ci_done_fn done, void *arg);
/* The instances still open at the end (a member's log is missing or ended early): done()
 * for each, with seen < size. */
void ci_finish(ci_t *c, ci_done_fn done, void *arg);

#endif
