/* test_codec.c: plog_codec.c: varints, headers, frame envelopes, EVENTS/COMMS/CLOCKSYNC
 * payloads round trip exactly, and every decoder refuses damaged or short input. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "plog_codec.h"
#include "plog_testgen.h"

/* ---- varints ---- */

static size_t put(uint8_t *buf, size_t cap, uint64_t v)
{
    plog_wcur_t w = {buf, buf + cap, 0};
    plog_put_varint(&w, v);
    cr_assert_eq(w.overflow, 0);
    return (size_t)(w.p - buf);
}

Test(codec, varint_edges_round_trip)
{
    static const uint64_t v[] = {0, 1, 127, 128, 255, 16383, 16384, 2097151, 2097152,
                                 UINT32_MAX, (uint64_t)UINT32_MAX + 1, 1ull << 35, 1ull << 56,
                                 (1ull << 63) - 1, 1ull << 63, UINT64_MAX - 1, UINT64_MAX};
    static const size_t len[] = {1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 5, 6, 9, 9, 10, 10, 10};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        uint8_t buf[16];
        size_t n = put(buf, sizeof(buf), v[i]);
        cr_assert_eq(n, len[i], "%llu took %zu bytes", (unsigned long long)v[i], n);
        plog_rcur_t r = {buf, buf + n, PLOG_OK};
        cr_assert_eq(plog_get_varint(&r), v[i]);
        cr_assert_eq(r.err, PLOG_OK);
        cr_assert_eq(r.p, buf + n);
    }
}

Test(codec, varint_truncated)
{
    uint8_t buf[16];
    size_t n = put(buf, sizeof(buf), UINT64_MAX);
    for (size_t cut = 0; cut < n; cut++) {
        plog_rcur_t r = {buf, buf + cut, PLOG_OK};
        cr_assert_eq(plog_get_varint(&r), 0);
        cr_assert_eq(r.err, PLOG_E_TRUNCATED, "cut at %zu", cut);
    }
}

Test(codec, varint_overlong_and_too_wide)
{
    /* 11 continuation bytes: more than 64 bits of 7-bit groups */
    uint8_t over[11];
    memset(over, 0x80, sizeof(over));
    plog_rcur_t r = {over, over + sizeof(over), PLOG_OK};
    plog_get_varint(&r);
    cr_assert_eq(r.err, PLOG_E_CORRUPT);
    /* tenth byte carrying bits above bit 63 */
    uint8_t wide[10];
    memset(wide, 0xff, 9);
    wide[9] = 0x02;
    r = (plog_rcur_t){wide, wide + 10, PLOG_OK};
    plog_get_varint(&r);
    cr_assert_eq(r.err, PLOG_E_CORRUPT);
    wide[9] = 0x01; /* exactly UINT64_MAX */
    r = (plog_rcur_t){wide, wide + 10, PLOG_OK};
    cr_assert_eq(plog_get_varint(&r), UINT64_MAX);
    cr_assert_eq(r.err, PLOG_OK);
}

Test(codec, varint_errors_are_sticky_and_bounded)
{
    uint8_t buf[4] = {0x05, 0x80};
    plog_rcur_t r = {buf, buf + 2, PLOG_OK};
    cr_assert_eq(plog_get_varint_max(&r, 4), 0);
    cr_assert_eq(r.err, PLOG_E_CORRUPT); /* 5 > 4 */
    cr_assert_eq(plog_get_varint(&r), 0); /* sticky: nothing more is read */
    r = (plog_rcur_t){buf, buf + 2, PLOG_OK};
    cr_assert_eq(plog_get_varint_max(&r, 5), 5);
    cr_assert_eq(plog_get_varint(&r), 0);
    cr_assert_eq(r.err, PLOG_E_TRUNCATED);
}

Test(codec, writer_overflow_stops)
{
    uint8_t buf[3];
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_put_varint(&w, 300); /* 2 bytes */
    cr_assert_eq(w.overflow, 0);
    plog_put_varint(&w, 300);
    cr_assert_eq(w.overflow, 1);
    cr_assert_eq(w.p, buf + 2);
    plog_put_varint(&w, 1);
    cr_assert_eq(w.p, buf + 2, "nothing is written after an overflow");
}

