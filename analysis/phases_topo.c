/* phases_topo.c: the coupling topology T_ij (i receives from j) of phases.h: from the
 * receives in the log, from pairs or a file of pairs, or every pair; in CSR form. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"
#include "vec.h"

static int cmp_pair(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

int ph_recv_source(const plog_rec_t *e, const plog_rstatus_t *st)
{
    if (st->source < 0 || st->source == e->rank || st->cancelled)
        return 0;
    if (st->start == NULL)
        return e->cls == PLOG_CLASS_RECV || e->cls == PLOG_CLASS_SENDRECV;
    return st->start->cls == PLOG_CLASS_IRECV || st->start->cls == PLOG_CLASS_PRECV_INIT;
}

void ph_acc_rank(ph_topo_acc_t *a)
{
    a->first = a->np;
    a->next_dedup = a->np + 4096;
    a->last = -1;
}

static void acc_dedup(ph_topo_acc_t *a)
{
    size_t n = a->np - a->first;
    if (n > 1)
        qsort(a->pairs + 2 * a->first, n, 2 * sizeof(int32_t), cmp_pair);
    size_t k = a->first;
    /* one rank's pairs: (i, j) all with the rank's i, so j alone tells them apart */
    for (size_t p = a->first; p < a->np; p++)
        if (k == a->first || a->pairs[2 * p + 1] != a->pairs[2 * k - 1]) {
            a->pairs[2 * k] = a->pairs[2 * p];
            a->pairs[2 * k + 1] = a->pairs[2 * p + 1];
            k++;
        }
    a->np = k;
    a->next_dedup = a->np + (a->np - a->first) + 4096; /* amortised: the list at least doubles */
}

int ph_acc_event(ph_topo_acc_t *a, const plog_rec_t *ev)
{
    if (ev->cls == PLOG_CLASS_PROBE)
        return 0;
    for (uint32_t s = 0; s < ev->n_status; s++) {
        const plog_rstatus_t *st = &ev->status[s];
        if (!ph_recv_source(ev, st) || st->source >= a->P || st->source == a->last)
            continue;
        a->last = st->source;
        /* per received message: the call only when the array is full */
        if (2 * a->np + 2 > a->cap && VEC_GROW(a->pairs, a->cap, 2 * (a->np + 1)) != 0)
            return -1;
        a->pairs[2 * a->np] = ev->rank;
        a->pairs[2 * a->np + 1] = st->source;
        a->np++;
    }
    if (a->np > a->next_dedup)
        acc_dedup(a);
    return 0;
}

void ph_topo_free(ph_topo_t *t)
{
    if (t == NULL)
        return;
    free(t->off);
    free(t->nb);
    memset(t, 0, sizeof(*t));
}

