/* hmap.h: the one hash map of phasor: uint64 keys to uint64 values, open addressing with
 * linear probing, backward-shift deletion (lookups never meet tombstones) and Fibonacci
 * home slots (one multiply: the top bits of key x 2^64/phi), load factor at most 3/4.
 *
 * Key 0 marks an empty slot: a caller whose keys can be 0 stores key + 1 or key | 1.
 * Composite keys (several fields, a list) are hashed to 64 bits with hmap_mix first; the
 * caller then resolves collisions itself (chains through its own arrays).
 * Slot indices and value pointers stay valid until the next insertion or deletion. */
#ifndef HMAP_H
#define HMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hmap {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap, n;  /* cap: a power of two, or 0 before the first insertion */
    unsigned shift; /* 64 - log2(cap) */
} hmap_t;

/* A 64-bit finaliser (murmur3's): for building keys out of several fields. */
static inline uint64_t hmap_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static inline size_t hmap_home(uint64_t key, unsigned shift)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> shift);
}

/* Where key is (*found = 1) or would go (*found = 0: an empty slot, usable by hmap_put_at
 * while the map is not full); SIZE_MAX for a map that has never held anything. */
static inline size_t hmap_probe(const hmap_t *m, uint64_t key, int *found)
{
    *found = 0;
    if (m->cap == 0)
        return SIZE_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = hmap_home(key, m->shift);; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            *found = 1;
            return i;
        }
        if (m->keys[i] == 0)
            return i;
    }
}

/* The slot holding key, or SIZE_MAX. */
static inline size_t hmap_find(const hmap_t *m, uint64_t key)
{
    int found;
    size_t i = hmap_probe(m, key, &found);
    return found ? i : SIZE_MAX;
}

/* The value of key, or NULL when absent. */
static inline uint64_t *hmap_get(const hmap_t *m, uint64_t key)
{
    size_t i = hmap_find(m, key);
    return i == SIZE_MAX ? NULL : &m->vals[i];
}

/* The value of key, inserted as 0 when absent; NULL only when out of memory. */
uint64_t *hmap_put(hmap_t *m, uint64_t key);
/* key -> val, replacing any value it had. 0, or -1 when out of memory. */
int hmap_set(hmap_t *m, uint64_t key, uint64_t val);
/* Insert key (absent) at the empty slot hmap_probe gave: one probe sequence for a lookup
 * followed by an insertion. Falls back to a full insertion when the map must grow.
 * Inline with hmap_del_at: the reader links and retires a request per event with them. */
static inline int hmap_put_at(hmap_t *m, size_t i, uint64_t key, uint64_t val)
{
    if (i == SIZE_MAX || (m->n + 1) * 4 > m->cap * 3)
        return hmap_set(m, key, val);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

static inline void hmap_del_at(hmap_t *m, size_t i)
{
    size_t mask = m->cap - 1;
    for (size_t j = (i + 1) & mask; m->keys[j] != 0; j = (j + 1) & mask) {
        size_t home = hmap_home(m->keys[j], m->shift);
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

void hmap_del(hmap_t *m, uint64_t key);
void hmap_free(hmap_t *m);

#endif