Test(codec, zigzag)
{
    static const int64_t v[] = {0, -1, 1, -2, 2, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
    static const uint64_t z[] = {0, 1, 2, 3, 4, 0xffffffffull, 0xfffffffeull, UINT64_MAX,
                                 UINT64_MAX - 1};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        cr_assert_eq(plog_zigzag(v[i]), z[i]);
        cr_assert_eq(plog_unzigzag(z[i]), v[i]);
    }
}

/* ---- EVENTS payload ---- */

typedef struct batch {
    uint8_t *rec;
    size_t len, cap;
    uint32_t n;
} batch_t;

static uint64_t rnd_wide(uint64_t *s)
{
    /* mix of small, medium and extreme values */
    switch (pgen_rand(s) % 6) {
    case 0: return 0;
    case 1: return pgen_rand(s) % 128;
    case 2: return pgen_rand(s) % 100000;
    case 3: return UINT64_MAX - pgen_rand(s) % 3;
    case 4: return 1ull << (pgen_rand(s) % 64);
    default: return pgen_rand(s);
    }
}

static int32_t rnd_i32(uint64_t *s)
{
    switch (pgen_rand(s) % 5) {
    case 0: return INT32_MIN;
    case 1: return INT32_MAX;
    case 2: return -(int32_t)(pgen_rand(s) % 5);
    default: return (int32_t)(pgen_rand(s) % 5000);
    }
}

static void batch_add(batch_t *b, uint64_t *s, uint64_t *tprev)
{
    uint32_t nx = pgen_rand(s) % 4 == 0 ? (uint32_t)(pgen_rand(s) % 40) : 0;
    size_t need = sizeof(plog_event_t) + nx * sizeof(uint64_t);
    if (b->len + need > b->cap) {
        b->cap = (b->len + need) * 2;
        b->rec = realloc(b->rec, b->cap);
        cr_assert_not_null(b->rec);
    }
    plog_event_t *ev = (plog_event_t *)(b->rec + b->len);
    memset(ev, 0, sizeof(*ev));
    /* starts mostly increase, sometimes jump back (another buffer's order) */
    uint64_t ts = pgen_rand(s) % 8 == 0 ? rnd_wide(s) : *tprev + pgen_rand(s) % 100000;
    *tprev = ts;
    ev->t_start = ts;
    uint64_t dur = pgen_rand(s) % 3 == 0 ? pgen_rand(s) % (1ull << 40) : pgen_rand(s) % 1000;
    ev->t_end = ts + dur < ts ? ts : ts + dur;
    ev->bytes = rnd_wide(s);
    ev->rbytes = rnd_wide(s);
    ev->request = pgen_rand(s) % 3 == 0 ? 0 : rnd_wide(s);
    ev->comm = (uint32_t)(pgen_rand(s) % 4 == 0 ? UINT32_MAX : pgen_rand(s) % 10);
    ev->peer = rnd_i32(s);
    ev->tag = rnd_i32(s);
    ev->root = rnd_i32(s);
    ev->callsite = (uint32_t)rnd_wide(s);
    ev->rc = rnd_i32(s);
    ev->call = (uint16_t)pgen_rand(s);
    ev->flags = (uint16_t)pgen_rand(s);
    ev->nextra = nx;
    uint64_t *x = (uint64_t *)(ev + 1);
    for (uint32_t k = 0; k < nx; k++)
        x[k] = rnd_wide(s);
    b->len += need;
    b->n++;
}

static void check_roundtrip(const batch_t *b)
{
    size_t cap = plog_events_encode_bound(b->len);
    uint8_t *out = malloc(cap);
    size_t len = 0;
    cr_assert_eq(plog_events_encode(b->rec, b->len, b->n, out, cap, &len), PLOG_OK);
    plog_events_dec_t d;
    cr_assert_eq(plog_events_dec_init(&d, out, len, b->n, PLOG_VERSION), PLOG_OK);
    const uint8_t *p = b->rec;
    uint64_t extras[64];
    for (uint32_t i = 0; i < b->n; i++) {
        const plog_event_t *want = (const plog_event_t *)p;
        plog_event_t got;
        int done = 1;
        cr_assert_eq(plog_events_dec_next(&d, &got, extras, 64, &done), PLOG_OK, "event %u", i);
        cr_assert_eq(done, 0);
        cr_assert_eq(memcmp(&got, want, sizeof(got)), 0, "event %u differs", i);
        cr_assert_eq(memcmp(extras, want + 1, want->nextra * sizeof(uint64_t)), 0,
                     "extras of event %u differ", i);
        p += sizeof(*want) + want->nextra * sizeof(uint64_t);
    }
    plog_event_t got;
    int done = 0;
    cr_assert_eq(plog_events_dec_next(&d, &got, extras, 64, &done), PLOG_OK);
    cr_assert_eq(done, 1);
    free(out);
}

