/* test_comms.c: matching communicators across ranks (split, dup, intercommunicators, equal
 * member sets created twice, differing local ids) and translating ranks through them. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_reader.h"
#include "plog_testgen.h"

#define P 4

static const int32_t ALL[P] = {0, 1, 2, 3};
static const int32_t EVEN[2] = {0, 2}, ODD[2] = {1, 3}, TWICE[2] = {0, 0};

/* Each rank of a 4-rank world; per rank a script of communicator creations. */
typedef struct world {
    char *dir;
    pgen_rank_t g[P];
} world_t;

static void w_begin(world_t *w)
{
    w->dir = pgen_tmpdir();
    cr_assert_not_null(w->dir);
    for (int r = 0; r < P; r++) {
        cr_assert_eq(pgen_open(&w->g[r], w->dir, r, P, 1000), 0);
        pgen_comm(&w->g[r], PLOG_COMM_WORLD, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, ALL, P,
                  NULL, 0);
        pgen_comm(&w->g[r], PLOG_COMM_SELF, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1,
                  NULL, 0);
        pgen_sync(&w->g[r], PLOG_SYNC_INIT, 1000, 0, 0);
    }
}

static void def(world_t *w, int r, uint32_t id, uint32_t parent, unsigned call, unsigned kind,
                const int32_t *l, uint32_t nl, const int32_t *rm, uint32_t nr)
{
    cr_assert_eq(pgen_comm(&w->g[r], id, parent, call, kind, l, nl, rm, nr), 0);
}

static plog_event_t *evt(world_t *w, int r, unsigned call, uint64_t t, uint32_t comm, int32_t peer)
{
    plog_event_t *e = pgen_event(&w->g[r], 0, call, t, t + 10);
    e->comm = comm;
    e->peer = peer;
    return e;
}

static plog_run_t *w_read(world_t *w)
{
    for (int r = 0; r < P; r++)
        cr_assert_eq(pgen_close(&w->g[r], NULL, 0), 0);
    plog_run_t *run = NULL;
    plog_error_t err;
    cr_assert_eq(plog_run_open(w->dir, &run, &err), PLOG_OK, "%s", err.msg);
    return run;
}

static void w_end(world_t *w, plog_run_t *run)
{
    plog_run_close(run);
    pgen_rmdir(w->dir);
    free(w->dir);
}

static int32_t gid(const plog_run_t *run, int r, uint32_t local)
{
    const plog_lcomm_t *lc = plog_rank_comm(plog_run_rank(run, r), local);
    cr_assert_not_null(lc, "rank %d has no communicator %u", r, local);
    return lc->gid;
}

static void assert_members(const plog_gcomm_t *g, const int32_t *m, uint32_t n,
                           const int32_t *rm, uint32_t nr)
{
    cr_assert_eq(g->n_members, n);
    cr_assert_arr_eq(g->members, m, n * sizeof(int32_t));
    cr_assert_eq(g->n_remote, nr);
    if (nr)
        cr_assert_arr_eq(g->remote, rm, nr * sizeof(int32_t));
}

Test(comms, predefined)
{
    world_t w;
    w_begin(&w);
    plog_run_t *run = w_read(&w);
    for (int r = 0; r < P; r++) {
        cr_assert_eq(gid(run, r, PLOG_COMM_WORLD), 1);
        const plog_gcomm_t *self = plog_run_comm(run, gid(run, r, PLOG_COMM_SELF));
        assert_members(self, &ALL[r], 1, NULL, 0);
        for (int q = 0; q < r; q++)
            cr_assert_neq(gid(run, r, PLOG_COMM_SELF), gid(run, q, PLOG_COMM_SELF));
    }
    cr_assert_eq(plog_run_ncomms(run), 1 + P);
    const plog_gcomm_t *world = plog_run_comm(run, 1);
    assert_members(world, ALL, P, NULL, 0);
    cr_assert_eq(world->kind, PLOG_COMMK_INTRA);
    cr_assert_eq(world->n_holders, P);
    cr_assert_null(plog_run_comm(run, 0));
    cr_assert_null(plog_run_comm(run, 1 + P + 1));
    cr_assert_eq(plog_run_nwarnings(run), 0);
    w_end(&w, run);
}

