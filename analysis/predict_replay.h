/* predict_replay.h: one collective instance replayed rank by rank (`phasor predict --method
 * replay`, doc/predict-format.md).
 *
 * Every member starts at its own measured entry. Steps are global rounds (coll_sched.h), so
 * they are taken in order: a member reaches step s when it has finished its earlier steps;
 * its sends of s leave then (as one message per source, and arrive as one per destination,
 * the link sharing of the steps method, on the path of the slowest of them alone; with the
 * host links counted, a member's messages between hosts and those within its host are two
 * such messages, as the host's link carries only the former; when that
 * path is between hosts (hosts counted), of the bytes its host's link moves while they are
 * on it: every message between hosts is a flow on its sender's host link out and its
 * receiver's in from its sender's start, and the flows on a link, of this step and those of
 * earlier steps still on it, share its time equally, each flow's bytes taking the time per
 * byte of its own path and way (pr_share_link), so a rank that comes late to a step finds
 * the others' bytes gone, and back-to-back messages find the link still busy; a sender's
 * messages out take as many bytes as it could have moved alone from its start until its
 * last is through, a message in likewise until it is through (when the model shows no
 * bandwidth at 2-4 MiB, the bytes of the step's host link instead); several messages take
 * at most the largest's
 * time plus the others' bytes at the model's bandwidth, its time per byte at 2-4 MiB, and
 * less where the link's background load gives way to them: pr_aggregate_time); a
 * message is two-way when data also flows the other way at one of its ends on the same
 * kind of path (between hosts, or within one); several eager messages (none of the
 * aggregated ones above the eager size) that flow both ways are priced as one-way traffic
 * of their bytes, but no less than the exchange of the largest, since only rendezvous
 * exchanges are slowed by the other way; a message starts moving when its sender reaches
 * the step, or, above the eager size, when both ends have (rendezvous; a receiver later
 * than its sender gets the message in its own time alone from its arrival, but no earlier
 * than the sender's outgoing time from the sender's); a member finishes
 * step s when its sends are delivered and its receives have arrived, plus gamma ns per byte
 * of its reductions of s. A member that takes no part in a step does not wait for it.
 * Predicted: the last predicted exit minus the first entry (the measured definition). */
#ifndef PREDICT_REPLAY_H
#define PREDICT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "coll_instances.h"
#include "coll_sched.h"

/* A message's time, ns; twoway: its source also receives, or its destination also sends,
 * in the same step. */
typedef double (*pr_time_fn)(const void *ctx, int32_t src, int32_t dst, uint64_t bytes,
                             int twoway);

/* Open MPI 4.1's eager size over TCP, the default (coll_sched.h) */
#define PRED_EAGER_DEFAULT PCS_EAGER_OMPI41_TCP

/* The eager size between hosts of the MPI library a run used, from its
 * MPI_Get_library_version string (NULL: not known); *what says whose size it is. Measured
 * for Open MPI 4.1 and MPICH 4.0's ch4:ucx (pcs_eager_size); any other library gets Open
 * MPI's, and *what is PRED_EAGER_UNMEASURED. */
#define PRED_EAGER_UNMEASURED "Open MPI's; not measured for this run's library: give --eager"
uint64_t pr_eager_of(const char *mpi_library, const char **what);

/* What the probe showed of the host links' background load (pred_models_load works it
 * out): a link's time per byte when nothing else loads it, and per world rank how much
 * slower its host's link out (in) looked, from the pairs' one-way times t (a model that
 * prices each pair: the lookup table when the probe has one). */
typedef struct pr_load {
    double per_byte;         /* ns per byte at 2-4 MiB of an unloaded link; 0: not known */
    const double *out, *in;  /* per world rank, 1 (unloaded) or >= PR_LOAD_NOISE; NULL:
                              * not known */
    pr_time_fn t;            /* the pairs' times the load was read from; NULL: the pricing
                              * model's own */
    const void *ctx;
} pr_load_t;

/* A message's time per byte at 2-4 MiB, by t: the bandwidth the models show, past any
 * handshake a full probe's 2 MiB could still show. */
static inline double pr_per_byte(pr_time_fn t, const void *ctx, int32_t src, int32_t dst,
                                 int way)
{
    return (t(ctx, src, dst, 4u << 20, way) - t(ctx, src, dst, 2u << 20, way)) /
           (double)(2u << 20);
}

/* A link or pair less than this much slower than an unloaded link counts as unloaded: the
 * pairs of unloaded links differ by that much from noise alone (one-way at 2-4 MiB, 500
 * Mbit/s links: 16.5-17.5 ns/B by source, 15.3-19.1 by pair; doc/models.md). */
#define PR_LOAD_NOISE 1.1

