/* fuzz_log.c: libFuzzer target for the log reader (fuzz_log.h: the input). Each input is
 * packed into a valid rank file (header CRC, zstd, payload hashes) in a private directory
 * under /dev/shm, then read the way the commands read: the run, every event of every rank
 * (linked and unlinked), communicators, call sites, the probe, drops and warnings. A crash,
 * a sanitizer report or a leak is a finding; an error return is the reader doing its job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_log.h"
#include "plog_callsites.h"
#include "plog_probeset.h"
#include "plog_reader.h"
#include "plog_write.h"

static char dir[64], path[128];

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static int pack(const uint8_t *d, size_t n)
{
    if (n < 2)
        return -1;
    int32_t world = 1 + d[0] % 4;
    int end = d[1] == 0;
    const uint8_t *p = d + 2, *e = d + n;
    const char *kv = "hostname=fuzz";
    size_t kv_len = strlen(kv) + 1;
    if (e - p >= FUZZ_REC_HEAD && p[0] == 0) { /* the header's strings */
        uint32_t len = le32(p + 7);
        if (len <= (size_t)(e - p - FUZZ_REC_HEAD)) {
            kv = (const char *)p + FUZZ_REC_HEAD;
            kv_len = len;
            p += FUZZ_REC_HEAD + len;
        }
    }
    plog_file_header_t h = {0};
    h.rank = 0;
    h.world_size = world;
    h.pid = 1;
    h.clock = PLOG_CLOCK_MONOTONIC;
    h.t_init_ns = 1000;
    unlink(path);
    plog_writer_t w;
    if (plog_writer_open(&w, path, 0600, 1, &h, kv, kv_len) != PLOG_OK)
        return -1;
    const uint8_t *last = NULL;
    uint32_t last_len = 0;
    while (e - p >= FUZZ_REC_HEAD) {
        unsigned kind = p[0], thread = p[1] | p[2] << 8;
        uint32_t count = le32(p + 3), len = le32(p + 7);
        if (len > (size_t)(e - p - FUZZ_REC_HEAD))
            len = (uint32_t)(e - p - FUZZ_REC_HEAD);
        const uint8_t *raw = p + FUZZ_REC_HEAD;
        p += FUZZ_REC_HEAD + len;
        if (kind == PLOG_FRAME_END) {
            last = raw;
            last_len = len;
            continue;
        }
        if (plog_writer_frame(&w, kind, thread, count, raw, len) != PLOG_OK)
            break;
    }
    if (end)
        plog_writer_close(&w, last ? (const char *)last : "ending=finalize",
                          last ? last_len : sizeof("ending=finalize"));
    else
        plog_writer_abandon(&w); /* the file stays without an END frame */
    return 0;
}

static void read_all(void)
{
    plog_run_t *run = NULL;
    plog_error_t err;
    if (plog_run_open(path, &run, &err) != PLOG_OK)
        return;
    for (unsigned opts = 0; opts < 2; opts++) {
        plog_iter_t *it = NULL;
        if (plog_iter_open_opts(run, PLOG_ALL_RANKS, opts ? PLOG_ITER_NOLINK : 0, &it, &err) ==
            PLOG_OK) {
            const plog_rec_t *r;
            while (plog_iter_next(it, &r, &err) == PLOG_OK && r != NULL)
                ;
        }
        plog_iter_close(it);
    }
    plog_callsites_t *cs = NULL;
    if (plog_callsites_load(run, &cs, &err) == PLOG_OK)
        plog_callsites_free(cs);
    plog_probeset_t ps;
    if (plog_probeset_load(run, &ps, &err) == PLOG_OK)
        plog_probeset_free(&ps);
    for (size_t i = 0; i < plog_run_nwarnings(run); i++)
        (void)plog_run_warning(run, i);
    for (size_t g = 1; g <= plog_run_ncomms(run); g++)
        (void)plog_run_comm(run, (int32_t)g);
    plog_run_close(run);
}

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof(dir), "/dev/shm/phasor-fuzz-XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof(dir), "/tmp/phasor-fuzz-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(path, sizeof(path), "%s/rank-000000.plog", dir);
    atexit(cleanup); /* libFuzzer ends by exit(), a finding included */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (pack(data, size) == 0)
        read_all();
    unlink(path);
    return 0;
}
