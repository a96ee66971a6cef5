/* phases_testlog.c: see phases_testlog.h. */
#include <stdlib.h>

#include "phases_testlog.h"
#include "plog_calls.h"
#include "plog_testgen.h"

int ptl_write_log(const char *dir, int32_t P, uint32_t nb, ptl_mark_fn mark, const int64_t *clk,
                  int pcontrol)
{
    return ptl_write_log_topo(dir, P, nb, mark, clk, pcontrol, 0);
}

/* the neighbour at offset d (+1 or -1) of r, or -1 past an open end */
static int32_t ptl_peer(int32_t r, int32_t d, int32_t P, int flags)
{
    int32_t q = r + d;
    if (q >= 0 && q < P)
        return q;
    return (flags & PTL_PERIODIC) && P > 2 ? (q + P) % P : -1;
}

int ptl_write_log_topo(const char *dir, int32_t P, uint32_t nb, ptl_mark_fn mark,
                       const int64_t *clk, int pcontrol, int flags)
{
    int32_t *all = malloc((size_t)P * sizeof(*all));
    if (all == NULL)
        return -1;
    for (int32_t i = 0; i < P; i++)
        all[i] = i;
    int rc = 0;
    for (int32_t r = 0; r < P && rc == 0; r++) {
        pgen_rank_t g;
        int64_t off = clk ? clk[r] : 0;
        uint64_t tinit = (uint64_t)(PTL_T0_TRUE - off);
        if (pgen_open(&g, dir, r, P, tinit) != 0) {
            rc = -1;
            break;
        }
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)P, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1, NULL, 0);
        pgen_flush_comms(&g);
        pgen_sync(&g, PLOG_SYNC_INIT, tinit, off, 100);
        pgen_flush_sync(&g);
        pgen_event(&g, 0, PLOG_CALL_MPI_Init, tinit - 500, tinit);
        for (uint32_t k = 0; k < nb; k++) {
            uint64_t t = (uint64_t)(mark(r, k) - off);
            if (pcontrol) {
                plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Pcontrol, t, t + 20);
                e->tag = 7;
                e->callsite = 0x51;
            }
            if (k + 1 == nb)
                break;
            /* the iteration's communication, inside it */
            uint64_t c = t + 100;
            /* receives first (from below, then from above), then the sends */
            for (int s = 0; s < 2; s++) {
                int32_t from = ptl_peer(r, s ? 1 : -1, P, flags);
                if (from < 0 || (s == 1 && !(flags & PTL_BIDIR)))
                    continue;
                plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Recv,
                                             s ? c + 210 : c, s ? c + 290 : c + 200);
                e->comm = 1;
                e->peer = from;
                e->tag = 1;
                e->callsite = 0x52;
                e->flags = PLOG_F_STATUS;
                pgen_extra1(&g, 0, 1);
                pgen_status(&g, 0, 0, from, 1, 8, 0);
            }
            for (int s = 0; s < 2; s++) {
                int32_t to = ptl_peer(r, s ? -1 : 1, P, flags);
                if (to < 0 || (s == 1 && !(flags & PTL_BIDIR)))
                    continue;
                plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Send,
                                             s ? c + 410 : c + 300, s ? c + 490 : c + 400);
                e->comm = 1;
                e->peer = to;
                e->tag = 1;
                e->bytes = 8;
                e->callsite = 0x53;
            }
            plog_event_t *w = pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, c + 500, c + 600);
            w->comm = 2;
            w->callsite = 0x54;
        }
        uint64_t tend = (uint64_t)(mark(r, nb - 1) - off) + 5000;
        pgen_event(&g, 0, PLOG_CALL_MPI_Finalize, tend, tend + 100);
        if (pgen_close(&g, NULL, 0) != 0)
            rc = -1;
    }
    free(all);
    return rc;
}
