/* phasor_probe.c: the live network-health probe (see phasor_probe.h for the protocols). */
#include "phasor_probe.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vec.h"

static const uint64_t quick_sizes[] = {4096, 16384, 65536, 131072, 1048576};
#define FULL_NSIZES 13 /* 512 B .. 2 MiB */

enum { TAG_DATA = 1, TAG_ACK = 2, TAG_TOKEN = 3, TAG_PING = 4, TAG_SYNC = 5 };

void pprobe_defaults(pprobe_mode_t mode, pprobe_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->mode = mode;
    o->budget_s = 0.8;
    o->reps_min = mode == PPROBE_FULL ? 5 : 3;
    o->reps_max = 200;
    o->max_rounds = 16;
    o->round0 = -1;
    o->seed = 0x9e3779b97f4a7c15ull;
}

static const uint64_t later_sizes[] = {4096, 65536};

void pprobe_defaults_later(double budget_s, uint32_t seq, pprobe_opts_t *o)
{
    pprobe_defaults(PPROBE_QUICK, o);
    o->budget_s = budget_s;
    o->reps_min = 2; /* one way: the lower rank of a pair sends on even repetitions */
    o->reps_max = 8;
    o->max_rounds = 1;
    o->round0 = (int)((seq - 1) % 65536); /* every pair after P-1 probes (P odd: P) */
    o->sizes = later_sizes;
    o->nsizes = (int)(sizeof(later_sizes) / sizeof(later_sizes[0]));
    o->seed ^= (uint64_t)seq * 0xbf58476d1ce4e5b9ull;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(int *v, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(splitmix(s) % i);
        int t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

void pprobe_result_free(pprobe_result_t *res)
{
    if (!res)
        return;
    free(res->entries);
    free(res->hosts);
    memset(res, 0, sizeof(*res));
}

/* Samples of this rank as source: one growable array per (destination slot, size). */
typedef struct sampleset {
    double *v;
    size_t n, cap;
} sampleset_t;

static int push(sampleset_t *s, double x)
{
    return VEC_PUSH(s->v, s->n, s->cap, x);
}

#define CHECK(call)                 \
    do {                            \
        int rc_ = (call);           \
        if (rc_ != MPI_SUCCESS) {   \
            rc = rc_;               \
            goto out;               \
        }                           \
    } while (0)

static void free_sets(sampleset_t *sets, size_t n)
{
    if (sets)
        for (size_t i = 0; i < n; i++)
            free(sets[i].v);
    free(sets);
}

/* One one-way sample of cnt bytes between me and q, all pairs of the round at once: the
 * sender pushes its 0-byte round trip to rtt and the message + acknowledgement to ow. */
static int one_way(MPI_Comm c, int q, int sender, char *buf, int cnt,
                   sampleset_t *ow, sampleset_t *rtt)
{
    int rc = MPI_SUCCESS;
    if (sender) {
        uint64_t t0 = now_ns();
        CHECK(PMPI_Send(NULL, 0, MPI_BYTE, q, TAG_PING, c));
        CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, q, TAG_ACK, c, MPI_STATUS_IGNORE));
        uint64_t t1 = now_ns();
        CHECK(PMPI_Send(buf, cnt, MPI_BYTE, q, TAG_DATA, c));
        CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, q, TAG_ACK, c, MPI_STATUS_IGNORE));
        uint64_t t2 = now_ns();
        if (push(rtt, (double)(t1 - t0)) != 0 || push(ow, (double)(t2 - t1)) != 0)
            return MPI_ERR_NO_MEM;
    } else {
        CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, q, TAG_PING, c, MPI_STATUS_IGNORE));
        CHECK(PMPI_Send(NULL, 0, MPI_BYTE, q, TAG_ACK, c));
        CHECK(PMPI_Recv(buf, cnt, MPI_BYTE, q, TAG_DATA, c, MPI_STATUS_IGNORE));
        CHECK(PMPI_Send(NULL, 0, MPI_BYTE, q, TAG_ACK, c));
    }
out:
    return rc;
}

/* Each pair's clock offset (the partner's clock minus this rank's, ns since each one's own
 * t_begin), by 0-byte ping-pongs: the lower rank keeps the round trip of least time and
 * takes the partner's reading as made at its middle (error at most half of it), and tells
 * the partner. Every rank walks its slots in the same order: pairs meet as in the probe. */
