/* vec.c: the growable array (vec.h). */
#include "vec.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

int vec_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    assert(elem > 0);
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
