/* plog_codec.c: encode/decode of .plog headers and payloads; the format's single home. */
#include "plog_codec.h"
#include "plog_extras.h"

#include <string.h>
#include <xxhash.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#include <immintrin.h>
#endif

uint32_t plog_crc32(const void *data, size_t len)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const Bytef *p = data;
    while (len > 0) { /* zlib takes uInt lengths */
        uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
        c = crc32(c, p, chunk);
        p += chunk;
        len -= chunk;
    }
    return (uint32_t)c;
}

/* ---- varints ---- */

void plog_put_varint(plog_wcur_t *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        tmp[n++] = b | (v ? 0x80 : 0);
    } while (v);
    plog_put_bytes(w, tmp, n);
}

void plog_put_bytes(plog_wcur_t *w, const void *src, size_t n)
{
    if (w->overflow || (size_t)(w->end - w->p) < n) {
        w->overflow = 1;
        return;
    }
    memcpy(w->p, src, n);
    w->p += n;
}

uint64_t plog_get_varint(plog_rcur_t *r)
{
    if (r->err)
        return 0;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->err = PLOG_E_TRUNCATED;
            return 0;
        }
        uint8_t b = *r->p++;
        if (shift == 63 && (b & 0x7e)) { /* bits beyond 64 */
            r->err = PLOG_E_CORRUPT;
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->err = PLOG_E_CORRUPT;
    return 0;
}

uint64_t plog_get_varint_max(plog_rcur_t *r, uint64_t max)
{
    uint64_t v = plog_get_varint(r);
    if (!r->err && v > max) {
        r->err = PLOG_E_CORRUPT;
        return 0;
    }
    return v;
}

/* ---- file header ---- */

plog_err_t plog_header_encode(plog_file_header_t *h, const char *kv, size_t kv_len,
                              uint8_t *out, size_t cap, size_t *out_len)
{
    size_t total = sizeof(*h) + kv_len;
    if (total > cap || total > UINT32_MAX)
        return PLOG_E_NOSPACE;
    memcpy(h->magic, PLOG_MAGIC, 8);
    h->version = PLOG_VERSION;
    h->header_len = (uint32_t)total;
    h->header_crc = 0;
    memcpy(out, h, sizeof(*h));
    memcpy(out + sizeof(*h), kv, kv_len);
    uint32_t crc = plog_crc32(out, total);
    h->header_crc = crc;
    memcpy(out + offsetof(plog_file_header_t, header_crc), &crc, sizeof(crc));
    *out_len = total;
    return PLOG_OK;
}

#define PLOG_MAX_HEADER (1u << 20)

plog_err_t plog_header_decode(const uint8_t *buf, size_t len, plog_file_header_t *h,
                              const char **kv, size_t *kv_len)
{
    if (len < 8 || memcmp(buf, PLOG_MAGIC, 8) != 0)
        return len < 8 && memcmp(buf, PLOG_MAGIC, len) == 0 ? PLOG_E_TRUNCATED : PLOG_E_BADMAGIC;
    if (len < sizeof(*h))
        return PLOG_E_TRUNCATED;
    memcpy(h, buf, sizeof(*h));
    if (h->version < PLOG_VERSION_MIN || h->version > PLOG_VERSION)
        return PLOG_E_VERSION;
    if (h->header_len < sizeof(*h) || h->header_len > PLOG_MAX_HEADER)
        return PLOG_E_CORRUPT;
    if (h->header_len > len)
        return PLOG_E_TRUNCATED;
    uint8_t tmp[sizeof(*h)];
    memcpy(tmp, buf, sizeof(*h));
    memset(tmp + offsetof(plog_file_header_t, header_crc), 0, sizeof(uint32_t));
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, tmp, sizeof(tmp));
    c = crc32(c, buf + sizeof(*h), (uInt)(h->header_len - sizeof(*h)));
    if ((uint32_t)c != h->header_crc)
        return PLOG_E_CRC;
    if (h->rank < 0 || h->world_size <= 0 || h->rank >= h->world_size)
        return PLOG_E_CORRUPT;
    if (h->clock != PLOG_CLOCK_MONOTONIC && h->clock != PLOG_CLOCK_TSC)
        return PLOG_E_CORRUPT;
    *kv = (const char *)buf + sizeof(*h);
    *kv_len = h->header_len - sizeof(*h);
    if (*kv_len > 0 && (*kv)[*kv_len - 1] != '\0')
        return PLOG_E_CORRUPT;
    return PLOG_OK;
}

/* ---- frame envelope ---- */

plog_hash_trailer_t plog_payload_trailer(const void *zframe, size_t len)
{
    return (plog_hash_trailer_t){PLOG_HASH_MAGIC, 8, XXH3_64bits(zframe, len)};
}

void plog_frame_header_seal(plog_frame_header_t *fh)
{
    fh->magic = PLOG_FRAME_MAGIC;
    fh->header_crc = 0;
    fh->header_crc = plog_crc32(fh, sizeof(*fh));
}

