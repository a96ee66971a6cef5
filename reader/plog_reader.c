/* plog_reader.c: decode .plog files into events with world ranks, global communicator ids,
 * linked requests and aligned times (see plog_reader.h for the model, doc/log-format.md for
 * the rules). Reads with pread; never prints; every length is checked before use. */
#define _GNU_SOURCE
#include "plog_reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "plog_calls.h"

/* Column numbers of the EVENTS payload (their order is part of the on-disk format,
 * doc/log-format.md): the reader peeks at nextra to size the extras buffer exactly. */
#define COL_NEXTRA 13
#define COL_EXTRAS 14

#define MAX_WARNINGS 200       /* run warnings kept; the rest are counted */
#define COMM_TOPO_CAP 256      /* topology words accepted per communicator */

/* ==== names ============================================================================== */

const char *plog_class_name(int cls)
{
    static const char *const names[PLOG_CLASS__COUNT] = {
        [PLOG_CLASS_OTHER] = "other",       [PLOG_CLASS_ENV] = "env",
        [PLOG_CLASS_SEND] = "send",         [PLOG_CLASS_RECV] = "recv",
        [PLOG_CLASS_SENDRECV] = "sendrecv", [PLOG_CLASS_ISEND] = "isend",
        [PLOG_CLASS_IRECV] = "irecv",       [PLOG_CLASS_PSEND_INIT] = "psend_init",
        [PLOG_CLASS_PRECV_INIT] = "precv_init", [PLOG_CLASS_START] = "start",
        [PLOG_CLASS_COMPLETE] = "complete", [PLOG_CLASS_REQFREE] = "reqfree",
        [PLOG_CLASS_PROBE] = "probe",       [PLOG_CLASS_COLL] = "coll",
        [PLOG_CLASS_ICOLL] = "icoll",       [PLOG_CLASS_COMM] = "comm",
        [PLOG_CLASS_STEP] = "step",
    };
    if (cls < 0 || cls >= PLOG_CLASS__COUNT)
        return "other";
    return names[cls];
}

const char *plog_op_name(unsigned op)
{
    static const char *const names[] = {"none", "max",    "min",    "sum",     "prod",
                                        "land", "band",   "lor",    "bor",     "lxor",
                                        "bxor", "maxloc", "minloc", "replace", "no_op"};
    if (op < sizeof(names) / sizeof(names[0]))
        return names[op];
    return op == PLOG_OP_USER ? "user" : "unknown";
}

const char *plog_comm_kind_name(uint32_t kind)
{
    switch (kind) {
    case PLOG_COMMK_INTRA: return "intra";
    case PLOG_COMMK_INTER: return "inter";
    case PLOG_COMMK_CART: return "cart";
    case PLOG_COMMK_GRAPH: return "graph";
    case PLOG_COMMK_DIST_GRAPH: return "dist_graph";
    default: return "unknown";
    }
}

/* ==== clock alignment ==================================================================== */

unsigned plog_clock_fit(const plog_sync_sample_t *s, size_t n, plog_clockfit_t *fit)
{
    memset(fit, 0, sizeof(*fit));
    const plog_sync_sample_t *bi = NULL, *bf = NULL;
    for (size_t i = 0; i < n; i++) {
        const plog_sync_sample_t **best = s[i].phase == PLOG_SYNC_INIT ? &bi
                                          : s[i].phase == PLOG_SYNC_FINALIZE ? &bf : NULL;
        if (best != NULL && (*best == NULL || s[i].rtt_ns < (*best)->rtt_ns))
            *best = &s[i];
    }
    if (bi == NULL && bf == NULL)
        return PLOG_CLOCKFIT_NONE;
    const plog_sync_sample_t *one = bi != NULL ? bi : bf;
    fit->n = 1;
    fit->t0 = fit->t1 = one->local_ns;
    fit->o0 = fit->o1 = one->offset_ns;
    if (bi == NULL || bf == NULL)
        return PLOG_CLOCKFIT_SINGLE;
    fit->t1 = bf->local_ns;
    fit->o1 = bf->offset_ns;
    if (bf->local_ns <= bi->local_ns)
        return PLOG_CLOCKFIT_BADORDER;
    double dt = (double)(bf->local_ns - bi->local_ns);
    double d_off = (double)bf->offset_ns - (double)bi->offset_ns;
    if (d_off < 0)
        d_off = -d_off;
    if (d_off > PLOG_CLOCK_MAX_DRIFT * dt) {
        /* Each offset is known to within half its round trip: a difference inside that is
         * noise on a short run (keep the Init offset); beyond it the samples are wrong. */
        double noise = ((double)bi->rtt_ns + (double)bf->rtt_ns) / 2;
        return d_off > noise ? PLOG_CLOCKFIT_BADSLOPE : 0;
    }
    fit->n = 2;
    return 0;
}

#ifdef __SIZEOF_INT128__
typedef __int128 wide_t;
#else
typedef long double wide_t;
#endif

static inline int64_t sat64(wide_t v)
{
    if (v > (wide_t)INT64_MAX)
        return INT64_MAX;
    if (v < (wide_t)INT64_MIN)
        return INT64_MIN;
    return (int64_t)v;
}

/* Whether the fit's offset is the same at every t (0 without samples, else o0). */
static inline int fit_constant(const plog_clockfit_t *fit)
{
    return fit->n <= 1 || fit->t1 <= fit->t0 || fit->o1 == fit->o0;
}

static inline wide_t offset_wide(const plog_clockfit_t *fit, uint64_t t)
{
    if (fit_constant(fit))
        return fit->n <= 0 ? 0 : fit->o0;
    /* the same floor in 64 bits when everything fits: the 128-bit division is a libgcc
     * call, and this runs twice per event */
    int64_t d_off, d_t, n64;
    uint64_t d64 = fit->t1 - fit->t0;
    if (!__builtin_sub_overflow(fit->o1, fit->o0, &d_off) && d64 <= INT64_MAX &&
        (t >= fit->t0 ? t - fit->t0 <= INT64_MAX : fit->t0 - t <= INT64_MAX)) {
        d_t = t >= fit->t0 ? (int64_t)(t - fit->t0) : -(int64_t)(fit->t0 - t);
        if (!__builtin_mul_overflow(d_off, d_t, &n64)) {
            int64_t q = n64 / (int64_t)d64;
            if (n64 % (int64_t)d64 != 0 && n64 < 0)
                q -= 1;
            return (wide_t)fit->o0 + q;
        }
    }
    /* |o1 - o0| <= 1e-3 (t1 - t0) (plog_clock_fit), so the product stays below 2^118 */
    wide_t num = ((wide_t)fit->o1 - (wide_t)fit->o0) * ((wide_t)t - (wide_t)fit->t0);
    wide_t den = (wide_t)(fit->t1 - fit->t0);
#ifdef __SIZEOF_INT128__
    wide_t q = num / den;
    if (num % den != 0 && num < 0)
        q -= 1; /* floor, so that aligned time never runs backwards */
#else
    wide_t q = floorl(num / den);
#endif
    return (wide_t)fit->o0 + q;
}

int64_t plog_clock_offset(const plog_clockfit_t *fit, uint64_t t)
{
    return sat64(offset_wide(fit, t));
}

static inline int64_t clock_align(const plog_clockfit_t *fit, uint64_t t, uint64_t ref)
{
    return sat64((wide_t)t + offset_wide(fit, t) - (wide_t)ref);
}

int64_t plog_clock_align(const plog_clockfit_t *fit, uint64_t t, uint64_t ref)
{
    return clock_align(fit, t, ref);
}

/* A stretch of local time over which clock_align() is t + add. A drifting rank's offset
 * changes by 1 ns every (t1 - t0) / |o1 - o0| of local time (a millisecond at 1 ppm), so one
 * stretch covers thousands of events, each aligned with an add instead of a division. */
typedef struct clkpiece {
    uint64_t lo, hi; /* lo <= t < hi */
    int64_t add;
} clkpiece_t;

#ifdef __SIZEOF_INT128__
static wide_t floor_div(wide_t a, wide_t b) /* b > 0 */
{
    wide_t q = a / b;
    return a % b != 0 && a < 0 ? q - 1 : q;
}

static wide_t ceil_div(wide_t a, wide_t b) /* b > 0 */
{
    wide_t q = a / b;
    return a % b != 0 && a > 0 ? q + 1 : q;
}
#endif

/* clock_align(fit, t, ref), and in *pc the stretch around t where the same add holds (left
 * empty, lo = hi = 0, when there is none to keep: the result saturated, or no 128-bit type). */
static int64_t clock_align_piece(const plog_clockfit_t *fit, uint64_t t, uint64_t ref,
                                 clkpiece_t *pc)
{
    wide_t off = offset_wide(fit, t);
    int64_t aligned = sat64((wide_t)t + off - (wide_t)ref);
    *pc = (clkpiece_t){0, 0, 0};
#ifdef __SIZEOF_INT128__ /* a long double may round the bounds: no stretches without it */
    wide_t add = off - (wide_t)ref;
    if (add < (wide_t)INT64_MIN || add > (wide_t)INT64_MAX || t > INT64_MAX ||
        (wide_t)t + add != (wide_t)aligned)
        return aligned;
    wide_t lo = 0, hi = (wide_t)UINT64_MAX; /* in t; hi exclusive */
    if (!fit_constant(fit)) {
        /* offset = o0 + floor(D dt / T), dt = t - t0: the dt with the same floor */
        wide_t D = (wide_t)fit->o1 - (wide_t)fit->o0, T = (wide_t)(fit->t1 - fit->t0);
        wide_t q = off - (wide_t)fit->o0, dlo, dhi;
        if (D > 0) { /* q T <= D dt < (q + 1) T */
            dlo = ceil_div(q * T, D);
            dhi = ceil_div((q + 1) * T, D);
        } else { /* with c = -q: (c - 1) T < -D dt <= c T */
            wide_t c = -q, Dn = -D;
            dlo = floor_div((c - 1) * T, Dn) + 1;
            dhi = floor_div(c * T, Dn) + 1;
        }
        lo = (wide_t)fit->t0 + dlo;
        hi = (wide_t)fit->t0 + dhi;
    }
    if (lo < 0)
        lo = 0;
    /* inside the stretch t + add is an int64_t: t <= INT64_MAX, and no overflow (t >= 0 and
     * add >= INT64_MIN, so only a positive add can overflow) */
    wide_t top = add > 0 ? (wide_t)INT64_MAX - add + 1 : (wide_t)INT64_MAX;
    if (hi > top)
        hi = top;
    if (lo <= (wide_t)t && (wide_t)t < hi) /* always, unless the arithmetic above is wrong */
        *pc = (clkpiece_t){(uint64_t)lo, (uint64_t)hi, (int64_t)add};
#endif
    return aligned;
}

int64_t plog_clock_align_stretch(const plog_clockfit_t *fit, uint64_t t, uint64_t ref,
                                 uint64_t *lo, uint64_t *hi)
{
    clkpiece_t pc;
    int64_t a = clock_align_piece(fit, t, ref, &pc);
    *lo = pc.lo;
    *hi = pc.hi;
    return a;
}

/* Both ends of a call aligned: by adds when both lie in the stretch of *pc. */
static inline int in_stretch(const clkpiece_t *pc, uint64_t t)
{
    return t - pc->lo < pc->hi - pc->lo; /* lo <= t < hi, in one compare */
}

static inline void clock_align2(const plog_clockfit_t *fit, uint64_t ref, clkpiece_t *pc,
                                uint64_t t0, uint64_t t1, int64_t *a0, int64_t *a1)
{
    *a0 = __builtin_expect(in_stretch(pc, t0), 1) ? (int64_t)t0 + pc->add
                                                   : clock_align_piece(fit, t0, ref, pc);
    *a1 = __builtin_expect(in_stretch(pc, t1), 1) ? (int64_t)t1 + pc->add
                                                   : clock_align_piece(fit, t1, ref, pc);
}

/* ==== small containers =================================================================== */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 8;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem)
            return -1;
        nc *= 2;
    }
    void *np = realloc(*p, nc * elem);
    if (np == NULL)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Open-addressing map uint64 -> uint32 (key 0 = empty slot), linear probing with
 * backward-shift deletion so that lookups never meet tombstones. */
typedef struct hmap {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n; /* cap: power of two or 0 */
    unsigned shift; /* 64 - log2(cap) */
} hmap_t;

static inline uint64_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* Home slot: Fibonacci hashing, the top bits of key x 2^64/phi. One multiply on the
 * request tables' path, where each event probes; request handles (pointers, counters)
 * differ in low and middle bits, which the multiply carries into the top ones. */
static inline size_t hm_home(uint64_t key, unsigned shift)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> shift);
}

static int hm_get(const hmap_t *m, uint64_t key, uint32_t *val)
{
    if (m->cap == 0)
        return 0;
    size_t mask = m->cap - 1;
    for (size_t i = hm_home(key, m->shift);; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return 1;
        }
        if (m->keys[i] == 0)
            return 0;
    }
}

static int hm_put(hmap_t *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 4 > m->cap * 3) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        uint64_t *nk = calloc(nc, sizeof(*nk));
        uint32_t *nv = calloc(nc, sizeof(*nv));
        if (nk == NULL || nv == NULL) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->keys[i] == 0)
                continue;
            size_t j = hm_home(m->keys[i], (unsigned)__builtin_clzll(nc) + 1);
            while (nk[j] != 0)
                j = (j + 1) & (nc - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = nc;
        m->shift = (unsigned)__builtin_clzll(nc) + 1;
    }
    size_t mask = m->cap - 1;
    size_t i = hm_home(key, m->shift);
    while (m->keys[i] != 0 && m->keys[i] != key)
        i = (i + 1) & mask;
    if (m->keys[i] == 0)
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

/* The slot holding key, or SIZE_MAX: lets a caller read and then update or delete an
 * entry with one probe sequence. Valid until the next hm_put or deletion. */
static inline size_t hm_find(const hmap_t *m, uint64_t key)
{
    if (m->cap == 0)
        return SIZE_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = hm_home(key, m->shift);; i = (i + 1) & mask) {
        if (m->keys[i] == key)
            return i;
        if (m->keys[i] == 0)
            return SIZE_MAX;
    }
}

/* Where key is (*found = 1) or would go (*found = 0: an empty slot, usable for key by
 * hm_put_at while the table is not full); SIZE_MAX for an empty table. */
