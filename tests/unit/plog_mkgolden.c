/* plog_mkgolden.c: write the logs of tests/data (golden run, corrupt files, missing rank).
 *
 * Built by make check; cli_golden.sh runs it into a scratch directory and compares what it
 * writes with the committed logs. Those stay as they are: they were written at format
 * version 1, so the reader is checked against bytes the current writer cannot make.
 * Regenerating them (`<build>/tests/unit/plog_mkgolden tests/data`) writes PLOG_VERSION
 * instead, and then golden.csv, golden.json (`phasor dump --csv|--json golden` in
 * tests/data) and the truncation offset cli_report.sh expects must follow. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plog_calls.h"
#include "plog_testgen.h"

#define A 1000000ull  /* rank 0's MPI_Init return, on its clock */
#define B 50000000ull /* rank 1's */
#define C 7000000ull  /* rank 2's */

static void die(const char *what)
{
    fprintf(stderr, "plog_mkgolden: %s failed\n", what);
    exit(1);
}

static plog_event_t *ev(pgen_rank_t *g, unsigned th, unsigned call, uint64_t t0, uint64_t t1,
                        uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes)
{
    plog_event_t *e = pgen_event(g, th, call, t0, t1);
    if (e == NULL)
        die("event");
    e->comm = comm;
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
    return e;
}

static void predefined(pgen_rank_t *g, int32_t rank)
{
    static const int32_t world[3] = {0, 1, 2};
    pgen_comm(g, PLOG_COMM_WORLD, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, world, 3, NULL, 0);
    pgen_comm(g, PLOG_COMM_SELF, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &rank, 1, NULL, 0);
}

static void split(pgen_rank_t *g, uint64_t t, int32_t rank)
{
    static const int32_t even[2] = {0, 2};
    int32_t odd = 1;
    if (rank % 2 == 0)
        pgen_comm(g, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, even, 2, NULL, 0);
    else
        pgen_comm(g, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, &odd, 1, NULL, 0);
    pgen_flush_comms(g);
    plog_event_t *e = ev(g, 0, PLOG_CALL_MPI_Comm_split, t + 1000, t + 3000, 1, PLOG_NONE,
                         PLOG_NONE, 0);
    e->flags = PLOG_F_NEWCOMM;
    pgen_extra1(g, 0, 3);
}

static void colls(pgen_rank_t *g, uint64_t t, const uint64_t *vs)
{
    plog_event_t *e = ev(g, 0, PLOG_CALL_MPI_Alltoallv, t + 13000, t + 15000, 1, PLOG_NONE,
                         PLOG_NONE, vs[0] + vs[1] + vs[2]);
    e->rbytes = e->bytes;
    e->flags = PLOG_F_VSEND | PLOG_F_VRECV;
    pgen_extra1(g, 0, 3);
    pgen_extra(g, 0, vs, 3);
    pgen_extra1(g, 0, 3);
    pgen_extra(g, 0, vs, 3);
    e = ev(g, 0, PLOG_CALL_MPI_Allreduce, t + 16000, t + 17000, 1, PLOG_NONE, PLOG_NONE, 8);
    e->rbytes = 8;
    e->flags = PLOG_F_INPLACE;
}

static const char meta2[] = "threads=2\0events=14\0dropped_events=0";
static const char meta1[] = "threads=1\0events=13\0dropped_events=0";

