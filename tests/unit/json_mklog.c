/* json_mklog.c: write a 2-rank log whose strings are hostile to JSON writers, for
 * cli_json.sh: host names, the MPI library string and the ending hold control characters,
 * quotes, backslashes, well-formed UTF-8 and bytes that are not UTF-8. The log is otherwise
 * ordinary, so that every subcommand has something to print: iterations marked by
 * MPI_Pcontrol(7) with a message from rank 0 to rank 1 in each, a Barrier at the end, and a
 * quick probe (PROBE frames) for predict.
 * Usage: json_mklog DIR  (DIR must exist). */
#include <stdio.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_probe.h"
#include "plog_testgen.h"

/* One host name per rank: a tab, a newline, ESC, DEL, a quote, a backslash, "é" in UTF-8,
 * a lone 0xff, an overlong '/' (c0 af) and a surrogate (ed a0 80). */
static const char *const host[2] = {"node\t0\n\x1b[1m\"q\"\\\x7f", "n\xc3\xa9ud-1\xff\xc0\xaf\xed\xa0\x80"};
static const char lib[] = "Open MPI v4.1.4 \x01\x02\xfe";
static const char ending[] = "ending=finalize\x03\xff";

static size_t kv_header(char *buf, size_t cap, int32_t r)
{
    int n = snprintf(buf, cap, "hostname=%s", host[r]);
    int m = snprintf(buf + n + 1, cap - (size_t)n - 1, "mpi_library=%s", lib);
    return (size_t)n + 1 + (size_t)m + 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: json_mklog DIR\n");
        return 2;
    }
    const int32_t world[2] = {0, 1};
    for (int32_t r = 0; r < 2; r++) {
        char kv[256], path[4096];
        size_t kvl = kv_header(kv, sizeof(kv), r);
        snprintf(path, sizeof(path), "%s/rank-%06d.plog", argv[1], (int)r);
        const uint64_t t0 = 1000000;
        pgen_opts_t o = {.t_init_ns = t0, .kv = kv, .kv_len = kvl};
        pgen_rank_t g;
        if (pgen_open_ex(&g, path, r, 2, &o) != 0) {
            fprintf(stderr, "json_mklog: cannot write %s\n", path);
            return 1;
        }
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, world, 2, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1, NULL, 0);
        pgen_flush_comms(&g);
        pgen_sync(&g, PLOG_SYNC_INIT, t0, 0, 100);
        pgen_flush_sync(&g);
        pgen_event(&g, 0, PLOG_CALL_MPI_Init, t0 - 500, t0);
        for (uint64_t k = 0; k < 8; k++) {
            uint64_t t = t0 + 2000 + k * 100000;
            plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Pcontrol, t, t + 20);
            e->tag = 7;
            e = pgen_event(&g, 0, r == 0 ? PLOG_CALL_MPI_Send : PLOG_CALL_MPI_Recv, t + 100,
                           t + 400);
            e->comm = 1;
            e->peer = 1 - r;
            e->tag = 3;
            e->bytes = 64;
            if (r == 1) {
                e->flags = PLOG_F_STATUS;
                pgen_extra1(&g, 0, 1);
                pgen_status(&g, 0, 0, 0, 3, 64, 0);
            }
        }
        plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, t0 + 900000, t0 + 900500);
        e->comm = 1;
        /* the quick probe's summaries of the messages this rank sent */
        plog_probe_info_t in = {.mode = PLOG_PROBE_QUICK, .nsizes = 2, .sizes = {4096, 65536},
                                .reps = 3, .rounds = 1, .elapsed_s = 0.1, .seed = 7};
        plog_probe_entry_t pe[4];
        size_t n = 0;
        for (uint32_t w = 0; w < 2; w++)
            for (uint32_t z = 0; z < 2; z++) {
                double b = 5000.0 * (z + 1) * (w + 1);
                pe[n++] = (plog_probe_entry_t){
                    .src = r, .dst = 1 - r, .size_idx = z, .way = w,
                    .q = {3, b, b + 50, b + 100, b + 200, b + 300, b + 400, b + 500, b + 225}};
            }
        uint8_t buf[PLOG_PROBE_BOUND(4)];
        plog_wcur_t wc = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&wc, &in, NULL, pe, n);
        if (wc.overflow ||
            plog_writer_frame(&g.w, PLOG_FRAME_PROBE, 0, (uint32_t)n, buf,
                              (size_t)(wc.p - buf)) != PLOG_OK ||
            pgen_close(&g, ending, sizeof(ending)) != 0) {
            fprintf(stderr, "json_mklog: writing %s failed\n", path);
            return 1;
        }
    }
    return 0;
}
