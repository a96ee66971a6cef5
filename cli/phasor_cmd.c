/* phasor_cmd.c: what every phasor subcommand shares: the bad-usage message, the reader's
 * warnings. */
#include <stdarg.h>
#include <stdio.h>

#include "phasor_cmd.h"
#include "plog_reader.h"

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

void phasor_print_warnings(const char *cmd, const plog_run_t *run)
{
    for (size_t i = 0; i < plog_run_nwarnings(run); i++)
        fprintf(stderr, "phasor %s: warning: %s\n", cmd, plog_run_warning(run, i));
}