static inline size_t hm_probe(const hmap_t *m, uint64_t key, int *found)
{
    *found = 0;
    if (m->cap == 0)
        return SIZE_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = hm_home(key, m->shift);; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            *found = 1;
            return i;
        }
        if (m->keys[i] == 0)
            return i;
    }
}

/* Insert key (absent) at the empty slot hm_probe gave, or by hm_put when it must grow. */
static inline int hm_put_at(hmap_t *m, size_t i, uint64_t key, uint32_t val)
{
    if (i == SIZE_MAX || (m->n + 1) * 4 > m->cap * 3)
        return hm_put(m, key, val);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

static void hm_del_at(hmap_t *m, size_t i)
{
    size_t mask = m->cap - 1;
    for (size_t j = (i + 1) & mask; m->keys[j] != 0; j = (j + 1) & mask) {
        size_t home = hm_home(m->keys[j], m->shift);
        /* move j into the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = 0;
    m->n--;
}

static void hm_del(hmap_t *m, uint64_t key)
{
    size_t i = hm_find(m, key);
    if (i != SIZE_MAX)
        hm_del_at(m, i);
}

static void hm_free(hmap_t *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

/* ==== interned rank lists ================================================================
 * Member lists repeat across ranks (every rank's MPI_COMM_WORLD, every dup): storing each
 * distinct list once keeps 1024-rank runs small, and makes set equality a pointer compare. */
typedef struct ilist {
    int32_t *v;
    uint32_t n;
    uint32_t next; /* index + 1 of the next list with the same hash bucket key, 0 = none */
} ilist_t;

typedef struct intern {
    ilist_t *l;
    size_t n, cap;
    hmap_t map; /* (hash | 1) -> index + 1 of the first list */
} intern_t;

static uint64_t list_hash(const int32_t *v, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = mix64(h ^ (uint32_t)v[i]) + i;
    return h | 1;
}

static const int32_t *intern_list(intern_t *in, const int32_t *v, uint32_t n)
{
    uint64_t h = list_hash(v, n);
    uint32_t head = 0;
    hm_get(&in->map, h, &head);
    for (uint32_t k = head; k != 0; k = in->l[k - 1].next) {
        const ilist_t *il = &in->l[k - 1];
        if (il->n == n && (n == 0 || memcmp(il->v, v, n * sizeof(*v)) == 0))
            return il->v;
    }
    if (GROW(in->l, in->cap, in->n + 1) != 0)
        return NULL;
    int32_t *copy = malloc(n ? n * sizeof(*v) : 1);
    if (copy == NULL)
        return NULL;
    if (n)
        memcpy(copy, v, n * sizeof(*v));
    in->l[in->n] = (ilist_t){copy, n, head};
    if (hm_put(&in->map, h, (uint32_t)(in->n + 1)) != 0) {
        free(copy);
        return NULL;
    }
    in->n++;
    return copy;
}

static void intern_free(intern_t *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->l[i].v);
    free(in->l);
    hm_free(&in->map);
}

/* ==== the run ============================================================================ */

enum callf { CALLF_KNOWN = 1, CALLF_TEST = 2, CALLF_ALL = 4, CALLF_GETSTATUS = 8,
             CALLF_CANCEL = 16, CALLF_ARRAY = 32 };

typedef struct rank_priv {
    plog_rank_t pub;
    char *path;
    plog_frame_ix_t *frames;
    size_t frames_cap;
    plog_sync_sample_t *sync;
    size_t sync_cap;
    plog_lcomm_t *comms;
    size_t comms_cap;
    const int32_t **set_local, **set_remote; /* sorted member sets, parallel to comms */
    char *kv;
    size_t kv_cap;
    unsigned clockfit_flags;
} rank_priv_t;

struct plog_run {
    char *path;
    int is_dir;
    int32_t world_size;
    rank_priv_t **ranks;  /* [world_size], NULL when not loaded */
    int32_t n_loaded;
    uint64_t time_ref;
    plog_gcomm_t *gcomms; /* [0] unused; ids 1..n_gcomms */
    size_t n_gcomms, gcomms_cap;
    intern_t intern;
    const int32_t *empty;
    uint8_t call_cls[65536];  /* class + 1, 0 = unknown call id */
    uint8_t call_complete[65536]; /* 1: a completion (extras skipped under PLOG_ITER_NOLINK) */
    uint8_t call_flags[65536];
    const char *call_name[PLOG_CALL__MAX]; /* plog_call_name() without a call per event */
    char **warn;
    size_t n_warn, warn_cap, warn_dropped;
};

static void warn_add(plog_run_t *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn_add(plog_run_t *run, const char *fmt, ...)
{
    if (run->n_warn >= MAX_WARNINGS) {
        run->warn_dropped++;
        return;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    /* a command that reads a rank twice (phases, predict) finds the same things again */
    for (size_t i = 0; i < run->n_warn; i++)
        if (strcmp(run->warn[i], buf) == 0)
            return;
    char *s = strdup(buf);
    if (s == NULL || GROW(run->warn, run->warn_cap, run->n_warn + 1) != 0) {
        free(s);
        run->warn_dropped++;
        return;
    }
    run->warn[run->n_warn++] = s;
}

size_t plog_run_nwarnings(const plog_run_t *run)
{
    return run->n_warn + (run->warn_dropped ? 1 : 0);
}

const char *plog_run_warning(const plog_run_t *run, size_t i)
{
    if (i < run->n_warn)
        return run->warn[i];
    if (i == run->n_warn && run->warn_dropped) {
        static _Thread_local char buf[96];
        snprintf(buf, sizeof(buf), "%zu more warnings not listed", run->warn_dropped);
        return buf;
    }
    return NULL;
}

static void calls_init(plog_run_t *run)
{
    for (unsigned id = 0; id < 65536; id++) {
        const char *name = plog_call_name(id);
        int cls = plog_call_class(id);
        if (name == NULL || cls < 0 || cls >= PLOG_CLASS__COUNT)
            continue;
        run->call_cls[id] = (uint8_t)(cls + 1);
        run->call_complete[id] = cls == PLOG_CLASS_COMPLETE;
        run->call_name[id] = name;
        uint8_t f = CALLF_KNOWN;
        if (strncmp(name, "MPI_Test", 8) == 0 && strcmp(name, "MPI_Test_cancelled") != 0)
            f |= CALLF_TEST;
        size_t len = strlen(name);
        if (len >= 3 && strcmp(name + len - 3, "all") == 0)
            f |= CALLF_ALL;
        if ((len >= 3 && (strcmp(name + len - 3, "all") == 0 || strcmp(name + len - 3, "any") == 0)) ||
            (len >= 4 && strcmp(name + len - 4, "some") == 0))
            f |= CALLF_ARRAY;
        if (strcmp(name, "MPI_Request_get_status") == 0)
            f |= CALLF_GETSTATUS;
        if (strcmp(name, "MPI_Cancel") == 0)
            f |= CALLF_CANCEL;
        run->call_flags[id] = f;
    }
}

const char *plog_run_path(const plog_run_t *run) { return run->path; }
int32_t plog_run_world_size(const plog_run_t *run) { return run->world_size; }
uint64_t plog_run_time_ref(const plog_run_t *run) { return run->time_ref; }
size_t plog_run_ncomms(const plog_run_t *run) { return run->n_gcomms; }

const plog_rank_t *plog_run_rank(const plog_run_t *run, int32_t rank)
{
    if (rank < 0 || rank >= run->world_size || run->ranks[rank] == NULL)
        return NULL;
    return &run->ranks[rank]->pub;
}

const plog_gcomm_t *plog_run_comm(const plog_run_t *run, int32_t gid)
{
    if (gid < 1 || (size_t)gid > run->n_gcomms)
        return NULL;
    return &run->gcomms[gid];
}

const plog_lcomm_t *plog_rank_comm(const plog_rank_t *rk, uint32_t local_id)
{
    size_t lo = 0, hi = rk->n_comms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->comms[mid].local_id < local_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rk->n_comms && rk->comms[lo].local_id == local_id ? &rk->comms[lo] : NULL;
}

/* inline for the reader's own per-event use (the exported one is called through the PLT) */
static inline int32_t lcomm_world(const plog_lcomm_t *lc, int inter, int32_t r)
{
    if (r == PLOG_NONE || r == PLOG_ANY_SOURCE || r == PLOG_PROC_NULL || r == PLOG_ROOT_ROOT)
        return r;
    if (lc == NULL || r < 0)
        return PLOG_R_BADRANK;
    uint32_t n = inter ? lc->n_remote : lc->n_local;
    const int32_t *v = inter ? lc->remote : lc->local;
    return (uint32_t)r < n ? v[r] : PLOG_R_BADRANK;
}

int32_t plog_lcomm_world(const plog_lcomm_t *lc, int inter, int32_t r)
{
    return lcomm_world(lc, inter, r);
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

/* ==== file access ======================================================================== */

static plog_err_t read_at(int fd, void *buf, size_t len, uint64_t off, size_t *got)
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

/* Decompress one frame's payload (already bounds-checked against the file) into *raw. */
typedef struct zbufs {
    ZSTD_DCtx *dctx;
    uint8_t *cbuf;
    size_t ccap;
} zbufs_t;

static plog_err_t frame_decompress(int fd, const char *path, uint32_t version,
                                   const plog_frame_ix_t *fx, zbufs_t *z, uint8_t **raw,
                                   size_t *rawcap, plog_error_t *err)
{
    int64_t off = (int64_t)fx->offset;
    if (z->dctx == NULL && (z->dctx = ZSTD_createDCtx()) == NULL)
        return plog_fail(err, PLOG_E_NOMEM, path, off, "zstd context");
    if (GROW(z->cbuf, z->ccap, (size_t)fx->comp_len + 1) != 0 ||
        GROW(*raw, *rawcap, (size_t)fx->raw_len + 1) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, off, "frame of %u bytes", fx->raw_len);
    size_t got = 0;
    if (read_at(fd, z->cbuf, fx->comp_len, fx->offset + sizeof(plog_frame_header_t), &got) !=
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
                        "decoded payload longer than the frame header's %u bytes", fx->raw_len);
        return plog_fail(err, PLOG_E_ZSTD, path, off, "%s", ZSTD_getErrorName(n));
    }
    if (n != fx->raw_len)
        return plog_fail(err, PLOG_E_CORRUPT, path, off,
                    "decoded %zu bytes, frame header says %u", n, fx->raw_len);
    return PLOG_OK;
}

static const char *kind_name(unsigned kind)
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
static plog_err_t kv_append(rank_priv_t *rp, const char *p, size_t len, const char *path,
                            int64_t off, const char *what, plog_error_t *err)
{
    if (len == 0)
        return PLOG_OK;
    if (p[len - 1] != '\0')
        return plog_fail(err, PLOG_E_CORRUPT, path, off, "%s strings not NUL-terminated", what);
    if (GROW(rp->kv, rp->kv_cap, rp->pub.kv_len + len) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
    memcpy(rp->kv + rp->pub.kv_len, p, len);
    rp->pub.kv_len += len;
    rp->pub.kv = rp->kv;
    return PLOG_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_lcomm(const void *a, const void *b)
{
    uint32_t x = ((const plog_lcomm_t *)a)->local_id, y = ((const plog_lcomm_t *)b)->local_id;
    return (x > y) - (x < y);
}

/* Add one definition to the rank's table (member lists interned). */
static plog_err_t comm_add(plog_run_t *run, rank_priv_t *rp, const plog_comm_def_t *d,
                           const char *path, int64_t off, plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    if (GROW(rp->comms, rp->comms_cap, rk->n_comms + 1) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
    if ((d->kind == PLOG_COMMK_INTER) != (d->n_remote > 0))
        return plog_fail(err, PLOG_E_CORRUPT, path, off,
                    "communicator %u: kind %u with %u remote members", d->id, d->kind,
                    d->n_remote);
    if (d->n_local == 0)
        return plog_fail(err, PLOG_E_CORRUPT, path, off, "communicator %u has no members", d->id);
    plog_lcomm_t *c = &rp->comms[rk->n_comms];
    memset(c, 0, sizeof(*c));
    c->local_id = d->id;
    c->kind = d->kind;
    c->call = d->call;
    c->parent = d->parent;
    c->n_local = d->n_local;
    c->n_remote = d->n_remote;
    c->local = intern_list(&run->intern, d->local, d->n_local);
    c->remote = intern_list(&run->intern, d->remote, d->n_remote);
    if (c->local == NULL || c->remote == NULL)
        return plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
    c->my_rank = -1;
    for (uint32_t i = 0; i < d->n_local; i++)
        if (d->local[i] == rk->rank)
            c->my_rank = (int32_t)i;
    rk->n_comms++;
    rk->comms = rp->comms;
    return PLOG_OK;
}

static plog_err_t parse_comms(plog_run_t *run, rank_priv_t *rp, const plog_frame_ix_t *fx,
                              const uint8_t *raw, plog_error_t *err)
{
    const char *path = rp->path;
    int64_t off = (int64_t)fx->offset;
    /* this file's own world size: the run's is not known yet while its first file loads */
    int32_t world = rp->pub.hdr.world_size;
    uint32_t cap = (uint32_t)world > COMM_TOPO_CAP ? (uint32_t)world : COMM_TOPO_CAP;
    int32_t *loc = malloc(cap * sizeof(*loc)), *rem = malloc(cap * sizeof(*rem));
    int64_t *topo = malloc(cap * sizeof(*topo));
    plog_err_t e = PLOG_OK;
    if (loc == NULL || rem == NULL || topo == NULL) {
        e = plog_fail(err, PLOG_E_NOMEM, path, off, NULL);
        goto out;
    }
    plog_rcur_t r = {raw, raw + fx->raw_len, PLOG_OK};
    for (uint32_t i = 0; i < fx->count; i++) {
        plog_comm_def_t d;
        plog_err_t de = plog_comm_decode(&r, &d, loc, rem, topo, cap, world);
        if (de != PLOG_OK) {
            e = plog_fail(err, de == PLOG_E_TRUNCATED ? PLOG_E_CORRUPT : de, path, off,
                     "communicator definition %u of %u", i + 1, fx->count);
            goto out;
        }
        if (d.id == PLOG_COMM_UNKNOWN) {
            e = plog_fail(err, PLOG_E_CORRUPT, path, off, "communicator definition with a reserved id");
            goto out;
        }
        if ((e = comm_add(run, rp, &d, path, off, err)) != PLOG_OK)
            goto out;
    }
    if (r.p != r.end)
        e = plog_fail(err, PLOG_E_CORRUPT, path, off, "%zu bytes after %u communicator definitions",
                 (size_t)(r.end - r.p), fx->count);
out:
    free(loc);
    free(rem);
    free(topo);
    return e;
}

static plog_err_t parse_sync(rank_priv_t *rp, const plog_frame_ix_t *fx, const uint8_t *raw,
                             plog_error_t *err)
{
    plog_rcur_t r = {raw, raw + fx->raw_len, PLOG_OK};
    for (uint32_t i = 0; i < fx->count; i++) {
        plog_sync_sample_t s;
        if (plog_sync_decode(&r, &s) != PLOG_OK)
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, (int64_t)fx->offset,
                        "clock-sync sample %u of %u", i + 1, fx->count);
        /* times below 2^62 and offsets within +-2^61 ns (73 years between two hosts'
         * uptimes): aligned times and their differences then fit in int64_t */
        if ((s.local_ns | s.rtt_ns) >> 62 || s.offset_ns >= (int64_t)1 << 61 ||
            s.offset_ns <= -((int64_t)1 << 61))
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, (int64_t)fx->offset,
                        "clock-sync sample %u of %u: time %llu ns, offset %lld ns or round "
                        "trip %llu ns out of range", i + 1, fx->count,
                        (unsigned long long)s.local_ns, (long long)s.offset_ns,
                        (unsigned long long)s.rtt_ns);
        if (rp->pub.rank == 0 && s.offset_ns != 0) /* the reference clock */
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, (int64_t)fx->offset,
                        "clock-sync sample %u of %u: rank 0's offset is %lld ns, not 0", i + 1,
                        fx->count, (long long)s.offset_ns);
        if (GROW(rp->sync, rp->sync_cap, rp->pub.n_sync + 1) != 0)
            return plog_fail(err, PLOG_E_NOMEM, rp->path, (int64_t)fx->offset, NULL);
        rp->sync[rp->pub.n_sync++] = s;
    }
    rp->pub.sync = rp->sync;
    if (r.p != r.end)
        return plog_fail(err, PLOG_E_CORRUPT, rp->path, (int64_t)fx->offset,
                    "bytes after %u clock-sync samples", fx->count);
    return PLOG_OK;
}

static void rank_free(rank_priv_t *rp)
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

/* Read one rank file: header, frame index, and the small frames. */
static plog_err_t rank_load(plog_run_t *run, const char *path, rank_priv_t **out, zbufs_t *z,
                            plog_error_t *err)
{
    *out = NULL;
    rank_priv_t *rp = calloc(1, sizeof(*rp));
    if (rp == NULL || (rp->path = strdup(path)) == NULL) {
        free(rp);
        return plog_fail(err, PLOG_E_NOMEM, path, -1, NULL);
    }
    plog_rank_t *rk = &rp->pub;
    rk->path = rp->path;
    plog_err_t e = PLOG_OK;
    uint8_t *hbuf = NULL, *raw = NULL;
    uint64_t *thread_seen = NULL; /* one bit per thread slot with EVENTS frames */
    size_t rawcap = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        e = plog_fail(err, errno == ENOENT ? PLOG_E_MISSING : PLOG_E_IO, path, -1, "%s",
                 strerror(errno));
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        e = plog_fail(err, PLOG_E_IO, path, -1, "not a regular file");
        goto out;
    }
    rk->file_size = (uint64_t)st.st_size;

    /* header: the fixed part says how long the whole header is */
    size_t want = sizeof(plog_file_header_t), got = 0;
    if ((hbuf = malloc(want)) == NULL) {
        e = plog_fail(err, PLOG_E_NOMEM, path, -1, NULL);
        goto out;
    }
    if (read_at(fd, hbuf, want, 0, &got) != PLOG_OK) {
        e = plog_fail(err, PLOG_E_IO, path, 0, "%s", strerror(errno));
        goto out;
    }
    if (got == want) {
        uint32_t hl;
        memcpy(&hl, hbuf + offsetof(plog_file_header_t, header_len), sizeof(hl));
        if (hl > want && hl <= (1u << 20) + 1) { /* larger is refused by the decoder */
            uint8_t *nb = realloc(hbuf, hl);
            if (nb == NULL) {
                e = plog_fail(err, PLOG_E_NOMEM, path, 0, NULL);
                goto out;
            }
            hbuf = nb;
            if (read_at(fd, hbuf, hl, 0, &got) != PLOG_OK) {
                e = plog_fail(err, PLOG_E_IO, path, 0, "%s", strerror(errno));
                goto out;
            }
        }
    }
    const char *kv = NULL;
    size_t kv_len = 0;
    plog_err_t he = plog_header_decode(hbuf, got, &rk->hdr, &kv, &kv_len);
    if (he != PLOG_OK) {
        const char *what = he == PLOG_E_TRUNCATED ? "file header incomplete"
                           : he == PLOG_E_CRC     ? "file header"
                                                  : NULL;
        if (he == PLOG_E_VERSION)
            e = plog_fail(err, he, path, 8, "version %u, this reader reads %u to %u",
                     got >= 12 ? rk->hdr.version : 0, PLOG_VERSION_MIN, PLOG_VERSION);
        else if (what != NULL)
            e = plog_fail(err, he, path, 0, "%s", what);
        else if (he == PLOG_E_BADMAGIC)
            e = plog_fail(err, he, path, 0, NULL);
        else
            e = plog_fail(err, he, path, 0, "file header");
        goto out;
    }
    if (rk->hdr.t_init_ns >> 62) { /* as event times: doc/log-format.md */
        e = plog_fail(err, PLOG_E_CORRUPT, path, 0, "file header: MPI_Init at %llu ns, past 2^62",
                 (unsigned long long)rk->hdr.t_init_ns);
        goto out;
    }
    rk->rank = rk->hdr.rank;
    if ((e = kv_append(rp, kv, kv_len, path, 0, "header", err)) != PLOG_OK)
        goto out;

    /* frames: walk the headers, seeking past payloads */
    uint64_t off = rk->hdr.header_len;
    if ((thread_seen = calloc(65536 / 64, sizeof(uint64_t))) == NULL) {
        e = plog_fail(err, PLOG_E_NOMEM, path, -1, NULL);
        goto out;
    }
    for (;;) {
        if (off == rk->file_size) {
            rk->end_offset = off; /* no END frame */
            break;
        }
        plog_frame_header_t fh;
        if (read_at(fd, &fh, sizeof(fh), off, &got) != PLOG_OK) {
            e = plog_fail(err, PLOG_E_IO, path, (int64_t)off, "%s", strerror(errno));
            goto out;
        }
        if (got < sizeof(fh)) {
            rk->end_offset = off; /* partial frame header: ended early */
            break;
        }
        plog_err_t fe = plog_frame_header_check(&fh);
        if (fe != PLOG_OK) {
            e = plog_fail(err, fe, path, (int64_t)off, "frame header");
            goto out;
        }
        if (off + sizeof(fh) + fh.comp_len > rk->file_size) {
            rk->end_offset = off; /* partial payload: ended early */
            break;
        }
        if (GROW(rp->frames, rp->frames_cap, rk->n_frames + 1) != 0) {
            e = plog_fail(err, PLOG_E_NOMEM, path, (int64_t)off, NULL);
            goto out;
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
        if ((e = frame_decompress(fd, path, rk->hdr.version, fx, z, &raw, &rawcap, err)) !=
            PLOG_OK)
            goto out;
        switch (fh.kind) {
        case PLOG_FRAME_COMMS: e = parse_comms(run, rp, fx, raw, err); break;
        case PLOG_FRAME_CLOCKSYNC: e = parse_sync(rp, fx, raw, err); break;
        default:
            e = kv_append(rp, (const char *)raw, fx->raw_len, path, (int64_t)fx->offset,
                          kind_name(fh.kind), err);
        }
        if (e != PLOG_OK)
            goto out;
        if (fh.kind == PLOG_FRAME_END) {
            if (off != rk->file_size) {
                e = plog_fail(err, PLOG_E_CORRUPT, path, (int64_t)off,
                         "%llu bytes after the end frame",
                         (unsigned long long)(rk->file_size - off));
                goto out;
            }
            rk->complete = 1;
            rk->end_offset = off;
            break;
        }
    }
out:
    if (fd >= 0)
        close(fd);
    free(thread_seen);
    free(hbuf);
    free(raw);
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
        return plog_fail(err, PLOG_E_USAGE, rk->path, -1, "no frame %zu", i);
    int fd = open(rk->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return plog_fail(err, PLOG_E_IO, rk->path, -1, "%s", strerror(errno));
    zbufs_t z = {0};
    uint8_t *buf = NULL;
    size_t cap = 0;
    plog_err_t e =
        frame_decompress(fd, rk->path, rk->hdr.version, &rk->frames[i], &z, &buf, &cap, err);
    close(fd);
    ZSTD_freeDCtx(z.dctx);
    free(z.cbuf);
    if (e != PLOG_OK) {
        free(buf);
        return e;
    }
    *raw = buf;
    *raw_len = rk->frames[i].raw_len;
    return PLOG_OK;
}

/* Make sure ids 1 (WORLD) and 2 (SELF) exist, sort, and check ids are unique. */
static plog_err_t rank_comms_finish(plog_run_t *run, rank_priv_t *rp, plog_error_t *err)
{
    plog_rank_t *rk = &rp->pub;
    int have_world = 0, have_self = 0;
    for (size_t i = 0; i < rk->n_comms; i++) {
        have_world |= rp->comms[i].local_id == PLOG_COMM_WORLD;
        have_self |= rp->comms[i].local_id == PLOG_COMM_SELF;
    }
    int32_t *all = NULL;
    if (!have_world) {
        if ((all = malloc((size_t)run->world_size * sizeof(*all))) == NULL)
            return plog_fail(err, PLOG_E_NOMEM, rp->path, -1, NULL);
        for (int32_t i = 0; i < run->world_size; i++)
            all[i] = i;
        plog_comm_def_t d = {PLOG_COMM_WORLD, 0, 0, PLOG_COMMK_INTRA, (uint32_t)run->world_size,
                             0, 0, all, NULL, NULL};
        plog_err_t e = comm_add(run, rp, &d, rp->path, -1, err);
        free(all);
        if (e != PLOG_OK)
            return e;
    }
    if (!have_self) {
        int32_t me = rk->rank;
        plog_comm_def_t d = {PLOG_COMM_SELF, 0, 0, PLOG_COMMK_INTRA, 1, 0, 0, &me, NULL, NULL};
        plog_err_t e = comm_add(run, rp, &d, rp->path, -1, err);
        if (e != PLOG_OK)
            return e;
    }
    qsort(rp->comms, rk->n_comms, sizeof(*rp->comms), cmp_lcomm);
    rk->comms = rp->comms;
    for (size_t i = 1; i < rk->n_comms; i++)
        if (rp->comms[i].local_id == rp->comms[i - 1].local_id)
            return plog_fail(err, PLOG_E_CORRUPT, rp->path, -1, "communicator id %u defined twice",
                        rp->comms[i].local_id);
    for (size_t i = 0; i < rk->n_comms; i++)
        if (rp->comms[i].my_rank < 0)
            warn_add(run, "%s: communicator %u (%s) does not list rank %d among its members",
                     rp->path, rp->comms[i].local_id, plog_comm_kind_name(rp->comms[i].kind),
                     rk->rank);
    /* sorted member sets for matching across ranks */
    rp->set_local = calloc(rk->n_comms ? rk->n_comms : 1, sizeof(*rp->set_local));
    rp->set_remote = calloc(rk->n_comms ? rk->n_comms : 1, sizeof(*rp->set_remote));
    size_t maxn = 1;
    for (size_t i = 0; i < rk->n_comms; i++) {
        if (rp->comms[i].n_local > maxn)
            maxn = rp->comms[i].n_local;
        if (rp->comms[i].n_remote > maxn)
            maxn = rp->comms[i].n_remote;
    }
    int32_t *tmp = malloc(maxn * sizeof(*tmp));
    if (rp->set_local == NULL || rp->set_remote == NULL || tmp == NULL) {
        free(tmp);
        return plog_fail(err, PLOG_E_NOMEM, rp->path, -1, NULL);
    }
    for (size_t i = 0; i < rk->n_comms; i++) {
        const plog_lcomm_t *c = &rp->comms[i];
        for (int side = 0; side < 2; side++) {
            uint32_t n = side ? c->n_remote : c->n_local;
            memcpy(tmp, side ? c->remote : c->local, n * sizeof(*tmp));
            qsort(tmp, n, sizeof(*tmp), cmp_i32);
            for (uint32_t k = 1; k < n; k++)
                if (tmp[k] == tmp[k - 1]) {
                    int32_t dup = tmp[k];
                    free(tmp);
                    return plog_fail(err, PLOG_E_CORRUPT, rp->path, -1,
                                "communicator %u lists world rank %d twice", c->local_id, dup);
                }
            const int32_t *s = intern_list(&run->intern, tmp, n);
            if (s == NULL) {
                free(tmp);
                return plog_fail(err, PLOG_E_NOMEM, rp->path, -1, NULL);
            }
            (side ? rp->set_remote : rp->set_local)[i] = s;
        }
    }
    free(tmp);
    return PLOG_OK;
}

/* ==== communicator matching ==============================================================
 * One communicator = (kind, its two member sets as an unordered pair, ordinal), where the
 * ordinal counts earlier communicators with the same kind and sets on the same rank. Global
 * ids: 1 = MPI_COMM_WORLD, then in order of first appearance scanning ranks 0, 1, ... and
 * each rank's communicators by local id. */
typedef struct ckey {
    uint32_t kind, ordinal;
    const int32_t *a, *b; /* interned sorted sets; a = local side as first seen */
} ckey_t;

static uint64_t ckey_hash(uint32_t kind, const int32_t *a, const int32_t *b, uint32_t ordinal)
{
    /* symmetric in a, b: an intercommunicator's two sides see them swapped */
    uint64_t h = mix64((uint64_t)(uintptr_t)a) + mix64((uint64_t)(uintptr_t)b);
    return mix64(h ^ ((uint64_t)kind << 32) ^ ordinal) | 1;
}

static int ckey_eq(const ckey_t *k, uint32_t kind, const int32_t *a, const int32_t *b,
                   uint32_t ordinal)
{
    return k->kind == kind && k->ordinal == ordinal &&
           ((k->a == a && k->b == b) || (k->a == b && k->b == a));
}

static int list_cmp(const int32_t *x, uint32_t nx, const int32_t *y, uint32_t ny)
{
    for (uint32_t i = 0; i < nx && i < ny; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return (nx > ny) - (nx < ny);
}

static plog_err_t match_comms(plog_run_t *run, plog_error_t *err)
{
    plog_err_t e = PLOG_OK;
    ckey_t *keys = NULL; /* [gid] */
    uint32_t *chain = NULL;
    size_t keys_cap = 0, chain_cap = 0;
    hmap_t groups = {0}, ords = {0};
    uint32_t *ordv = NULL; /* per-rank ordinal counters, indexed through ords */
    size_t ordv_cap = 0;
    ckey_t *ordk = NULL;
    size_t ordk_cap = 0;
    uint32_t *ordchain = NULL;
    size_t ordchain_cap = 0;

    int32_t *allv = malloc((size_t)run->world_size * sizeof(*allv));
    if (allv == NULL)
        return plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
    for (int32_t i = 0; i < run->world_size; i++)
        allv[i] = i;
    const int32_t *world_set = intern_list(&run->intern, allv, (uint32_t)run->world_size);
    free(allv);
    run->empty = intern_list(&run->intern, NULL, 0);
    if (world_set == NULL || run->empty == NULL)
        return plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
    run->n_gcomms = 1; /* gid 1 reserved for MPI_COMM_WORLD */
    if (GROW(run->gcomms, run->gcomms_cap, 2) != 0 || GROW(keys, keys_cap, 2) != 0 ||
        GROW(chain, chain_cap, 2) != 0) {
        e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
        goto out;
    }
    memset(run->gcomms, 0, 2 * sizeof(*run->gcomms));
    keys[1] = (ckey_t){PLOG_COMMK_INTRA, 0, world_set, run->empty};
    chain[1] = 0;
    if (hm_put(&groups, ckey_hash(PLOG_COMMK_INTRA, world_set, run->empty, 0), 1) != 0) {
        e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
        goto out;
    }

    for (int32_t r = 0; r < run->world_size; r++) {
        rank_priv_t *rp = run->ranks[r];
        if (rp == NULL)
            continue;
        /* reset the per-rank ordinal counters */
        hm_free(&ords);
        size_t n_ord = 0;
        for (size_t i = 0; i < rp->pub.n_comms; i++) {
            plog_lcomm_t *c = &rp->comms[i];
            const int32_t *a = rp->set_local[i], *b = rp->set_remote[i];
            /* ordinal of (kind, a, b) on this rank */
            uint64_t oh = ckey_hash(c->kind, a, b, 0);
            uint32_t head = 0, found = 0;
            hm_get(&ords, oh, &head);
            for (uint32_t k = head; k != 0; k = ordchain[k - 1])
                if (ckey_eq(&ordk[k - 1], c->kind, a, b, 0)) {
                    found = k;
                    break;
                }
            if (found == 0) {
                if (GROW(ordk, ordk_cap, n_ord + 1) != 0 || GROW(ordv, ordv_cap, n_ord + 1) != 0 ||
                    GROW(ordchain, ordchain_cap, n_ord + 1) != 0 ||
                    hm_put(&ords, oh, (uint32_t)(n_ord + 1)) != 0) {
                    e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
                    goto out;
                }
                ordk[n_ord] = (ckey_t){c->kind, 0, a, b};
                ordv[n_ord] = 0;
                ordchain[n_ord] = head;
                found = (uint32_t)++n_ord;
            }
            uint32_t ordinal = ordv[found - 1]++;
            /* the global group */
            uint64_t gh = ckey_hash(c->kind, a, b, ordinal);
            uint32_t ghead = 0, gid = 0;
            hm_get(&groups, gh, &ghead);
            for (uint32_t k = ghead; k != 0; k = chain[k])
                if (ckey_eq(&keys[k], c->kind, a, b, ordinal)) {
                    gid = k;
                    break;
                }
            if (gid == 0) {
                size_t ng = run->n_gcomms + 1;
                if (ng > INT32_MAX || GROW(run->gcomms, run->gcomms_cap, ng + 1) != 0 ||
                    GROW(keys, keys_cap, ng + 1) != 0 || GROW(chain, chain_cap, ng + 1) != 0 ||
                    hm_put(&groups, gh, (uint32_t)ng) != 0) {
                    e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
                    goto out;
                }
                memset(&run->gcomms[ng], 0, sizeof(run->gcomms[ng]));
                keys[ng] = (ckey_t){c->kind, ordinal, a, b};
                chain[ng] = ghead;
                run->n_gcomms = ng;
                gid = (uint32_t)ng;
            }
            c->gid = (int32_t)gid;
            plog_gcomm_t *g = &run->gcomms[gid];
            if (g->n_holders++ == 0) {
                g->id = (int32_t)gid;
                g->kind = c->kind;
                g->call = c->call;
                g->first_rank = r;
                g->parent = (int32_t)c->parent; /* local id for now, resolved below */
                int swap = c->n_remote > 0 &&
                           list_cmp(b, c->n_remote, a, c->n_local) < 0;
                g->members = swap ? c->remote : c->local;
                g->n_members = swap ? c->n_remote : c->n_local;
                g->remote = swap ? c->local : c->remote;
                g->n_remote = swap ? c->n_local : c->n_remote;
            } else {
                /* lists are interned: the same order is the same pointer, on either side */
                if (g->members != c->local && g->members != c->remote)
                    warn_add(run, "%s: communicator %u (global %u) lists its members in another "
                             "order than rank %d", rp->path, c->local_id, gid, g->first_rank);
            }
        }
    }
    if (run->gcomms[1].n_holders == 0) { /* nobody defined WORLD: keep id 1 anyway */
        plog_gcomm_t *g = &run->gcomms[1];
        g->id = 1;
        g->kind = PLOG_COMMK_INTRA;
        g->members = world_set;
        g->n_members = (uint32_t)run->world_size;
        g->remote = run->empty;
        g->first_rank = -1;
    }
    /* parents: first holder's local parent id, seen from that rank */
    for (size_t gid = 1; gid <= run->n_gcomms; gid++) {
        plog_gcomm_t *g = &run->gcomms[gid];
        if (g->n_holders == 0 || g->parent == 0)
            continue;
        const plog_lcomm_t *pc = plog_rank_comm(&run->ranks[g->first_rank]->pub,
                                                (uint32_t)g->parent);
        g->parent = pc != NULL ? pc->gid : -1;
    }
    /* every member of a communicator should have defined it */
    if (run->n_loaded == run->world_size) {
        size_t reported = 0;
        for (size_t gid = 1; gid <= run->n_gcomms; gid++) {
            const plog_gcomm_t *g = &run->gcomms[gid];
            uint32_t expect = g->n_members + g->n_remote;
            if (g->n_holders == expect)
                continue;
            if (reported++ < 20)
                warn_add(run, "communicator %zu (%s, %s, %u ranks) was defined by %u ranks; the "
                         "logs of the others lack it or define it differently", gid,
                         plog_comm_kind_name(g->kind),
                         g->call ? (plog_call_name(g->call) ? plog_call_name(g->call) : "?")
                                 : "predefined",
                         expect, g->n_holders);
        }
        if (reported > 20)
            warn_add(run, "%zu more communicators were not defined by all their ranks",
                     reported - 20);
    }
out:
    free(keys);
    free(chain);
    hm_free(&groups);
    hm_free(&ords);
    free(ordv);
    free(ordk);
    free(ordchain);
    return e;
}

/* ==== opening ============================================================================ */

static int parse_rank_name(const char *name, long *rank)
{
    if (strncmp(name, "rank-", 5) != 0)
        return 0;
    const char *p = name + 5;
    if (*p < '0' || *p > '9')
        return 0;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno != 0 || strcmp(end, ".plog") != 0 || v < 0 || v > INT32_MAX)
        return 0;
    *rank = v;
    return 1;
}

void plog_run_close(plog_run_t *run)
{
    if (run == NULL)
        return;
    if (run->ranks != NULL)
        for (int32_t r = 0; r < run->world_size; r++)
            rank_free(run->ranks[r]);
    free(run->ranks);
    free(run->gcomms);
    intern_free(&run->intern);
    for (size_t i = 0; i < run->n_warn; i++)
        free(run->warn[i]);
    free(run->warn);
    free(run->path);
    free(run);
}

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p == NULL)
        return NULL;
    memcpy(p, dir, a);
    size_t n = a;
    if (a > 0 && dir[a - 1] != '/')
        p[n++] = '/';
    memcpy(p + n, name, b + 1);
    return p;
}

typedef struct dirent_rank {
    long rank;
    char *name;
} dirent_rank_t;

static int cmp_dirent_rank(const void *a, const void *b)
{
    long x = ((const dirent_rank_t *)a)->rank, y = ((const dirent_rank_t *)b)->rank;
    return (x > y) - (x < y);
}

/* Load every rank-N.plog of a directory; the lowest rank's header sets the world size, and
 * the directory must then hold exactly ranks 0 .. world_size-1. */
static plog_err_t open_dir(plog_run_t *run, zbufs_t *z, plog_error_t *err)
{
    DIR *d = opendir(run->path);
    if (d == NULL)
        return plog_fail(err, PLOG_E_IO, run->path, -1, "%s", strerror(errno));
    dirent_rank_t *found = NULL;
    size_t n_found = 0, found_cap = 0;
    plog_err_t e = PLOG_OK;
    char *p = NULL;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        long rank;
        if (!parse_rank_name(de->d_name, &rank))
            continue;
        char *name = strdup(de->d_name);
        if (name == NULL || GROW(found, found_cap, n_found + 1) != 0) {
            free(name);
            e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
            break;
        }
        found[n_found++] = (dirent_rank_t){rank, name};
    }
    closedir(d);
    if (e != PLOG_OK)
        goto out;
    if (n_found == 0) {
        e = plog_fail(err, PLOG_E_MISSING, run->path, -1, "no rank-NNNNNN.plog files");
        goto out;
    }
    qsort(found, n_found, sizeof(*found), cmp_dirent_rank);
    for (size_t i = 1; i < n_found; i++)
        if (found[i].rank == found[i - 1].rank) {
            p = join_path(run->path, found[i].name);
            e = plog_fail(err, PLOG_E_CORRUPT, p ? p : run->path, -1, "a second file for rank %ld",
                     found[i].rank);
            goto out;
        }
    for (size_t i = 0; i < n_found; i++) {
        free(p);
        if ((p = join_path(run->path, found[i].name)) == NULL) {
            e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
            goto out;
        }
        rank_priv_t *rp = NULL;
        if ((e = rank_load(run, p, &rp, z, err)) != PLOG_OK)
            goto out;
        if (i == 0) {
            run->world_size = rp->pub.hdr.world_size;
            run->ranks = calloc((size_t)run->world_size, sizeof(*run->ranks));
            if (run->ranks == NULL) {
                rank_free(rp);
                e = plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
                goto out;
            }
        }
        const char *first = i == 0 ? p : run->ranks[found[0].rank]->path;
        if (rp->pub.hdr.world_size != run->world_size)
            e = plog_fail(err, PLOG_E_CORRUPT, p, 0, "world size %d, but %s says %d",
                     (int)rp->pub.hdr.world_size, first, (int)run->world_size);
        else if (found[i].rank >= run->world_size)
            e = plog_fail(err, PLOG_E_CORRUPT, p, -1, "rank %ld beyond the world size %d",
                     found[i].rank, (int)run->world_size);
        else if (rp->pub.rank != found[i].rank)
            e = plog_fail(err, PLOG_E_CORRUPT, p, 0, "header says rank %d", (int)rp->pub.rank);
        if (e != PLOG_OK) {
            rank_free(rp);
            goto out;
        }
        run->ranks[found[i].rank] = rp;
        run->n_loaded++;
    }
    for (int32_t r = 0; r < run->world_size; r++) {
        if (run->ranks[r] != NULL)
            continue;
        char name[64];
        snprintf(name, sizeof(name), PLOG_FILE_PATTERN, (int)r);
        free(p);
        p = join_path(run->path, name);
        e = plog_fail(err, PLOG_E_MISSING, p ? p : run->path, -1,
                 "rank %d of a world of size %d", (int)r, (int)run->world_size);
        goto out;
    }
out:
    free(p);
    for (size_t i = 0; i < n_found; i++)
        free(found[i].name);
    free(found);
    return e;
}

plog_err_t plog_run_open(const char *path, plog_run_t **out, plog_error_t *err)
{
    *out = NULL;
    if (err != NULL) {
        err->code = PLOG_OK;
        err->offset = 0;
        err->msg[0] = '\0';
    }
    plog_run_t *run = calloc(1, sizeof(*run));
    if (run == NULL || (run->path = strdup(path)) == NULL) {
        free(run);
        return plog_fail(err, PLOG_E_NOMEM, path, -1, NULL);
    }
    calls_init(run);
    zbufs_t z = {0};
    plog_err_t e;
    struct stat st;
    if (stat(path, &st) != 0) {
        e = plog_fail(err, errno == ENOENT ? PLOG_E_MISSING : PLOG_E_IO, path, -1, "%s",
                 strerror(errno));
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        run->is_dir = 1;
        e = open_dir(run, &z, err);
    } else {
        rank_priv_t *rp = NULL;
        e = rank_load(run, path, &rp, &z, err);
        if (e == PLOG_OK) {
            run->world_size = rp->pub.hdr.world_size;
            run->ranks = calloc((size_t)run->world_size, sizeof(*run->ranks));
            if (run->ranks == NULL) {
                rank_free(rp);
                e = plog_fail(err, PLOG_E_NOMEM, path, -1, NULL);
            } else {
                run->ranks[rp->pub.rank] = rp;
                run->n_loaded = 1;
            }
        }
    }
    if (e != PLOG_OK)
        goto out;
    for (int32_t r = 0; r < run->world_size && e == PLOG_OK; r++)
        if (run->ranks[r] != NULL)
            e = rank_comms_finish(run, run->ranks[r], err);
    if (e != PLOG_OK || (e = match_comms(run, err)) != PLOG_OK)
        goto out;
    /* clocks */
    for (int32_t r = 0; r < run->world_size; r++) {
        rank_priv_t *rp = run->ranks[r];
        if (rp == NULL)
            continue;
        unsigned f = plog_clock_fit(rp->sync, rp->pub.n_sync, &rp->pub.clock);
        rp->clockfit_flags = f;
        if ((f & PLOG_CLOCKFIT_NONE) && r != 0)
            warn_add(run, "%s: no clock-sync samples; this rank's times are not aligned "
                     "(offset 0)", rp->path);
        if (f & PLOG_CLOCKFIT_BADSLOPE)
            warn_add(run, "%s: clock offsets at Init (%lld ns) and Finalize (%lld ns) imply a "
                     "drift over %g; using the Init offset", rp->path,
                     (long long)rp->pub.clock.o0, (long long)rp->pub.clock.o1,
                     PLOG_CLOCK_MAX_DRIFT);
        if (f & PLOG_CLOCKFIT_BADORDER)
            warn_add(run, "%s: the Finalize clock sample is not after the Init sample; using "
                     "the Init offset", rp->path);
    }
    if (run->ranks[0] != NULL) {
        run->time_ref = run->ranks[0]->pub.hdr.t_init_ns;
    } else {
        const plog_rank_t *rk = NULL;
        for (int32_t r = 0; r < run->world_size && rk == NULL; r++)
            if (run->ranks[r] != NULL)
                rk = &run->ranks[r]->pub;
        int64_t a = plog_clock_align(&rk->clock, rk->hdr.t_init_ns, 0);
        run->time_ref = (uint64_t)a;
        warn_add(run, "%s: rank 0's log is not read; times are relative to this rank's "
                 "MPI_Init on rank 0's clock", rk->path);
    }
    /* The ranks return from MPI_Init within seconds of each other: an hour apart on the
     * aligned clock means the clock-sync samples are wrong, and every time across ranks
     * with them (the offsets themselves are within range, or the file was refused). */
    for (int32_t r = 0; r < run->world_size; r++) {
        const rank_priv_t *rp = run->ranks[r];
        if (rp == NULL)
            continue;
        int64_t d = plog_clock_align(&rp->pub.clock, rp->pub.hdr.t_init_ns, run->time_ref);
        if (d > 3600 * (int64_t)1000000000 || d < -3600 * (int64_t)1000000000)
            warn_add(run, "%s: MPI_Init returned %.0f s from rank 0's on the aligned clock; "
                     "its clock-sync samples look wrong, and so do times across ranks",
                     rp->path, (double)d / 1e9);
    }
    e = PLOG_OK;
out:
    ZSTD_freeDCtx(z.dctx);
    free(z.cbuf);
    if (e != PLOG_OK) {
        plog_run_close(run);
        return e;
    }
    *out = run;
    return PLOG_OK;
}

/* ==== event streams ====================================================================== */

typedef struct tstream {  /* one thread of one rank, frame after frame */
    uint16_t thread;
    uint32_t *fidx;       /* indices of its EVENTS frames in the rank's frame table */
    size_t nf, fcap, next;
    uint64_t frame_off;
    uint8_t *raw;
    size_t rawcap;
    plog_events_dec_t dec;
    int active, have;
    const plog_event_t *head; /* head event: in bev, or ev */
    const uint64_t *headx;    /* its extras */
    plog_event_t ev;      /* decoded one by one (damage, huge extras) */
    uint64_t *x;
    size_t xcap;
    plog_event_t *bev;    /* decoded in bulk: bev[bpos..bn) are next */
    uint32_t *bxoff;      /* extras of bev[k]: bx + bxoff[k] */
    uint64_t *bx;
    size_t bxcap;
    uint32_t bn, bpos;
} tstream_t;

/* Request table entry: an open start, or a persistent definition. */
typedef struct reqent {
    uint64_t handle;
    uint32_t next;        /* index + 1 of the next entry with the same handle */
    uint8_t inter;
    uint8_t uncertain;    /* named by a completion that failed: it may have ended unseen */
    uint8_t cancelled;    /* an MPI_Cancel named it */
    uint16_t thread;      /* thread that started it */
    uint64_t picked;      /* serial of the event that last named it (see open_choose) */
    const plog_lcomm_t *lc;
    uint64_t t_end;
    plog_reqinfo_t info;
} reqent_t;

enum wcat { W_UNMATCHED, W_START_NODEF, W_BADRANK, W_UNKNOWN_COMM, W_UNDEF_COMM, W_UNKNOWN_CALL,
            W_CUT, W_NEWCOMM, W_ORPHAN, W_CANCEL, W_PROCNULL, W__COUNT };

static const char *const wcat_text[W__COUNT] = {
    [W_UNMATCHED] = "request completions or frees matched no open request start",
    [W_START_NODEF] = "Start calls named a handle with no persistent request defined",
    [W_BADRANK] = "ranks could not be translated (outside the communicator, or bad value)",
    [W_UNKNOWN_COMM] = "events used a communicator phasor never saw created",
    [W_UNDEF_COMM] = "events named a communicator id the log does not define",
    [W_UNKNOWN_CALL] = "events have a call id this reader does not know",
    [W_CUT] = "events had their extras cut by the shim (PLOG_F_TRUNCATED)",
    [W_NEWCOMM] = "events created a communicator id the log does not define",
    [W_ORPHAN] = "request starts were never seen completing",
    [W_CANCEL] = "statuses were marked cancelled although no MPI_Cancel named their request "
                 "(mark ignored)",
    [W_PROCNULL] = "statuses of receives from MPI_PROC_NULL were not the empty status MPI "
                   "defines (reported as the empty status)",
};

typedef struct rstream {
    plog_run_t *run;
    const rank_priv_t *rp;
    const plog_rank_t *rk;
    zbufs_t *z;
    tstream_t *ts;
    size_t nts;
    uint32_t *heap;
    size_t nheap;
    tstream_t *pending;   /* returned last time: advance before the next pop */
    int started, done;
    int nolink;           /* PLOG_ITER_NOLINK: no open-request table */
    /* request linking */
    hmap_t open, pers;    /* handle -> entry index + 1 (open: chain head) */
    hmap_t msgs;          /* message handle -> entry index + 1 */
    reqent_t *pool;
    size_t npool, cappool;
    uint32_t freelist;    /* index + 1 */
    uint64_t next_id, next_msg_id;
    uint64_t serial;      /* completion events seen (marks entries named in one event) */
    struct stord { uint64_t index; uint32_t pos; } *ord; /* statuses in index order */
    size_t ordcap;
    const plog_lcomm_t *lc_cache;
    clkpiece_t clk;       /* the stretch of local time aligned last */
    /* record scratch */
    plog_rec_t rec;
    plog_reqinfo_t rinfo;
    plog_rreq_t *hv;
    plog_rstatus_t *sv;
    plog_reqinfo_t *iv;
    size_t hcap, scap, icap;
    uint64_t wcount[W__COUNT];
    char wfirst[W__COUNT][160];
} rstream_t;

static void rs_warn(rstream_t *s, enum wcat c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void rs_warn(rstream_t *s, enum wcat c, const char *fmt, ...)
{
    if (s->wcount[c]++ != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->wfirst[c], sizeof(s->wfirst[c]), fmt, ap);
    va_end(ap);
}

static plog_err_t rs_error(rstream_t *s, plog_err_t code, uint64_t off, plog_error_t *err,
                           const char *what)
{
    return plog_fail(err, code, s->rp->path, (int64_t)off, "%s", what);
}

#define TS_BX_MIN 1024        /* extras words of a batch; grows for events with long lists */
#define TS_BX_MAX (1u << 16)  /* beyond: such events are decoded one by one */

static plog_err_t ts_advance(rstream_t *s, tstream_t *t, plog_error_t *err)
{
    for (;;) {
        if (t->active) {
            if (t->bpos < t->bn) {
                t->head = &t->bev[t->bpos];
                t->headx = t->bx + t->bxoff[t->bpos];
                t->bpos++;
                t->have = 1;
                return PLOG_OK;
            }
            plog_events_dec_t *d = &t->dec;
            if (d->i < d->n && t->bev != NULL) {
                uint32_t got = 0;
                plog_err_t e = plog_events_dec_batch(d, t->bev, PLOG_DEC_BATCH, t->bx, t->bxcap,
                                                     t->bxoff, &got);
                if (e == PLOG_E_TOOBIG && t->bxcap < TS_BX_MAX) {
                    uint64_t *nx = realloc(t->bx, 2 * t->bxcap * sizeof(*nx));
                    if (nx == NULL)
                        return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "extras");
                    t->bx = nx;
                    t->bxcap *= 2;
                    continue;
                }
                t->bn = got;
                t->bpos = 0;
                if (e == PLOG_OK && got > 0)
                    continue;
                /* damage or a huge event: one by one, which says exactly what is wrong */
            }
            if (d->i < d->n) {
                plog_rcur_t peek = d->col[COL_NEXTRA];
                uint64_t k = plog_get_varint(&peek);
                size_t left = (size_t)(d->col[COL_EXTRAS].end - d->col[COL_EXTRAS].p);
                if (!peek.err && k > left) {
                    char what[96];
                    snprintf(what, sizeof(what), "event %u of %u has more extras than its frame",
                             d->i + 1, d->n);
                    return rs_error(s, PLOG_E_CORRUPT, t->frame_off, err, what);
                }
                if (!peek.err && GROW(t->x, t->xcap, (size_t)k) != 0)
                    return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "extras");
            }
            int done = 0;
            plog_err_t e = plog_events_dec_next(d, &t->ev, t->x, t->xcap, &done);
            if (e != PLOG_OK) {
                char what[96];
                snprintf(what, sizeof(what), "EVENTS frame, event %u of %u", d->i + 1, d->n);
                return rs_error(s, e == PLOG_E_TRUNCATED ? PLOG_E_CORRUPT : e, t->frame_off,
                                err, what);
            }
            if (!done) {
                t->head = &t->ev;
                t->headx = t->x;
                t->have = 1;
                return PLOG_OK;
            }
            t->active = 0;
        }
        if (t->next == t->nf) {
            t->have = 0;
            return PLOG_OK;
        }
        if (t->bev == NULL) {
            t->bev = malloc(PLOG_DEC_BATCH * sizeof(*t->bev));
            t->bxoff = malloc((PLOG_DEC_BATCH + 1) * sizeof(*t->bxoff));
            t->bx = malloc(TS_BX_MIN * sizeof(*t->bx));
            if (t->bev == NULL || t->bxoff == NULL || t->bx == NULL) {
                free(t->bev);
                free(t->bxoff);
                free(t->bx);
                t->bev = NULL;
                t->bxoff = NULL;
                t->bx = NULL;
                return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "event batch");
            }
            t->bxcap = TS_BX_MIN;
        }
        const plog_frame_ix_t *fx = &s->rk->frames[t->fidx[t->next++]];
        t->frame_off = fx->offset;
        int fd = open(s->rp->path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return plog_fail(err, PLOG_E_IO, s->rp->path, -1, "%s", strerror(errno));
        plog_err_t e = frame_decompress(fd, s->rp->path, s->rk->hdr.version, fx, s->z, &t->raw,
                                        &t->rawcap, err);
        close(fd);
        if (e != PLOG_OK)
            return e;
        e = plog_events_dec_init(&t->dec, t->raw, fx->raw_len, fx->count, s->rk->hdr.version);
        if (s->nolink) { /* completions are not read: their extras need no decoding */
            t->dec.skip_extras = s->run->call_complete;
            t->dec.skip_n = 65536;
        }
        if (e != PLOG_OK)
            return rs_error(s, e == PLOG_E_TRUNCATED ? PLOG_E_CORRUPT : e, fx->offset, err,
                            "EVENTS frame columns");
        t->active = 1;
    }
}

static int ts_less(const tstream_t *a, const tstream_t *b)
{
    if (a->head->t_start != b->head->t_start)
        return a->head->t_start < b->head->t_start;
    return a->thread < b->thread;
}

static void heap_push_ts(rstream_t *s, uint32_t v)
{
    size_t i = s->nheap++;
    s->heap[i] = v;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ts_less(&s->ts[s->heap[i]], &s->ts[s->heap[p]]))
            break;
        uint32_t t = s->heap[i];
        s->heap[i] = s->heap[p];
        s->heap[p] = t;
        i = p;
    }
}

