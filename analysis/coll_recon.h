/* coll_recon.h: the steps inside a logged collective call, rebuilt with the MPI library's own
 * algorithm choice (models/). Shared by `phasor steps`, `phasor report` (collective-internal
 * traffic) and, later, `phasor predict`.
 *
 * Per event: the collective's arguments come from the record (byte counts / type sizes,
 * root, in-place flag, op commutativity from COLLINFO), the communicator's size and this
 * rank's place in it from the rank's communicator table, the library from the rank's
 * `mpi_library` header string (or forced), the library's forcing variables from the
 * environment the rank recorded (OMPI_MCA_coll_tuned_*, MPIR_CVAR_*), and for MPICH's
 * node-aware rules which ranks share a host (the ranks' `hostname` strings). */
#ifndef COLL_RECON_H
#define COLL_RECON_H

#include <stdint.h>

#include "coll_sched.h"
#include "plog_reader.h"

typedef enum recon_lib {
    RECON_LIB_AUTO = 0,  /* from each rank's mpi_library string */
    RECON_LIB_OMPI41 = 1,
    RECON_LIB_MPICH40 = 2,
    RECON_LIB_UNKNOWN = 3
} recon_lib_t;

const char *recon_lib_name(recon_lib_t l); /* "ompi41", "mpich40", ... */
/* "auto" / "ompi41" / "mpich40" -> the library; -1 if the name is not known. */
int recon_lib_parse(const char *name);

/* Why an event has no schedule (0: it has one). */
typedef enum recon_skip {
    RECON_OK = 0,
    RECON_NOT_COLL,        /* not a collective the catalogue knows (p2p, neighbourhood, ...) */
    RECON_NONBLOCKING,     /* nonblocking collective whose algorithm is not in the catalogue
                              (MPICH's tsp_* values, a forced sched_auto) */
    RECON_INTER,           /* intercommunicator collective */
    RECON_FAILED,          /* the call returned an error */
    RECON_NO_COMM,         /* communicator unknown to the log */
    RECON_LIBRARY,         /* no rules for the rank's MPI library */
    RECON_UNSUPPORTED,     /* the library's choice is not in the catalogue yet */
    RECON_BAD_ARGS,        /* recorded values that cannot be the call's (damaged) */
    RECON__COUNT
} recon_skip_t;
const char *recon_skip_name(recon_skip_t why);

typedef struct recon recon_t;

/* force: RECON_LIB_AUTO or a library to use for every rank. NULL on out of memory. */
recon_t *recon_new(const plog_run_t *run, recon_lib_t force);
void recon_free(recon_t *r);
/* The host id of world rank `rank` (ranks on one host share it, by their `hostname`; a rank
 * without a log or hostname has a host of its own), as the node-aware rules use it. */
int recon_host(const recon_t *r, int32_t rank);

/* The schedule of event e on its rank, into s (reset first). On RECON_OK, args and choice
 * describe the call and s holds the rank's operations. Peers in s are communicator ranks:
 * recon_world() translates. */
recon_skip_t recon_event(recon_t *r, const plog_rec_t *e, pcs_args_t *args, pcs_choice_t *choice,
                         pcs_sched_t *s);

/* Which collective an MPI call is (0: none of those with schedules). */
int recon_call_coll(unsigned call, pcs_coll_t *coll, bool *nonblocking);

/* World rank of communicator rank cr in e's communicator (-1 if out of range). */
static inline int32_t recon_world(const plog_rec_t *e, int32_t cr)
{
    const plog_lcomm_t *lc = e->lcomm;
    return lc && cr >= 0 && (uint32_t)cr < lc->n_local ? lc->local[cr] : -1;
}

/* True when the rank's logs had no COLLINFO (format 1): elements were assumed to be bytes. */
int recon_assumed_bytes(const recon_t *r);

#endif
