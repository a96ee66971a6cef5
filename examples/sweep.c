/* sweep.c: a wavefront mini-app with the communication of Sweep3D, the application of the
 * LogGP paper (002: Sundaram-Stukel & Vernon, PPoPP'99), for replaying a pipelined run and
 * comparing with the paper's closed-form model (bench/sweep_model.py, doc/sweep.md).
 *
 * The i and j dimensions of an (px·it) × (py·jt) × kt grid are split over a px × py grid of
 * processes (i east-west, j north-south; rank = j·px + i). An iteration sweeps the 8 octants
 * (the 8 signs of an angle's direction cosines) in the paper's order: octant pairs 1-2, 3-4,
 * 5-6, 7-8 start from the north-east, south-east, north-west and south-west corners, the two
 * octants of a pair differ only in k, so a processor goes on from the first octant of a pair
 * to the second (and to the next pair) as soon as its own blocks are done: the pipelines of
 * consecutive sweeps overlap as in Sweep3D. Each octant's mo angles and kt planes are cut into
 * blocks of mmi angles × mk planes; per block a process
 *   1. receives the i-face from its upstream i neighbour (MPI_Recv, jt·mk·mmi doubles),
 *      then the j-face from its upstream j neighbour (it·mk·mmi doubles),
 *   2. computes the block: a first-order upwind transport update of it·jt·mk·mmi points, or,
 *      with --sleep-ns-per-point W, sleeps W·it·jt·mk·mmi ns (clock_nanosleep), the mode for
 *      timing on an oversubscribed machine (sleeping ranks leave the cores free),
 *   3. sends its outgoing i-face downstream in i, then its j-face downstream in j (MPI_Send).
 * Processes on the grid's edge skip the messages to and from outside it.
 * Rank 0 prints the elapsed time (the slowest rank's, MPI_Reduce max), the mean time a block
 * took to compute, and in real mode the sum of the scalar flux (%.17g) and a checksum that
 * does not depend on how the grid is split (up to rounding). Run with --help for options. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct opts {
    int px, py;           /* 0: MPI_Dims_create */
    long it, jt, kt;      /* local grid */
    long mo, mmi, mk;     /* angles per octant, angles per block, planes per block */
    long iterations;
    double sleep_ns;      /* per point; 0: real arithmetic */
} opts_t;

static int rank, nranks;

static const char usage[] =
    "Usage: mpirun -np P sweep [options]\n"
    "A wavefront mini-app with Sweep3D's communication: 8 octants per iteration, each a\n"
    "pipeline of blocks (mmi angles x mk planes) across a px x py process grid; per block\n"
    "MPI_Recv from the two upstream neighbours, compute, MPI_Send to the two downstream.\n"
    "  --px N, --py N            the process grid (default: MPI_Dims_create; px x py = P)\n"
    "  --it N, --jt N, --kt N    local grid per process (default 16 x 16 x 64)\n"
    "  --mo N                    angles per octant (default 6)\n"
    "  --mmi N                   angles per block, divides --mo (default 3)\n"
    "  --mk N                    k-planes per block, divides --kt (default 8)\n"
    "  -n, --iterations N        iterations, 8 octants each (default 1)\n"
    "  --sleep-ns-per-point W    sleep W ns per point of a block instead of computing\n"
    "                            (W_g of the paper's eq 5; default 0: compute)\n"
    "  -h, --help                this text\n"
    "Per iteration a process sends 8 (mo/mmi)(kt/mk) messages to each downstream neighbour\n"
    "it has: the i-face, jt*mk*mmi*8 bytes, east or west, the j-face, it*mk*mmi*8 bytes,\n"
    "north or south. Prints elapsed_s (slowest rank), block_compute_ns (mean), and in\n"
    "compute mode flux_sum and checksum.\n";

__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "sweep: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (try --help)\n");
        va_end(ap);
    }
    return 2;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return bad("%s: '%s' is not an integer in %ld..%ld", opt, s, lo, hi);
    *out = v;
    return 0;
}

