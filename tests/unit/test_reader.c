/* test_reader.c: plog_reader.c reads back what plog_testgen wrote, exactly; survives
 * truncation at every byte and random damage (errors or identical output, never garbage);
 * reports bad inputs with the right codes; links requests. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "plog_calls.h"
#include "plog_probe.h"
#include "plog_probeset.h"
#include "plog_reader.h"
#include "plog_testgen.h"

/* ==== helpers ============================================================================ */

static char *path_of(const char *dir, int rank)
{
    char *p = NULL;
    cr_assert_neq(asprintf(&p, "%s/" PLOG_FILE_PATTERN, dir, rank), -1);
    return p;
}

static plog_run_t *open_ok(const char *path)
{
    plog_run_t *run = NULL;
    plog_error_t err;
    plog_err_t e = plog_run_open(path, &run, &err);
    cr_assert_eq(e, PLOG_OK, "open %s: %s", path, err.msg);
    return run;
}

static int has_warning(const plog_run_t *run, const char *a, const char *b)
{
    for (size_t i = 0; i < plog_run_nwarnings(run); i++) {
        const char *w = plog_run_warning(run, i);
        if (strstr(w, a) && (b == NULL || strstr(w, b)))
            return 1;
    }
    return 0;
}

/* ---- a random log with known contents ---- */

#define RMAX 4
#define NCALLS 9

typedef struct xev {  /* what was written, with its extras */
    plog_event_t ev;
    uint64_t x[48];
    uint16_t thread;
} xev_t;

typedef struct expect {
    xev_t *ev[RMAX];
    size_t n[RMAX];
    uint64_t t_init0;
} expect_t;

static int cmp_xev(const void *a, const void *b)
{
    const xev_t *x = a, *y = b;
    if (x->ev.t_start != y->ev.t_start)
        return x->ev.t_start < y->ev.t_start ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int32_t pick_rank(uint64_t *s, uint32_t comm, int world)
{
    switch (pgen_rand(s) % 8) {
    case 0: return PLOG_ANY_SOURCE;
    case 1: return PLOG_PROC_NULL;
    default: return comm == 1 ? (int32_t)(pgen_rand(s) % (uint64_t)world) : 0;
    }
}

static void gen_random_log(const char *dir, uint64_t seed, int world, expect_t *ex)
{
    static const unsigned calls[NCALLS] = {
        PLOG_CALL_MPI_Send,   PLOG_CALL_MPI_Recv,     PLOG_CALL_MPI_Bcast,
        PLOG_CALL_MPI_Barrier, PLOG_CALL_MPI_Alltoallv, PLOG_CALL_MPI_Probe,
        PLOG_CALL_MPI_Pcontrol, PLOG_CALL_MPI_Comm_split, PLOG_CALL_MPI_Sendrecv};
    memset(ex, 0, sizeof(*ex));
    ex->t_init0 = 1000000;
    for (int r = 0; r < world; r++) {
        pgen_rank_t g;
        uint64_t tinit = 1000000 + 777 * (uint64_t)r;
        cr_assert_eq(pgen_open(&g, dir, r, world, tinit), 0);
        int32_t all[RMAX];
        for (int k = 0; k < world; k++)
            all[k] = k;
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)world, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1, NULL, 0);
        pgen_flush_comms(&g);
        pgen_sync(&g, PLOG_SYNC_INIT, tinit, 0, 10);
        pgen_flush_sync(&g);
        int threads = 1 + r % 3;
        size_t per = 300 + pgen_rand(&seed) % 400;
        ex->ev[r] = calloc(per * (size_t)threads, sizeof(xev_t));
        for (size_t k = 0; k < per; k++) {
            for (int th = 0; th < threads; th++) {
                xev_t *xe = &ex->ev[r][ex->n[r]++];
                xe->thread = (uint16_t)th;
                plog_event_t *e = &xe->ev;
                memset(e, 0, sizeof(*e));
                e->call = (uint16_t)calls[pgen_rand(&seed) % NCALLS];
                e->t_start = tinit + 16 * (k * (uint64_t)threads + (uint64_t)th);
                e->t_end = e->t_start + pgen_rand(&seed) % 100000;
                e->comm = (uint32_t)(pgen_rand(&seed) % 3);
                e->peer = e->comm ? pick_rank(&seed, e->comm, world) : PLOG_NONE;
                e->root = e->comm && pgen_rand(&seed) % 2 ? pick_rank(&seed, e->comm, world)
                                                          : PLOG_NONE;
                e->tag = (int32_t)(pgen_rand(&seed) % 1000) - 2;
                e->bytes = pgen_rand(&seed) % 3 ? pgen_rand(&seed) % 100000 : pgen_rand(&seed);
                e->rbytes = pgen_rand(&seed) % 5000;
                e->rc = pgen_rand(&seed) % 10 == 0 ? 15 : 0;
                e->callsite = (uint32_t)(pgen_rand(&seed) % 50);
                uint32_t nx = 0;
                uint64_t f = pgen_rand(&seed);
                if (f & 1)
                    e->flags |= PLOG_F_INPLACE;
                if (f & 2)
                    e->flags |= PLOG_F_FLAG_TRUE;
                if ((f & 4) && e->comm) {
                    e->flags |= PLOG_F_RECVSPEC;
                    xe->x[nx++] = ((uint64_t)(uint32_t)pick_rank(&seed, e->comm, world) << 32) |
                                  (uint32_t)(pgen_rand(&seed) % 100);
                }
                if ((f & 8) && (e->call == PLOG_CALL_MPI_Bcast || e->call == PLOG_CALL_MPI_Send)) {
                    e->flags |= PLOG_F_HANDLES;
                    uint64_t n = pgen_rand(&seed) % 4;
                    xe->x[nx++] = n;
                    for (uint64_t i = 0; i < n; i++)
                        xe->x[nx++] = pgen_rand(&seed);
                }
                if ((f & 16) && e->comm) {
                    e->flags |= PLOG_F_STATUS;
                    uint64_t n = 1 + pgen_rand(&seed) % 3;
                    xe->x[nx++] = n;
                    for (uint64_t i = 0; i < n; i++) {
                        int32_t src = pick_rank(&seed, e->comm, world);
                        uint64_t bytes = pgen_rand(&seed) % 4 == 0 ? PLOG_BYTES_UNKNOWN
                                                                   : pgen_rand(&seed) % 9999;
                        xe->x[nx++] = 0;
                        xe->x[nx++] = ((uint64_t)(uint32_t)src << 32) | (pgen_rand(&seed) % 77);
                        xe->x[nx++] = bytes;
                        xe->x[nx++] = i;
                    }
                }
                for (uint16_t vf = PLOG_F_VSEND; vf <= PLOG_F_VRECV; vf <<= 1)
                    if (f & (vf << 1)) {
                        e->flags |= vf;
                        uint64_t n = pgen_rand(&seed) % 6;
                        xe->x[nx++] = n;
                        for (uint64_t i = 0; i < n; i++)
                            xe->x[nx++] = pgen_rand(&seed) % 100000;
                    }
                if (f & 256) {
                    e->flags |= PLOG_F_NEWCOMM;
                    xe->x[nx++] = pgen_rand(&seed) % 3;
                }
                if (f & 512) {
                    e->flags |= PLOG_F_COLLINFO;
                    xe->x[nx++] = pgen_rand(&seed);
                    xe->x[nx++] = pgen_rand(&seed) % 16 | (f & 1024 ? PLOG_OP_COMMUTATIVE : 0);
                }
                if ((f & 2048) && !(e->flags & (PLOG_F_HANDLES | PLOG_F_STATUS))) {
                    /* a run of polls that found nothing; its time inside sometimes more
                     * than its span (the reader clamps it) */
                    e->call = PLOG_CALL_MPI_Iprobe;
                    e->flags = (uint16_t)((e->flags & ~PLOG_F_FLAG_TRUE) | PLOG_F_POLLS);
                    e->rc = 0;
                    xe->x[nx++] = 2 + pgen_rand(&seed) % 1000;
                    xe->x[nx++] = pgen_rand(&seed) % (e->t_end - e->t_start + 200);
                }
                e->nextra = nx;
                plog_event_t *w = pgen_event(&g, (unsigned)th, e->call, e->t_start, e->t_end);
                uint32_t keep = w->nextra;
                *w = *e;
                w->nextra = keep;
                pgen_extra(&g, (unsigned)th, xe->x, nx);
                if (pgen_rand(&seed) % 60 == 0)
                    cr_assert_eq(pgen_flush(&g, (unsigned)th), 0);
                if (pgen_rand(&seed) % 500 == 0) {
                    static const char m[] = "threads=3\0dropped_events=1";
                    pgen_meta(&g, m, sizeof(m));
                }
            }
        }
        static const char end[] = "threads=3\0dropped_events=5\0ending=finalize";
        cr_assert_eq(pgen_close(&g, end, sizeof(end)), 0);
        qsort(ex->ev[r], ex->n[r], sizeof(xev_t), cmp_xev);
    }
}

static void expect_free(expect_t *ex)
{
    for (int r = 0; r < RMAX; r++)
        free(ex->ev[r]);
}

static int32_t world_of(const plog_rank_t *rk, uint32_t comm, int32_t v)
{
    if (v < 0)
        return v;
    return comm == 1 ? v : rk->rank;
}

static void check_rec(const plog_run_t *run, const plog_rec_t *e, const xev_t *xe)
{
    const plog_rank_t *rk = plog_run_rank(run, e->rank);
    const plog_event_t *w = &xe->ev;
    int32_t self_gid = plog_rank_comm(rk, 2)->gid;
    int32_t gids[3] = {0, 1, self_gid};
    cr_assert_eq(e->thread, xe->thread);
    cr_assert_eq(e->call, w->call);
    cr_assert_str_eq(e->call_name, plog_call_name(w->call));
    cr_assert_eq(e->cls, plog_call_class(w->call));
    cr_assert_eq(e->flags, w->flags);
    cr_assert_eq(e->t_start, w->t_start);
    cr_assert_eq(e->t_end, w->t_end);
    cr_assert_eq(e->start_ns, (int64_t)(w->t_start - 1000000));
    cr_assert_eq(e->end_ns, (int64_t)(w->t_end - 1000000));
    cr_assert_eq(e->comm, gids[w->comm]);
    cr_assert_eq(e->local_comm, w->comm);
    cr_assert_eq(e->peer, world_of(rk, w->comm, w->peer));
    cr_assert_eq(e->root, world_of(rk, w->comm, w->root));
    cr_assert_eq(e->tag, w->tag);
    cr_assert_eq(e->bytes, w->bytes);
    cr_assert_eq(e->rbytes, w->rbytes);
    cr_assert_eq(e->rc, w->rc);
    cr_assert_eq(e->callsite, w->callsite);
    cr_assert_eq(e->request, 0);
    const uint64_t *x = xe->x;
    if (w->flags & PLOG_F_RECVSPEC) {
        cr_assert_eq(e->recv_source, world_of(rk, w->comm, (int32_t)(uint32_t)(*x >> 32)));
        cr_assert_eq(e->recv_tag, (int32_t)(uint32_t)*x);
        x++;
    }
    if (w->flags & PLOG_F_HANDLES) {
        cr_assert_eq(e->n_handles, *x);
        for (uint32_t i = 0; i < e->n_handles; i++) {
            cr_assert_eq(e->handles[i].handle, x[1 + i]);
            cr_assert_eq(e->handles[i].id, 0);
        }
        x += 1 + *x;
    } else {
        cr_assert_eq(e->n_handles, 0);
    }
    if (w->flags & PLOG_F_STATUS) {
        cr_assert_eq(e->n_status, *x);
        for (uint32_t i = 0; i < e->n_status; i++) {
            const uint64_t *s = x + 1 + 4 * i;
            const plog_rstatus_t *st = &e->status[i];
            cr_assert_eq(st->source, world_of(rk, w->comm, (int32_t)(uint32_t)(s[1] >> 32)));
            cr_assert_eq(st->tag, (int32_t)(uint32_t)s[1]);
            cr_assert_eq(st->cancelled, 0);
            cr_assert_eq(st->bytes, s[2]);
            cr_assert_eq(st->index, s[3]);
            cr_assert_eq(st->request, 0);
        }
        x += 1 + 4 * *x;
    } else {
        cr_assert_eq(e->n_status, 0);
    }
    if (w->flags & PLOG_F_VSEND) {
        cr_assert_eq(e->n_vsend, *x);
        cr_assert_arr_eq(e->vsend, x + 1, *x * sizeof(uint64_t));
        x += 1 + *x;
    }
    if (w->flags & PLOG_F_VRECV) {
        cr_assert_eq(e->n_vrecv, *x);
        cr_assert_arr_eq(e->vrecv, x + 1, *x * sizeof(uint64_t));
        x += 1 + *x;
    }
    if (w->flags & PLOG_F_NEWCOMM) {
        cr_assert_eq(e->newcomm, gids[*x]);
        x++;
    }
    if (w->flags & PLOG_F_COLLINFO) {
        cr_assert_eq(e->stype_size, (uint32_t)x[0]);
        cr_assert_eq(e->rtype_size, (uint32_t)(x[0] >> 32));
        cr_assert_eq(e->op, x[1] & 0xff);
        cr_assert_eq(e->op_commutative, (x[1] & PLOG_OP_COMMUTATIVE) != 0);
        x += 2;
    } else {
        cr_assert_eq(e->stype_size + e->rtype_size + e->op + e->op_commutative, 0);
    }
    uint64_t span = w->t_end - w->t_start;
    if (w->flags & PLOG_F_POLLS) {
        cr_assert_eq(e->ncalls, x[0]);
        cr_assert_eq(e->inside_ns, x[1] < span ? x[1] : span);
        x += 2;
    } else {
        cr_assert_eq(e->ncalls, 1);
        cr_assert_eq(e->inside_ns, span);
    }
    cr_assert_eq(x, xe->x + w->nextra);
}