static uint32_t heap_pop_ts(rstream_t *s)
{
    uint32_t top = s->heap[0];
    s->heap[0] = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && ts_less(&s->ts[s->heap[l]], &s->ts[s->heap[m]]))
            m = l;
        if (r < s->nheap && ts_less(&s->ts[s->heap[r]], &s->ts[s->heap[m]]))
            m = r;
        if (m == i)
            break;
        uint32_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
    return top;
}

static void rs_free(rstream_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->nts; i++) {
        free(s->ts[i].fidx);
        free(s->ts[i].raw);
        free(s->ts[i].x);
        free(s->ts[i].bev);
        free(s->ts[i].bxoff);
        free(s->ts[i].bx);
    }
    free(s->ts);
    free(s->heap);
    hm_free(&s->open);
    hm_free(&s->pers);
    hm_free(&s->msgs);
    free(s->pool);
    free(s->hv);
    free(s->sv);
    free(s->iv);
    free(s->ord);
    free(s);
}

static rstream_t *rs_new(plog_run_t *run, int32_t rank, zbufs_t *z)
{
    rstream_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->run = run;
    s->rp = run->ranks[rank];
    s->rk = &s->rp->pub;
    s->z = z;
    s->next_id = 1;
    s->next_msg_id = 1;
    const plog_rank_t *rk = s->rk;
    /* one stream per thread slot, frames in file order */
    for (size_t i = 0; i < rk->n_frames; i++) {
        const plog_frame_ix_t *fx = &rk->frames[i];
        if (fx->kind != PLOG_FRAME_EVENTS)
            continue;
        tstream_t *t = NULL;
        for (size_t k = 0; k < s->nts && t == NULL; k++)
            if (s->ts[k].thread == fx->thread)
                t = &s->ts[k];
        if (t == NULL) {
            tstream_t *nt = realloc(s->ts, (s->nts + 1) * sizeof(*nt));
            if (nt == NULL)
                goto fail;
            s->ts = nt;
            t = &s->ts[s->nts++];
            memset(t, 0, sizeof(*t));
            t->thread = fx->thread;
        }
        if (GROW(t->fidx, t->fcap, t->nf + 1) != 0)
            goto fail;
        t->fidx[t->nf++] = (uint32_t)i;
    }
    s->heap = malloc((s->nts ? s->nts : 1) * sizeof(*s->heap));
    if (s->heap == NULL)
        goto fail;
    return s;
fail:
    rs_free(s);
    return NULL;
}