static void rank0(const char *dir)
{
    pgen_rank_t g;
    if (pgen_open(&g, dir, 0, 3, A) != 0)
        die("open rank 0");
    predefined(&g, 0);
    pgen_sync(&g, PLOG_SYNC_INIT, A + 100, 0, 0);
    pgen_flush_sync(&g);
    ev(&g, 0, PLOG_CALL_MPI_Init_thread, A - 400000, A, 0, PLOG_NONE, PLOG_NONE, 0);
    split(&g, A, 0);
    plog_event_t *e = ev(&g, 0, PLOG_CALL_MPI_Isend, A + 5000, A + 5200, 1, 1, 5, 8);
    e->request = 0xa0;
    e = ev(&g, 0, PLOG_CALL_MPI_Irecv, A + 5300, A + 5400, 1, PLOG_ANY_SOURCE, 7, 0);
    e->rbytes = 16;
    e->request = 0xa1;
    e = ev(&g, 0, PLOG_CALL_MPI_Waitall, A + 5500, A + 9000, 0, PLOG_NONE, PLOG_NONE, 0);
    e->flags = PLOG_F_HANDLES | PLOG_F_STATUS;
    uint64_t hs[3] = {2, 0xa0, 0xa1};
    pgen_extra(&g, 0, hs, 3);
    pgen_extra1(&g, 0, 2);
    pgen_status(&g, 0, 0xa0, 0, 0, 0, 0);
    pgen_status(&g, 0, 0xa1, 2, 7, 16, 1);
    e = ev(&g, 0, PLOG_CALL_MPI_Bcast, A + 10000, A + 12000, 3, PLOG_NONE, PLOG_NONE, 64);
    e->root = 0;
    e->rbytes = 64;
    static const uint64_t vs[3] = {0, 4, 8};
    colls(&g, A, vs);
    pgen_flush(&g, 0);
    /* a second thread: a probe, then a send on the split communicator */
    e = ev(&g, 1, PLOG_CALL_MPI_Iprobe, A + 6000, A + 6100, 1, PLOG_ANY_SOURCE, PLOG_ANY_TAG, 0);
    e->flags = PLOG_F_FLAG_TRUE | PLOG_F_STATUS;
    pgen_extra1(&g, 1, 1);
    pgen_status(&g, 1, 0, 2, 7, 16, 0);
    ev(&g, 1, PLOG_CALL_MPI_Send, A + 11000, A + 11500, 3, 1, 3, 4);
    pgen_flush(&g, 1);
    ev(&g, 0, PLOG_CALL_MPI_Finalize, A + 20000, A + 25000, 0, PLOG_NONE, PLOG_NONE, 0);
    pgen_sync(&g, PLOG_SYNC_FINALIZE, A + 20000, 0, 0);
    pgen_meta(&g, meta2, sizeof(meta2));
    if (pgen_close(&g, meta2, sizeof(meta2)) != 0)
        die("close rank 0");
}

static void rank1(const char *dir)
{
    pgen_rank_t g;
    if (pgen_open(&g, dir, 1, 3, B) != 0)
        die("open rank 1");
    predefined(&g, 1);
    /* rank 1's clock is ~49 ms ahead and drifts by 10 ns over 20 us (5e-4) */
    pgen_sync(&g, PLOG_SYNC_INIT, B + 100, -48999000, 2000);
    pgen_flush_sync(&g);
    ev(&g, 0, PLOG_CALL_MPI_Init_thread, B - 300000, B, 0, PLOG_NONE, PLOG_NONE, 0);
    split(&g, B, 1);
    plog_event_t *e = ev(&g, 0, PLOG_CALL_MPI_Recv, B + 4000, B + 6000, 1, 0, 5, 0);
    e->rbytes = 8;
    e->flags = PLOG_F_STATUS;
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0, 0, 5, 8, 0);
    e = ev(&g, 0, PLOG_CALL_MPI_Send_init, B + 7000, B + 7100, 1, 2, 9, 4);
    e->request = 0xb0;
    for (int k = 0; k < 2; k++) {
        uint64_t t = B + 7200 + 1000 * (uint64_t)k;
        e = ev(&g, 0, PLOG_CALL_MPI_Start, t, t + 100, 0, PLOG_NONE, PLOG_NONE, 0);
        e->request = 0xb0;
        e = ev(&g, 0, PLOG_CALL_MPI_Wait, t + 200, t + 800, 0, PLOG_NONE, PLOG_NONE, 0);
        e->request = 0xb0;
        e->flags = PLOG_F_STATUS;
        pgen_extra1(&g, 0, 1);
        pgen_status(&g, 0, 0xb0, 0, 0, 0, 0);
    }
    e = ev(&g, 0, PLOG_CALL_MPI_Request_free, B + 9300, B + 9400, 0, PLOG_NONE, PLOG_NONE, 0);
    e->request = 0xb0;
    static const uint64_t vs[3] = {4, 0, 4};
    colls(&g, B, vs);
    e = ev(&g, 0, PLOG_CALL_MPI_Sendrecv, B + 17500, B + 18000, 1, 2, 11, 4);
    e->rbytes = 4;
    e->flags = PLOG_F_RECVSPEC | PLOG_F_STATUS;
    pgen_extra1(&g, 0, ((uint64_t)2 << 32) | 11);
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0, 2, 11, 4, 0);
    ev(&g, 0, PLOG_CALL_MPI_Comm_free, B + 18500, B + 18600, 3, PLOG_NONE, PLOG_NONE, 0);
    ev(&g, 0, PLOG_CALL_MPI_Finalize, B + 20000, B + 25000, 0, PLOG_NONE, PLOG_NONE, 0);
    pgen_sync(&g, PLOG_SYNC_FINALIZE, B + 20100, -48998990, 2000);
    pgen_meta(&g, meta1, sizeof(meta1));
    if (pgen_close(&g, meta1, sizeof(meta1)) != 0)
        die("close rank 1");
}

