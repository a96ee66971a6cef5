/* net_model.h: point-to-point network models fitted to probe samples (science.md §2; the
 * equations, fits and fallbacks are in doc/models.md). Pure C, libc/libm only.
 *
 *   pnm_samples_t  what a probe measured: quantiles of message times per (src, dst, size),
 *                  and per (src, size) pooled over destinations
 *   pnm_model_t    one fitted model: lookup table, piecewise Hockney, or LogGP
 *   pnm_time()     a message's point estimate (ns): what the step sum adds up
 *   pnm_loggp_parts() a LogGP message's send, receive and total times (eqs 3-4)
 *   pnm_dist()     its distribution (quantiles), for the expected maximum of a step
 *   pnm_max_of()   the expected value and 90th percentile of the maximum of independent
 *                  messages (order statistics), from their distributions
 *
 * Samples of quick probes are times to exchange a size both ways at once with every pair of a
 * round active, and one-way times with every pair of a round active; of full probes, one-way
 * times with one message in flight (profiler/phasor_probe.h). A model predicts what its
 * samples measured: when it has both ways, pnm_way() picks the one a message is like. */
#ifndef NET_MODEL_H
#define NET_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Quantiles of message times, ns: min q10 q25 q50 q75 q90 max, and the mean. */
#define PNM_NQ 7
typedef struct pnm_q {
    uint32_t n;
    double v[PNM_NQ]; /* at probabilities pnm_qprob[] */
    double mean;
} pnm_q_t;
extern const double pnm_qprob[PNM_NQ]; /* 0, .1, .25, .5, .75, .9, 1 */
enum { PNM_Q25 = 2, PNM_Q50 = 3, PNM_Q75 = 4 }; /* their slots in v[] */

enum { PNM_EXCHANGE = 0, PNM_ONEWAY = 1 };

typedef struct pnm_sample {
    int32_t src, dst; /* dst -1: every destination of src pooled */
    uint64_t bytes;
    pnm_q_t q;
    int way;          /* PNM_EXCHANGE: both directions at once; PNM_ONEWAY */
} pnm_sample_t;

typedef struct pnm_samples {
    int32_t nranks;
    int mode;                /* 1 quick (exchange both ways), 2 full (one way) */
    size_t n;
    const pnm_sample_t *s;
} pnm_samples_t;

typedef enum pnm_kind { PNM_LOOKUP = 1, PNM_HOCKNEY = 2, PNM_LOGGP = 3 } pnm_kind_t;
const char *pnm_kind_name(pnm_kind_t k); /* "lookup", "hockney", "loggp" */
int pnm_kind_parse(const char *s);       /* -1 if unknown */

/* Piecewise Hockney of one source: segment i covers (lo[i-1], lo[i]] with t = a + b n. */
#define PNM_MAXSEG 8
typedef struct pnm_hockney_src {
    int nseg;
    uint64_t hi[PNM_MAXSEG]; /* upper bound of each segment (last: UINT64_MAX) */
    double a[PNM_MAXSEG], b[PNM_MAXSEG];
} pnm_hockney_src_t;

/* LogGP in size bands (002; doc/models.md, "LogGP"). A message of n bytes takes, end to end,
 * eagerly o + (n - 1) G + L + o, and above `rndv` bytes (rendezvous: a header o + L, the
 * receiver's ack o + L, the data o + (n - 1) G + L + o, the sender's o of receiving the ack
 * subsumed) 2 L + 2 o more: the handshake, held to exactly that. L2o[b] is band b's line at
 * 0 bytes (= L + 2 o[b] where that is at least L; a band above the first is anchored to the
 * end of the band below, so its line at 0 bytes can lie below L, or below 0, and its o is
 * then 0); the line is what prices a message's total. L and o are told apart by the
 * handshake alone: round trips of eager messages only see L + 2 o. */
#define PNM_MAXBAND 4
enum {
    PNM_LO_SPLIT_NONE = 0,  /* not told apart (no size measured above the eager limit): o = 0
                               and L = L + 2o, the handshake then 2 (L + 2o), its bound */
    PNM_LO_SPLIT_FIT = 1,   /* from the measured handshake */
    PNM_LO_SPLIT_BOUND = 2, /* the measured jump lay outside [L + 2o, 2 (L + 2o)] (the
                               handshake 2 L + 2 o with L, o >= 0): held at that bound */
};
typedef struct pnm_loggp {
    int nband;
    uint64_t band_hi[PNM_MAXBAND]; /* band i: sizes <= band_hi[i] (last: UINT64_MAX) */
    double L2o[PNM_MAXBAND];       /* ns: the band's line at 0 bytes (less the handshake above
                                      rndv) */
    double G[PNM_MAXBAND];         /* ns per byte */
    double L[PNM_MAXBAND];         /* ns: latency (the fit gives every band the same) */
    double o[PNM_MAXBAND];         /* ns: overhead of each side */
    int lo_split;                  /* PNM_LO_SPLIT_*: how L and o were told apart */
    uint64_t rndv;                 /* 0: no handshake */
    double handshake;              /* ns added above rndv: 2 L + 2 o of the band above */
    double g;                      /* ns: gap between consecutive messages (the smallest
                                      size's time where only that is known) */
} pnm_loggp_t;

