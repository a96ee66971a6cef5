/* wrappers.h: what every wrapper shares, C or Fortran, generated or hand-written.
 *
 * The shim exports its MPI entry points and nothing else: its sources are compiled with
 * -fvisibility=hidden, each entry point is marked PW_ENTRY, and the version script the
 * generator writes from the spec (gen/pmpi/libphasor.map) keeps everything else local,
 * the libraries linked in with it included. tests/unit/cli_symbols.sh checks the result. */
#ifndef PMPI_WRAPPERS_H
#define PMPI_WRAPPERS_H

#include "phasor_rt.h"

/* An MPI entry point of the shim: C MPI_X, Fortran mpi_x_ and its aliases. */
#define PW_ENTRY __attribute__((visibility("default")))

#endif