Test(codec, events_random_round_trip)
{
    uint64_t seed = 12345;
    for (int trial = 0; trial < 300; trial++) {
        batch_t b = {0};
        uint64_t t = pgen_rand(&seed) % 1000000;
        uint32_t n = (uint32_t)(pgen_rand(&seed) % 200);
        for (uint32_t i = 0; i < n; i++)
            batch_add(&b, &seed, &t);
        check_roundtrip(&b);
        free(b.rec);
    }
}

/* Decode a payload with plog_events_dec_batch, falling back to one event at a time when
 * it refuses, as the reader does; every event and the final status must equal what
 * plog_events_dec_next alone gives. */
static void check_batch_matches_skip1(const uint8_t *payload, size_t len, uint32_t n,
                                      uint32_t max, size_t xcap, const uint8_t *skip)
{
    plog_events_dec_t a, b;
    plog_err_t ea = plog_events_dec_init(&a, payload, len, n, PLOG_VERSION);
    cr_assert_eq(plog_events_dec_init(&b, payload, len, n, PLOG_VERSION), ea);
    if (ea != PLOG_OK)
        return;
    if (skip != NULL) { /* only calls 0..255 have tables here */
        b.skip_extras = skip;
        b.skip_n = 256;
    }
    plog_event_t *bev = malloc(PLOG_DEC_BATCH * sizeof(*bev));
    uint64_t *bx = malloc(xcap * sizeof(*bx));
    uint32_t xoff[PLOG_DEC_BATCH + 1];
    uint32_t bn = 0, bpos = 0;
    for (uint32_t i = 0;; i++) {
        plog_event_t want, got;
        uint64_t wx[64], gx[64];
        int done = 0, gdone = 0;
        ea = plog_events_dec_next(&a, &want, wx, 64, &done);
        plog_err_t eb = PLOG_OK;
        if (bpos == bn) {
            bpos = bn = 0;
            if (plog_events_dec_batch(&b, bev, max, bx, xcap, xoff, &bn) != PLOG_OK)
                bn = 0;
        }
        int from_batch = bpos < bn;
        if (bpos < bn) {
            got = bev[bpos];
            memcpy(gx, bx + xoff[bpos], (xoff[bpos + 1] - xoff[bpos]) * sizeof(uint64_t));
            cr_assert_eq(xoff[bpos + 1] - xoff[bpos], got.nextra);
            bpos++;
        } else {
            eb = plog_events_dec_next(&b, &got, gx, 64, &gdone);
        }
        cr_assert_eq(eb, ea, "event %u: %d, one by one %d", i, eb, ea);
        if (ea != PLOG_OK || done) {
            cr_assert_eq(gdone, done);
            break;
        }
        if (skip != NULL && from_batch && want.call < 256 && skip[want.call]) {
            cr_assert_eq(got.nextra, 0, "event %u: skipped extras counted", i);
            got.nextra = want.nextra; /* the rest as one by one */
            cr_assert_eq(memcmp(&got, &want, sizeof(got)), 0, "event %u differs", i);
            continue;
        }
        cr_assert_eq(memcmp(&got, &want, sizeof(got)), 0, "event %u differs", i);
        cr_assert_eq(memcmp(gx, wx, want.nextra * sizeof(uint64_t)), 0, "event %u extras", i);
    }
    free(bev);
    free(bx);
}

/* With the CPU-specific decoding paths (where this CPU has them) and without. */
static void check_batch_matches_skip(const uint8_t *payload, size_t len, uint32_t n,
                                     uint32_t max, size_t xcap, const uint8_t *skip)
{
    for (int cpu = 1; cpu >= 0; cpu--) {
        plog_codec_cpu_paths(cpu);
        check_batch_matches_skip1(payload, len, n, max, xcap, skip);
    }
    plog_codec_cpu_paths(1);
}

static void check_batch_matches(const uint8_t *payload, size_t len, uint32_t n, uint32_t max,
                                size_t xcap)
{
    check_batch_matches_skip(payload, len, n, max, xcap, NULL);
}

