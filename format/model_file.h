/* model_file.h: the network model file (JSON, doc/model-format.md): the probe's quantiles
 * and the parameters of the models fitted to them. Written by phasor-probe and `phasor
 * predict --save-model`, read by `phasor predict --model`. */
#ifndef MODEL_FILE_H
#define MODEL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "net_model.h"
#include "net_samples.h"
#include "plog_error.h"
#include "plog_probe.h"

#define PMF_FORMAT "phasor-model"
#define PMF_VERSION 9 /* 2: a quick probe's one-way samples and models; 3: quick models
                        * fitted to the samples unshared (pns_unshare); 4: and shrunk
                        * (pns_shrink); 5: quick exchange samples are the pair's (the
                        * longer side's); 6: one-way samples unshared from the slowest
                        * flow on their link; 7: LogGP bands continuous (a band's L2o
                        * can be below 0), quick exchange samples timed from the later
                        * posting (log format 8); 8: unshared above the smallest size's
                        * time, not from 0 bytes; 9: LogGP's L and o per band (L_ns, o_ns,
                        * L_o_split), the handshake 2 L + 2 o. 1 to 8 still read */

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

/* How pmf_fit_samples rewrites: pool (version 4 on); unshare one-way samples from the
 * slowest flow on their link (version 6 on); unshare the bytes above the smallest size's
 * (version 8 on; before, all the bytes); PMF_FIT_NOW: as this version writes. */
enum {
    PMF_FIT_POOL = 1u,
    PMF_FIT_SLOWEST = PNS_SLOWEST,
    PMF_FIT_SMALLEST = PNS_SMALLEST,
    PMF_FIT_NOW = PMF_FIT_POOL | PMF_FIT_SLOWEST | PMF_FIT_SMALLEST
};
_Static_assert((PMF_FIT_POOL & (PNS_SLOWEST | PNS_SMALLEST)) == 0, "pns_unshare's bits apart");

/* The samples s[0..n) of a probe (mode 1 quick, 2 full) as the models are fitted to them,
 * in place: a quick probe's unshared by host (pns_unshare by the probe's tournament,
 * plog_probe_partner, with slowest and smallest by how; host NULL: not known), then, by
 * how, pooled (pns_shrink). phasor-probe's files and predict's fits to the run's probe both
 * go through here. *unshared: pair samples unshared; *pooled: samples moved by pooling. 0,
 * or -1 without memory. */
int pmf_fit_samples(pnm_sample_t *s, size_t n, int mode, int32_t nranks, const int32_t *host,
                    int32_t nhosts, unsigned how, size_t *unshared, size_t *pooled);

/* f's samples as its models are fitted to them: a copy through pmf_fit_samples, with hosts
 * by their names (an empty name a host of its own); *changed: pair samples unshared. NULL:
 * no memory. */
pnm_sample_t *pmf_fit_copy(const pmf_t *f, unsigned how, size_t *changed);

/* The largest model file pmf_read takes (doc/model-format.md, "Limits"). */
#define PMF_MAX_BYTES (128 << 20)

/* Fit every model that the samples allow (the lookup table always). */
plog_err_t pmf_fit_all(pmf_t *f, const pnm_opts_t *o, plog_error_t *err);
/* A refusal's message is one line naming the file (and the field). */
plog_err_t pmf_write(const char *path, const pmf_t *f, plog_error_t *err);
plog_err_t pmf_read(const char *path, pmf_t *f, plog_error_t *err);
void pmf_free(pmf_t *f);

#endif
