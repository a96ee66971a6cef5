/* wrappers_lifecycle.c: the wrappers that start and end a rank's log, and Pcontrol.
 * They drive the runtime (phasor_internal.h) rather than just recording an event. */
#include <stdarg.h>

#include "fwrappers.h"
#include "phasor_internal.h"

PW_ENTRY int MPI_Init(int *argc, char ***argv)
{
    if (phasor_disabled_by_env() || pfw_lifecycle_nested)
        return PMPI_Init(argc, argv);
    phasor_clock_init();
    uint64_t t0 = phasor_now();
    int rc = PMPI_Init(argc, argv);
    uint64_t t1 = phasor_now();
    phasor_start(PLOG_CALL_MPI_Init, t0, t1, rc, -1, -1);
    return rc;
}

PW_ENTRY int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (phasor_disabled_by_env() || pfw_lifecycle_nested)
        return PMPI_Init_thread(argc, argv, required, provided);
    phasor_clock_init();
    uint64_t t0 = phasor_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    uint64_t t1 = phasor_now();
    phasor_start(PLOG_CALL_MPI_Init_thread, t0, t1, rc, required,
                 rc == MPI_SUCCESS ? *provided : -1);
    return rc;
}

PW_ENTRY int MPI_Finalize(void)
{
    if (pfw_lifecycle_nested) /* the Fortran wrapper records (fwrappers_special.c) */
        return PMPI_Finalize();
    uint64_t t0 = phasor_now();
    phasor_finish_begin();
    int rc = PMPI_Finalize();
    phasor_finish_end(t0, phasor_now(), rc);
    return rc;
}

PW_ENTRY int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (pfw_lifecycle_nested)
        return PMPI_Abort(comm, errorcode);
    phasor_on_abort(phasor_now(), errorcode, comm);
    return PMPI_Abort(comm, errorcode);
}

/* MPI_Pcontrol is variadic; the level is all MPI defines, and all phasor records (as the
 * event's tag). Phasor keeps recording whatever the level: markers, not switches. Level 2
 * probes the network under PHASOR_PROBE=...,pcontrol, after the event. */
PW_ENTRY int MPI_Pcontrol(const int level, ...)
{
    if (pfw_lifecycle_nested)
        return PMPI_Pcontrol(level);
    uint64_t t0 = phasor_now();
    int rc = PMPI_Pcontrol(level);
    phasor_record_pcontrol(t0, phasor_now(), level);
    phasor_probe_pcontrol(level);
    return rc;
}