Test(reader, random_log_reads_back_exactly, .timeout = 120)
{
    char *dir = pgen_tmpdir();
    expect_t ex;
    gen_random_log(dir, 2024, RMAX, &ex);
    plog_run_t *run = open_ok(dir);
    cr_assert_eq(plog_run_world_size(run), RMAX);
    cr_assert_eq(plog_run_time_ref(run), 1000000);
    for (int r = 0; r < RMAX; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        cr_assert_not_null(rk);
        cr_assert_eq(rk->complete, 1);
        cr_assert_eq(rk->n_events, ex.n[r]);
        cr_assert_eq(rk->n_threads, (uint32_t)(1 + r % 3));
        cr_assert_str_eq(plog_rank_kv(rk, "dropped_events"), "5"); /* END wins over META */
        cr_assert_str_eq(plog_rank_kv(rk, "ending"), "finalize");
        cr_assert_not_null(plog_rank_kv(rk, "hostname"));
        cr_assert_null(plog_rank_kv(rk, "dropped"));
        cr_assert_eq(rk->hdr.pid, 1000 + r);
        plog_iter_t *it;
        plog_error_t err;
        cr_assert_eq(plog_iter_open(run, r, &it, &err), PLOG_OK);
        const plog_rec_t *e;
        size_t i = 0;
        plog_err_t ie;
        while ((ie = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL) {
            cr_assert_lt(i, ex.n[r]);
            cr_assert_eq(e->rank, r);
            check_rec(run, e, &ex.ev[r][i]);
            i++;
        }
        cr_assert_eq(ie, PLOG_OK, "%s", err.msg);
        cr_assert_eq(i, ex.n[r], "rank %d: read %zu of %zu events", r, i, ex.n[r]);
        plog_iter_close(it);
    }
    /* all ranks merged by aligned start time */
    plog_iter_t *it;
    plog_error_t err;
    cr_assert_eq(plog_iter_open(run, PLOG_ALL_RANKS, &it, &err), PLOG_OK);
    const plog_rec_t *e;
    size_t total = 0, want = 0, next[RMAX] = {0};
    int64_t prev = INT64_MIN;
    int32_t prev_rank = -1;
    while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL) {
        cr_assert(e->start_ns > prev || (e->start_ns == prev && e->rank >= prev_rank));
        check_rec(run, e, &ex.ev[e->rank][next[e->rank]++]);
        prev = e->start_ns;
        prev_rank = e->rank;
        total++;
    }
    for (int r = 0; r < RMAX; r++)
        want += ex.n[r];
    cr_assert_eq(total, want);
    plog_iter_close(it);
    /* the tails count 5 dropped events (without dead_thread_calls): each rank says so */
    cr_assert_eq(plog_run_nwarnings(run), RMAX, "warnings: %zu", plog_run_nwarnings(run));
    for (size_t i = 0; i < plog_run_nwarnings(run); i++)
        cr_assert(strstr(plog_run_warning(run, i), ".plog: 5 events dropped (the log does not "
                                                   "say why)") != NULL,
                  "unexpected warning: %s", plog_run_warning(run, i));
    plog_run_close(run);
    /* one file on its own */
    char *p1 = path_of(dir, 1);
    run = open_ok(p1);
    cr_assert_null(plog_run_rank(run, 0));
    cr_assert_not_null(plog_run_rank(run, 1));
    cr_assert(has_warning(run, "rank 0's log is not read", NULL));
    plog_run_close(run);
    free(p1);
    expect_free(&ex);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, equal_start_times_merge_by_thread)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    for (unsigned th = 3; th-- > 0;)
        for (uint64_t k = 0; k < 5; k++)
            pgen_event(&g, th, PLOG_CALL_MPI_Barrier, 1000 + 10 * k, 1005 + 10 * k)->tag =
                (int32_t)(th * 100 + k);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run = open_ok(dir);
    plog_iter_t *it;
    plog_error_t err;
    cr_assert_eq(plog_iter_open(run, 0, &it, &err), PLOG_OK);
    const plog_rec_t *e;
    int i = 0;
    while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL) {
        cr_assert_eq(e->thread, i % 3);
        cr_assert_eq(e->tag, (i % 3) * 100 + i / 3);
        i++;
    }
    cr_assert_eq(i, 15);
    plog_iter_close(it);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* The error argument may be NULL: the same records, one thread or several, and an error
 * still returned (and returned again) after it. */
#define ON_T1(k) ((k) < 50 && (k) % 7 == 0 ? 1u : 0u)
Test(reader, iterating_without_an_error_struct)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    /* two threads, then one (the iterator's short path), over more than one decoded batch */
    for (uint64_t k = 0; k < 600; k++)
        pgen_event(&g, ON_T1(k), PLOG_CALL_MPI_Barrier, 1000 + 10 * k, 1005 + 10 * k)->tag =
            (int32_t)k;
    /* then an event whose extras do not match its flags: an error at the end */
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 90000, 90001)->flags = PLOG_F_STATUS;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run = open_ok(dir);
    for (int pass = 0; pass < 2; pass++) {
        plog_iter_t *it;
        plog_error_t err;
        cr_assert_eq(plog_iter_open(run, 0, &it, &err), PLOG_OK);
        const plog_rec_t *e;
        plog_err_t rc;
        int i = 0;
        while ((rc = plog_iter_next(it, &e, pass ? NULL : &err)) == PLOG_OK && e != NULL) {
            cr_assert_eq(e->tag, i, "pass %d: record %d has tag %d", pass, i, e->tag);
            cr_assert_eq(e->thread, ON_T1(i));
            i++;
        }
        cr_assert_eq(i, 600, "pass %d: %d records", pass, i);
        cr_assert_eq(rc, PLOG_E_CORRUPT, "pass %d: %s", pass, plog_strerror(rc));
        cr_assert_null(e);
        cr_assert_eq(plog_iter_next(it, &e, pass ? NULL : &err), PLOG_E_CORRUPT);
        plog_iter_close(it);
    }
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}
#undef ON_T1

/* ---- a small two-rank log for the damage tests ---- */

static void gen_small(const char *dir)
{
    for (int r = 0; r < 2; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 2, 5000), 0);
        int32_t all[2] = {0, 1};
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, 2, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1, NULL, 0);
        pgen_flush_comms(&g);
        pgen_sync(&g, PLOG_SYNC_INIT, 5000, r ? -20 : 0, 5);
        pgen_flush_sync(&g);
        for (int k = 0; k < 60; k++) {
            unsigned th = (unsigned)(k % 2);
            uint64_t t = 6000 + 100 * (uint64_t)k;
            plog_event_t *e = pgen_event(&g, th, k % 3 ? PLOG_CALL_MPI_Send : PLOG_CALL_MPI_Recv,
                                         t, t + 50);
            e->comm = 1;
            e->peer = 1 - r;
            e->tag = k;
            e->bytes = (uint64_t)k * 8;
            if (k % 3 == 0) {
                e->flags = PLOG_F_STATUS;
                pgen_extra1(&g, th, 1);
                pgen_status(&g, th, 0, 1 - r, k, (uint64_t)k * 8, 0);
            }
            if (k % 10 == 9)
                pgen_flush(&g, th);
            if (k == 30) {
                static const char m[] = "threads=2";
                pgen_meta(&g, m, sizeof(m));
            }
        }
        pgen_sync(&g, PLOG_SYNC_FINALIZE, 20000, r ? -19 : 0, 5);
        static const char end[] = "threads=2\0dropped_events=0";
        cr_assert_eq(pgen_close(&g, end, sizeof(end)), 0);
    }
}

/* Everything a run decodes to, folded into one number; or 0 with *e set on an error. */
static uint64_t fold(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}
#define FOLD(h, v) ((h) = fold((h), &(v), sizeof(v)))

static uint64_t digest_run(const char *dir, plog_err_t *e, plog_error_t *err)
{
    uint64_t h = 0xcbf29ce484222325ull;
    plog_run_t *run = NULL;
    *e = plog_run_open(dir, &run, err);
    if (*e != PLOG_OK)
        return 0;
    for (int32_t r = 0; r < plog_run_world_size(run) && *e == PLOG_OK; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (rk == NULL)
            continue;
        FOLD(h, rk->complete);
        FOLD(h, rk->end_offset);
        FOLD(h, rk->n_events);
        FOLD(h, rk->n_comms);
        FOLD(h, rk->clock);
        h = fold(h, rk->kv, rk->kv_len);
        plog_iter_t *it;
        if ((*e = plog_iter_open(run, r, &it, err)) != PLOG_OK)
            break;
        const plog_rec_t *rec;
        while ((*e = plog_iter_next(it, &rec, err)) == PLOG_OK && rec != NULL) {
            plog_rec_t c = *rec;
            c.call_name = NULL;
            c.lcomm = NULL;
            c.req = NULL;
            c.handles = NULL;
            c.status = NULL;
            c.vsend = c.vrecv = NULL;
            FOLD(h, c);
            for (uint32_t i = 0; i < rec->n_status; i++) {
                plog_rstatus_t s = rec->status[i];
                s.start = NULL;
                FOLD(h, s);
            }
            h = fold(h, rec->vsend, rec->n_vsend * sizeof(uint64_t));
        }
        plog_iter_close(it);
    }
    size_t nw = plog_run_nwarnings(run);
    FOLD(h, nw);
    plog_run_close(run);
    return *e == PLOG_OK ? h : 0;
}

Test(reader, truncated_at_every_offset, .timeout = 300)
{
    char *dir = pgen_tmpdir(), *work = pgen_tmpdir();
    gen_small(dir);
    char *src1 = path_of(dir, 1), *src0 = path_of(dir, 0);
    char *dst1 = path_of(work, 1), *dst0 = path_of(work, 0);
    uint8_t *full, *r0;
    size_t len, len0;
    cr_assert_eq(pgen_read_file(src1, &full, &len), 0);
    cr_assert_eq(pgen_read_file(src0, &r0, &len0), 0);
    cr_assert_eq(pgen_write_file(dst0, r0, len0), 0);
    /* the frames of the intact file */
    plog_run_t *run = open_ok(dir);
    const plog_rank_t *rk = plog_run_rank(run, 1);
    size_t nf = rk->n_frames;
    plog_frame_ix_t *fr = malloc(nf * sizeof(*fr));
    memcpy(fr, rk->frames, nf * sizeof(*fr));
    uint32_t header_len = rk->hdr.header_len;
    /* per-thread tags in read order, to check that a cut log is a prefix per thread */
    int tags[2][64], ntag[2] = {0, 0};
    plog_iter_t *it;
    plog_error_t err;
    cr_assert_eq(plog_iter_open(run, 1, &it, &err), PLOG_OK);
    const plog_rec_t *e;
    while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL)
        tags[e->thread][ntag[e->thread]++] = e->tag;
    plog_iter_close(it);
    plog_run_close(run);

    for (size_t cut = 0; cut <= len; cut++) {
        cr_assert_eq(pgen_write_file(dst1, full, cut), 0);
        plog_err_t oe = plog_run_open(work, &run, &err);
        if (cut < header_len) {
            cr_assert_eq(oe, PLOG_E_TRUNCATED, "cut %zu: %s", cut, err.msg);
            cr_assert(strstr(err.msg, "rank-000001.plog") != NULL, "%s", err.msg);
            continue;
        }
        cr_assert_eq(oe, PLOG_OK, "cut %zu: %s", cut, err.msg);
        rk = plog_run_rank(run, 1);
        uint64_t want_events = 0, want_end = cut;
        size_t want_frames = 0;
        for (size_t i = 0; i < nf; i++) {
            if (fr[i].offset + sizeof(plog_frame_header_t) + fr[i].comp_len > cut) {
                want_end = fr[i].offset;
                break;
            }
            want_frames++;
            if (fr[i].kind == PLOG_FRAME_EVENTS)
                want_events += fr[i].count;
        }
        cr_assert_eq(rk->complete, cut == len, "cut %zu", cut);
        cr_assert_eq(rk->end_offset, want_end, "cut %zu", cut);
        cr_assert_eq(rk->n_frames, want_frames, "cut %zu", cut);
        cr_assert_eq(rk->n_events, want_events, "cut %zu", cut);
        cr_assert_eq(plog_iter_open(run, 1, &it, &err), PLOG_OK);
        int seen[2] = {0, 0};
        plog_err_t ie;
        while ((ie = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL) {
            cr_assert_lt(seen[e->thread], ntag[e->thread]);
            cr_assert_eq(e->tag, tags[e->thread][seen[e->thread]], "cut %zu", cut);
            seen[e->thread]++;
        }
        cr_assert_eq(ie, PLOG_OK, "cut %zu: %s", cut, err.msg);
        cr_assert_eq((uint64_t)(seen[0] + seen[1]), want_events, "cut %zu", cut);
        plog_iter_close(it);
        plog_run_close(run);
    }
    free(fr);
    free(full);
    free(r0);
    free(src0);
    free(src1);
    free(dst0);
    free(dst1);
    pgen_rmdir(dir);
    pgen_rmdir(work);
    free(dir);
    free(work);
}

