/* plog_error.h: the one error type of the log format, the reader and the analyses: a stable
 * code (plog_err_t, texts in one table), and an optional caller-supplied plog_error_t that
 * plog_fail() fills with a one-line message naming the file and where in it. Library code
 * never prints; the command prints err.msg. (models/ keeps its own pnm_err_t: it sees no
 * other layer.) */
#ifndef PLOG_ERROR_H
#define PLOG_ERROR_H

#include <stdint.h>

/* Error codes are stable; plog_strerror() has their one-line texts. */
typedef enum plog_err {
    PLOG_OK = 0,
    PLOG_E_TRUNCATED,     /* input ends inside a field */
    PLOG_E_BADMAGIC,      /* not a phasor log / frame */
    PLOG_E_VERSION,       /* a format version this reader does not know */
    PLOG_E_CRC,           /* header checksum mismatch */
    PLOG_E_CORRUPT,       /* a value out of its range */
    PLOG_E_TOOBIG,        /* a length over the documented limit */
    PLOG_E_NOSPACE,       /* output buffer too small (encoder side) */
    PLOG_E_ZSTD,          /* zstd refused the payload */
    PLOG_E_IO,            /* read/write failure (set by callers) */
    PLOG_E_NOMEM,         /* allocation failure (set by callers) */
    PLOG_E_MISSING,       /* a file or rank is missing (set by callers) */
    PLOG_E_USAGE,         /* bad argument (set by callers) */
    PLOG_E__COUNT
} plog_err_t;

const char *plog_strerror(plog_err_t e);

typedef struct plog_error {
    plog_err_t code;
    uint64_t offset; /* byte offset in the file named by msg, when the error has one */
    char msg[1024];  /* "<file>: offset N: <plog_strerror text> (<detail>)" */
} plog_error_t;

#ifdef PLOG_INTERNAL /* phasor's own layers fill errors; a user of libplogread reads them */
#define PLOG_NO_OFFSET (-1) /* plog_fail: the error is about the file, not a place in it */

/* Fill *err (when err is not NULL) and return code. The message is
 *   "<file>: offset <offset>: <plog_strerror(code)> (<detail>)"   offset >= 0
 *   "<file>: <plog_strerror(code)> (<detail>)"                    offset PLOG_NO_OFFSET
 *   "<detail>"                                                    file NULL
 * with " (<detail>)" left out when fmt is NULL or gives "". */
plog_err_t plog_fail(plog_error_t *err, plog_err_t code, const char *file, int64_t offset,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif /* PLOG_INTERNAL */

#endif
