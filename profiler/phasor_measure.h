/* phasor_measure.h: PHASOR_STEPS=measure (phasor_measure.c): the shim performs a blocking
 * collective with the library's own schedule and records each transfer. */
#ifndef PHASOR_MEASURE_H
#define PHASOR_MEASURE_H

#include <mpi.h>
#include <stdbool.h>

#include "coll_sched.h"

#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

typedef struct phasor_measure {
    pcs_args_t args;            /* as models/ wants them (counts in elements of type_size) */
    MPI_Comm comm;
    const void *sbuf;           /* the schedule's PCS_BUF_SEND (unused with in_place) */
    MPI_Datatype stype;         /* MPI_DATATYPE_NULL where not significant */
    void *rbuf;                 /* PCS_BUF_RECV (bcast: the buffer) */
    MPI_Datatype rtype;
    MPI_Op op;                  /* reductions, else MPI_OP_NULL */
    MPI_Datatype optype;
    bool red_laid_out;          /* optype is not contiguous: reduce its packed bytes in its
                                 * own layout (phasor_measure_redtype 2) */
    bool user_op;
    bool veto;                  /* this rank cannot: the call goes to the library everywhere */
} phasor_measure_t;

/* mode: PHASOR_STEPS ("off", "measure"); library: MPI_Get_library_version's string.
 * Returns 1 (set up, or off), 0 (no rules for this library: off), -1 (bad mode: off). */
int phasor_measure_init(const char *mode, const char *library);
/* Perform the call. *measured = 0: phasor did not (the caller hands it to the library; every
 * rank of the call decided alike); else the call's return code. */
int phasor_measure(const phasor_measure_t *mc, int *measured);
/* A reduction's datatype t: 0 the library must perform it, 1 the op applies to packed bytes
 * as they are, 2 only to the type's own layout (phasor unpacks the operands). */
int phasor_measure_redtype(MPI_Datatype t, bool user_op);
/* The user frees comm (collectively): free phasor's duplicate of it too. */
void phasor_measure_release(MPI_Comm comm);

#pragma GCC visibility pop

#endif