/* Damage with all bytes present must be an error, or (if it touched nothing that matters)
 * give exactly the same events: never different data. */
Test(reader, random_damage_never_yields_garbage, .timeout = 600)
{
    char *dir = pgen_tmpdir();
    gen_small(dir);
    plog_err_t e;
    plog_error_t err;
    uint64_t base = digest_run(dir, &e, &err);
    cr_assert_eq(e, PLOG_OK, "%s", err.msg);
    uint8_t *orig[2];
    size_t len[2];
    char *path[2];
    for (int r = 0; r < 2; r++) {
        path[r] = path_of(dir, r);
        cr_assert_eq(pgen_read_file(path[r], &orig[r], &len[r]), 0);
    }
    uint64_t seed = 0x5eed;
    int errors = 0, same = 0;
    const int trials = 3000;
    for (int t = 0; t < trials; t++) {
        int r = (int)(pgen_rand(&seed) % 2);
        uint8_t *b = malloc(len[r]);
        memcpy(b, orig[r], len[r]);
        int nflip = t < trials / 2 ? 1 : 1 + (int)(pgen_rand(&seed) % 8);
        for (int k = 0; k < nflip; k++) {
            size_t off = pgen_rand(&seed) % len[r];
            uint8_t x = (uint8_t)(1 + pgen_rand(&seed) % 255);
            b[off] ^= x;
        }
        cr_assert_eq(pgen_write_file(path[r], b, len[r]), 0);
        uint64_t d = digest_run(dir, &e, &err);
        if (e != PLOG_OK) {
            errors++;
            cr_assert(strstr(err.msg, "rank-00000") != NULL, "message names no file: %s",
                      err.msg);
        } else {
            cr_assert_eq(d, base, "trial %d: damage gave different data without an error", t);
            same++;
        }
        free(b);
        cr_assert_eq(pgen_write_file(path[r], orig[r], len[r]), 0);
    }
    cr_assert_gt(errors, trials * 9 / 10, "only %d of %d damaged logs were refused", errors,
                 trials);
    for (int r = 0; r < 2; r++) {
        free(orig[r]);
        free(path[r]);
    }
    pgen_rmdir(dir);
    free(dir);
}

/* Damage plus truncation, and overwritten runs of bytes: no crash, no hang. */
Test(reader, damaged_and_cut_never_crash, .timeout = 600)
{
    char *dir = pgen_tmpdir();
    gen_small(dir);
    char *p = path_of(dir, 0);
    uint8_t *orig;
    size_t len;
    cr_assert_eq(pgen_read_file(p, &orig, &len), 0);
    uint64_t seed = 99;
    for (int t = 0; t < 1500; t++) {
        uint8_t *b = malloc(len);
        memcpy(b, orig, len);
        size_t at = pgen_rand(&seed) % len, run = 1 + pgen_rand(&seed) % 64;
        for (size_t k = at; k < len && k < at + run; k++)
            b[k] = (uint8_t)pgen_rand(&seed);
        size_t cut = pgen_rand(&seed) % 2 ? len : pgen_rand(&seed) % (len + 1);
        cr_assert_eq(pgen_write_file(p, b, cut), 0);
        plog_err_t e;
        plog_error_t err;
        digest_run(dir, &e, &err);
        if (e != PLOG_OK)
            cr_assert_neq(err.msg[0], '\0');
        free(b);
    }
    free(orig);
    free(p);
    pgen_rmdir(dir);
    free(dir);
}

/* ==== errors ============================================================================= */

static plog_err_t open_err(const char *path, plog_error_t *err)
{
    plog_run_t *run = NULL;
    plog_err_t e = plog_run_open(path, &run, err);
    if (e == PLOG_OK)
        plog_run_close(run);
    else
        cr_assert_null(run);
    return e;
}

/* Opens dir and reads every rank's records to the end: the first error, or PLOG_OK with
 * *n the records read. */
static plog_err_t read_all(const char *dir, size_t *n, plog_error_t *err)
{
    plog_run_t *run = NULL;
    plog_err_t e = plog_run_open(dir, &run, err);
    *n = 0;
    if (e != PLOG_OK)
        return e;
    plog_iter_t *it;
    if ((e = plog_iter_open(run, PLOG_ALL_RANKS, &it, err)) == PLOG_OK) {
        const plog_rec_t *rec;
        while ((e = plog_iter_next(it, &rec, err)) == PLOG_OK && rec != NULL)
            (*n)++;
        plog_iter_close(it);
    }
    plog_run_close(run);
    return e;
}

static void gen_ranks(const char *dir, int world, const int *which, int n)
{
    for (int i = 0; i < n; i++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, which[i], world, 100), 0);
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 200, 300);
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
}

Test(reader, missing_rank)
{
    char *dir = pgen_tmpdir();
    gen_ranks(dir, 3, (const int[]){0, 2}, 2);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_MISSING);
    cr_assert(strstr(err.msg, "rank-000001.plog") != NULL, "%s", err.msg);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, missing_rank_zero)
{
    char *dir = pgen_tmpdir();
    gen_ranks(dir, 2, (const int[]){1}, 1);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_MISSING);
    cr_assert(strstr(err.msg, "rank-000000.plog") != NULL, "%s", err.msg);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, empty_and_absent)
{
    char *dir = pgen_tmpdir();
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_MISSING);
    cr_assert(strstr(err.msg, dir) != NULL);
    char *nope = path_of(dir, 7);
    cr_assert_eq(open_err(nope, &err), PLOG_E_MISSING);
    cr_assert(strstr(err.msg, "rank-000007.plog") != NULL);
    free(nope);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, inconsistent_world_sizes)
{
    char *dir = pgen_tmpdir();
    gen_ranks(dir, 2, (const int[]){0}, 1);
    gen_ranks(dir, 3, (const int[]){1}, 1);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "rank-000001.plog") != NULL, "%s", err.msg);
    cr_assert(strstr(err.msg, "world size") != NULL, "%s", err.msg);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, rank_beyond_world)
{
    char *dir = pgen_tmpdir();
    gen_ranks(dir, 2, (const int[]){0, 1}, 2);
    char *extra = path_of(dir, 5);
    pgen_rank_t g;
    pgen_opts_t o = {100, NULL, 0, 0};
    cr_assert_eq(pgen_open_ex(&g, extra, 5, 6, &o), 0);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "rank-000005.plog") != NULL, "%s", err.msg);
    free(extra);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, file_name_disagrees_with_header)
{
    char *dir = pgen_tmpdir();
    char *p0 = path_of(dir, 0), *p1 = path_of(dir, 1);
    pgen_rank_t g;
    pgen_opts_t o = {100, NULL, 0, 0};
    cr_assert_eq(pgen_open_ex(&g, p0, 1, 2, &o), 0); /* rank 1's header in rank 0's file */
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    cr_assert_eq(pgen_open_ex(&g, p1, 1, 2, &o), 0);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "rank-000000.plog") && strstr(err.msg, "header says rank 1"), "%s",
              err.msg);
    free(p0);
    free(p1);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, wrong_version)
{
    char *dir = pgen_tmpdir();
    char *p = path_of(dir, 0);
    pgen_rank_t g;
    pgen_opts_t o = {100, NULL, 0, PLOG_VERSION + 1};
    cr_assert_eq(pgen_open_ex(&g, p, 0, 1, &o), 0);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_VERSION);
    cr_assert(strstr(err.msg, "rank-000000.plog: offset 8") != NULL, "%s", err.msg);
    char want[32];
    snprintf(want, sizeof(want), "version %u", PLOG_VERSION + 1);
    cr_assert(strstr(err.msg, want) != NULL, "%s", err.msg);
    cr_assert_eq(open_err(p, &err), PLOG_E_VERSION);
    free(p);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, bad_magic)
{
    char *dir = pgen_tmpdir();
    char *p = path_of(dir, 0);
    cr_assert_eq(pgen_write_file(p, (const uint8_t *)"#!/bin/sh\necho not a log\n", 25), 0);
    plog_error_t err;
    cr_assert_eq(open_err(p, &err), PLOG_E_BADMAGIC);
    cr_assert(strstr(err.msg, p) != NULL, "%s", err.msg);
    cr_assert_eq(open_err(dir, &err), PLOG_E_BADMAGIC);
    cr_assert_eq(pgen_write_file(p, (const uint8_t *)"PHASOR", 6), 0);
    cr_assert_eq(open_err(p, &err), PLOG_E_TRUNCATED);
    free(p);
    pgen_rmdir(dir);
    free(dir);
}

/* Append a hand-made frame: payload compressed as given, header fields as given. hash: 1
 * the payload ends in its hash trailer, as the writer makes it; 0 no trailer; 2 a trailer
 * whose hash is wrong; 3 a trailer with a wrong magic. */
enum { NO_HASH, HASHED, BAD_HASH, BAD_TRAILER, ZSTD_CHECKSUM /* no trailer: version <= 5 */ };
static void append_frame(const char *path, unsigned kind, uint32_t count, const void *raw,
                         size_t raw_len, uint32_t claim_raw, int hash, int twice)
{
    size_t cap = ZSTD_compressBound(raw_len) * 2 + 16 + sizeof(plog_hash_trailer_t);
    uint8_t *z = malloc(cap);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, hash == ZSTD_CHECKSUM);
    size_t n = ZSTD_compress2(c, z, cap, raw, raw_len);
    cr_assert(!ZSTD_isError(n));
    if (twice) {
        memcpy(z + n, z, n);
        n *= 2;
    }
    ZSTD_freeCCtx(c);
    if (hash != NO_HASH && hash != ZSTD_CHECKSUM) {
        plog_hash_trailer_t tr = plog_payload_trailer(z, n);
        tr.hash += hash == BAD_HASH;
        tr.magic ^= hash == BAD_TRAILER;
        memcpy(z + n, &tr, sizeof(tr));
        n += sizeof(tr);
    }
    plog_frame_header_t fh = {0};
    fh.kind = (uint16_t)kind;
    fh.comp_len = (uint32_t)n;
    fh.raw_len = claim_raw;
    fh.count = count;
    plog_frame_header_seal(&fh);
    FILE *f = fopen(path, "ab");
    cr_assert_not_null(f);
    fwrite(&fh, sizeof(fh), 1, f);
    fwrite(z, 1, n, f);
    fclose(f);
    free(z);
}

/* A one-rank log without END frame, plus one appended frame; returns the open result. */
static plog_err_t open_with_frame(unsigned kind, uint32_t count, const void *raw, size_t len,
                                  uint32_t claim, int hash, int twice, plog_error_t *err,
                                  uint64_t *frame_off)
{
    char *dir = pgen_tmpdir();
    char *p = path_of(dir, 0);
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 200, 300);
    pgen_abandon(&g);
    uint8_t *b;
    size_t flen;
    cr_assert_eq(pgen_read_file(p, &b, &flen), 0);
    free(b);
    *frame_off = flen;
    append_frame(p, kind, count, raw, len, claim, hash, twice);
    plog_err_t e = open_err(dir, err);
    if (e == PLOG_OK) { /* EVENTS frames are only decoded when read */
        plog_run_t *run = open_ok(dir);
        plog_iter_t *it;
        cr_assert_eq(plog_iter_open(run, 0, &it, err), PLOG_OK);
        const plog_rec_t *rec;
        while ((e = plog_iter_next(it, &rec, err)) == PLOG_OK && rec != NULL)
            ;
        plog_iter_close(it);
        plog_run_close(run);
    }
    free(p);
    pgen_rmdir(dir);
    free(dir);
    return e;
}

/* Logs of version 5 and before: each payload one zstd frame carrying zstd's checksum, which
 * is required (its absence is damage); no hash trailer. */
