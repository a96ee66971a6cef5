/* idlewave.c: a configurable barrier-free mini-app for idle waves, resynchronisation and
 * computational wavefronts (the scenarios of the coupled-oscillator model, doc/idlewave.md).
 *
 * Every iteration each rank marks the iteration's start with MPI_Pcontrol(1), "computes",
 * then exchanges messages with its neighbours at distances 1..d (MPI_Irecv, MPI_Isend,
 * MPI_Waitall); one more MPI_Pcontrol(1) closes the last iteration. The neighbours are
 * ranks i-k and i+k (bidirectional) or, unidirectional, receive from i-k and send to i+k;
 * an open chain has no neighbours past its ends, a periodic one wraps around.
 *
 * Compute is either a sleep of fixed length (a resource-scalable code: ranks never slow each
 * other down, and sleeping ranks leave the cores free, so many oversubscribed ranks behave)
 * or an emulated shared-bandwidth bottleneck: a counter in a shared-memory segment of the
 * node holds how many ranks of the bottleneck domain are computing, and each rank's work
 * advances at rate min(1, S/n) with n that count and S the saturation (processor sharing of
 * a bandwidth that S ranks saturate, the shape of a memory-bound loop's bandwidth over cores).
 * A one-off delay on one rank and iteration, and per-iteration noise drawn from a seeded
 * per-rank generator, come on top. Run with --help for the options. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DIR_BI, DIR_UNI };
enum { COMP_SLEEP, COMP_BOTTLENECK };
enum { NOISE_NONE, NOISE_UNIFORM, NOISE_EXP };
enum { WAIT_ALL, WAIT_EACH };

typedef struct opts {
    long iterations;
    double compute_us;
    int direction, periodic, distance, wait;
    long bytes;
    int compute;
    double saturation;
    int domain;       /* ranks per bottleneck domain, 0: the whole node */
    double slice_us;  /* 0: compute_us / 20, at least 50 us */
    long delay_rank, delay_iter;
    double delay_us;
    double overhead_us; /* per iteration, outside the bandwidth model */
    int noise;
    double noise_mean_us;
    uint64_t seed;
    int markers;
} opts_t;

static const char usage[] =
    "Usage: mpirun -np P idlewave [options]\n"
    "A barrier-free iterative program: compute, then exchange with the neighbours.\n"
    "  -n, --iterations N        iterations (default 100)\n"
    "  -c, --compute-us US       compute time per iteration in microseconds (default 10000);\n"
    "                            with --compute bottleneck, the time of a rank computing alone\n"
    "      --direction bi|uni    bi: exchange with ranks i-k and i+k; uni: receive from i-k,\n"
    "                            send to i+k (default bi)\n"
    "      --boundary open|periodic  chain ends have no outer neighbours, or wrap (default open)\n"
    "  -d, --distance D          neighbours at distances 1..D (default 1; D < P)\n"
    "  -b, --bytes B             bytes per message (default 8; eager below the library's\n"
    "                            limit, rendezvous above: doc/idlewave.md)\n"
    "      --wait all|each       one MPI_Waitall for every distance, or post and wait each\n"
    "                            distance in turn (default all)\n"
    "      --compute sleep|bottleneck  scalable sleep, or the shared-bandwidth emulation\n"
    "                            (default sleep)\n"
    "      --saturation S        bottleneck: ranks computing at once that saturate the\n"
    "                            bandwidth; n > S ranks each get S/n of a lone rank's speed\n"
    "                            (default 4)\n"
    "      --domain K            bottleneck: ranks per domain sharing one bandwidth, counted\n"
    "                            in node order (default 0: every rank of the node)\n"
    "      --slice-us US         bottleneck: how often a computing rank re-reads the count\n"
    "                            (default compute/20, at least 50)\n"
    "      --overhead-us US      per-iteration time after the compute that uses no bandwidth\n"
    "                            (a stand-in for communication overhead; default 0)\n"
    "      --delay-rank R        inject a one-off delay on rank R\n"
    "      --delay-iter K        ... in iteration K (default iterations/4)\n"
    "      --delay-us US         ... of US microseconds (default half the compute time)\n"
    "      --noise DIST[:MEAN]   extra time every iteration on every rank: none, uniform\n"
    "                            (on [0, 2 MEAN]) or exp (exponential); MEAN in microseconds,\n"
    "                            or with % a share of the compute time (default 5%)\n"
    "      --seed S              noise seed; rank r draws from its own stream (default 1)\n"
    "      --no-markers          leave out the MPI_Pcontrol(1) iteration markers\n"
    "  -h, --help                this text\n"
    "Rank 0 prints the settings and, at the end, the elapsed time and the time the ranks\n"
    "spent computing and exchanging.\n";