#define SYNC_ROUNDS 8
static int pair_offsets(MPI_Comm c, int me, const int *partner, int nslots, uint64_t t_begin,
                        double *theta)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < nslots; k++) {
        int q = partner[k];
        theta[k] = 0;
        if (q < 0)
            continue;
        if (me < q) {
            double best = -1, th = 0, ts;
            for (int r = 0; r < SYNC_ROUNDS; r++) {
                uint64_t t1 = now_ns();
                CHECK(PMPI_Send(NULL, 0, MPI_BYTE, q, TAG_SYNC, c));
                CHECK(PMPI_Recv(&ts, 1, MPI_DOUBLE, q, TAG_SYNC, c, MPI_STATUS_IGNORE));
                uint64_t t2 = now_ns();
                if (best < 0 || (double)(t2 - t1) < best) {
                    best = (double)(t2 - t1);
                    th = plog_probe_clock_offset((double)(t1 - t_begin), (double)(t2 - t_begin),
                                                 ts);
                }
            }
            theta[k] = th;
            CHECK(PMPI_Send(&th, 1, MPI_DOUBLE, q, TAG_SYNC, c));
        } else {
            for (int r = 0; r < SYNC_ROUNDS; r++) {
                CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, q, TAG_SYNC, c, MPI_STATUS_IGNORE));
                double ts = (double)(now_ns() - t_begin);
                CHECK(PMPI_Send(&ts, 1, MPI_DOUBLE, q, TAG_SYNC, c));
            }
            double th;
            CHECK(PMPI_Recv(&th, 1, MPI_DOUBLE, q, TAG_SYNC, c, MPI_STATUS_IGNORE));
            theta[k] = -th;
        }
    }
out:
    return rc;
}

/* What run_quick measured, per slot (the round's index among the chosen rounds, a partner
 * per round): the exchanges and the one-way messages per (slot, size), and how to put the
 * partners' clocks on this rank's. */
typedef struct quick {
    int rounds, reps;    /* slots, and repetitions of every size in each */
    int *partner;        /* per slot: the partner (-1: none in that round) */
    sampleset_t *sets;   /* per (slot, size): the exchanges' durations */
    sampleset_t *starts; /* per (slot, size): when each exchange was posted, ns since the
                          * probe began */
    sampleset_t *ow;     /* per (slot, size): one-way times as sent (ping-pong included) */
    sampleset_t *rtt;    /* per slot: the 0-byte round trips taken before them */
    double *theta;       /* per slot k: the partner's clock offset before (theta[k]) and
                          * after (theta[rounds + k]) the repetitions (pair_offsets) */
    double tsync[2];     /* when those were taken, ns since the probe began */
} quick_t;

static void quick_free(quick_t *q, int ns)
{
    free_sets(q->sets, (size_t)q->rounds * (size_t)ns);
    free_sets(q->starts, (size_t)q->rounds * (size_t)ns);
    free_sets(q->ow, (size_t)q->rounds * (size_t)ns);
    free_sets(q->rtt, (size_t)q->rounds);
    free(q->theta);
    free(q->partner);
    memset(q, 0, sizeof(*q));
}

