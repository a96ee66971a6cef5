/* phasor_symbols.c: libdw-based resolution of call-site frames (phasor_symbols.h). */
#define _GNU_SOURCE
#include "phasor_symbols.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Where a module's file was found, so that its debug file is looked for by the same rule
 * (the module's libdwfl userdata). */
typedef struct symwhere {
    const struct phasor_symbols *s;
    int dirfd;        /* AT_FDCWD, or the --symbol-path directory the name resolved in */
    const char *root; /* "", or that directory as given */
    char dir[];       /* the directory part of the name the module was found by */
} symwhere_t;

typedef struct symmod {
    const plog_cmodule_t *key;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr bias;
    int status; /* PHASOR_SYM_MODULE when usable, else MISSING, CHANGED, REFUSED or OFF */
    char why[160];
    symwhere_t *where; /* when the file was found */
} symmod_t;

struct phasor_symbols {
    symmod_t *m;
    size_t n, cap;
    phasor_symopts_t o;
    int *dirfd; /* O_PATH descriptors of the --symbol-path directories, -1 if not one */
};

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                          Dwarf_Addr base, const char *file_name, const char *debuglink,
                          GElf_Word crc, char **debuginfo_file_name);

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

phasor_symbols_t *phasor_symbols_new(const phasor_symopts_t *o)
{
    phasor_symbols_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    if (o)
        s->o = *o;
    if (s->o.npaths && !(s->dirfd = malloc(s->o.npaths * sizeof(*s->dirfd)))) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < s->o.npaths; i++)
        s->dirfd[i] = open(s->o.paths[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
    elf_version(EV_CURRENT);
    return s;
}

void phasor_symbols_free(phasor_symbols_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        if (s->m[i].dwfl)
            dwfl_end(s->m[i].dwfl);
        free(s->m[i].where);
    }
    for (size_t i = 0; i < s->o.npaths; i++)
        if (s->dirfd[i] >= 0)
            close(s->dirfd[i]);
    free(s->dirfd);
    free(s->m);
    free(s);
}

/* openat2 with `resolve`; kernels before 5.6 (or a sandbox that refuses the call) get
 * openat, where symlinks under a --symbol-path directory are followed as they point. */
static int open_resolved(int dirfd, const char *name, uint64_t flags, uint64_t resolve)
{
    struct open_how how = {.flags = flags, .resolve = resolve};
    long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
    if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
        if (dirfd != AT_FDCWD)
            while (*name == '/')
                name++;
        fd = openat(dirfd, *name ? name : ".", (int)flags);
    }
    return (int)fd;
}

static const char *refusal(const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return "not a regular file";
    if (st->st_size == 0) /* also what /proc's files say */
        return "an empty file";
    if (st->st_size > PHASOR_SYM_MAX_BYTES)
        return "larger than 4 GiB";
    return NULL;
}

/* The rule's open of one file: name absolute (dirfd AT_FDCWD) or resolved with the
 * --symbol-path directory dirfd as its root, so that no symlink under it leads out; /proc's
 * magic links are not followed. Looked at with O_PATH first, so a FIFO, a device or a
 * directory is never opened; then opened non-blocking and checked again: a regular file of
 * 1 B to 4 GiB. -1 with *status and why (naming `shown`) when it is not that. */