/* Split by parity, then two dups of WORLD; rank 2 created an extra private communicator
 * first, so its local ids are shifted by one. */
Test(comms, split_dup_and_shifted_ids)
{
    world_t w;
    w_begin(&w);
    for (int r = 0; r < P; r++) {
        uint32_t base = 3;
        if (r == 2) {
            def(&w, r, 3, 2, PLOG_CALL_MPI_Comm_dup, PLOG_COMMK_INTRA, &ALL[2], 1, NULL, 0);
            base = 4;
        }
        def(&w, r, base, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, r % 2 ? ODD : EVEN, 2,
            NULL, 0);
        def(&w, r, base + 1, 1, PLOG_CALL_MPI_Comm_dup, PLOG_COMMK_INTRA, ALL, P, NULL, 0);
        def(&w, r, base + 2, base + 1, PLOG_CALL_MPI_Comm_dup, PLOG_COMMK_INTRA, ALL, P, NULL, 0);
    }
    plog_run_t *run = w_read(&w);
    int32_t even = gid(run, 0, 3), odd = gid(run, 1, 3);
    cr_assert_neq(even, odd);
    cr_assert_eq(gid(run, 2, 4), even);
    cr_assert_eq(gid(run, 3, 3), odd);
    assert_members(plog_run_comm(run, even), EVEN, 2, NULL, 0);
    assert_members(plog_run_comm(run, odd), ODD, 2, NULL, 0);
    int32_t dup1 = gid(run, 0, 4), dup2 = gid(run, 0, 5);
    cr_assert_neq(dup1, dup2);
    cr_assert_neq(dup1, 1);
    for (int r = 1; r < P; r++) {
        uint32_t base = r == 2 ? 4 : 3;
        cr_assert_eq(gid(run, r, base + 1), dup1, "rank %d", r);
        cr_assert_eq(gid(run, r, base + 2), dup2, "rank %d", r);
    }
    const plog_gcomm_t *d2 = plog_run_comm(run, dup2);
    cr_assert_eq(d2->parent, dup1);
    cr_assert_eq(d2->call, PLOG_CALL_MPI_Comm_dup);
    cr_assert_eq(d2->n_holders, P);
    cr_assert_eq(plog_run_comm(run, even)->parent, 1);
    /* rank 2's private dup of SELF is a communicator of its own */
    int32_t priv = gid(run, 2, 3);
    cr_assert_neq(priv, gid(run, 2, PLOG_COMM_SELF));
    assert_members(plog_run_comm(run, priv), &ALL[2], 1, NULL, 0);
    cr_assert_eq(plog_run_nwarnings(run), 0, "%s", plog_run_warning(run, 0));
    w_end(&w, run);
}

/* Two communicators with the same members, created one after the other (e.g. two splits
 * with the same colour): matched by creation order, not merged. */
Test(comms, same_members_twice)
{
    world_t w;
    w_begin(&w);
    for (int r = 0; r < P; r += 2) {
        def(&w, r, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, EVEN, 2, NULL, 0);
        def(&w, r, 4, 1, PLOG_CALL_MPI_Comm_create, PLOG_COMMK_INTRA, EVEN, 2, NULL, 0);
    }
    plog_run_t *run = w_read(&w);
    cr_assert_neq(gid(run, 0, 3), gid(run, 0, 4));
    cr_assert_eq(gid(run, 0, 3), gid(run, 2, 3));
    cr_assert_eq(gid(run, 0, 4), gid(run, 2, 4));
    cr_assert_eq(plog_run_comm(run, gid(run, 0, 4))->call, PLOG_CALL_MPI_Comm_create);
    w_end(&w, run);
}

