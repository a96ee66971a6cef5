/* test_util.c: the mechanisms of util/ every layer shares: the hash map against a plain
 * array model under random insertions and deletions (backward-shift deletion must keep
 * every key reachable), the heap, the growable array's overflow check, UTF-8 repair. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "hmap.h"
#include "utf8.h"
#include "vec.h"

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

Test(hmap, empty_map_finds_nothing)
{
    hmap_t m = {0};
    int found = 1;
    cr_expect_eq(hmap_probe(&m, 5, &found), SIZE_MAX);
    cr_expect_eq(found, 0);
    cr_expect_null(hmap_get(&m, 5));
    hmap_del(&m, 5); /* no-op */
    hmap_free(&m);
}

Test(hmap, random_operations_match_a_model)
{
    enum { KEYS = 512, OPS = 200000 };
    uint64_t model[KEYS + 1]; /* value + 1, 0 = absent */
    memset(model, 0, sizeof(model));
    hmap_t m = {0};
    uint64_t s = 88172645463325252ull;
    size_t live = 0;
    for (int op = 0; op < OPS; op++) {
        /* 512 keys at up to 3/4 load: runs of occupied slots that deletions must mend */
        uint64_t key = 1 + rng(&s) % KEYS, idx = key;
        switch (rng(&s) % 3) {
        case 0:
            cr_assert_eq(hmap_set(&m, key, op), 0);
            live += model[idx] == 0;
            model[idx] = (uint64_t)op + 1;
            break;
        case 1:
            hmap_del(&m, key);
            live -= model[idx] != 0;
            model[idx] = 0;
            break;
        default: {
            uint64_t *v = hmap_get(&m, key);
            if (model[idx] == 0)
                cr_assert_null(v, "key %llu deleted but found", (unsigned long long)key);
            else
                cr_assert(v != NULL && *v == model[idx] - 1, "key %llu lost",
                          (unsigned long long)key);
        }
        }
        cr_assert_eq(m.n, live);
    }
    for (uint64_t k = 1; k <= KEYS; k++) {
        uint64_t *v = hmap_get(&m, k);
        cr_assert_eq(v != NULL, model[k] != 0);
    }
    cr_expect_leq(m.n * 4, m.cap * 3, "load factor above 3/4");
    hmap_free(&m);
    cr_expect_eq(m.cap, 0);
}

Test(hmap, put_inserts_zero_and_probe_then_put_at)
{
    hmap_t m = {0};
    uint64_t *v = hmap_put(&m, 42);
    cr_assert_not_null(v);
    cr_expect_eq(*v, 0);
    *v = 7;
    cr_expect_eq(*hmap_put(&m, 42), 7, "put of a present key keeps its value");
    for (uint64_t k = 100; k < 1000; k++) {
        int found;
        size_t i = hmap_probe(&m, k, &found);
        cr_assert_eq(found, 0);
        cr_assert_eq(hmap_put_at(&m, i, k, k * 2), 0);
    }
    for (uint64_t k = 100; k < 1000; k++)
        cr_assert_eq(*hmap_get(&m, k), k * 2);
    cr_expect_eq(m.n, 901);
    hmap_free(&m);
}

static int less_u32(const void *ctx, uint32_t a, uint32_t b)
{
    const double *key = ctx;
    return key[a] < key[b] || (key[a] == key[b] && a < b);
}

Test(heap, pops_in_order_with_pushes_between)
{
    enum { N = 2000 };
    double key[N];
    uint32_t h[N], popped[N];
    size_t n = 0, np = 0;
    uint64_t s = 12345;
    for (uint32_t i = 0; i < N; i++)
        key[i] = (double)(rng(&s) % 97); /* many ties: the index breaks them */
    uint32_t next = 0;
    while (np < N) {
        /* push a few, pop one: the heap holds a changing set */
        for (int k = 0; k < 3 && next < N; k++)
            heap_push(h, &n, next++, less_u32, key);
        uint32_t v = heap_pop(h, &n, less_u32, key);
        for (size_t j = 0; j < n; j++)
            cr_assert(!less_u32(key, h[j], v), "popped %u while a smaller one waits", v);
        popped[np++] = v;
        if (next == N)
            while (n > 0)
                popped[np++] = heap_pop(h, &n, less_u32, key);
    }
    /* everything came out once */
    uint32_t seen[N] = {0};
    for (size_t i = 0; i < N; i++)
        seen[popped[i]]++;
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(seen[i], 1);
}