/* Fills *qk (zeroed); on failure frees what it took and leaves it zeroed. */
static int run_quick(MPI_Comm c, int me, int p, const pprobe_opts_t *o, uint64_t seed,
                     const uint64_t *sizes, int ns, char *buf, quick_t *qk)
{
    double *tsync = qk->tsync;
    int rc = MPI_SUCCESS;
    int nrounds_all = p % 2 ? p : p - 1;
    int *rounds = malloc((size_t)nrounds_all * sizeof(int));
    int order[PLOG_PROBE_MAXSIZES]; /* the sizes, shuffled */
    int nr = qk->rounds = nrounds_all < o->max_rounds ? nrounds_all : o->max_rounds;
    int *partner = qk->partner = malloc((size_t)(nr ? nr : 1) * sizeof(int));
    int *order2 = malloc((size_t)(nr ? nr : 1) * sizeof(int));
    sampleset_t *sets = qk->sets = calloc((size_t)(nr ? nr : 1) * (size_t)ns, sizeof(*sets));
    sampleset_t *ow = qk->ow = calloc((size_t)(nr ? nr : 1) * (size_t)ns, sizeof(*ow));
    sampleset_t *rtt = qk->rtt = calloc((size_t)(nr ? nr : 1), sizeof(*rtt));
    sampleset_t *starts = qk->starts =
        calloc((size_t)(nr ? nr : 1) * (size_t)ns, sizeof(*starts));
    double *theta = qk->theta = calloc(2 * (size_t)(nr ? nr : 1), sizeof(*theta));
    if (!rounds || !partner || !order2 || !sets || !ow || !rtt || !starts || !theta) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int k = 0; k < nrounds_all; k++) /* which rounds, when not all */
        rounds[k] = o->round0 >= 0 ? (o->round0 + k) % nrounds_all : k;
    if (o->round0 < 0)
        shuffle(rounds, (size_t)nrounds_all, &seed);
    for (int k = 0; k < nr; k++)
        partner[k] = plog_probe_partner(me, rounds[k], p);
    int reps = 0;
    uint64_t t_begin = now_ns();
    CHECK(pair_offsets(c, me, partner, nr, t_begin, theta));
    tsync[0] = (double)(now_ns() - t_begin);
    for (;;) {
        for (int s = 0; s < ns; s++)
            order[s] = s;
        shuffle(order, (size_t)ns, &seed);
        for (int si = 0; si < ns; si++) {
            int s = order[si];
            int cnt = (int)sizes[s];
            for (int k = 0; k < nr; k++) /* the rounds in a new order each time */
                order2[k] = k;
            shuffle(order2, (size_t)nr, &seed);
            for (int ki = 0; ki < nr; ki++) {
                int k = order2[ki];
                int q = partner[k];
                CHECK(PMPI_Barrier(c));
                if (q < 0)
                    continue;
                MPI_Request rq[2];
                MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: MPICH's (MPI_Status *)1 trips
                                   * gcc's -Wstringop-overflow */
                uint64_t t0 = now_ns();
                CHECK(PMPI_Irecv(buf + sizes[ns - 1], cnt, MPI_BYTE, q, TAG_DATA, c,
                                 &rq[0]));
                CHECK(PMPI_Isend(buf, cnt, MPI_BYTE, q, TAG_DATA, c, &rq[1]));
                CHECK(PMPI_Waitall(2, rq, st));
                if (push(&sets[(size_t)k * ns + s], (double)(now_ns() - t0)) != 0 ||
                    push(&starts[(size_t)k * ns + s], (double)(t0 - t_begin)) != 0) {
                    rc = MPI_ERR_NO_MEM;
                    goto out;
                }
            }
            for (int ki = 0; ki < nr; ki++) { /* the same rounds, one way */
                int k = order2[ki];
                int q = partner[k];
                CHECK(PMPI_Barrier(c));
                if (q < 0)
                    continue;
                CHECK(one_way(c, q, (reps % 2 == 0) == (me < q), buf, cnt,
                              &ow[(size_t)k * ns + s], &rtt[k]));
            }
        }
        reps++;
        /* the same decision everywhere: the slowest rank's clock */
        double el = (double)(now_ns() - t_begin) * 1e-9, el_max = 0;
        CHECK(PMPI_Allreduce(&el, &el_max, 1, MPI_DOUBLE, MPI_MAX, c));
        if (reps >= o->reps_max)
            break;
        if (reps >= o->reps_min && el_max * (double)(reps + 1) / reps > o->budget_s)
            break;
    }
    CHECK(pair_offsets(c, me, partner, nr, t_begin, theta + nr));
    tsync[1] = (double)(now_ns() - t_begin);
    qk->reps = reps;
out:
    free(rounds);
    free(order2);
    if (rc != MPI_SUCCESS)
        quick_free(qk, ns);
    return rc;
}