Test(codec, events_batch_decoder_matches_one_by_one)
{
    uint64_t seed = 99;
    for (int trial = 0; trial < 60; trial++) {
        batch_t b = {0};
        uint64_t t = 0;
        uint32_t n = (uint32_t)(pgen_rand(&seed) % (trial < 30 ? 40 : 1500));
        for (uint32_t i = 0; i < n; i++)
            batch_add(&b, &seed, &t);
        size_t cap = plog_events_encode_bound(b.len);
        uint8_t *out = malloc(cap);
        size_t len = 0;
        cr_assert_eq(plog_events_encode(b.rec, b.len, b.n, out, cap, &len), PLOG_OK);
        check_batch_matches(out, len, b.n, PLOG_DEC_BATCH, 4096);
        check_batch_matches(out, len, b.n, 7, 45); /* short batches, extras that barely fit */
        /* damage: the batch must refuse wherever one by one fails, and agree before */
        for (int k = 0; k < 20 && len > 0; k++) {
            uint8_t *copy = malloc(len);
            memcpy(copy, out, len);
            copy[pgen_rand(&seed) % len] ^= (uint8_t)(1u << (pgen_rand(&seed) % 8));
            check_batch_matches(copy, len, b.n, PLOG_DEC_BATCH, 4096);
            free(copy);
        }
        free(out);
        free(b.rec);
    }
}

/* Stepping over some calls' extras: the other events decode exactly as one by one, the
 * skipped ones as one by one but for nextra 0. */
Test(codec, events_batch_skips_extras_of_chosen_calls)
{
    uint8_t skip[256];
    for (int c = 0; c < 256; c++)
        skip[c] = c % 3 != 0;
    uint64_t seed = 4242;
    for (int trial = 0; trial < 60; trial++) {
        batch_t b = {0};
        uint64_t t = 0;
        uint32_t n = (uint32_t)(pgen_rand(&seed) % 1500);
        for (uint32_t i = 0; i < n; i++)
            batch_add(&b, &seed, &t);
        for (size_t off = 0; off < b.len;) {
            plog_event_t *ev = (plog_event_t *)(b.rec + off);
            ev->call %= 300; /* most below 256, where the table says */
            off += sizeof(*ev) + ev->nextra * sizeof(uint64_t);
        }
        size_t cap = plog_events_encode_bound(b.len);
        uint8_t *out = malloc(cap);
        size_t len = 0;
        cr_assert_eq(plog_events_encode(b.rec, b.len, b.n, out, cap, &len), PLOG_OK);
        check_batch_matches_skip(out, len, b.n, PLOG_DEC_BATCH, 4096, skip);
        check_batch_matches_skip(out, len, b.n, 7, 45, skip);
        free(out);
        free(b.rec);
    }
}

/* Build an EVENTS payload from its columns (n, then each column's length and bytes). */
static size_t mk_payload(uint8_t *out, size_t cap, uint32_t n, const uint8_t *const *col,
                         const size_t *clen)
{
    plog_wcur_t w = {out, out + cap, 0};
    plog_put_varint(&w, n);
    for (int c = 0; c < PLOG_NCOLS; c++) {
        plog_put_varint(&w, clen[c]);
        cr_assert_leq(clen[c], (size_t)(w.end - w.p));
        memcpy(w.p, col[c], clen[c]);
        w.p += clen[c];
    }
    cr_assert_eq(w.overflow, 0);
    return (size_t)(w.p - out);
}

/* One event's EVENTS payload, every column one zero byte but the call's and the extras': a
 * first extra value of first_len bytes, then with pad 70 one-byte values (so that a 64-byte
 * decoding window holds the first). */
static size_t one_event_payload(uint8_t *payload, size_t cap, uint8_t call, const uint8_t *first,
                                size_t first_len, int pad)
{
    static const uint8_t zero[1] = {0};
    uint8_t callb[1] = {call}, nextra[1] = {(uint8_t)(1 + (pad ? 70 : 0))}, extras[128];
    cr_assert_leq(first_len, 16u);
    memcpy(extras, first, first_len);
    size_t xl = first_len;
    for (int k = 0; pad && k < 70; k++)
        extras[xl++] = 0x05;
    const uint8_t *col[PLOG_NCOLS];
    size_t clen[PLOG_NCOLS];
    for (int c = 0; c < PLOG_NCOLS; c++) {
        col[c] = zero;
        clen[c] = 1;
    }
    col[0] = callb; /* COL_CALL */
    col[PLOG_NCOLS - 2] = nextra;
    col[PLOG_NCOLS - 1] = extras;
    clen[PLOG_NCOLS - 1] = xl;
    return mk_payload(payload, cap, 1, col, clen);
}