/* The time of a member's aggregated message out (in) of a step: bytes in all (its own, or
 * its host's between hosts), the largest single message of them big; two: two-way; eager:
 * the largest message sent eagerly (0: none, as the steps method takes it); load: the
 * links' load (NULL: not known), link_slow: the slowdown of the link the messages share
 * (pr_load_slow: its host's out for a member's messages out, in for those in; 0: not
 * between hosts, and the load is left out).
 * - Several messages go on their own connections, at once: the largest takes its own time
 *   (latency, the queue it meets, its window's growth) and the others add their bytes at
 *   the path's bandwidth, the model's time per byte between 2 and 4 MiB (past any
 *   handshake a full probe's 2 MiB could still show); never more than the summed bytes'
 *   own time, which is also the price where the model shows no bandwidth there (a flat
 *   last segment). Where queues hold mid-size messages back, the model's mid-size slope
 *   is not a bandwidth, and pricing the sum on it took a linear Bcast of 16 KiB under
 *   contention for 2.5x what it took (doc/models.md).
 * - Background traffic on the shared link is shared flow by flow, as TCP does: a probe
 *   flow against B others got 1 / (1 + B) of the link, so k flows get k / (k + B), and the
 *   k flows of b bytes take b (k + B) times the unloaded time per byte, not k b (1 + B).
 *   A pair slower than an unloaded link for a reason elsewhere (its other end's link)
 *   does not slow the others' bytes on this link. So the bytes as a whole take the pair's
 *   time per byte less its own slowdown (one-way by load->t, both ways for a two-way
 *   price: a per-source model's time per byte pools its partners' loads), times
 *   (1 + (link_slow - 1) / k) for the link's background, k = bytes / big; the largest
 *   message keeps its own time, and the others add what that leaves. Unloaded links
 *   (link_slow 1, pairs less than PR_LOAD_NOISE slower than link_pb) price as above.
 * - Two-way messages are priced by the probe's exchanges, whose large sizes include
 *   rendezvous exchanges that ran one way after the other (Open MPI's TCP put does that).
 *   Eager messages do not: several of them flowing both ways share a full-duplex link, so
 *   they take the one-way time of their bytes, but no less than the exchange of the
 *   largest alone. */
double pr_aggregate_time(pr_time_fn t, const void *ctx, int32_t src, int32_t dst,
                         uint64_t bytes, uint64_t big, int two, uint64_t eager,
                         const pr_load_t *load, double link_slow);

typedef struct pr_opts {
    double gamma;   /* ns per reduced byte */
    uint64_t eager; /* the largest message sent eagerly; a larger one moves once its
                       receiver has reached the step */
    const int32_t *host; /* a host id in [0, nhosts) per world rank; NULL: every rank on
                            its own host */
    int32_t nhosts;      /* 0: hosts tell paths apart, but no host link is shared */
    pr_load_t load;      /* the pricing model's (pred_model_t); zero: not known */
} pr_opts_t;

/* A message between world ranks a and b goes between hosts (host as in pr_opts_t). */
static inline int pr_crosses(const int32_t *host, int32_t a, int32_t b)
{
    return host ? host[a] != host[b] : 1;
}

/* The slowdown of the host link that a message from a to b shares with the other messages
 * out of a (in: into b): link_slow of pr_aggregate_time, 0 within a host or not known. */
static inline double pr_load_slow(const pr_load_t *l, const int32_t *host, int32_t a,
                                  int32_t b, int in)
{
    if (!(l->per_byte > 0) || !pr_crosses(host, a, b))
        return 0;
    const double *v = in ? l->in : l->out;
    return v ? v[in ? b : a] : 0;
}

/* One key per (rank, kind of path: net 1 between hosts, 0 within one). */
static inline int32_t pr_link_key(int32_t rank, int net)
{
    return rank * 2 + net;
}

/* A step's traffic between hosts, per host: the bytes leaving (arriving at) it and the
 * largest single message of them, which share the host's link (the steps method prices a
 * message between hosts by its host's; the replay takes the largest, and the bytes when
 * the links' time per byte is not known). Zero-initialise; zero between steps. */
typedef struct pr_links {
    size_t cap;
    uint64_t *out, *in, *bigout, *bigin;
} pr_links_t;

/* Room for nhosts hosts, zeroed. 0, or -1 out of memory (l unchanged). */
int pr_links_reserve(pr_links_t *l, size_t nhosts);
void pr_links_free(pr_links_t *l);

/* m counted on its hosts' links (host: a host id per world rank), if it goes between hosts */
static inline void pr_links_add(pr_links_t *l, const int32_t *host, const ci_xfer_t *m)
{
    if (!pr_crosses(host, m->src, m->dst))
        return;
    int32_t hs = host[m->src], hd = host[m->dst];
    l->out[hs] += m->bytes;
    l->in[hd] += m->bytes;
    if (m->bytes > l->bigout[hs])
        l->bigout[hs] = m->bytes;
    if (m->bytes > l->bigin[hd])
        l->bigin[hd] = m->bytes;
}