plog_err_t plog_frame_header_check(const plog_frame_header_t *fh)
{
    if (fh->magic != PLOG_FRAME_MAGIC)
        return PLOG_E_BADMAGIC;
    plog_frame_header_t tmp = *fh;
    tmp.header_crc = 0;
    if (plog_crc32(&tmp, sizeof(tmp)) != fh->header_crc)
        return PLOG_E_CRC;
    if (fh->raw_len > PLOG_MAX_FRAME_RAW || fh->comp_len > PLOG_MAX_FRAME_RAW + (1u << 16))
        return PLOG_E_TOOBIG;
    switch (fh->kind) {
    case PLOG_FRAME_EVENTS: case PLOG_FRAME_COMMS: case PLOG_FRAME_CLOCKSYNC:
    case PLOG_FRAME_META: case PLOG_FRAME_CALLSITES: case PLOG_FRAME_PROBE: case PLOG_FRAME_END:
        return PLOG_OK;
    default:
        return PLOG_E_CORRUPT;
    }
}

/* ---- EVENTS payload ----
 * Columns, in this order, each a run of varints: call, start delta (zigzag vs previous
 * start), duration (zigzag), comm, peer (zigzag), tag (zigzag), bytes, rbytes, request
 * (0 = none, else 1 + zigzag delta vs previous non-zero request), root (zigzag), callsite,
 * rc (zigzag), flags, nextra, extras. One column per field lets zstd see the repetition
 * of each field on its own; the payload is: varint n, then per column varint length + bytes. */
enum { COL_CALL, COL_DSTART, COL_DUR, COL_COMM, COL_PEER, COL_TAG, COL_BYTES, COL_RBYTES,
       COL_REQ, COL_ROOT, COL_CALLSITE, COL_RC, COL_FLAGS, COL_NEXTRA, COL_EXTRAS };

size_t plog_events_encode_bound(size_t records_len)
{
    /* a 72-byte event is at most 14 varints of 10 bytes; an 8-byte extra at most 10 */
    return records_len * 2 + 16 + PLOG_NCOLS * 5;
}

static int events_walk(const uint8_t **p, const uint8_t *end, const plog_event_t **ev,
                       const uint64_t **extras)
{
    if ((size_t)(end - *p) < sizeof(plog_event_t))
        return 0;
    *ev = (const plog_event_t *)*p;
    *extras = (const uint64_t *)(*ev + 1);
    size_t sz = sizeof(plog_event_t) + (size_t)(*ev)->nextra * sizeof(uint64_t);
    if ((size_t)(end - *p) < sz)
        return 0;
    *p += sz;
    return 1;
}

/* Unchecked varint store: callers guarantee 10 bytes of room. */
static inline uint8_t *put_varint_raw(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v < 0x80, 1)) { /* most fields of most events */
        *p = (uint8_t)v;
        return p + 1;
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* ---- version 4: handles and status sources/tags made small before the varints ----
 * Request handles are addresses the library hands out from a pool, so they sit close to
 * each other and to the requests the same events started; a status's source and tag are
 * small ints packed 32 bits apart. Version 4 stores every handle word (HANDLES entries,
 * STATUS w0) as the zigzag difference from the previous handle word of the same event, the
 * first from the frame's running request value after the event's own (the REQ column),
 * and STATUS w1 as the bit interleave of the zigzagged source and tag: a Waitall of four
 * takes about half the bytes, and the reader decodes (or skips) less. Layout per doc/log-
 * format.md; a list whose count passes the words left is cut to them, as the reader does. */
typedef struct xlayout {
    uint32_t h0, nh; /* HANDLES entries: [h0, h0 + nh) */
    uint32_t s0, ns; /* STATUS entries: [s0, s0 + 4 ns) */
} xlayout_t;

static void xlayout(const uint64_t *x, uint32_t n, uint32_t flags, xlayout_t *l)
{
    l->h0 = l->nh = l->s0 = l->ns = 0;
    uint32_t i = 0;
    if (flags & PLOG_F_RECVSPEC)
        i++;
    if ((flags & PLOG_F_HANDLES) && i < n) {
        uint64_t k = x[i++];
        l->h0 = i;
        l->nh = (uint32_t)(k < n - i ? k : n - i);
        i += l->nh;
    }
    if ((flags & PLOG_F_STATUS) && i < n) {
        uint64_t k = x[i++], room = (n - i) / PLOG_STATUS_WORDS;
        l->s0 = i;
        l->ns = (uint32_t)(k < room ? k : room);
    }
}

static inline uint64_t spread32(uint64_t v) /* bit i of v to bit 2i */
{
    v &= 0xffffffffull;
    v = (v | v << 16) & 0x0000ffff0000ffffull;
    v = (v | v << 8) & 0x00ff00ff00ff00ffull;
    v = (v | v << 4) & 0x0f0f0f0f0f0f0f0full;
    v = (v | v << 2) & 0x3333333333333333ull;
    return (v | v << 1) & 0x5555555555555555ull;
}

static inline uint64_t gather32(uint64_t v) /* bit 2i of v to bit i */
{
    v &= 0x5555555555555555ull;
    v = (v | v >> 1) & 0x3333333333333333ull;
    v = (v | v >> 2) & 0x0f0f0f0f0f0f0f0full;
    v = (v | v >> 4) & 0x00ff00ff00ff00ffull;
    v = (v | v >> 8) & 0x0000ffff0000ffffull;
    return (v | v >> 16) & 0xffffffffull;
}

static inline uint64_t zz32(uint32_t v) { return (uint32_t)(v << 1) ^ (uint32_t)((int32_t)v >> 31); }
static inline uint32_t unzz32(uint64_t u)
{
    return (uint32_t)(u >> 1) ^ (uint32_t)-(int32_t)(u & 1);
}

static inline uint64_t srctag_pack(uint64_t w)
{
    return spread32(zz32((uint32_t)plog_extras_hi(w))) |
           spread32(zz32((uint32_t)plog_extras_lo(w))) << 1;
}

static inline uint64_t srctag_unpack(uint64_t m)
{
    return (uint64_t)unzz32(gather32(m)) << 32 | unzz32(gather32(m >> 1));
}

/* The event's extras as version 4 stores them, into out (the raw varint region). */
static uint8_t *put_extras_v4(uint8_t *p, const uint64_t *x, uint32_t n, uint32_t flags,
                              uint64_t base)
{
    xlayout_t l;
    xlayout(x, n, flags, &l);
    if (l.nh == 0 && l.ns == 0) {
        for (uint32_t k = 0; k < n; k++)
            p = put_varint_raw(p, x[k]);
        return p;
    }
    uint64_t prev = base;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t v = x[k];
        if (k - l.h0 < l.nh) {
            v = plog_zigzag((int64_t)(x[k] - prev));
            prev = x[k];
        } else if (k - l.s0 < l.ns * PLOG_STATUS_WORDS) {
            uint32_t w = (k - l.s0) % PLOG_STATUS_WORDS;
            if (w == 0) {
                v = plog_zigzag((int64_t)(x[k] - prev));
                prev = x[k];
            } else if (w == 1) {
                v = srctag_pack(x[k]);
            }
        }
        p = put_varint_raw(p, v);
    }
    return p;
}