typedef struct pnm_opts {
    /* Hockney: explicit breakpoints (bytes, increasing; 0 entries: the study's 8 KiB and
     * 128 KiB with its fit points) or detection (detect = 1: a new segment when the next
     * point doubles the fit's residual) */
    int detect;
    int nbreak;
    uint64_t breaks[PNM_MAXSEG - 1];
    /* LogGP bands (0 entries: 1 KiB and 4 KiB, the Sweep3D paper's) */
    int nbands;
    uint64_t bands[PNM_MAXBAND - 1];
    /* LogGP: the MPI library's largest eager message, when known (0: not known). The last
     * band splits there, the handshake being the jump between the lines below and above
     * it, instead of at a jump found in the samples, which can only fall on a measured
     * size and never between two (doc/models.md). */
    uint64_t rndv;
} pnm_opts_t;

/* "study" (the default), "detect", or increasing byte sizes "8192,131072" (at most 7)
 * into o's Hockney fields; -1 if s is none of those. */
int pnm_opts_parse_breaks(const char *s, pnm_opts_t *o);

typedef struct pnm_model {
    pnm_kind_t kind;
    int32_t nranks;
    int mode;
    /* the samples it was fitted from, sorted (src, dst, bytes); pooled ones (dst -1) first
     * within each source. Owned. */
    size_t n;
    pnm_sample_t *s;
    size_t nsizes;
    uint64_t *sizes;          /* distinct sizes, increasing */
    pnm_hockney_src_t *hock;  /* PNM_HOCKNEY: one per source (nseg 0: no samples) */
    pnm_hockney_src_t hock_all; /* fallback for sources without samples: all pooled */
    pnm_loggp_t *lgp;         /* PNM_LOGGP: one per source */
    pnm_loggp_t lgp_all;
    /* index: per source, [first, end) of its samples */
    size_t *src_first, *src_end;
    int32_t *srcs;            /* the sources that have samples, increasing */
    int32_t nsrcs;
    int way;                  /* what its samples measured (PNM_EXCHANGE, PNM_ONEWAY) */
    /* fitted to the one-way samples when the samples have both ways (the model itself is
     * then fitted to the exchanges); NULL otherwise. Owned. */
    struct pnm_model *oneway;
} pnm_model_t;

typedef enum pnm_err {
    PNM_OK = 0,
    PNM_E_NOMEM = 1,
    PNM_E_NODATA = 2,  /* nothing to fit (no samples, or not the sizes a fit needs) */
    PNM_E_ARG = 3,     /* bad samples: negative or non-finite times, ranks out of range... */
} pnm_err_t;
const char *pnm_strerror(pnm_err_t e);

/* Fit a model of `kind` to samples (copied). why (optional) gets a one-line reason. */
pnm_err_t pnm_fit(pnm_kind_t kind, const pnm_samples_t *in, const pnm_opts_t *o,
                  pnm_model_t *out, char *why, size_t cap);
void pnm_free(pnm_model_t *m);

/* The model for a message whose ends also move data the other way at the same time
 * (twoway: the source receives or the destination sends in the same step) or not: m for an
 * exchange, its one-way part otherwise, when it has one; m when it has one way only. */
const pnm_model_t *pnm_way(const pnm_model_t *m, int twoway);

/* Point estimate (ns) of `bytes` from src to dst (the median, for lookup). */
double pnm_time(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes);
/* The distribution of that time: quantiles at pnm_qprob[]. */
void pnm_dist(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes, pnm_q_t *out);

/* A message's LogGP time in parts (002, eqs 3-4), ns. L, o, G: the parameters of the band
 * of `bytes`. Eager (rndv 0): send = o, the sender's busy time; recv = o, the receiver's from
 * the message's arrival at a posted receive; total = o + (n - 1) G + L + o (the band's
 * line), end to end from the send's start. Rendezvous (rndv 1, bytes above the model's
 * limit): send = 2 L + 3 o, the sender busy until the data leaves (header, its flight, the
 * receiver's ack, its flight, the data's o; the o of receiving the ack subsumed); recv =
 * total - o - L, the receiver's from the header's arrival at a posted receive (ack, its
 * flight, the data); total = the band's line plus the handshake 2 L + 2 o (the line starts
 * where the eager line ends). A late receiver adds its lateness to both ends' waits, which
 * is the caller's to add. Per source, as pnm_time (dst unused; pnm_way picks m). Where L and
 * o were not told apart (lo_split NONE, and every file before version 9) o is 0: send and an
 * eager recv cost nothing of their own. 0 when m is LogGP, else -1 (out untouched). */
typedef struct pnm_loggp_parts {
    double L, o, G, send, recv, total;
    int rndv;
} pnm_loggp_parts_t;
int pnm_loggp_parts(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes,
                    pnm_loggp_parts_t *out);

/* The pair's own measured distribution of `bytes` from src to dst (dst >= 0), between and
 * beyond its sizes as the lookup table reads it, whatever m's kind: every model keeps its
 * samples. 0 when m has no samples of that pair. */
int pnm_pair_dist(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes, pnm_q_t *out);

/* E[max] and the 90th percentile of the maximum of n independent times with the given
 * distributions (each a piecewise-linear CDF through its quantiles). 0, or -1 (no memory). */
int pnm_max_of(const pnm_q_t *d, size_t n, double *mean, double *p90);

#endif
