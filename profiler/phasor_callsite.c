/* phasor_callsite.c: call-site ids for events (PHASOR_CALLSITE_DEPTH).
 *
 * Hot path: the wrapper captures return addresses with libunwind's unw_backtrace (which
 * caches unwind info per thread: ~6 ns a frame here), drops the frames that lie in
 * libphasor itself, and looks the raw addresses up in the thread's own set-associative
 * cache. A hit costs a hash and a compare; no lock, no allocation.
 *
 * Miss (once per distinct stack and thread): each address is turned into (module, offset)
 * with dladdr1, the site's id is the hash of that (plog_site_hash), and a definition goes
 * into the next frame the writer emits (module records first). The process-wide set of
 * defined ids makes each definition appear once per log; a different stack that hashes to
 * an id already taken gets the next free id (so only such rare collisions can make ids
 * differ between ranks; the reader compares the stacks, never trusts ids alone).
 *
 * libunwind is opened with dlopen(RTLD_LOCAL): its symbols (it also exports backtrace and
 * _Unwind_*) must never interpose on the application's. Without it, call sites are off. */
#define _GNU_SOURCE
#include <assert.h>
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hmap.h"
#include "phasor_internal.h"
#include "plog_sites.h"
#include "vec.h"

#define CS_SETS 1024u /* per thread; 4 ways each */
#define CS_WAYS 4u

int phasor_cs_depth;
int (*phasor_unw_backtrace)(void **, int);
static uintptr_t self_lo, self_len; /* libphasor's mapped range: frames to skip */

/* Modules and defined ids (cold; guarded by cs_lock, taken before the write lock). */
static pthread_mutex_t cs_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct module {
    const struct link_map *lm;
    uintptr_t bias;
    char *path;
    uint32_t index;
} module_t;
static module_t *modules;
static size_t nmodules, modules_cap;
static hmap_t ids;       /* defined ids (keys; ids are never 0) */
static char exe_path[PATH_MAX];

static size_t entry_words(void) { return 2 + (size_t)phasor_cs_depth; }

/* The address range of the object that contains this function (libphasor). */
static int self_range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t me = (uintptr_t)arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + p->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + p->p_memsz > hi)
            hi = a + p->p_memsz;
    }
    if (lo <= me && me < hi) {
        self_lo = lo;
        self_len = hi - lo;
        return 1;
    }
    return 0;
}

int phasor_callsite_init(int depth)
{
    phasor_cs_depth = 0;
    if (depth <= 0)
        return 1;
    void *h = dlopen(PHASOR_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        return 0;
    *(void **)&phasor_unw_backtrace = dlsym(h, "unw_backtrace");
    if (phasor_unw_backtrace == NULL)
        return 0;
    dl_iterate_phdr(self_range_cb, (void *)(uintptr_t)&phasor_callsite_init);
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
    exe_path[n > 0 ? n : 0] = '\0';
    phasor_cs_depth = depth > PLOG_SITE_MAX_FRAMES ? PLOG_SITE_MAX_FRAMES : depth;
    return 1;
}

uint64_t *phasor_callsite_cache_new(void)
{
    if (phasor_cs_depth == 0)
        return NULL;
    return calloc((size_t)CS_SETS * CS_WAYS, entry_words() * sizeof(uint64_t));
}

/* ---- cold path ---- */

typedef struct note_arg {
    uintptr_t bias;
    uint8_t id[PLOG_SITE_MAX_BUILDID];
    uint32_t len;
} note_arg_t;

/* GNU build-id of the object loaded at bias, read from its PT_NOTE segments in memory. */
static int build_id_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    note_arg_t *na = arg;
    if (info->dlpi_addr != na->bias)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_NOTE)
            continue;
        const uint8_t *q = (const uint8_t *)(info->dlpi_addr + p->p_vaddr);
        const uint8_t *end = q + p->p_memsz;
        while (q + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)q;
            const uint8_t *name = q + sizeof(*nh);
            const uint8_t *desc = name + ((nh->n_namesz + 3u) & ~3u);
            const uint8_t *next = desc + ((nh->n_descsz + 3u) & ~3u);
            if (next > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= PLOG_SITE_MAX_BUILDID) {
                memcpy(na->id, desc, nh->n_descsz);
                na->len = nh->n_descsz;
                return 1;
            }
            q = next;
        }
    }
    return 1;
}

