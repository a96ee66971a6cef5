/* chan_table.c: the channels of a run, numbered (chan_table.h). */
#include <stdlib.h>
#include <string.h>

#include "chan_table.h"
#include "vec.h"

void ct_init(ct_t *t)
{
    memset(t, 0, sizeof(*t));
    memset(t->cache, 0xff, sizeof(t->cache)); /* -1 */
}

void ct_free(ct_t *t)
{
    hmap_free(&t->map);
    free(t->key);
    free(t->hnext);
    ct_init(t);
}

static inline int same(const ct_key_t *k, int32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    return k->comm == comm && k->src == src && k->dst == dst && k->tag == tag;
}

int32_t ct_get(ct_t *t, int32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    uint64_t h = hmap_mix(((uint64_t)(uint32_t)comm << 32 | (uint32_t)src) ^
                          hmap_mix((uint64_t)(uint32_t)dst << 32 | (uint32_t)tag)) | 1u;
    int32_t *slot = &t->cache[(h >> 1) & (CT_CACHE - 1)];
    if (*slot >= 0 && same(&t->key[*slot], comm, src, dst, tag))
        return *slot;
    uint64_t *head = hmap_put(&t->map, h);
    if (head == NULL)
        return -1;
    for (int32_t i = (int32_t)*head - 1; i >= 0; i = t->hnext[i])
        if (same(&t->key[i], comm, src, dst, tag))
            return *slot = i;
    if (t->n >= INT32_MAX || VEC_GROW(t->key, t->cap, t->n + 1) != 0 ||
        VEC_GROW(t->hnext, t->hcap, t->n + 1) != 0)
        return -1;
    int32_t i = (int32_t)t->n++;
    t->key[i] = (ct_key_t){comm, src, dst, tag};
    t->hnext[i] = (int32_t)*head - 1;
    *head = (uint64_t)i + 1;
    return *slot = i;
}
