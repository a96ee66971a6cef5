/* plog_rd_intern.c: interned rank lists. Member lists repeat across ranks (every rank's
 * MPI_COMM_WORLD, every dup): storing each distinct list once keeps 1024-rank runs small, and
 * makes set equality a pointer compare. */
#include "plog_rd.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static uint64_t intern_hash(const int32_t *v, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = hmap_mix(h ^ (uint32_t)v[i]) + i;
    return h | 1; /* never the map's empty key */
}

const int32_t *intern_list(intern_t *in, const int32_t *v, uint32_t n)
{
    uint64_t h = intern_hash(v, n);
    const uint64_t *hv = hmap_get(&in->map, h);
    uint32_t head = hv != NULL ? (uint32_t)*hv : 0;
    for (uint32_t k = head; k != 0; k = in->l[k - 1].next) {
        assert(k <= in->n);
        const intern_entry_t *il = &in->l[k - 1];
        if (il->n == n && (n == 0 || memcmp(il->v, v, n * sizeof(*v)) == 0))
            return il->v;
    }
    if (in->n >= UINT32_MAX || VEC_GROW(in->l, in->cap, in->n + 1) != 0)
        return NULL;
    int32_t *copy = malloc(n ? n * sizeof(*v) : 1);
    if (copy == NULL)
        return NULL;
    if (n)
        memcpy(copy, v, n * sizeof(*v));
    in->l[in->n] = (intern_entry_t){copy, n, head};
    if (hmap_set(&in->map, h, in->n + 1) != 0) {
        free(copy);
        return NULL;
    }
    in->n++;
    return copy;
}

void intern_free(intern_t *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->l[i].v);
    free(in->l);
    hmap_free(&in->map);
}
