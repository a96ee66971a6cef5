/* phases_mklog.c: write a synthetic log for the tests of `phasor phases --plots`: P ranks in
 * a chain, ITER iterations of 100 us, and a one-off delay of 300 us on rank 0 in iteration
 * ITER/4 that travels down the chain at SPEED ranks per iteration (an idle wave); rank r's
 * clock is offset by (r % 3) us, undone by its sync sample.
 * Usage: phases_mklog DIR P ITER SPEED  (DIR must exist). */
#include <stdio.h>
#include <stdlib.h>

#include "phases_testlog.h"

static int32_t speed = 1;
static uint32_t k0 = 10;

static int64_t marks(int32_t r, uint32_t k)
{
    /* every iteration from the one where the wave reached r on is 300 us later */
    uint32_t reach = k0 + (uint32_t)(r / speed);
    return PTL_T0_TRUE + 2000 + (int64_t)k * 100000 + (k > reach ? 300000 : 0);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: phases_mklog DIR P ITER SPEED\n");
        return 2;
    }
    int32_t P = atoi(argv[2]);
    long it = atol(argv[3]);
    speed = atoi(argv[4]);
    if (P < 2 || it < 3 || speed < 1) {
        fprintf(stderr, "phases_mklog: need P >= 2, ITER >= 3, SPEED >= 1\n");
        return 2;
    }
    k0 = (uint32_t)(it / 4);
    int64_t *clk = malloc((size_t)P * sizeof(*clk));
    if (clk == NULL)
        return 1;
    for (int32_t r = 0; r < P; r++)
        clk[r] = (r % 3) * 1000;
    int rc = ptl_write_log(argv[1], P, (uint32_t)it, marks, clk, 1);
    free(clk);
    if (rc != 0)
        fprintf(stderr, "phases_mklog: writing %s failed\n", argv[1]);
    return rc ? 1 : 0;
}