/* ---- request table ---- */

static uint32_t pool_new(rstream_t *s)
{
    if (s->freelist != 0) {
        uint32_t i = s->freelist - 1;
        s->freelist = s->pool[i].next;
        return i;
    }
    if (s->npool >= UINT32_MAX - 1 || GROW(s->pool, s->cappool, s->npool + 1) != 0)
        return UINT32_MAX;
    return (uint32_t)s->npool++;
}

static void pool_release(rstream_t *s, uint32_t i)
{
    s->pool[i].next = s->freelist;
    s->freelist = i + 1;
}

/* The open start a completion at time t on thread `thread` refers to. Most handles have one
 * open start at a time, but MPI libraries give one static handle to every request that is
 * complete at once (Open MPI's for operations on MPI_PROC_NULL, or collectives on one
 * rank), so several can be open. Prefer, in order: a start that ended by t (a start ends
 * before the completion that consumes it begins), one started by the completing thread
 * (threads complete their own requests), then for a single-request call (Wait, Test) the
 * most recent, for an array call (fifo: Waitany/all/some..., statuses taken in index
 * order) the earliest posted, as arrays are usually filled in posting order. With none
 * ended by t (clock granularity across threads), the earliest ending. */
static uint32_t open_choose(rstream_t *s, uint64_t handle, uint64_t t, uint16_t thread,
                            int fifo, size_t *slotp)
{
    size_t slot = handle == 0 ? SIZE_MAX : hm_find(&s->open, handle);
    *slotp = slot;
    if (slot == SIZE_MAX)
        return UINT32_MAX;
    uint32_t head = s->open.vals[slot];
    if (s->pool[head - 1].next == 0) { /* one open start: the usual case */
        const reqent_t *q = &s->pool[head - 1];
        return q->picked == s->serial ? UINT32_MAX : head - 1;
    }
    uint32_t best = UINT32_MAX;
    int best_rank = -1;
    for (uint32_t k = head; k != 0; k = s->pool[k - 1].next) {
        const reqent_t *q = &s->pool[k - 1];
        if (q->picked == s->serial) /* already named by this event */
            continue;
        int rank = (q->t_end <= t) * 2 + (q->thread == thread);
        if (best != UINT32_MAX && rank == best_rank) {
            const reqent_t *b = &s->pool[best];
            int better = rank < 2           ? q->t_end < b->t_end
                         : fifo             ? q->info.id < b->info.id
                                            : q->info.id > b->info.id;
            if (!better)
                continue;
        } else if (rank < best_rank) {
            continue;
        }
        best = k - 1;
        best_rank = rank;
    }
    return best;
}

