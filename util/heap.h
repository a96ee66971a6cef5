/* heap.h: the one binary min-heap of phasor, in two forms. heap_*: uint32_t indices into the
 * caller's own array, ordered by the caller's less(ctx, a, b). heap_ent_*: entries that
 * carry their key (an int64_t, ties by a uint32_t) and the caller's uint32_t value, for a
 * merge of sorted streams (the reader's, once per event): a comparison reads only the heap
 * array, and replacing the top costs one sift-down instead of a pop and a push. Header only
 * and always inlined, so that the comparison is inlined at every call site. */
#ifndef HEAP_H
#define HEAP_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*heap_less_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Push v onto h[0..*n) (the caller has room for one more). */
static inline __attribute__((always_inline)) void heap_push(uint32_t *h, size_t *n, uint32_t v,
                                                            heap_less_fn less, const void *ctx)
{
    size_t i = (*n)++;
    h[i] = v;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!less(ctx, h[i], h[p]))
            break;
        uint32_t t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

/* Restore the order after the top's key grew (or a new top was written at h[0]). */
static inline __attribute__((always_inline)) void heap_sift_down(uint32_t *h, size_t n,
                                                                 heap_less_fn less,
                                                                 const void *ctx)
{
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && less(ctx, h[l], h[m]))
            m = l;
        if (r < n && less(ctx, h[r], h[m]))
            m = r;
        if (m == i)
            break;
        uint32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Remove and return the least element of a non-empty heap. */
static inline __attribute__((always_inline)) uint32_t heap_pop(uint32_t *h, size_t *n,
                                                               heap_less_fn less,
                                                               const void *ctx)
{
    assert(*n > 0);
    uint32_t top = h[0];
    h[0] = h[--(*n)];
    heap_sift_down(h, *n, less, ctx);
    return top;
}

/* An entry of a keyed heap: ordered by key, then tie; val is the caller's. */
typedef struct heap_ent {
    int64_t key;
    uint32_t tie;
    uint32_t val;
} heap_ent_t;

static inline __attribute__((always_inline)) int heap_ent_less(heap_ent_t a, heap_ent_t b)
{
    return a.key < b.key || (a.key == b.key && a.tie < b.tie);
}

/* Push v onto h[0..*n) (the caller has room for one more). */
static inline __attribute__((always_inline)) void heap_ent_push(heap_ent_t *h, size_t *n,
                                                                heap_ent_t v)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_ent_less(v, h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

/* Replace the top of a non-empty heap by v and restore the order: a pop and a push in one
 * pass down from the root (a merge puts back the stream it just took from, with its next
 * key). The entries on the way move up into the hole; v is written once, where it stops. */
static inline __attribute__((always_inline)) void heap_ent_replace_top(heap_ent_t *h, size_t n,
                                                                       heap_ent_t v)
{
    assert(n > 0);
    size_t i = 0;
    for (;;) {
        size_t m = 2 * i + 1;
        if (m >= n)
            break;
        if (m + 1 < n && heap_ent_less(h[m + 1], h[m]))
            m++;
        if (!heap_ent_less(h[m], v))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = v;
}

/* Remove and return the least entry of a non-empty heap. */
static inline __attribute__((always_inline)) heap_ent_t heap_ent_pop(heap_ent_t *h, size_t *n)
{
    assert(*n > 0);
    heap_ent_t top = h[0];
    if (--(*n) > 0)
        heap_ent_replace_top(h, *n, h[*n]);
    return top;
}

#endif