/* 0: go on, 1: --help printed, 2: bad usage (rank 0 printed why) */
static int parse(int argc, char **argv, opts_t *o)
{
    enum { O_PX = 256, O_PY, O_IT, O_JT, O_KT, O_MO, O_MMI, O_MK, O_SLEEP };
    static const struct option lopts[] = {
        {"px", required_argument, 0, O_PX}, {"py", required_argument, 0, O_PY},
        {"it", required_argument, 0, O_IT}, {"jt", required_argument, 0, O_JT},
        {"kt", required_argument, 0, O_KT}, {"mo", required_argument, 0, O_MO},
        {"mmi", required_argument, 0, O_MMI}, {"mk", required_argument, 0, O_MK},
        {"iterations", required_argument, 0, 'n'},
        {"sleep-ns-per-point", required_argument, 0, O_SLEEP},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *o = (opts_t){.it = 16, .jt = 16, .kt = 64, .mo = 6, .mmi = 3, .mk = 8, .iterations = 1};
    /* a face of up to 2^24 doubles: the count of one MPI_Send stays an int */
    const long big = 1L << 24;
    long v;
    int c, rc = 0;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, ":n:h", lopts, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case O_PX: rc = parse_long("--px", a, 1, 1 << 20, &v); o->px = (int)v; break;
        case O_PY: rc = parse_long("--py", a, 1, 1 << 20, &v); o->py = (int)v; break;
        case O_IT: rc = parse_long("--it", a, 1, big, &o->it); break;
        case O_JT: rc = parse_long("--jt", a, 1, big, &o->jt); break;
        case O_KT: rc = parse_long("--kt", a, 1, big, &o->kt); break;
        case O_MO: rc = parse_long("--mo", a, 1, 4096, &o->mo); break;
        case O_MMI: rc = parse_long("--mmi", a, 1, 4096, &o->mmi); break;
        case O_MK: rc = parse_long("--mk", a, 1, big, &o->mk); break;
        case 'n': rc = parse_long("--iterations", a, 1, 1L << 30, &o->iterations); break;
        case O_SLEEP: {
            char *end;
            errno = 0;
            o->sleep_ns = strtod(a, &end);
            if (errno || end == a || *end || !isfinite(o->sleep_ns) || o->sleep_ns < 0)
                rc = bad("--sleep-ns-per-point: '%s' is not a non-negative number", a);
            break;
        }
        case 'h':
            if (rank == 0)
                fputs(usage, stdout);
            return 1;
        case ':': rc = bad("%s needs a value", argv[optind - 1]); break;
        default: rc = bad("%s: unknown option", argv[optind - 1]); break;
        }
    }
    if (rc)
        return rc;
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    if (o->mo % o->mmi)
        return bad("--mmi %ld does not divide --mo %ld", o->mmi, o->mo);
    if (o->kt % o->mk)
        return bad("--mk %ld does not divide --kt %ld", o->mk, o->kt);
    if (o->jt * o->mk * o->mmi > big || o->it * o->mk * o->mmi > big)
        return bad("a block's face is more than %ld doubles", big);
    int dims[2] = {o->px, o->py};
    if (o->px && nranks % o->px)
        return bad("--px %d does not divide %d ranks", o->px, nranks);
    if (o->py && nranks % o->py)
        return bad("--py %d does not divide %d ranks", o->py, nranks);
    if (o->px && o->py && (long)o->px * o->py != nranks)
        return bad("--px %d x --py %d is not %d ranks", o->px, o->py, nranks);
    MPI_Dims_create(nranks, 2, dims);
    o->px = dims[0];
    o->py = dims[1];
    return 0;
}

/* The state of a process: its place, its faces and its share of the scalar flux. */
typedef struct proc {
    const opts_t *o;
    int ci, cj; /* grid coordinates: ci west to east, cj north to south */
    double *fi, *fj, *fk; /* faces: jt*mk*mmi, it*mk*mmi, it*jt*mmi */
    double *flux;         /* it*jt*kt, compute mode only */
    double compute_s;     /* time spent in blocks' compute */
    long blocks;
} proc_t;