/* The inverse, in place, on an event's decoded extras. */
static void undo_extras_v4(uint64_t *x, uint32_t n, uint32_t flags, uint64_t base)
{
    xlayout_t l;
    xlayout(x, n, flags, &l);
    uint64_t prev = base;
    for (uint32_t k = l.h0; k < l.h0 + l.nh; k++)
        prev = x[k] = prev + (uint64_t)plog_unzigzag(x[k]);
    for (uint32_t e = 0; e < l.ns; e++) {
        uint64_t *w = x + l.s0 + (size_t)e * PLOG_STATUS_WORDS;
        prev = w[0] = prev + (uint64_t)plog_unzigzag(w[0]);
        w[1] = srctag_unpack(w[1]);
    }
}

plog_err_t plog_events_encode(const uint8_t *records, size_t records_len, uint32_t n,
                              uint8_t *out, size_t cap, size_t *out_len)
{
    return plog_events_encode_mapped(records, records_len, n, NULL, out, cap, out_len);
}

static inline uint64_t map_time(const plog_time_map_t *tm, uint64_t raw)
{
    if (tm == NULL)
        return raw;
    return tm->ns0 + (uint64_t)(int64_t)((double)(int64_t)(raw - tm->raw0) * tm->ns_per_tick);
}

/* A duration (POLLS' time inside the calls) from raw ticks to ns. */
static inline uint64_t map_duration(const plog_time_map_t *tm, uint64_t raw)
{
    return tm == NULL ? raw : (uint64_t)((double)raw * tm->ns_per_tick);
}