/* Remove entry i from the open chain of its handle, found at slot (SIZE_MAX: look it up;
 * open_choose gives it, valid until the table next changes). */
static void open_close_at(rstream_t *s, uint32_t i, size_t slot)
{
    if (slot == SIZE_MAX)
        slot = hm_find(&s->open, s->pool[i].handle);
    if (slot == SIZE_MAX)
        return;
    uint32_t head = s->open.vals[slot];
    if (head == i + 1 && s->pool[i].next == 0) { /* the handle's only open start */
        pool_release(s, i);
        hm_del_at(&s->open, slot);
        return;
    }
    uint32_t newhead = 0, *link = &newhead;
    for (uint32_t k = head; k != 0;) {
        uint32_t nx = s->pool[k - 1].next;
        if (k - 1 == i) {
            pool_release(s, k - 1);
        } else {
            *link = k;
            link = &s->pool[k - 1].next;
        }
        k = nx;
    }
    *link = 0;
    if (newhead == 0)
        hm_del_at(&s->open, slot);
    else
        s->open.vals[slot] = newhead;
}

static void open_close(rstream_t *s, uint32_t i)
{
    open_close_at(s, i, SIZE_MAX);
}

/* Open starts kept per handle: more means completions are missing from the log (dropped
 * events); the oldest is then given up, so memory stays bounded. */