/* full: dst slot = the destination rank; sizes[0] = 0 (the pong-only round trip) */
static int run_full(MPI_Comm c, int me, int p, const pprobe_opts_t *o, uint64_t seed,
                    const uint64_t *sizes, int ns, char *buf, sampleset_t **sets_out)
{
    int rc = MPI_SUCCESS;
    size_t nitems = (size_t)p * (size_t)(p - 1) * (size_t)ns * (size_t)o->reps_min;
    int *items = malloc((nitems ? nitems : 1) * sizeof(int));
    sampleset_t *sets = calloc((size_t)p * (size_t)ns, sizeof(*sets));
    if (!items || !sets) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    /* item = ((src * p + dst) * ns + size) * reps + rep, src != dst */
    size_t m = 0;
    for (int s = 0; s < p; s++)
        for (int d = 0; d < p; d++)
            for (int z = 0; d != s && z < ns; z++)
                for (int r = 0; r < o->reps_min; r++)
                    items[m++] = ((s * p + d) * ns + z) * o->reps_min + r;
    shuffle(items, m, &seed);
    int prev_src = -1;
    for (size_t i = 0; i < m; i++) {
        int it = items[i] / o->reps_min;
        int z = it % ns, pair = it / ns;
        int s = pair / p, d = pair % p;
        if (me == s) {
            if (prev_src >= 0 && prev_src != me) /* wait for the last measurement to end */
                CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, prev_src, TAG_TOKEN, c, MPI_STATUS_IGNORE));
            uint64_t t0 = now_ns();
            CHECK(PMPI_Send(buf, (int)sizes[z], MPI_BYTE, d, TAG_DATA, c));
            CHECK(PMPI_Recv(NULL, 0, MPI_BYTE, d, TAG_ACK, c, MPI_STATUS_IGNORE));
            if (push(&sets[(size_t)d * ns + z], (double)(now_ns() - t0)) != 0) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
        } else if (me == d) {
            CHECK(PMPI_Recv(buf, (int)sizes[z], MPI_BYTE, s, TAG_DATA, c, MPI_STATUS_IGNORE));
            CHECK(PMPI_Send(NULL, 0, MPI_BYTE, s, TAG_ACK, c));
        }
        /* hand the token on to the next measurement's source */
        if (me == s && i + 1 < m) {
            int ns2 = (items[i + 1] / o->reps_min) / ns / p;
            if (ns2 != me)
                CHECK(PMPI_Send(NULL, 0, MPI_BYTE, ns2, TAG_TOKEN, c));
        }
        prev_src = s;
    }
out:
    free(items);
    if (rc != MPI_SUCCESS) {
        free_sets(sets, (size_t)p * (size_t)ns);
        return rc;
    }
    *sets_out = sets;
    return MPI_SUCCESS;
}

/* An exchange is over when both of its directions are, and a rank's own Waitall sees only
 * its side: its send completes once the data is in its socket buffer, long before the
 * partner has it. On the emulated cluster a rank finished a 1 MiB exchange in 20 ms while
 * its data took 35 ms to arrive, and the next exchange queued behind that data. And it
 * begins when both sides have posted: the partners leave the barrier apart (by a queued
 * message's time under contention), and the earlier one's wait for the later one is not
 * the network's. So every sample becomes, on the lower rank's clock (the pair's offset
 * from pair_offsets, drifting linearly between its two readings), the time from the later
 * posting to the later completion of the same repetition (both sides ran the same rounds,
 * sizes and repetitions in the same order, so their samples line up: reps per size, the
 * same count on every rank); the lower rank works it out and sends it back, so both
 * entries of the pair hold the same samples. */
static int pair_join(MPI_Comm c, int me, const quick_t *qk, int ns)
{
    int rc = MPI_SUCCESS, nslots = qk->rounds, reps = qk->reps;
    const int *partner = qk->partner;
    sampleset_t *sets = qk->sets;
    const sampleset_t *starts = qk->starts;
    const double *theta = qk->theta, *tsync = qk->tsync;
    size_t n = (size_t)ns * (size_t)reps;
    double *mine = malloc((n ? 2 * n : 1) * sizeof(double));
    double *theirs = malloc((n ? 2 * n : 1) * sizeof(double));
    /* all or none: a rank without memory must not leave its partners waiting for it */
    int ok = mine && theirs, all_ok = 0;
    CHECK(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c));
    if (!all_ok) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    double span = tsync[1] - tsync[0];
    for (int k = 0; k < nslots; k++) {
        int q = partner[k];
        if (q < 0)
            continue;
        size_t i = 0;
        for (int z = 0; z < ns; z++) { /* durations, then when they began */
            const sampleset_t *st = &sets[(size_t)k * ns + z], *s0 = &starts[(size_t)k * ns + z];
            memcpy(mine + i, st->v, st->n * sizeof(double));
            memcpy(mine + n + i, s0->v, s0->n * sizeof(double));
            i += st->n;
        }
        if (me > q) { /* the lower rank joins them on its clock: both keep the same samples */
            CHECK(PMPI_Send(mine, (int)(2 * n), MPI_DOUBLE, q, TAG_DATA, c));
            CHECK(PMPI_Recv(mine, (int)n, MPI_DOUBLE, q, TAG_DATA, c, MPI_STATUS_IGNORE));
        } else {
            CHECK(PMPI_Recv(theirs, (int)(2 * n), MPI_DOUBLE, q, TAG_DATA, c,
                            MPI_STATUS_IGNORE));
            for (i = 0; i < n; i++) {
                /* the partner's offset where this side posted */
                double f = span > 0 ? (mine[n + i] - tsync[0]) / span : 0;
                double th = theta[k] + f * (theta[nslots + k] - theta[k]);
                mine[i] = plog_probe_exchange_time(mine[n + i], mine[i], theirs[n + i],
                                                   theirs[i], th);
            }
            CHECK(PMPI_Send(mine, (int)n, MPI_DOUBLE, q, TAG_DATA, c));
        }
        i = 0;
        for (int z = 0; z < ns; z++) {
            sampleset_t *st = &sets[(size_t)k * ns + z];
            memcpy(st->v, mine + i, st->n * sizeof(double));
            i += st->n;
        }
    }