plog_err_t plog_events_encode_mapped(const uint8_t *records, size_t records_len, uint32_t n,
                                     const plog_time_map_t *tm, uint8_t *out, size_t cap,
                                     size_t *out_len)
{
    /* One pass writes every column into its own worst-case region of out (10 bytes per
     * value), then the columns are packed behind their lengths. The bound guarantees the
     * regions fit: 14 scalar columns x 10 bytes <= 2 x 72 bytes per event. The extras
     * count follows from the length: records_len = n x 72 + 8 x words. */
    if (cap < plog_events_encode_bound(records_len))
        return PLOG_E_NOSPACE;
    if (records_len < (size_t)n * sizeof(plog_event_t) ||
        (records_len - (size_t)n * sizeof(plog_event_t)) % sizeof(uint64_t) != 0)
        return PLOG_E_CORRUPT;
    const size_t nev = n;
    const size_t nwords = (records_len - (size_t)n * sizeof(plog_event_t)) / sizeof(uint64_t);
    const size_t head = 16 + PLOG_NCOLS * 5; /* n and the column lengths, packed later */
    uint8_t *col[PLOG_NCOLS], *cur[PLOG_NCOLS];
    uint8_t *base = out + head;
    for (int c = 0; c < PLOG_NCOLS; c++) {
        col[c] = cur[c] = base;
        base += (c == COL_EXTRAS ? nwords : nev) * 10;
    }
    if (base > out + cap)
        return PLOG_E_NOSPACE;

    const uint8_t *p = records, *end = records + records_len;
    const plog_event_t *ev;
    const uint64_t *x;
    uint64_t prev_start = 0, prev_req = 0;
    uint32_t i;
    for (i = 0; i < n && events_walk(&p, end, &ev, &x); i++) {
        const uint64_t t_start = map_time(tm, ev->t_start), t_end = map_time(tm, ev->t_end);
        cur[COL_CALL] = put_varint_raw(cur[COL_CALL], ev->call);
        cur[COL_DSTART] = put_varint_raw(cur[COL_DSTART],
                                         plog_zigzag((int64_t)(t_start - prev_start)));
        prev_start = t_start;
        cur[COL_DUR] = put_varint_raw(cur[COL_DUR], plog_zigzag((int64_t)(t_end - t_start)));
        cur[COL_COMM] = put_varint_raw(cur[COL_COMM], ev->comm);
        cur[COL_PEER] = put_varint_raw(cur[COL_PEER], plog_zigzag(ev->peer));
        cur[COL_TAG] = put_varint_raw(cur[COL_TAG], plog_zigzag(ev->tag));
        cur[COL_BYTES] = put_varint_raw(cur[COL_BYTES], ev->bytes);
        cur[COL_RBYTES] = put_varint_raw(cur[COL_RBYTES], ev->rbytes);
        if (ev->request == 0) {
            *cur[COL_REQ]++ = 0;
        } else {
            cur[COL_REQ] = put_varint_raw(cur[COL_REQ],
                                          1 + plog_zigzag((int64_t)(ev->request - prev_req)));
            prev_req = ev->request;
        }
        cur[COL_ROOT] = put_varint_raw(cur[COL_ROOT], plog_zigzag(ev->root));
        cur[COL_CALLSITE] = put_varint_raw(cur[COL_CALLSITE], ev->callsite);
        cur[COL_RC] = put_varint_raw(cur[COL_RC], plog_zigzag(ev->rc));
        cur[COL_FLAGS] = put_varint_raw(cur[COL_FLAGS], ev->flags);
        cur[COL_NEXTRA] = put_varint_raw(cur[COL_NEXTRA], ev->nextra);
        /* POLLS' time inside is converted where the shim writes it: last, with no list (a
         * poll that found nothing has no status); anything else keeps its words as they are */
        if (ev->flags & (PLOG_F_HANDLES | PLOG_F_STATUS))
            cur[COL_EXTRAS] = put_extras_v4(cur[COL_EXTRAS], x, ev->nextra, ev->flags, prev_req);
        else if ((ev->flags & PLOG_F_POLLS) && ev->nextra >= PLOG_POLLS_WORDS) {
            for (uint32_t k = 0; k + 1 < ev->nextra; k++)
                cur[COL_EXTRAS] = put_varint_raw(cur[COL_EXTRAS], x[k]);
            cur[COL_EXTRAS] = put_varint_raw(cur[COL_EXTRAS], map_duration(tm, x[ev->nextra - 1]));
        } else
            for (uint32_t k = 0; k < ev->nextra; k++)
                cur[COL_EXTRAS] = put_varint_raw(cur[COL_EXTRAS], x[k]);
    }
    if (i != n || p != end)
        return PLOG_E_CORRUPT;

    /* Pack: n, then per column its length and bytes. The write position never passes the
     * start of the region being moved (head covers every length varint), so memmove. */
    uint8_t *w = put_varint_raw(out, n);
    for (int c = 0; c < PLOG_NCOLS; c++) {
        size_t len = (size_t)(cur[c] - col[c]);
        w = put_varint_raw(w, len);
        memmove(w, col[c], len);
        w += len;
    }
    *out_len = (size_t)(w - out);
    return PLOG_OK;
}

plog_err_t plog_events_dec_init(plog_events_dec_t *d, const uint8_t *payload, size_t len,
                                uint32_t n_expected, uint32_t version)
{
    memset(d, 0, sizeof(*d));
    d->v4 = version >= 4;
    plog_rcur_t r = {payload, payload + len, PLOG_OK};
    uint64_t n = plog_get_varint(&r);
    if (r.err)
        return r.err;
    if (n != n_expected)
        return PLOG_E_CORRUPT;
    for (int c = 0; c < PLOG_NCOLS; c++) {
        uint64_t clen = plog_get_varint(&r);
        if (r.err)
            return r.err;
        if (clen > (uint64_t)(r.end - r.p))
            return PLOG_E_TRUNCATED;
        d->col[c] = (plog_rcur_t){r.p, r.p + clen, PLOG_OK};
        r.p += clen;
    }
    if (r.p != r.end)
        return PLOG_E_CORRUPT;
    d->n = (uint32_t)n;
    return PLOG_OK;
}

/* The event decoder's varint: most column values fit in one to three bytes, so with three
 * bytes left in the column those are read inline, and so are values of up to 9 bytes (the
 * statuses' packed source/tag words, unknown byte counts) with 9 bytes left; everything
 * else (10-byte values, the end of a column, a sticky error) goes to plog_get_varint, which
 * keeps every check. Same results, errors and cursor moves. */
