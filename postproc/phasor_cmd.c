/* phasor_cmd.c: what every phasor subcommand shares: the bad-usage message. */
#include <stdarg.h>
#include <stdio.h>

#include "phasor_cmd.h"

int phasor_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "phasor %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'phasor %s --help'.\n", cmd);
    return PHASOR_EXIT_USAGE;
}
