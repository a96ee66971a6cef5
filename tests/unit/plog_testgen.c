/* plog_testgen.c: synthetic .plog writer for tests, built on plog_write.c and plog_codec.c. */
#define _GNU_SOURCE
#include "plog_testgen.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plog_codec.h"

static int buf_reserve(pgen_buf_t *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->len + more)
        nc *= 2;
    uint8_t *np = realloc(b->p, nc);
    if (np == NULL)
        return -1;
    b->p = np;
    b->cap = nc;
    return 0;
}

int pgen_open_ex(pgen_rank_t *g, const char *path, int32_t rank, int32_t world_size,
                 const pgen_opts_t *o)
{
    memset(g, 0, sizeof(*g));
    g->rank = rank;
    g->world_size = world_size;
    plog_file_header_t h;
    memset(&h, 0, sizeof(h));
    h.rank = rank;
    h.world_size = world_size;
    h.pid = 1000 + rank;
    h.clock = PLOG_CLOCK_MONOTONIC;
    h.t_init_ns = o->t_init_ns;
    h.realtime_init_ns = 1700000000000000000ll;
    if (plog_writer_open(&g->w, path, 0644, 3, &h, o->kv ? o->kv : "", o->kv ? o->kv_len : 0) !=
        PLOG_OK)
        return -1;
    if (o->version != 0 && o->version != PLOG_VERSION) {
        /* rewrite the version in place (the header CRC then no longer matters: the reader
         * checks the version first) */
        uint32_t v = o->version;
        if (pwrite(g->w.fd, &v, sizeof(v), offsetof(plog_file_header_t, version)) !=
            (ssize_t)sizeof(v))
            return -1;
    }
    return 0;
}

int pgen_open(pgen_rank_t *g, const char *dir, int32_t rank, int32_t world_size,
              uint64_t t_init_ns)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/" PLOG_FILE_PATTERN, dir, (int)rank);
    char kv[256];
    int n = snprintf(kv, sizeof(kv), "hostname=node%d%cmpi_library=SynthMPI 1.0%c",
                     (int)rank / 2, '\0', '\0');
    pgen_opts_t o = {t_init_ns, kv, (size_t)n, 0};
    return pgen_open_ex(g, path, rank, world_size, &o);
}

plog_event_t *pgen_call(pgen_rank_t *g, unsigned call, uint64_t t0, uint64_t t1, int32_t peer,
                        int32_t tag, uint64_t bytes)
{
    plog_event_t *e = pgen_event(g, 0, call, t0, t1);
    if (e != NULL) {
        e->comm = 1;
        e->peer = peer;
        e->tag = tag;
        e->bytes = bytes;
    }
    return e;
}

void pgen_status1(pgen_rank_t *g, uint64_t handle, int32_t source, int32_t tag, uint64_t bytes)
{
    pgen_last(g, 0)->flags |= PLOG_F_STATUS;
    pgen_extra1(g, 0, 1);
    pgen_status(g, 0, handle, source, tag, bytes, 0);
}

plog_event_t *pgen_last(pgen_rank_t *g, unsigned thread)
{
    return (plog_event_t *)(g->th[thread].p + g->last[thread]);
}

plog_event_t *pgen_event(pgen_rank_t *g, unsigned thread, unsigned call, uint64_t t0,
                         uint64_t t1)
{
    if (thread >= PGEN_MAX_THREADS)
        return NULL;
    pgen_buf_t *b = &g->th[thread];
    if (buf_reserve(b, sizeof(plog_event_t)) != 0)
        return NULL;
    g->last[thread] = b->len;
    plog_event_t *ev = (plog_event_t *)(b->p + b->len);
    memset(ev, 0, sizeof(*ev));
    ev->t_start = t0;
    ev->t_end = t1;
    ev->comm = PLOG_COMM_NONE;
    ev->peer = PLOG_NONE;
    ev->tag = PLOG_NONE;
    ev->root = PLOG_NONE;
    ev->call = (uint16_t)call;
    b->len += sizeof(*ev);
    b->n++;
    return ev;
}

void pgen_extra(pgen_rank_t *g, unsigned thread, const uint64_t *w, size_t n)
{
    pgen_buf_t *b = &g->th[thread];
    if (buf_reserve(b, n * sizeof(uint64_t)) != 0)
        return;
    memcpy(b->p + b->len, w, n * sizeof(uint64_t));
    b->len += n * sizeof(uint64_t);
    pgen_last(g, thread)->nextra += (uint32_t)n;
}

void pgen_extra1(pgen_rank_t *g, unsigned thread, uint64_t w)
{
    pgen_extra(g, thread, &w, 1);
}

void pgen_status(pgen_rank_t *g, unsigned thread, uint64_t handle, int32_t source, int32_t tag,
                 uint64_t bytes, uint64_t index)
{
    uint64_t w[PLOG_STATUS_WORDS] = {handle, ((uint64_t)(uint32_t)source << 32) | (uint32_t)tag,
                                     bytes, index};
    pgen_extra(g, thread, w, PLOG_STATUS_WORDS);
}

