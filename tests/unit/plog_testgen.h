/* plog_testgen.h: write synthetic .plog files (on top of plog_write.h) for the reader's tests.
 *
 * One pgen_rank_t per rank file. Events are appended per thread slot as the shim does
 * (plog_event_t followed by its extras) and written as EVENTS frames by pgen_flush; comms and
 * clock samples are buffered and written by pgen_flush_comms / pgen_flush_sync (pgen_close
 * flushes everything, then writes the END frame). Functions return 0 on success. */
#ifndef PLOG_TESTGEN_H
#define PLOG_TESTGEN_H

#include <stddef.h>
#include <stdint.h>

#include "plog_format.h"
#include "plog_write.h"

#define PGEN_MAX_THREADS 8

typedef struct pgen_buf {
    uint8_t *p;
    size_t len, cap;
    uint32_t n;
} pgen_buf_t;

typedef struct pgen_rank {
    plog_writer_t w;
    int32_t rank, world_size;
    pgen_buf_t th[PGEN_MAX_THREADS]; /* event records per thread slot */
    size_t last[PGEN_MAX_THREADS];   /* offset of the last event of each thread */
    pgen_buf_t comms, sync;
} pgen_rank_t;

/* Header defaults for pgen_open_ex; t_init and clock as given, pid = 1000 + rank. */
typedef struct pgen_opts {
    uint64_t t_init_ns;
    const char *kv;     /* key=value\0 strings for the header (may be NULL) */
    size_t kv_len;
    uint32_t version;   /* 0: PLOG_VERSION (others make a bad-version file) */
} pgen_opts_t;

/* Create dir/rank-NNNNNN.plog (dir must exist) and write its header. */
int pgen_open(pgen_rank_t *g, const char *dir, int32_t rank, int32_t world_size,
              uint64_t t_init_ns);
int pgen_open_ex(pgen_rank_t *g, const char *path, int32_t rank, int32_t world_size,
                 const pgen_opts_t *o);

/* Append an event (fields defaulted as the shim does: comm NONE, peer/tag/root PLOG_NONE);
 * the pointer is valid until the next pgen_* call on the same thread. */
plog_event_t *pgen_event(pgen_rank_t *g, unsigned thread, unsigned call, uint64_t t0,
                         uint64_t t1);
/* Append extra words to the thread's last event. */
void pgen_extra(pgen_rank_t *g, unsigned thread, const uint64_t *w, size_t n);
void pgen_extra1(pgen_rank_t *g, unsigned thread, uint64_t w);
/* One status entry (source/tag as ranks in the communicator, bytes, index). */
void pgen_status(pgen_rank_t *g, unsigned thread, uint64_t handle, int32_t source, int32_t tag,
                 uint64_t bytes, uint64_t index);
/* A point-to-point or other call on thread 0 of communicator 1 (the world in the tests' logs):
 * pgen_event with comm, peer, tag and bytes set; NULL out of memory. */
plog_event_t *pgen_call(pgen_rank_t *g, unsigned call, uint64_t t0, uint64_t t1, int32_t peer,
                        int32_t tag, uint64_t bytes);
/* One status on thread 0's last event, which gets PLOG_F_STATUS and a count of 1. */
void pgen_status1(pgen_rank_t *g, uint64_t handle, int32_t source, int32_t tag, uint64_t bytes);
/* The thread's last event (after extras moved the buffer). */
plog_event_t *pgen_last(pgen_rank_t *g, unsigned thread);

int pgen_flush(pgen_rank_t *g, unsigned thread);
int pgen_comm(pgen_rank_t *g, uint32_t id, uint32_t parent, unsigned call, unsigned kind,
              const int32_t *local, uint32_t n_local, const int32_t *remote, uint32_t n_remote);
int pgen_flush_comms(pgen_rank_t *g);
int pgen_sync(pgen_rank_t *g, unsigned phase, uint64_t local_ns, int64_t offset_ns,
              uint64_t rtt_ns);
int pgen_flush_sync(pgen_rank_t *g);
int pgen_meta(pgen_rank_t *g, const char *kv, size_t kv_len);
/* Flush everything and write the END frame (kv may be NULL). */
int pgen_close(pgen_rank_t *g, const char *kv, size_t kv_len);
/* Flush everything but write no END frame (a log that ended early). */
void pgen_abandon(pgen_rank_t *g);

/* ---- helpers for tests ---- */
/* A fresh temporary directory (mkdtemp under $TMPDIR or /tmp); the caller frees the string. */
char *pgen_tmpdir(void);
/* Remove a directory and the files in it (one level). */
void pgen_rmdir(const char *dir);
/* Read / write a whole file. */
int pgen_read_file(const char *path, uint8_t **buf, size_t *len);
int pgen_write_file(const char *path, const uint8_t *buf, size_t len);
/* Deterministic PRNG (xorshift64*). */
uint64_t pgen_rand(uint64_t *state);

#endif