static void *alloc(size_t n)
{
    void *p = calloc(n ? n : 1, sizeof(double));
    if (!p) {
        fprintf(stderr, "sweep: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One block: mmi angles from angle a0 of octant oct, planes kb*mk .. of the sweep's k order.
 * Upwind in every direction: a point's inflow is the value its upstream neighbour left on
 * the face, and it leaves its own there for the next (diamond difference without fixups). */
static void compute_block(proc_t *p, int oct, int di, int dj, int dk, long a0, long kb)
{
    const opts_t *o = p->o;
    const long it = o->it, jt = o->jt, kt = o->kt, mk = o->mk, mmi = o->mmi;
    if (o->sleep_ns > 0) {
        double ns = o->sleep_ns * (double)(it * jt * mk * mmi);
        struct timespec ts = {(time_t)(ns / 1e9), (long)fmod(ns, 1e9)};
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
            ;
        return;
    }
    for (long m = 0; m < mmi; m++) {
        /* direction cosines of angle a0 + m of this octant; every octant has the same set */
        double g = (double)(a0 + m + 1) / (double)(o->mo + 1);
        double mu = 0.2 + 0.6 * g, eta = 0.8 - 0.5 * g, xi = 0.3 + 0.4 * g * g;
        double w = (1.0 + 0.01 * (double)oct) / (double)(8 * o->mo);
        double den = 1.0 + 2.0 * (mu + eta + xi);
        for (long kk = 0; kk < mk; kk++) {
            long kl = kb * mk + kk;                /* plane in sweep order */
            long k = dk > 0 ? kl : kt - 1 - kl;    /* and in the grid */
            for (long jj = 0; jj < jt; jj++) {
                long j = dj > 0 ? jj : jt - 1 - jj;
                for (long ii = 0; ii < it; ii++) {
                    long i = di > 0 ? ii : it - 1 - ii;
                    double *pi = &p->fi[(j * mk + kk) * mmi + m];
                    double *pj = &p->fj[(i * mk + kk) * mmi + m];
                    double *pk = &p->fk[(i * jt + j) * mmi + m];
                    double psi = (1.0 + 2.0 * (mu * *pi + eta * *pj + xi * *pk)) / den;
                    *pi = *pj = *pk = psi;
                    p->flux[(k * jt + j) * it + i] += w * psi;
                }
            }
        }
    }
}

/* One octant: directions di, dj, dk (+1: increasing index). */
static void octant(proc_t *p, MPI_Comm comm, int oct, int di, int dj, int dk)
{
    const opts_t *o = p->o;
    const int ni = (int)(o->jt * o->mk * o->mmi), nj = (int)(o->it * o->mk * o->mmi);
    const int px = o->px, py = o->py, ci = p->ci, cj = p->cj;
    /* upstream and downstream neighbours in i and j, or none at the grid's edge */
    int ui = ci - di >= 0 && ci - di < px ? cj * px + ci - di : MPI_PROC_NULL;
    int oi = ci + di >= 0 && ci + di < px ? cj * px + ci + di : MPI_PROC_NULL;
    int uj = cj - dj >= 0 && cj - dj < py ? (cj - dj) * px + ci : MPI_PROC_NULL;
    int oj = cj + dj >= 0 && cj + dj < py ? (cj + dj) * px + ci : MPI_PROC_NULL;
    const int ti = 2 * oct, tj = 2 * oct + 1; /* a tag per octant and face, for reading logs */
    for (long a0 = 0; a0 < o->mo; a0 += o->mmi) {
        /* the k-face enters at the grid's k boundary (0: vacuum) for every angle block */
        memset(p->fk, 0, (size_t)(o->it * o->jt * o->mmi) * sizeof(double));
        for (long kb = 0; kb < o->kt / o->mk; kb++) {
            /* faces entering at the global boundary are vacuum; calls to MPI_PROC_NULL are
             * skipped rather than made so that the log holds only real messages */
            if (ui != MPI_PROC_NULL)
                MPI_Recv(p->fi, ni, MPI_DOUBLE, ui, ti, comm, MPI_STATUS_IGNORE);
            else
                memset(p->fi, 0, (size_t)ni * sizeof(double));
            if (uj != MPI_PROC_NULL)
                MPI_Recv(p->fj, nj, MPI_DOUBLE, uj, tj, comm, MPI_STATUS_IGNORE);
            else
                memset(p->fj, 0, (size_t)nj * sizeof(double));
            double t0 = now();
            compute_block(p, oct, di, dj, dk, a0, kb);
            p->compute_s += now() - t0;
            p->blocks++;
            if (oi != MPI_PROC_NULL)
                MPI_Send(p->fi, ni, MPI_DOUBLE, oi, ti, comm);
            if (oj != MPI_PROC_NULL)
                MPI_Send(p->fj, nj, MPI_DOUBLE, oj, tj, comm);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    opts_t o;
    int rc = parse(argc, argv, &o);
    if (rc) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    proc_t p = {.o = &o, .ci = rank % o.px, .cj = rank / o.px};
    p.fi = alloc((size_t)(o.jt * o.mk * o.mmi));
    p.fj = alloc((size_t)(o.it * o.mk * o.mmi));
    p.fk = alloc((size_t)(o.it * o.jt * o.mmi));
    p.flux = alloc(o.sleep_ns > 0 ? 0 : (size_t)(o.it * o.jt * o.kt));
    /* The paper's octant pairs in order, by their starting corner (i west to east, j north to
     * south): 1-2 north-east, 3-4 south-east, 5-6 north-west, 7-8 south-west; within a pair
     * k up, then down. Each pair starts where (or beside where) the one before ended. */
    static const int dir[8][3] = {{-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1},
                                  {1, 1, 1},  {1, 1, -1},  {1, -1, 1},  {1, -1, -1}};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long n = 0; n < o.iterations; n++)
        for (int q = 0; q < 8; q++)
            octant(&p, MPI_COMM_WORLD, q + 1, dir[q][0], dir[q][1], dir[q][2]);
    double el = MPI_Wtime() - t0, elmax = 0;
    MPI_Reduce(&el, &elmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double mine[2] = {p.compute_s, (double)p.blocks}, all[2] = {0, 0};
    MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double sums[2] = {0, 0}, tot[2] = {0, 0};
    if (o.sleep_ns <= 0) {
        /* the flux sum, and a sum weighted by each point's global position: both the same
         * whatever the split of a given global grid, up to the order of the additions */
        for (long k = 0; k < o.kt; k++)
            for (long j = 0; j < o.jt; j++)
                for (long i = 0; i < o.it; i++) {
                    double f = p.flux[(k * o.jt + j) * o.it + i];
                    long gi = p.ci * o.it + i, gj = p.cj * o.jt + j;
                    sums[0] += f;
                    sums[1] += f * (double)(1 + (gi * 7 + gj * 13 + k * 3) % 101);
                }
        MPI_Reduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        printf("sweep: %d x %d ranks, local %ld x %ld x %ld, mo %ld, mmi %ld, mk %ld, "
               "%ld iteration(s), %s\n", o.px, o.py, o.it, o.jt, o.kt, o.mo, o.mmi, o.mk,
               o.iterations, o.sleep_ns > 0 ? "sleep" : "compute");
        printf("elapsed_s %.6f\n", elmax);
        printf("block_compute_ns %.1f\n", all[1] > 0 ? 1e9 * all[0] / all[1] : 0.0);
        if (o.sleep_ns <= 0) {
            printf("flux_sum %.17g\n", tot[0]);
            printf("checksum %.17g\n", tot[1]);
        }
    }
    free(p.fi);
    free(p.fj);
    free(p.fk);
    free(p.flux);
    MPI_Finalize();
    return 0;
}
