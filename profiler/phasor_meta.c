/* phasor_meta.c: the key=value strings of a rank's log: the header's (what ran, how phasor
 * was set up) and the buffer they are built in, which the log's tail uses too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "phasor_core.h"
#include "vec.h"

void phasor_kv_add(kvbuf_t *kv, const char *key, const char *val)
{
    size_t need = kv->len + strlen(key) + 1 + strlen(val) + 1;
    if (kv->fixed ? need > kv->cap : VEC_GROW(kv->p, kv->cap, need) != 0)
        return; /* left out: the strings end where the memory did */
    kv->len += (size_t)sprintf(kv->p + kv->len, "%s=%s", key, val) + 1;
}

void phasor_kv_addf(kvbuf_t *kv, const char *key, const char *fmt, ...)
{
    char val[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    phasor_kv_add(kv, key, val);
}

extern char **environ;

/* Variables that change which algorithms the MPI library picks (and phasor's own). */
static int env_worth_recording(const char *e)
{
    static const char *const prefixes[] = {"OMPI_MCA_", "MPIR_CVAR_", "PHASOR_", "UCX_",
                                           "I_MPI_", "FI_"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(e, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

uint64_t phasor_host_key(void)
{
    char name[256] = "";
    gethostname(name, sizeof(name) - 1);
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return h;
}

void phasor_header_kv(kvbuf_t *kv, int required, int provided)
{
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    phasor_kv_add(kv, "phasor_version", PACKAGE_VERSION);
    phasor_kv_add(kv, "hostname", host);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    for (char *c = lib; *c; c++) /* one line per value */
        if (*c == '\n')
            *c = ' ';
    phasor_kv_add(kv, "mpi_library", lib);
    int ver = 0, sub = 0;
    PMPI_Get_version(&ver, &sub);
    phasor_kv_addf(kv, "mpi_version", "%d.%d", ver, sub);
    if (required >= 0) {
        phasor_kv_addf(kv, "thread_level_required", "%d", required);
        phasor_kv_addf(kv, "thread_level_provided", "%d", provided);
    }
    phasor_kv_addf(kv, "clock", "%s", phasor_clock_use_tsc ? "tsc" : "monotonic");
    phasor_kv_addf(kv, "buffer_bytes", "%zu", phasor_cfg.buffer);
    phasor_kv_addf(kv, "callsite_depth", "%d", phasor_cs_depth);
    phasor_kv_add(kv, "polls", phasor_polls_each ? "each" : "runs");
    phasor_kv_add(kv, "writer", phasor_cfg.inline_writer ? "inline"
                  : phasor_writer_pinned   ? "thread-spare-cpu"
                  : "thread");
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        char cmd[1024];
        size_t n = fread(cmd, 1, sizeof(cmd) - 1, f);
        fclose(f);
        for (size_t i = 0; i + 1 < n; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        cmd[n] = '\0';
        phasor_kv_add(kv, "cmdline", cmd);
    }
    for (char **e = environ; e && *e; e++) {
        if (!env_worth_recording(*e))
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char key[300];
        int n = snprintf(key, sizeof(key), "env.%.*s", (int)(eq - *e), *e);
        if (n < 0 || (size_t)n >= sizeof(key))
            continue; /* a cut name would name another variable */
        phasor_kv_add(kv, key, eq + 1);
    }
}
