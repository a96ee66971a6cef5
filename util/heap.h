/* heap.h: the one binary min-heap of phasor, over uint32_t indices into the caller's own
 * array, ordered by the caller's less(ctx, a, b). Header only and always inlined, so that
 * the comparison, a constant at every call site, is inlined too: the reader's merge of
 * streams pops once per event. */
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

#endif