static uint8_t *pending;
static size_t pending_len, pending_cap;
static uint32_t pending_n;

static int pending_room(size_t need)
{
    return VEC_GROW(pending, pending_cap, pending_len + need) == 0;
}

/* Module record for the object containing pc (cs_lock held). 0 if none. */
static const module_t *module_of(const void *pc)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(pc, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm == NULL)
        return NULL;
    for (size_t i = 0; i < nmodules; i++)
        if (modules[i].lm == lm && modules[i].bias == lm->l_addr)
            return &modules[i];
    const char *path = lm->l_name && lm->l_name[0] ? lm->l_name : exe_path;
    if (VEC_GROW(modules, modules_cap, nmodules + 1) != 0)
        return NULL;
    note_arg_t na = {.bias = lm->l_addr};
    dl_iterate_phdr(build_id_cb, &na);
    size_t plen = strnlen(path, PLOG_SITE_MAX_PATH);
    module_t *m = &modules[nmodules];
    m->path = strndup(path, plen);
    if (!m->path || !pending_room(4 * 10 + plen + na.len)) {
        free(m->path);
        return NULL;
    }
    m->lm = lm;
    m->bias = lm->l_addr;
    m->index = (uint32_t)nmodules + 1;
    nmodules++;
    plog_wcur_t w = {pending + pending_len, pending + pending_cap, 0};
    plog_site_put_module(&w, m->index, m->path, (uint32_t)plen, na.id, na.len);
    assert(!w.overflow); /* pending_room above */
    pending_len = (size_t)(w.p - pending);
    pending_n++;
    return m;
}

/* 1 if id was free and is now taken (cs_lock held); 0 if taken; -1 out of memory. */
static int id_take(uint32_t id)
{
    size_t before = ids.n;
    if (hmap_put(&ids, id) == NULL)
        return -1;
    return ids.n > before;
}

/* Stacks defined so far, so that a stack another thread defined first gets the same id
 * rather than the next free one. */
typedef struct sitedef {
    uint32_t id, n;
    plog_site_frame_t f[PLOG_SITE_MAX_FRAMES];
} sitedef_t;
static sitedef_t *defs;
static size_t ndefs, defs_cap;

static const sitedef_t *def_find(uint32_t id)
{
    for (size_t i = 0; i < ndefs; i++) /* ids are few; the scan is on the miss path only */
        if (defs[i].id == id)
            return &defs[i];
    return NULL;
}

/* A stack this thread has not cached: its id, defining it in the log if it is new to the
 * process; 0 if memory ran out. */
static uint32_t define_site(void *const *pcs, int n)
{
    plog_site_frame_t f[PLOG_SITE_MAX_FRAMES];
    memset(f, 0, sizeof(f)); /* compared with memcmp: no stray padding */
    const char *names[PLOG_SITE_MAX_FRAMES];
    uint64_t offs[PLOG_SITE_MAX_FRAMES];
    uint32_t id = 0;
    pthread_mutex_lock(&cs_lock);
    for (int i = 0; i < n; i++) {
        const module_t *m = module_of(pcs[i]);
        f[i].module = m ? m->index : 0;
        f[i].offset = (uint64_t)(uintptr_t)pcs[i] - (m ? m->bias : 0);
        names[i] = m ? m->path : NULL;
        offs[i] = f[i].offset;
    }
    uint32_t h = plog_site_hash((uint32_t)n, names, offs);
    for (uint32_t probe = 0; probe < 64; probe++) {
        uint32_t cand = h + probe ? h + probe : 1;
        const sitedef_t *d = def_find(cand);
        if (d) {
            if (d->n == (uint32_t)n && memcmp(d->f, f, (size_t)n * sizeof(f[0])) == 0) {
                id = cand; /* defined by another thread */
                break;
            }
            continue;
        }
        if (id_take(cand) < 0 || !pending_room(PLOG_SITE_REC_BOUND(n)))
            break;
        if (VEC_GROW(defs, defs_cap, ndefs + 1) != 0)
            break;
        sitedef_t *d2 = &defs[ndefs++];
        d2->id = cand;
        d2->n = (uint32_t)n;
        memset(d2->f, 0, sizeof(d2->f));
        memcpy(d2->f, f, (size_t)n * sizeof(f[0]));
        plog_wcur_t w = {pending + pending_len, pending + pending_cap, 0};
        plog_site_put_site(&w, cand, (uint32_t)n, f);
        assert(!w.overflow);
        pending_len = (size_t)(w.p - pending);
        pending_n++;
        id = cand;
        break;
    }
    pthread_mutex_unlock(&cs_lock);
    return id;
}

