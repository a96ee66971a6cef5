/* model_file.h: the network model file (JSON, doc/model-format.md): the probe's quantiles
 * and the parameters of the models fitted to them. Written by phasor-probe and `phasor
 * predict --save-model`, read by `phasor predict --model`. */
#ifndef MODEL_FILE_H
#define MODEL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "net_model.h"
#include "plog_probe.h"

#define PMF_FORMAT "phasor-model"
#define PMF_VERSION 8 /* 2: a quick probe's one-way samples and models; 3: quick models
                        * fitted to the samples unshared (pmf_unshare); 4: and shrunk
                        * (pmf_shrink); 5: quick exchange samples are the pair's (the
                        * longer side's); 6: one-way samples unshared from the slowest
                        * flow on their link; 7: LogGP bands continuous (a band's L2o
                        * can be below 0), quick exchange samples timed from the later
                        * posting (log format 8); 8: unshared above the smallest size's
                        * time, not from 0 bytes. 1 to 7 still read */

typedef struct pmf {
    int mode;               /* 1 quick, 2 full */
    int32_t nranks;
    uint32_t reps;
    double elapsed_s;
    uint64_t seed;
    char created[32];       /* ISO 8601 UTC */
    char library[256];      /* MPI_Get_library_version's first line */
    char (*hosts)[64];      /* nranks entries, or NULL */
    size_t n;
    pnm_sample_t *s;
    int has[PNM_LOGGP + 1]; /* by pnm_kind_t */
    pnm_model_t m[PNM_LOGGP + 1];
} pmf_t;

/* A host id in [0, return value) per rank of f (ranks whose `hosts` names match share one;
 * a rank without a name has its own), into id[f->nranks]. f->hosts must not be NULL. */
int32_t pmf_host_ids(const pmf_t *f, int32_t *id);

/* f, zeroed, as a probe with info over nranks ranks, created now (UTC), its entries e[0..n)
 * as samples (pmf_samples_from_probe); library and hosts are the caller's to set (pmf_free
 * frees hosts). 0, or -1 out of memory (f then holds nothing to free). */
int pmf_from_probe(pmf_t *f, const plog_probe_info_t *info, int32_t nranks,
                   const plog_probe_entry_t *e, size_t n);
/* f->library: lib's first line (MPI_Get_library_version's; MPICH names its device on a
 * later one). */
void pmf_set_library(pmf_t *f, const char *lib);

/* The probe's entries as model samples: s[i] from e[i], whose size_idx indexes sizes. */
void pmf_samples_from_probe(pnm_sample_t *s, const plog_probe_entry_t *e, size_t n,
                            const uint64_t *sizes);

/* A quick probe times all pairs of a tournament round at once (plog_probe_partner), so where
 * ranks share a host, the round's pairs between hosts share its link: L flows on the
 * busier of a pair's two host links (exchanges: the host's ranks paired off-host; one way:
 * those of them sending, or receiving, on that repetition). Rewrites the quick probe's
 * samples s[0..n) as one flow alone on its link would take them: a pair sample of b bytes
 * at load L > 1 becomes what the same pair (and way) took for s0 + (b - s0) / L bytes, s0
 * the smallest size (how & PMF_FIT_SMALLEST; else b / L), linear in the size between its
 * measured sizes (one way, with how & PMF_FIT_SLOWEST: the most any of the L flows on
 * that link took for those bytes, quantile by quantile, since the link is busy until the
 * last is through); pooled samples become the sample-weighted mean,
 * quantile by quantile, of the source's pairs between hosts. host: a host id in
 * [0, nhosts) per rank. Returns the number of pair samples changed (0: nothing shared, or
 * no memory). doc/models.md, "Shared links". */
size_t pmf_unshare(pnm_sample_t *s, size_t n, int32_t nranks, const int32_t *host,
                   int32_t nhosts, unsigned how);

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
int pmf_shrink(pnm_sample_t *s, size_t n, const int32_t *host, size_t *moved);

/* How pmf_fit_samples rewrites: pool (version 4 on); unshare one-way samples from the
 * slowest flow on their link (version 6 on); unshare the bytes above the smallest size's
 * (version 8 on; before, all the bytes); PMF_FIT_NOW: as this version writes. */
enum { PMF_FIT_POOL = 1u, PMF_FIT_SLOWEST = 2u, PMF_FIT_SMALLEST = 4u, PMF_FIT_NOW = 7u };

/* The samples s[0..n) of a probe (mode 1 quick, 2 full) as the models are fitted to them,
 * in place: a quick probe's unshared by host (pmf_unshare, with slowest by how; host
 * NULL: not known), then, by how, pooled (pmf_shrink). phasor-probe's files and predict's
 * fits to the run's probe both go through here. *unshared: pair samples unshared;
 * *pooled: samples moved by pooling. 0, or -1 without memory. */
int pmf_fit_samples(pnm_sample_t *s, size_t n, int mode, int32_t nranks, const int32_t *host,
                    int32_t nhosts, unsigned how, size_t *unshared, size_t *pooled);

/* Fit every model that the samples allow (the lookup table always). 0, or -1 with why. */
int pmf_fit_all(pmf_t *f, const pnm_opts_t *o, char *why, size_t cap);
/* -1 with a one-line reason naming the file (and the field) in why. */
int pmf_write(const char *path, const pmf_t *f, char *why, size_t cap);
int pmf_read(const char *path, pmf_t *f, char *why, size_t cap);
void pmf_free(pmf_t *f);

#endif
