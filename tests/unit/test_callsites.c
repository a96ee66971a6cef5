/* test_callsites.c: the CALLSITES payload codec, the id hash, the reader's merge of the
 * ranks' tables, and offline symbolisation with libdw against this test binary itself. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "phasor_symbols.h"
#include "plog_calls.h"
#include "plog_callsites.h"
#include "plog_sites.h"
#include "plog_testgen.h"

static const uint8_t BID[4] = {0xde, 0xad, 0xbe, 0xef};

static size_t encode_sample(uint8_t *buf, size_t cap, uint32_t *count)
{
    plog_wcur_t w = {buf, buf + cap, 0};
    plog_site_put_module(&w, 1, "/usr/bin/app", 12, BID, sizeof(BID));
    plog_site_put_module(&w, 2, "/lib/libm.so.6", 14, NULL, 0);
    plog_site_frame_t f[3] = {{1, 0x1234}, {2, 0x10}, {0, 0x7fff00001234ull}};
    plog_site_put_site(&w, 77, 3, f);
    plog_site_put_site(&w, 78, 1, f);
    cr_assert_eq(w.overflow, 0);
    *count = 4;
    return (size_t)(w.p - buf);
}

Test(sites, roundtrip)
{
    uint8_t buf[512];
    uint32_t n;
    size_t len = encode_sample(buf, sizeof(buf), &n);
    plog_rcur_t r = {buf, buf + len, PLOG_OK};
    plog_site_rec_t rec;
    cr_assert_eq(plog_site_get(&r, &rec), PLOG_OK);
    cr_assert_eq(rec.type, PLOG_SITE_REC_MODULE);
    cr_assert_eq(rec.module, 1);
    cr_assert_eq(rec.path_len, 12);
    cr_assert_eq(memcmp(rec.path, "/usr/bin/app", 12), 0);
    cr_assert_eq(rec.build_id_len, 4);
    cr_assert_eq(memcmp(rec.build_id, BID, 4), 0);
    cr_assert_eq(plog_site_get(&r, &rec), PLOG_OK);
    cr_assert_eq(rec.module, 2);
    cr_assert_eq(rec.build_id_len, 0);
    cr_assert_eq(plog_site_get(&r, &rec), PLOG_OK);
    cr_assert_eq(rec.type, PLOG_SITE_REC_SITE);
    cr_assert_eq(rec.id, 77);
    cr_assert_eq(rec.nframes, 3);
    cr_assert_eq(rec.frames[0].module, 1);
    cr_assert_eq(rec.frames[0].offset, 0x1234);
    cr_assert_eq(rec.frames[2].module, 0);
    cr_assert_eq(rec.frames[2].offset, 0x7fff00001234ull);
    cr_assert_eq(plog_site_get(&r, &rec), PLOG_OK);
    cr_assert_eq(rec.id, 78);
    cr_assert_eq(rec.nframes, 1);
    cr_assert_eq(r.p, buf + len);
}

Test(sites, every_cut_is_an_error)
{
    uint8_t buf[512];
    uint32_t n;
    size_t len = encode_sample(buf, sizeof(buf), &n);
    for (size_t cut = 0; cut < len; cut++) {
        plog_rcur_t r = {buf, buf + cut, PLOG_OK};
        plog_site_rec_t rec;
        plog_err_t e = PLOG_OK;
        uint32_t k;
        for (k = 0; k < n && (e = plog_site_get(&r, &rec)) == PLOG_OK; k++)
            ;
        cr_assert(k < n && e == PLOG_E_TRUNCATED, "cut at %zu: %u records, error %d", cut, k, e);
    }
}

static plog_err_t decode_one(const uint8_t *b, size_t len)
{
    plog_rcur_t r = {b, b + len, PLOG_OK};
    plog_site_rec_t rec;
    return plog_site_get(&r, &rec);
}

Test(sites, bad_values_rejected)
{
    uint8_t buf[8192];
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_put_varint(&w, 9); /* unknown record type */
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_CORRUPT);

    plog_site_frame_t f[PLOG_SITE_MAX_FRAMES + 1] = {{1, 1}};
    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_site(&w, 0, 1, f); /* id 0 is "none" */
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_CORRUPT);
    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_site(&w, 5, 0, f);
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_CORRUPT);
    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_site(&w, 5, PLOG_SITE_MAX_FRAMES + 1, f);
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_CORRUPT);

    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 0, "a", 1, NULL, 0); /* index 0 is "no module" */
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_CORRUPT);
    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, "a\0b", 3, NULL, 0);
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_CORRUPT);
    static char longpath[PLOG_SITE_MAX_PATH + 2];
    memset(longpath, 'x', sizeof(longpath) - 1);
    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, longpath, PLOG_SITE_MAX_PATH + 1, NULL, 0);
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_TOOBIG);
    uint8_t bid[PLOG_SITE_MAX_BUILDID + 1] = {0};
    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, "a", 1, bid, sizeof(bid));
    cr_assert_eq(decode_one(buf, (size_t)(w.p - buf)), PLOG_E_TOOBIG);
}

