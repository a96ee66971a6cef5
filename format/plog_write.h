/* plog_write.h: write a .plog file: header, zstd frames, end frame (no MPI, no threads).
 * The shim serialises calls itself; tests and benchmarks use it to make synthetic logs. */
#ifndef PLOG_WRITE_H
#define PLOG_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "plog_codec.h"

typedef struct plog_writer {
    int fd;
    void *cctx;        /* ZSTD_CCtx, reused for every frame */
    uint8_t *zbuf;     /* compressed frame scratch */
    size_t zcap;
    uint64_t offset;   /* bytes written so far */
    int level;         /* zstd level */
    int sys_errno;     /* errno of the first failed system call */
    plog_err_t err;    /* first error; once set, further writes are refused */
} plog_writer_t;

/* Create path exclusively (O_EXCL, no symlink following) with the given mode and write the
 * header. On failure w->sys_errno tells why. */
plog_err_t plog_writer_open(plog_writer_t *w, const char *path, unsigned mode, int level,
                            plog_file_header_t *h, const char *kv, size_t kv_len);
/* Compress raw (raw_len bytes) into one frame and append it. */
plog_err_t plog_writer_frame(plog_writer_t *w, unsigned kind, unsigned thread, uint32_t count,
                             const void *raw, size_t raw_len);
/* Append the END frame (kv: key=value\0 strings) and close the file, freeing nothing (usable
 * from a signal handler, as far as zstd's compression of a small frame allocates nothing). */
plog_err_t plog_writer_end(plog_writer_t *w, const char *kv, size_t kv_len);
/* plog_writer_end, then free the writer's memory. Safe to call after errors. */
plog_err_t plog_writer_close(plog_writer_t *w, const char *kv, size_t kv_len);
/* Close without an end frame (the log then reads as ended early). */
void plog_writer_abandon(plog_writer_t *w);

#endif