int pgen_flush(pgen_rank_t *g, unsigned thread)
{
    pgen_buf_t *b = &g->th[thread];
    if (b->n == 0)
        return 0;
    size_t cap = plog_events_encode_bound(b->len);
    uint8_t *out = malloc(cap);
    size_t len = 0;
    int rc = -1;
    if (out != NULL && plog_events_encode(b->p, b->len, b->n, out, cap, &len) == PLOG_OK &&
        plog_writer_frame(&g->w, PLOG_FRAME_EVENTS, thread, b->n, out, len) == PLOG_OK)
        rc = 0;
    free(out);
    b->len = 0;
    b->n = 0;
    return rc;
}

int pgen_comm(pgen_rank_t *g, uint32_t id, uint32_t parent, unsigned call, unsigned kind,
              const int32_t *local, uint32_t n_local, const int32_t *remote, uint32_t n_remote)
{
    plog_comm_def_t c = {id, parent, call, kind, n_local, n_remote, 0, local, remote, NULL};
    size_t need = 64 + 10 * ((size_t)n_local + n_remote);
    if (buf_reserve(&g->comms, need) != 0)
        return -1;
    plog_wcur_t w = {g->comms.p + g->comms.len, g->comms.p + g->comms.cap, 0};
    plog_comm_encode(&w, &c);
    if (w.overflow)
        return -1;
    g->comms.len = (size_t)(w.p - g->comms.p);
    g->comms.n++;
    return 0;
}

int pgen_flush_comms(pgen_rank_t *g)
{
    if (g->comms.n == 0)
        return 0;
    int rc = plog_writer_frame(&g->w, PLOG_FRAME_COMMS, 0, g->comms.n, g->comms.p,
                               g->comms.len) == PLOG_OK ? 0 : -1;
    g->comms.len = 0;
    g->comms.n = 0;
    return rc;
}

int pgen_sync(pgen_rank_t *g, unsigned phase, uint64_t local_ns, int64_t offset_ns,
              uint64_t rtt_ns)
{
    plog_sync_sample_t s = {phase, local_ns, offset_ns, rtt_ns};
    if (buf_reserve(&g->sync, 48) != 0)
        return -1;
    plog_wcur_t w = {g->sync.p + g->sync.len, g->sync.p + g->sync.cap, 0};
    plog_sync_encode(&w, &s);
    g->sync.len = (size_t)(w.p - g->sync.p);
    g->sync.n++;
    return 0;
}

int pgen_flush_sync(pgen_rank_t *g)
{
    if (g->sync.n == 0)
        return 0;
    int rc = plog_writer_frame(&g->w, PLOG_FRAME_CLOCKSYNC, 0, g->sync.n, g->sync.p,
                               g->sync.len) == PLOG_OK ? 0 : -1;
    g->sync.len = 0;
    g->sync.n = 0;
    return rc;
}

int pgen_meta(pgen_rank_t *g, const char *kv, size_t kv_len)
{
    return plog_writer_frame(&g->w, PLOG_FRAME_META, 0, 0, kv, kv_len) == PLOG_OK ? 0 : -1;
}

static int flush_all(pgen_rank_t *g)
{
    int rc = pgen_flush_comms(g) | pgen_flush_sync(g);
    for (unsigned t = 0; t < PGEN_MAX_THREADS; t++)
        rc |= pgen_flush(g, t);
    return rc;
}

static void free_bufs(pgen_rank_t *g)
{
    for (unsigned t = 0; t < PGEN_MAX_THREADS; t++)
        free(g->th[t].p);
    free(g->comms.p);
    free(g->sync.p);
}

int pgen_close(pgen_rank_t *g, const char *kv, size_t kv_len)
{
    int rc = flush_all(g);
    if (plog_writer_close(&g->w, kv ? kv : "", kv ? kv_len : 0) != PLOG_OK)
        rc = -1;
    free_bufs(g);
    return rc;
}

void pgen_abandon(pgen_rank_t *g)
{
    flush_all(g);
    plog_writer_abandon(&g->w);
    free_bufs(g);
}

char *pgen_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof(tmpl), "%s/plogtest-XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(tmpl) == NULL)
        return NULL;
    return strdup(tmpl);
}

void pgen_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *de;
        char path[4096];
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

int pgen_read_file(const char *path, uint8_t **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t cap = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *nb = realloc(*buf, cap);
            if (nb == NULL) {
                fclose(f);
                return -1;
            }
            *buf = nb;
        }
        size_t n = fread(*buf + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

int pgen_write_file(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t n = len ? fwrite(buf, 1, len, f) : 0;
    return fclose(f) == 0 && n == len ? 0 : -1;
}

uint64_t pgen_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* LeakSanitizer hook (read only in sanitizer builds): Criterion's parallel runner leaks a few
 * bytes of its own (Snaipe/Criterion#515); ignore allocations made inside libcriterion, so
 * that any leak of phasor's code still fails the run. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libcriterion.so\n";
}
