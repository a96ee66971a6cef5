/* phasor_config.c: the runtime's configuration (PHASOR_* variables) and its warnings. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_core.h"
#include "phasor_probe.h"

#define DEFAULT_BUFFER (4u << 20)
#define MIN_BUFFER (64u << 10)
#define MAX_BUFFER (16u << 20)

phasor_cfg_t phasor_cfg;

void phasor_warn(const char *fmt, ...)
{
    if (phasor_cfg.quiet)
        return;
    char msg[PATH_MAX + 1024]; /* a whole path and the words around it: one write */
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    if (n >= 0 && (size_t)n < sizeof(msg)) {
        fprintf(stderr, "phasor: %s\n", msg);
    } else { /* longer (a user's value quoted whole): never cut, even if written in pieces */
        fputs("phasor: ", stderr);
        vfprintf(stderr, fmt, again);
        fputc('\n', stderr);
    }
    va_end(again);
    va_end(ap);
}

int phasor_disabled_by_env(void)
{
    const char *d = getenv("PHASOR_DISABLE");
    return d != NULL && *d != '\0' && strcmp(d, "0") != 0;
}

/* Size with an optional K/M/G suffix. Returns 0 and leaves *out alone on a bad value. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift && v > (ULLONG_MAX >> shift))
        return 0; /* would wrap, perhaps into the allowed range */
    v <<= shift;
    if (*end == 'i' && shift) /* KiB, MiB, GiB; "4i" is no size */
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return 0;
    *out = (size_t)v;
    return 1;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* PHASOR_PROBE=[MODE][,every=N][,pcontrol][,budget=MS], items in any order, each at most
 * once, at least one. MODE is the probe at MPI_Init (none without it, or with off); the
 * others ask for the later probes. 0 and phasor_cfg's probe fields untouched on a bad value. */
static int parse_probe(const char *v)
{
    char buf[256];
    size_t n = strlen(v);
    if (n >= sizeof(buf))
        return 0;
    memcpy(buf, v, n + 1);
    int mode = 0, have_mode = 0, pcontrol = 0;
    long every = 0, budget = 0;
    int items = 0;
    /* strtok_r would skip empty items: "quick,,every=2" is a typo, not two items */
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        items++;
        if (strcmp(item, "off") == 0 || strcmp(item, "quick") == 0 ||
            strcmp(item, "full") == 0) {
            if (have_mode++)
                return 0;
            mode = item[0] == 'q' ? PPROBE_QUICK : item[0] == 'f' ? PPROBE_FULL : 0;
        } else if (strncmp(item, "every=", 6) == 0) {
            if (every || !parse_int(item + 6, 1, INT32_MAX, &every))
                return 0;
        } else if (strncmp(item, "budget=", 7) == 0) {
            if (budget || !parse_int(item + 7, 1, 60000, &budget))
                return 0;
        } else if (strcmp(item, "pcontrol") == 0) {
            if (pcontrol++)
                return 0;
        } else {
            return 0;
        }
    }
    if (items == 0)
        return 0;
    phasor_cfg.probe = mode;
    phasor_cfg.probe_every = every;
    phasor_cfg.probe_pcontrol = pcontrol;
    if (budget)
        phasor_cfg.probe_budget_ms = budget;
    return 1;
}

