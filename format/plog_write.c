/* plog_write.c: header + frame writer shared by the shim, tests and synthetic-log tools. */
#define _GNU_SOURCE
#include "plog_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static plog_err_t write_all(plog_writer_t *w, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            w->sys_errno = errno;
            return w->err = PLOG_E_IO;
        }
        p += n;
        len -= (size_t)n;
        w->offset += (uint64_t)n;
    }
    return PLOG_OK;
}

plog_err_t plog_writer_open(plog_writer_t *w, const char *path, unsigned mode, int level,
                            plog_file_header_t *h, const char *kv, size_t kv_len)
{
    memset(w, 0, sizeof(*w));
    w->fd = -1;
    w->level = level;
    size_t hcap = sizeof(*h) + kv_len;
    uint8_t *hbuf = malloc(hcap);
    w->cctx = ZSTD_createCCtx();
    if (!hbuf || !w->cctx) {
        free(hbuf);
        ZSTD_freeCCtx(w->cctx);
        w->cctx = NULL;
        w->sys_errno = ENOMEM;
        return w->err = PLOG_E_NOMEM;
    }
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
    /* the header says PLOG_VERSION (>= 6): the payload's hash trailer checks its bytes, and
     * zstd's content checksum of the decompressed bytes would only cost the reader */
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 0);
    size_t hlen = 0;
    plog_err_t e = plog_header_encode(h, kv, kv_len, hbuf, hcap, &hlen);
    if (e == PLOG_OK) {
        w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
        if (w->fd < 0) {
            w->sys_errno = errno;
            e = PLOG_E_IO;
        } else {
            e = write_all(w, hbuf, hlen);
        }
    }
    free(hbuf);
    if (e != PLOG_OK) {
        w->err = e;
        plog_writer_abandon(w);
    }
    return e;
}

plog_err_t plog_writer_frame(plog_writer_t *w, unsigned kind, unsigned thread, uint32_t count,
                             const void *raw, size_t raw_len)
{
    if (w->err)
        return w->err;
    if (raw_len > PLOG_MAX_FRAME_RAW)
        return PLOG_E_TOOBIG;
    size_t need = ZSTD_compressBound(raw_len) + sizeof(plog_hash_trailer_t);
    if (need > w->zcap) {
        uint8_t *nb = realloc(w->zbuf, need);
        if (!nb) {
            w->sys_errno = ENOMEM;
            return w->err = PLOG_E_NOMEM;
        }
        w->zbuf = nb;
        w->zcap = need;
    }
    plog_hash_trailer_t tr;
    size_t clen = ZSTD_compress2(w->cctx, w->zbuf, w->zcap - sizeof(tr), raw, raw_len);
    if (ZSTD_isError(clen))
        return w->err = PLOG_E_ZSTD;
    tr = plog_payload_trailer(w->zbuf, clen);
    memcpy(w->zbuf + clen, &tr, sizeof(tr));
    clen += sizeof(tr);
    plog_frame_header_t fh = {0};
    fh.kind = (uint16_t)kind;
    fh.thread = (uint16_t)thread;
    fh.comp_len = (uint32_t)clen;
    fh.raw_len = (uint32_t)raw_len;
    fh.count = count;
    plog_frame_header_seal(&fh);
    /* A crash between the two writes leaves a header without payload: the reader treats
     * that as the end of a truncated log, like any other partial frame. */
    plog_err_t e = write_all(w, &fh, sizeof(fh));
    if (e == PLOG_OK)
        e = write_all(w, w->zbuf, clen);
    return e;
}

plog_err_t plog_writer_end(plog_writer_t *w, const char *kv, size_t kv_len)
{
    plog_err_t e = w->err;
    if (w->fd >= 0 && e == PLOG_OK)
        e = plog_writer_frame(w, PLOG_FRAME_END, 0, 0, kv, kv_len);
    if (w->fd >= 0 && close(w->fd) != 0 && e == PLOG_OK) {
        w->sys_errno = errno;
        e = w->err = PLOG_E_IO;
    }
    w->fd = -1;
    return e;
}

plog_err_t plog_writer_close(plog_writer_t *w, const char *kv, size_t kv_len)
{
    plog_err_t e = plog_writer_end(w, kv, kv_len);
    plog_writer_abandon(w);
    return e;
}

void plog_writer_abandon(plog_writer_t *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    ZSTD_freeCCtx(w->cctx);
    w->cctx = NULL;
    free(w->zbuf);
    w->zbuf = NULL;
    w->zcap = 0;
}
