/* phases_testlog.h: synthetic logs with known iteration boundaries for the tests of
 * `phasor phases` (tests/unit/test_phases.c) and its figures (phases_mklog, cli_plots.sh). */
#ifndef PHASES_TESTLOG_H
#define PHASES_TESTLOG_H

#include <stdint.h>

typedef int64_t (*ptl_mark_fn)(int32_t r, uint32_t k); /* true time of boundary k on rank r */

#define PTL_T0_TRUE 1000000 /* rank 0's MPI_Init return, true time */

/* P ranks into dir (which must exist); rank r's local clock is behind the true one by clk[r]
 * (its sync sample says so; NULL: 0), and receives from rank r - 1 at every iteration (a
 * chain). With pcontrol, a Pcontrol(7) at each boundary; every iteration also has a Recv
 * (rank > 0), a Send (rank < P - 1) and a Barrier at fixed call sites. Boundaries must be
 * >= 1000 ns apart. 0, or -1 on a write failure. */
int ptl_write_log(const char *dir, int32_t P, uint32_t nb, ptl_mark_fn mark, const int64_t *clk,
                  int pcontrol);
/* The same with the exchange chosen by flags: PTL_PERIODIC, rank 0 also receives from P - 1
 * (a ring); PTL_BIDIR, every rank also receives from r + 1 (and rank r sends both ways). */
#define PTL_PERIODIC 1
#define PTL_BIDIR 2
int ptl_write_log_topo(const char *dir, int32_t P, uint32_t nb, ptl_mark_fn mark,
                       const int64_t *clk, int pcontrol, int flags);

#endif