out:
    free(mine);
    free(theirs);
    return rc;
}

static void fill_info(pprobe_result_t *res, const pprobe_opts_t *o, const uint64_t *sizes,
                      int ns, int reps, int rounds, double el, uint64_t seed)
{
    res->info.mode = (unsigned)o->mode;
    res->info.nsizes = (unsigned)ns;
    memcpy(res->info.sizes, sizes, (size_t)ns * sizeof(uint64_t));
    res->info.reps = (uint32_t)reps;
    res->info.rounds = (uint32_t)rounds;
    res->info.elapsed_s = el;
    res->info.seed = seed;
}

/* One-way samples are a message and its 0-byte acknowledgement: minus half the pair's
 * median 0-byte round trip (noise can beat it: not below 0). */
static void minus_half_rtt0(sampleset_t *st, const sampleset_t *rtt0)
{
    if (st->n == 0 || rtt0->n == 0)
        return;
    plog_probe_q_t q0;
    plog_probe_quantiles(rtt0->v, rtt0->n, &q0);
    for (size_t i = 0; i < st->n; i++)
        st->v[i] = st->v[i] > q0.q50 / 2 ? st->v[i] - q0.q50 / 2 : 0;
}

/* Entries of sets[slot * ns + size] for sizes z0.., per slot (destination: partner[slot],
 * or the slot itself when partner is NULL) and pooled over slots; -1 out of memory. */
static int summarise(plog_probe_entry_t *mine, size_t *nmine, int me, sampleset_t *sets,
                     int nslots, int ns, int z0, const int *partner, uint32_t way)
{
    for (int z = z0; z < ns; z++) {
        size_t pooled_n = 0;
        for (int k = 0; k < nslots; k++)
            pooled_n += sets[(size_t)k * ns + z].n;
        if (pooled_n == 0)
            continue;
        double *pool = malloc(pooled_n * sizeof(double));
        if (!pool)
            return -1;
        size_t pn = 0;
        for (int k = 0; k < nslots; k++) {
            sampleset_t *st = &sets[(size_t)k * ns + z];
            if (st->n == 0)
                continue;
            memcpy(pool + pn, st->v, st->n * sizeof(double));
            pn += st->n;
            plog_probe_entry_t *e = &mine[(*nmine)++];
            e->src = me;
            e->dst = partner ? partner[k] : k;
            e->size_idx = (uint32_t)z;
            e->way = way;
            plog_probe_quantiles(st->v, st->n, &e->q);
        }
        plog_probe_entry_t *e = &mine[(*nmine)++];
        e->src = me;
        e->dst = -1;
        e->size_idx = (uint32_t)z;
        e->way = way;
        plog_probe_quantiles(pool, pn, &e->q);
        free(pool);
    }
    return 0;
}

/* One probe on a rank: what it measured and summarised. */
typedef struct probe {
    MPI_Comm c;               /* private duplicate of the probed communicator, or itself */
    int own;                  /* c is the duplicate: freed at the end */
    int me, p;
    const pprobe_opts_t *o;
    uint64_t seed;            /* rank 0's (or root's) */
    uint64_t sizes[PLOG_PROBE_MAXSIZES];
    int ns, nslots, reps, rounds;
    char *buf;
    quick_t qk;               /* quick: its samples; sets is qk.sets */
    sampleset_t *sets;        /* the exchanges (quick) or the messages (full) */
    double elapsed;           /* the slowest rank's, s */
    plog_probe_entry_t *mine; /* this rank's summaries */
    size_t nmine;
} probe_t;