Test(reader, version_5_payloads_need_zstd_checksums)
{
    static const char kv[] = "a=1";
    for (int with = 0; with < 2; with++) {
        char *dir = pgen_tmpdir();
        char *p = path_of(dir, 0);
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
        pgen_abandon(&g); /* the header only: its frames would have hash trailers */
        uint8_t *b;
        size_t len;
        cr_assert_eq(pgen_read_file(p, &b, &len), 0);
        plog_file_header_t h;
        memcpy(&h, b, sizeof(h));
        cr_assert_eq(len, h.header_len, "the header alone");
        h.version = 5;
        h.header_crc = 0;
        memcpy(b, &h, sizeof(h));
        h.header_crc = plog_crc32(b, len);
        memcpy(b, &h, sizeof(h));
        cr_assert_eq(pgen_write_file(p, b, len), 0);
        free(b);
        append_frame(p, PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv),
                     with ? ZSTD_CHECKSUM : NO_HASH, 0);
        plog_error_t err;
        plog_err_t e = open_err(dir, &err);
        if (with) {
            cr_assert_eq(e, PLOG_OK, "%s", err.msg);
        } else {
            cr_assert_eq(e, PLOG_E_CORRUPT);
            cr_assert(strstr(err.msg, "no content checksum") != NULL, "%s", err.msg);
        }
        free(p);
        pgen_rmdir(dir);
        free(dir);
    }
}

Test(reader, frame_level_errors)
{
    static const char kv[] = "a=1";
    plog_error_t err;
    uint64_t off;
    char where[64];
    /* decoded length differs from the header */
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv) + 1, 1, 0, &err,
                                 &off), PLOG_E_CORRUPT);
    snprintf(where, sizeof(where), "offset %llu", (unsigned long long)off);
    cr_assert(strstr(err.msg, where) && strstr(err.msg, "rank-000000.plog"), "%s", err.msg);
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv) - 1, 1, 0, &err,
                                 &off), PLOG_E_CORRUPT, "%s", err.msg);
    /* no hash trailer, a wrong hash, a trailer that is not one */
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv), NO_HASH, 0,
                                 &err, &off), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "hash") != NULL, "%s", err.msg);
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv), BAD_HASH, 0,
                                 &err, &off), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "hash mismatch") != NULL, "%s", err.msg);
    snprintf(where, sizeof(where), "offset %llu", (unsigned long long)off);
    cr_assert(strstr(err.msg, where) && strstr(err.msg, "rank-000000.plog"), "%s", err.msg);
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv), BAD_TRAILER, 0,
                                 &err, &off), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "does not end in its hash") != NULL, "%s", err.msg);
    /* the hash is of the compressed bytes: the right one reads */
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv), HASHED, 0,
                                 &err, &off), PLOG_OK, "%s", err.msg);
    /* two zstd frames in one payload */
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, sizeof(kv), sizeof(kv), 1, 1, &err,
                                 &off), PLOG_E_CORRUPT);
    /* META strings must end in NUL */
    cr_assert_eq(open_with_frame(PLOG_FRAME_META, 0, kv, 3, 3, 1, 0, &err, &off),
                 PLOG_E_CORRUPT);
    /* EVENTS: count in the header differs from the payload's */
    uint8_t ev[512];
    plog_event_t one = {0};
    one.t_start = 500;
    one.t_end = 600;
    one.call = PLOG_CALL_MPI_Barrier;
    size_t elen;
    cr_assert_eq(plog_events_encode((const uint8_t *)&one, sizeof(one), 1, ev, sizeof(ev), &elen),
                 PLOG_OK);
    cr_assert_eq(open_with_frame(PLOG_FRAME_EVENTS, 2, ev, elen, (uint32_t)elen, 1, 0, &err,
                                 &off), PLOG_E_CORRUPT);
    snprintf(where, sizeof(where), "offset %llu", (unsigned long long)off);
    cr_assert(strstr(err.msg, where) != NULL, "%s", err.msg);
    /* the same frame with the right count reads */
    cr_assert_eq(open_with_frame(PLOG_FRAME_EVENTS, 1, ev, elen, (uint32_t)elen, 1, 0, &err,
                                 &off), PLOG_OK, "%s", err.msg);
    /* EVENTS whose extras disagree with the flags */
    one.flags = PLOG_F_STATUS;
    cr_assert_eq(plog_events_encode((const uint8_t *)&one, sizeof(one), 1, ev, sizeof(ev), &elen),
                 PLOG_OK);
    cr_assert_eq(open_with_frame(PLOG_FRAME_EVENTS, 1, ev, elen, (uint32_t)elen, 1, 0, &err,
                                 &off), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "extra words") != NULL, "%s", err.msg);
    /* garbage COMMS and CLOCKSYNC payloads */
    uint8_t junk[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    cr_assert_eq(open_with_frame(PLOG_FRAME_COMMS, 1, junk, 6, 6, 1, 0, &err, &off),
                 PLOG_E_CORRUPT);
    cr_assert_eq(open_with_frame(PLOG_FRAME_CLOCKSYNC, 1, junk, 6, 6, 1, 0, &err, &off),
                 PLOG_E_CORRUPT);
}

Test(reader, data_after_end_frame)
{
    char *dir = pgen_tmpdir();
    gen_ranks(dir, 1, (const int[]){0}, 1);
    char *p = path_of(dir, 0);
    FILE *f = fopen(p, "ab");
    fputs("tail", f);
    fclose(f);
    plog_error_t err;
    cr_assert_eq(open_err(dir, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "after the end frame") != NULL, "%s", err.msg);
    free(p);
    pgen_rmdir(dir);
    free(dir);
}

Test(reader, no_end_frame_reads_as_truncated)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 200, 300);
    pgen_abandon(&g);
    plog_run_t *run = open_ok(dir);
    const plog_rank_t *rk = plog_run_rank(run, 0);
    cr_assert_eq(rk->complete, 0);
    cr_assert_eq(rk->end_offset, rk->file_size);
    cr_assert_eq(rk->n_events, 1);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* ==== odd but readable data: reported, not fatal ========================================= */

Test(reader, bad_values_are_reported)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 2, 100), 0);
    plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Send, 200, 300);
    e->comm = 1;
    e->peer = 5; /* world has 2 ranks */
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Send, 400, 500);
    e->comm = 77; /* never defined */
    e->peer = 1;
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Send, 600, 700);
    e->comm = PLOG_COMM_UNKNOWN;
    e->peer = 1;
    e = pgen_event(&g, 0, 9999, 800, 900); /* no such call */
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Send, 1000, 1100);
    e->comm = 1;
    e->peer = -9; /* not a special value */
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Comm_split, 1200, 1300);
    e->comm = 1;
    e->flags = PLOG_F_NEWCOMM;
    pgen_extra1(&g, 0, 55); /* undefined new communicator */
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Wait, 1400, 1500);
    e->request = 0x1234; /* no start */
    pgen_last(&g, 0)->flags = PLOG_F_STATUS;
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0x1234, 1, 0, 4, 0);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    char *p = path_of(dir, 0);
    plog_run_t *run = open_ok(p);
    plog_iter_t *it;
    plog_error_t err;
    cr_assert_eq(plog_iter_open(run, 0, &it, &err), PLOG_OK);
    const plog_rec_t *r;
    int i = 0;
    while (plog_iter_next(it, &r, &err) == PLOG_OK && r != NULL) {
        switch (i++) {
        case 0: cr_assert_eq(r->peer, PLOG_R_BADRANK); cr_assert_eq(r->comm, 1); break;
        case 1: cr_assert_eq(r->comm, PLOG_R_COMM_UNKNOWN); cr_assert_eq(r->peer, PLOG_R_BADRANK); break;
        case 2: cr_assert_eq(r->comm, PLOG_R_COMM_UNKNOWN); break;
        case 3: cr_assert_str_eq(r->call_name, "unknown"); cr_assert_eq(r->cls, PLOG_CLASS_OTHER); break;
        case 4: cr_assert_eq(r->peer, PLOG_R_BADRANK); break;
        case 5: cr_assert_eq(r->newcomm, PLOG_R_COMM_UNKNOWN); break;
        case 6:
            cr_assert_eq(r->request, 0);
            cr_assert_eq(r->n_status, 1);
            cr_assert_eq(r->status[0].request, 0);
            cr_assert_eq(r->status[0].source, PLOG_R_BADRANK);
            break;
        }
    }
    cr_assert_eq(i, 7);
    plog_iter_close(it);
    cr_assert(has_warning(run, "2 ranks could not be translated", "peer 5"));
    cr_assert(has_warning(run, "communicator id the log does not define", "77"));
    cr_assert(has_warning(run, "never saw created", NULL));
    cr_assert(has_warning(run, "call id this reader does not know", "9999"));
    cr_assert(has_warning(run, "created a communicator id", "55"));
    cr_assert(has_warning(run, "1 request completions", "0x1234"));
    plog_run_close(run);
    free(p);
    pgen_rmdir(dir);
    free(dir);
}

/* ==== request linking ==================================================================== */

typedef struct rq {
    pgen_rank_t g;
    char *dir;
} rq_t;

static void rq_begin(rq_t *q)
{
    q->dir = pgen_tmpdir();
    cr_assert_eq(pgen_open(&q->g, q->dir, 0, 4, 100), 0);
}

static plog_event_t *rq_ev(rq_t *q, unsigned th, unsigned call, uint64_t t0, uint64_t t1,
                           uint64_t handle)
{
    plog_event_t *e = pgen_event(&q->g, th, call, t0, t1);
    e->request = handle;
    return e;
}

static void rq_isend(rq_t *q, unsigned th, uint64_t t0, uint64_t t1, uint64_t h, int32_t peer,
                     int32_t tag, uint64_t bytes, unsigned call)
{
    plog_event_t *e = rq_ev(q, th, call, t0, t1, h);
    e->comm = 1;
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
}

static void rq_status(rq_t *q, unsigned th, unsigned n)
{
    pgen_last(&q->g, th)->flags |= PLOG_F_STATUS;
    pgen_extra1(&q->g, th, n);
}

/* Read rank 0 into a small array of copies (ids and links only). */
typedef struct got {
    uint16_t call;
    uint64_t request;
    uint64_t req_id, req_def;
    uint16_t req_call;
    int32_t req_peer, req_tag;
    uint64_t req_bytes;
    uint32_t nh, ns;
    uint64_t message;
    uint64_t hid[4], sid[4];
    int32_t ssrc[4], stag[4];
    uint64_t sbytes[4];
    int scanc[4];
    int32_t comm;
} got_t;

static size_t rq_read(rq_t *q, got_t *out, size_t cap, plog_run_t **runp)
{
    cr_assert_eq(pgen_close(&q->g, NULL, 0), 0);
    plog_run_t *run = NULL;
    plog_error_t err;
    char *p = path_of(q->dir, 0);
    cr_assert_eq(plog_run_open(p, &run, &err), PLOG_OK, "%s", err.msg);
    free(p);
    plog_iter_t *it;
    cr_assert_eq(plog_iter_open(run, 0, &it, &err), PLOG_OK);
    const plog_rec_t *r;
    size_t n = 0;
    while (plog_iter_next(it, &r, &err) == PLOG_OK && r != NULL) {
        cr_assert_lt(n, cap);
        got_t *g = &out[n++];
        memset(g, 0, sizeof(*g));
        g->call = r->call;
        g->request = r->request;
        g->message = r->message;
        g->comm = r->comm;
        if (r->req) {
            g->req_id = r->req->id;
            g->req_def = r->req->def_id;
            g->req_call = r->req->call;
            g->req_peer = r->req->peer;
            g->req_tag = r->req->tag;
            g->req_bytes = r->req->bytes;
        }
        g->nh = r->n_handles;
        for (uint32_t i = 0; i < r->n_handles && i < 4; i++)
            g->hid[i] = r->handles[i].id;
        g->ns = r->n_status;
        for (uint32_t i = 0; i < r->n_status && i < 4; i++) {
            g->sid[i] = r->status[i].request;
            g->ssrc[i] = r->status[i].source;
            g->stag[i] = r->status[i].tag;
            g->sbytes[i] = r->status[i].bytes;
            g->scanc[i] = r->status[i].cancelled;
            if (r->status[i].start)
                cr_assert_eq(r->status[i].start->id, r->status[i].request);
        }
    }
    plog_iter_close(it);
    *runp = run;
    return n;
}

static void rq_end(rq_t *q, plog_run_t *run)
{
    plog_run_close(run);
    pgen_rmdir(q->dir);
    free(q->dir);
}

Test(requests, isend_irecv_waitall)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xa0, 1, 5, 8, PLOG_CALL_MPI_Isend);
    rq_isend(&q, 0, 1200, 1300, 0xa1, PLOG_ANY_SOURCE, 7, 0, PLOG_CALL_MPI_Irecv);
    rq_ev(&q, 0, PLOG_CALL_MPI_Waitall, 1400, 1500, 0)->flags = PLOG_F_HANDLES;
    uint64_t hs[3] = {2, 0xa0, 0xa1};
    pgen_extra(&q.g, 0, hs, 3);
    rq_status(&q, 0, 2);
    pgen_status(&q.g, 0, 0xa0, 0, 0, 0, 0);
    pgen_status(&q.g, 0, 0xa1, 3, 7, 16, 1);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 3);
    cr_assert_eq(g[0].request, 1);
    cr_assert_eq(g[1].request, 2);
    cr_assert_eq(g[2].request, 0, "Waitall completes two requests");
    cr_assert_eq(g[2].nh, 2);
    cr_assert_eq(g[2].hid[0], 1);
    cr_assert_eq(g[2].hid[1], 2);
    cr_assert_eq(g[2].sid[0], 1);
    cr_assert_eq(g[2].ssrc[0], PLOG_NONE, "a send's status has no source");
    cr_assert_eq(g[2].stag[0], PLOG_NONE);
    cr_assert_eq(g[2].sbytes[0], PLOG_BYTES_UNKNOWN);
    cr_assert_eq(g[2].sid[1], 2);
    cr_assert_eq(g[2].ssrc[1], 3);
    cr_assert_eq(g[2].stag[1], 7);
    cr_assert_eq(g[2].sbytes[1], 16);
    cr_assert_eq(plog_run_nwarnings(run), 0);
    rq_end(&q, run);
}