static inline uint64_t get_vfast(plog_rcur_t *r)
{
    const uint8_t *p = r->p;
    if (__builtin_expect(r->err == PLOG_OK && r->end - p >= 3, 1)) {
        if (!(p[0] & 0x80)) {
            r->p = p + 1;
            return p[0];
        }
        if (!(p[1] & 0x80)) {
            r->p = p + 2;
            return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        }
        if (!(p[2] & 0x80)) {
            r->p = p + 3;
            return (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
        }
        if (r->end - p >= 9) { /* up to 9 bytes: shift <= 56, no bits can fall beyond 64 */
            uint64_t v = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 |
                         (uint64_t)(p[2] & 0x7f) << 14;
            for (unsigned i = 3; i < 9; i++) {
                v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                if (!(p[i] & 0x80)) {
                    r->p = p + i + 1;
                    return v;
                }
            }
        }
    }
    return plog_get_varint(r);
}

static inline uint64_t get_vfast_max(plog_rcur_t *r, uint64_t max)
{
    uint64_t v = get_vfast(r);
    if (v > max && !r->err) {
        r->err = PLOG_E_CORRUPT;
        return 0;
    }
    return v;
}

static inline int32_t get_i32(plog_rcur_t *r)
{
    int64_t v = plog_unzigzag(get_vfast(r));
    if (!r->err && (v < INT32_MIN || v > INT32_MAX))
        r->err = PLOG_E_CORRUPT;
    return (int32_t)v;
}

plog_err_t plog_events_dec_next(plog_events_dec_t *d, plog_event_t *ev, uint64_t *extras,
                                size_t extras_cap, int *done)
{
    *done = 0;
    if (d->i == d->n) {
        for (int c = 0; c < PLOG_NCOLS; c++)
            if (d->col[c].p != d->col[c].end)
                return PLOG_E_CORRUPT;
        *done = 1;
        return PLOG_OK;
    }
    plog_rcur_t *col = d->col;
    memset(ev, 0, sizeof(*ev));
    ev->call = (uint16_t)get_vfast_max(&col[COL_CALL], UINT16_MAX);
    ev->t_start = d->prev_start + (uint64_t)plog_unzigzag(get_vfast(&col[COL_DSTART]));
    d->prev_start = ev->t_start;
    int64_t dur = plog_unzigzag(get_vfast(&col[COL_DUR]));
    ev->t_end = ev->t_start + (uint64_t)dur;
    ev->comm = (uint32_t)get_vfast_max(&col[COL_COMM], UINT32_MAX);
    ev->peer = get_i32(&col[COL_PEER]);
    ev->tag = get_i32(&col[COL_TAG]);
    ev->bytes = get_vfast(&col[COL_BYTES]);
    ev->rbytes = get_vfast(&col[COL_RBYTES]);
    uint64_t rq = get_vfast(&col[COL_REQ]);
    if (rq != 0) {
        ev->request = d->prev_req + (uint64_t)plog_unzigzag(rq - 1);
        d->prev_req = ev->request;
    }
    ev->root = get_i32(&col[COL_ROOT]);
    ev->callsite = (uint32_t)get_vfast_max(&col[COL_CALLSITE], UINT32_MAX);
    ev->rc = get_i32(&col[COL_RC]);
    ev->flags = (uint16_t)get_vfast_max(&col[COL_FLAGS], UINT16_MAX);
    ev->nextra = (uint32_t)get_vfast_max(&col[COL_NEXTRA], UINT32_MAX);
    for (int c = 0; c < COL_EXTRAS; c++)
        if (col[c].err)
            return col[c].err;
    if (dur < 0 && ev->t_end > ev->t_start) /* wrapped: negative duration */
        return PLOG_E_CORRUPT;
    if (ev->nextra > extras_cap)
        return PLOG_E_TOOBIG;
    for (uint32_t k = 0; k < ev->nextra; k++)
        extras[k] = get_vfast(&col[COL_EXTRAS]);
    if (col[COL_EXTRAS].err)
        return col[COL_EXTRAS].err;
    if (d->v4 && (ev->flags & (PLOG_F_HANDLES | PLOG_F_STATUS)))
        undo_extras_v4(extras, ev->nextra, ev->flags, d->prev_req);
    d->i++;
    return PLOG_OK;
}

/* Whether the next n values of a column are all one byte long (most columns of most
 * frames): then they are the bytes themselves. */
static inline int one_byte_run(const uint8_t *p, const uint8_t *end, uint32_t n)
{
    if ((size_t)(end - p) < n)
        return 0;
    uint64_t hi = 0;
    uint32_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        hi |= w;
    }
    for (; k < n; k++)
        hi |= p[k];
    return !(hi & 0x8080808080808080ull);
}

#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 7-bit groups of the first len (1..8) bytes of w (little-endian) as one value. */
static inline uint64_t vgroups(uint64_t w, unsigned len)
{
    uint64_t x = w & (~0ull >> (64 - 8 * len)) & 0x7f7f7f7f7f7f7f7full;
    x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
    x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
    return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
}

/* A varint of len (9 or 10) bytes at q, whose first 8 bytes' 7-bit groups are g8, into *out;
 * -1 when it is longer, or its 10th byte holds bits beyond 64. */
static inline int varint_tail(const uint8_t *q, unsigned len, uint64_t g8, uint64_t *out)
{
    if (len == 9) {
        *out = g8 | (uint64_t)(q[8] & 0x7f) << 56;
        return 0;
    }
    if (len == 10 && q[9] <= 1) {
        *out = g8 | (uint64_t)(q[8] & 0x7f) << 56 | (uint64_t)q[9] << 63;
        return 0;
    }
    return -1;
}

/* Bit j set when byte j of the 64 at p ends a varint (its top bit is clear). */
static inline uint64_t stop_mask64(const uint8_t *p)
{
    uint64_t m = 0;
    for (int q = 0; q < 4; q++) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * q));
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(b) << (16 * q);
    }
    return ~m;
}

/* Bits 0 .. last set. */
static inline uint64_t bits_through(unsigned last)
{
    return last == 63 ? ~0ull : (2ull << last) - 1;
}
#endif /* the window decoders' helpers */

#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__x86_64__) && \
    defined(__GNUC__)
/* BMI1, BMI2 and POPCNT, with pext and pdep in hardware: set at load (and only by
 * plog_codec_cpu_paths after, which tests call with no decoding under way) */
static int have_bmi;

static int cpu_has_bmi(void)
{
    /* AMD before Zen 3 (families 15h and 17h) has pext and pdep in microcode, at tens to
     * hundreds of cycles each: one per value would be far slower than the portable code */
    return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("popcnt") && !__builtin_cpu_is("amdfam15h") &&
           !__builtin_cpu_is("amdfam17h");
}

