/* phasor_symbols.c: libdw-based resolution of call-site frames (phasor_symbols.h). */
#include "phasor_symbols.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

typedef struct symmod {
    const plog_cmodule_t *key;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr bias;
    int status; /* PHASOR_SYM_MODULE when usable, else MISSING or CHANGED */
} symmod_t;

struct phasor_symbols {
    symmod_t *m;
    size_t n, cap;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

phasor_symbols_t *phasor_symbols_new(void) { return calloc(1, sizeof(phasor_symbols_t)); }

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
    m->dwfl = dwfl_begin(&offline_callbacks);
    if (!m->dwfl)
        return m;
    dwfl_report_begin(m->dwfl);
    m->mod = dwfl_report_offline(m->dwfl, key->path, key->path, -1);
    dwfl_report_end(m->dwfl, NULL, NULL);
    if (!m->mod || !dwfl_module_getelf(m->mod, &m->bias))
        return m;
    if (key->build_id_len) {
        const unsigned char *bits;
        GElf_Addr vaddr;
        int len = dwfl_module_build_id(m->mod, &bits, &vaddr);
        if (len != (int)key->build_id_len || memcmp(bits, key->build_id, (size_t)len) != 0) {
            m->status = PHASOR_SYM_CHANGED;
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
    static const char *const names[] = {"line", "function", "module", "missing", "changed",
                                        "nomodule"};
    return status >= 0 && status <= PHASOR_SYM_NOMODULE ? names[status] : "unknown";
}