Test(sites, hash_is_path_independent_and_stack_sensitive)
{
    const char *a[2] = {"/usr/bin/app", "/lib/x86_64-linux-gnu/libc.so.6"};
    const char *b[2] = {"/home/u/app", "/lib64/libc.so.6"};
    uint64_t off[2] = {0x1234, 0x2222}, off2[2] = {0x1235, 0x2222}, rev[2] = {0x2222, 0x1234};
    const char *ra[2] = {a[1], a[0]};
    uint32_t h = plog_site_hash(2, a, off);
    cr_assert_neq(h, 0);
    cr_assert_eq(plog_site_hash(2, b, off), h, "same files elsewhere: same id");
    cr_assert_neq(plog_site_hash(2, a, off2), h);
    cr_assert_neq(plog_site_hash(2, ra, rev), h, "frame order matters");
    cr_assert_neq(plog_site_hash(1, a, off), h, "depth matters");
    const char *none[1] = {NULL};
    cr_assert_neq(plog_site_hash(1, none, off), 0);
}

/* ---- the reader's table ---- */

static int put_frame(pgen_rank_t *g, const uint8_t *buf, size_t len, uint32_t count)
{
    return plog_writer_frame(&g->w, PLOG_FRAME_CALLSITES, 0, count, buf, len) == PLOG_OK ? 0 : -1;
}

/* Rank r of a 2-rank run: defines module 1 (app) and the given sites. */
static void write_rank(const char *dir, int32_t r, uint64_t off77, int extra)
{
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, r, 2, 1000), 0);
    uint8_t buf[512];
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, "/usr/bin/app", 12, BID, sizeof(BID));
    plog_site_frame_t f[2] = {{1, off77}, {1, 0x99}};
    plog_site_put_site(&w, 77, 2, f);
    cr_assert_eq(put_frame(&g, buf, (size_t)(w.p - buf), 2), 0);
    if (extra) { /* a second frame later in the log, as the shim writes new sites */
        w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
        plog_site_frame_t f2[1] = {{1, 0x500}};
        plog_site_put_site(&w, 5, 1, f2);
        cr_assert_eq(put_frame(&g, buf, (size_t)(w.p - buf), 1), 0);
    }
    plog_event_t *ev = pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 2000, 3000);
    ev->callsite = 77;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
}

static plog_run_t *open_run(const char *dir)
{
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    return run;
}

/* The table of the 2-rank run whose ranks wrote site 77 at these offsets. */
static plog_callsites_t *load_pair(const char *dir, plog_run_t **run, uint64_t off0,
                                   uint64_t off1)
{
    write_rank(dir, 0, off0, 0);
    write_rank(dir, 1, off1, off0 == off1);
    *run = open_run(dir);
    plog_callsites_t *cs;
    plog_error_t err;
    cr_assert_eq(plog_callsites_load(*run, &cs, &err), PLOG_OK, "%s", err.msg);
    return cs;
}