Test(requests, reused_handles_get_new_ids)
{
    rq_t q;
    rq_begin(&q);
    for (int k = 0; k < 3; k++) {
        uint64_t t = 1000 + 1000 * (uint64_t)k;
        rq_isend(&q, 0, t, t + 100, 0xbeef, k, 10 + k, 4, PLOG_CALL_MPI_Isend);
        rq_ev(&q, 0, PLOG_CALL_MPI_Wait, t + 200, t + 300, 0xbeef);
        rq_status(&q, 0, 1);
        pgen_status(&q.g, 0, 0xbeef, 0, 0, 0, 0);
    }
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 6);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(g[2 * k].request, (uint64_t)k + 1);
        cr_assert_eq(g[2 * k + 1].request, (uint64_t)k + 1);
        cr_assert_eq(g[2 * k + 1].req_peer, k);
        cr_assert_eq(g[2 * k + 1].req_tag, 10 + k);
        cr_assert_eq(g[2 * k + 1].req_call, PLOG_CALL_MPI_Isend);
    }
    cr_assert_eq(plog_run_nwarnings(run), 0);
    rq_end(&q, run);
}

/* Thread 0 starts H; thread 1 waits on it; thread 2's Isend began before that wait and got
 * the recycled H only as the wait freed it (it ends later): the wait is thread 0's. */
Test(requests, across_threads_by_time)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 2000, 0x77, 1, 1, 8, PLOG_CALL_MPI_Isend);
    rq_isend(&q, 2, 2100, 4500, 0x77, 2, 2, 8, PLOG_CALL_MPI_Isend);
    rq_ev(&q, 1, PLOG_CALL_MPI_Wait, 2500, 4000, 0x77);
    rq_status(&q, 1, 1);
    pgen_status(&q.g, 1, 0x77, 0, 0, 0, 0);
    rq_ev(&q, 1, PLOG_CALL_MPI_Wait, 5000, 6000, 0x77);
    rq_status(&q, 1, 1);
    pgen_status(&q.g, 1, 0x77, 0, 0, 0, 0);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 4);
    cr_assert_eq(g[0].request, 1);
    cr_assert_eq(g[1].request, 2);
    cr_assert_eq(g[2].request, 1);
    cr_assert_eq(g[2].req_peer, 1);
    cr_assert_eq(g[3].request, 2);
    cr_assert_eq(g[3].req_peer, 2);
    cr_assert_eq(plog_run_nwarnings(run), 0);
    rq_end(&q, run);
}

/* MPI libraries give one static handle to requests that complete at once (Open MPI: every
 * operation on MPI_PROC_NULL), so several open starts can share a handle: a Waitall's
 * statuses take them in posting order (index order), a lone Wait the most recent. */
Test(requests, shared_handle_completes_in_posting_order)
{
    rq_t q;
    rq_begin(&q);
    for (int k = 0; k < 3; k++)
        rq_isend(&q, 0, 1000 + 100 * (uint64_t)k, 1050 + 100 * (uint64_t)k, 0xcc0,
                 PLOG_PROC_NULL, k, 8, k < 2 ? PLOG_CALL_MPI_Irecv : PLOG_CALL_MPI_Isend);
    rq_ev(&q, 0, PLOG_CALL_MPI_Waitsome, 2000, 2100, 0);
    rq_status(&q, 0, 3);
    for (int k = 3; k-- > 0;) /* Waitsome may list them in any order: index decides */
        pgen_status(&q.g, 0, 0xcc0, PLOG_PROC_NULL, PLOG_ANY_TAG, 0, (uint64_t)k);
    rq_isend(&q, 0, 3000, 3100, 0xcc0, PLOG_PROC_NULL, 7, 8, PLOG_CALL_MPI_Isend);
    rq_isend(&q, 0, 3200, 3300, 0xcc0, PLOG_PROC_NULL, 8, 8, PLOG_CALL_MPI_Isend);
    for (int k = 0; k < 2; k++) {
        rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 4000 + 100 * (uint64_t)k, 4050 + 100 * (uint64_t)k,
              0xcc0);
        rq_status(&q, 0, 1);
        pgen_status(&q.g, 0, 0xcc0, PLOG_PROC_NULL, PLOG_ANY_TAG, 0, 0);
    }
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 8);
    for (int k = 0; k < 3; k++) /* status k has index 2 - k */
        cr_assert_eq(g[3].sid[k], (uint64_t)(3 - k), "status %d", k);
    cr_assert_eq(g[3].ssrc[2], PLOG_PROC_NULL, "a receive from MPI_PROC_NULL");
    cr_assert_eq(g[3].ssrc[0], PLOG_NONE, "a send");
    cr_assert_eq(g[6].request, 5, "a lone Wait: the most recent");
    cr_assert_eq(g[6].req_tag, 8);
    cr_assert_eq(g[7].request, 4);
    cr_assert_eq(plog_run_nwarnings(run), 0, "%s", plog_run_warning(run, 0));
    rq_end(&q, run);
}

/* Threads each waiting on their own request with a shared handle. */
/* A Waitall that fails records its inputs but no statuses: the reader cannot tell which
 * requests ended. When the library hands out those handles again they had ended. */
Test(requests, failed_waitall_then_reuse)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xa0, 1, 7, 0, PLOG_CALL_MPI_Irecv);
    rq_isend(&q, 0, 1200, 1300, 0xa1, 1, 7, 16, PLOG_CALL_MPI_Isend);
    plog_event_t *e = rq_ev(&q, 0, PLOG_CALL_MPI_Waitall, 1400, 1500, 0);
    e->rc = 18;
    e->flags = PLOG_F_HANDLES;
    uint64_t hs[3] = {2, 0xa0, 0xa1};
    pgen_extra(&q.g, 0, hs, 3);
    rq_isend(&q, 0, 2000, 2100, 0xa0, 1, 8, 0, PLOG_CALL_MPI_Irecv);
    rq_isend(&q, 0, 2200, 2300, 0xa1, 1, 8, 8, PLOG_CALL_MPI_Isend);
    rq_ev(&q, 0, PLOG_CALL_MPI_Waitall, 2400, 2500, 0);
    rq_status(&q, 0, 2);
    pgen_status(&q.g, 0, 0xa0, 1, 8, 8, 0);
    pgen_status(&q.g, 0, 0xa1, 0, 0, 0, 1);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 6);
    cr_assert_eq(g[2].hid[0], 1);
    cr_assert_eq(g[2].hid[1], 2);
    cr_assert_eq(g[5].sid[0], 3, "not the failed Waitall's request 1");
    cr_assert_eq(g[5].sid[1], 4);
    cr_assert_eq(g[5].ssrc[0], 1);
    cr_assert(has_warning(run, "2 request starts were never seen completing", NULL));
    rq_end(&q, run);
}

/* Facts MPI guarantees override what a status says, with a warning: only MPI_Cancel can
 * cancel a request, and a receive from MPI_PROC_NULL ends with the empty status. */
Test(requests, status_words_checked_against_mpi)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0x10, 1, 3, 8, PLOG_CALL_MPI_Isend);
    rq_isend(&q, 0, 1200, 1300, 0x11, PLOG_PROC_NULL, 3, 0, PLOG_CALL_MPI_Irecv);
    rq_isend(&q, 0, 1400, 1500, 0x12, PLOG_PROC_NULL, 3, 0, PLOG_CALL_MPI_Irecv);
    rq_ev(&q, 0, PLOG_CALL_MPI_Waitall, 2000, 2100, 0);
    rq_status(&q, 0, 3);
    pgen_status(&q.g, 0, 0x10, 0, 0, 0xffffffff00000000ull, 0); /* garbage: no Cancel */
    pgen_status(&q.g, 0, 0x11, 0, 0, 0, 1);                      /* not the empty status */
    pgen_status(&q.g, 0, 0x12, PLOG_PROC_NULL, PLOG_ANY_TAG, 0, 2);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 4);
    cr_assert_eq(g[3].scanc[0], 0);
    cr_assert_eq(g[3].ssrc[1], PLOG_PROC_NULL);
    cr_assert_eq(g[3].stag[1], PLOG_ANY_TAG);
    cr_assert_eq(g[3].sbytes[1], 0);
    cr_assert_eq(g[3].ssrc[2], PLOG_PROC_NULL);
    cr_assert(has_warning(run, "1 statuses were marked cancelled although no MPI_Cancel", NULL));
    cr_assert(has_warning(run, "1 statuses of receives from MPI_PROC_NULL", "0:0:0"));
    cr_assert_eq(plog_run_nwarnings(run), 2);
    rq_end(&q, run);
}

Test(requests, shared_handle_prefers_own_thread)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xcc0, PLOG_PROC_NULL, 1, 8, PLOG_CALL_MPI_Isend);
    rq_isend(&q, 1, 1200, 1300, 0xcc0, PLOG_PROC_NULL, 2, 8, PLOG_CALL_MPI_Isend);
    rq_ev(&q, 1, PLOG_CALL_MPI_Wait, 1400, 1500, 0xcc0);
    rq_status(&q, 1, 1);
    pgen_status(&q.g, 1, 0xcc0, PLOG_PROC_NULL, PLOG_ANY_TAG, 0, 0);
    rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 1600, 1700, 0xcc0);
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xcc0, PLOG_PROC_NULL, PLOG_ANY_TAG, 0, 0);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 4);
    cr_assert_eq(g[2].request, 2, "thread 1 completes thread 1's request");
    cr_assert_eq(g[3].request, 1);
    cr_assert_eq(plog_run_nwarnings(run), 0, "%s", plog_run_warning(run, 0));
    rq_end(&q, run);
}

/* A complete log whose requests never completed says so; a truncated one may not know. */
Test(requests, never_completed)
{
    for (int complete = 0; complete < 2; complete++) {
        char *dir = pgen_tmpdir();
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, 0, 2, 100), 0);
        for (int k = 0; k < 2; k++) {
            plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Isend, 200 + 100 * (uint64_t)k,
                                         250 + 100 * (uint64_t)k);
            e->comm = 1;
            e->peer = 1;
            e->request = 0x500 + (uint64_t)k;
        }
        if (complete)
            cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        else
            pgen_abandon(&g);
        char *p = path_of(dir, 0);
        plog_run_t *run = open_ok(p);
        plog_iter_t *it;
        plog_error_t err;
        cr_assert_eq(plog_iter_open(run, 0, &it, &err), PLOG_OK);
        const plog_rec_t *r;
        while (plog_iter_next(it, &r, &err) == PLOG_OK && r != NULL)
            ;
        plog_iter_close(it);
        cr_assert_eq(has_warning(run, "2 request starts were never seen completing", NULL),
                     complete);
        plog_run_close(run);
        free(p);
        pgen_rmdir(dir);
        free(dir);
    }
}

