/* health.h: the network over a whole run, from what the run itself did (`phasor health`;
 * doc/health.md). Three sources of samples, each a time, a duration and a class:
 *
 *   messages     every point-to-point message matched sender to receiver (MPI's
 *                non-overtaking order per communicator, source, destination and tag; the
 *                source and tag of wildcard receives from their statuses). Its duration runs
 *                from the later of the two postings to the receive's completion on the
 *                aligned clock. Only messages the receiver was already waiting for when the
 *                sender posted them are kept ("reliable"): the others measure how late the
 *                receiver came (the data had arrived, or its rendezvous waited for the
 *                receive), not the network. Class: the size bucket.
 *   collectives  every complete blocking collective instance: from its last member's entry to
 *                its last member's exit (its own time, without waiting for late members),
 *                divided by its price by the run's network model when there is one (the
 *                run's probe or --model: the steps method of `phasor predict`); classed
 *                by (collective, communicator size, size bucket).
 *   probe        every probe of the run (at MPI_Init, and the periodic ones of
 *                PHASOR_PROBE=...,every=N|pcontrol): each probe's median per pair, size and
 *                way, at the probe's start.
 *
 * A sample belongs to links: its link kind (within a host, between hosts) and, between
 * hosts, the link of each host it leaves or enters ("host NAME"); collectives to the link
 * "collectives". Per link and window: the slowdown (the median, over the window's samples,
 * of each one's duration over the run's best for its class: the 25th percentile of its
 * class's window medians), latency (median duration of messages <= 4 KiB) and bandwidth
 * (median of bytes / duration over messages >= 64 KiB). Windows whose slowdown reaches the
 * threshold departed from the run's best; runs of them are merged into spans.
 * Never prints; doc/health-format.md describes the output. */
#ifndef HEALTH_H
#define HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "plog_error.h"
#include "plog_reader.h"

#define HL_SMALL_MAX 4096u    /* messages up to this many bytes make the latency */
#define HL_LARGE_MIN 65536u   /* messages from this many bytes make the bandwidth */

typedef enum hl_source { HL_SRC_MESSAGES = 0, HL_SRC_COLLECTIVES = 1, HL_SRC_PROBE = 2 } hl_source_t;
const char *hl_source_name(hl_source_t s); /* "messages", "collectives", "probe" */

/* One sample of the network. */
typedef struct hl_sample {
    int64_t t_ns;     /* when it began (aligned, relative to plog_run_time_ref): messages the
                         later posting, collectives the last entry, probe its start */
    int64_t dur_ns;   /* messages, probe: its time; collectives: its own time */
    double value;     /* what the slowdown compares: dur_ns, or dur / predicted; NAN: the
                         sample makes the latency only (a probe's small size, health_probe.c) */
    uint64_t bytes;   /* messages, probe: the message's; collectives: the size class */
    uint32_t cls;     /* samples are compared within a class: messages 2 x size bucket + 1
                         between hosts; collectives an index of coll_class; probe 4 x size
                         bucket + 2 x way + 1 between hosts */
    int32_t src, dst; /* world ranks; collectives: the first and last members to arrive */
} hl_sample_t;

/* Counts of what the passive collection saw. */
typedef struct hl_counts {
    uint64_t events;
    uint64_t sends, recvs;         /* messages posted / received (completed) */
    uint64_t matched;              /* pairs formed */
    uint64_t reliable;             /* kept as samples */
    uint64_t late_receiver;        /* matched, but the receiver was not yet waiting */
    uint64_t unmatched_sends, unmatched_recvs; /* left at the end of the log */
    uint64_t skipped_recvs;        /* cancelled, unknown source, or no start in the log */
    uint64_t colls, colls_kept;    /* blocking collective instances; complete and kept */
    uint64_t probes;               /* probes read (the one at MPI_Init included) */
} hl_counts_t;

