/* sched_exec.h: a symbolic executor for collective schedules (models/coll_sched.h), shared by
 * the unit tests of the Open MPI and MPICH catalogues: all P ranks' schedules run together in
 * this process with real data; messages match by (src, dst, tag) in order, blocking sends
 * wait for their receive (stricter than eager), and deadlock, unmatched messages, busy
 * request slots, out-of-bounds regions and length or step disagreements are reported. */
#ifndef SCHED_EXEC_H
#define SCHED_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "coll_sched.h"

#define MAXP 9
#define EXEC_MAX_MSGS 40000

typedef void op_fn(const uint8_t *in, uint8_t *inout, size_t nbytes);
/* 2x2 matrices of uint8 mod 256, in x inout: associative, not commutative */
void op_matmul(const uint8_t *in, uint8_t *io, size_t n);
/* double addition on small integers: exact whatever the order */
void op_dsum(const uint8_t *in, uint8_t *io, size_t n);

/* ---- the executor ---- */
typedef struct msg {
    int src, dst, tag, step;
    uint64_t len;
    uint8_t *data;
    int matched;     /* 1 once a receive took it */
    int recv_id;     /* which posted receive */
} msg_t;
typedef struct rpost {
    int rank, src, tag, step;
    size_t op;       /* index of the op (for its region / pieces) */
    int msg;         /* matched message, -1 */
} rpost_t;
typedef struct rstate {
    size_t pc;
    int posted;      /* current blocking op already posted (msg or recv id) */
    int cur;         /* id of that post */
    int req_kind[1024], req_id[1024]; /* 0 free, 1 send (msg id), 2 recv (rpost id) */
} rstate_t;

typedef struct exec {
    int P;
    pcs_sched_t *s;
    uint8_t *buf[MAXP][PCS_NBUFS];
    uint64_t bsz[MAXP][PCS_NBUFS];
    msg_t msgs[EXEC_MAX_MSGS];
    int nmsgs;
    rpost_t rp[EXEC_MAX_MSGS];
    int nrp;
    rstate_t st[MAXP];
    op_fn *op;
    int self_ok;     /* the library sends to itself (MPICH); else such a message is an error */
    char err[512];
} exec_t;

/* Runs all ranks; returns NULL or a one-line reason (also in x->err). */
const char *execute(exec_t *x);
/* Deterministic test data: byte i of buffer `which` of rank; fill() writes n of them (small
 * integers as doubles for op_dsum, so sums are exact in any order). */
uint8_t val(int rank, uint64_t i, int which);
void fill(uint8_t *p, uint64_t n, int rank, int which, op_fn *op, uint64_t ts);

#endif
