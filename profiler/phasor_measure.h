/* phasor_measure.h: PHASOR_STEPS=measure (phasor_measure.c): the shim performs a blocking
 * collective with the library's own schedule and records each transfer. */
#ifndef PHASOR_MEASURE_H
#define PHASOR_MEASURE_H

#include <mpi.h>
#include <stdbool.h>

#include "coll_sched.h"

typedef struct phasor_measure {
    pcs_args_t args;            /* as models/ wants them (counts in elements of type_size) */
    MPI_Comm comm;
    const void *sbuf;           /* the schedule's PCS_BUF_SEND (unused with in_place) */
    MPI_Datatype stype;         /* MPI_DATATYPE_NULL where not significant */
    void *rbuf;                 /* PCS_BUF_RECV (bcast: the buffer) */
    MPI_Datatype rtype;
    MPI_Op op;                  /* reductions, else MPI_OP_NULL */
    MPI_Datatype optype;
    MPI_Datatype redtype;       /* set: reduce the packed bytes as redsize-byte elements of
                                 * this predefined type (a derived type of one base type) */
    uint64_t redsize;
    bool user_op;
    bool veto;                  /* this rank cannot: the call goes to the library everywhere */
} phasor_measure_t;

/* mode: PHASOR_STEPS ("off", "measure"); library: MPI_Get_library_version's string.
 * Returns 1 (set up, or off), 0 (no rules for this library: off), -1 (bad mode: off). */
int phasor_measure_init(const char *mode, const char *library);
/* Perform the call. *measured = 0: phasor did not (the caller hands it to the library; every
 * rank of the call decided alike); else the call's return code. */
int phasor_measure(const phasor_measure_t *mc, int *measured);
/* A reduction's datatype t: 1 when phasor can apply the op to its packed bytes (*base set:
 * as elements of that predefined type of *size bytes), 0 when the library must do it. */
int phasor_measure_redtype(MPI_Datatype t, bool user_op, MPI_Datatype *base, uint64_t *size);
/* The user frees comm (collectively): free phasor's duplicate of it too. */
void phasor_measure_release(MPI_Comm comm);

#endif