#define MAX_OPEN_PER_HANDLE 65536

/* A new open start of handle, its info left for the caller to fill (in place: starts are
 * most events); NULL when out of memory. */
static plog_reqinfo_t *open_new(rstream_t *s, uint64_t handle, const plog_lcomm_t *lc,
                                int inter, uint64_t t_end, uint16_t thread)
{
    int found;
    size_t slot = hm_probe(&s->open, handle, &found);
    if (__builtin_expect(!found, 1)) { /* no open start with this handle: one probe */
        uint32_t i = pool_new(s);
        if (i == UINT32_MAX)
            return NULL;
        reqent_t *q = &s->pool[i];
        q->handle = handle;
        q->next = 0;
        q->inter = (uint8_t)inter;
        q->uncertain = q->cancelled = 0;
        q->thread = thread;
        q->picked = 0;
        q->lc = lc;
        q->t_end = t_end;
        return hm_put_at(&s->open, slot, handle, i + 1) == 0 ? &q->info : NULL;
    }
    uint32_t head = 0, n = 0, oldest = UINT32_MAX;
    int moved = 0; /* open_close may have moved or deleted the slot */
    if (slot != SIZE_MAX)
        head = s->open.vals[slot];
    for (uint32_t k = head; k != 0;) {
        uint32_t i = k - 1;
        k = s->pool[i].next;
        if (s->pool[i].uncertain) { /* a failed Wait named it; the library reused its handle */
            s->wcount[W_ORPHAN]++;
            open_close(s, i);
            moved = 1;
            continue;
        }
        n++;
        if (oldest == UINT32_MAX || s->pool[i].info.id < s->pool[oldest].info.id)
            oldest = i;
    }
    if (n >= MAX_OPEN_PER_HANDLE) {
        s->wcount[W_ORPHAN]++;
        open_close(s, oldest);
        moved = 1;
    }
    if (moved)
        slot = hm_find(&s->open, handle);
    head = slot != SIZE_MAX ? s->open.vals[slot] : 0;
    uint32_t i = pool_new(s);
    if (i == UINT32_MAX)
        return NULL;
    s->pool[i] = (reqent_t){handle, head, (uint8_t)inter, 0, 0, thread, 0, lc, t_end, {0}};
    if (slot != SIZE_MAX) {
        s->open.vals[slot] = i + 1;
        return &s->pool[i].info;
    }
    return hm_put(&s->open, handle, i + 1) == 0 ? &s->pool[i].info : NULL;
}

static int open_add(rstream_t *s, uint64_t handle, const plog_reqinfo_t *info,
                    const plog_lcomm_t *lc, int inter, uint64_t t_end, uint16_t thread)
{
    plog_reqinfo_t *q = open_new(s, handle, lc, inter, t_end, thread);
    if (q == NULL)
        return -1;
    *q = *info;
    return 0;
}

static const reqent_t *pers_get(rstream_t *s, uint64_t handle)
{
    uint32_t v = 0;
    if (handle == 0 || !hm_get(&s->pers, handle, &v))
        return NULL;
    return &s->pool[v - 1];
}

static void pers_drop(rstream_t *s, uint64_t handle)
{
    uint32_t v = 0;
    if (handle != 0 && hm_get(&s->pers, handle, &v)) {
        pool_release(s, v - 1);
        hm_del(&s->pers, handle);
    }
}

/* ---- building a record ---- */

static inline int32_t xlate(rstream_t *s, const plog_rec_t *r, const plog_lcomm_t *lc,
                            int inter, int32_t v, const char *what)
{
    int32_t w = lcomm_world(lc, inter, v);
    if (__builtin_expect(w == PLOG_R_BADRANK, 0) && (lc != NULL || r->comm == 0))
        rs_warn(s, W_BADRANK, "thread %u, %s at %lld ns: %s %d in communicator %d of size %u",
                r->thread, r->call_name, (long long)r->start_ns, what, (int)v, (int)r->comm,
                lc ? (inter ? lc->n_remote : lc->n_local) : 0);
    return w;
}

typedef struct parts {
    int has_recvspec, has_newcomm, has_collinfo;
    uint64_t recvspec, newcomm, collinfo[2];
    const uint64_t *handles, *status, *vsend, *vrecv;
    uint32_t nh, ns, nvs, nvr;
} parts_t;

/* Split the extras by the flags (order: RECVSPEC, HANDLES, STATUS, VSEND, VRECV, NEWCOMM,
 * COLLINFO).
 * With PLOG_F_TRUNCATED the shim may have cut lists short; without it every word must be
 * accounted for. */
static int parse_extras(const plog_event_t *ev, const uint64_t *x, parts_t *p)
{
    /* field by field: a memset here compiled to rep stos, slow to start, once per event */
    p->has_recvspec = p->has_newcomm = p->has_collinfo = 0;
    p->handles = p->status = p->vsend = p->vrecv = NULL;
    p->nh = p->ns = p->nvs = p->nvr = 0;
    if (ev->nextra == 0)
        return ev->flags & (PLOG_F_RECVSPEC | PLOG_F_HANDLES | PLOG_F_STATUS | PLOG_F_VSEND |
                            PLOG_F_VRECV | PLOG_F_NEWCOMM | PLOG_F_COLLINFO)
                   ? ((ev->flags & PLOG_F_TRUNCATED) ? 0 : -1)
                   : 0;
    uint32_t n = ev->nextra, i = 0;
    int cut = (ev->flags & PLOG_F_TRUNCATED) != 0;
    uint16_t f = ev->flags;
    if (f & PLOG_F_RECVSPEC) {
        if (i == n)
            return cut ? 0 : -1;
        p->recvspec = x[i++];
        p->has_recvspec = 1;
    }
    static const uint16_t lists[4] = {PLOG_F_HANDLES, PLOG_F_STATUS, PLOG_F_VSEND, PLOG_F_VRECV};
    for (int l = 0; l < 4; l++) {
        if (!(f & lists[l]))
            continue;
        if (i == n)
            return cut ? 0 : -1;
        uint64_t k = x[i++];
        uint64_t per = lists[l] == PLOG_F_STATUS ? PLOG_STATUS_WORDS : 1;
        if (k > (n - i) / per) {
            if (!cut)
                return -1;
            k = (n - i) / per;
        }
        const uint64_t *base = x + i;
        i += (uint32_t)(k * per);
        switch (lists[l]) {
        case PLOG_F_HANDLES: p->handles = base; p->nh = (uint32_t)k; break;
        case PLOG_F_STATUS: p->status = base; p->ns = (uint32_t)k; break;
        case PLOG_F_VSEND: p->vsend = base; p->nvs = (uint32_t)k; break;
        default: p->vrecv = base; p->nvr = (uint32_t)k; break;
        }
    }
    if (f & PLOG_F_NEWCOMM) {
        if (i == n)
            return cut ? 0 : -1;
        p->newcomm = x[i++];
        p->has_newcomm = 1;
    }
    if (f & PLOG_F_COLLINFO) {
        if (n - i < 2)
            return cut ? 0 : -1;
        p->collinfo[0] = x[i++];
        p->collinfo[1] = x[i++];
        p->has_collinfo = 1;
    }
    return i == n ? 0 : -1;
}

static void info_from_rec(const plog_rec_t *r, uint64_t id, plog_reqinfo_t *inf)
{
    /* one assignment (padding included), often into a reused table entry */
    *inf = (plog_reqinfo_t){.id = id, .def_id = 0, .call = r->call, .cls = (uint16_t)r->cls,
                            .comm = r->comm, .peer = r->peer, .tag = r->tag, .root = r->root,
                            .bytes = r->bytes, .rbytes = r->rbytes, .start_ns = r->start_ns,
                            .end_ns = r->end_ns};
}

/* A Start of persistent handle h: a new instance; returns its id (0: no definition). */
static uint64_t start_instance(rstream_t *s, const plog_rec_t *r, uint64_t h, uint64_t t_end,
                               uint16_t thread, plog_reqinfo_t *out)
{
    const reqent_t *def = pers_get(s, h);
    if (def == NULL) {
        rs_warn(s, W_START_NODEF, "thread %u, %s at %lld ns, handle 0x%llx", r->thread,
                r->call_name, (long long)r->start_ns, (unsigned long long)h);
        return 0;
    }
    plog_reqinfo_t inf = def->info;
    inf.def_id = def->info.id;
    inf.id = s->next_id++;
    inf.start_ns = r->start_ns;
    inf.end_ns = r->end_ns;
    const plog_lcomm_t *lc = def->lc;
    int inter = def->inter;
    if (!s->nolink && open_add(s, h, &inf, lc, inter, t_end, thread) != 0)
        return 0;
    *out = inf;
    return inf.id;
}

/* Message handles (MPI_Message) from Mprobe/Improbe, until Mrecv/Imrecv consumes them. */
static int msg_put(rstream_t *s, uint64_t h, const plog_lcomm_t *lc, int inter, uint64_t id)
{
    uint32_t v = 0;
    uint32_t i;
    if (hm_get(&s->msgs, h, &v)) { /* its receive was not seen: the handle was recycled */
        i = v - 1;
    } else {
        if ((i = pool_new(s)) == UINT32_MAX || hm_put(&s->msgs, h, i + 1) != 0)
            return -1;
    }
    memset(&s->pool[i], 0, sizeof(s->pool[i]));
    s->pool[i].handle = h;
    s->pool[i].lc = lc;
    s->pool[i].inter = (uint8_t)inter;
    s->pool[i].info.id = id;
    return 0;
}

static int msg_take(rstream_t *s, uint64_t h, uint64_t *id, const plog_lcomm_t **lc, int *inter)
{
    uint32_t v = 0;
    if (!hm_get(&s->msgs, h, &v))
        return 0;
    *id = s->pool[v - 1].info.id;
    *lc = s->pool[v - 1].lc;
    *inter = s->pool[v - 1].inter;
    pool_release(s, v - 1);
    hm_del(&s->msgs, h);
    return 1;
}

