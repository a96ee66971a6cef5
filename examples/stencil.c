/* stencil.c: a 2-D Jacobi solver with halo exchange, the kind of program phasor is made for.
 *
 * The N x N interior points of a square plate are split over a 2-D grid of processes
 * (MPI_Dims_create + MPI_Cart_create). The plate's top edge is held at 1, the other edges at 0.
 * Every iteration each process
 *   1. exchanges one-cell halos with its four neighbours: MPI_Irecv, MPI_Isend, MPI_Waitall
 *      (neighbours outside the plate are MPI_PROC_NULL, so border processes need no special
 *      case: those messages complete at once and their halo cells keep the boundary values);
 *   2. replaces every interior point by the mean of its four neighbours (Jacobi);
 *   3. sums the squared change over all processes with MPI_Allreduce (the residual).
 * At the end rank 0 prints the residual and a checksum of the whole plate (MPI_Reduce), both
 * with %.17g so that two runs of the same build can be compared bit for bit.
 *
 * Usage: mpirun -np P stencil [N [ITERATIONS [SLEEP_US]]]
 *        (defaults: N = 256, 200 iterations, no sleep)
 * SLEEP_US: every iteration also sleeps that long after its update, compute that holds no
 * core: for timing experiments with more ranks than cores (bench/replay_vs_simgrid.sh),
 * where ranks that compute for real slow each other's messages down. The results do not
 * change. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NORTH, SOUTH, WEST, EAST }; /* also the tag of a message travelling that way */

typedef struct block {
    int rows, cols;  /* interior points owned by this process */
    double *u, *v;   /* (rows + 2) x (cols + 2) with the halo; v is the next iterate */
} block_t;

#define AT(b, a, i, j) ((a)[(size_t)(i) * (size_t)((b)->cols + 2) + (size_t)(j)])

/* How many of n points process `coord` of `parts` owns (the first n % parts get one more). */
static int share(int n, int parts, int coord) { return n / parts + (coord < n % parts); }

static void die(const char *what)
{
    fprintf(stderr, "stencil: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Zero everywhere; the halo cells on the plate's top edge are 1. */
static void block_init(block_t *b, int at_top)
{
    size_t n = (size_t)(b->rows + 2) * (size_t)(b->cols + 2);
    b->u = calloc(n, sizeof(double));
    b->v = calloc(n, sizeof(double));
    if (!b->u || !b->v)
        die("out of memory");
    if (at_top)
        for (int j = 0; j < b->cols + 2; j++)
            AT(b, b->u, 0, j) = AT(b, b->v, 0, j) = 1.0;
}

/* The halo exchange: post the four receives, pack and send the four edges, wait for all eight,
 * unpack what came from real neighbours. */
static void exchange(block_t *b, MPI_Comm cart, const int nbr[4], double *sendbuf[4],
                     double *recvbuf[4])
{
    static const int opposite[4] = {SOUTH, NORTH, EAST, WEST};
    const int len[4] = {b->cols, b->cols, b->rows, b->rows};
    MPI_Request req[8];
    MPI_Status st[8];

    /* What arrives from the north neighbour travelled south, and so on. */
    for (int d = 0; d < 4; d++)
        MPI_Irecv(recvbuf[d], len[d], MPI_DOUBLE, nbr[d], opposite[d], cart, &req[d]);
    for (int j = 0; j < b->cols; j++) {
        sendbuf[NORTH][j] = AT(b, b->u, 1, j + 1);
        sendbuf[SOUTH][j] = AT(b, b->u, b->rows, j + 1);
    }
    for (int i = 0; i < b->rows; i++) {
        sendbuf[WEST][i] = AT(b, b->u, i + 1, 1);
        sendbuf[EAST][i] = AT(b, b->u, i + 1, b->cols);
    }
    for (int d = 0; d < 4; d++)
        MPI_Isend(sendbuf[d], len[d], MPI_DOUBLE, nbr[d], d, cart, &req[4 + d]);
    MPI_Waitall(8, req, st);

    if (nbr[NORTH] != MPI_PROC_NULL)
        memcpy(&AT(b, b->u, 0, 1), recvbuf[NORTH], (size_t)b->cols * sizeof(double));
    if (nbr[SOUTH] != MPI_PROC_NULL)
        memcpy(&AT(b, b->u, b->rows + 1, 1), recvbuf[SOUTH], (size_t)b->cols * sizeof(double));
    for (int i = 0; i < b->rows; i++) {
        if (nbr[WEST] != MPI_PROC_NULL)
            AT(b, b->u, i + 1, 0) = recvbuf[WEST][i];
        if (nbr[EAST] != MPI_PROC_NULL)
            AT(b, b->u, i + 1, b->cols + 1) = recvbuf[EAST][i];
    }
}

/* One Jacobi sweep from u into v; returns the local sum of squared changes. */
static double jacobi(block_t *b)
{
    double change = 0.0;
    for (int i = 1; i <= b->rows; i++)
        for (int j = 1; j <= b->cols; j++) {
            double next = 0.25 * (AT(b, b->u, i - 1, j) + AT(b, b->u, i + 1, j) +
                                  AT(b, b->u, i, j - 1) + AT(b, b->u, i, j + 1));
            double d = next - AT(b, b->u, i, j);
            change += d * d;
            AT(b, b->v, i, j) = next;
        }
    double *t = b->u; /* v's halo is stale, but the next exchange refreshes u's */
    b->u = b->v;
    b->v = t;
    return change;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int iterations = argc > 2 ? atoi(argv[2]) : 200;
    long sleep_us = argc > 3 ? atol(argv[3]) : 0;
    int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], nbr[4];
    MPI_Comm cart;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    if (n < dims[0] || n < dims[1] || iterations < 0 || sleep_us < 0)
        die("usage: stencil [N [ITERATIONS [SLEEP_US]]], with N at least the process grid's "
            "sides");
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    MPI_Cart_shift(cart, 0, 1, &nbr[NORTH], &nbr[SOUTH]);
    MPI_Cart_shift(cart, 1, 1, &nbr[WEST], &nbr[EAST]);

    block_t b = {share(n, dims[0], coords[0]), share(n, dims[1], coords[1]), NULL, NULL};
    block_init(&b, coords[0] == 0);
    double *sendbuf[4], *recvbuf[4];
    for (int d = 0; d < 4; d++) {
        int len = d < WEST ? b.cols : b.rows;
        sendbuf[d] = malloc((size_t)len * sizeof(double));
        recvbuf[d] = malloc((size_t)len * sizeof(double));
        if (!sendbuf[d] || !recvbuf[d])
            die("out of memory");
    }

    double residual = 0.0;
    for (int it = 0; it < iterations; it++) {
        exchange(&b, cart, nbr, sendbuf, recvbuf);
        double change = jacobi(&b);
        if (sleep_us > 0) {
            struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
            while (nanosleep(&ts, &ts) != 0)
                ; /* interrupted: the rest */
        }
        MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, cart);
    }

    double local = 0.0, checksum = 0.0;
    for (int i = 1; i <= b.rows; i++)
        for (int j = 1; j <= b.cols; j++)
            local += AT(&b, b.u, i, j);
    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
    if (rank == 0) {
        printf("stencil: %dx%d points, %d iterations, %d processes as %dx%d\n", n, n, iterations,
               size, dims[0], dims[1]);
        printf("residual %.17g\nchecksum %.17g\n", residual, checksum);
    }

    for (int d = 0; d < 4; d++) {
        free(sendbuf[d]);
        free(recvbuf[d]);
    }
    free(b.u);
    free(b.v);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