Test(requests, persistent)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xc0, 3, 9, 32, PLOG_CALL_MPI_Send_init);
    for (int k = 0; k < 2; k++) {
        uint64_t t = 2000 + 1000 * (uint64_t)k;
        rq_ev(&q, 0, PLOG_CALL_MPI_Start, t, t + 100, 0xc0);
        rq_ev(&q, 0, PLOG_CALL_MPI_Wait, t + 200, t + 300, 0xc0);
        rq_status(&q, 0, 1);
        pgen_status(&q.g, 0, 0xc0, 0, 0, 0, 0);
    }
    /* Startall on a receive one + Waitany */
    rq_isend(&q, 0, 4000, 4100, 0xc1, PLOG_ANY_SOURCE, 4, 0, PLOG_CALL_MPI_Recv_init);
    rq_ev(&q, 0, PLOG_CALL_MPI_Startall, 4200, 4300, 0)->flags = PLOG_F_HANDLES;
    uint64_t hs[3] = {2, 0xc0, 0xc1};
    pgen_extra(&q.g, 0, hs, 3);
    rq_ev(&q, 0, PLOG_CALL_MPI_Waitany, 4400, 4500, 0)->flags = PLOG_F_HANDLES;
    pgen_extra(&q.g, 0, hs, 3);
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xc1, 2, 4, 12, 1);
    rq_ev(&q, 0, PLOG_CALL_MPI_Request_free, 5000, 5100, 0xc0);
    rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 6000, 6100, 0xc0); /* freed: nothing to complete */
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xc0, 0, 0, 0, 0);
    got_t g[16];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 16, &run);
    cr_assert_eq(n, 10);
    cr_assert_eq(g[0].request, 1); /* the definition */
    cr_assert_eq(g[1].request, 2); /* first instance */
    cr_assert_eq(g[1].req_def, 1);
    cr_assert_eq(g[1].req_call, PLOG_CALL_MPI_Send_init);
    cr_assert_eq(g[2].request, 2);
    cr_assert_eq(g[2].req_peer, 3);
    cr_assert_eq(g[2].req_bytes, 32);
    cr_assert_eq(g[3].request, 3);
    cr_assert_eq(g[4].request, 3);
    cr_assert_eq(g[5].request, 4); /* Recv_init */
    cr_assert_eq(g[6].nh, 2);
    cr_assert_eq(g[6].hid[0], 5);
    cr_assert_eq(g[6].hid[1], 6);
    cr_assert_eq(g[7].request, 6, "Waitany's one completion");
    cr_assert_eq(g[7].sid[0], 6);
    cr_assert_eq(g[7].ssrc[0], 2);
    cr_assert_eq(g[7].hid[0], 5);
    cr_assert_eq(g[7].hid[1], 6);
    cr_assert_eq(g[8].request, 5, "Request_free ends the active instance");
    cr_assert_eq(g[9].request, 0);
    cr_assert_eq(g[9].sid[0], 0);
    cr_assert(has_warning(run, "1 request completions or frees matched no open request", NULL));
    size_t nw = plog_run_nwarnings(run);

    /* Reading again adds no warning; with PLOG_ITER_NOLINK the starts are numbered as
     * above and persistent instances still link to their definitions, completions come
     * without handles, statuses or links, Request_free names the definition. */
    for (int pass = 0; pass < 2; pass++) {
        plog_iter_t *it;
        plog_error_t err;
        cr_assert_eq(plog_iter_open_opts(run, 0, pass ? PLOG_ITER_NOLINK : 0, &it, &err),
                     PLOG_OK);
        static const uint64_t want_nolink[10] = {1, 2, 0, 3, 0, 4, 0, 0, 1, 0};
        const plog_rec_t *r;
        size_t k = 0;
        while (plog_iter_next(it, &r, &err) == PLOG_OK && r != NULL) {
            cr_assert_lt(k, 10);
            cr_assert_eq(r->call, g[k].call);
            if (pass) {
                cr_assert_eq(r->request, want_nolink[k], "event %zu: %llu", k,
                             (unsigned long long)r->request);
                if (r->cls == PLOG_CLASS_COMPLETE) {
                    cr_assert_eq(r->n_status, 0);
                    cr_assert_eq(r->n_handles, 0);
                    cr_assert_null(r->req);
                }
            } else {
                cr_assert_eq(r->request, g[k].request);
            }
            k++;
        }
        cr_assert_eq(k, 10);
        plog_iter_close(it);
        cr_assert_eq(plog_run_nwarnings(run), nw, "pass %d", pass);
    }
    plog_iter_t *it;
    plog_error_t err;
    cr_assert_eq(plog_iter_open_opts(run, 0, 0x80, &it, &err), PLOG_E_USAGE);
    rq_end(&q, run);
}

Test(requests, test_cancel_free)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xd0, 1, 1, 8, PLOG_CALL_MPI_Irecv);
    rq_ev(&q, 0, PLOG_CALL_MPI_Test, 1200, 1300, 0xd0); /* flag false: still open */
    rq_ev(&q, 0, PLOG_CALL_MPI_Cancel, 1400, 1500, 0xd0);
    plog_event_t *e = rq_ev(&q, 0, PLOG_CALL_MPI_Test, 1600, 1700, 0xd0);
    e->flags = PLOG_F_FLAG_TRUE;
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xd0, 1, 1, PLOG_STATUS_CANCELLED, 0);
    rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 1800, 1900, 0xd0); /* already completed */
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xd0, 1, 1, 0, 0);
    /* Isend freed without a wait, Testsome on two Irecvs (statuses only) */
    rq_isend(&q, 0, 2000, 2100, 0xd1, 1, 1, 8, PLOG_CALL_MPI_Isend);
    rq_ev(&q, 0, PLOG_CALL_MPI_Request_free, 2200, 2300, 0xd1);
    rq_isend(&q, 0, 2400, 2500, 0xd2, 2, 1, 0, PLOG_CALL_MPI_Irecv);
    rq_isend(&q, 0, 2600, 2700, 0xd3, 3, 1, 0, PLOG_CALL_MPI_Irecv);
    rq_ev(&q, 0, PLOG_CALL_MPI_Testsome, 2800, 2900, 0);
    rq_status(&q, 0, 2);
    pgen_status(&q.g, 0, 0xd3, 3, 1, 5, 1);
    pgen_status(&q.g, 0, 0xd2, 2, 1, 6, 0);
    got_t g[16];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 16, &run);
    cr_assert_eq(n, 10);
    cr_assert_eq(g[1].request, 1, "Test names its request");
    cr_assert_eq(g[2].request, 1, "Cancel names its request");
    cr_assert_eq(g[3].request, 1);
    cr_assert_eq(g[3].sid[0], 1);
    cr_assert_eq(g[3].scanc[0], 1);
    cr_assert_eq(g[3].sbytes[0], 0);
    cr_assert_eq(g[4].request, 0, "completed by the Test before");
    cr_assert_eq(g[5].request, 2);
    cr_assert_eq(g[6].request, 2, "Request_free of an Isend");
    cr_assert_eq(g[9].sid[0], 4);
    cr_assert_eq(g[9].ssrc[0], 3);
    cr_assert_eq(g[9].sid[1], 3);
    cr_assert_eq(g[9].ssrc[1], 2);
    cr_assert(has_warning(run, "1 request completions", NULL));
    rq_end(&q, run);
}

/* MPI gave persistent requests new handles inside Start and Startall (RENEWED): the
 * definitions follow, so the completions on the new handles and the frees link. */
Test(requests, renewed_handles)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xa0, 3, 1, 32, PLOG_CALL_MPI_Bsend_init);
    rq_ev(&q, 0, PLOG_CALL_MPI_Start, 1200, 1300, 0xa0)->flags = PLOG_F_HANDLES | PLOG_F_RENEWED;
    uint64_t one[3] = {2, 0xb0, 0xa0};
    pgen_extra(&q.g, 0, one, 3);
    rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 1400, 1500, 0xb0);
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xb0, 0, 0, 0, 0);
    rq_isend(&q, 0, 1600, 1700, 0xa1, 3, 2, 8, PLOG_CALL_MPI_Bsend_init);
    rq_ev(&q, 0, PLOG_CALL_MPI_Startall, 1800, 1900, 0)->flags = PLOG_F_HANDLES | PLOG_F_RENEWED;
    uint64_t two[5] = {4, 0xb1, 0xb0, 0xa1, 0xb0}; /* after b1, b0; before a1, b0 */
    pgen_extra(&q.g, 0, two, 5);
    rq_ev(&q, 0, PLOG_CALL_MPI_Waitall, 2000, 2100, 0);
    rq_status(&q, 0, 2);
    pgen_status(&q.g, 0, 0xb1, 0, 0, 0, 0);
    pgen_status(&q.g, 0, 0xb0, 0, 0, 0, 1);
    rq_ev(&q, 0, PLOG_CALL_MPI_Request_free, 2200, 2300, 0xb0);
    rq_ev(&q, 0, PLOG_CALL_MPI_Request_free, 2400, 2500, 0xb1);
    rq_ev(&q, 0, PLOG_CALL_MPI_Start, 2600, 2700, 0xa0); /* freed under its new handle */
    got_t g[16];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 16, &run);
    cr_assert_eq(n, 9);
    cr_assert_eq(g[1].request, 2, "the renewed Start's instance");
    cr_assert_eq(g[1].req_def, 1);
    cr_assert_eq(g[1].nh, 1, "one request started");
    cr_assert_eq(g[2].sid[0], 2, "completed under its new handle");
    cr_assert_eq(g[4].nh, 2);
    cr_assert_eq(g[4].hid[0], 4);
    cr_assert_eq(g[4].hid[1], 5);
    cr_assert_eq(g[5].sid[0], 4);
    cr_assert_eq(g[5].sid[1], 5);
    cr_assert_eq(g[6].request, 1, "frees the first definition");
    cr_assert_eq(g[7].request, 3, "frees the second");
    cr_assert_eq(g[8].request, 0, "the old handle names nothing any more");
    cr_assert_eq(plog_run_nwarnings(run), 1);
    cr_assert(has_warning(run, "1 Start calls named a handle with no persistent request", NULL));
    rq_end(&q, run);
}

/* Cancel and Request_free before the rank's first Wait or Test: each names its own start
 * (no completion has been seen yet, so nothing was ever picked). */
Test(requests, cancel_free_before_any_completion)
{
    rq_t q;
    rq_begin(&q);
    rq_isend(&q, 0, 1000, 1100, 0xd0, 1, 1, 8, PLOG_CALL_MPI_Irecv);
    rq_ev(&q, 0, PLOG_CALL_MPI_Cancel, 1200, 1300, 0xd0);
    rq_ev(&q, 0, PLOG_CALL_MPI_Request_free, 1400, 1500, 0xd0);
    rq_isend(&q, 0, 1600, 1700, 0xd1, 1, 1, 8, PLOG_CALL_MPI_Irecv);
    rq_ev(&q, 0, PLOG_CALL_MPI_Cancel, 1800, 1900, 0xd1);
    plog_event_t *e = rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 2000, 2100, 0xd1);
    (void)e;
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xd1, 1, 1, PLOG_STATUS_CANCELLED, 0);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 6);
    cr_assert_eq(g[1].request, 1, "Cancel names its request");
    cr_assert_eq(g[2].request, 1, "Request_free ends it");
    cr_assert_eq(g[4].request, 2, "the second Cancel names the second Irecv");
    cr_assert_eq(g[5].sid[0], 2);
    cr_assert_eq(g[5].scanc[0], 1, "its status stays cancelled: MPI_Cancel named it");
    cr_assert_eq(plog_run_nwarnings(run), 0, "no warning");
    rq_end(&q, run);
}

Test(requests, comm_idup_and_matched_probes)
{
    rq_t q;
    rq_begin(&q);
    int32_t sub[2] = {0, 3};
    pgen_comm(&q.g, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, sub, 2, NULL, 0);
    pgen_comm(&q.g, 4, 3, PLOG_CALL_MPI_Comm_idup, PLOG_COMMK_INTRA, sub, 2, NULL, 0);
    plog_event_t *e = rq_ev(&q, 0, PLOG_CALL_MPI_Comm_idup, 1000, 1100, 0xe0);
    e->comm = 3;
    e->flags = PLOG_F_NEWCOMM;
    pgen_extra1(&q.g, 0, 4);
    rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 1200, 1300, 0xe0);
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xe0, 0, 0, 0, 0);
    /* Improbe on comm 3 finds rank 0 of it (world 3); Imrecv has no comm */
    e = rq_ev(&q, 0, PLOG_CALL_MPI_Improbe, 2000, 2100, 0);
    e->comm = 3;
    e->peer = PLOG_ANY_SOURCE;
    e->flags = PLOG_F_FLAG_TRUE | PLOG_F_HANDLES | PLOG_F_MESSAGE;
    uint64_t msg[2] = {1, 0x3e};
    pgen_extra(&q.g, 0, msg, 2);
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0, 1, 6, 24, 0);
    e = rq_ev(&q, 0, PLOG_CALL_MPI_Imrecv, 2200, 2300, 0xe1);
    e->flags = PLOG_F_HANDLES | PLOG_F_MESSAGE;
    pgen_extra(&q.g, 0, msg, 2);
    rq_ev(&q, 0, PLOG_CALL_MPI_Wait, 2400, 2500, 0xe1);
    rq_status(&q, 0, 1);
    pgen_status(&q.g, 0, 0xe1, 1, 6, 24, 0);
    got_t g[8];
    plog_run_t *run;
    size_t n = rq_read(&q, g, 8, &run);
    cr_assert_eq(n, 5);
    cr_assert_eq(g[0].request, 1);
    cr_assert_eq(g[1].request, 1);
    cr_assert_eq(g[2].ssrc[0], 3);
    cr_assert_eq(g[2].message, 1);
    cr_assert_eq(g[2].hid[0], 0, "a message handle is not a request");
    cr_assert_eq(g[3].message, 1);
    cr_assert_eq(g[3].request, 2);
    cr_assert_eq(g[3].comm, g[2].comm, "Imrecv takes its probe's communicator");
    cr_assert_eq(g[4].request, 2);
    cr_assert_eq(g[4].ssrc[0], 3, "status source through the message's communicator");
    cr_assert_eq(g[4].stag[0], 6);
    cr_assert_eq(plog_run_nwarnings(run), 0, "%s", plog_run_warning(run, 0));
    rq_end(&q, run);
}

