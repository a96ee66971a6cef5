/* phasor_clocksync.c: offset of each rank's monotonic clock to rank 0's, measured by
 * min-round-trip ping-pong on phasor_shim_comm (every message of it received before it returns).
 *
 * Rank 0 serves every other rank in turn, PHASOR_SYNC_ROUNDS exchanges each. For the
 * exchange with the smallest round trip, rank 0's reply time is assumed to fall in the
 * middle of the round trip: offset = t_root - (t_send + t_recv) / 2, error <= rtt / 2.
 * Run at MPI_Init and at MPI_Finalize, the two samples give the reader a linear drift. */
#include <assert.h>
#include <stdlib.h>

#include "phasor_internal.h"

#define PHASOR_SYNC_ROUNDS 16
#define PHASOR_SYNC_TAG 4242

void phasor_clocksync(unsigned phase, plog_sync_sample_t *out)
{
    assert(phase == PLOG_SYNC_INIT || phase == PLOG_SYNC_FINALIZE);
    assert(phasor_shim_comm != MPI_COMM_NULL); /* collective on the shim's own comm */
    out->phase = phase;
    out->offset_ns = 0;
    out->rtt_ns = 0;
    out->local_ns = phasor_mono_ns();
    if (phasor_world_size <= 1)
        return;
    MPI_Comm c = phasor_shim_comm;
    if (phasor_world_rank == 0) {
        for (int r = 1; r < phasor_world_size; r++) {
            for (int k = 0; k < PHASOR_SYNC_ROUNDS; k++) {
                uint64_t ping, now;
                PMPI_Recv(&ping, 1, MPI_UINT64_T, r, PHASOR_SYNC_TAG, c, MPI_STATUS_IGNORE);
                now = phasor_mono_ns();
                PMPI_Send(&now, 1, MPI_UINT64_T, r, PHASOR_SYNC_TAG, c);
            }
        }
        out->local_ns = phasor_mono_ns();
        return;
    }
    uint64_t best_rtt = UINT64_MAX;
    for (int k = 0; k < PHASOR_SYNC_ROUNDS; k++) {
        uint64_t t_root, t1 = phasor_mono_ns();
        PMPI_Send(&t1, 1, MPI_UINT64_T, 0, PHASOR_SYNC_TAG, c);
        PMPI_Recv(&t_root, 1, MPI_UINT64_T, 0, PHASOR_SYNC_TAG, c, MPI_STATUS_IGNORE);
        uint64_t t2 = phasor_mono_ns();
        if (t2 - t1 < best_rtt) {
            best_rtt = t2 - t1;
            uint64_t mid = t1 + (t2 - t1) / 2;
            out->local_ns = mid;
            out->offset_ns = (int64_t)(t_root - mid);
            out->rtt_ns = best_rtt;
        }
    }
}