/* A decoded 10-byte value holds bit 63 in its last byte, which must be 0 or 1 (more is bits
 * beyond 64): refused in the 64-byte windows (with 70 values after it) and at the column's
 * end, by the portable and the CPU-specific paths, as one by one refuses it. */
Test(codec, events_ten_byte_values_checked)
{
    for (int cpu = 1; cpu >= 0; cpu--) {
        plog_codec_cpu_paths(cpu);
        for (int pad = 0; pad < 2; pad++)
            for (uint8_t last = 1; last <= 2; last++) {
                uint8_t ten[10];
                memset(ten, 0xff, 9); /* nine full groups, then the 10th byte */
                ten[9] = last;
                uint8_t payload[512];
                size_t len = one_event_payload(payload, sizeof(payload), 0, ten, 10, pad);
                plog_events_dec_t d;
                cr_assert_eq(plog_events_dec_init(&d, payload, len, 1, PLOG_VERSION), PLOG_OK);
                plog_event_t ev[PLOG_DEC_BATCH];
                uint64_t x[256];
                uint32_t xoff[PLOG_DEC_BATCH + 1], got = 7;
                plog_err_t e = plog_events_dec_batch(&d, ev, PLOG_DEC_BATCH, x, 256, xoff, &got);
                if (last == 2) {
                    cr_assert_eq(e, PLOG_E_CORRUPT, "cpu %d pad %d", cpu, pad);
                    int done = 0;
                    cr_assert_eq(plog_events_dec_next(&d, ev, x, 256, &done), PLOG_E_CORRUPT);
                } else {
                    cr_assert_eq(e, PLOG_OK, "cpu %d pad %d", cpu, pad);
                    cr_assert_eq(got, 1);
                    cr_assert_eq(x[0], UINT64_MAX, "cpu %d pad %d: %llx", cpu, pad,
                                 (unsigned long long)x[0]);
                }
            }
    }
    plog_codec_cpu_paths(1);
}

/* A skipped value of 11 bytes is refused, at the fast path's width and at the column's
 * end, as one by one refuses it. */
Test(codec, events_skipped_extras_still_framed)
{
    for (int pad = 0; pad < 2; pad++) {
        /* one event, call 1, 1 + 70 or 1 + 1 extras: the overlong value first */
        uint8_t eleven[11];
        memset(eleven, 0x80, 10);
        eleven[10] = 0x01; /* 11 bytes */
        uint8_t payload[512];
        size_t len = one_event_payload(payload, sizeof(payload), 1, eleven, 11, pad);
        uint8_t skip[2] = {0, 1};
        plog_events_dec_t d;
        cr_assert_eq(plog_events_dec_init(&d, payload, len, 1, PLOG_VERSION), PLOG_OK);
        d.skip_extras = skip;
        d.skip_n = 2;
        plog_event_t ev[PLOG_DEC_BATCH];
        uint64_t x[256];
        uint32_t xoff[PLOG_DEC_BATCH + 1], got = 7;
        cr_assert_eq(plog_events_dec_batch(&d, ev, PLOG_DEC_BATCH, x, 256, xoff, &got),
                     PLOG_E_CORRUPT, "pad %d", pad);
        int done = 0;
        cr_assert_eq(plog_events_dec_next(&d, ev, x, 256, &done), PLOG_E_CORRUPT);
    }
}

/* Version 4 stores handles and status sources/tags small: a Waitall of four completed
 * Isends takes at least 30 bytes less than the same words stored as plain values, and
 * edge values (negative ranks, extreme tags, handles that wrap) come back exactly. */
