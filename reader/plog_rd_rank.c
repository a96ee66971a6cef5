/* plog_rd_rank.c: one rank file: its header, the index of its frames (walking their headers,
 * seeking past payloads), and its small frames: clock-sync samples, key=value strings (and
 * communicators, plog_rd_comm.c). Never prints; every length is checked before use. */
#define _GNU_SOURCE
#include "plog_rd.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rank_free(rank_priv_t *rp)
{
    if (rp == NULL)
        return;
    free(rp->path);
    free(rp->frames);
    free(rp->sync);
    free(rp->comms);
    free(rp->set_local);
    free(rp->set_remote);
    free(rp->kv);
    free(rp);
}

static const char *rank_frame_kind_name(unsigned kind)
{
    switch (kind) {
    case PLOG_FRAME_EVENTS: return "EVENTS";
    case PLOG_FRAME_COMMS: return "COMMS";
    case PLOG_FRAME_CLOCKSYNC: return "CLOCKSYNC";
    case PLOG_FRAME_META: return "META";
    case PLOG_FRAME_CALLSITES: return "CALLSITES";
    case PLOG_FRAME_PROBE: return "PROBE";
    case PLOG_FRAME_END: return "END";
    default: return "unknown";
    }
}

/* key=value\0 strings: a whole number of NUL-terminated strings. */
static plog_err_t rank_kv_append(rank_priv_t *rp, const char *p, size_t len, int64_t off,
                                 const char *what, plog_error_t *err)
{
    if (len == 0)
        return PLOG_OK;
    if (p[len - 1] != '\0')
        return plog_fail(err, PLOG_E_CORRUPT, rp->path, off, "%s strings not NUL-terminated",
                         what);
    if (VEC_GROW(rp->kv, rp->kv_cap, rp->pub.kv_len + len) != 0)
        return plog_fail(err, PLOG_E_NOMEM, rp->path, off, NULL);
    memcpy(rp->kv + rp->pub.kv_len, p, len);
    rp->pub.kv_len += len;
    rp->pub.kv = rp->kv;
    return PLOG_OK;
}

static plog_err_t rank_parse_sync(rank_priv_t *rp, const plog_frame_ix_t *fx,
                                  const uint8_t *raw, plog_error_t *err)
{
    int64_t off = (int64_t)fx->offset;
    plog_rcur_t r = {raw, raw + fx->raw_len, PLOG_OK};
    for (uint32_t i = 0; i < fx->count; i++) {
        plog_sync_sample_t s;
        if (plog_sync_decode(&r, &s) != PLOG_OK)
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, off, "clock-sync sample %u of %u",
                             i + 1, fx->count);
        /* times below 2^62 and offsets within +-2^61 ns (73 years between two hosts'
         * uptimes): aligned times and their differences then fit in int64_t */
        if ((s.local_ns | s.rtt_ns) >> 62 || s.offset_ns >= (int64_t)1 << 61 ||
            s.offset_ns <= -((int64_t)1 << 61))
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, off,
                             "clock-sync sample %u of %u: time %llu ns, offset %lld ns or round "
                             "trip %llu ns out of range", i + 1, fx->count,
                             (unsigned long long)s.local_ns, (long long)s.offset_ns,
                             (unsigned long long)s.rtt_ns);
        if (rp->pub.rank == 0 && s.offset_ns != 0) /* the reference clock */
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, off,
                             "clock-sync sample %u of %u: rank 0's offset is %lld ns, not 0",
                             i + 1, fx->count, (long long)s.offset_ns);
        if (VEC_GROW(rp->sync, rp->sync_cap, rp->pub.n_sync + 1) != 0)
            return plog_fail(err, PLOG_E_NOMEM, rp->path, off, NULL);
        rp->sync[rp->pub.n_sync++] = s;
    }
    rp->pub.sync = rp->sync;
    if (r.p != r.end)
        return plog_fail(err, PLOG_E_CORRUPT, rp->path, off, "bytes after %u clock-sync samples",
                         fx->count);
    return PLOG_OK;
}

