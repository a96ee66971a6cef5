/* plog_sites.c: encode/decode of CALLSITES records (see plog_sites.h). Pure: no I/O. */
#include "plog_sites.h"

#include <string.h>

void plog_site_put_module(plog_wcur_t *w, uint32_t index, const char *path, uint32_t path_len,
                          const uint8_t *build_id, uint32_t build_id_len)
{
    plog_put_varint(w, PLOG_SITE_REC_MODULE);
    plog_put_varint(w, index);
    plog_put_varint(w, path_len);
    if (path_len)
        plog_put_bytes(w, path, path_len);
    plog_put_varint(w, build_id_len);
    if (build_id_len) /* build_id may be NULL then */
        plog_put_bytes(w, build_id, build_id_len);
}

void plog_site_put_site(plog_wcur_t *w, uint32_t id, uint32_t nframes,
                        const plog_site_frame_t *frames)
{
    plog_put_varint(w, PLOG_SITE_REC_SITE);
    plog_put_varint(w, id);
    plog_put_varint(w, nframes);
    for (uint32_t i = 0; i < nframes; i++) {
        plog_put_varint(w, frames[i].module);
        plog_put_varint(w, frames[i].offset);
    }
}

static const uint8_t *get_span(plog_rcur_t *r, uint64_t len)
{
    if (r->err)
        return NULL;
    if ((uint64_t)(r->end - r->p) < len) {
        r->err = PLOG_E_TRUNCATED;
        return NULL;
    }
    const uint8_t *s = r->p;
    r->p += len;
    return s;
}

plog_err_t plog_site_get(plog_rcur_t *r, plog_site_rec_t *out)
{
    memset(out, 0, sizeof(*out) - sizeof(out->frames));
    uint64_t type = plog_get_varint(r);
    if (r->err)
        return r->err;
    out->type = (unsigned)type;
    if (type == PLOG_SITE_REC_MODULE) {
        uint64_t idx = plog_get_varint_max(r, UINT32_MAX);
        uint64_t plen = plog_get_varint(r);
        if (!r->err && plen > PLOG_SITE_MAX_PATH)
            return r->err = PLOG_E_TOOBIG;
        const uint8_t *path = get_span(r, plen);
        uint64_t blen = plog_get_varint(r);
        if (!r->err && blen > PLOG_SITE_MAX_BUILDID)
            return r->err = PLOG_E_TOOBIG;
        const uint8_t *bid = get_span(r, blen);
        if (r->err)
            return r->err;
        if (idx == 0 || memchr(path, '\0', plen) != NULL)
            return r->err = PLOG_E_CORRUPT;
        out->module = (uint32_t)idx;
        out->path = (const char *)path;
        out->path_len = (uint32_t)plen;
        out->build_id = bid;
        out->build_id_len = (uint32_t)blen;
        return PLOG_OK;
    }
    if (type == PLOG_SITE_REC_SITE) {
        uint64_t id = plog_get_varint_max(r, UINT32_MAX);
        uint64_t n = plog_get_varint(r);
        if (r->err)
            return r->err;
        if (id == 0 || n == 0 || n > PLOG_SITE_MAX_FRAMES)
            return r->err = PLOG_E_CORRUPT;
        out->id = (uint32_t)id;
        out->nframes = (uint32_t)n;
        for (uint64_t i = 0; i < n; i++) {
            out->frames[i].module = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
            out->frames[i].offset = plog_get_varint(r);
        }
        return r->err;
    }
    return r->err = PLOG_E_CORRUPT;
}

uint32_t plog_site_hash(uint32_t nframes, const char *const *names, const uint64_t *offsets)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < nframes; i++) {
        const char *base = names[i] ? names[i] : "";
        const char *slash = strrchr(base, '/');
        if (slash)
            base = slash + 1;
        for (const char *c = base; *c; c++)
            h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
        h = (h ^ 0xffu) * 0x100000001b3ull; /* separator: "ab"+"c" differs from "a"+"bc" */
        for (int b = 0; b < 8; b++)
            h = (h ^ ((offsets[i] >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
    }
    uint32_t id = (uint32_t)(h ^ (h >> 32));
    return id ? id : 1;
}