Test(codec, events_v4_status_words_compact_and_exact)
{
    static const int32_t src[4] = {1, -2, INT32_MIN, 3}, tag[4] = {7, -1, INT32_MAX, 0};
    static const uint64_t h[4] = {0x55550000a000ull, 0x55550000a100ull, 0x55550000a200ull,
                                  0x55550000a300ull};
    size_t lens[2];
    for (int plain = 0; plain < 2; plain++) {
        batch_t b = {0};
        b.cap = 2 * sizeof(plog_event_t) + 17 * sizeof(uint64_t);
        b.rec = calloc(1, b.cap);
        plog_event_t *isend = (plog_event_t *)b.rec;
        isend->call = 3;
        isend->request = h[3];
        plog_event_t *w = isend + 1;
        w->call = 4;
        w->flags = plain ? PLOG_F_VSEND : PLOG_F_STATUS;
        w->nextra = 17;
        uint64_t *x = (uint64_t *)(w + 1);
        x[0] = plain ? 16 : 4;
        for (int k = 0; k < 4; k++) {
            x[1 + 4 * k] = h[k];
            x[2 + 4 * k] = (uint64_t)(uint32_t)src[k] << 32 | (uint32_t)tag[k];
            x[3 + 4 * k] = 4096;
            x[4 + 4 * k] = (uint64_t)k;
        }
        b.len = b.cap;
        b.n = 2;
        if (!plain) {
            x[5] = 0; /* a zero handle in the middle, and one below it: deltas that wrap */
            x[9] = UINT64_MAX;
        }
        check_roundtrip(&b);
        size_t cap = plog_events_encode_bound(b.len);
        uint8_t *out = malloc(cap);
        cr_assert_eq(plog_events_encode(b.rec, b.len, b.n, out, cap, &lens[plain]), PLOG_OK);
        if (!plain) { /* realistic handles for the size comparison */
            x[5] = h[1];
            x[9] = h[2];
            cr_assert_eq(plog_events_encode(b.rec, b.len, b.n, out, cap, &lens[plain]),
                         PLOG_OK);
            check_roundtrip(&b);
        }
        free(out);
        free(b.rec);
    }
    cr_assert_leq(lens[0] + 30, lens[1], "v4 %zu bytes, plain %zu", lens[0], lens[1]);
}

Test(codec, events_decoder_refuses_every_short_payload)
{
    uint64_t seed = 7;
    batch_t b = {0};
    uint64_t t = 0;
    for (int i = 0; i < 30; i++)
        batch_add(&b, &seed, &t);
    size_t cap = plog_events_encode_bound(b.len);
    uint8_t *out = malloc(cap);
    size_t len = 0;
    cr_assert_eq(plog_events_encode(b.rec, b.len, b.n, out, cap, &len), PLOG_OK);
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1); /* exact size: ASan sees any overread */
        memcpy(copy, out, cut);
        plog_events_dec_t d;
        plog_err_t e = plog_events_dec_init(&d, copy, cut, b.n, PLOG_VERSION);
        if (e == PLOG_OK) {
            uint64_t x[64];
            plog_event_t ev;
            int done = 0;
            for (uint32_t i = 0; i <= b.n && e == PLOG_OK && !done; i++)
                e = plog_events_dec_next(&d, &ev, x, 64, &done);
        }
        cr_assert_neq(e, PLOG_OK, "a payload cut to %zu of %zu bytes decoded", cut, len);
        free(copy);
    }
    /* wrong count, too little extras room */
    plog_events_dec_t d;
    cr_assert_eq(plog_events_dec_init(&d, out, len, b.n + 1, PLOG_VERSION), PLOG_E_CORRUPT);
    free(out);
    free(b.rec);
}

Test(codec, events_extras_cap_enforced)
{
    batch_t b = {0};
    b.cap = sizeof(plog_event_t) + 10 * sizeof(uint64_t);
    b.rec = calloc(1, b.cap);
    plog_event_t *ev = (plog_event_t *)b.rec;
    ev->nextra = 10;
    b.len = b.cap;
    b.n = 1;
    uint8_t out[512];
    size_t len;
    cr_assert_eq(plog_events_encode(b.rec, b.len, 1, out, sizeof(out), &len), PLOG_OK);
    plog_events_dec_t d;
    cr_assert_eq(plog_events_dec_init(&d, out, len, 1, PLOG_VERSION), PLOG_OK);
    uint64_t x[9];
    plog_event_t got;
    int done;
    cr_assert_eq(plog_events_dec_next(&d, &got, x, 9, &done), PLOG_E_TOOBIG);
    free(b.rec);
}

Test(codec, events_encoder_reports_small_output)
{
    uint64_t seed = 99;
    batch_t b = {0};
    uint64_t t = 0;
    for (int i = 0; i < 50; i++)
        batch_add(&b, &seed, &t);
    uint8_t small[64];
    size_t len;
    cr_assert_eq(plog_events_encode(b.rec, b.len, b.n, small, sizeof(small), &len),
                 PLOG_E_NOSPACE);
    free(b.rec);
}