int ph_topo_has(const ph_topo_t *t, int32_t i, int32_t j)
{
    if (i < 0 || i >= t->n)
        return 0;
    uint32_t lo = t->off[i], hi = t->off[i + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->nb[mid] == j)
            return 1;
        if (t->nb[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* An empty CSR of n ranks with room for nnz neighbours; -1 (out zeroed) out of memory. */
static int topo_alloc(int32_t n, size_t nnz, ph_topo_t *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->off = calloc((size_t)n + 1, sizeof(*out->off));
    out->nb = malloc((nnz ? nnz : 1) * sizeof(*out->nb));
    if (out->off == NULL || out->nb == NULL) {
        ph_topo_free(out);
        return -1;
    }
    return 0;
}

int ph_topo_build(int32_t n, int32_t *pairs, size_t np, ph_topo_t *out)
{
    if (np > 1)
        qsort(pairs, np, 2 * sizeof(int32_t), cmp_pair);
    if (topo_alloc(n, np, out) != 0)
        return -1;
    size_t k = 0;
    for (size_t p = 0; p < np; p++) {
        if (p > 0 && pairs[2 * p] == pairs[2 * p - 2] && pairs[2 * p + 1] == pairs[2 * p - 1])
            continue;
        assert(pairs[2 * p] >= 0 && pairs[2 * p] < n && pairs[2 * p + 1] >= 0 &&
               pairs[2 * p + 1] < n);
        out->off[pairs[2 * p] + 1]++;
        out->nb[k++] = pairs[2 * p + 1];
    }
    for (int32_t i = 0; i < n; i++)
        out->off[i + 1] += out->off[i];
    out->nnz = k;
    return 0;
}

int ph_topo_from_pairs(int32_t n, const int32_t *pairs, size_t np, ph_topo_t *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t p = 0; p < np; p++)
        if (pairs[2 * p] < 0 || pairs[2 * p] >= n || pairs[2 * p + 1] < 0 ||
            pairs[2 * p + 1] >= n || pairs[2 * p] == pairs[2 * p + 1])
            return -1;
    int32_t *cp = malloc((np ? np : 1) * 2 * sizeof(*cp));
    if (cp == NULL)
        return -1;
    if (np > 0)
        memcpy(cp, pairs, np * 2 * sizeof(*cp));
    int rc = ph_topo_build(n, cp, np, out);
    free(cp);
    return rc;
}

int ph_topo_all(int32_t n, ph_topo_t *out)
{
    if (topo_alloc(n, (size_t)n * (size_t)(n > 0 ? n - 1 : 0), out) != 0)
        return -1;
    size_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t j = 0; j < n; j++)
            if (j != i)
                out->nb[k++] = j;
        out->off[i + 1] = (uint32_t)k;
    }
    out->nnz = k;
    return 0;
}

plog_err_t ph_topo_from_log(plog_run_t *run, ph_topo_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    ph_topo_acc_t a = {.P = plog_run_world_size(run)};
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < a.P && e == PLOG_OK; r++) {
        if (plog_run_rank(run, r) == NULL)
            continue;
        plog_iter_t *it = NULL;
        if ((e = plog_iter_open(run, r, &it, err)) != PLOG_OK)
            break;
        ph_acc_rank(&a);
        const plog_rec_t *ev;
        while ((e = plog_iter_next(it, &ev, err)) == PLOG_OK && ev != NULL)
            if (ph_acc_event(&a, ev) != 0) {
                e = ph_nomem(run, err);
                break;
            }
        plog_iter_close(it);
    }
    if (e == PLOG_OK && ph_topo_build(a.P, a.pairs, a.np, out) != 0)
        e = ph_nomem(run, err);
    free(a.pairs);
    return e;
}

plog_err_t ph_topo_read(const char *path, int32_t P, ph_topo_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return plog_fail(err, PLOG_E_IO, NULL, PLOG_NO_OFFSET, "%s: %s", path, strerror(errno));
    int32_t *pairs = NULL;
    size_t np = 0, cap = 0;
    char line[256];
    unsigned lineno = 0;
    plog_err_t e = PLOG_OK;
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        long i, j;
        char extra;
        int k = sscanf(line, "%ld %ld %c", &i, &j, &extra);
        if (k <= 0)
            continue; /* blank */
        if (k != 2 || i < 0 || j < 0 || i >= P || j >= P || i == j) {
            e = plog_fail(err, PLOG_E_CORRUPT, NULL, PLOG_NO_OFFSET,
                          "%s: line %u: expected \"i j\" with two different ranks below %d",
                          path, lineno, (int)P);
            break;
        }
        if (VEC_GROW(pairs, cap, 2 * (np + 1)) != 0) {
            e = plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
            break;
        }
        pairs[2 * np] = (int32_t)i;
        pairs[2 * np + 1] = (int32_t)j;
        np++;
    }
    fclose(f);
    if (e == PLOG_OK && ph_topo_from_pairs(P, pairs, np, out) != 0)
        e = plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
    free(pairs);
    return e;
}