typedef struct hl_opts {
    int64_t window_ns;  /* <= 0: chosen per source (hl_auto_window) */
    double threshold;   /* a window departs at slowdown >= this; <= 0: HL_THRESHOLD */
    const char *model_file; /* collectives: price with this model file; NULL: the run's probe */
    int min_samples;    /* a window's statistic needs this many samples; <= 0: 5 */
} hl_opts_t;
#define HL_THRESHOLD 1.5

/* Every sample of a run. */
typedef struct hl_samples {
    int32_t world, nhosts;
    int32_t *host;              /* per world rank, a host id */
    char **host_name;           /* per host id */
    hl_sample_t *s[3];          /* per source, sorted by t_ns */
    size_t n[3];
    int coll_model;             /* 1: collectives are ratios to a model's price */
    char model_source[512];     /* which model, when coll_model */
    char **coll_class;          /* collectives: a name per class ("allreduce/8/1024B") */
    size_t ncoll_class;
    int64_t t_first, t_last;    /* the run's first and last event (aligned) */
    hl_counts_t c;
} hl_samples_t;

/* Reads the run once (every rank merged) and collects the samples of every source. A
 * missing model is not an error (collectives are then compared within their classes). */
plog_err_t hl_collect(plog_run_t *run, const hl_opts_t *o, hl_samples_t *out, plog_error_t *err);
void hl_samples_free(hl_samples_t *s);
/* hl_collect's part for the probes (health_probe.c): every probe of the run, the one at
 * MPI_Init included, into out->s[HL_SRC_PROBE] and out->c.probes. 0, or -1 with err filled. */
int hl_probe_collect(const plog_run_t *run, hl_samples_t *out, plog_error_t *err);

/* A window of one link. NAN where the window has too few samples for the statistic. */
typedef struct hl_window {
    int64_t start_ns, end_ns;
    uint32_t n;                    /* samples */
    double slowdown;
    double lat_p50_s, lat_p90_s;   /* messages, probe */
    double bw_p50_bps;             /* messages, probe: bits per second */
    int departed;
} hl_window_t;

typedef struct hl_span {           /* consecutive departed windows of one link (and the
                                      windows without enough samples between them) */
    int64_t start_ns, end_ns;
    size_t link;                   /* index into hl_health_t.link */
    double slowdown, max_slowdown; /* median and largest of its windows' */
    uint32_t windows;              /* windows from its start to its end */
} hl_span_t;

typedef struct hl_link {
    char name[80];                 /* "inter-host", "intra-host", "host NAME", "collectives" */
    hl_source_t source;
    uint64_t samples;
    size_t nw;
    hl_window_t *w;
    double best_lat_s, best_bw_bps; /* the best window's (NAN: none) */
    double slowdown_p50, slowdown_max; /* over its windows with a slowdown */
} hl_link_t;

typedef struct hl_health {
    int64_t window_ns[3];          /* per source; 0 when the source has no samples */
    double threshold;
    size_t nlink;
    hl_link_t *link;
    size_t nspan;
    hl_span_t *span;               /* by start time, then link */
} hl_health_t;

/* Windows, slowdowns and departures of every link of every source. 0, or -1 out of memory. */
int hl_health(const hl_samples_t *s, const hl_opts_t *o, hl_health_t *out);
void hl_health_free(hl_health_t *h);

/* The automatic window for n samples over [t0, t1]: the smallest 1-2-5 x 10^k ns (>= 1 ms)
 * that holds HL_PER_WINDOW samples on average and gives at most 2000 windows; the whole span
 * when there are too few samples. */
#define HL_PER_WINDOW 100
int64_t hl_auto_window(size_t n, int64_t t0, int64_t t1);
/* The window hl_health uses for a source without --window: hl_auto_window over the run for
 * messages and collectives; for the probe, the smallest 1-2-5 x 10^k ns at least the median
 * gap between probes (one probe a window). */
int64_t hl_source_window(const hl_samples_t *s, hl_source_t src);
/* The quantile of a class's window medians taken as the run's best */
#define HL_BEST_Q 0.25

/* The size bucket of a message: 0 for 0 bytes, else 1 + floor(log2 bytes). */
uint32_t hl_bucket(uint64_t bytes);

#endif
