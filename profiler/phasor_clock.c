/* phasor_clock.c: choose the timestamp source once, and map raw stamps to monotonic ns. */
#define _GNU_SOURCE
#include "phasor_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int phasor_clock_use_tsc;
static uint64_t clock_raw0, clock_ns0;

#if defined(__x86_64__)
/* The TSC is only a clock if it ticks at a constant rate through frequency changes and
 * sleep states (constant_tsc + nonstop_tsc) and the kernel trusts it as its clocksource. */
static int tsc_is_usable(void)
{
    char buf[64] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof(buf), f) != NULL && strncmp(buf, "tsc", 3) == 0;
    fclose(f);
    if (!ok)
        return 0;
    f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "flags", 5) == 0) {
            constant = strstr(line, " constant_tsc") != NULL;
            nonstop = strstr(line, " nonstop_tsc") != NULL;
            break;
        }
    }
    fclose(f);
    return constant && nonstop;
}

/* A (tsc, ns) pair taken close together: the ns read bracketed by two TSC reads, keeping
 * the tightest of a few tries so the pair is good to ~tens of ns. */
static void tsc_sample(uint64_t *raw, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __rdtsc();
        uint64_t t = phasor_mono_ns();
        uint64_t b = __rdtsc();
        if (i == 0 || b - a < best) { /* i == 0: the outputs are always set */
            best = b - a;
            *raw = a + (b - a) / 2;
            *ns = t;
        }
    }
}
#endif

void phasor_clock_init(void)
{
    const char *want = getenv("PHASOR_CLOCK");
    phasor_clock_use_tsc = 0;
#if defined(__x86_64__)
    /* anything but "monotonic" is auto: a bad value is reported later (phasor_read_config)
     * and replaced by the default, as for every PHASOR_* variable */
    if (want == NULL || strcmp(want, "monotonic") != 0)
        phasor_clock_use_tsc = tsc_is_usable();
    if (phasor_clock_use_tsc) {
        tsc_sample(&clock_raw0, &clock_ns0);
        return;
    }
#else
    (void)want;
#endif
    clock_raw0 = clock_ns0 = phasor_mono_ns();
}

void phasor_clock_map_now(phasor_clock_map_t *map)
{
    map->raw0 = clock_raw0;
    map->ns0 = clock_ns0;
    map->ns_per_tick = 1.0;
#if defined(__x86_64__)
    if (!phasor_clock_use_tsc)
        return;
    uint64_t raw1, ns1;
    tsc_sample(&raw1, &ns1);
    /* A slope fitted over less than ~1 ms would be noisy; that only happens for a flush at
     * the very start of a run, so just wait until the interval is long enough. */
    while (raw1 - clock_raw0 < 1000000u || ns1 - clock_ns0 < 1000000u)
        tsc_sample(&raw1, &ns1);
    map->ns_per_tick = (double)(ns1 - clock_ns0) / (double)(raw1 - clock_raw0);
#endif
}
