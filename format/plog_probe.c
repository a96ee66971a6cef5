/* plog_probe.c: encode/decode of the PROBE payload (see plog_probe.h). Pure: no I/O. */
#include "plog_probe.h"
#include "pstat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_f64(plog_wcur_t *w, double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    plog_put_bytes(w, b, 8);
}

static uint64_t get_u64(plog_rcur_t *r)
{
    if (r->err)
        return 0;
    if (r->end - r->p < 8) {
        r->err = PLOG_E_TRUNCATED;
        return 0;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return u;
}

static double get_f64(plog_rcur_t *r)
{
    uint64_t u = get_u64(r);
    double x;
    memcpy(&x, &u, 8);
    return x;
}

static void put_u64(plog_wcur_t *w, uint64_t u)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    plog_put_bytes(w, b, 8);
}

void plog_probe_encode(plog_wcur_t *w, const plog_probe_info_t *info,
                       const plog_probe_when_t *when, const plog_probe_entry_t *e, size_t n)
{
    static const plog_probe_when_t at_init = {0, PLOG_PROBE_AT_INIT, 0, 0};
    if (!when)
        when = &at_init;
    plog_put_varint(w, info->mode);
    plog_put_varint(w, info->nsizes);
    for (unsigned i = 0; i < info->nsizes; i++)
        plog_put_varint(w, info->sizes[i]);
    plog_put_varint(w, info->reps);
    plog_put_varint(w, info->rounds);
    put_f64(w, info->elapsed_s);
    put_u64(w, info->seed);
    plog_put_varint(w, when->seq);
    plog_put_varint(w, when->trigger);
    put_u64(w, when->t_start_ns);
    put_u64(w, when->t_end_ns);
    for (size_t k = 0; k < n; k++) {
        plog_put_varint(w, (uint64_t)e[k].src);
        plog_put_varint(w, (uint64_t)((int64_t)e[k].dst + 1));
        plog_put_varint(w, e[k].size_idx);
        plog_put_varint(w, e[k].way);
        plog_put_varint(w, e[k].q.n);
        const double *q = &e[k].q.min;
        for (int i = 0; i < 8; i++)
            put_f64(w, q[i]);
    }
}

plog_err_t plog_probe_get_info(plog_rcur_t *r, uint32_t version, plog_probe_info_t *out,
                               plog_probe_when_t *when)
{
    plog_probe_when_t w = {0, PLOG_PROBE_AT_INIT, 0, 0};
    if (when)
        *when = w;
    memset(out, 0, sizeof(*out));
    out->version = version;
    out->mode = (unsigned)plog_get_varint(r);
    out->nsizes = (unsigned)plog_get_varint_max(r, PLOG_PROBE_MAXSIZES);
    if (r->err)
        return r->err;
    if ((out->mode != PLOG_PROBE_QUICK && out->mode != PLOG_PROBE_FULL) || out->nsizes == 0)
        return PLOG_E_CORRUPT;
    for (unsigned i = 0; i < out->nsizes; i++) {
        out->sizes[i] = plog_get_varint(r);
        if (!r->err && i > 0 && out->sizes[i] <= out->sizes[i - 1])
            return PLOG_E_CORRUPT;
    }
    out->reps = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
    out->rounds = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
    out->elapsed_s = get_f64(r);
    out->seed = get_u64(r);
    if (version >= 10) {
        w.seq = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
        w.trigger = (uint32_t)plog_get_varint_max(r, PLOG_PROBE_TRIGGER_MAX);
        w.t_start_ns = get_u64(r);
        w.t_end_ns = get_u64(r);
    }
    if (r->err)
        return r->err;
    if (!isfinite(out->elapsed_s) || out->elapsed_s < 0)
        return PLOG_E_CORRUPT;
    /* the probe at MPI_Init is seq 0 and only it; a probe ends after it starts */
    if ((w.seq == 0) != (w.trigger == PLOG_PROBE_AT_INIT) || w.t_end_ns < w.t_start_ns)
        return PLOG_E_CORRUPT;
    if (when)
        *when = w;
    return PLOG_OK;
}

