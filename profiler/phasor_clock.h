/* phasor_clock.h: the shim's timestamp source, cheap enough to call twice per MPI call.
 *
 * clock_gettime(CLOCK_MONOTONIC) through the vDSO costs ~24 ns here, which alone would spend
 * the whole per-call budget on two timestamps. When the kernel itself keeps time with an
 * invariant TSC, reading the TSC (~10 ns) and converting ticks to CLOCK_MONOTONIC ns at
 * flush time gives the same time axis at under half the cost. PHASOR_CLOCK=monotonic forces
 * the portable path; anything but x86-64 always takes it. */
#ifndef PHASOR_CLOCK_H
#define PHASOR_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "plog_codec.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

extern int phasor_clock_use_tsc; /* set once at init, read-only afterwards */

static inline uint64_t phasor_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Raw timestamp: TSC ticks or ns, depending on phasor_clock_use_tsc. */
static inline uint64_t phasor_now(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(phasor_clock_use_tsc, 1))
        return __rdtsc();
#endif
    return phasor_mono_ns();
}

/* Linear map raw -> ns (plog_time_map_t, applied by the encoder), fitted between two
 * (raw, ns) samples taken at init and at write time; identity for the monotonic clock. */
typedef plog_time_map_t phasor_clock_map_t;

/* Decide the clock source (reads PHASOR_CLOCK and the kernel clocksource). */
void phasor_clock_init(void);
/* Map fitted from the init sample to a fresh sample taken now. */
void phasor_clock_map_now(phasor_clock_map_t *map);

#pragma GCC visibility pop

#endif
