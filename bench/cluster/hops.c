/* hops.c: where a small message's time goes between emulated hosts, rank by rank. Medians
 * over ITERS repetitions, microseconds, of:
 *   probe one-way  the quick probe's one-way sample (phasor_probe.h): a 0-byte ping-pong,
 *                  then the message and a 0-byte acknowledgement, less half the ping-pong;
 *   cold one-way   after a barrier, the receiver's arrival less the sender's send, on one
 *                  clock (the emulated hosts share the machine's; meaningless across
 *                  machines);
 *   chain hop      after a barrier, rank P-1 sends to P-2, which forwards to P-3, ... to 0:
 *                  the time to rank 0 over P-1 hops;
 *   exchange       after a barrier, rank r and r xor 2 exchange (Irecv, Isend, Waitall);
 *   Bcast, Reduce  after a barrier, MPI_Bcast from 0 and MPI_Reduce (MPI_INT, MPI_SUM) to
 *                  0 of BYTES, the last rank's exit less the first's entry.
 * So a collective's time can be read against its tree's hops of plain messages, which is
 * what the network models price. Pairs for the one-way times: 0-1, 2-3, ... (P even).
 * Usage: hops [BYTES (4096)] [ITERS (41)]; run on one rank per host
 * (bench/cluster/mpirun.sh --slots 1 -- build/openmpi/bench/cluster/hops 1024). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the span of a collective: last exit - first entry over the ranks, on rank 0 */
static double span(double t0, double t1)
{
    double in, out;
    MPI_Reduce(&t0, &in, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &out, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return out - in;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int size = argc > 1 ? atoi(argv[1]) : 4096, iters = argc > 2 ? atoi(argv[2]) : 41;
    if (np < 4 || np % 2 || size < 8 || iters < 1) {
        if (me == 0)
            fprintf(stderr, "hops: an even number of ranks >= 4, BYTES >= 8, ITERS >= 1\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc(2, (size_t)size), *rbuf = buf + size;
    double *t = malloc(7 * (size_t)iters * sizeof(double));
    if (!buf || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double *probe = t, *rtt = t + iters, *cold = t + 2 * iters, *chain = t + 3 * iters,
           *xchg = t + 4 * iters, *bcast = t + 5 * iters, *reduce = t + 6 * iters;
    int peer = me ^ 1, x = me ^ 2;
    for (int i = 0; i < iters; i++) {
        double t0, t1, ts;
        MPI_Barrier(MPI_COMM_WORLD);
        if (me < peer) {
            t0 = now_us();
            MPI_Send(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t1 = now_us();
            MPI_Send(buf, size, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            rtt[i] = t1 - t0;
            probe[i] = now_us() - t1;
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me < peer) {
            ts = now_us();
            memcpy(buf, &ts, sizeof(ts));
            MPI_Send(buf, size, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t1 = now_us();
            memcpy(&ts, buf, sizeof(ts));
            cold[i] = t1 - ts;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == np - 1) {
            ts = now_us();
            memcpy(buf, &ts, sizeof(ts));
            MPI_Send(buf, size, MPI_BYTE, me - 1, 5, MPI_COMM_WORLD);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, me + 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (me > 0) {
                MPI_Send(buf, size, MPI_BYTE, me - 1, 5, MPI_COMM_WORLD);
            } else {
                memcpy(&ts, buf, sizeof(ts));
                chain[i] = (now_us() - ts) / (np - 1);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Request rq[2];
        t0 = now_us();
        MPI_Irecv(rbuf, size, MPI_BYTE, x < np ? x : MPI_PROC_NULL, 6, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(buf, size, MPI_BYTE, x < np ? x : MPI_PROC_NULL, 6, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        xchg[i] = now_us() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_us();
        MPI_Bcast(buf, size, MPI_BYTE, 0, MPI_COMM_WORLD);
        bcast[i] = span(t0, now_us());
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_us();
        MPI_Reduce(buf, rbuf, size / (int)sizeof(int), MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        reduce[i] = span(t0, now_us());
    }
    /* the receivers' one-way times to rank 0 */
    double c = me % 2 ? median(cold, iters) : 0, cmax;
    MPI_Reduce(&c, &cmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d B, %d ranks: probe one-way %.1f us (message + ack %.1f, 0-byte round trip "
               "%.1f), cold one-way %.1f (slowest pair), chain hop %.1f, exchange %.1f, "
               "Bcast %.1f, Reduce %.1f\n",
               size, np, median(probe, iters) - median(rtt, iters) / 2, median(probe, iters),
               median(rtt, iters), cmax, median(chain, iters), median(xchg, iters),
               median(bcast, iters), median(reduce, iters));
    free(buf);
    free(t);
    MPI_Finalize();
    return 0;
}