Test(callsites, merged_across_ranks)
{
    char *dir = pgen_tmpdir();
    plog_run_t *run;
    plog_callsites_t *cs = load_pair(dir, &run, 0x1234, 0x1234);
    cr_assert_eq(plog_callsites_count(cs), 2);
    cr_assert_eq(plog_callsites_nwarnings(cs), 0);
    cr_assert_eq(plog_callsites_at(cs, 0)->id, 5, "sorted by id");
    const plog_csite_t *s = plog_callsites_find(cs, 77);
    cr_assert_not_null(s);
    cr_assert_eq(s->n_ranks, 2);
    cr_assert_eq(s->first_rank, 0);
    cr_assert_eq(s->nframes, 2);
    cr_assert_str_eq(s->frames[0].module->path, "/usr/bin/app");
    cr_assert_eq(s->frames[0].module, s->frames[1].module, "one module object per file");
    cr_assert_eq(s->frames[0].module->build_id_len, 4);
    cr_assert_eq(s->frames[1].offset, 0x99);
    s = plog_callsites_find(cs, 5);
    cr_assert_eq(s->n_ranks, 1);
    cr_assert_eq(s->first_rank, 1);
    cr_assert_null(plog_callsites_find(cs, 6));
    plog_callsites_free(cs);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(callsites, disagreement_is_a_warning)
{
    char *dir = pgen_tmpdir();
    plog_run_t *run;
    plog_callsites_t *cs = load_pair(dir, &run, 0x1234, 0x4321);
    cr_assert_eq(plog_callsites_count(cs), 1);
    cr_assert_eq(plog_callsites_nwarnings(cs), 1);
    cr_assert(strstr(plog_callsites_warning(cs, 0), "rank 1") != NULL, "%s",
              plog_callsites_warning(cs, 0));
    cr_assert_eq(plog_callsites_find(cs, 77)->frames[0].offset, 0x1234, "rank 0's stack kept");
    plog_callsites_free(cs);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* A rank whose CALLSITES frame holds `payload`: loading must fail naming the file. */
static void expect_bad(const uint8_t *payload, size_t len, uint32_t count, const char *what)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 1000), 0);
    cr_assert_eq(put_frame(&g, payload, len, count), 0);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run = open_run(dir);
    plog_callsites_t *cs = (plog_callsites_t *)1;
    plog_error_t err;
    cr_assert_neq(plog_callsites_load(run, &cs, &err), PLOG_OK, "%s accepted", what);
    cr_assert_null(cs);
    cr_assert(strstr(err.msg, "rank-000000.plog") != NULL, "%s: %s", what, err.msg);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(callsites, damaged_tables_are_errors)
{
    uint8_t buf[256];
    plog_site_frame_t f[1] = {{3, 0x10}};
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_site_put_site(&w, 9, 1, f);
    expect_bad(buf, (size_t)(w.p - buf), 1, "undefined module");

    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, "a", 1, NULL, 0);
    plog_site_put_module(&w, 1, "b", 1, NULL, 0);
    expect_bad(buf, (size_t)(w.p - buf), 2, "module defined twice");

    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, "a", 1, NULL, 0);
    plog_put_varint(&w, 0);
    expect_bad(buf, (size_t)(w.p - buf), 1, "trailing bytes");

    w = (plog_wcur_t){buf, buf + sizeof(buf), 0};
    plog_site_put_module(&w, 1, "a", 1, NULL, 0);
    expect_bad(buf, (size_t)(w.p - buf), 2, "count beyond the records");
}

Test(callsites, format1_logs_have_none)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 1000), 0);
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 2000, 3000);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run = open_run(dir);
    plog_callsites_t *cs;
    plog_error_t err;
    cr_assert_eq(plog_callsites_load(run, &cs, &err), PLOG_OK);
    cr_assert_eq(plog_callsites_count(cs), 0);
    cr_assert_null(plog_callsites_find(cs, 1));
    plog_callsites_free(cs);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* ---- symbols, against this very binary (built with -g) ---- */

static __attribute__((noinline)) void *return_address(void)
{
    return __builtin_return_address(0);
}

