/* net_samples.h: a probe's samples made fit for the models: a quick probe's pairs unshared
 * from the host links their round shared (pns_unshare), and medians of few samples pooled
 * toward their group (pns_shrink). Pure C, libc/libm only: phasor-probe and predict both
 * rewrite samples this way before fitting (format/model_file.h, pmf_fit_samples). */
#ifndef NET_SAMPLES_H
#define NET_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "net_model.h"

/* The pairing of a quick probe's rounds: the partner of rank r in round k (0 <= k < p - 1
 * for even p, < p for odd p) of p ranks, -1 when r rests; symmetric
 * (plog_probe_partner, which the log format defines). */
typedef int (*pns_partner_fn)(int r, int k, int p);

/* How pns_unshare rewrites: one-way samples from the slowest flow on their link; the bytes
 * above the smallest size's (else all the bytes). */
enum { PNS_SLOWEST = 2u, PNS_SMALLEST = 4u };

/* A quick probe times all pairs of a round at once (partner), so where ranks share a host,
 * the round's pairs between hosts share its link: L flows on the busier of a pair's two
 * host links (exchanges: the host's ranks paired off-host; one way: those of them sending,
 * or receiving, on that repetition). Rewrites the quick probe's samples s[0..n) as one
 * flow alone on its link would take them: a pair sample of b bytes at load L > 1 becomes
 * what the same pair (and way) took for s0 + (b - s0) / L bytes, s0 the smallest size
 * (how & PNS_SMALLEST; else b / L), linear in the size between its measured sizes (one
 * way, with how & PNS_SLOWEST: the most any of the L flows on that link took for those
 * bytes, quantile by quantile, since the link is busy until the last is through); pooled
 * samples become the sample-weighted mean, quantile by quantile, of the source's pairs
 * between hosts. host: a host id in [0, nhosts) per rank. Returns the number of pair
 * samples changed (0: nothing shared, or no memory). doc/models.md, "Shared links". */
size_t pns_unshare(pnm_sample_t *s, size_t n, int32_t nranks, const int32_t *host,
                   int32_t nhosts, unsigned how, pns_partner_fn partner);

/* A probe takes a handful of samples per pair (4 per pair and size in a quick probe on 4
 * ranks), so a median can land on one mode of a bimodal time and make its pair, or its
 * source, look slower than it is. Moves each median of s[0..n) toward the mean of its
 * group (pooled samples: every source's, by way and size; pairs: the source's, by way,
 * size and path, within a host or between hosts by host[], NULL: one path) as far as its
 * own sampling noise, from its quartiles and n, explains its distance from it (empirical
 * Bayes); each moved sample's quantiles and mean move by as much (not below 0), so its
 * spread is kept: scaled, a wide one would grow a tail. Groups of fewer than 3 stay; a
 * single sample counts as noisy as one sample of its group's members with spread; two or
 * more equal samples stay (they still count in their group's mean and spread).
 * *moved: the samples moved. 0, or -1 without memory (s unchanged). doc/models.md, "Few
 * samples". */
int pns_shrink(pnm_sample_t *s, size_t n, const int32_t *host, size_t *moved);

#endif