__attribute__((constructor)) static void codec_cpu_init(void)
{
    __builtin_cpu_init(); /* needed before __builtin_cpu_supports in a constructor */
    have_bmi = cpu_has_bmi();
}
#define PLOG_CODEC_CPU_PATHS 1

__attribute__((target("bmi2"))) static unsigned nth_stop_bmi2(uint64_t x, unsigned k)
{
    return (unsigned)__builtin_ctzll(_pdep_u64(1ull << k, x));
}

/* col_varints' 64-byte windows with BMI1/BMI2: a value of up to 8 bytes is one pext of its
 * 7-bit groups, with no branch on its length (lengths 1-3 mix at random in the time columns,
 * and each branch on them was a misprediction). Values from *ip on into v, *pp advanced past
 * them; stops where fewer than 72 bytes are left (the caller goes on from there). */
__attribute__((target("bmi,bmi2,popcnt"))) static int col_windows_bmi2(const uint8_t **pp,
                                                                   const uint8_t *end,
                                                                   uint32_t n, uint64_t *v,
                                                                   uint32_t *ip)
{
    const uint8_t *p = *pp;
    uint32_t i = *ip;
    while (i < n && end - p >= 72) {
        uint64_t m = stop_mask64(p);
        if ((unsigned)__builtin_popcountll(m) > n - i) /* the column ends in the window */
            m &= bits_through(nth_stop_bmi2(m, n - i - 1));
        unsigned s = 0;
        while (m != 0) {
            unsigned e = (unsigned)_tzcnt_u64(m);
            m = _blsr_u64(m);
            unsigned len = e - s + 1;
            uint64_t w;
            memcpy(&w, p + s, 8);
            if (__builtin_expect(len <= 8, 1)) {
                v[i++] = _pext_u64(w, _bzhi_u64(0x7f7f7f7f7f7f7f7full, 8 * len));
            } else if (varint_tail(p + s, len, _pext_u64(w, 0x7f7f7f7f7f7f7f7full), &v[i++])) {
                return -1;
            }
            s = e + 1;
        }
        if (s == 0) /* no value ends in 64 bytes */
            return -1;
        p += s;
    }
    *pp = p;
    *ip = i;
    return 0;
}
#endif

/* n varints from *pp (not past end) into v; -1 on anything plog_get_varint refuses. The
 * cursor moves only on success, for the all-or-nothing batch. */
static int col_varints(const uint8_t **pp, const uint8_t *end, uint32_t n, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint32_t i = 0;
    if (one_byte_run(p, end, n)) {
        for (i = 0; i < n; i++)
            v[i] = p[i];
        *pp = p + n;
        return 0;
    }
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#ifdef PLOG_CODEC_CPU_PATHS
    if (have_bmi && col_windows_bmi2(&p, end, n, v, &i) != 0)
        return -1;
#endif
    /* Mixed lengths: the stop bytes of 64 bytes at once, then one value per stop bit. A
     * branch per byte, or a load at each value's start, made each value wait on the last
     * (mispredictions, or a load-to-load chain); here only the mask carries over. */
    while (i < n && end - p >= 72) { /* 64 bytes scanned + an 8-byte load at the last */
        uint64_t m = stop_mask64(p);
        unsigned s = 0;
        while (m != 0 && i < n) {
            unsigned e = (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            unsigned len = e - s + 1;
            uint64_t w;
            memcpy(&w, p + s, 8);
            if (len == 1) {
                v[i++] = w & 0x7f;
            } else if (len == 2) {
                v[i++] = (w & 0x7f) | (w >> 1 & 0x3f80);
            } else if (__builtin_expect(len <= 8, 1)) {
                v[i++] = vgroups(w, len);
            } else if (varint_tail(p + s, len, vgroups(w, 8), &v[i++])) {
                return -1;
            }
            s = e + 1;
        }
        if (s == 0) /* no value ends in 64 bytes */
            return -1;
        p += s;
    }
#endif
    for (; i < n; i++) { /* the end of the column: every read checked */
        plog_rcur_t r = {p, end, PLOG_OK};
        v[i] = plog_get_varint(&r);
        if (r.err)
            return -1;
        p = r.p;
    }
    *pp = p;
    return 0;
}

#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The position of set bit k (from 0) of x, which has more than k: one pdep with BMI2, else k
 * steps (a skipped run ends inside its last window after some 20 values). */
static inline unsigned nth_stop(uint64_t x, unsigned k)
{
#ifdef PLOG_CODEC_CPU_PATHS
    if (have_bmi)
        return nth_stop_bmi2(x, k);
#endif
    for (; k > 0; k--)
        x &= x - 1;
    return (unsigned)__builtin_ctzll(x);
}
#endif

/* Step over n varints of a column without decoding them. -1 when one is longer than 10
 * bytes or the column ends first (a 10th byte above 1, bits beyond 64, is not detected:
 * nothing reads these values). */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("popcnt", "default"))) /* the x86-64 baseline has no popcnt */
