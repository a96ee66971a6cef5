/* plog_error.c: the error codes' texts and the one message formatter (plog_error.h). */
#include "plog_error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const plog_err_text[PLOG_E__COUNT] = {
    [PLOG_OK] = "no error",
    [PLOG_E_TRUNCATED] = "data ends early",
    [PLOG_E_BADMAGIC] = "not a phasor log (bad magic)",
    [PLOG_E_VERSION] = "unsupported format version",
    [PLOG_E_CRC] = "checksum mismatch",
    [PLOG_E_CORRUPT] = "corrupt data",
    [PLOG_E_TOOBIG] = "length over the format's limit",
    [PLOG_E_NOSPACE] = "output buffer too small",
    [PLOG_E_ZSTD] = "compressed payload is damaged",
    [PLOG_E_IO] = "I/O error",
    [PLOG_E_NOMEM] = "out of memory",
    [PLOG_E_MISSING] = "missing file",
    [PLOG_E_USAGE] = "bad argument",
};

const char *plog_strerror(plog_err_t e)
{
    if ((unsigned)e >= PLOG_E__COUNT)
        return "unknown error";
    return plog_err_text[e];
}

plog_err_t plog_fail(plog_error_t *err, plog_err_t code, const char *file, int64_t offset,
                     const char *fmt, ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    err->offset = offset < 0 ? 0 : (uint64_t)offset;
    char detail[sizeof(err->msg)] = "";
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
    }
    if (file == NULL) {
        snprintf(err->msg, sizeof(err->msg), "%s", detail);
        return code;
    }
    int n;
    if (offset >= 0)
        n = snprintf(err->msg, sizeof(err->msg), "%s: offset %lld: %s", file, (long long)offset,
                     plog_strerror(code));
    else
        n = snprintf(err->msg, sizeof(err->msg), "%s: %s", file, plog_strerror(code));
    if (detail[0] != '\0' && n >= 0 && (size_t)n < sizeof(err->msg))
        snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, " (%s)", detail);
    return code;
}