/* m's hosts' links zeroed again after its step */
static inline void pr_links_clear(pr_links_t *l, const int32_t *host, const ci_xfer_t *m)
{
    l->out[host[m->src]] = l->bigout[host[m->src]] = 0;
    l->in[host[m->dst]] = l->bigin[host[m->dst]] = 0;
}

/* A transfer between hosts as a flow on one host link: the host, when it starts (ns), its
 * bytes, and what the caller knows it by. */
typedef struct pr_flow {
    int32_t host;
    double start, bytes;
    size_t x;
} pr_flow_t;

/* a flow still on its link after its step: its work in ns of the link alone, and when
 * it was last seen through; next on its link, or PR_NO_FLOW */
typedef struct pr_live {
    double start, work, fin;
    size_t next;
} pr_live_t;
#define PR_NO_FLOW SIZE_MAX

/* a sender of a step and its start */
typedef struct pr_sk {
    double start;
    size_t k;
} pr_sk_t;

/* When each of n flows that share one link is through it, fin[i] for fl[i] (ns), the flows
 * sorted by start: the link moves 1 / per_byte bytes per ns, shared equally by the flows
 * on it at the time (processor sharing, as TCP shares a bottleneck between connections);
 * heap, tag: room for n. A flow alone on the link takes bytes * per_byte; k equal flows that
 * start together all finish after k times as long; a flow that starts after the others are
 * through has the link to itself. */
void pr_share_link(const pr_flow_t *fl, size_t n, double per_byte, uint32_t *heap, double *tag,
                   double *fin);

/* Scratch reused across instances. Zero-initialise; pr_free at the end. */
typedef struct pr {
    size_t mcap, xcap, rcap;
    /* per member, sorted by world rank */
    int32_t *rank;
    double *entry, *mexit;      /* measured entry and exit */
    double *ready, *start, *done;
    /* per (member, kind of path), slot pr_slot (predict_replay.c): */
    double *tout, *tin;         /* the step's aggregated out (in) message's time */
    uint64_t *bout, *bin;       /* its bytes */
    uint64_t *bigout, *bigin;   /* the largest single message out (in) */
    int32_t *pout, *pin;        /* peer of the slowest message out (in), world ranks */
    uint32_t *nout, *nin;       /* messages out (in) in the step */
    double *slowout, *slowin;   /* the slowest single message's time, choosing pout/pin */
    uint8_t *tw;                /* bits: 1 the out message is two-way, 2 the in message */
    /* per member: */
    uint8_t *paths;             /* bits: 1 sends within the host, 2 between hosts; 4, 8
                                   receives within, between */
    uint32_t *mark;             /* step + 1 the member last took part in */
    pr_links_t links;           /* per host, between hosts */
    double *red;                /* reduced bytes in the step */
    size_t *part, *order;       /* the step's members; the sort permutation */
    /* per transfer / reduction */
    const ci_xfer_t **x;        /* the instance's sends by step */
    uint64_t *xi;               /* their (source, destination) members */
    double *xt;                 /* and their times alone, two-way or not */
    const ci_red_t **r;         /* its reductions by step */
    /* host links shared over time (pr_share_link); per step, sized by the largest step: */
    size_t scap;
    double *sfo, *sfi, *spb;    /* per transfer between hosts: when it is through its host's
                                 * link out, in (ns); its time per byte on its path */
    pr_flow_t *nf;              /* the step's flows on one way's links, by host, each
                                 * host's by start */
    size_t *xfirst;             /* per member: its first transfer of the step */
    pr_sk_t *sorder;            /* the step's senders by start */
    size_t fcap;                /* one link's flows, the earlier steps' still on it first: */
    pr_flow_t *fl;
    uint32_t *heap;             /* pr_share_link's scratch */
    double *tag, *ffin;
    /* per host: */
    size_t hcap;
    uint32_t *hcnt;             /* zero between uses */
    int32_t *touched;           /* the hosts a step's flows use */
    size_t *lhead;              /* per (host, way out 0 / in 1): its flows still on it, a
                                 * list in pool, valid when lstamp is the instance's epoch */
    uint32_t *lstamp, epoch;
    pr_live_t *pool;            /* flows still on their links after their step */
    size_t pcap, pn, pfree;
} pr_t;

/* Predicted span of the instance in ns (*span) and, if exit_err is not NULL, the median
 * over members of |predicted exit - measured exit| in ns. 0, or -1 out of memory. The
 * instance must have its members (nmem == size); transfers naming a rank that is not a
 * member are ignored. */
int pr_replay(pr_t *p, const ci_inst_t *in, pr_time_fn t, const void *ctx,
              const pr_opts_t *o, double *span, double *exit_err);
void pr_free(pr_t *p);

/* ns per byte of an elementwise sum of doubles on this machine (the common MPI_SUM of
 * MPI_DOUBLE), the fastest of several timed passes over 256 KiB. */
double pr_measure_gamma(void);

#endif