/* A Cartesian communicator over the same ranks is not a dup of WORLD. */
Test(comms, kind_is_part_of_the_key)
{
    world_t w;
    w_begin(&w);
    for (int r = 0; r < P; r++)
        def(&w, r, 3, 1, PLOG_CALL_MPI_Cart_create, PLOG_COMMK_CART, ALL, P, NULL, 0);
    plog_run_t *run = w_read(&w);
    int32_t cart = gid(run, 0, 3);
    cr_assert_neq(cart, 1);
    cr_assert_eq(plog_run_comm(run, cart)->kind, PLOG_COMMK_CART);
    for (int r = 1; r < P; r++)
        cr_assert_eq(gid(run, r, 3), cart);
    w_end(&w, run);
}

/* The member order is the communicator's rank order: peers translate through it. */
Test(comms, reordered_members_translate)
{
    world_t w;
    w_begin(&w);
    static const int32_t rev[P] = {3, 2, 1, 0};
    for (int r = 0; r < P; r++)
        def(&w, r, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, rev, P, NULL, 0);
    evt(&w, 0, PLOG_CALL_MPI_Send, 2000, 3, 0);   /* comm rank 0 = world 3 */
    evt(&w, 0, PLOG_CALL_MPI_Send, 2100, 3, 2);   /* world 1 */
    plog_event_t *e = evt(&w, 0, PLOG_CALL_MPI_Bcast, 2200, 3, PLOG_NONE);
    e->root = 1; /* world 2 */
    e = evt(&w, 0, PLOG_CALL_MPI_Recv, 2300, 3, PLOG_ANY_SOURCE);
    e->flags = PLOG_F_STATUS;
    pgen_extra1(&w.g[0], 0, 1);
    pgen_status(&w.g[0], 0, 0, 3, 0, 4, 0); /* comm rank 3 = world 0 */
    e = evt(&w, 0, PLOG_CALL_MPI_Sendrecv, 2400, 3, 1);
    e->flags = PLOG_F_RECVSPEC;
    pgen_extra1(&w.g[0], 0, ((uint64_t)2 << 32) | 9);
    evt(&w, 0, PLOG_CALL_MPI_Send, 2500, 3, PLOG_PROC_NULL);
    plog_run_t *run = w_read(&w);
    int32_t c = gid(run, 0, 3);
    cr_assert_neq(c, 1);
    assert_members(plog_run_comm(run, c), rev, P, NULL, 0);
    cr_assert_eq(plog_rank_comm(plog_run_rank(run, 0), 3)->my_rank, 3);
    plog_iter_t *it;
    plog_error_t err;
    cr_assert_eq(plog_iter_open(run, 0, &it, &err), PLOG_OK);
    const plog_rec_t *r;
    int i = 0;
    while (plog_iter_next(it, &r, &err) == PLOG_OK && r != NULL) {
        cr_assert_eq(r->comm, c);
        switch (i++) {
        case 0: cr_assert_eq(r->peer, 3); break;
        case 1: cr_assert_eq(r->peer, 1); break;
        case 2: cr_assert_eq(r->root, 2); cr_assert_eq(r->peer, PLOG_NONE); break;
        case 3:
            cr_assert_eq(r->peer, PLOG_ANY_SOURCE);
            cr_assert_eq(r->status[0].source, 0);
            break;
        case 4: cr_assert_eq(r->peer, 2); cr_assert_eq(r->recv_source, 1); cr_assert_eq(r->recv_tag, 9); break;
        case 5: cr_assert_eq(r->peer, PLOG_PROC_NULL); break;
        }
    }
    cr_assert_eq(i, 6);
    plog_iter_close(it);
    w_end(&w, run);
}

/* An intercommunicator between the even and odd ranks: each side sees the other as remote.
 * One global id; peers of PLOG_F_INTER events are ranks of the remote group. */