static plog_cmodule_t self_module(char *path, size_t cap, uintptr_t *bias, void *pc)
{
    Dl_info info;
    struct link_map *lm = NULL;
    cr_assert(dladdr1(pc, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm);
    ssize_t n = readlink("/proc/self/exe", path, cap - 1);
    cr_assert(n > 0);
    path[n] = '\0';
    *bias = lm->l_addr;
    return (plog_cmodule_t){path, NULL, 0};
}

Test(symbols, resolves_this_test)
{
    void *ra = return_address(); int line = __LINE__;
    char path[4096];
    uintptr_t bias;
    plog_cmodule_t m = self_module(path, sizeof(path), &bias, ra);
    plog_cframe_t f = {&m, (uint64_t)(uintptr_t)ra - bias};
    phasor_symbols_t *s = phasor_symbols_new(NULL);
    phasor_sym_t out;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_LINE, "status %s", phasor_sym_status_name(out.status));
    cr_assert(strstr(out.file, "test_callsites.c") != NULL, "%s", out.file);
    cr_assert_eq(out.line, line);
    cr_assert_not_null(out.function);
    cr_assert_str_eq(out.module, path);

    /* a build id that is not the file's: the lines would be wrong, so none are given */
    static const uint8_t wrong[20] = {1, 2, 3};
    plog_cmodule_t changed = {path, wrong, sizeof(wrong)};
    f.module = &changed;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_CHANGED);
    cr_assert_null(out.file);

    plog_cmodule_t gone = {"/nonexistent/phasor-test-binary", NULL, 0};
    f.module = &gone;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_MISSING);
    cr_assert_str_eq(out.module, "/nonexistent/phasor-test-binary");

    f.module = NULL;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_NOMODULE);
    cr_assert_null(out.module);
    phasor_symbols_free(s);
}

/* A log names the module files report opens: only absolute paths, only regular files,
 * opened non-blocking (a FIFO would hang a blocking open forever); each refusal says why. */
Test(symbols, opens_only_what_the_rules_allow)
{
    char dir[] = "/tmp/phasor-symtest-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[256], sub[256];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(mkdir(sub, 0700), 0);
    const struct {
        const char *path;
        int status;
        const char *why;
    } cases[] = {{fifo, PHASOR_SYM_REFUSED, "not a regular file"},
                 {sub, PHASOR_SYM_REFUSED, "not a regular file"},
                 {"/dev/zero", PHASOR_SYM_REFUSED, "not a regular file"},
                 {"relative/libfoo.so", PHASOR_SYM_REFUSED, "not an absolute path"},
                 {"/nonexistent/libfoo.so", PHASOR_SYM_MISSING, "No such file"}};
    const size_t n = sizeof(cases) / sizeof(cases[0]);
    plog_cmodule_t mods[sizeof(cases) / sizeof(cases[0])];
    phasor_symbols_t *s = phasor_symbols_new(NULL);
    for (size_t i = 0; i < n; i++) {
        mods[i] = (plog_cmodule_t){cases[i].path, NULL, 0};
        plog_cframe_t f = {&mods[i], 0x1234};
        phasor_sym_t out;
        phasor_symbols_resolve(s, &f, &out);
        cr_assert_eq(out.status, cases[i].status, "%s: %s", cases[i].path,
                     phasor_sym_status_name(out.status));
    }
    const char *path, *why;
    int st;
    for (size_t i = 0; i < n; i++) {
        cr_assert(phasor_symbols_unresolved(s, i, &path, &st, &why));
        cr_assert_str_eq(path, cases[i].path);
        cr_assert(strstr(why, cases[i].why) != NULL, "%s: %s", path, why);
    }
    cr_assert(!phasor_symbols_unresolved(s, n, &path, &st, &why));
    phasor_symbols_free(s);

    /* --no-symbols: nothing opened; --symbol-path: looked up under DIR only */
    phasor_symopts_t off = {1, NULL, 0};
    s = phasor_symbols_new(&off);
    plog_cframe_t f = {&mods[4], 1};
    phasor_sym_t out;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_OFF);
    phasor_symbols_free(s);
    const char *paths[] = {dir};
    phasor_symopts_t under = {0, paths, 1};
    s = phasor_symbols_new(&under);
    plog_cmodule_t fifo_by_name = {"/somewhere/else/fifo", NULL, 0}; /* DIR/fifo by base name */
    f.module = &fifo_by_name;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_REFUSED);
    plog_cmodule_t absent = {"/usr/lib/x86_64-linux-gnu/libc.so.6", NULL, 0}; /* not under DIR */
    f.module = &absent;
    phasor_symbols_resolve(s, &f, &out);
    cr_assert_eq(out.status, PHASOR_SYM_MISSING);
    phasor_symbols_free(s);
    unlink(fifo);
    rmdir(sub);
    rmdir(dir);
}
