/* plog_rd_frame.c: read one frame of a rank file: its payload checked against its hash (or
 * zstd's checksum before version 6) and decompressed. Reads with pread. */
#define _GNU_SOURCE
#include "plog_rd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd_errors.h>

plog_err_t frame_read_at(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return PLOG_E_IO;
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    *got = done;
    return PLOG_OK;
}

plog_err_t frame_decompress(int fd, const char *path, uint32_t version,
                            const plog_frame_ix_t *fx, frame_zbufs_t *z, uint8_t **raw,
                            size_t *rawcap, plog_error_t *err)
{
    int64_t off = (int64_t)fx->offset;
    if (z->dctx == NULL && (z->dctx = ZSTD_createDCtx()) == NULL)
        return plog_fail(err, PLOG_E_NOMEM, path, off, "zstd context");
    if (VEC_GROW(z->cbuf, z->ccap, (size_t)fx->comp_len + 1) != 0 ||
        VEC_GROW(*raw, *rawcap, (size_t)fx->raw_len + 1) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, off, "frame of %u bytes", fx->raw_len);
    size_t got = 0;
    if (frame_read_at(fd, z->cbuf, fx->comp_len, fx->offset + sizeof(plog_frame_header_t), &got) !=
        PLOG_OK)
        return plog_fail(err, PLOG_E_IO, path, off, "%s", strerror(errno));
    if (got != fx->comp_len)
        return plog_fail(err, PLOG_E_IO, path, off, "file shrank while being read");
    size_t zframe = fx->comp_len; /* bytes of the zstd frame proper */
    if (version >= 6) {
        /* the trailer: a skippable frame holding the XXH3-64 of the bytes before it */
        plog_hash_trailer_t tr;
        if (zframe < sizeof(tr))
            return plog_fail(err, PLOG_E_CORRUPT, path, off, "payload of %zu bytes has no hash",
                             zframe);
        zframe -= sizeof(tr);
        memcpy(&tr, z->cbuf + zframe, sizeof(tr));
        plog_hash_trailer_t want = plog_payload_trailer(z->cbuf, zframe);
        if (tr.magic != want.magic || tr.len != want.len)
            return plog_fail(err, PLOG_E_CORRUPT, path, off, "payload does not end in its hash");
        if (tr.hash != want.hash)
            return plog_fail(err, PLOG_E_CORRUPT, path, off, "payload hash mismatch");
    }
    unsigned long long fcs = ZSTD_getFrameContentSize(z->cbuf, zframe);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
        return plog_fail(err, PLOG_E_ZSTD, path, off, "not a zstd frame");
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != fx->raw_len)
        return plog_fail(err, PLOG_E_CORRUPT, path, off,
                         "zstd frame holds %llu bytes, frame header says %u", fcs, fx->raw_len);
    size_t zlen = ZSTD_findFrameCompressedSize(z->cbuf, zframe);
    if (ZSTD_isError(zlen))
        return plog_fail(err, PLOG_E_ZSTD, path, off, "%s", ZSTD_getErrorName(zlen));
    if (zlen != zframe)
        return plog_fail(err, PLOG_E_CORRUPT, path, off, "payload is not exactly one zstd frame");
    static const uint8_t zmagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
    if (zframe < 5 || memcmp(z->cbuf, zmagic, 4) != 0)
        return plog_fail(err, PLOG_E_ZSTD, path, off, "not a zstd frame");
    /* before version 6 the writer always asked for zstd's content checksum: its absence
     * means damage (byte 4 of a zstd frame is the Frame_Header_Descriptor, bit 2
     * Content_Checksum_flag). From 6 on the hash above checks the bytes. */
    if (version < 6 && !(z->cbuf[4] & 0x04))
        return plog_fail(err, PLOG_E_CORRUPT, path, off, "zstd frame has no content checksum");
    size_t n = ZSTD_decompressDCtx(z->dctx, *raw, fx->raw_len, z->cbuf, zframe);
    if (ZSTD_isError(n)) {
        if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
            return plog_fail(err, PLOG_E_CORRUPT, path, off,
                             "decoded payload longer than the frame header's %u bytes",
                             fx->raw_len);
        return plog_fail(err, PLOG_E_ZSTD, path, off, "%s", ZSTD_getErrorName(n));
    }
    if (n != fx->raw_len)
        return plog_fail(err, PLOG_E_CORRUPT, path, off,
                         "decoded %zu bytes, frame header says %u", n, fx->raw_len);
    return PLOG_OK;
}

plog_err_t frame_load(const char *path, uint32_t version, const plog_frame_ix_t *fx,
                      frame_zbufs_t *z, uint8_t **raw, size_t *rawcap, plog_error_t *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return plog_fail(err, PLOG_E_IO, path, PLOG_NO_OFFSET, "%s", strerror(errno));
    plog_err_t e = frame_decompress(fd, path, version, fx, z, raw, rawcap, err);
    close(fd);
    return e;
}

void frame_zbufs_free(frame_zbufs_t *z)
{
    ZSTD_freeDCtx(z->dctx);
    free(z->cbuf);
    z->dctx = NULL;
    z->cbuf = NULL;
    z->ccap = 0;
}
