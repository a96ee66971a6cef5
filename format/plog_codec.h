/* plog_codec.h: pure encode/decode of .plog payloads (no I/O, no MPI, no allocation).
 *
 * Shared by the writer (profiler/) and the reader (reader/) so that both sides of the
 * format live in one place. Every decoder checks every length against its input and
 * returns a plog_err code instead of reading past the end.
 * phasor's own: not installed, not exported by libplogread (doc/libplogread.md). */
#ifndef PLOG_CODEC_H
#define PLOG_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "plog_error.h"
#include "plog_format.h"

uint32_t plog_crc32(const void *data, size_t len);

/* ---- varints (LEB128) and zigzag ---- */
static inline uint64_t plog_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t plog_unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

typedef struct plog_wcur {
    uint8_t *p, *end;
    int overflow; /* set when a write did not fit; the cursor stops advancing */
} plog_wcur_t;

typedef struct plog_rcur {
    const uint8_t *p, *end;
    plog_err_t err; /* first error seen; reads after an error return 0 */
} plog_rcur_t;

void plog_put_varint(plog_wcur_t *w, uint64_t v);
void plog_put_bytes(plog_wcur_t *w, const void *src, size_t n);
uint64_t plog_get_varint(plog_rcur_t *r);
/* A varint that must be <= max (else PLOG_E_CORRUPT). */
uint64_t plog_get_varint_max(plog_rcur_t *r, uint64_t max);

/* ---- file header ---- */
/* Serialise header + key=value strings into out (header_len and CRC filled in).
 * kv is a sequence of NUL-terminated "key=value" strings, kv_len bytes in all. */
plog_err_t plog_header_encode(plog_file_header_t *h, const char *kv, size_t kv_len,
                              uint8_t *out, size_t cap, size_t *out_len);
/* Validate a header read from the start of a file; kv and kv_len point into buf. */
plog_err_t plog_header_decode(const uint8_t *buf, size_t len, plog_file_header_t *h,
                              const char **kv, size_t *kv_len);

/* ---- frame envelope ---- */
void plog_frame_header_seal(plog_frame_header_t *fh); /* fills magic and header_crc */
/* The trailer a version >= 6 payload ends in: the hash of its zstd frame, len bytes. */
plog_hash_trailer_t plog_payload_trailer(const void *zframe, size_t len);
plog_err_t plog_frame_header_check(const plog_frame_header_t *fh);

/* ---- EVENTS payload (columnar; see doc/log-format.md) ----
 * records: n events laid out as in the shim's buffer: each plog_event_t followed by its
 * nextra uint64 words, 8-byte aligned, times already in ns. */
size_t plog_events_encode_bound(size_t records_len);
plog_err_t plog_events_encode(const uint8_t *records, size_t records_len, uint32_t n,
                              uint8_t *out, size_t cap, size_t *out_len);
/* Linear map applied to t_start/t_end while encoding: ns = ns0 + (raw - raw0) x ns_per_tick.
 * Lets the shim keep raw TSC ticks in its buffers and convert in the same pass. */
typedef struct plog_time_map {
    uint64_t raw0, ns0;
    double ns_per_tick;
} plog_time_map_t;
plog_err_t plog_events_encode_mapped(const uint8_t *records, size_t records_len, uint32_t n,
                                     const plog_time_map_t *tm, uint8_t *out, size_t cap,
                                     size_t *out_len);

#define PLOG_NCOLS 15
typedef struct plog_events_dec {
    plog_rcur_t col[PLOG_NCOLS];
    uint32_t n, i;
    uint64_t prev_start;
    uint64_t prev_req;
    int v4;           /* version >= 4: handle and status words are transformed */
    /* Set after init, for plog_events_dec_batch only: the extras of events whose call id c
     * has c < skip_n && skip_extras[c] are stepped over, not decoded (nextra reads 0), for
     * readers that never look at them. Their bytes are checked only for varint framing. */
    const uint8_t *skip_extras;
    uint32_t skip_n;
} plog_events_dec_t;

/* version: the file's (the extras of version 4 are transformed, see plog_codec.c). */
plog_err_t plog_events_dec_init(plog_events_dec_t *d, const uint8_t *payload, size_t len,
                                uint32_t n_expected, uint32_t version);
/* Next event: fills *ev and up to extras_cap words into extras (ev->nextra says how many
 * the event has; more than extras_cap is PLOG_E_TOOBIG). Returns PLOG_OK, or an error;
 * *done is set after the last event (and the columns were consumed exactly). */
plog_err_t plog_events_dec_next(plog_events_dec_t *d, plog_event_t *ev, uint64_t *extras,
                                size_t extras_cap, int *done);
/* The next events in bulk, column by column (the fast path of a reader): up to max events
 * (at most PLOG_DEC_BATCH) into ev[], their extras back to back into extras, event k's at
 * extras + xoff[k] .. xoff[k + 1] (xoff has max + 1 entries). Stops early rather than pass
 * extras_cap words, and after the last event (*n_out = 0 there: plog_events_dec_next then
 * makes the end-of-frame checks). All or nothing: on any error, the decoder is left as it
 * was and plog_events_dec_next, event by event, says which event is wrong and how.
 * PLOG_E_TOOBIG: the next event alone has more than extras_cap extras. */
#define PLOG_DEC_BATCH 256
plog_err_t plog_events_dec_batch(plog_events_dec_t *d, plog_event_t *ev, uint32_t max,
                                 uint64_t *extras, size_t extras_cap, uint32_t *xoff,
                                 uint32_t *n_out);
/* The batch decoder's CPU-specific paths (BMI1/BMI2 on x86-64, not on AMD before Zen 3,
 * whose pext is slow) are on when the CPU has them.
 * on = 0 leaves the portable code only, which decodes exactly the same (tests compare the
 * two). Not while another thread decodes. Returns whether they are on now. */
int plog_codec_cpu_paths(int on);

/* ---- COMMS payload ---- */
typedef struct plog_comm_def {
    uint32_t id, parent;
    uint32_t call;  /* creating call (enum plog_call), 0 for the predefined ones */
    uint32_t kind;  /* enum plog_comm_kind */
    uint32_t n_local, n_remote, n_topo;
    const int32_t *local;  /* world ranks, n_local */
    const int32_t *remote; /* world ranks, n_remote */
    const int64_t *topo;   /* Cart: ndims, dims..., periods...; else empty */
} plog_comm_def_t;

void plog_comm_encode(plog_wcur_t *w, const plog_comm_def_t *c);
/* Decode one definition; arrays are written into the caller's scratch (cap entries each). */
plog_err_t plog_comm_decode(plog_rcur_t *r, plog_comm_def_t *c, int32_t *local, int32_t *remote,
                            int64_t *topo, uint32_t cap, int32_t world_size);

/* ---- CLOCKSYNC payload (plog_sync_sample_t: plog_format.h) ---- */
void plog_sync_encode(plog_wcur_t *w, const plog_sync_sample_t *s);
plog_err_t plog_sync_decode(plog_rcur_t *r, plog_sync_sample_t *s);

#endif