/* ---- file header ---- */

static size_t make_header(uint8_t *buf, size_t cap)
{
    plog_file_header_t h;
    memset(&h, 0, sizeof(h));
    h.rank = 3;
    h.world_size = 8;
    h.pid = 4242;
    h.clock = PLOG_CLOCK_TSC;
    h.t_init_ns = 123456789;
    h.realtime_init_ns = -5;
    static const char kv[] = "hostname=a\0mpi_library=Open MPI v4.1.4";
    size_t len = 0;
    cr_assert_eq(plog_header_encode(&h, kv, sizeof(kv), buf, cap, &len), PLOG_OK);
    cr_assert_eq(len, sizeof(h) + sizeof(kv));
    return len;
}

Test(codec, header_round_trip)
{
    uint8_t buf[256];
    size_t len = make_header(buf, sizeof(buf));
    plog_file_header_t h;
    const char *kv;
    size_t kv_len;
    cr_assert_eq(plog_header_decode(buf, len, &h, &kv, &kv_len), PLOG_OK);
    cr_assert_eq(h.rank, 3);
    cr_assert_eq(h.world_size, 8);
    cr_assert_eq(h.pid, 4242);
    cr_assert_eq(h.clock, PLOG_CLOCK_TSC);
    cr_assert_eq(h.t_init_ns, 123456789);
    cr_assert_eq(h.realtime_init_ns, -5);
    cr_assert_eq(h.header_len, len);
    cr_assert_str_eq(kv, "hostname=a");
    cr_assert_str_eq(kv + strlen(kv) + 1, "mpi_library=Open MPI v4.1.4");
    cr_assert_eq(kv_len, len - sizeof(h));
}

Test(codec, header_damage_detected)
{
    uint8_t buf[256];
    size_t len = make_header(buf, sizeof(buf));
    plog_file_header_t h;
    const char *kv;
    size_t kv_len;
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (uint8_t)(1u << bit);
            cr_assert_neq(plog_header_decode(buf, len, &h, &kv, &kv_len), PLOG_OK,
                          "flip of byte %zu bit %d went unnoticed", i, bit);
            buf[i] ^= (uint8_t)(1u << bit);
        }
    for (size_t cut = 0; cut < len; cut++) {
        plog_err_t e = plog_header_decode(buf, cut, &h, &kv, &kv_len);
        cr_assert_eq(e, PLOG_E_TRUNCATED, "cut at %zu gave %d", cut, e);
    }
    buf[0] = 'X';
    cr_assert_eq(plog_header_decode(buf, len, &h, &kv, &kv_len), PLOG_E_BADMAGIC);
    buf[0] = 'P';
    buf[8] = PLOG_VERSION + 1;
    cr_assert_eq(plog_header_decode(buf, len, &h, &kv, &kv_len), PLOG_E_VERSION);
    buf[8] = PLOG_VERSION_MIN - 1;
    cr_assert_eq(plog_header_decode(buf, len, &h, &kv, &kv_len), PLOG_E_VERSION);
}

Test(codec, header_rank_range_checked)
{
    plog_file_header_t h;
    memset(&h, 0, sizeof(h));
    h.rank = 8;
    h.world_size = 8;
    h.clock = PLOG_CLOCK_MONOTONIC;
    uint8_t buf[128];
    size_t len;
    cr_assert_eq(plog_header_encode(&h, "", 0, buf, sizeof(buf), &len), PLOG_OK);
    const char *kv;
    size_t kv_len;
    cr_assert_eq(plog_header_decode(buf, len, &h, &kv, &kv_len), PLOG_E_CORRUPT);
}

/* ---- frame envelope ---- */