Test(comms, intercommunicator)
{
    world_t w;
    w_begin(&w);
    for (int r = 0; r < P; r++) {
        def(&w, r, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, r % 2 ? ODD : EVEN, 2,
            NULL, 0);
        def(&w, r, 4, 3, PLOG_CALL_MPI_Intercomm_create, PLOG_COMMK_INTER, r % 2 ? ODD : EVEN, 2,
            r % 2 ? EVEN : ODD, 2);
    }
    /* rank 0 sends to remote rank 1 (world 3); rank 3 receives from remote rank 0 (world 0) */
    plog_event_t *e = evt(&w, 0, PLOG_CALL_MPI_Send, 2000, 4, 1);
    e->flags = PLOG_F_INTER;
    e = evt(&w, 3, PLOG_CALL_MPI_Irecv, 2000, 4, PLOG_ANY_SOURCE);
    e->flags = PLOG_F_INTER;
    e->request = 0x10;
    e = evt(&w, 3, PLOG_CALL_MPI_Wait, 2100, 0, PLOG_NONE);
    e->request = 0x10;
    e->flags = PLOG_F_STATUS;
    pgen_extra1(&w.g[3], 0, 1);
    pgen_status(&w.g[3], 0, 0x10, 0, 5, 8, 0);
    /* an intercommunicator broadcast rooted at even rank 0 */
    e = evt(&w, 0, PLOG_CALL_MPI_Bcast, 2200, 4, PLOG_NONE);
    e->flags = PLOG_F_INTER;
    e->root = PLOG_ROOT_ROOT;
    e = evt(&w, 2, PLOG_CALL_MPI_Bcast, 2200, 4, PLOG_NONE);
    e->flags = PLOG_F_INTER;
    e->root = PLOG_PROC_NULL;
    e = evt(&w, 1, PLOG_CALL_MPI_Bcast, 2200, 4, PLOG_NONE);
    e->flags = PLOG_F_INTER;
    e->root = 0; /* rank 0 of the remote (even) group = world 0 */
    e = evt(&w, 1, PLOG_CALL_MPI_Send, 2300, 4, 2); /* remote group has 2 ranks */
    e->flags = PLOG_F_INTER;
    plog_run_t *run = w_read(&w);
    int32_t ic = gid(run, 0, 4);
    for (int r = 1; r < P; r++)
        cr_assert_eq(gid(run, r, 4), ic, "rank %d", r);
    const plog_gcomm_t *g = plog_run_comm(run, ic);
    cr_assert_eq(g->kind, PLOG_COMMK_INTER);
    assert_members(g, EVEN, 2, ODD, 2);
    cr_assert_eq(g->n_holders, P);
    cr_assert_eq(g->parent, gid(run, 0, 3));
    const plog_lcomm_t *lc3 = plog_rank_comm(plog_run_rank(run, 3), 4);
    cr_assert_eq(plog_lcomm_world(lc3, 1, 0), 0);
    cr_assert_eq(plog_lcomm_world(lc3, 0, 0), 1);
    cr_assert_eq(plog_lcomm_world(lc3, 1, 2), PLOG_R_BADRANK);
    cr_assert_eq(plog_lcomm_world(lc3, 1, PLOG_ROOT_ROOT), PLOG_ROOT_ROOT);
    int32_t want_root[P] = {PLOG_ROOT_ROOT, 0, PLOG_PROC_NULL, 0};
    int bad = 0;
    for (int r = 0; r < P; r++) {
        plog_iter_t *it;
        plog_error_t err;
        cr_assert_eq(plog_iter_open(run, r, &it, &err), PLOG_OK);
        const plog_rec_t *e2;
        while (plog_iter_next(it, &e2, &err) == PLOG_OK && e2 != NULL) {
            cr_assert_eq(e2->comm, e2->call == PLOG_CALL_MPI_Wait ? 0 : ic);
            if (e2->call == PLOG_CALL_MPI_Send && r == 0)
                cr_assert_eq(e2->peer, 3);
            if (e2->call == PLOG_CALL_MPI_Send && r == 1)
                bad += e2->peer == PLOG_R_BADRANK;
            if (e2->call == PLOG_CALL_MPI_Bcast)
                cr_assert_eq(e2->root, want_root[r], "rank %d", r);
            if (e2->call == PLOG_CALL_MPI_Wait) {
                cr_assert_eq(e2->request, 1);
                cr_assert_eq(e2->status[0].source, 0, "source through the remote group");
                cr_assert_eq(e2->req->comm, ic);
            }
        }
        plog_iter_close(it);
    }
    cr_assert_eq(bad, 1);
    w_end(&w, run);
}

