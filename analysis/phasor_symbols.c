/* phasor_symbols.c: libdw-based resolution of call-site frames (phasor_symbols.h). */
#include "phasor_symbols.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct symmod {
    const plog_cmodule_t *key;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr bias;
    int status; /* PHASOR_SYM_MODULE when usable, else MISSING, CHANGED, REFUSED or OFF */
    char why[160];
} symmod_t;

struct phasor_symbols {
    symmod_t *m;
    size_t n, cap;
    phasor_symopts_t o;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

phasor_symbols_t *phasor_symbols_new(const phasor_symopts_t *o)
{
    phasor_symbols_t *s = calloc(1, sizeof(*s));
    if (s && o)
        s->o = *o;
    return s;
}

void phasor_symbols_free(phasor_symbols_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (s->m[i].dwfl)
            dwfl_end(s->m[i].dwfl);
    free(s->m);
    free(s);
}

/* One candidate file: opened non-blocking (a FIFO named by a log must not hang the
 * command), kept only if it is a regular file within the size limit. -1 with why set. */
static int open_candidate(const char *path, symmod_t *m)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        m->status = PHASOR_SYM_MISSING;
        snprintf(m->why, sizeof(m->why), "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_size > PHASOR_SYM_MAX_BYTES)
        bad = "larger than 4 GiB";
    if (bad) {
        close(fd);
        m->status = PHASOR_SYM_REFUSED;
        snprintf(m->why, sizeof(m->why), "%s: %s", path, bad);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* The file of a recorded module path, as the rules of phasor_symbols.h say; -1 with m's
 * status and why set when there is none to read. */
static int open_file(const phasor_symbols_t *s, const char *rec, symmod_t *m)
{
    if (s->o.off) {
        m->status = PHASOR_SYM_OFF;
        snprintf(m->why, sizeof(m->why), "call-site resolution is off (--no-symbols)");
        return -1;
    }
    if (rec[0] != '/') {
        m->status = PHASOR_SYM_REFUSED;
        snprintf(m->why, sizeof(m->why), "not an absolute path: never opened");
        return -1;
    }
    if (s->o.npaths == 0)
        return open_candidate(rec, m);
    const char *base = strrchr(rec, '/') + 1;
    for (size_t i = 0; i < s->o.npaths; i++) {
        char cand[8192];
        for (int k = 0; k < 2; k++) { /* DIR/recorded-path, then DIR/base-name */
            if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", s->o.paths[i],
                                 k ? base : rec + 1) >= sizeof(cand))
                continue;
            int fd = open_candidate(cand, m);
            if (fd >= 0 || m->status == PHASOR_SYM_REFUSED)
                return fd;
        }
    }
    m->status = PHASOR_SYM_MISSING;
    snprintf(m->why, sizeof(m->why), "not found under the --symbol-path directories");
    return -1;
}

static symmod_t *open_module(phasor_symbols_t *s, const plog_cmodule_t *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->m[i].key == key)
            return &s->m[i];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        symmod_t *n = realloc(s->m, cap * sizeof(*n));
        if (!n)
            return NULL;
        s->m = n;
        s->cap = cap;
    }
    symmod_t *m = &s->m[s->n++];
    memset(m, 0, sizeof(*m));
    m->key = key;
    m->status = PHASOR_SYM_MISSING;
    int fd = open_file(s, key->path, m);
    if (fd < 0)
        return m;
    m->dwfl = dwfl_begin(&offline_callbacks);
    if (!m->dwfl) {
        close(fd);
        snprintf(m->why, sizeof(m->why), "out of memory");
        return m;
    }
    dwfl_report_begin(m->dwfl);
    m->mod = dwfl_report_offline(m->dwfl, key->path, key->path, fd); /* takes fd */
    dwfl_report_end(m->dwfl, NULL, NULL);
    if (!m->mod || !dwfl_module_getelf(m->mod, &m->bias)) {
        snprintf(m->why, sizeof(m->why), "not an ELF file");
        return m;
    }
    if (key->build_id_len) {
        const unsigned char *bits;
        GElf_Addr vaddr;
        int len = dwfl_module_build_id(m->mod, &bits, &vaddr);
        if (len != (int)key->build_id_len || memcmp(bits, key->build_id, (size_t)len) != 0) {
            m->status = PHASOR_SYM_CHANGED;
            snprintf(m->why, sizeof(m->why), "its build id differs from the run's (rebuilt)");
            return m;
        }
    }
    m->status = PHASOR_SYM_MODULE;
    return m;
}

void phasor_symbols_resolve(phasor_symbols_t *s, const plog_cframe_t *f, phasor_sym_t *out)
{
    memset(out, 0, sizeof(*out));
    out->offset = f->offset;
    if (!f->module) {
        out->status = PHASOR_SYM_NOMODULE;
        return;
    }
    out->module = f->module->path;
    symmod_t *m = open_module(s, f->module);
    if (!m || m->status != PHASOR_SYM_MODULE) {
        out->status = m ? m->status : PHASOR_SYM_MISSING;
        return;
    }
    out->status = PHASOR_SYM_MODULE;
    GElf_Addr a = f->offset + m->bias - (f->offset ? 1 : 0);
    GElf_Off off;
    GElf_Sym sym;
    const char *fn = dwfl_module_addrinfo(m->mod, a, &off, &sym, NULL, NULL, NULL);
    if (!fn)
        return;
    out->function = fn;
    out->status = PHASOR_SYM_FUNCTION;
    Dwfl_Line *ln = dwfl_module_getsrc(m->mod, a);
    int line = 0;
    const char *file = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
    if (file && line > 0) {
        out->file = file;
        out->line = line;
        out->status = PHASOR_SYM_LINE;
    }
}

const char *phasor_sym_status_name(int status)
{
    static const char *const names[] = {"line",     "function", "module", "missing",
                                        "changed",  "nomodule", "refused", "off"};
    return status >= 0 && status <= PHASOR_SYM_OFF ? names[status] : "unknown";
}

int phasor_symbols_unresolved(const phasor_symbols_t *s, size_t i, const char **path,
                              int *status, const char **why)
{
    for (size_t k = 0; k < s->n; k++) {
        const symmod_t *m = &s->m[k];
        if (m->status == PHASOR_SYM_MODULE)
            continue;
        if (i-- == 0) {
            *path = m->key->path;
            *status = m->status;
            *why = m->why[0] ? m->why : phasor_sym_status_name(m->status);
            return 1;
        }
    }
    return 0;
}
