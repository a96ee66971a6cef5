/* health_mklog.c: a synthetic log for the tests of `phasor health` and `phasor regimes`
 * (cli_health.sh): 4 ranks on 2 hosts (node0: ranks 0, 1; node1: ranks 2, 3) for 10 s. Every
 * millisecond rank 0 sends 64 KiB to rank 2 and rank 3 sends 64 KiB to rank 1 (between the
 * hosts), each taking 100 us (log-normal, sd 2 %) but 300 us between SLOW_FROM and SLOW_TO (4 s and 6 s
 * after the start), and rank 0 sends 8 B to rank 1 (within node0) in 2 us throughout. The
 * receivers are always waiting already, so every message is a sample. With `probes`, every
 * 100 ms also a periodic probe (format 10): every rank's one-way medians to every other rank
 * at 4 KiB and 64 KiB, between the hosts 20 us and 100 us (3x in the slow window), within a
 * host 2 us and 5 us.
 * Usage: health_mklog DIR [probes]  (DIR must exist). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_probe.h"
#include "plog_testgen.h"
#include "synth_rng.h"

#define T0 1000000ll             /* MPI_Init's return, local ns (all clocks agree) */
#define STEPS 10000              /* one a millisecond */
#define SLOW_FROM 4000000000ll   /* from T0 */
#define SLOW_TO 6000000000ll

static int64_t inter_ns(int64_t t, uint64_t *rng)
{
    double j = exp(0.02 * srng_gauss(rng)); /* log-normal jitter, sd 2 % */
    return (int64_t)((t >= SLOW_FROM && t < SLOW_TO ? 300000.0 : 100000.0) * j);
}

static plog_event_t *ev(pgen_rank_t *g, unsigned call, int64_t t0, int64_t t1, int32_t peer,
                        int32_t tag, uint64_t bytes)
{
    plog_event_t *e = pgen_event(g, 0, call, (uint64_t)t0, (uint64_t)t1);
    if (e == NULL) {
        fprintf(stderr, "health_mklog: out of memory\n");
        exit(1);
    }
    e->comm = 1;
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
    return e;
}

static void recv(pgen_rank_t *g, int64_t t0, int64_t t1, int32_t src, int32_t tag, uint64_t bytes)
{
    ev(g, PLOG_CALL_MPI_Recv, t0, t1, src, tag, 0)->rbytes = bytes;
    pgen_last(g, 0)->flags |= PLOG_F_STATUS;
    pgen_extra1(g, 0, 1);
    pgen_status(g, 0, 0, src, tag, bytes, 0);
}

/* Rank r's periodic probe number seq at local time t (from T0). */
static int probe(pgen_rank_t *g, int32_t r, uint32_t seq, int64_t t)
{
    plog_probe_info_t in = {.mode = PLOG_PROBE_QUICK, .nsizes = 2, .sizes = {4096, 65536},
                            .reps = 2, .rounds = 1, .elapsed_s = 0.001, .seed = 7};
    plog_probe_entry_t e[8];
    size_t n = 0;
    int slow = t >= SLOW_FROM && t < SLOW_TO;
    for (int32_t d = 0; d < 4; d++) {
        if (d == r)
            continue;
        int inter = r / 2 != d / 2;
        for (uint32_t z = 0; z < 2; z++) {
            double b = inter ? (z ? 100000.0 : 20000.0) * (slow ? 3 : 1) : (z ? 5000.0 : 2000.0);
            b *= 1.0 + 0.01 * (double)((seq + (uint32_t)d) % 3); /* a little spread */
            e[n++] = (plog_probe_entry_t){.src = r, .dst = d, .size_idx = z, .way = PLOG_PROBE_ONEWAY,
                                          .q = {2, b, b, b, b, b, b, b, b}};
        }
    }
    plog_probe_when_t when = {seq, PLOG_PROBE_EVERY, (uint64_t)(T0 + t), (uint64_t)(T0 + t + 1000000)};
    uint8_t buf[PLOG_PROBE_BOUND(8)];
    plog_wcur_t wc = {buf, buf + sizeof(buf), 0};
    plog_probe_encode(&wc, &in, &when, e, n);
    return wc.overflow || plog_writer_frame(&g->w, PLOG_FRAME_PROBE, 0, (uint32_t)n, buf,
                                            (size_t)(wc.p - buf)) != PLOG_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "probes") != 0)) {
        fprintf(stderr, "usage: health_mklog DIR [probes]\n");
        return 2;
    }
    int probes = argc == 3;
    const char *dir = argv[1];
    int32_t all[4] = {0, 1, 2, 3};
    for (int32_t r = 0; r < 4; r++) {
        pgen_rank_t g;
        uint64_t rng = 42; /* the same draws on every rank: sender and receiver agree */
        if (pgen_open(&g, dir, r, 4, (uint64_t)T0) != 0 ||
            pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, 4, NULL, 0) != 0 ||
            pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1, NULL, 0) != 0 ||
            pgen_flush_comms(&g) != 0) {
            fprintf(stderr, "health_mklog: cannot write rank %d in %s\n", (int)r, dir);
            return 1;
        }
        ev(&g, PLOG_CALL_MPI_Init, T0 - 500000, T0, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
        for (int64_t k = 0; k < STEPS; k++) {
            int64_t t = k * 1000000, T = T0 + 100000 + t;
            int64_t d02 = inter_ns(t, &rng), d31 = inter_ns(t, &rng);
            switch (r) {
            case 0:
                ev(&g, PLOG_CALL_MPI_Send, T, T + 20000, 2, 1, 65536);
                ev(&g, PLOG_CALL_MPI_Send, T + 500000, T + 501000, 1, 2, 8);
                break;
            case 1:
                recv(&g, T - 20000, T + d31, 3, 1, 65536);
                recv(&g, T + 490000, T + 502000, 0, 2, 8);
                break;
            case 2: recv(&g, T - 20000, T + d02, 0, 1, 65536); break;
            case 3: ev(&g, PLOG_CALL_MPI_Send, T, T + 20000, 1, 1, 65536); break;
            }
            if (k % 100 == 99 && (pgen_flush(&g, 0) != 0 ||
                                  (probes && probe(&g, r, (uint32_t)(k / 100 + 1), t + 1000000) != 0))) {
                fprintf(stderr, "health_mklog: cannot write rank %d in %s\n", (int)r, dir);
                return 1;
            }
        }
        int64_t end = T0 + 100000 + STEPS * 1000000ll;
        ev(&g, PLOG_CALL_MPI_Finalize, end, end + 1000, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
        if (pgen_close(&g, NULL, 0) != 0) {
            fprintf(stderr, "health_mklog: cannot finish rank %d in %s\n", (int)r, dir);
            return 1;
        }
    }
    return 0;
}