Test(reader, read_frame_api)
{
    char *dir = pgen_tmpdir();
    gen_small(dir);
    plog_run_t *run = open_ok(dir);
    const plog_rank_t *rk = plog_run_rank(run, 0);
    int metas = 0;
    for (size_t i = 0; i < rk->n_frames; i++) {
        if (rk->frames[i].kind != PLOG_FRAME_META)
            continue;
        void *raw;
        size_t len;
        plog_error_t err;
        cr_assert_eq(plog_rank_read_frame(rk, i, &raw, &len, &err), PLOG_OK, "%s", err.msg);
        cr_assert_str_eq(raw, "threads=2");
        free(raw);
        metas++;
    }
    cr_assert_eq(metas, 1);
    int n = 0;
    for (const char *s = plog_rank_kv_next(rk, NULL); s; s = plog_rank_kv_next(rk, s))
        n++;
    cr_assert_eq(n, 2 + 1 + 2); /* header (hostname, mpi_library), META, END */
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* ==== the probe set (plog_probeset.c) ==================================================== */

/* A 2-rank run whose rank r's PROBE frame holds e[r][0..n[r]). */
static char *probe_run(const plog_probe_entry_t e[2][4], const size_t n[2])
{
    char *dir = pgen_tmpdir();
    plog_probe_info_t in = {.mode = PLOG_PROBE_QUICK, .nsizes = 2, .sizes = {4096, 65536},
                            .reps = 3, .rounds = 1, .elapsed_s = 0.1, .seed = 7};
    for (int r = 0; r < 2; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 2, 100), 0);
        uint8_t buf[PLOG_PROBE_BOUND(4)];
        plog_wcur_t w = {buf, buf + sizeof(buf), 0};
        plog_probe_encode(&w, &in, NULL, e[r], n[r]);
        cr_assert_eq(w.overflow, 0);
        cr_assert_eq(plog_writer_frame(&g.w, PLOG_FRAME_PROBE, 0, (uint32_t)n[r], buf,
                                       (size_t)(w.p - buf)), PLOG_OK);
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    return dir;
}

static plog_probe_entry_t pentry(int32_t src, int32_t dst, uint32_t z, uint32_t way)
{
    plog_probe_entry_t x = {.src = src, .dst = dst, .size_idx = z, .way = way,
                            .q = {3, 10, 11, 12, 13, 14, 15, 16, 13}};
    return x;
}

/* Each (source, destination, way, size) once: a repeated one is refused, naming the file
 * of its source (report's per-size rows hold one value per source). */
Test(probeset, repeated_entries_are_refused)
{
    plog_probe_entry_t e[2][4] = {
        {pentry(0, 1, 0, PLOG_PROBE_EXCHANGE), pentry(0, -1, 0, PLOG_PROBE_EXCHANGE),
         pentry(0, -1, 0, PLOG_PROBE_ONEWAY), pentry(0, -1, 1, PLOG_PROBE_EXCHANGE)},
        {pentry(1, 0, 0, PLOG_PROBE_EXCHANGE), pentry(1, -1, 0, PLOG_PROBE_EXCHANGE)}};
    size_t n[2] = {4, 2};
    for (int bad = 0; bad < 2; bad++) {
        if (bad) /* rank 1's pooled 4 KiB exchange twice */
            e[1][2] = e[1][1], n[1] = 3;
        char *dir = probe_run(e, n);
        plog_run_t *run = open_ok(dir);
        plog_probeset_t ps;
        plog_error_t err;
        plog_err_t got = plog_probeset_load(run, &ps, &err);
        if (!bad) {
            cr_assert_eq(got, PLOG_OK, "%s", err.msg);
            cr_assert_eq(ps.n, 6);
            plog_probeset_free(&ps);
        } else {
            cr_assert_eq(got, PLOG_E_CORRUPT);
            cr_assert(strstr(err.msg, "rank-000001.plog") && strstr(err.msg, "two PROBE entries"),
                      "%s", err.msg);
        }
        plog_run_close(run);
        pgen_rmdir(dir);
        free(dir);
    }
}

/* ==== every probe of a run (plog_probeseries_load) ======================================= */

/* A 2-rank run; rank r's log holds the PROBE frames w[r][0..nw[r]) in that order, each with
 * one pooled entry of that rank. */
static char *series_run(const plog_probe_when_t w[2][4], const size_t nw[2])
{
    char *dir = pgen_tmpdir();
    plog_probe_info_t in = {.mode = PLOG_PROBE_QUICK, .nsizes = 2, .sizes = {4096, 65536},
                            .reps = 3, .rounds = 1, .elapsed_s = 0.1, .seed = 7};
    for (int r = 0; r < 2; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 2, 100), 0);
        for (size_t k = 0; k < nw[r]; k++) {
            plog_probe_entry_t e = pentry(r, -1, 0, PLOG_PROBE_EXCHANGE);
            uint8_t buf[PLOG_PROBE_BOUND(1)];
            plog_wcur_t wc = {buf, buf + sizeof(buf), 0};
            plog_probe_encode(&wc, &in, &w[r][k], &e, 1);
            cr_assert_eq(plog_writer_frame(&g.w, PLOG_FRAME_PROBE, 0, 1, buf,
                                           (size_t)(wc.p - buf)), PLOG_OK);
        }
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    return dir;
}

/* In seq order with both ranks' entries and the span over the ranks; a rank that lacks the
 * last probe leaves it with the other's; plog_probeset_load keeps the probe at MPI_Init. */
Test(probeseries, every_probe_in_order)
{
    const plog_probe_when_t w[2][4] = {
        {{0, PLOG_PROBE_AT_INIT, 1000, 2000}, {1, PLOG_PROBE_EVERY, 5000, 6000},
         {2, PLOG_PROBE_PCONTROL, 7000, 8000}},
        {{0, PLOG_PROBE_AT_INIT, 1100, 2100}, {1, PLOG_PROBE_EVERY, 4900, 6100}}};
    const size_t nw[2] = {3, 2};
    char *dir = series_run(w, nw);
    plog_run_t *run = open_ok(dir);
    plog_probe_run_t *p;
    size_t n;
    plog_error_t err;
    cr_assert_eq(plog_probeseries_load(run, &p, &n, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(n, 3);
    int64_t ref = (int64_t)plog_run_time_ref(run);
    const int want_ranks[3] = {2, 2, 1};
    for (uint32_t k = 0; k < 3; k++) {
        cr_assert_eq(p[k].seq, k);
        cr_assert_eq(p[k].trigger, w[0][k].trigger);
        cr_assert_eq(p[k].set.ranks, want_ranks[k]);
        cr_assert_eq(p[k].set.n, (size_t)want_ranks[k]);
        cr_assert_eq(p[k].set.info.nsizes, 2);
    }
    /* no clock samples: offset 0, times relative to rank 0's t_init */
    cr_assert_eq(p[1].start_ns, 4900 - ref);
    cr_assert_eq(p[1].end_ns, 6100 - ref);
    plog_probeseries_free(p, n);
    plog_probeset_t ps;
    cr_assert_eq(plog_probeset_load(run, &ps, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(ps.ranks, 2);
    cr_assert_eq(ps.n, 2);
    plog_probeset_free(&ps);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* Out of order on a rank, or started by different triggers on two ranks: refused, naming the
 * file. No probe at all: none, no error. */
Test(probeseries, inconsistent_frames_are_refused)
{
    for (int c = 0; c < 4; c++) {
        plog_probe_when_t w[2][4] = {
            {{0, PLOG_PROBE_AT_INIT, 1000, 2000}, {1, PLOG_PROBE_EVERY, 5000, 6000}},
            {{0, PLOG_PROBE_AT_INIT, 1000, 2000}, {1, PLOG_PROBE_EVERY, 5000, 6000}}};
        size_t nw[2] = {2, 2};
        const char *want = NULL;
        switch (c) {
        case 0: w[1][1].trigger = PLOG_PROBE_PCONTROL; want = "by pcontrol here"; break;
        case 1: w[1][0] = w[1][1], w[1][1] = (plog_probe_when_t){0, PLOG_PROBE_AT_INIT, 7000, 8000};
                want = "probe 0 after probe 1"; break;
        case 2: w[1][1].t_start_ns = 1500; want = "starts before probe 0 ended"; break;
        case 3: nw[0] = nw[1] = 0; break;
        }
        char *dir = series_run(w, nw);
        plog_run_t *run = open_ok(dir);
        plog_probe_run_t *p = (plog_probe_run_t *)1;
        size_t n = 9;
        plog_error_t err;
        plog_err_t got = plog_probeseries_load(run, &p, &n, &err);
        if (want) {
            cr_assert_eq(got, PLOG_E_CORRUPT, "case %d", c);
            cr_assert(strstr(err.msg, "rank-000001.plog") && strstr(err.msg, want), "%s",
                      err.msg);
        } else {
            cr_assert_eq(got, PLOG_OK);
            cr_assert_eq(n, 0);
            cr_assert_null(p);
        }
        plog_run_close(run);
        pgen_rmdir(dir);
        free(dir);
    }
}

/* No probe at all: said plainly, without an offset into a file it is not in. */
Test(probeset, a_run_without_a_probe_says_so)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run = open_ok(dir);
    plog_probeset_t ps;
    plog_error_t err;
    cr_assert_eq(plog_probeset_load(run, &ps, &err), PLOG_E_MISSING);
    cr_assert(strstr(err.msg, "no rank ran the network probe") && !strstr(err.msg, "offset"),
              "%s", err.msg);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* The shim's clocks stay below 2^62 ns (146 years of uptime): a time past that (a damaged
 * duration that still decodes) is an error, not a saturated end that turns into a run of
 * 292 years. */
Test(reader, event_times_past_2_62_are_refused)
{
    for (int bad = 0; bad < 2; bad++) {
        char *dir = pgen_tmpdir();
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 1000, 2000);
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 3000, bad ? 3000 + ((uint64_t)1 << 62) : 4000);
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        plog_error_t err;
        size_t n;
        plog_err_t got = read_all(dir, &n, &err);
        if (bad) {
            cr_assert_eq(got, PLOG_E_CORRUPT);
            cr_assert(strstr(err.msg, "rank-000000.plog") && strstr(err.msg, "2^62"), "%s",
                      err.msg);
        } else {
            cr_assert_eq(got, PLOG_OK, "%s", err.msg);
            cr_assert_eq(n, 2);
        }
        pgen_rmdir(dir);
        free(dir);
    }
}

/* Clock-sync samples out of range (an offset of 73 years or more between two ranks, a time
 * or round trip of 2^62 ns): refused when the run is opened, so aligned times fit. */
Test(reader, clock_sync_out_of_range_is_refused)
{
    const int64_t off[] = {-1000, ((int64_t)1 << 61) - 1, (int64_t)1 << 61,
                           -((int64_t)1 << 61), INT64_MAX};
    for (size_t k = 0; k < sizeof(off) / sizeof(off[0]); k++) {
        char *dir = pgen_tmpdir();
        for (int r = 0; r < 2; r++) {
            pgen_rank_t g;
            cr_assert_eq(pgen_open(&g, dir, r, 2, 100), 0);
            pgen_sync(&g, PLOG_SYNC_INIT, 5000, r ? off[k] : 0, 5);
            pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 6000, 7000);
            cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        }
        plog_error_t err;
        plog_err_t got = open_err(dir, &err);
        if (k < 2) {
            cr_assert_eq(got, PLOG_OK, "offset %lld: %s", (long long)off[k], err.msg);
        } else {
            cr_assert_eq(got, PLOG_E_CORRUPT, "offset %lld", (long long)off[k]);
            cr_assert(strstr(err.msg, "rank-000001.plog") && strstr(err.msg, "out of range"),
                      "%s", err.msg);
        }
        pgen_rmdir(dir);
        free(dir);
    }
}

/* Times that one monotonic clock cannot give: an event ending before it starts, MPI_Init
 * in the header past 2^62 ns, rank 0 (the reference clock) with a clock offset. */
Test(reader, impossible_times_are_refused)
{
    for (int kind = 0; kind < 3; kind++) {
        char *dir = pgen_tmpdir();
        for (int r = 0; r < 2; r++) {
            pgen_rank_t g;
            uint64_t tinit = kind == 1 && r == 1 ? (uint64_t)1 << 62 : 100;
            cr_assert_eq(pgen_open(&g, dir, r, 2, tinit), 0);
            pgen_sync(&g, PLOG_SYNC_INIT, 5000, kind == 2 ? 70 : 0, 5);
            pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 6000, kind == 0 && r == 1 ? 5999 : 7000);
            cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        }
        plog_error_t err;
        size_t n;
        plog_err_t got = read_all(dir, &n, &err); /* kind 0 shows when the events are read */
        const char *want[] = {"ends before it starts", "past 2^62", "rank 0's offset is 70"};
        cr_assert_eq(got, PLOG_E_CORRUPT, "kind %d: %s", kind, err.msg);
        cr_assert(strstr(err.msg, want[kind]) &&
                      strstr(err.msg, kind == 2 ? "rank-000000.plog" : "rank-000001.plog"),
                  "kind %d: %s", kind, err.msg);
        pgen_rmdir(dir);
        free(dir);
    }
}