static int rank, nranks;

/* Usage errors: rank 0 says what is wrong, everyone leaves with status 2. */
__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "idlewave: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (try --help)\n");
        va_end(ap);
    }
    return 2;
}

static int parse_long(const char *opt, const char *s, long lo, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo)
        return bad(lo > 0 ? "%s: '%s' is not a positive integer"
                          : "%s: '%s' is not a non-negative integer", opt, s);
    *out = v;
    return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo)
        return bad(lo > 0 ? "%s: '%s' is not a positive number"
                          : "%s: '%s' is not a non-negative number", opt, s);
    *out = v;
    return 0;
}

/* 0: go on, 1: --help printed, 2: bad usage (rank 0 printed why) */
static int parse(int argc, char **argv, opts_t *o)
{
    enum { O_DIR = 256, O_BOUND, O_WAIT, O_COMP, O_SAT, O_DOMAIN, O_SLICE, O_OVER, O_DRANK,
           O_DITER, O_DUS, O_NOISE, O_SEED, O_NOMARK };
    static const struct option lopts[] = {
        {"iterations", required_argument, 0, 'n'}, {"compute-us", required_argument, 0, 'c'},
        {"direction", required_argument, 0, O_DIR}, {"boundary", required_argument, 0, O_BOUND},
        {"distance", required_argument, 0, 'd'}, {"bytes", required_argument, 0, 'b'},
        {"wait", required_argument, 0, O_WAIT}, {"compute", required_argument, 0, O_COMP},
        {"saturation", required_argument, 0, O_SAT}, {"domain", required_argument, 0, O_DOMAIN},
        {"slice-us", required_argument, 0, O_SLICE},
        {"overhead-us", required_argument, 0, O_OVER},
        {"delay-rank", required_argument, 0, O_DRANK},
        {"delay-iter", required_argument, 0, O_DITER}, {"delay-us", required_argument, 0, O_DUS},
        {"noise", required_argument, 0, O_NOISE}, {"seed", required_argument, 0, O_SEED},
        {"no-markers", no_argument, 0, O_NOMARK}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *o = (opts_t){.iterations = 100, .compute_us = 10000, .distance = 1, .bytes = 8,
                  .saturation = 4, .delay_rank = -1, .delay_iter = -1, .delay_us = -1,
                  .seed = 1, .markers = 1};
    const char *noise_arg = NULL;
    long v;
    int c, rc = 0;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, ":n:c:d:b:h", lopts, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case 'n': rc = parse_long("--iterations", a, 1, &o->iterations); break;
        case 'c': rc = parse_double("--compute-us", a, 0, &o->compute_us); break;
        case 'd':
            rc = parse_long("--distance", a, 1, &v);
            if (!rc && v > 1000000)
                rc = bad("%s: '%s' is too large", "--distance", a);
            o->distance = (int)v;
            break;
        case 'b':
            rc = parse_long("--bytes", a, 0, &o->bytes);
            if (!rc && o->bytes > 1L << 30)
                rc = bad("--bytes: '%s' is more than 1 GiB", a);
            break;
        case O_DIR:
            if (!strcmp(a, "bi")) o->direction = DIR_BI;
            else if (!strcmp(a, "uni")) o->direction = DIR_UNI;
            else rc = bad("%s: '%s' is not bi or uni", "--direction", a);
            break;
        case O_BOUND:
            if (!strcmp(a, "open")) o->periodic = 0;
            else if (!strcmp(a, "periodic")) o->periodic = 1;
            else rc = bad("%s: '%s' is not open or periodic", "--boundary", a);
            break;
        case O_WAIT:
            if (!strcmp(a, "all")) o->wait = WAIT_ALL;
            else if (!strcmp(a, "each")) o->wait = WAIT_EACH;
            else rc = bad("%s: '%s' is not all or each", "--wait", a);
            break;
        case O_COMP:
            if (!strcmp(a, "sleep")) o->compute = COMP_SLEEP;
            else if (!strcmp(a, "bottleneck")) o->compute = COMP_BOTTLENECK;
            else rc = bad("%s: '%s' is not sleep or bottleneck", "--compute", a);
            break;
        case O_SAT: rc = parse_double("--saturation", a, 1e-9, &o->saturation); break;
        case O_DOMAIN:
            rc = parse_long("--domain", a, 0, &v);
            if (!rc && v > 1000000)
                rc = bad("%s: '%s' is too large", "--domain", a);
            o->domain = (int)v;
            break;
        case O_SLICE: rc = parse_double("--slice-us", a, 1e-9, &o->slice_us); break;
        case O_OVER: rc = parse_double("--overhead-us", a, 0, &o->overhead_us); break;
        case O_DRANK: rc = parse_long("--delay-rank", a, 0, &o->delay_rank); break;
        case O_DITER: rc = parse_long("--delay-iter", a, 0, &o->delay_iter); break;
        case O_DUS: rc = parse_double("--delay-us", a, 0, &o->delay_us); break;
        case O_NOISE: noise_arg = a; break;
        case O_SEED:
            rc = parse_long("--seed", a, 0, &v);
            o->seed = (uint64_t)v;
            break;
        case O_NOMARK: o->markers = 0; break;
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
    if (noise_arg) {
        char kind[16];
        const char *colon = strchr(noise_arg, ':');
        size_t len = colon ? (size_t)(colon - noise_arg) : strlen(noise_arg);
        if (len >= sizeof kind)
            return bad("%s: '%s' is not none, uniform or exp", "--noise", noise_arg);
        memcpy(kind, noise_arg, len);
        kind[len] = 0;
        if (!strcmp(kind, "none")) o->noise = NOISE_NONE;
        else if (!strcmp(kind, "uniform")) o->noise = NOISE_UNIFORM;
        else if (!strcmp(kind, "exp")) o->noise = NOISE_EXP;
        else return bad("%s: '%s' is not none, uniform or exp", "--noise", kind);
        o->noise_mean_us = 0.05 * o->compute_us;
        if (colon) {
            char mean[64];
            size_t ml = strlen(colon + 1);
            if (ml == 0 || ml >= sizeof mean)
                return bad("%s: bad mean in '%s'", "--noise", noise_arg);
            memcpy(mean, colon + 1, ml + 1);
            int pct = mean[ml - 1] == '%';
            if (pct)
                mean[ml - 1] = 0;
            if (parse_double("--noise mean", mean, 0, &o->noise_mean_us))
                return 2;
            if (pct)
                o->noise_mean_us *= o->compute_us / 100.0;
        }
    }
    if (o->distance >= nranks && !(nranks == 1 && o->distance == 1))
        return bad("--distance %d: needs D < P = %d (no rank is that far)", o->distance, nranks);
    if (o->delay_rank >= nranks)
        return bad("--delay-rank %ld: there are only %d ranks", o->delay_rank, nranks);
    if (o->delay_rank < 0 && (o->delay_iter >= 0 || o->delay_us >= 0))
        return bad("--delay-iter and --delay-us need --delay-rank");
    if (o->delay_iter < 0)
        o->delay_iter = o->iterations / 4;
    if (o->delay_iter >= o->iterations)
        return bad("--delay-iter %ld: past the last iteration (%ld)", o->delay_iter,
                   o->iterations - 1);
    if (o->delay_us < 0)
        o->delay_us = o->compute_us / 2;
    if (o->slice_us <= 0)
        o->slice_us = o->compute_us / 20 > 50 ? o->compute_us / 20 : 50;
    return 0;
}

/* ---- time ----------------------------------------------------------------------------- */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Sleep until an absolute CLOCK_MONOTONIC time: late wake-ups on a loaded machine do not add
 * up over the iterations of one compute phase. */
static void sleep_until(double t_ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(t_ns / 1e9);
    ts.tv_nsec = (long)(t_ns - (double)ts.tv_sec * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* ---- noise: splitmix64, one stream per rank ------------------------------------------- */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform on [0, 1) */
static double rng_unit(void) { return (double)(rng_next() >> 11) * 0x1.0p-53; }

/* One draw every iteration on every rank, so that a run's noise does not depend on the
 * delay options. */
static double noise_us(const opts_t *o)
{
    double u = rng_unit();
    switch (o->noise) {
    case NOISE_UNIFORM: return 2.0 * o->noise_mean_us * u;
    case NOISE_EXP: return -o->noise_mean_us * log1p(-u);
    default: return 0.0;
    }
}

/* ---- the bottleneck ------------------------------------------------------------------- */
typedef struct bottleneck {
    MPI_Comm node;
    MPI_Win win;
    int *count;     /* ranks of my domain computing now */
    int domain_id, domain_size;
} bottleneck_t;

/* One cache line per domain counter, in a segment shared by the node's ranks. Loads, stores
 * and atomics go straight to the memory (inside one passive-target epoch), so the compute
 * phase makes no MPI call that would show up in a trace. */
static void bottleneck_init(bottleneck_t *b, const opts_t *o)
{
    int nrank, nsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &b->node);
    MPI_Comm_rank(b->node, &nrank);
    MPI_Comm_size(b->node, &nsize);
    int k = o->domain > 0 && o->domain < nsize ? o->domain : nsize;
    int ndom = (nsize + k - 1) / k;
    b->domain_id = nrank / k;
    b->domain_size = b->domain_id == ndom - 1 ? nsize - b->domain_id * k : k;
    char *mine;
    MPI_Win_allocate_shared(nrank == 0 ? (MPI_Aint)ndom * 64 : 0, 1, MPI_INFO_NULL, b->node,
                            &mine, &b->win);
    MPI_Aint sz;
    int du;
    char *base;
    MPI_Win_shared_query(b->win, 0, &sz, &du, &base);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win);
    if (nrank == 0)
        memset(base, 0, (size_t)ndom * 64);
    MPI_Win_sync(b->win);
    MPI_Barrier(b->node);
    MPI_Win_sync(b->win);
    b->count = (int *)(void *)(base + (size_t)b->domain_id * 64);
}

static void bottleneck_free(bottleneck_t *b)
{
    MPI_Win_unlock_all(b->win);
    MPI_Win_free(&b->win);
    MPI_Comm_free(&b->node);
}

/* Work worth compute_us at a lone rank's speed, done at rate min(1, S/n) where n is the
 * number of the domain's ranks computing, re-read every slice. The rate of a slice is the one
 * at its start; elapsed time is measured, so oversleeping costs work done, not accuracy. */
static void compute_bottleneck(const opts_t *o, bottleneck_t *b)
{
    double work = o->compute_us * 1e3, slice = o->slice_us * 1e3;
    __atomic_add_fetch(b->count, 1, __ATOMIC_SEQ_CST);
    double t = now_ns();
    while (work > 0) {
        int n = __atomic_load_n(b->count, __ATOMIC_SEQ_CST);
        double rate = n <= o->saturation ? 1.0 : o->saturation / n;
        double step = work / rate;
        if (step > slice)
            step = slice;
        sleep_until(t + step);
        double t2 = now_ns();
        work -= (t2 - t) * rate;
        t = t2;
    }
    __atomic_sub_fetch(b->count, 1, __ATOMIC_SEQ_CST);
}

/* ---- the exchange --------------------------------------------------------------------- */
typedef struct exch {
    int nmsg;             /* messages per iteration, both ways */
    int *peer, *tag, *is_recv;
    char **buf;
    MPI_Request *req;
    MPI_Status *st;
} exch_t;

static int neighbour(const opts_t *o, int k)
{
    long r = (long)rank + k;
    if (r >= 0 && r < nranks)
        return (int)r;
    if (!o->periodic)
        return MPI_PROC_NULL;
    return (int)(((r % nranks) + nranks) % nranks);
}

static void die(const char *what)
{
    fprintf(stderr, "idlewave: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The message list: per distance k, the receives first, then the sends. What travels up
 * (i to i+k) has tag 2k, what travels down tag 2k+1. */
static void exch_init(exch_t *x, const opts_t *o)
{
    int per = o->direction == DIR_BI ? 4 : 2;
    x->nmsg = per * o->distance;
    size_t n = (size_t)x->nmsg;
    x->peer = malloc(n * sizeof(int));
    x->tag = malloc(n * sizeof(int));
    x->is_recv = malloc(n * sizeof(int));
    x->buf = malloc(n * sizeof(char *));
    x->req = malloc(n * sizeof(MPI_Request));
    x->st = malloc(n * sizeof(MPI_Status));
    if (!x->peer || !x->tag || !x->is_recv || !x->buf || !x->req || !x->st)
        die("out of memory");
    int m = 0;
    for (int k = 1; k <= o->distance; k++) {
        int up = neighbour(o, k), down = neighbour(o, -k);
        /* receives: from below (travelled up), and from above when bidirectional */
        x->peer[m] = down, x->tag[m] = 2 * k, x->is_recv[m++] = 1;
        if (o->direction == DIR_BI)
            x->peer[m] = up, x->tag[m] = 2 * k + 1, x->is_recv[m++] = 1;
        x->peer[m] = up, x->tag[m] = 2 * k, x->is_recv[m++] = 0;
        if (o->direction == DIR_BI)
            x->peer[m] = down, x->tag[m] = 2 * k + 1, x->is_recv[m++] = 0;
    }
    for (int i = 0; i < x->nmsg; i++) {
        x->buf[i] = calloc(o->bytes > 0 ? (size_t)o->bytes : 1, 1);
        if (!x->buf[i])
            die("out of memory for the message buffers");
    }
}

static void exch_free(exch_t *x)
{
    for (int i = 0; i < x->nmsg; i++)
        free(x->buf[i]);
    free(x->peer), free(x->tag), free(x->is_recv);
    free(x->buf), free(x->req), free(x->st);
}

/* Messages of 8 bytes or more carry (iteration, sender): a wrong one stops the run. */
static void exch_post(exch_t *x, const opts_t *o, int lo, int hi, long it)
{
    int count = (int)o->bytes;
    for (int i = lo; i < hi; i++)
        if (x->is_recv[i])
            MPI_Irecv(x->buf[i], count, MPI_BYTE, x->peer[i], x->tag[i], MPI_COMM_WORLD,
                      &x->req[i]);
    for (int i = lo; i < hi; i++)
        if (!x->is_recv[i]) {
            if (o->bytes >= 8) {
                int32_t h[2] = {(int32_t)it, rank};
                memcpy(x->buf[i], h, sizeof h);
            }
            MPI_Isend(x->buf[i], count, MPI_BYTE, x->peer[i], x->tag[i], MPI_COMM_WORLD,
                      &x->req[i]);
        }
}

static void exch_check(exch_t *x, const opts_t *o, int lo, int hi, long it)
{
    if (o->bytes < 8)
        return;
    for (int i = lo; i < hi; i++) {
        if (!x->is_recv[i] || x->peer[i] == MPI_PROC_NULL)
            continue;
        int32_t h[2];
        memcpy(h, x->buf[i], sizeof h);
        if (h[0] != (int32_t)it || h[1] != x->peer[i]) {
            char msg[160];
            snprintf(msg, sizeof msg, "iteration %ld: message from rank %d tag %d says "
                     "iteration %d rank %d", it, x->peer[i], x->tag[i], (int)h[0], (int)h[1]);
            die(msg);
        }
    }
}

static void exchange(exch_t *x, const opts_t *o, long it)
{
    if (o->wait == WAIT_ALL) {
        exch_post(x, o, 0, x->nmsg, it);
        MPI_Waitall(x->nmsg, x->req, x->st);
        exch_check(x, o, 0, x->nmsg, it);
        return;
    }
    int per = x->nmsg / o->distance;
    for (int lo = 0; lo < x->nmsg; lo += per) {
        exch_post(x, o, lo, lo + per, it);
        MPI_Waitall(per, x->req + lo, x->st + lo);
        exch_check(x, o, lo, lo + per, it);
    }
}

/* ---- main ------------------------------------------------------------------------------ */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_settings(const opts_t *o, const bottleneck_t *b)
{
    printf("idlewave: %d ranks, %ld iterations, %s %s chain, distance %d, wait %s, %ld B "
           "messages\n", nranks, o->iterations,
           o->direction == DIR_BI ? "bidirectional" : "unidirectional",
           o->periodic ? "periodic" : "open", o->distance, o->wait == WAIT_ALL ? "all" : "each",
           o->bytes);
    if (o->compute == COMP_SLEEP)
        printf("idlewave: compute sleep %.0f us\n", o->compute_us);
    else
        printf("idlewave: compute bottleneck %.0f us alone, saturation %g, domain of %d ranks "
               "(rank 0's), slice %.0f us\n", o->compute_us, o->saturation, b->domain_size,
               o->slice_us);
    if (o->delay_rank >= 0)
        printf("idlewave: delay %.0f us on rank %ld in iteration %ld\n", o->delay_us,
               o->delay_rank, o->delay_iter);
    if (o->overhead_us > 0)
        printf("idlewave: overhead %.0f us per iteration\n", o->overhead_us);
    if (o->noise != NOISE_NONE)
        printf("idlewave: noise %s, mean %.1f us, seed %llu\n",
               o->noise == NOISE_EXP ? "exponential" : "uniform", o->noise_mean_us,
               (unsigned long long)o->seed);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    opts_t o;
    int prc = parse(argc, argv, &o);
    if (prc) {
        MPI_Finalize();
        return prc == 1 ? 0 : 2;
    }
    rng_state = o.seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1));

    bottleneck_t bn = {.domain_size = 0};
    if (o.compute == COMP_BOTTLENECK)
        bottleneck_init(&bn, &o);
    exch_t x;
    exch_init(&x, &o);
    if (rank == 0)
        print_settings(&o, &bn);

    double t_comp = 0, t_exch = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = now_ns();
    for (long it = 0; it < o.iterations; it++) {
        if (o.markers)
            MPI_Pcontrol(1);
        double t0 = now_ns();
        if (o.compute == COMP_SLEEP)
            sleep_until(t0 + o.compute_us * 1e3);
        else
            compute_bottleneck(&o, &bn);
        /* noise and delay are time away from the work (an interrupt, a slow page): they use
         * no bandwidth */
        double extra = o.overhead_us + noise_us(&o);
        if (rank == o.delay_rank && it == o.delay_iter)
            extra += o.delay_us;
        if (extra > 0)
            sleep_until(now_ns() + extra * 1e3);
        double t1 = now_ns();
        exchange(&x, &o, it);
        double t2 = now_ns();
        t_comp += t1 - t0;
        t_exch += t2 - t1;
    }
    if (o.markers)
        MPI_Pcontrol(1);
    double elapsed = now_ns() - t_start;

    double mine[3] = {elapsed, t_comp, t_exch}, *all = NULL;
    if (rank == 0 && !(all = malloc(3 * sizeof(double) * (size_t)nranks)))
        die("out of memory");
    MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *c = malloc(2 * sizeof(double) * (size_t)nranks), *e = c + nranks, tmax = 0;
        if (!c)
            die("out of memory");
        for (int r = 0; r < nranks; r++) {
            tmax = all[3 * r] > tmax ? all[3 * r] : tmax;
            c[r] = all[3 * r + 1] / 1e6 / (double)o.iterations;
            e[r] = all[3 * r + 2] / 1e6 / (double)o.iterations;
        }
        qsort(c, (size_t)nranks, sizeof *c, cmp_double);
        qsort(e, (size_t)nranks, sizeof *e, cmp_double);
        printf("idlewave: elapsed %.3f s, %.3f ms per iteration\n", tmax / 1e9,
               tmax / 1e6 / (double)o.iterations);
        printf("idlewave: ms per iteration over the ranks, outside the exchange min %.3f "
               "median %.3f max %.3f, in it min %.3f median %.3f max %.3f\n", c[0],
               c[nranks / 2], c[nranks - 1], e[0], e[nranks / 2], e[nranks - 1]);
        free(c);
        free(all);
    }
    exch_free(&x);
    if (o.compute == COMP_BOTTLENECK)
        bottleneck_free(&bn);
    MPI_Finalize();
    return 0;
}