void phasor_read_config(int rank)
{
    memset(&phasor_cfg, 0, sizeof(phasor_cfg));
    phasor_cfg.buffer = DEFAULT_BUFFER;
    phasor_cfg.max_threads = 256;
    phasor_cfg.level = 1;
    phasor_cfg.file_mode = 0600;
    phasor_cfg.callsite_depth = 4;
    const char *q = getenv("PHASOR_QUIET");
    phasor_cfg.quiet = q && *q && strcmp(q, "0") != 0;
    phasor_cfg.summary = -1;
    const char *v;
    long l;
    if ((v = getenv("PHASOR_BUFFER")) && *v) {
        size_t sz;
        if (parse_size(v, &sz) && sz >= MIN_BUFFER && sz <= MAX_BUFFER)
            phasor_cfg.buffer = sz;
        else if (rank == 0)
            phasor_warn("PHASOR_BUFFER=%s is not a size from 64K to 16M; using 4M", v);
    }
    phasor_cfg.buffer &= ~(size_t)7;
    if ((v = getenv("PHASOR_MAX_THREADS")) && *v) {
        if (parse_int(v, 1, MAX_SLOTS, &l))
            phasor_cfg.max_threads = (int)l;
        else if (rank == 0)
            phasor_warn("PHASOR_MAX_THREADS=%s is not a number from 1 to %d; using 256", v,
                        MAX_SLOTS);
    }
    if ((v = getenv("PHASOR_ZSTD_LEVEL")) && *v) {
        if (parse_int(v, 1, 19, &l))
            phasor_cfg.level = (int)l;
        else if (rank == 0)
            phasor_warn("PHASOR_ZSTD_LEVEL=%s is not a number from 1 to 19; using 1", v);
    }
    if ((v = getenv("PHASOR_CALLSITE_DEPTH")) && *v) {
        if (parse_int(v, 0, PLOG_SITE_MAX_FRAMES, &l))
            phasor_cfg.callsite_depth = (int)l;
        else if (rank == 0)
            phasor_warn("PHASOR_CALLSITE_DEPTH=%s is not a number from 0 to %d; using 4", v,
                        PLOG_SITE_MAX_FRAMES);
    }
    phasor_cfg.inline_writer = -1; /* auto: decided by phasor_writer_choose() */
    if ((v = getenv("PHASOR_WRITER")) && *v) {
        if (strcmp(v, "inline") == 0)
            phasor_cfg.inline_writer = 1;
        else if (strcmp(v, "thread") == 0)
            phasor_cfg.inline_writer = 0;
        else if (strcmp(v, "auto") != 0 && rank == 0)
            phasor_warn("PHASOR_WRITER=%s is not 'auto', 'thread' or 'inline'; using auto", v);
    }
    if ((v = getenv("PHASOR_SUMMARY")) && *v) {
        if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
            phasor_cfg.summary = v[0] == '1';
        else if (rank == 0)
            phasor_warn("PHASOR_SUMMARY=%s is not 0 or 1; the line only when events were lost",
                        v);
    }
    phasor_cfg.probe_budget_ms = PHASOR_PROBE_BUDGET_MS;
    if ((v = getenv("PHASOR_PROBE")) && *v && !parse_probe(v) && rank == 0)
        phasor_warn("PHASOR_PROBE=%s is not MODE[,every=N][,pcontrol][,budget=MS] "
                    "(MODE off, quick or full; N and MS from 1): using off", v);
    if ((v = getenv("PHASOR_FILE_MODE")) && *v) {
        if (parse_int(v, 0, 0777, &l) && (l & 0600) == 0600)
            phasor_cfg.file_mode = (unsigned)l;
        else if (rank == 0)
            phasor_warn("PHASOR_FILE_MODE=%s is not an octal mode with owner read/write; "
                        "using 0600", v);
    }
    if ((v = getenv("PHASOR_POLLS")) && *v) {
        if (strcmp(v, "each") == 0)
            phasor_polls_each = 1;
        else if (strcmp(v, "runs") != 0 && rank == 0)
            phasor_warn("PHASOR_POLLS=%s is not 'runs' or 'each'; using runs", v);
    }
    phasor_cfg.flush_ns = 1000000000ull;
    if ((v = getenv("PHASOR_FLUSH")) && *v) {
        char *end;
        errno = 0;
        double sec = strtod(v, &end);
        if (strcmp(v, "off") == 0)
            phasor_cfg.flush_ns = 0;
        else if (!errno && end != v && *end == '\0' && sec >= 0.01 && sec <= 3600)
            phasor_cfg.flush_ns = (uint64_t)(sec * 1e9);
        else if (rank == 0)
            phasor_warn("PHASOR_FLUSH=%s is not 'off' or seconds from 0.01 to 3600; using 1", v);
    }
    /* The clock was chosen before MPI_Init (phasor_clock_init); what it chose is said here,
     * once the rank is known. */
    if ((v = getenv("PHASOR_CLOCK")) && *v && rank == 0) {
        if (strcmp(v, "auto") != 0 && strcmp(v, "tsc") != 0 && strcmp(v, "monotonic") != 0)
            phasor_warn("PHASOR_CLOCK=%s is not 'auto', 'tsc' or 'monotonic'; using auto (%s)", v,
                        phasor_clock_use_tsc ? "the TSC" : "CLOCK_MONOTONIC");
        else if (strcmp(v, "tsc") == 0 && !phasor_clock_use_tsc)
            phasor_warn("PHASOR_CLOCK=tsc: the TSC is not invariant or not the kernel's "
                        "clocksource here; using CLOCK_MONOTONIC");
    }
    /* Lets the ending tests send a second signal while the first one's log is being written,
     * a window otherwise a few milliseconds wide. */
    if ((v = getenv("PHASOR_TEST_SIGNAL_DELAY_MS")) && *v && parse_int(v, 0, 10000, &l))
        phasor_cfg.signal_delay_ms = l;
}