static void probe_free(probe_t *pr)
{
    quick_free(&pr->qk, pr->ns); /* quick: sets is qk's */
    if (pr->o->mode != PPROBE_QUICK)
        free_sets(pr->sets, (size_t)pr->nslots * (size_t)pr->ns);
    free(pr->buf);
    free(pr->mine);
    if (pr->own && pr->c != MPI_COMM_NULL)
        PMPI_Comm_free(&pr->c);
}

/* The measurements of the probe's mode, and how long the slowest rank took. */
static int probe_measure(probe_t *pr)
{
    int rc = MPI_SUCCESS;
    double t0 = PMPI_Wtime();
    if (pr->o->mode == PPROBE_QUICK) {
        const uint64_t *sizes = pr->o->nsizes > 0 ? pr->o->sizes : quick_sizes;
        pr->ns = pr->o->nsizes > 0 ? pr->o->nsizes
                                   : (int)(sizeof(quick_sizes) / sizeof(quick_sizes[0]));
        assert(pr->ns <= PLOG_PROBE_MAXSIZES);
        memcpy(pr->sizes, sizes, (size_t)pr->ns * sizeof(*sizes));
        pr->buf = calloc(2, pr->sizes[pr->ns - 1]); /* send half, receive half */
        if (!pr->buf)
            return MPI_ERR_NO_MEM;
        if (pr->p > 1) {
            CHECK(run_quick(pr->c, pr->me, pr->p, pr->o, pr->seed, pr->sizes, pr->ns, pr->buf,
                            &pr->qk));
            pr->rounds = pr->nslots = pr->qk.rounds;
            pr->reps = pr->qk.reps;
            pr->sets = pr->qk.sets;
            CHECK(pair_join(pr->c, pr->me, &pr->qk, pr->ns));
        }
    } else {
        pr->ns = FULL_NSIZES + 1;
        pr->sizes[0] = 0;
        for (int z = 1; z < pr->ns; z++)
            pr->sizes[z] = 512ull << (z - 1);
        pr->buf = calloc(1, pr->sizes[pr->ns - 1]);
        if (!pr->buf)
            return MPI_ERR_NO_MEM;
        pr->reps = pr->o->reps_min;
        if (pr->p > 1)
            CHECK(run_full(pr->c, pr->me, pr->p, pr->o, pr->seed, pr->sizes, pr->ns, pr->buf,
                           &pr->sets));
        pr->nslots = pr->p;
    }
    double el = PMPI_Wtime() - t0;
    CHECK(PMPI_Allreduce(&el, &pr->elapsed, 1, MPI_DOUBLE, MPI_MAX, pr->c));
out:
    return rc;
}

/* This rank's summaries: per destination and size, then pooled per size. 0 or -1 (memory). */
static int probe_summarise(probe_t *pr)
{
    int ns = pr->ns, nslots = pr->nslots;
    pr->mine = calloc(2 * ((size_t)nslots * (size_t)ns + (size_t)ns) + 1, sizeof(*pr->mine));
    if (!pr->mine)
        return -1;
    if (pr->o->mode == PPROBE_QUICK) {
        for (int k = 0; k < nslots; k++) /* one way: minus half the 0-byte round trip */
            for (int z = 0; z < ns; z++)
                minus_half_rtt0(&pr->qk.ow[(size_t)k * ns + z], &pr->qk.rtt[k]);
        if (summarise(pr->mine, &pr->nmine, pr->me, pr->sets, nslots, ns, 0, pr->qk.partner,
                      PLOG_PROBE_EXCHANGE) ||
            summarise(pr->mine, &pr->nmine, pr->me, pr->qk.ow, nslots, ns, 0, pr->qk.partner,
                      PLOG_PROBE_ONEWAY))
            return -1;
        return 0;
    }
    for (int k = 0; k < nslots; k++)
        for (int z = 1; z < ns; z++)
            minus_half_rtt0(&pr->sets[(size_t)k * ns + z], &pr->sets[(size_t)k * ns]);
    if (summarise(pr->mine, &pr->nmine, pr->me, pr->sets, nslots, ns, 1, NULL,
                  PLOG_PROBE_ONEWAY))
        return -1;
    /* the 0-byte round trips, as entries of size 0 (one way = rtt/2) */
    for (int k = 0; k < nslots; k++) {
        sampleset_t *s0 = &pr->sets[(size_t)k * ns];
        if (s0->n == 0)
            continue;
        for (size_t i = 0; i < s0->n; i++)
            s0->v[i] /= 2;
        plog_probe_entry_t *e = &pr->mine[pr->nmine++];
        e->src = pr->me;
        e->dst = k;
        e->size_idx = 0;
        e->way = PLOG_PROBE_ONEWAY;
        plog_probe_quantiles(s0->v, s0->n, &e->q);
    }
    return 0;
}

