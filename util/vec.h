/* vec.h: the one growable array of phasor: a pointer, a capacity and a need. Every layer
 * grows its arrays with VEC_GROW instead of open-coding realloc, so that the doubling and
 * the overflow check live in one place. */
#ifndef VEC_H
#define VEC_H

#include <stddef.h>

/* Make room for `need` elements of `elem` bytes in *p (capacity *cap, in elements): the
 * capacity doubles from 8 until it holds need. 0 on success (also when it already held);
 * -1 when the size would overflow or realloc fails, *p and *cap then unchanged. */
int vec_grow(void **p, size_t *cap, size_t need, size_t elem);

/* The same with the common case, room already there, decided inline: callers on per-event
 * paths need no guard of their own. */
static inline int vec_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : vec_grow(p, cap, need, elem);
}

/* VEC_GROW(arr, cap, need) for an array `arr` of any element type with capacity `cap`. */
#define VEC_GROW(arr, cap, need) vec_reserve((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Append x to arr (n elements, capacity cap): 0, or -1 when it could not grow (arr, n and
 * cap unchanged). The arguments are evaluated more than once: pass plain lvalues. */
#define VEC_PUSH(arr, n, cap, x)                                                           \
    (VEC_GROW(arr, cap, (n) + 1) == 0 ? ((arr)[(n)++] = (x), 0) : -1)

#endif