/* Communicators as the shim writes them when a rank's log lost a definition: reported. */
Test(comms, missing_definition_warns)
{
    world_t w;
    w_begin(&w);
    for (int r = 0; r < P; r++)
        if (r != 3)
            def(&w, r, 3, 1, PLOG_CALL_MPI_Comm_dup, PLOG_COMMK_INTRA, ALL, P, NULL, 0);
    plog_run_t *run = w_read(&w);
    const plog_gcomm_t *g = plog_run_comm(run, gid(run, 0, 3));
    cr_assert_eq(g->n_holders, 3);
    int found = 0;
    for (size_t i = 0; i < plog_run_nwarnings(run); i++)
        found |= strstr(plog_run_warning(run, i), "was defined by 3 ranks") != NULL;
    cr_assert(found);
    w_end(&w, run);
}

Test(comms, definitions_must_be_sane)
{
    static const struct {
        unsigned kind;
        const int32_t *l;
        uint32_t nl;
        const int32_t *rm;
        uint32_t nr;
        uint32_t id;
    } bad[] = {
        {PLOG_COMMK_INTER, EVEN, 2, NULL, 0, 3},            /* inter without a remote group */
        {PLOG_COMMK_INTRA, EVEN, 2, ODD, 2, 3},             /* intra with one */
        {PLOG_COMMK_INTRA, TWICE, 2, NULL, 0, 3}, /* a rank twice */
        {PLOG_COMMK_INTRA, EVEN, 2, NULL, 0, 1},            /* WORLD defined twice */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        world_t w;
        w_begin(&w);
        def(&w, 0, bad[i].id, 1, PLOG_CALL_MPI_Comm_split, bad[i].kind, bad[i].l, bad[i].nl,
            bad[i].rm, bad[i].nr);
        for (int r = 0; r < P; r++)
            cr_assert_eq(pgen_close(&w.g[r], NULL, 0), 0);
        plog_run_t *run = NULL;
        plog_error_t err;
        cr_assert_eq(plog_run_open(w.dir, &run, &err), PLOG_E_CORRUPT, "case %zu", i);
        cr_assert(strstr(err.msg, "rank-000000.plog") != NULL, "%s", err.msg);
        pgen_rmdir(w.dir);
        free(w.dir);
    }
}

/* newcomm words are local ids: they come out as global ids. */
Test(comms, newcomm_translates)
{
    world_t w;
    w_begin(&w);
    for (int r = 0; r < P; r++) {
        def(&w, r, 3, 1, PLOG_CALL_MPI_Comm_split, PLOG_COMMK_INTRA, r % 2 ? ODD : EVEN, 2,
            NULL, 0);
        plog_event_t *e = evt(&w, r, PLOG_CALL_MPI_Comm_split, 1500, 1, PLOG_NONE);
        e->flags = PLOG_F_NEWCOMM;
        pgen_extra1(&w.g[r], 0, 3);
        e = evt(&w, r, PLOG_CALL_MPI_Comm_create, 1600, 1, PLOG_NONE);
        e->flags = PLOG_F_NEWCOMM;
        pgen_extra1(&w.g[r], 0, 0); /* MPI_COMM_NULL */
    }
    plog_run_t *run = w_read(&w);
    for (int r = 0; r < P; r++) {
        plog_iter_t *it;
        plog_error_t err;
        cr_assert_eq(plog_iter_open(run, r, &it, &err), PLOG_OK);
        const plog_rec_t *e;
        cr_assert_eq(plog_iter_next(it, &e, &err), PLOG_OK);
        cr_assert_eq(e->newcomm, gid(run, r, 3));
        cr_assert_eq(plog_iter_next(it, &e, &err), PLOG_OK);
        cr_assert_eq(e->newcomm, 0);
        plog_iter_close(it);
    }
    w_end(&w, run);
}