Test(codec, frame_header_every_bit_flip_detected)
{
    plog_frame_header_t fh = {0};
    fh.kind = PLOG_FRAME_EVENTS;
    fh.thread = 3;
    fh.comp_len = 1000;
    fh.raw_len = 4000;
    fh.count = 17;
    plog_frame_header_seal(&fh);
    cr_assert_eq(plog_frame_header_check(&fh), PLOG_OK);
    uint8_t *p = (uint8_t *)&fh;
    for (size_t i = 0; i < sizeof(fh); i++)
        for (int bit = 0; bit < 8; bit++) {
            p[i] ^= (uint8_t)(1u << bit);
            cr_assert_neq(plog_frame_header_check(&fh), PLOG_OK, "byte %zu bit %d", i, bit);
            p[i] ^= (uint8_t)(1u << bit);
        }
    fh.kind = 9; /* no such kind, even with a good CRC */
    plog_frame_header_seal(&fh);
    cr_assert_eq(plog_frame_header_check(&fh), PLOG_E_CORRUPT);
    fh.kind = PLOG_FRAME_META;
    fh.raw_len = PLOG_MAX_FRAME_RAW + 1;
    plog_frame_header_seal(&fh);
    cr_assert_eq(plog_frame_header_check(&fh), PLOG_E_TOOBIG);
}

/* ---- COMMS and CLOCKSYNC payloads ---- */

Test(codec, comm_round_trip)
{
    const int32_t local[3] = {5, 1, 3}, remote[2] = {0, 7};
    const int64_t topo[5] = {2, 3, 1, 1, -4};
    plog_comm_def_t c = {9, 4, 250, PLOG_COMMK_INTER, 3, 2, 5, local, remote, topo};
    uint8_t buf[256];
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_comm_encode(&w, &c);
    plog_comm_encode(&w, &c);
    size_t len = (size_t)(w.p - buf);
    plog_rcur_t r = {buf, buf + len, PLOG_OK};
    int32_t l[8], rm[8];
    int64_t t[8];
    for (int k = 0; k < 2; k++) {
        plog_comm_def_t d;
        cr_assert_eq(plog_comm_decode(&r, &d, l, rm, t, 8, 8), PLOG_OK);
        cr_assert_eq(d.id, 9);
        cr_assert_eq(d.parent, 4);
        cr_assert_eq(d.call, 250);
        cr_assert_eq(d.kind, PLOG_COMMK_INTER);
        cr_assert_eq(d.n_local, 3);
        cr_assert_eq(d.n_remote, 2);
        cr_assert_eq(d.n_topo, 5);
        cr_assert_arr_eq(d.local, local, sizeof(local));
        cr_assert_arr_eq(d.remote, remote, sizeof(remote));
        cr_assert_arr_eq(d.topo, topo, sizeof(topo));
    }
    cr_assert_eq(r.p, r.end);
    /* rank 7 in a world of 7; too many members for the scratch */
    r = (plog_rcur_t){buf, buf + len, PLOG_OK};
    plog_comm_def_t d;
    cr_assert_eq(plog_comm_decode(&r, &d, l, rm, t, 8, 7), PLOG_E_CORRUPT);
    r = (plog_rcur_t){buf, buf + len, PLOG_OK};
    cr_assert_eq(plog_comm_decode(&r, &d, l, rm, t, 2, 8), PLOG_E_CORRUPT);
    for (size_t cut = 0; cut < len / 2; cut++) {
        r = (plog_rcur_t){buf, buf + cut, PLOG_OK};
        cr_assert_neq(plog_comm_decode(&r, &d, l, rm, t, 8, 8), PLOG_OK, "cut %zu", cut);
    }
}

Test(codec, sync_round_trip)
{
    plog_sync_sample_t s = {PLOG_SYNC_FINALIZE, 987654321012ull, -123456789, 4321};
    uint8_t buf[64];
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_sync_encode(&w, &s);
    plog_rcur_t r = {buf, w.p, PLOG_OK};
    plog_sync_sample_t got;
    cr_assert_eq(plog_sync_decode(&r, &got), PLOG_OK);
    cr_assert_eq(got.phase, s.phase);
    cr_assert_eq(got.local_ns, s.local_ns);
    cr_assert_eq(got.offset_ns, s.offset_ns);
    cr_assert_eq(got.rtt_ns, s.rtt_ns);
    buf[0] = 2; /* no phase 2 */
    r = (plog_rcur_t){buf, w.p, PLOG_OK};
    cr_assert_eq(plog_sync_decode(&r, &got), PLOG_E_CORRUPT);
}

Test(codec, strerror_covers_every_code)
{
    for (int e = 0; e < PLOG_E__COUNT; e++) {
        cr_assert_not_null(plog_strerror((plog_err_t)e));
        cr_assert_str_neq(plog_strerror((plog_err_t)e), "unknown error");
    }
    cr_assert_str_eq(plog_strerror(PLOG_E__COUNT), "unknown error");
}