/* Open the file (a regular one); its size in rk->file_size. *fd >= 0 when it was opened. */
static plog_err_t rank_open(rank_priv_t *rp, int *fd, plog_error_t *err)
{
    *fd = open(rp->path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return plog_fail(err, errno == ENOENT ? PLOG_E_MISSING : PLOG_E_IO, rp->path,
                         PLOG_NO_OFFSET, "%s", strerror(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode))
        return plog_fail(err, PLOG_E_IO, rp->path, PLOG_NO_OFFSET, "not a regular file");
    rp->pub.file_size = (uint64_t)st.st_size;
    return PLOG_OK;
}

/* The header's bytes in *hbuf (malloc'd): the fixed part says how long the whole header is.
 * *got may fall short of it (a file that ends inside its header): the decoder says so. */
static plog_err_t rank_header_bytes(int fd, const char *path, uint8_t **hbuf, size_t *got,
                                    plog_error_t *err)
{
    size_t want = sizeof(plog_file_header_t);
    if ((*hbuf = malloc(want)) == NULL)
        return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
    if (frame_read_at(fd, *hbuf, want, 0, got) != PLOG_OK)
        return plog_fail(err, PLOG_E_IO, path, 0, "%s", strerror(errno));
    if (*got < want)
        return PLOG_OK;
    uint32_t hl;
    memcpy(&hl, *hbuf + offsetof(plog_file_header_t, header_len), sizeof(hl));
    if (hl <= want || hl > (1u << 20) + 1) /* larger is refused by the decoder */
        return PLOG_OK;
    uint8_t *nb = realloc(*hbuf, hl);
    if (nb == NULL)
        return plog_fail(err, PLOG_E_NOMEM, path, 0, NULL);
    *hbuf = nb;
    if (frame_read_at(fd, *hbuf, hl, 0, got) != PLOG_OK)
        return plog_fail(err, PLOG_E_IO, path, 0, "%s", strerror(errno));
    return PLOG_OK;
}

/* The error for a header the decoder refused with he, from got bytes. */
static plog_err_t rank_header_fail(plog_error_t *err, plog_err_t he, const char *path,
                                   size_t got, uint32_t version)
{
    switch (he) {
    case PLOG_E_VERSION:
        return plog_fail(err, he, path, 8, "version %u, this reader reads %u to %u",
                         got >= 12 ? version : 0, PLOG_VERSION_MIN, PLOG_VERSION);
    case PLOG_E_TRUNCATED: return plog_fail(err, he, path, 0, "file header incomplete");
    case PLOG_E_BADMAGIC: return plog_fail(err, he, path, 0, NULL);
    default: return plog_fail(err, he, path, 0, "file header");
    }
}

/* The header: rank, world, clock, and its key=value strings. */
static plog_err_t rank_read_header(const plog_run_t *run, rank_priv_t *rp, int fd,
                                   plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    uint8_t *hbuf = NULL;
    size_t got = 0;
    plog_err_t e = rank_header_bytes(fd, rp->path, &hbuf, &got, err);
    const char *kv = NULL;
    size_t kv_len = 0;
    if (e == PLOG_OK) {
        plog_err_t he = plog_header_decode(hbuf, got, &rk->hdr, &kv, &kv_len);
        if (he != PLOG_OK)
            e = rank_header_fail(err, he, rp->path, got, rk->hdr.version);
    }
    if (e == PLOG_OK && rk->hdr.t_init_ns >> 62) /* as event times: doc/log-format.md */
        e = plog_fail(err, PLOG_E_CORRUPT, rp->path, 0,
                      "file header: MPI_Init at %llu ns, past 2^62",
                      (unsigned long long)rk->hdr.t_init_ns);
    /* checked before the file's communicators are read against it */
    if (e == PLOG_OK && run->world_size > 0 && rk->hdr.world_size != run->world_size)
        e = plog_fail(err, PLOG_E_CORRUPT, rp->path,
                      (int64_t)offsetof(plog_file_header_t, world_size),
                      "file header: world size %d, but the first rank file read says %d",
                      (int)rk->hdr.world_size, (int)run->world_size);
    /* the world size sizes the run's arrays: it must be what the input can hold */
    if (e == PLOG_OK && rk->hdr.world_size > run->world_max && run->is_dir) {
        /* the world needs files the directory does not have: the first one missing */
        int32_t miss = 0;
        for (size_t i = 0; i < run->n_found && run->found_ranks[i] == miss; i++)
            miss++;
        char name[64];
        snprintf(name, sizeof(name), PLOG_FILE_PATTERN, (int)miss);
        size_t dl = strlen(run->path);
        char *mp = malloc(dl + sizeof(name) + 2);
        if (mp)
            snprintf(mp, dl + sizeof(name) + 2, "%s%s%s", run->path,
                     dl && run->path[dl - 1] == '/' ? "" : "/", name);
        e = plog_fail(err, PLOG_E_MISSING, mp ? mp : run->path, PLOG_NO_OFFSET,
                      "rank %d of a world of size %d (%s says; the directory holds %zu rank "
                      "files)", (int)miss, (int)rk->hdr.world_size, rp->path, run->n_found);
        free(mp);
    } else if (e == PLOG_OK && rk->hdr.world_size > run->world_max)
        e = plog_fail(err, PLOG_E_CORRUPT, rp->path,
                      (int64_t)offsetof(plog_file_header_t, world_size),
                      "file header: world size %d; a rank file read alone may come from a "
                      "world of at most %d ranks (read a larger one's directory)",
                      (int)rk->hdr.world_size, PLOG_MAX_WORLD_ALONE);
    if (e == PLOG_OK) {
        rk->rank = rk->hdr.rank;
        e = rank_kv_append(rp, kv, kv_len, 0, "header", err); /* kv points into hbuf */
    }
    free(hbuf);
    return e;
}

/* The frame header at off; *whole = 0 when the file ends there or inside the frame (a log
 * that ended early). */
static plog_err_t rank_frame_header(const rank_priv_t *rp, int fd, uint64_t off,
                                    plog_frame_header_t *fh, int *whole, plog_error_t *err)
{
    *whole = 0;
    if (off == rp->pub.file_size) /* no END frame */
        return PLOG_OK;
    size_t got = 0;
    if (frame_read_at(fd, fh, sizeof(*fh), off, &got) != PLOG_OK)
        return plog_fail(err, PLOG_E_IO, rp->path, (int64_t)off, "%s", strerror(errno));
    if (got < sizeof(*fh)) /* a partial frame header */
        return PLOG_OK;
    plog_err_t fe = plog_frame_header_check(fh);
    if (fe != PLOG_OK)
        return plog_fail(err, fe, rp->path, (int64_t)off, "frame header");
    *whole = off + sizeof(*fh) + fh->comp_len <= rp->pub.file_size; /* else a partial payload */
    return PLOG_OK;
}

/* Decompress a small frame and take in what it holds. */
static plog_err_t rank_read_small_frame(plog_run_t *run, rank_priv_t *rp, int fd,
                                        const plog_frame_ix_t *fx, frame_zbufs_t *z,
                                        uint8_t **raw, size_t *rawcap, plog_error_t *err)
{
    plog_err_t e = frame_decompress(fd, rp->path, rp->pub.hdr.version, fx, z, raw, rawcap, err);
    if (e != PLOG_OK)
        return e;
    switch (fx->kind) {
    case PLOG_FRAME_COMMS: return comm_parse_frame(run, rp, fx, *raw, err);
    case PLOG_FRAME_CLOCKSYNC: return rank_parse_sync(rp, fx, *raw, err);
    default:
        return rank_kv_append(rp, (const char *)*raw, fx->raw_len, (int64_t)fx->offset,
                              rank_frame_kind_name(fx->kind), err);
    }
}

/* Index every complete frame from the end of the header on, reading the small ones, up to the
 * END frame or where the file ends early (rk->end_offset, rk->complete). */
static plog_err_t rank_walk_frames(plog_run_t *run, rank_priv_t *rp, int fd, frame_zbufs_t *z,
                                   plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    uint64_t *thread_seen = calloc(65536 / 64, sizeof(uint64_t)); /* a bit per thread slot */
    if (thread_seen == NULL)
        return plog_fail(err, PLOG_E_NOMEM, rp->path, PLOG_NO_OFFSET, NULL);
    uint8_t *raw = NULL;
    size_t rawcap = 0;
    plog_err_t e = PLOG_OK;
    for (uint64_t off = rk->hdr.header_len;;) {
        plog_frame_header_t fh;
        int whole;
        if ((e = rank_frame_header(rp, fd, off, &fh, &whole, err)) != PLOG_OK)
            break;
        if (!whole) {
            rk->end_offset = off;
            break;
        }
        if (VEC_GROW(rp->frames, rp->frames_cap, rk->n_frames + 1) != 0) {
            e = plog_fail(err, PLOG_E_NOMEM, rp->path, (int64_t)off, NULL);
            break;
        }
        plog_frame_ix_t *fx = &rp->frames[rk->n_frames++];
        *fx = (plog_frame_ix_t){off, fh.comp_len, fh.raw_len, fh.count, fh.kind, fh.thread};
        rk->frames = rp->frames;
        off += sizeof(fh) + fh.comp_len;
        if (fh.kind == PLOG_FRAME_EVENTS) {
            rk->n_events += fh.count;
            uint64_t bit = 1ull << (fh.thread % 64);
            if (!(thread_seen[fh.thread / 64] & bit)) {
                thread_seen[fh.thread / 64] |= bit;
                rk->n_threads++;
            }
            continue;
        }
        if (fh.kind == PLOG_FRAME_CALLSITES || fh.kind == PLOG_FRAME_PROBE)
            continue; /* read on demand by whoever needs them */
        if ((e = rank_read_small_frame(run, rp, fd, fx, z, &raw, &rawcap, err)) != PLOG_OK)
            break;
        if (fh.kind == PLOG_FRAME_END) {
            if (off != rk->file_size) {
                e = plog_fail(err, PLOG_E_CORRUPT, rp->path, (int64_t)off,
                              "%llu bytes after the end frame",
                              (unsigned long long)(rk->file_size - off));
                break;
            }
            rk->complete = 1;
            rk->end_offset = off;
            break;
        }
    }
    free(thread_seen);
    free(raw);
    return e;
}

plog_err_t rank_load(plog_run_t *run, const char *path, rank_priv_t **out, frame_zbufs_t *z,
                     plog_error_t *err)
{
    *out = NULL;
    rank_priv_t *rp = calloc(1, sizeof(*rp));
    if (rp == NULL || (rp->path = strdup(path)) == NULL) {
        free(rp);
        return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
    }
    rp->pub.path = rp->path;
    int fd = -1;
    plog_err_t e = rank_open(rp, &fd, err);
    if (e == PLOG_OK)
        e = rank_read_header(run, rp, fd, err);
    if (e == PLOG_OK)
        e = rank_walk_frames(run, rp, fd, z, err);
    if (fd >= 0)
        close(fd);
    if (e != PLOG_OK) {
        rank_free(rp);
        return e;
    }
    *out = rp;
    return PLOG_OK;
}

plog_err_t plog_rank_read_frame(const plog_rank_t *rk, size_t i, void **raw, size_t *raw_len,
                                plog_error_t *err)
{
    *raw = NULL;
    *raw_len = 0;
    if (i >= rk->n_frames)
        return plog_fail(err, PLOG_E_USAGE, rk->path, PLOG_NO_OFFSET, "no frame %zu", i);
    frame_zbufs_t z = {0};
    uint8_t *buf = NULL;
    size_t cap = 0;
    plog_err_t e = frame_load(rk->path, rk->hdr.version, &rk->frames[i], &z, &buf, &cap, err);
    frame_zbufs_free(&z);
    if (e != PLOG_OK) {
        free(buf);
        return e;
    }
    *raw = buf;
    *raw_len = rk->frames[i].raw_len;
    return PLOG_OK;
}

const char *plog_rank_kv_next(const plog_rank_t *rk, const char *prev)
{
    const char *end = rk->kv + rk->kv_len;
    const char *p = prev == NULL ? rk->kv : prev + strlen(prev) + 1;
    return p < end ? p : NULL;
}

const char *plog_rank_kv(const plog_rank_t *rk, const char *key)
{
    size_t klen = strlen(key);
    const char *val = NULL;
    for (const char *s = plog_rank_kv_next(rk, NULL); s != NULL; s = plog_rank_kv_next(rk, s))
        if (strncmp(s, key, klen) == 0 && s[klen] == '=')
            val = s + klen + 1;
    return val;
}