/* Rank 2 "crashes" while writing its last frame: the file ends inside it. */
static void rank2(const char *dir)
{
    pgen_rank_t g;
    if (pgen_open(&g, dir, 2, 3, C) != 0)
        die("open rank 2");
    predefined(&g, 2);
    pgen_sync(&g, PLOG_SYNC_INIT, C + 100, -6000200, 1500); /* no Finalize sample */
    pgen_flush_sync(&g);
    ev(&g, 0, PLOG_CALL_MPI_Init_thread, C - 350000, C, 0, PLOG_NONE, PLOG_NONE, 0);
    split(&g, C, 2);
    ev(&g, 0, PLOG_CALL_MPI_Send, C + 4000, C + 4500, 1, 0, 7, 16);
    plog_event_t *e = ev(&g, 0, PLOG_CALL_MPI_Recv_init, C + 5000, C + 5100, 1, 1, 9, 0);
    e->rbytes = 4;
    e->request = 0xc0;
    e = ev(&g, 0, PLOG_CALL_MPI_Startall, C + 7000, C + 7100, 0, PLOG_NONE, PLOG_NONE, 0);
    e->flags = PLOG_F_HANDLES;
    uint64_t hs[2] = {1, 0xc0};
    pgen_extra(&g, 0, hs, 2);
    e = ev(&g, 0, PLOG_CALL_MPI_Waitany, C + 7200, C + 8000, 0, PLOG_NONE, PLOG_NONE, 0);
    e->flags = PLOG_F_HANDLES | PLOG_F_STATUS;
    pgen_extra(&g, 0, hs, 2);
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0xc0, 1, 9, 4, 0);
    e = ev(&g, 0, PLOG_CALL_MPI_Bcast, C + 10000, C + 12000, 3, PLOG_NONE, PLOG_NONE, 64);
    e->root = 0;
    e->rbytes = 64;
    /* a matched probe: Mrecv has no communicator, the message carries it */
    e = ev(&g, 0, PLOG_CALL_MPI_Mprobe, C + 12100, C + 12200, 3, 0, 3, 0);
    e->flags = PLOG_F_HANDLES | PLOG_F_STATUS | PLOG_F_MESSAGE;
    uint64_t msg[2] = {1, 0xd0};
    pgen_extra(&g, 0, msg, 2);
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0, 0, 3, 4, 0);
    e = ev(&g, 0, PLOG_CALL_MPI_Mrecv, C + 12300, C + 12400, 0, PLOG_NONE, PLOG_NONE, 0);
    e->rbytes = 4;
    e->flags = PLOG_F_HANDLES | PLOG_F_STATUS | PLOG_F_MESSAGE;
    pgen_extra(&g, 0, msg, 2);
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0, 0, 3, 4, 0);
    static const uint64_t vs[3] = {8, 4, 0};
    colls(&g, C, vs);
    pgen_flush(&g, 0);
    uint64_t complete_end = g.w.offset;
    ev(&g, 0, PLOG_CALL_MPI_Finalize, C + 20000, C + 25000, 0, PLOG_NONE, PLOG_NONE, 0);
    pgen_abandon(&g);
    char path[4096];
    snprintf(path, sizeof(path), "%s/" PLOG_FILE_PATTERN, dir, 2);
    if (truncate(path, (off_t)complete_end + 30) != 0) /* 24-byte header + 6 payload bytes */
        die("truncate rank 2");
}