#endif
#endif
static int col_skip(const uint8_t **pp, const uint8_t *end, uint64_t n)
{
    const uint8_t *p = *pp;
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* 64 bytes at a time, each window starting at a value's first byte: count stop bytes,
     * and look for a run of 10 continuation bytes below the last stop byte used */
    while (n > 0 && end - p >= 64) {
        uint64_t stop = stop_mask64(p);
        if (stop == 0)
            return -1;
        uint64_t c = (uint64_t)__builtin_popcountll(stop);
        unsigned last;
        if (c <= n) {
            last = 63u - (unsigned)__builtin_clzll(stop);
            n -= c;
        } else {
            last = nth_stop(stop, (unsigned)n - 1);
            n = 0;
        }
        uint64_t cont = ~stop & bits_through(last);
        uint64_t r = cont & cont >> 1; /* bit i: bytes i.. i+1 continue */
        r &= r >> 2;                   /* i.. i+3 */
        r &= r >> 4;                   /* i.. i+7 */
        if ((r & r >> 2) != 0)         /* i.. i+9: an 11th byte follows */
            return -1;
        p += last + 1;
    }
#endif
    for (; n > 0; n--) { /* the end of the column: byte by byte */
        int len = 0;
        do {
            if (p == end || ++len > 10)
                return -1;
        } while (*p++ & 0x80);
    }
    *pp = p;
    return 0;
}

int plog_codec_cpu_paths(int on)
{
#ifdef PLOG_CODEC_CPU_PATHS
    have_bmi = on && cpu_has_bmi();
    return have_bmi;
#else
    (void)on;
    return 0;
#endif
}

static inline int fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

plog_err_t plog_events_dec_batch(plog_events_dec_t *d, plog_event_t *ev, uint32_t max,
                                 uint64_t *extras, size_t extras_cap, uint32_t *xoff,
                                 uint32_t *n_out)
{
    *n_out = 0;
    uint32_t n = d->n - d->i;
    if (n > max)
        n = max;
    if (n > PLOG_DEC_BATCH)
        n = PLOG_DEC_BATCH;
    if (n == 0)
        return PLOG_OK;
    for (int c = 0; c < PLOG_NCOLS; c++)
        if (d->col[c].err)
            return d->col[c].err;
    const uint8_t *p[PLOG_NCOLS];
    for (int c = 0; c < PLOG_NCOLS; c++)
        p[c] = d->col[c].p;
    uint64_t v[PLOG_DEC_BATCH];

    /* each column: straight from its bytes when they are one-byte values, else through v */
#define COLUMN(c, BODY) \
    do { \
        if (one_byte_run(p[c], d->col[c].end, n)) { \
            const uint8_t *b_ = p[c]; \
            for (uint32_t k = 0; k < n; k++) { \
                uint64_t x = b_[k]; \
                BODY \
            } \
            p[c] += n; \
        } else { \
            if (col_varints(&p[c], d->col[c].end, n, v) != 0) \
                return PLOG_E_CORRUPT; \
            for (uint32_t k = 0; k < n; k++) { \
                uint64_t x = v[k]; \
                BODY \
            } \
        } \
    } while (0)
#define COLUMN_I32(c, field) \
    COLUMN(c, { \
        int64_t y = plog_unzigzag(x); \
        if (!fits_i32(y)) \
            return PLOG_E_CORRUPT; \
        ev[k].field = (int32_t)y; \
    })

    /* the calls first: they say which events' extras to step over */
    uint8_t keep[PLOG_DEC_BATCH];
    const uint8_t *skip = d->skip_extras;
    uint64_t skip_n = skip != NULL ? d->skip_n : 0;
    COLUMN(COL_CALL, {
        if (x > UINT16_MAX)
            return PLOG_E_CORRUPT;
        ev[k].call = (uint16_t)x;
        keep[k] = !(x < skip_n && skip[x]);
    });

    /* extras first: they decide how many events fit */
    if (col_varints(&p[COL_NEXTRA], d->col[COL_NEXTRA].end, n, v) != 0)
        return PLOG_E_CORRUPT;
    size_t words = 0;
    uint32_t m = 0;
    for (; m < n; m++) {
        if (v[m] > UINT32_MAX)
            return PLOG_E_CORRUPT;
        uint64_t w = keep[m] ? v[m] : 0;
        if (w > extras_cap - words)
            break;
        xoff[m] = (uint32_t)words;
        ev[m].nextra = (uint32_t)w;
        words += w;
    }
    if (m == 0)
        return PLOG_E_TOOBIG;
    xoff[m] = (uint32_t)words;
    if (m < n) { /* cut short: the call and nextra cursors must stop after m values (v
                  * holds the nextra values again after) */
        p[COL_CALL] = d->col[COL_CALL].p;
        col_varints(&p[COL_CALL], d->col[COL_CALL].end, m, v);
        p[COL_NEXTRA] = d->col[COL_NEXTRA].p;
        col_varints(&p[COL_NEXTRA], d->col[COL_NEXTRA].end, m, v);
        n = m;
    }
    /* runs of kept and of skipped events (without skipping, one run of all) */
    uint64_t *out = extras;
    for (uint32_t k = 0; k < n;) {
        uint64_t w = 0, sk = 0;
        for (; k < n && keep[k]; k++)
            w += v[k];
        if (w > 0 && (w > (size_t)(d->col[COL_EXTRAS].end - p[COL_EXTRAS]) ||
                      col_varints(&p[COL_EXTRAS], d->col[COL_EXTRAS].end, (uint32_t)w, out) != 0))
            return PLOG_E_CORRUPT;
        out += w;
        for (; k < n && !keep[k]; k++)
            sk += v[k];
        if (sk > 0 && col_skip(&p[COL_EXTRAS], d->col[COL_EXTRAS].end, sk) != 0)
            return PLOG_E_CORRUPT;
    }

    uint64_t t = d->prev_start;
    COLUMN(COL_DSTART, {
        t += (uint64_t)plog_unzigzag(x);
        ev[k].t_start = t;
    });
    COLUMN(COL_DUR, {
        int64_t dur = plog_unzigzag(x);
        ev[k].t_end = ev[k].t_start + (uint64_t)dur;
        if (dur < 0 && ev[k].t_end > ev[k].t_start) /* wrapped: negative duration */
            return PLOG_E_CORRUPT;
    });
    COLUMN(COL_COMM, {
        if (x > UINT32_MAX)
            return PLOG_E_CORRUPT;
        ev[k].comm = (uint32_t)x;
    });
    COLUMN_I32(COL_PEER, peer);
    COLUMN_I32(COL_TAG, tag);
    COLUMN(COL_BYTES, { ev[k].bytes = x; });
    COLUMN(COL_RBYTES, { ev[k].rbytes = x; });
    COLUMN(COL_FLAGS, {
        if (x > UINT16_MAX)
            return PLOG_E_CORRUPT;
        ev[k].flags = (uint16_t)x;
    });
    COLUMN_I32(COL_ROOT, root);
    COLUMN(COL_CALLSITE, {
        if (x > UINT32_MAX)
            return PLOG_E_CORRUPT;
        ev[k].callsite = (uint32_t)x;
    });
    COLUMN_I32(COL_RC, rc);
    /* last: the v4 extras are undone here, once nothing else can fail */
    uint64_t req = d->prev_req;
    int v4 = d->v4;
    COLUMN(COL_REQ, {
        if (x != 0)
            req += (uint64_t)plog_unzigzag(x - 1);
        ev[k].request = x != 0 ? req : 0;
        if (v4 && ev[k].nextra > 0 && (ev[k].flags & (PLOG_F_HANDLES | PLOG_F_STATUS)))
            undo_extras_v4(extras + xoff[k], ev[k].nextra, ev[k].flags, req);
    });
#undef COLUMN_I32
#undef COLUMN

    for (int c = 0; c < PLOG_NCOLS; c++)
        d->col[c].p = p[c];
    d->prev_start = t;
    d->prev_req = req;
    d->i += n;
    *n_out = n;
    return PLOG_OK;
}