static int cmp_stord(const void *a, const void *b)
{
    const struct stord *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* For an event with several statuses: their positions in index order (s->ord). */
static int order_statuses(rstream_t *s, const parts_t *p)
{
    if (p->ns <= 1)
        return 0;
    if (GROW(s->ord, s->ordcap, p->ns) != 0)
        return -1;
    for (uint32_t i = 0; i < p->ns; i++)
        s->ord[i] = (struct stord){p->status[(size_t)i * PLOG_STATUS_WORDS + 3], i};
    if (p->ns > 16) {
        qsort(s->ord, p->ns, sizeof(*s->ord), cmp_stord);
        return 0;
    }
    /* a few statuses (the usual Waitall), mostly in order already: qsort's call overhead
     * showed in profiles; the keys are distinct, so any sort gives the same order */
    for (uint32_t i = 1; i < p->ns; i++) {
        struct stord v = s->ord[i];
        uint32_t j = i;
        for (; j > 0 && cmp_stord(&s->ord[j - 1], &v) > 0; j--)
            s->ord[j] = s->ord[j - 1];
        s->ord[j] = v;
    }
    return 0;
}

/* Decode a status entry's words (source left to the caller, which knows the communicator). */
static int32_t status_fill(plog_rstatus_t *st, const uint64_t *w)
{
    memset(st, 0, sizeof(*st)); /* padding too: consumers may hash or compare statuses */
    st->handle = w[0];
    st->tag = (int32_t)(uint32_t)w[1];
    st->cancelled = (w[2] & PLOG_STATUS_CANCELLED) != 0;
    uint64_t b = w[2] & ~PLOG_STATUS_CANCELLED;
    st->bytes = b == PLOG_BYTES_UNKNOWN ? PLOG_BYTES_UNKNOWN : b;
    st->index = w[3];
    return (int32_t)(uint32_t)(w[1] >> 32);
}

static int is_recv_class(int cls)
{
    return cls == PLOG_CLASS_IRECV || cls == PLOG_CLASS_PRECV_INIT || cls == PLOG_CLASS_RECV ||
           cls == PLOG_CLASS_SENDRECV || cls == PLOG_CLASS_PROBE;
}

/* The record of t's head event ev, with its extras x (passed, not read back from t: the
 * short path of plog_iter_next has them in registers) */
static plog_err_t build_rec(rstream_t *s, tstream_t *t, const plog_event_t *ev,
                            const uint64_t *x, plog_error_t *err)
{
    plog_run_t *run = s->run;
    plog_rec_t *r = &s->rec;
    uint8_t cinfo = run->call_cls[ev->call];
    uint8_t cflags = run->call_flags[ev->call];
    /* every field assigned, no memset: zero-filling the ~220-byte record per event
     * (rep stos) was the reader's largest single cost */
    r->rank = s->rk->rank;
    r->thread = t->thread;
    r->call = ev->call;
    r->call_name = cinfo ? run->call_name[ev->call] : "unknown";
    r->cls = cinfo ? cinfo - 1 : PLOG_CLASS_OTHER;
    r->flags = ev->flags;
    if ((ev->t_start | ev->t_end) >> 62) /* 146 years of CLOCK_MONOTONIC; doc/log-format.md */
        return rs_error(s, PLOG_E_CORRUPT, t->frame_off, err, "an event time past 2^62 ns");
    if (ev->t_end < ev->t_start) /* one monotonic clock read twice */
        return rs_error(s, PLOG_E_CORRUPT, t->frame_off, err, "an event that ends before it starts");
    clock_align2(&s->rk->clock, run->time_ref, &s->clk, ev->t_start, ev->t_end, &r->start_ns,
                 &r->end_ns);
    r->t_start = ev->t_start;
    r->t_end = ev->t_end;
    r->local_comm = ev->comm;
    r->tag = ev->tag;
    r->bytes = ev->bytes;
    r->rbytes = ev->rbytes;
    r->rc = ev->rc;
    r->callsite = ev->callsite;
    r->handle = ev->request;
    r->request = 0;
    r->req = NULL;
    r->message = 0;
    r->frame_offset = t->frame_off;
    /* comm, lcomm, peer, root, recv_*, newcomm and the lists: below, each stored once */
    if (!cinfo)
        rs_warn(s, W_UNKNOWN_CALL, "thread %u, call id %u at %lld ns", t->thread, ev->call,
                (long long)r->start_ns);
    if (ev->flags & PLOG_F_TRUNCATED)
        rs_warn(s, W_CUT, "thread %u, %s at %lld ns", t->thread, r->call_name,
                (long long)r->start_ns);

    parts_t p;
    if (s->nolink && r->cls == PLOG_CLASS_COMPLETE) {
        p = (parts_t){0}; /* not read: the decoder may have stepped over them */
    } else if (parse_extras(ev, x, &p) != 0) {
        char what[128];
        snprintf(what, sizeof(what), "thread %u, %s at %lld ns: %u extra words do not match "
                 "flags 0x%x", t->thread, r->call_name, (long long)r->start_ns, ev->nextra,
                 ev->flags);
        return rs_error(s, PLOG_E_CORRUPT, t->frame_off, err, what);
    }

    /* communicator and ranks */
    const plog_lcomm_t *lc = NULL;
    if (ev->comm == PLOG_COMM_NONE) {
        r->comm = 0;
    } else if (ev->comm == PLOG_COMM_UNKNOWN) {
        r->comm = PLOG_R_COMM_UNKNOWN;
        rs_warn(s, W_UNKNOWN_COMM, "thread %u, %s at %lld ns", t->thread, r->call_name,
                (long long)r->start_ns);
    } else {
        lc = s->lc_cache != NULL && s->lc_cache->local_id == ev->comm
                 ? s->lc_cache
                 : plog_rank_comm(s->rk, ev->comm);
        if (lc == NULL) {
            r->comm = PLOG_R_COMM_UNKNOWN;
            rs_warn(s, W_UNDEF_COMM, "thread %u, %s at %lld ns, communicator id %u", t->thread,
                    r->call_name, (long long)r->start_ns, ev->comm);
        } else {
            r->comm = lc->gid;
            s->lc_cache = lc;
        }
    }
    int inter = (ev->flags & PLOG_F_INTER) != 0;
    /* matched probes: Mprobe/Improbe name a message handle, Mrecv/Imrecv (which have no
     * communicator argument) consume it; the message carries its communicator across */
    if ((ev->flags & PLOG_F_MESSAGE) && p.nh >= 1 && p.handles[0] != 0) {
        if (r->cls == PLOG_CLASS_PROBE) {
            r->message = s->next_msg_id++;
            if (msg_put(s, p.handles[0], lc, inter, r->message) != 0)
                return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "message table");
        } else {
            const plog_lcomm_t *mlc;
            int minter;
            if (msg_take(s, p.handles[0], &r->message, &mlc, &minter) &&
                ev->comm == PLOG_COMM_NONE && mlc != NULL) {
                lc = mlc;
                inter = minter;
                r->comm = lc->gid;
            }
        }
    }
    r->lcomm = lc;
    r->peer = xlate(s, r, lc, inter, ev->peer, "peer");
    r->root = xlate(s, r, lc, inter, ev->root, "root");

    if (p.has_recvspec) {
        r->recv_source = xlate(s, r, lc, inter, (int32_t)(uint32_t)(p.recvspec >> 32),
                               "posted source");
        r->recv_tag = (int32_t)(uint32_t)p.recvspec;
    } else {
        r->recv_source = r->recv_tag = PLOG_NONE;
    }
    r->newcomm = 0;
    if (ev->flags & PLOG_F_NEWCOMM) {
        r->newcomm = PLOG_R_COMM_UNKNOWN;
        if (p.has_newcomm && p.newcomm == PLOG_COMM_NONE) {
            r->newcomm = 0;
        } else if (p.has_newcomm) {
            const plog_lcomm_t *nc =
                p.newcomm <= UINT32_MAX ? plog_rank_comm(s->rk, (uint32_t)p.newcomm) : NULL;
            if (nc != NULL)
                r->newcomm = nc->gid;
            else
                rs_warn(s, W_NEWCOMM, "thread %u, %s at %lld ns, communicator id %llu",
                        t->thread, r->call_name, (long long)r->start_ns,
                        (unsigned long long)p.newcomm);
        }
    }
    r->n_vsend = p.nvs;
    r->vsend = p.vsend;
    r->n_vrecv = p.nvr;
    r->vrecv = p.vrecv;
    if (p.has_collinfo) {
        r->stype_size = (uint32_t)p.collinfo[0];
        r->rtype_size = (uint32_t)(p.collinfo[0] >> 32);
        r->op = (uint16_t)(p.collinfo[1] & 0xff);
        r->op_commutative = (p.collinfo[1] & PLOG_OP_COMMUTATIVE) != 0;
    } else {
        r->stype_size = r->rtype_size = 0;
        r->op = 0;
        r->op_commutative = 0;
    }

    /* scratch for handles, statuses and the starts they link to */
    if (__builtin_expect((p.nh | p.ns) != 0 || s->iv == NULL, 0) && /* else room for 1 */
        ((size_t)p.nh + 1 > s->hcap || (size_t)p.ns + 1 > s->scap ||
         (size_t)p.nh + p.ns + 1 > s->icap) &&
        (GROW(s->hv, s->hcap, (size_t)p.nh + 1) != 0 ||
         GROW(s->sv, s->scap, (size_t)p.ns + 1) != 0 ||
         GROW(s->iv, s->icap, (size_t)p.nh + p.ns + 1) != 0))
        return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "request scratch");
    size_t ni = 0;
    r->n_handles = p.nh;
    r->handles = s->hv;
    r->n_status = p.ns;
    r->status = s->sv;
    for (uint32_t i = 0; i < p.nh; i++)
        s->hv[i] = (plog_rreq_t){p.handles[i], 0, NULL};

    /* request linking, in this rank's time order */
    switch (r->cls) {
    case PLOG_CLASS_PSEND_INIT:
    case PLOG_CLASS_PRECV_INIT:
        if (ev->request != 0) {
            pers_drop(s, ev->request); /* an unseen Request_free freed the old one */
            info_from_rec(r, s->next_id++, &s->rinfo);
            uint32_t i = pool_new(s);
            if (i == UINT32_MAX || hm_put(&s->pers, ev->request, i + 1) != 0)
                return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "request table");
            s->pool[i] = (reqent_t){ev->request, 0, (uint8_t)inter, 0, 0, t->thread, 0, lc,
                                    ev->t_end, s->rinfo};
            r->request = s->rinfo.id;
            r->req = &s->rinfo;
        }
        break;
    case PLOG_CLASS_START:
        if (p.nh > 0) {
            for (uint32_t i = 0; i < p.nh; i++) {
                if (p.handles[i] == 0)
                    continue;
                uint64_t id = start_instance(s, r, p.handles[i], ev->t_end, t->thread, &s->iv[ni]);
                if (id != 0) {
                    s->hv[i].id = id;
                    s->hv[i].start = &s->iv[ni++];
                }
            }
        } else if (ev->request != 0) {
            uint64_t id = start_instance(s, r, ev->request, ev->t_end, t->thread, &s->rinfo);
            if (id != 0) {
                r->request = id;
                r->req = &s->rinfo;
            }
        }
        break;
    case PLOG_CLASS_REQFREE: {
        /* Request_free ends the request (and a persistent definition); Cancel only names it */
        if (ev->request == 0)
            break;
        if (s->nolink) { /* only persistent definitions are kept */
            const reqent_t *def = pers_get(s, ev->request);
            if (def != NULL) {
                s->rinfo = def->info;
                r->request = s->rinfo.id;
                r->req = &s->rinfo;
                if (!(cflags & CALLF_CANCEL))
                    pers_drop(s, ev->request);
            }
            break;
        }
        size_t qslot;
        uint32_t q = open_choose(s, ev->request, ev->t_start, t->thread, 0, &qslot);
        const reqent_t *def = pers_get(s, ev->request);
        if (q != UINT32_MAX || def != NULL) {
            s->rinfo = q != UINT32_MAX ? s->pool[q].info : def->info;
            r->request = s->rinfo.id;
            r->req = &s->rinfo;
        } else {
            rs_warn(s, W_UNMATCHED, "thread %u, %s at %lld ns, handle 0x%llx", t->thread,
                    r->call_name, (long long)r->start_ns, (unsigned long long)ev->request);
        }
        if (cflags & CALLF_CANCEL) {
            if (q != UINT32_MAX)
                s->pool[q].cancelled = 1;
        } else {
            if (q != UINT32_MAX)
                open_close_at(s, q, qslot);
            pers_drop(s, ev->request);
        }
        break;
    }
    case PLOG_CLASS_COMPLETE: {
        if (s->nolink) { /* the handles as recorded; statuses need their starts' communicators */
            r->n_status = 0;
            break;
        }
        /* The inputs (a failed Waitall's array, Wait's request): named, not closed; each
         * position its own start even when a handle repeats. After a failure the library
         * may have ended them anyway: they become uncertain (see open_add). */
        s->serial++;
        for (uint32_t i = 0; i < p.nh; i++) {
            size_t slot;
            uint32_t q = open_choose(s, p.handles[i], ev->t_start, t->thread, 1, &slot);
            if (q != UINT32_MAX) {
                s->pool[q].picked = s->serial;
                s->pool[q].uncertain |= ev->rc != 0;
                s->hv[i].id = s->pool[q].info.id;
                s->hv[i].start = &s->pool[q].info; /* completions add no entries: stays */
            }
        }
        size_t qslot;
        uint32_t q = open_choose(s, ev->request, ev->t_start, t->thread, 0, &qslot);
        if (q != UINT32_MAX) {
            s->pool[q].uncertain |= ev->rc != 0;
            r->request = s->pool[q].info.id;
            r->req = &s->pool[q].info;
        }
        /* Each status names the request it completed (a lone status of a single-request
         * call may leave the handle 0: it is the call's request). Taken in index order; the
         * array calls take starts sharing a handle in posting order (see open_choose). */
        s->serial++;
        if (order_statuses(s, &p) != 0)
            return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "status scratch");
        for (uint32_t j = 0; j < p.ns; j++) {
            uint32_t i = p.ns > 1 ? s->ord[j].pos : j;
            const uint64_t *w = p.status + (size_t)i * PLOG_STATUS_WORDS;
            plog_rstatus_t *st = &s->sv[i];
            int32_t src = status_fill(st, w);
            if (st->handle == 0 && p.ns == 1)
                st->handle = ev->request;
            size_t kslot;
            uint32_t k = open_choose(s, st->handle, ev->t_start, t->thread,
                                     (cflags & CALLF_ARRAY) != 0, &kslot);
            if (k == UINT32_MAX) {
                st->source = lcomm_world(NULL, 0, src); /* specials pass, else bad */
                if (st->handle != 0 && pers_get(s, st->handle) == NULL)
                    rs_warn(s, W_UNMATCHED, "thread %u, %s at %lld ns, handle 0x%llx",
                            t->thread, r->call_name, (long long)r->start_ns,
                            (unsigned long long)st->handle);
                continue;
            }
            reqent_t *q2 = &s->pool[k];
            st->start = &q2->info; /* closed entries keep their info until reused */
            st->request = q2->info.id;
            if (st->cancelled && !q2->cancelled) {
                rs_warn(s, W_CANCEL, "thread %u, %s at %lld ns, request %llu", t->thread,
                        r->call_name, (long long)r->start_ns,
                        (unsigned long long)q2->info.id);
                st->cancelled = 0; /* only MPI_Cancel can cancel */
            }
            if (is_recv_class(q2->info.cls) && q2->info.peer == PLOG_PROC_NULL) {
                if (src != PLOG_PROC_NULL || st->tag != PLOG_ANY_TAG || st->bytes != 0)
                    rs_warn(s, W_PROCNULL, "thread %u, %s at %lld ns, request %llu: %d:%d:%llu",
                            t->thread, r->call_name, (long long)r->start_ns,
                            (unsigned long long)q2->info.id, (int)src, (int)st->tag,
                            (unsigned long long)st->bytes);
                st->source = PLOG_PROC_NULL; /* MPI 3.1 sec. 3.11: the empty status */
                st->tag = PLOG_ANY_TAG;
                st->bytes = 0;
            } else if (is_recv_class(q2->info.cls)) {
                st->source = xlate(s, r, q2->lc, q2->inter, src, "status source");
            } else { /* MPI leaves a send's or a collective's status undefined */
                st->source = PLOG_NONE;
                st->tag = PLOG_NONE;
                st->bytes = PLOG_BYTES_UNKNOWN;
            }
            if (!(cflags & CALLF_GETSTATUS))
                open_close_at(s, k, kslot);
            else
                q2->picked = s->serial;
        }
        /* (after an error MPI may have completed some requests and not others: leave them) */
        int completes = ev->rc == 0 && !(cflags & CALLF_GETSTATUS) &&
                        (!(cflags & CALLF_TEST) || (ev->flags & PLOG_F_FLAG_TRUE));
        if (!(ev->flags & PLOG_F_STATUS) && completes) {
            /* no statuses recorded: Wait/Test closes its request, Waitall/Testall all */
            if (q != UINT32_MAX)
                open_close(s, q);
            else if (ev->request != 0 && pers_get(s, ev->request) == NULL)
                rs_warn(s, W_UNMATCHED, "thread %u, %s at %lld ns, handle 0x%llx", t->thread,
                        r->call_name, (long long)r->start_ns, (unsigned long long)ev->request);
            if (cflags & CALLF_ALL)
                for (uint32_t i = 0; i < p.nh; i++) {
                    size_t kslot;
                    uint32_t k = open_choose(s, p.handles[i], ev->t_start, t->thread, 1,
                                             &kslot);
                    if (k != UINT32_MAX)
                        open_close_at(s, k, kslot);
                }
        }
        if (r->request == 0) { /* Waitany/Testany: the one completed */
            const plog_rstatus_t *only = NULL;
            int n = 0;
            for (uint32_t i = 0; i < p.ns; i++)
                if (s->sv[i].request != 0) {
                    only = &s->sv[i];
                    n++;
                }
            if (n == 1) {
                r->request = only->request;
                r->req = only->start;
            }
        }
        break;
    }
    default: /* Isend, Irecv, Ibcast..., and any other call that made a request (Comm_idup) */
        if (ev->request != 0 && s->nolink) {
            r->request = s->next_id++; /* numbered as when linking, no table entry */
        } else if (ev->request != 0) {
            /* filled in the table, pointed to from there (no copy): the table changes
             * next in this stream's next event, as the record's pointers may */
            plog_reqinfo_t *inf = open_new(s, ev->request, lc, inter, ev->t_end, t->thread);
            if (inf == NULL)
                return rs_error(s, PLOG_E_NOMEM, t->frame_off, err, "request table");
            info_from_rec(r, s->next_id++, inf);
            r->request = inf->id;
            r->req = inf;
        }
        break;
    }

    /* statuses of blocking receives and probes: source is a rank in the event's comm */
    if (r->cls != PLOG_CLASS_COMPLETE) {
        for (uint32_t i = 0; i < p.ns; i++) {
            plog_rstatus_t *st = &s->sv[i];
            int32_t src = status_fill(st, p.status + (size_t)i * PLOG_STATUS_WORDS);
            st->source = xlate(s, r, lc, inter, src, "status source");
            if (st->cancelled) { /* no request: nothing to cancel */
                rs_warn(s, W_CANCEL, "thread %u, %s at %lld ns", t->thread, r->call_name,
                        (long long)r->start_ns);
                st->cancelled = 0;
            }
        }
    }
    return PLOG_OK;
}