plog_err_t plog_probe_get_entry(plog_rcur_t *r, const plog_probe_info_t *info, int32_t world,
                                plog_probe_entry_t *out)
{
    memset(out, 0, sizeof(*out));
    uint64_t src = plog_get_varint(r), dst1 = plog_get_varint(r);
    out->size_idx = (uint32_t)plog_get_varint(r);
    if (info->version >= 5)
        out->way = (uint32_t)plog_get_varint_max(r, PLOG_PROBE_ONEWAY);
    else /* before 5: what the mode measured */
        out->way = info->mode == PLOG_PROBE_FULL ? PLOG_PROBE_ONEWAY : PLOG_PROBE_EXCHANGE;
    out->q.n = (uint32_t)plog_get_varint_max(r, UINT32_MAX);
    double *q = &out->q.min;
    for (int i = 0; i < 8; i++)
        q[i] = get_f64(r);
    if (r->err)
        return r->err;
    if (world <= 0 || src >= (uint64_t)world || dst1 > (uint64_t)world ||
        dst1 == src + 1 || out->size_idx >= info->nsizes || out->q.n == 0)
        return PLOG_E_CORRUPT;
    out->src = (int32_t)src;
    out->dst = (int32_t)dst1 - 1;
    for (int i = 0; i < 8; i++)
        if (!isfinite(q[i]) || q[i] < 0)
            return PLOG_E_CORRUPT;
    for (int i = 1; i < 7; i++) /* min .. max non-decreasing */
        if (q[i] < q[i - 1])
            return PLOG_E_CORRUPT;
    if (out->q.mean < out->q.min || out->q.mean > out->q.max)
        return PLOG_E_CORRUPT;
    return PLOG_OK;
}

void plog_probe_quantiles(double *v, size_t n, plog_probe_q_t *out)
{
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return;
    qsort(v, n, sizeof(*v), pstat_cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->n = (uint32_t)n;
    out->min = v[0];
    out->max = v[n - 1];
    /* rounding can put the mean of equal values a hair outside [min, max] */
    out->mean = fmin(fmax(sum / (double)n, out->min), out->max);
    out->q10 = pstat_quantile(v, n, 0.10);
    out->q25 = pstat_quantile(v, n, 0.25);
    out->q50 = pstat_quantile(v, n, 0.50);
    out->q75 = pstat_quantile(v, n, 0.75);
    out->q90 = pstat_quantile(v, n, 0.90);
}

const char *plog_probe_mode_name(unsigned mode)
{
    return mode == PLOG_PROBE_FULL ? "full" : "quick";
}

const char *plog_probe_way_name(uint32_t way)
{
    return way == PLOG_PROBE_ONEWAY ? "one-way" : "exchange";
}

const char *plog_probe_trigger_name(uint32_t trigger)
{
    switch (trigger) {
    case PLOG_PROBE_AT_INIT: return "init";
    case PLOG_PROBE_EVERY: return "every";
    case PLOG_PROBE_PCONTROL: return "pcontrol";
    default: return "unknown";
    }
}

double plog_probe_exchange_time(double sa, double da, double sb, double db, double theta)
{
    sb -= theta; /* on a's clock */
    double ea = sa + da, eb = sb + db;
    return (ea > eb ? ea : eb) - (sa > sb ? sa : sb);
}

double plog_probe_clock_offset(double t1, double t2, double tb)
{
    return tb - (t1 + t2) / 2;
}

int plog_probe_partner(int r, int k, int p)
{
    int n = p % 2 ? p + 1 : p; /* odd P: a phantom rank n-1; its partner rests */
    if (p < 2 || r < 0 || r >= p || k < 0 || k >= n - 1)
        return -1;
    int q;
    if (r == n - 1)
        q = k;
    else if (r == k)
        q = n - 1;
    else
        q = ((2 * k - r) % (n - 1) + (n - 1)) % (n - 1);
    return q < p ? q : -1;
}