/* Hand the definitions gathered so far to the writer (called with the write lock held,
 * before an EVENTS frame is written, so a site is always defined before its first use;
 * try_only: from a signal handler, where waiting on cs_lock could deadlock). */
void phasor_callsite_flush(void (*emit)(uint32_t n, const void *buf, size_t len), int try_only)
{
    if (try_only ? pthread_mutex_trylock(&cs_lock) != 0 : pthread_mutex_lock(&cs_lock) != 0)
        return;
    if (pending_n) {
        emit(pending_n, pending, pending_len);
        pending_n = 0;
        pending_len = 0;
    }
    pthread_mutex_unlock(&cs_lock);
}

/* ---- hot path ---- */

static inline uint64_t pcs_hash(void *const *pcs, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uintptr_t)pcs[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h | 1; /* 0 marks an empty way */
}

static inline int self_frames(void *const *pcs, int n)
{
    int k = 0;
    while (k < n && (uintptr_t)pcs[k] - self_lo < self_len)
        k++;
    return k;
}

#define CS_MAX_CAPTURE (PLOG_SITE_MAX_FRAMES + 16)

uint32_t phasor_callsite_lookup(phasor_thread_t *th, void *const *pcs, int n)
{
    int k = self_frames(pcs, n);
    /* The capture assumed one libphasor frame (the wrapper). When the record was made deeper
     * in the runtime (a helper the compiler kept out of line, Init/Finalize/Abort), frames of
     * the application were cut off: capture again with room for what was skipped. Rare, and
     * the common case pays one compare. */
    void *more[CS_MAX_CAPTURE];
    for (int want = phasor_cs_depth + 1; k > 1 && n == want && want < CS_MAX_CAPTURE;) {
        want = want + k + 2 < CS_MAX_CAPTURE ? want + k + 2 : CS_MAX_CAPTURE;
        n = phasor_unw_backtrace(more, want);
        pcs = more;
        k = self_frames(pcs, n);
    }
    int m = n - k;
    if (m > phasor_cs_depth)
        m = phasor_cs_depth;
    if (m <= 0 || th->cs_cache == NULL)
        return 0;
    pcs += k;
    uint64_t h = pcs_hash(pcs, m);
    size_t stride = entry_words();
    uint64_t *set = th->cs_cache + (size_t)(h & (CS_SETS - 1)) * CS_WAYS * stride;
    for (unsigned w = 0; w < CS_WAYS; w++) {
        uint64_t *e = set + w * stride;
        if (e[0] == h && (e[1] >> 32) == (uint64_t)m &&
            memcmp(e + 2, pcs, (size_t)m * sizeof(void *)) == 0)
            return (uint32_t)e[1];
    }
    uint32_t id = define_site(pcs, m);
    if (id == 0)
        return 0;
    uint64_t *victim = set + ((h >> 40) & (CS_WAYS - 1)) * stride;
    for (unsigned w = 0; w < CS_WAYS; w++)
        if (set[w * stride] == 0) {
            victim = set + w * stride;
            break;
        }
    victim[0] = h;
    victim[1] = ((uint64_t)m << 32) | id;
    memcpy(victim + 2, pcs, (size_t)m * sizeof(void *));
    return id;
}