/* Every rank's entries (pair entries first, then the pooled ones) and host names at root. */
static int probe_gather(probe_t *pr, int root, pprobe_result_t *res)
{
    int rc = MPI_SUCCESS, p = pr->p;
    int *counts = NULL, *displs = NULL;
    char(*hosts)[64] = NULL;
    plog_probe_entry_t *all = NULL;
    int mybytes = (int)(pr->nmine * sizeof(plog_probe_entry_t));
    if (pr->me == root) {
        counts = malloc((size_t)p * sizeof(int));
        displs = malloc((size_t)p * sizeof(int));
        hosts = calloc((size_t)p, sizeof(*hosts));
        if (!counts || !displs || !hosts) {
            rc = MPI_ERR_NO_MEM; /* the others block in the gather: MPI aborts the job */
            goto out;
        }
    }
    CHECK(PMPI_Gather(&mybytes, 1, MPI_INT, counts, 1, MPI_INT, root, pr->c));
    size_t total = 0;
    if (pr->me == root) {
        for (int i = 0; i < p; i++) {
            displs[i] = (int)total;
            total += (size_t)counts[i];
        }
        all = malloc(total ? total : 1);
        if (!all) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
    }
    CHECK(PMPI_Gatherv(pr->mine, mybytes, MPI_BYTE, all, counts, displs, MPI_BYTE, root, pr->c));
    char name[MPI_MAX_PROCESSOR_NAME] = {0}, host[64] = {0};
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    snprintf(host, sizeof(host), "%s", name); /* longer names are cut: 63 bytes tell hosts apart */
    CHECK(PMPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, root, pr->c));
    if (pr->me == root) {
        size_t n = total / sizeof(plog_probe_entry_t), w = 0;
        plog_probe_entry_t *sorted = malloc((n ? n : 1) * sizeof(*sorted));
        if (!sorted) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < n; i++)
                if ((all[i].dst >= 0) == (pass == 0))
                    sorted[w++] = all[i];
        assert(w == n);
        res->nranks = p;
        res->n_entries = n;
        res->entries = sorted;
        res->hosts = hosts;
        hosts = NULL;
    }
out:
    free(all);
    free(counts);
    free(displs);
    free(hosts);
    return rc;
}

int pprobe_run(MPI_Comm comm, int root, const pprobe_opts_t *o, pprobe_result_t *res)
{
    memset(res, 0, sizeof(*res));
    int rc = MPI_SUCCESS;
    probe_t pr = {.c = MPI_COMM_NULL, .o = o, .seed = o->seed};
    if (o->on_comm) {
        pr.c = comm;
    } else {
        CHECK(PMPI_Comm_dup(comm, &pr.c));
        pr.own = 1;
    }
    PMPI_Comm_rank(pr.c, &pr.me);
    PMPI_Comm_size(pr.c, &pr.p);
    CHECK(PMPI_Bcast(&pr.seed, 1, MPI_UINT64_T, root >= 0 ? root : 0, pr.c));
    CHECK(probe_measure(&pr));
    if (probe_summarise(&pr) != 0) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if (root == PPROBE_NO_GATHER) {
        res->nranks = pr.p;
        res->n_entries = pr.nmine;
        res->entries = pr.mine;
        pr.mine = NULL;
    } else {
        CHECK(probe_gather(&pr, root, res));
    }
    if (res->entries)
        fill_info(res, o, pr.sizes, pr.ns, pr.reps, pr.rounds, pr.elapsed, pr.seed);
out:
    probe_free(&pr);
    return rc;
}
