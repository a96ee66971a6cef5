/* sites_mklog.c: write a 1-rank log whose call-site table names the given module paths,
 * for cli_sites.sh: one module and one site per path, each site on one MPI_Barrier, the
 * first path's site taking the most time (so the report lists them in the order given).
 * A path of "SELF" is this program (its /proc/self/exe target) with the offset of a call
 * in it, so the report can resolve it to a function; "SELF-CHANGED" is the same file with
 * a build id that is not its own; "SELF=PATH" is PATH (a copy of this program, say) with
 * that offset; "PATH@0xOFF" is PATH with offset OFF. Other paths are written as given,
 * with offset 0x1234; none has a build id but SELF-CHANGED.
 * Usage: sites_mklog DIR PATH...  (DIR must exist). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plog_calls.h"
#include "plog_sites.h"
#include "plog_testgen.h"

static __attribute__((noinline)) void *return_address(void)
{
    return __builtin_return_address(0);
}

/* The offset in this program's ELF file of a return address in main. */
static int self_offset(uint64_t *off)
{
    void *ra = return_address();
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(ra, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return -1;
    *off = (uint64_t)(uintptr_t)ra - lm->l_addr;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc - 2 > 200) {
        fprintf(stderr, "usage: sites_mklog DIR PATH... (1 to 200 paths)\n");
        return 2;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    uint64_t off;
    if (n <= 0 || self_offset(&off) != 0) {
        fprintf(stderr, "sites_mklog: cannot find this program's own file\n");
        return 1;
    }
    self[n] = '\0';
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank-%06d.plog", argv[1], 0);
    const uint64_t t0 = 1000000;
    const int32_t world[1] = {0};
    pgen_rank_t g;
    pgen_opts_t o = {.t_init_ns = t0};
    if (pgen_open_ex(&g, path, 0, 1, &o) != 0) {
        fprintf(stderr, "sites_mklog: cannot write %s\n", path);
        return 1;
    }
    pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, world, 1, NULL, 0);
    pgen_flush_comms(&g);
    pgen_sync(&g, PLOG_SYNC_INIT, t0, 0, 100);
    pgen_flush_sync(&g);
    pgen_event(&g, 0, PLOG_CALL_MPI_Init, t0 - 500, t0);
    static const uint8_t wrong_id[20] = {0xde, 0xad, 0xbe, 0xef};
    int npaths = argc - 2;
    for (int i = 0; i < npaths; i++) {
        const char *p = argv[2 + i];
        int is_self = strcmp(p, "SELF") == 0, changed = strcmp(p, "SELF-CHANGED") == 0;
        if (is_self || changed)
            p = self;
        if (strncmp(p, "SELF=", 5) == 0) {
            p += 5;
            is_self = 1;
        }
        const char *at = strstr(p, "@0x");
        uint64_t at_off = at ? strtoull(at + 3, NULL, 16) : 0x1234;
        char given[PLOG_SITE_MAX_PATH];
        if (at) {
            snprintf(given, sizeof(given), "%.*s", (int)(at - p), p);
            p = given;
        }
        uint8_t buf[PLOG_SITE_MAX_PATH + 256];
        plog_wcur_t w = {buf, buf + sizeof(buf), 0};
        plog_site_put_module(&w, (uint32_t)i + 1, p, (uint32_t)strlen(p),
                             changed ? wrong_id : NULL, changed ? sizeof(wrong_id) : 0);
        plog_site_frame_t f = {(uint32_t)i + 1, is_self || changed ? off : at_off};
        plog_site_put_site(&w, (uint32_t)i + 1, 1, &f);
        if (w.overflow || plog_writer_frame(&g.w, PLOG_FRAME_CALLSITES, 0, 2, buf,
                                            (size_t)(w.p - buf)) != PLOG_OK) {
            fprintf(stderr, "sites_mklog: writing %s failed\n", path);
            return 1;
        }
        uint64_t t = t0 + 1000 + (uint64_t)i * 100000;
        plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, t,
                                     t + 1000 * (uint64_t)(npaths - i));
        e->comm = 1;
        e->callsite = (uint32_t)i + 1;
    }
    pgen_event(&g, 0, PLOG_CALL_MPI_Finalize, t0 + 100000000, t0 + 100000100);
    if (pgen_close(&g, NULL, 0) != 0) {
        fprintf(stderr, "sites_mklog: writing %s failed\n", path);
        return 1;
    }
    return 0;
}
