/* phasor_internal.h: what the runtime's own files share; wrappers use phasor_rt.h only,
 * except the lifecycle wrappers (Init, Finalize, Abort, Pcontrol) that drive the runtime. */
#ifndef PHASOR_INTERNAL_H
#define PHASOR_INTERNAL_H

#include <mpi.h>

#include "phasor_rt.h"
#include "plog_codec.h"

#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

extern int phasor_world_rank, phasor_world_size;
/* This host's name hashed (FNV-1a, 64 bits): ranks with equal keys share a node
 * (phasor_meta.c). */
uint64_t phasor_host_key(void);
/* The communicator of the shim's own traffic: MPI_COMM_WORLD inside MPI_Init (nothing of the
 * application's can be in flight yet, and no communicator is created: see phasor_start), a
 * duplicate inside MPI_Finalize (a receive the application left posted must not match
 * ours), MPI_COMM_NULL in between. */
extern MPI_Comm phasor_shim_comm;

/* Lifecycle, called by pmpi/wrappers_lifecycle.c. t0/t1 are raw stamps around the PMPI call. */
void phasor_start(unsigned call, uint64_t t0, uint64_t t1, int rc, int required, int provided);
void phasor_finish_begin(void);                    /* before PMPI_Finalize: sync, stop threads */
void phasor_finish_end(uint64_t t0, uint64_t t1, int rc); /* after PMPI_Finalize: write, close */
void phasor_on_abort(uint64_t t0, int errorcode, MPI_Comm comm); /* best effort before PMPI_Abort */
void phasor_record_pcontrol(uint64_t t0, uint64_t t1, int level);
/* After MPI_Pcontrol(level) returned: level 2 runs a network probe under PHASOR_PROBE=...,pcontrol
 * (phasor_probe_sched.c; collective over MPI_COMM_WORLD). */
void phasor_probe_pcontrol(int level);
int phasor_disabled_by_env(void);

/* Communicator table (phasor_comm.c). */
int phasor_comm_table_init(void); /* registers WORLD (id 1) and SELF (id 2) */
/* Queue a definition for the next frame written (phasor_writer.c; takes the writer lock). */
void phasor_queue_comm_def(const plog_comm_def_t *c);

/* Call sites (phasor_callsite.c). init: 1 if sites are on or depth is 0, 0 if libunwind
 * could not be loaded (sites off). flush: emit pending definitions (write lock held). */
int phasor_callsite_init(int depth);
uint64_t *phasor_callsite_cache_new(void);
void phasor_callsite_flush(void (*emit)(uint32_t n, const void *buf, size_t len), int try_only);

/* Clock alignment (phasor_clocksync.c): min-RTT ping-pong with rank 0 on phasor_shim_comm. */
void phasor_clocksync(unsigned phase, plog_sync_sample_t *out);

#pragma GCC visibility pop

#endif