static uint8_t *load(const char *path, size_t *len)
{
    uint8_t *b;
    if (pgen_read_file(path, &b, len) != 0)
        die(path);
    return b;
}

static void put(const char *dir, const char *name, const uint8_t *b, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (pgen_write_file(path, b, len) != 0)
        die(path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: plog_mkgolden DIR (writes golden/, corrupt/, missing-rank/)\n");
        return 2;
    }
    char golden[2048], corrupt[2048], missing[2048], path[4096];
    snprintf(golden, sizeof(golden), "%s/golden", argv[1]);
    snprintf(corrupt, sizeof(corrupt), "%s/corrupt", argv[1]);
    snprintf(missing, sizeof(missing), "%s/missing-rank", argv[1]);
    pgen_rmdir(golden);
    pgen_rmdir(corrupt);
    pgen_rmdir(missing);
    if (mkdir(golden, 0755) != 0 || mkdir(corrupt, 0755) != 0 || mkdir(missing, 0755) != 0)
        die("mkdir");
    rank0(golden);
    rank1(golden);
    rank2(golden);

    size_t len;
    snprintf(path, sizeof(path), "%s/" PLOG_FILE_PATTERN, golden, 1);
    uint8_t *r1 = load(path, &len);
    plog_file_header_t h;
    memcpy(&h, r1, sizeof(h));
    uint8_t *b = malloc(len);
    if (b == NULL)
        die("malloc");

    memcpy(b, r1, len);
    b[0] = 'X';
    put(corrupt, "bad-magic.plog", b, len);

    memcpy(b, r1, len);
    b[8] = 99; /* version 99 */
    put(corrupt, "bad-version.plog", b, len);

    memcpy(b, r1, len);
    b[sizeof(h) + 10] ^= 0x20; /* inside the hostname string */
    put(corrupt, "header-crc.plog", b, len);

    memcpy(b, r1, len);
    b[h.header_len + 16] ^= 0x01; /* count field of the first frame header */
    put(corrupt, "frame-crc.plog", b, len);

    /* the first EVENTS frame's payload: walk the frame headers to find it */
    memcpy(b, r1, len);
    size_t off = h.header_len;
    for (;;) {
        plog_frame_header_t fh;
        if (off + sizeof(fh) > len)
            die("finding an EVENTS frame");
        memcpy(&fh, b + off, sizeof(fh));
        if (fh.kind == PLOG_FRAME_EVENTS) {
            b[off + sizeof(fh) + fh.comp_len / 2] ^= 0x10;
            break;
        }
        off += sizeof(fh) + fh.comp_len;
    }
    put(corrupt, "zstd-damage.plog", b, len);

    put(missing, "rank-000001.plog", r1, len);
    snprintf(path, sizeof(path), "%s/" PLOG_FILE_PATTERN, golden, 0);
    free(b);
    b = load(path, &len);
    put(missing, "rank-000000.plog", b, len);
    free(b);
    free(r1);
    return 0;
}