/* ---- COMMS payload ---- */

void plog_comm_encode(plog_wcur_t *w, const plog_comm_def_t *c)
{
    plog_put_varint(w, c->id);
    plog_put_varint(w, c->parent);
    plog_put_varint(w, c->call);
    plog_put_varint(w, c->kind);
    plog_put_varint(w, c->n_local);
    for (uint32_t i = 0; i < c->n_local; i++)
        plog_put_varint(w, (uint32_t)c->local[i]);
    plog_put_varint(w, c->n_remote);
    for (uint32_t i = 0; i < c->n_remote; i++)
        plog_put_varint(w, (uint32_t)c->remote[i]);
    plog_put_varint(w, c->n_topo);
    for (uint32_t i = 0; i < c->n_topo; i++)
        plog_put_varint(w, plog_zigzag(c->topo[i]));
}

plog_err_t plog_comm_decode(plog_rcur_t *r, plog_comm_def_t *c, int32_t *local, int32_t *remote,
                            int64_t *topo, uint32_t cap, int32_t world_size)
{
    memset(c, 0, sizeof(*c));
    c->id = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
    c->parent = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
    c->call = (uint32_t)plog_get_varint_max(r, UINT16_MAX);
    c->kind = (uint32_t)plog_get_varint_max(r, PLOG_COMMK_DIST_GRAPH);
    c->n_local = (uint32_t)plog_get_varint_max(r, (uint64_t)world_size);
    if (r->err)
        return r->err;
    if (c->n_local > cap || c->id == PLOG_COMM_NONE || c->kind == 0)
        return PLOG_E_CORRUPT;
    for (uint32_t i = 0; i < c->n_local; i++)
        local[i] = (int32_t)plog_get_varint_max(r, (uint64_t)world_size - 1);
    c->n_remote = (uint32_t)plog_get_varint_max(r, (uint64_t)world_size);
    if (r->err)
        return r->err;
    if (c->n_remote > cap)
        return PLOG_E_CORRUPT;
    for (uint32_t i = 0; i < c->n_remote; i++)
        remote[i] = (int32_t)plog_get_varint_max(r, (uint64_t)world_size - 1);
    c->n_topo = (uint32_t)plog_get_varint_max(r, cap);
    if (r->err)
        return r->err;
    for (uint32_t i = 0; i < c->n_topo; i++)
        topo[i] = plog_unzigzag(plog_get_varint(r));
    c->local = local;
    c->remote = remote;
    c->topo = topo;
    return r->err;
}

/* ---- CLOCKSYNC payload ---- */

void plog_sync_encode(plog_wcur_t *w, const plog_sync_sample_t *s)
{
    plog_put_varint(w, s->phase);
    plog_put_varint(w, s->local_ns);
    plog_put_varint(w, plog_zigzag(s->offset_ns));
    plog_put_varint(w, s->rtt_ns);
}

plog_err_t plog_sync_decode(plog_rcur_t *r, plog_sync_sample_t *s)
{
    s->phase = (uint32_t)plog_get_varint_max(r, PLOG_SYNC_FINALIZE);
    s->local_ns = plog_get_varint(r);
    s->offset_ns = plog_unzigzag(plog_get_varint(r));
    s->rtt_ns = plog_get_varint(r);
    return r->err;
}
