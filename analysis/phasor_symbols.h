/* phasor_symbols.h: call-site frames to function, file and line, offline, with elfutils'
 * libdw. A log names the modules it wants opened, so a module is opened only as the rules
 * say (doc/phasor.1, "Call sites"): the recorded path must be absolute; with symbol
 * directories (--symbol-path) it is looked up only under them, as DIR/recorded-path and then
 * DIR/base-name, with DIR as the root of the lookup (openat2 RESOLVE_IN_ROOT: no symlink
 * under DIR leads out of it); /proc's magic links are not followed. A candidate is looked at
 * with O_PATH and fstat first (a FIFO, device or directory is never opened), then opened
 * non-blocking and read only if it is a regular file of 1 byte to PHASOR_SYM_MAX_BYTES. Its
 * build id must match the recorded one (a rebuilt binary would give wrong lines), else the
 * frame stays module+offset. Separate debug files are found by the same rules (not libdwfl's
 * standard search, which opens a .gnu_debuglink name with a blocking open): by build id
 * under /usr/lib/debug/.build-id/ (Debian's -dbgsym packages) and each
 * DIR/usr/lib/debug/.build-id/, then by the debuglink name beside the module and in .debug/
 * there; each must carry the build id looked for. */
#ifndef PHASOR_SYMBOLS_H
#define PHASOR_SYMBOLS_H

#include <stdint.h>

#include "plog_callsites.h"

typedef struct phasor_symbols phasor_symbols_t;

enum phasor_sym_status {
    PHASOR_SYM_LINE = 0,     /* function, file and line */
    PHASOR_SYM_FUNCTION = 1, /* function only (no line information) */
    PHASOR_SYM_MODULE = 2,   /* module+offset: no symbol, no debug info */
    PHASOR_SYM_MISSING = 3,  /* the module file is not here (or not readable as ELF) */
    PHASOR_SYM_CHANGED = 4,  /* the module file's build id differs from the run's */
    PHASOR_SYM_NOMODULE = 5, /* the address was in no module at run time */
    PHASOR_SYM_REFUSED = 6,  /* the module is not opened: the rules above (why: modules) */
    PHASOR_SYM_OFF = 7       /* resolution turned off (--no-symbols) */
};

#define PHASOR_SYM_MAX_BYTES (4ll << 30) /* the largest module file read */

typedef struct phasor_symopts {
    int off;                        /* --no-symbols: no module is opened */
    const char *const *paths;       /* --symbol-path directories, in order */
    size_t npaths;
} phasor_symopts_t;

typedef struct phasor_sym {
    int status;            /* enum phasor_sym_status */
    const char *function;  /* NULL unless LINE or FUNCTION */
    const char *file;      /* NULL unless LINE */
    int line;              /* 0 unless LINE */
    const char *module;    /* module path, NULL for NOMODULE */
    uint64_t offset;
} phasor_sym_t;

/* o may be NULL: the recorded absolute paths, resolution on. */
phasor_symbols_t *phasor_symbols_new(const phasor_symopts_t *o);
void phasor_symbols_free(phasor_symbols_t *s);
/* Strings stay valid until phasor_symbols_free. Frames are return addresses: the line of
 * the call instruction is looked up (offset - 1). */
void phasor_symbols_resolve(phasor_symbols_t *s, const plog_cframe_t *f, phasor_sym_t *out);
const char *phasor_sym_status_name(int status); /* "line", "function", "module", ... */
/* The modules tried so far that could not be used, i < count: the recorded path, status
 * (MISSING, CHANGED, REFUSED, OFF) and why, one line. 0 when i is past the last. */
int phasor_symbols_unresolved(const phasor_symbols_t *s, size_t i, const char **path,
                              int *status, const char **why);

#endif
