/* fuzz_seed.c: turn rank files into seeds for fuzz_log (fuzz_log.h): each frame
 * decompressed, as the fuzzer's input format holds it.
 * Usage: fuzz_seed RANK-FILE OUT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_log.h"
#include "plog_reader.h"

static void put32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}

static void record(FILE *f, unsigned kind, unsigned thread, uint32_t count, const void *raw,
                   uint32_t len)
{
    uint8_t head[3] = {(uint8_t)kind, (uint8_t)thread, (uint8_t)(thread >> 8)};
    fwrite(head, 1, 3, f);
    put32(f, count);
    put32(f, len);
    fwrite(raw, 1, len, f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fuzz_seed RANK-FILE OUT\n");
        return 2;
    }
    plog_run_t *run;
    plog_error_t err;
    if (plog_run_open(argv[1], &run, &err) != PLOG_OK) {
        fprintf(stderr, "fuzz_seed: %s\n", err.msg);
        return 1;
    }
    const plog_rank_t *rk = NULL;
    for (int32_t r = 0; r < plog_run_world_size(run) && !rk; r++)
        rk = plog_run_rank(run, r);
    FILE *f = fopen(argv[2], "wb");
    if (!f || !rk)
        return 1;
    uint8_t pre[2] = {(uint8_t)(plog_run_world_size(run) - 1), (uint8_t)(rk->complete ? 0 : 1)};
    fwrite(pre, 1, 2, f);
    /* the header's strings: up to the first META or END frame's */
    size_t hk = rk->kv_len;
    for (size_t i = 0; i < rk->n_frames; i++) {
        void *raw;
        size_t len;
        if (plog_rank_read_frame(rk, i, &raw, &len, &err) != PLOG_OK)
            break;
        if (rk->frames[i].kind == PLOG_FRAME_META || rk->frames[i].kind == PLOG_FRAME_END)
            hk = hk > len ? hk - len : 0;
        free(raw);
    }
    record(f, 0, 0, 0, rk->kv, (uint32_t)hk);
    for (size_t i = 0; i < rk->n_frames; i++) {
        void *raw;
        size_t len;
        if (plog_rank_read_frame(rk, i, &raw, &len, &err) != PLOG_OK)
            break;
        const plog_frame_ix_t *x = &rk->frames[i];
        record(f, x->kind, x->thread, x->count, raw, (uint32_t)len);
        free(raw);
    }
    fclose(f);
    plog_run_close(run);
    return 0;
}