/* ==== events the log does not hold (plog_rank_drops, doc/log-format.md) ==================== */

static void touch(const char *dir, const char *name)
{
    char *p = NULL;
    cr_assert_neq(asprintf(&p, "%s/%s", dir, name), -1);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fclose(f);
    free(p);
}

Test(reader, drops_from_the_tail_and_the_markers)
{
    char *dir = pgen_tmpdir();
    static const char tail[] = "dropped_events=12\0dead_thread_calls=7";
    for (int r = 0; r < 4; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 4, 100), 0);
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 200, 300);
        cr_assert_eq(pgen_close(&g, r == 3 ? tail : NULL, r == 3 ? sizeof(tail) : 0), 0);
    }
    touch(dir, ".phasor-dropped.0.28.500.2"); /* final */
    touch(dir, ".phasor-dropped.0.28.400");   /* an older lower bound: the final wins */
    touch(dir, ".phasor-dropped.1.122.300");  /* killed after counting */
    touch(dir, ".phasor-dropped.1.122.900");  /* the higher lower bound wins */
    touch(dir, ".phasor-dropped.2.5");        /* killed before counting */
    touch(dir, ".phasor-dropped.7.28.1.1");   /* outside the world */
    touch(dir, ".phasor-dropped.1.0.5.5");    /* errno 0: not a marker */
    touch(dir, ".phasor-dropped.1.28.-5");    /* signed: not a marker */
    touch(dir, ".phasor-dropped.1.28.5.5.5"); /* too many numbers */
    touch(dir, ".phasor-write-failed.99999.3");
    plog_run_t *run = open_ok(dir);
    plog_drops_t d[4];
    for (int r = 0; r < 4; r++)
        plog_rank_drops(plog_run_rank(run, r), &d[r]);
    cr_assert(d[0].write_errno == 28 && d[0].write_count == PLOG_DROPS_EXACT &&
              d[0].write_dropped == 500 && d[0].threads_known && d[0].thread_dropped == 2);
    cr_assert(d[1].write_errno == 122 && d[1].write_count == PLOG_DROPS_AT_LEAST &&
              d[1].write_dropped == 900 && !d[1].threads_known);
    cr_assert(d[2].write_errno == 5 && d[2].write_count == PLOG_DROPS_UNKNOWN &&
              d[2].write_dropped == 0);
    /* no marker: the tail's counts, the thread budget's apart */
    cr_assert(d[3].write_errno == 0 && d[3].write_count == PLOG_DROPS_EXACT &&
              d[3].write_dropped == 5 && d[3].threads_known && d[3].thread_dropped == 7);
    cr_assert(has_warning(run, "rank-000000.plog", "500 events dropped: writing the log failed"));
    cr_assert(has_warning(run, "rank-000001.plog", "at least 900 events dropped"));
    cr_assert(has_warning(run, "rank-000002.plog", "how many is unknown"));
    cr_assert(has_warning(run, "rank-000003.plog", "7 calls of threads over the thread budget"));
    cr_assert(has_warning(run, "rank 0 counted 99999 events dropped", NULL));
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* ==== runs of unsuccessful polls (PLOG_F_POLLS, log format 11) ============================ */

/* The log's header says version v instead (its CRC made right again). */
static void set_version(const char *path, uint32_t v)
{
    uint8_t *b;
    size_t len;
    cr_assert_eq(pgen_read_file(path, &b, &len), 0);
    plog_file_header_t h;
    memcpy(&h, b, sizeof(h));
    h.version = v;
    h.header_crc = 0;
    memcpy(b, &h, sizeof(h));
    h.header_crc = plog_crc32(b, h.header_len);
    memcpy(b, &h, sizeof(h));
    cr_assert_eq(pgen_write_file(path, b, len), 0);
    free(b);
}

/* A run: call, span [t0, t1), n polls with ns inside. */
static plog_event_t *poll_run(pgen_rank_t *g, unsigned call, uint64_t t0, uint64_t t1,
                              uint64_t n, uint64_t inside)
{
    plog_event_t *e = pgen_event(g, 0, call, t0, t1);
    e->flags = PLOG_F_POLLS;
    const uint64_t w[2] = {n, inside};
    pgen_extra(g, 0, w, 2);
    return pgen_last(g, 0);
}

typedef struct pollrec {
    uint16_t call;
    uint32_t flags;
    uint64_t ncalls, inside, request;
} pollrec_t;

/* Every record of rank 0 (opts: plog_iter_open_opts); the read's status. */
static plog_err_t poll_read(const char *dir, unsigned opts, pollrec_t *out, size_t cap,
                            size_t *n, plog_error_t *err, plog_run_t **runp)
{
    plog_run_t *run = open_ok(dir);
    plog_iter_t *it;
    cr_assert_eq(plog_iter_open_opts(run, 0, opts, &it, err), PLOG_OK);
    const plog_rec_t *r;
    plog_err_t e;
    *n = 0;
    while ((e = plog_iter_next(it, &r, err)) == PLOG_OK && r != NULL) {
        cr_assert_lt(*n, cap);
        out[(*n)++] = (pollrec_t){r->call, r->flags, r->ncalls, r->inside_ns, r->request};
    }
    plog_iter_close(it);
    if (runp != NULL)
        *runp = run;
    else
        plog_run_close(run);
    return e;
}

/* A run stands for its n calls and the time inside them; every other record for one call and
 * its duration; the same whether completions are linked or not (the report's PLOG_ITER_NOLINK
 * steps over the extras of completions, but for a run's words). */
Test(polls, runs_decode_with_their_count_and_time_inside)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    pgen_call(&g, PLOG_CALL_MPI_Irecv, 1000, 1100, 0, 7, 0)->request = 0xa0;
    poll_run(&g, PLOG_CALL_MPI_Test, 1200, 2200, 5, 300)->request = 0xa0;
    plog_event_t *e = poll_run(&g, PLOG_CALL_MPI_Iprobe, 2300, 3300, 3, 2000); /* > span */
    e->comm = 1;
    e->peer = PLOG_ANY_SOURCE;
    e->tag = PLOG_ANY_TAG;
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Test, 3400, 3500); /* the poll that ends the run */
    e->request = 0xa0;
    e->flags = PLOG_F_FLAG_TRUE | PLOG_F_STATUS;
    pgen_extra1(&g, 0, 1);
    pgen_status(&g, 0, 0xa0, 0, 7, 8, 0);
    e = pgen_event(&g, 0, PLOG_CALL_MPI_Testall, 3600, 4600); /* its words cut by the shim */
    e->flags = PLOG_F_POLLS | PLOG_F_TRUNCATED;
    poll_run(&g, PLOG_CALL_MPI_Testsome, 4700, 5700, 1000000, 999);
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 5800, 5900)->comm = 1;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    static const pollrec_t want[] = {
        {PLOG_CALL_MPI_Irecv, 0, 1, 100, 1},
        {PLOG_CALL_MPI_Test, PLOG_F_POLLS, 5, 300, 1},
        {PLOG_CALL_MPI_Iprobe, PLOG_F_POLLS, 3, 1000, 0},
        {PLOG_CALL_MPI_Test, PLOG_F_FLAG_TRUE | PLOG_F_STATUS, 1, 100, 1},
        {PLOG_CALL_MPI_Testall, PLOG_F_POLLS | PLOG_F_TRUNCATED, 2, 1000, 0},
        {PLOG_CALL_MPI_Testsome, PLOG_F_POLLS, 1000000, 999, 0},
        {PLOG_CALL_MPI_Barrier, 0, 1, 100, 0}};
    for (int nolink = 0; nolink < 2; nolink++) {
        pollrec_t got[16];
        size_t n;
        plog_error_t err;
        plog_run_t *run;
        cr_assert_eq(poll_read(dir, nolink ? PLOG_ITER_NOLINK : 0, got, 16, &n, &err, &run),
                     PLOG_OK, "%s", err.msg);
        cr_assert_eq(n, 7);
        uint64_t calls = 0;
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(got[i].call, want[i].call, "record %zu", i);
            cr_assert_eq(got[i].flags, want[i].flags, "record %zu", i);
            cr_assert_eq(got[i].ncalls, want[i].ncalls, "record %zu (nolink %d): %llu calls", i,
                         nolink, (unsigned long long)got[i].ncalls);
            cr_assert_eq(got[i].inside, want[i].inside, "record %zu (nolink %d): %llu ns", i,
                         nolink, (unsigned long long)got[i].inside);
            if (!nolink || want[i].call == PLOG_CALL_MPI_Irecv)
                cr_assert_eq(got[i].request, want[i].request, "record %zu", i);
            calls += got[i].ncalls;
        }
        cr_assert_eq(calls, 1 + 5 + 3 + 1 + 2 + 1000000 + 1);
        cr_assert(has_warning(run, "cut by the shim", NULL));
        cr_assert(!has_warning(run, "runs of unsuccessful polls", NULL));
        plog_run_close(run);
    }
    pgen_rmdir(dir);
    free(dir);
}

/* A run's words that cannot be (fewer than two polls, or no words where nothing was cut) are
 * damage: an error naming the file, in both kinds of iterator. */
Test(polls, bad_runs_are_refused)
{
    static const struct {
        unsigned call;
        uint64_t w[2];
        uint32_t nw;
        const char *why;
    } bad[] = {
        {PLOG_CALL_MPI_Test, {1, 10}, 2, "a run of 1 polls"},
        {PLOG_CALL_MPI_Iprobe, {0, 10}, 2, "a run of 0 polls"},
        {PLOG_CALL_MPI_Testany, {0, 0}, 0, "0 extra words do not match flags 0x4000"},
        {PLOG_CALL_MPI_Improbe, {5, 0}, 1, "1 extra words do not match flags 0x4000"},
        {PLOG_CALL_MPI_Test, {5, 10}, 2, "3 extra words do not match flags 0x4000"}};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char *dir = pgen_tmpdir();
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
        pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 200, 300)->comm = 1;
        plog_event_t *e = pgen_event(&g, 0, bad[k].call, 400, 900);
        e->flags = PLOG_F_POLLS;
        pgen_extra(&g, 0, bad[k].w, bad[k].nw);
        if (k == 4)
            pgen_extra1(&g, 0, 77); /* one word too many */
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        for (int nolink = 0; nolink < 2; nolink++) {
            pollrec_t got[4];
            size_t n;
            plog_error_t err;
            plog_err_t r = poll_read(dir, nolink ? PLOG_ITER_NOLINK : 0, got, 4, &n, &err, NULL);
            cr_assert_eq(r, PLOG_E_CORRUPT, "case %zu (nolink %d)", k, nolink);
            cr_assert(strstr(err.msg, "rank-000000.plog") && strstr(err.msg, bad[k].why),
                      "case %zu (nolink %d): %s", k, nolink, err.msg);
            cr_assert_eq(n, 1, "the events before it are read");
        }
        pgen_rmdir(dir);
        free(dir);
    }
}

/* Bit 14 means nothing before format 11: an event of a version-10 log that has it is one call
 * (no words read, none required); a run on a call that cannot poll, or with a true flag,
 * reads as recorded with a warning, and such a call stays one call. */
Test(polls, older_logs_and_odd_runs)
{
    char *dir = pgen_tmpdir();
    char *p = path_of(dir, 0);
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    pgen_event(&g, 0, PLOG_CALL_MPI_Test, 200, 300)->flags = PLOG_F_POLLS;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    set_version(p, 10);
    for (int nolink = 0; nolink < 2; nolink++) {
        pollrec_t got[4];
        size_t n;
        plog_error_t err;
        cr_assert_eq(poll_read(dir, nolink ? PLOG_ITER_NOLINK : 0, got, 4, &n, &err, NULL),
                     PLOG_OK, "%s", err.msg);
        cr_assert_eq(n, 1);
        cr_assert_eq(got[0].ncalls, 1);
        cr_assert_eq(got[0].inside, 100);
    }
    pgen_rmdir(dir);
    free(dir);

    dir = pgen_tmpdir();
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 100), 0);
    poll_run(&g, PLOG_CALL_MPI_Send, 200, 300, 4, 50)->comm = 1;
    poll_run(&g, PLOG_CALL_MPI_Iprobe, 400, 500, 4, 50)->flags |= PLOG_F_FLAG_TRUE;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    pollrec_t got[4];
    size_t n;
    plog_error_t err;
    plog_run_t *run;
    cr_assert_eq(poll_read(dir, 0, got, 4, &n, &err, &run), PLOG_OK, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_eq(got[0].ncalls, 1, "a Send is one call");
    cr_assert_eq(got[0].inside, 100);
    cr_assert_eq(got[1].ncalls, 4, "as recorded");
    cr_assert_eq(got[1].inside, 50);
    cr_assert(has_warning(run, "2 runs of unsuccessful polls", "MPI_Send"));
    plog_run_close(run);
    free(p);
    pgen_rmdir(dir);
    free(dir);
}
