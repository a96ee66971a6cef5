/* probe_mklog.c: write a 2-rank log whose ranks hold a quick probe's PROBE frames, for the
 * tests of `phasor dump --probe` (cli_probe.sh). Every entry's quantiles follow from its
 * key, so the test can compute what dump must print:
 *   base = 1000 (src + 1) + 100 (dst + 1) + 10 way + size_idx   (dst -1: pooled)
 *   n 3, min base, q10 base + 0.5, q25 base + 1, q50 base + 2, q75 base + 3,
 *   q90 base + 4, max base + 5, mean base + 2.25
 * Sizes 4096 and 65536, 3 repetitions, 1 round, 0.1 s, seed 7. Entries are written pooled
 * first and one-way before exchange, so the reader's order is what is tested.
 * Usage: probe_mklog DIR  (DIR must exist). */
#include <stdio.h>

#include "plog_probe.h"
#include "plog_testgen.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: probe_mklog DIR\n");
        return 2;
    }
    plog_probe_info_t in = {.mode = PLOG_PROBE_QUICK, .nsizes = 2, .sizes = {4096, 65536},
                            .reps = 3, .rounds = 1, .elapsed_s = 0.1, .seed = 7};
    for (int32_t r = 0; r < 2; r++) {
        plog_probe_entry_t e[8];
        size_t n = 0;
        for (int k = 0; k < 2; k++) /* pooled, then the peer */
            for (uint32_t w = 2; w-- > 0;)
                for (uint32_t z = 0; z < 2; z++) {
                    int32_t dst = k == 0 ? -1 : 1 - r;
                    double b = 1000.0 * (r + 1) + 100.0 * (dst + 1) + 10.0 * w + z;
                    e[n++] = (plog_probe_entry_t){
                        .src = r, .dst = dst, .size_idx = z, .way = w,
                        .q = {3, b, b + 0.5, b + 1, b + 2, b + 3, b + 4, b + 5, b + 2.25}};
                }
        pgen_rank_t g;
        if (pgen_open(&g, argv[1], r, 2, 100) != 0) {
            fprintf(stderr, "probe_mklog: cannot write rank %d's log in %s\n", (int)r, argv[1]);
            return 1;
        }
        uint8_t buf[PLOG_PROBE_BOUND(8)];
        plog_wcur_t wc = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&wc, &in, NULL, e, n);
        if (wc.overflow ||
            plog_writer_frame(&g.w, PLOG_FRAME_PROBE, 0, (uint32_t)n, buf,
                              (size_t)(wc.p - buf)) != PLOG_OK ||
            pgen_close(&g, NULL, 0) != 0) {
            fprintf(stderr, "probe_mklog: writing rank %d's log failed\n", (int)r);
            return 1;
        }
    }
    return 0;
}
