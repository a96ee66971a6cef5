/* plog_callsites.h: the run's call-site table, read from the ranks' CALLSITES frames.
 *
 * Events carry the id their rank gave a stack (plog_rec_t.callsite). Ids are hashes of the
 * stack, so equal stacks have equal ids on every rank; this table merges the ranks'
 * definitions by id and checks that they agree (a rank that used an id for another stack
 * is named in a warning; its definition is not merged). Modules are merged by path and
 * build id. Logs of format version 1 have no table: every lookup finds nothing.
 *
 * Library code: never prints; errors name the file and the frame's offset. */
#ifndef PLOG_CALLSITES_H
#define PLOG_CALLSITES_H

#include <stddef.h>
#include <stdint.h>

#include "plog_reader.h"
#include "plog_sites.h"

typedef struct plog_cmodule {
    const char *path;          /* as the rank saw it (the executable: /proc/self/exe target) */
    const uint8_t *build_id;   /* GNU build id, NULL if the module had none */
    uint32_t build_id_len;
} plog_cmodule_t;

typedef struct plog_cframe {
    const plog_cmodule_t *module; /* NULL: the address was in no module */
    uint64_t offset;              /* return address minus load bias (raw address if no module) */
} plog_cframe_t;

typedef struct plog_csite {
    uint32_t id;
    uint32_t nframes;
    plog_cframe_t frames[PLOG_SITE_MAX_FRAMES]; /* innermost (the caller of MPI) first */
    uint32_t n_ranks;          /* loaded ranks that defined it */
    int32_t first_rank;
} plog_csite_t;

typedef struct plog_callsites plog_callsites_t;

plog_err_t plog_callsites_load(const plog_run_t *run, plog_callsites_t **out, plog_error_t *err);
void plog_callsites_free(plog_callsites_t *cs);

const plog_csite_t *plog_callsites_find(const plog_callsites_t *cs, uint32_t id);
size_t plog_callsites_count(const plog_callsites_t *cs);
const plog_csite_t *plog_callsites_at(const plog_callsites_t *cs, size_t i); /* by id */
size_t plog_callsites_nwarnings(const plog_callsites_t *cs);
const char *plog_callsites_warning(const plog_callsites_t *cs, size_t i);

#endif