static int open_checked(int dirfd, const char *name, const char *shown, int *status,
                        char *why, size_t cap)
{
    uint64_t res = RESOLVE_NO_MAGICLINKS | (dirfd == AT_FDCWD ? 0 : RESOLVE_IN_ROOT);
    const char *bad = NULL;
    struct stat st;
    int fd = open_resolved(dirfd, name, O_PATH | O_CLOEXEC, res);
    if (fd >= 0) {
        bad = fstat(fd, &st) != 0 ? strerror(errno) : refusal(&st);
        close(fd);
        fd = -1;
        if (!bad) {
            fd = open_resolved(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, res);
            if (fd >= 0)
                bad = fstat(fd, &st) != 0 ? strerror(errno) : refusal(&st); /* replaced? */
        }
    }
    if (fd < 0 && !bad) {
        int e = errno;
        *status = e == ELOOP ? PHASOR_SYM_REFUSED : PHASOR_SYM_MISSING;
        snprintf(why, cap, "%s: %s", shown,
                 e == ELOOP ? "a symbolic link loop or a /proc magic link; not followed"
                            : strerror(e));
        return -1;
    }
    if (bad) {
        if (fd >= 0)
            close(fd);
        *status = PHASOR_SYM_REFUSED;
        snprintf(why, cap, "%s: %s", shown, bad);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* One candidate module file; fills m's where on success. */
static int open_candidate(const phasor_symbols_t *s, int dirfd, const char *root,
                          const char *name, const char *shown, symmod_t *m)
{
    int fd = open_checked(dirfd, name, shown, &m->status, m->why, sizeof(m->why));
    if (fd < 0)
        return -1;
    const char *slash = strrchr(name, '/');
    size_t dl = slash ? (size_t)(slash - name) : 0;
    symwhere_t *w = malloc(sizeof(*w) + dl + 1);
    if (!w) {
        close(fd);
        snprintf(m->why, sizeof(m->why), "out of memory");
        return -1;
    }
    *w = (symwhere_t){s, dirfd, root};
    memcpy(w->dir, name, dl);
    w->dir[dl] = '\0';
    m->where = w;
    return fd;
}

/* The file of a recorded module path, as the rules of phasor_symbols.h say; -1 with m's
 * status and why set when there is none to read. *shown is the file's name. */
static int open_file(const phasor_symbols_t *s, const char *rec, symmod_t *m, char *shown,
                     size_t cap)
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
    if (s->o.npaths == 0) {
        snprintf(shown, cap, "%s", rec);
        return open_candidate(s, AT_FDCWD, "", rec, rec, m);
    }
    const char *base = strrchr(rec, '/') + 1;
    for (size_t i = 0; i < s->o.npaths; i++) {
        if (s->dirfd[i] < 0)
            continue;
        for (int k = 0; k < 2; k++) { /* DIR/recorded-path, then DIR/base-name */
            if ((size_t)snprintf(shown, cap, "%s/%s", s->o.paths[i], k ? base : rec + 1) >= cap)
                continue;
            int fd = open_candidate(s, s->dirfd[i], s->o.paths[i], k ? base : rec, shown, m);
            if (fd >= 0 || m->status == PHASOR_SYM_REFUSED)
                return fd;
        }
    }
    m->status = PHASOR_SYM_MISSING;
    snprintf(m->why, sizeof(m->why), "not found under the --symbol-path directories");
    return -1;
}

/* Whether the ELF file fd carries this build id. */
static int has_build_id(int fd, const unsigned char *bits, int len)
{
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *id;
    ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
    int same = n == len && memcmp(id, bits, (size_t)len) == 0;
    if (e)
        elf_end(e);
    return same;
}

/* Debug files by the same rule (libdwfl's standard search opens what a .gnu_debuglink
 * names with a blocking open: a FIFO there hung report): by build id under each
 * --symbol-path directory's and this machine's /usr/lib/debug/.build-id/, then by the
 * debuglink name (no '/') beside the module and in .debug/ there, under the root the
 * module was found in. The file must carry the build id looked for. libdwfl also asks for
 * the alternate (dwz) file with its .gnu_debugaltlink name: that one by its own build id. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                          Dwarf_Addr base, const char *file_name, const char *debuglink,
                          GElf_Word crc, char **debuginfo_file_name)
{
    (void)modname, (void)base, (void)file_name, (void)crc;
    const symwhere_t *w = *userdata;
    if (!w)
        return -1;
    const unsigned char *bits;
    GElf_Addr bias;
    Elf *main_elf = dwfl_module_getelf(mod, &bias); /* first: the build id is read with it */
    int len = dwfl_module_build_id(mod, &bits, &bias);
    GElf_Word main_crc;
    const char *main_link = main_elf ? dwelf_elf_gnu_debuglink(main_elf, &main_crc) : NULL;
    int alt = debuglink && (!main_link || strcmp(debuglink, main_link) != 0);
    if (alt) {
        Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
        const char *altname;
        const void *altid;
        ssize_t n = dw ? dwelf_dwarf_gnu_debugaltlink(dw, &altname, &altid) : -1;
        if (n <= 0)
            return -1;
        bits = altid;
        len = (int)n;
    }
    const phasor_symbols_t *s = w->s;
    char name[PATH_MAX], hex[2 * PLOG_SITE_MAX_BUILDID + 1];
    int nids = len > 1 && len <= PLOG_SITE_MAX_BUILDID ? (int)s->o.npaths + 1 : 0;
    for (int i = 0; i < len && i < PLOG_SITE_MAX_BUILDID; i++)
        sprintf(hex + 2 * i, "%02x", bits[i]);
    int nlinks = !alt && debuglink && *debuglink && !strchr(debuglink, '/') &&
                 strcmp(debuglink, ".") != 0 && strcmp(debuglink, "..") != 0 ? 2 : 0;
    for (int k = 0; k < nids + nlinks; k++) {
        int dirfd = w->dirfd;
        const char *root = w->root;
        if (k < nids) {
            size_t r = (size_t)k;
            dirfd = r < s->o.npaths ? s->dirfd[r] : AT_FDCWD;
            root = r < s->o.npaths ? s->o.paths[r] : "";
            if (r < s->o.npaths && dirfd < 0) /* not a directory */
                continue;
            snprintf(name, sizeof(name), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
        } else if ((size_t)snprintf(name, sizeof(name), "%s/%s%s", w->dir,
                                    k == nids ? "" : ".debug/", debuglink) >= sizeof(name)) {
            continue;
        }
        int status;
        char why[PATH_MAX + 64];
        int fd = open_checked(dirfd, name, name, &status, why, sizeof(why));
        if (fd < 0)
            continue;
        if (len > 0 && !has_build_id(fd, bits, len)) {
            close(fd);
            continue;
        }
        if (asprintf(debuginfo_file_name, "%s%s", root, name) < 0)
            *debuginfo_file_name = NULL;
        return fd;
    }
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
    char shown[8192];
    int fd = open_file(s, key->path, m, shown, sizeof(shown));
    if (fd < 0)
        return m;
    m->dwfl = dwfl_begin(&offline_callbacks);
    if (!m->dwfl) {
        close(fd);
        snprintf(m->why, sizeof(m->why), "out of memory");
        return m;
    }
    dwfl_report_begin(m->dwfl);
    m->mod = dwfl_report_offline(m->dwfl, key->path, shown, fd); /* takes fd */
    dwfl_report_end(m->dwfl, NULL, NULL);
    void **ud;
    if (m->mod && dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
        *ud = m->where; /* for find_debuginfo */
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
