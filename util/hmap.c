/* hmap.c: the hash map (hmap.h). */
#include "hmap.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int hmap_rehash(hmap_t *m, size_t nc)
{
    uint64_t *nk = calloc(nc, sizeof(*nk));
    uint64_t *nv = calloc(nc, sizeof(*nv));
    if (nk == NULL || nv == NULL) {
        free(nk);
        free(nv);
        return -1;
    }
    unsigned shift = (unsigned)__builtin_clzll(nc) + 1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == 0)
            continue;
        size_t j = hmap_home(m->keys[i], shift);
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
    m->shift = shift;
    return 0;
}

uint64_t *hmap_put(hmap_t *m, uint64_t key)
{
    assert(key != 0);
    if ((m->n + 1) * 4 > m->cap * 3 && hmap_rehash(m, m->cap ? m->cap * 2 : 64) != 0)
        return NULL;
    int found;
    size_t i = hmap_probe(m, key, &found);
    if (!found) {
        m->keys[i] = key;
        m->vals[i] = 0;
        m->n++;
    }
    return &m->vals[i];
}

int hmap_set(hmap_t *m, uint64_t key, uint64_t val)
{
    uint64_t *v = hmap_put(m, key);
    if (v == NULL)
        return -1;
    *v = val;
    return 0;
}

void hmap_del(hmap_t *m, uint64_t key)
{
    size_t i = hmap_find(m, key);
    if (i != SIZE_MAX)
        hmap_del_at(m, i);
}

void hmap_free(hmap_t *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}