/* The keyed heap (the reader's merge): pushes, pops and replace-top keep the least of (key,
 * tie) on top, and every entry comes out once, in order. */
Test(heap, keyed_entries_in_order_with_replace_top)
{
    enum { N = 3000 };
    heap_ent_t h[N];
    size_t n = 0;
    uint64_t s = 777;
    uint32_t seen[N] = {0};
    uint32_t next = 0;
    heap_ent_t last = {INT64_MIN, 0, 0};
    size_t out = 0;
    while (out < N) {
        if (next < N && (n == 0 || rng(&s) % 3 != 0)) {
            heap_ent_t v = {(int64_t)(rng(&s) % 50), (uint32_t)(rng(&s) % 7), next++};
            v.key += 1 + (last.key > 0 ? last.key : 0); /* after what already came out */
            if (n > 0 && rng(&s) % 2) {
                /* replace-top, as a merge does: the least goes out, the next of its stream
                 * (never smaller) comes in */
                heap_ent_t top = h[0];
                v.key = top.key + 1 + (int64_t)(rng(&s) % 50);
                heap_ent_replace_top(h, n, v);
                cr_assert(!heap_ent_less(top, last), "out of order");
                last = top;
                seen[top.val]++;
                out++;
            } else {
                heap_ent_push(h, &n, v);
            }
        } else {
            heap_ent_t top = heap_ent_pop(h, &n);
            cr_assert(!heap_ent_less(top, last), "out of order: %lld after %lld",
                      (long long)top.key, (long long)last.key);
            for (size_t j = 0; j < n; j++)
                cr_assert(!heap_ent_less(h[j], top), "a smaller one waits");
            last = top;
            seen[top.val]++;
            out++;
        }
    }
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(seen[i], 1, "entry %zu came out %u times", i, seen[i]);
}

Test(heap, sift_down_after_the_top_grows)
{
    double key[5] = {1, 2, 3, 4, 5};
    uint32_t h[5];
    size_t n = 0;
    for (uint32_t i = 0; i < 5; i++)
        heap_push(h, &n, i, less_u32, key);
    key[0] = 10; /* the top's key grows: a stream advanced past its next event */
    heap_sift_down(h, n, less_u32, key);
    uint32_t order[5];
    for (int i = 0; i < 5; i++)
        order[i] = heap_pop(h, &n, less_u32, key);
    uint32_t want[5] = {1, 2, 3, 4, 0};
    cr_expect_arr_eq(order, want, sizeof(want));
}

Test(vec, grows_by_doubling_and_refuses_overflow)
{
    int *a = NULL;
    size_t cap = 0;
    cr_assert_eq(VEC_GROW(a, cap, 1), 0);
    cr_expect_eq(cap, 8);
    cr_assert_eq(VEC_GROW(a, cap, 9), 0);
    cr_expect_eq(cap, 16);
    cr_assert_eq(VEC_GROW(a, cap, 5), 0, "already room");
    cr_expect_eq(cap, 16);
    a[15] = 1;
    int *keep = a;
    cr_expect_eq(VEC_GROW(a, cap, SIZE_MAX / 2), -1, "an impossible size is refused");
    cr_expect_eq(a, keep, "and the array is left as it was");
    cr_expect_eq(cap, 16);
    free(a);
}

Test(utf8, sanitize_keeps_utf8_and_replaces_every_bad_byte)
{
    char out[64];
    cr_expect_eq(utf8_sanitize(out, sizeof(out), "h\xc3\xb4te"), 5);
    cr_expect_str_eq(out, "h\xc3\xb4te");
    /* a lone 0xff, an overlong '/', a surrogate: one U+FFFD per byte */
    size_t need = utf8_sanitize(out, sizeof(out), "a\xff\xc0\xaf\xed\xa0\x80z");
    cr_expect_eq(need, 2 + 6 * 3);
    cr_expect_str_eq(out, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                          "\xef\xbf\xbdz");
    cr_expect_eq(utf8_seq_len((const unsigned char *)"\xe2\x82"), 0, "cut short by the NUL");
}

Test(utf8, sanitize_cuts_at_a_character_boundary)
{
    char out[4];
    cr_expect_eq(utf8_sanitize(out, sizeof(out), "ab\xc3\xa9"), 4, "the length it needs");
    cr_expect_str_eq(out, "ab", "not half of the 2-byte character");
    cr_expect_eq(utf8_sanitize(NULL, 0, "\xff"), 3);
}
