/* plog_sites.h: the CALLSITES payload (format version 2): which code called MPI.
 *
 * A call site is the stack of return addresses above the MPI call, each stored as
 * (module, offset): offset = address - the module's load bias, i.e. the address the
 * module's own ELF file gives that instruction. That is what makes a site the same on every
 * rank despite ASLR, and what an offline symboliser needs. A site's id is a hash of its
 * frames (module file names and offsets), so equal stacks get equal ids on every rank.
 *
 * Payload: `count` records, each starting with a varint type:
 *   PLOG_SITE_REC_MODULE: varint index (>= 1, unique in the rank's log), varint path length,
 *                         path bytes, varint build-id length, build-id bytes (may be 0 long)
 *   PLOG_SITE_REC_SITE:   varint id (1..2^32-1), varint nframes (1..PLOG_SITE_MAX_FRAMES),
 *                         nframes x (varint module index, varint offset), innermost first
 * Module index 0 means "no module" (the address lies in no loaded ELF object): its offset
 * is then the raw address. A module record comes before the first site that uses it. */
#ifndef PLOG_SITES_H
#define PLOG_SITES_H

#include <stdint.h>

#define PLOG_SITE_MAX_FRAMES 16
#define PLOG_SITE_MAX_PATH 4096
#define PLOG_SITE_MAX_BUILDID 64

enum plog_site_rec_type { PLOG_SITE_REC_MODULE = 1, PLOG_SITE_REC_SITE = 2 };

typedef struct plog_site_frame {
    uint32_t module; /* index of a module record, 0 = none */
    uint64_t offset; /* return address minus the module's load bias */
} plog_site_frame_t;

/* ---- phasor's own (the shim's encoder, the reader's decoder): not part of libplogread's
 * API, compiled with PLOG_INTERNAL (doc/libplogread.md) ---- */
#ifdef PLOG_INTERNAL
#include "plog_codec.h"

typedef struct plog_site_rec {
    unsigned type;                   /* enum plog_site_rec_type */
    /* PLOG_SITE_REC_MODULE (path and build_id point into the decoded payload) */
    uint32_t module;
    const char *path;
    uint32_t path_len;
    const uint8_t *build_id;
    uint32_t build_id_len;
    /* PLOG_SITE_REC_SITE */
    uint32_t id;
    uint32_t nframes;
    plog_site_frame_t frames[PLOG_SITE_MAX_FRAMES];
} plog_site_rec_t;

void plog_site_put_module(plog_wcur_t *w, uint32_t index, const char *path, uint32_t path_len,
                          const uint8_t *build_id, uint32_t build_id_len);
void plog_site_put_site(plog_wcur_t *w, uint32_t id, uint32_t nframes,
                        const plog_site_frame_t *frames);
/* Bytes a site record needs at most. */
#define PLOG_SITE_REC_BOUND(nframes) (3 * 10 + (size_t)(nframes) * 20)

/* One record; PLOG_E_TRUNCATED / PLOG_E_CORRUPT / PLOG_E_TOOBIG on bad input. */
plog_err_t plog_site_get(plog_rcur_t *r, plog_site_rec_t *out);

/* The id of a stack: FNV-1a over each frame's module file name (without directories, so a
 * library installed at different paths on different nodes still agrees) and offset, folded
 * to 32 bits, never 0. name may be NULL for frames in no module. */
uint32_t plog_site_hash(uint32_t nframes, const char *const *names, const uint64_t *offsets);

#endif /* PLOG_INTERNAL */

#endif