static plog_err_t rs_next(rstream_t *s, const plog_rec_t **rec, plog_error_t *err)
{
    *rec = NULL;
    if (!s->started) {
        s->started = 1;
        for (size_t i = 0; i < s->nts; i++) {
            plog_err_t e = ts_advance(s, &s->ts[i], err);
            if (e != PLOG_OK)
                return e;
            if (s->ts[i].have)
                heap_push_ts(s, (uint32_t)i);
        }
    } else if (s->pending != NULL) {
        tstream_t *t = s->pending;
        s->pending = NULL;
        if (t->active && t->bpos < t->bn) { /* ts_advance's common case, inline */
            t->head = &t->bev[t->bpos];
            t->headx = t->bx + t->bxoff[t->bpos];
            t->bpos++;
        } else {
            plog_err_t e = ts_advance(s, t, err);
            if (e != PLOG_OK)
                return e;
        }
        if (t->have) {
            if (s->nheap == 0) { /* the only thread with events left (often the only one) */
                s->pending = t;
                plog_err_t e = build_rec(s, t, t->head, t->headx, err);
                if (e != PLOG_OK)
                    return e;
                *rec = &s->rec;
                return PLOG_OK;
            }
            heap_push_ts(s, (uint32_t)(t - s->ts));
        }
    }
    if (s->nheap == 0) {
        s->done = 1;
        return PLOG_OK;
    }
    tstream_t *t = &s->ts[heap_pop_ts(s)];
    s->pending = t;
    plog_err_t e = build_rec(s, t, t->head, t->headx, err);
    if (e != PLOG_OK)
        return e;
    *rec = &s->rec;
    return PLOG_OK;
}

/* Fold a stream's warning counters into the run. Starts still open when a complete log
 * has been read to its end never completed as far as the log can tell. */
static void rs_report(rstream_t *s)
{
    if (s->done && s->rk->complete)
        for (size_t i = 0; i < s->open.cap; i++)
            if (s->open.keys[i] != 0)
                for (uint32_t k = s->open.vals[i]; k != 0; k = s->pool[k - 1].next)
                    s->wcount[W_ORPHAN]++;
    for (int c = 0; c < W__COUNT; c++) {
        if (s->wcount[c] == 0)
            continue;
        if (s->wfirst[c][0] != '\0')
            warn_add(s->run, "%s: %llu %s (first: %s)", s->rp->path,
                     (unsigned long long)s->wcount[c], wcat_text[c], s->wfirst[c]);
        else
            warn_add(s->run, "%s: %llu %s", s->rp->path, (unsigned long long)s->wcount[c],
                     wcat_text[c]);
    }
}

/* ==== iterators ========================================================================== */

struct plog_iter {
    plog_run_t *run;
    zbufs_t z;            /* one decompression context for all the ranks read */
    rstream_t **rs;
    const plog_rec_t **cur;
    size_t nrs;
    uint32_t *heap;
    size_t nheap;
    int started;
    ssize_t pending;      /* stream returned last, -1 none */
    plog_err_t sticky;
    plog_error_t saved;
};

static int it_less(const plog_iter_t *it, uint32_t a, uint32_t b)
{
    const plog_rec_t *x = it->cur[a], *y = it->cur[b];
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns;
    return x->rank < y->rank;
}

static void it_push(plog_iter_t *it, uint32_t v)
{
    size_t i = it->nheap++;
    it->heap[i] = v;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!it_less(it, it->heap[i], it->heap[p]))
            break;
        uint32_t t = it->heap[i];
        it->heap[i] = it->heap[p];
        it->heap[p] = t;
        i = p;
    }
}

static uint32_t it_pop(plog_iter_t *it)
{
    uint32_t top = it->heap[0];
    it->heap[0] = it->heap[--it->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < it->nheap && it_less(it, it->heap[l], it->heap[m]))
            m = l;
        if (r < it->nheap && it_less(it, it->heap[r], it->heap[m]))
            m = r;
        if (m == i)
            break;
        uint32_t t = it->heap[i];
        it->heap[i] = it->heap[m];
        it->heap[m] = t;
        i = m;
    }
    return top;
}

void plog_iter_close(plog_iter_t *it)
{
    if (it == NULL)
        return;
    for (size_t i = 0; i < it->nrs; i++) {
        if (it->rs[i] != NULL)
            rs_report(it->rs[i]);
        rs_free(it->rs[i]);
    }
    free(it->rs);
    free(it->cur);
    free(it->heap);
    ZSTD_freeDCtx(it->z.dctx);
    free(it->z.cbuf);
    free(it);
}

plog_err_t plog_iter_open(plog_run_t *run, int32_t rank, plog_iter_t **out, plog_error_t *err)
{
    return plog_iter_open_opts(run, rank, 0, out, err);
}

plog_err_t plog_iter_open_opts(plog_run_t *run, int32_t rank, unsigned opts, plog_iter_t **out,
                               plog_error_t *err)
{
    *out = NULL;
    if (opts & ~(unsigned)PLOG_ITER_NOLINK)
        return plog_fail(err, PLOG_E_USAGE, run->path, -1, "unknown iterator options 0x%x", opts);
    if (rank != PLOG_ALL_RANKS && plog_run_rank(run, rank) == NULL)
        return plog_fail(err, PLOG_E_USAGE, run->path, -1, "rank %d is not in this log", (int)rank);
    plog_iter_t *it = calloc(1, sizeof(*it));
    size_t n = rank == PLOG_ALL_RANKS ? (size_t)run->n_loaded : 1;
    if (it == NULL || (it->rs = calloc(n, sizeof(*it->rs))) == NULL ||
        (it->cur = calloc(n, sizeof(*it->cur))) == NULL ||
        (it->heap = calloc(n, sizeof(*it->heap))) == NULL) {
        plog_iter_close(it);
        return plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
    }
    it->run = run;
    it->pending = -1;
    for (int32_t r = 0; r < run->world_size; r++) {
        if (run->ranks[r] == NULL || (rank != PLOG_ALL_RANKS && r != rank))
            continue;
        if ((it->rs[it->nrs] = rs_new(run, r, &it->z)) == NULL) {
            plog_iter_close(it);
            return plog_fail(err, PLOG_E_NOMEM, run->path, -1, NULL);
        }
        it->rs[it->nrs]->nolink = (opts & PLOG_ITER_NOLINK) != 0;
        it->nrs++;
    }
    *out = it;
    return PLOG_OK;
}

static plog_err_t iter_next_slow(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err);

plog_err_t plog_iter_next(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err)
{
    /* The common case, in one step: the stream returned last has more decoded events and
     * nothing to merge with (one rank, one thread with events left). The same as the
     * general path (rs_next's pending branch), without its layers; kept apart from them so
     * that this path saves no registers it does not use. */
    if (__builtin_expect(it->pending >= 0 && it->nheap == 0 && err != NULL, 1)) {
        rstream_t *s = it->rs[it->pending];
        tstream_t *t = s->pending;
        if (__builtin_expect(t != NULL && s->nheap == 0 && t->active && t->bpos < t->bn, 1)) {
            const plog_event_t *ev = &t->bev[t->bpos];
            const uint64_t *x = t->bx + t->bxoff[t->bpos];
            t->head = ev;
            t->headx = x;
            t->bpos++;
            plog_err_t e = build_rec(s, t, ev, x, err);
            if (__builtin_expect(e == PLOG_OK, 1)) {
                *rec = &s->rec;
                return PLOG_OK;
            }
            *rec = NULL;
            it->pending = -1;
            it->sticky = e;
            it->saved = *err;
            return e;
        }
    }
    return iter_next_slow(it, rec, err);
}

static plog_err_t __attribute__((noinline))
iter_next_slow(plog_iter_t *it, const plog_rec_t **rec, plog_error_t *err)
{
    *rec = NULL;
    if (it->sticky != PLOG_OK) {
        if (err != NULL)
            *err = it->saved;
        return it->sticky;
    }
    plog_error_t local;
    plog_error_t *e_out = err != NULL ? err : &local;
    plog_err_t e = PLOG_OK;
    if (!it->started) {
        it->started = 1;
        for (size_t i = 0; i < it->nrs && e == PLOG_OK; i++) {
            e = rs_next(it->rs[i], &it->cur[i], e_out);
            if (e == PLOG_OK && it->cur[i] != NULL)
                it_push(it, (uint32_t)i);
        }
    } else if (it->pending >= 0) {
        size_t i = (size_t)it->pending;
        it->pending = -1;
        e = rs_next(it->rs[i], &it->cur[i], e_out);
        if (e == PLOG_OK && it->cur[i] != NULL) {
            if (it->nheap == 0) { /* one rank (or the last one): nothing to merge */
                it->pending = (ssize_t)i;
                *rec = it->cur[i];
                return PLOG_OK;
            }
            it_push(it, (uint32_t)i);
        }
    }
    if (e != PLOG_OK) {
        it->sticky = e;
        it->saved = *e_out;
        return e;
    }
    if (it->nheap == 0)
        return PLOG_OK;
    uint32_t i = it_pop(it);
    it->pending = i;
    *rec = it->cur[i];
    return PLOG_OK;
}
