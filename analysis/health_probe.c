/* health_probe.c: the probe samples of health.h: every probe of the run (the one at MPI_Init
 * and the periodic ones of PHASOR_PROBE=...,every=N|pcontrol), per pair, size and way the
 * least of the probe's repetitions, at the probe's start. A later probe makes 2 to 8
 * repetitions in a few milliseconds; on a shared machine a rank off its core adds up to a
 * scheduler slice to any of them, never takes from one: the least is the link's. Its small
 * size fits in the buffers and token buckets along the path and shows no change of rate:
 * when a probe has a size of HL_LARGE_MIN or more, only those make the slowdown (value),
 * the small ones the latency. */
#include <math.h>
#include <stdlib.h>

#include "health.h"
#include "plog_probeset.h"
#include "vec.h"

int hl_probe_collect(const plog_run_t *run, hl_samples_t *out, plog_error_t *err)
{
    plog_probe_run_t *p = NULL;
    size_t np = 0, cap = 0;
    if (plog_probeseries_load(run, &p, &np, err) != PLOG_OK)
        return -1;
    out->c.probes = np;
    int rc = 0;
    for (size_t k = 0; k < np && rc == 0; k++) {
        const plog_probeset_t *ps = &p[k].set;
        int large = ps->info.nsizes > 0 && ps->info.sizes[ps->info.nsizes - 1] >= HL_LARGE_MIN;
        for (size_t i = 0; i < ps->n; i++) {
            const plog_probe_entry_t *e = &ps->e[i];
            if (e->dst < 0 || e->src < 0 || e->src >= out->world || e->dst >= out->world ||
                e->size_idx >= ps->info.nsizes || !(e->q.min > 0))
                continue; /* pooled entries, or nothing measured */
            uint64_t bytes = ps->info.sizes[e->size_idx];
            if (VEC_GROW(out->s[HL_SRC_PROBE], cap, out->n[HL_SRC_PROBE] + 1) != 0) {
                rc = -1;
                plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                          "out of memory reading the probes");
                break;
            }
            int inter = out->host[e->src] != out->host[e->dst];
            out->s[HL_SRC_PROBE][out->n[HL_SRC_PROBE]++] = (hl_sample_t){
                .t_ns = p[k].start_ns, .dur_ns = (int64_t)(e->q.min + 0.5),
                .value = large && bytes < HL_LARGE_MIN ? NAN : e->q.min,
                .bytes = bytes, .cls = 4 * hl_bucket(bytes) + 2 * (e->way != 0) + (uint32_t)inter,
                .src = e->src, .dst = e->dst};
        }
    }
    plog_probeseries_free(p, np);
    return rc;
}
