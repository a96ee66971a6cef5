/* fwrappers.h: what the Fortran wrappers (gen/pmpi_fwrappers.c, pmpi/fwrappers_special.c)
 * share: the library's Fortran sentinels, status size, aliases, comm registration.
 *
 * A Fortran wrapper mpi_x_ records around the library's own Fortran entry pmpi_x_, passing
 * every argument through untouched; it reads Fortran handles only through the f2c functions,
 * read-only, to fill the event. pmpi_x_ is declared weak so that libphasor needs no link
 * against the Fortran bindings: in a C program nothing calls mpi_x_ anyway.
 * Fortran INTEGER must be MPI_Fint (builds with -fdefault-integer-8 are not supported unless
 * the MPI library itself was built for them). */
#ifndef PMPI_FWRAPPERS_H
#define PMPI_FWRAPPERS_H

#include "wrappers.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran counts arrays are read as int[]");

/* gfortran and most compilers call mpi_x_; the others: mpi_x, mpi_x__ (g77, f2c), MPI_X. */
#define PFW_ALIASES(f, a, b, c)                                                             \
    extern __typeof__(f) a PW_ENTRY __attribute__((alias(#f)));                             \
    extern __typeof__(f) b PW_ENTRY __attribute__((alias(#f)));                             \
    extern __typeof__(f) c PW_ENTRY __attribute__((alias(#f)));

/* A Fortran status: MPI_STATUS_SIZE integers (6 on Open MPI, 5 on MPICH). */
#define PFW_STATUS_FINTS ((sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint))

/* The addresses Fortran passes for MPI_IN_PLACE and MPI_BOTTOM. Open MPI: common blocks of
 * libmpi. MPICH: pointers libmpichfort sets at the first Fortran call (MPI_Init at the
 * latest, before any wrapper below reads them). */
#if defined(OPEN_MPI) && OPEN_MPI
extern int mpi_fortran_in_place_ __attribute__((weak, visibility("default")));
extern int mpi_fortran_bottom_ __attribute__((weak, visibility("default")));
#define PFW_IN_PLACE ((const void *)&mpi_fortran_in_place_)
#define PFW_BOTTOM ((const void *)&mpi_fortran_bottom_)
#elif defined(MPICH_VERSION)
extern void *MPIR_F_MPI_IN_PLACE __attribute__((weak, visibility("default")));
extern void *MPIR_F_MPI_BOTTOM __attribute__((weak, visibility("default")));
#define PFW_IN_PLACE (&MPIR_F_MPI_IN_PLACE ? (const void *)MPIR_F_MPI_IN_PLACE : NULL)
#define PFW_BOTTOM (&MPIR_F_MPI_BOTTOM ? (const void *)MPIR_F_MPI_BOTTOM : NULL)
#else
#define PFW_IN_PLACE NULL
#define PFW_BOTTOM NULL
#endif

/* Not before: the sentinels above are the MPI library's, found at run time (a hidden
 * undefined weak symbol would resolve to NULL at link time). */
#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

/* A Fortran buffer argument as the C wrappers' directives see it. */
static inline const void *pfw_buf(const void *b)
{
    const void *in_place = PFW_IN_PLACE, *bottom = PFW_BOTTOM;
    if (b != NULL && b == in_place)
        return MPI_IN_PLACE;
    if (b != NULL && b == bottom)
        return MPI_BOTTOM;
    return b;
}

static inline int pfw_status_ignored(const MPI_Fint *s)
{
    return s == NULL || s == MPI_F_STATUS_IGNORE;
}

static inline int pfw_statuses_ignored(const MPI_Fint *s)
{
    return s == NULL || s == MPI_F_STATUSES_IGNORE;
}

/* Status i of an array of Fortran statuses, converted into *tmp (pw_status_fn, wrappers.h). */
static inline const MPI_Status *pfw_status(const void *sts, int i, MPI_Status *tmp)
{
    PMPI_Status_f2c((const MPI_Fint *)sts + (size_t)i * PFW_STATUS_FINTS, tmp);
    return tmp;
}

/* Register a communicator a Fortran constructor made, once: on MPICH the library's Fortran
 * entry went through the C wrapper, which registered it while passing through. */
static inline uint32_t pfw_comm_register(MPI_Comm newcomm, MPI_Comm parent, unsigned call)
{
    const phasor_comm_info_t *ci =
        newcomm == MPI_COMM_NULL ? NULL : phasor_comm_lookup(newcomm);
    return ci ? ci->id : phasor_comm_register(newcomm, parent, call);
}

/* Set while a Fortran Init/Finalize/Abort/Pcontrol wrapper runs: on MPICH the library's
 * Fortran entry calls the C function, whose wrapper must then only pass through. */
extern PHASOR_TLS int pfw_lifecycle_nested;

/* n Fortran datatypes as C handles, in a per-thread buffer (which: 0 send, 1 receive side);
 * NULL when n <= 0 or memory ran out. */
const MPI_Datatype *pfw_types(phasor_thread_t *th, const MPI_Fint *f, int n, int which);

#pragma GCC visibility pop

#endif
