/* coll_build.h: the schedule builder the generators share (internal to models/). Errors are
 * sticky in the schedule, so generators write straight-line code and check once at the end. */
#ifndef COLL_BUILD_H
#define COLL_BUILD_H

#include "coll_sched.h"

typedef struct pcs_ctx {
    pcs_sched_t *s;
    const pcs_args_t *a;
    int rank, size;
    uint64_t ts;              /* type size */
    int32_t tag;              /* tag of the collective being generated */
    uint8_t map[PCS_NBUFS];   /* buffer renaming, for collectives run inside others */
    uint64_t shift[PCS_NBUFS]; /* byte offset added to a buffer (before renaming): a nested
                                * collective whose buffer starts inside another one */
    /* PCS_BUF_VIEW: a derived-datatype view (Open MPI's indexed types) of buffer vbuf as the
     * packed concatenation of nv blocks (vlen[i] bytes at voff[i]); transfers on it become
     * PCS_BUF_IOV messages with their pieces. Rename a buffer to it with map[]. */
    int nv;
    uint8_t vbuf;
    const int64_t *vcounts, *vdispls; /* elements of vts bytes; vdispls NULL = packed */
    uint64_t vts;
    uint32_t step_base;       /* first step of this (sub-)collective */
} pcs_ctx_t;

enum { PCS_BUF_VIEW = 254 };

void pcs_ctx_init(pcs_ctx_t *c, const pcs_args_t *a, pcs_sched_t *s, int32_t tag);
/* Record error e (if not PCS_OK) unless an earlier error is there: the first one sticks. */
void pcs_fail(pcs_ctx_t *c, pcs_err_t e);
/* Steps are global: a message has the same step at its sender and its receiver (the test
 * executor checks it). pcs_at sets the step of the operations that follow. */
void pcs_at(pcs_ctx_t *c, int64_t step);
void pcs_send(pcs_ctx_t *c, int peer, int buf, uint64_t off, uint64_t len);
void pcs_ssend(pcs_ctx_t *c, int peer, int buf, uint64_t off, uint64_t len);
void pcs_recv(pcs_ctx_t *c, int peer, int buf, uint64_t off, uint64_t len);
void pcs_isend(pcs_ctx_t *c, unsigned req, int peer, int buf, uint64_t off, uint64_t len);
/* pcs_isend with enum pcs_opflags (synchronous, persistent) */
void pcs_isend_flags(pcs_ctx_t *c, unsigned req, int peer, int buf, uint64_t off, uint64_t len,
                     uint8_t flags);
void pcs_irecv(pcs_ctx_t *c, unsigned req, int peer, int buf, uint64_t off, uint64_t len);
void pcs_wait(pcs_ctx_t *c, unsigned req);
/* A transfer with pieces: call pcs_piece for each piece right after it (buf = PCS_BUF_IOV). */
void pcs_xfer(pcs_ctx_t *c, pcs_opkind_t kind, unsigned req, int peer, uint64_t len,
              uint8_t flags);
void pcs_piece(pcs_ctx_t *c, int buf, uint64_t off, uint64_t len);
void pcs_copy(pcs_ctx_t *c, int sbuf, uint64_t soff, int dbuf, uint64_t doff, uint64_t len);
/* inout := in (op) inout, as ompi_op_reduce(op, in, inout) and MPI_Reduce_local. */
void pcs_reduce(pcs_ctx_t *c, int inbuf, uint64_t inoff, int iobuf, uint64_t iooff,
                uint64_t len);
/* Open MPI's ompi_coll_base_sendrecv: irecv (slot req), blocking send, wait; a local copy
 * when both peers are this rank. sendrecv_actual never takes the shortcut. */
void pcs_sendrecv(pcs_ctx_t *c, unsigned req, int dest, int sbuf, uint64_t soff, uint64_t slen,
                  int src, int rbuf, uint64_t roff, uint64_t rlen);
void pcs_sendrecv_actual(pcs_ctx_t *c, unsigned req, int dest, int sbuf, uint64_t soff,
                         uint64_t slen, int src, int rbuf, uint64_t roff, uint64_t rlen);
/* Record that scratch buffer buf (PCS_BUF_TMP or PCS_BUF_TMP2) must hold n bytes. */
void pcs_need_tmp(pcs_ctx_t *c, int buf, uint64_t n);

/* counts[from] + ... + counts[to - 1] */
int64_t pcs_sum(const int64_t *counts, int from, int to);
/* Byte displacement of block i of a v-collective (displs NULL = packed: O(i)). */
uint64_t pcs_vdisp(uint64_t ts, const int64_t *counts, const int64_t *displs, int i);
/* Open MPI's ompi_mirror_perm: the nbits low bits of x reversed. */
int pcs_mirror(int x, int nbits);

/* Arithmetic both libraries' algorithms use. */
int pcs_pow2_floor(int n); /* largest power of two <= n (n >= 1) */
int pcs_log2_floor(int n); /* largest l with 2^l <= n (n >= 1) */
int pcs_log2_ceil(int n);  /* smallest l with 2^l >= n: 0 for n <= 1 */
bool pcs_is_pow2(int n);   /* n > 0 a power of two */
/* Open MPI's macros. COLL_BASE_COMPUTE_BLOCKCOUNT: blocks [0,split) have early elements, the rest late. */
void pcs_blockcount(int64_t count, int nblocks, int *split, int64_t *early, int64_t *late);
/* COLL_BASE_COMPUTED_SEGCOUNT from a segment size in bytes (count preset to the whole). */
int64_t pcs_segcount(uint64_t segsize, uint64_t ts, int64_t count);

#endif
