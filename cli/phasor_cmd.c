/* phasor_cmd.c: what every phasor subcommand shares: the bad-usage messages, opening the
 * run, the loop over its merged events, the reader's warnings, finishing the output. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_cmd.h"
#include "phasor_out.h"
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

int phasor_getopt_error(const char *cmd, int c, char **argv)
{
    /* optind has moved past the option getopt refused (and past its missing value) */
    if (c == ':')
        return phasor_usage_error(cmd, "%s needs a value", argv[optind - 1]);
    return phasor_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int phasor_rank_arg(const char *cmd, const char *arg, long *rank)
{
    char *end;
    errno = 0;
    long r = strtol(arg, &end, 10);
    if (errno != 0 || *end != '\0' || end == arg || r < 0 || r > INT32_MAX)
        return phasor_usage_error(cmd, "--rank needs a world rank (a number >= 0), not '%s'", arg);
    *rank = r;
    return PHASOR_EXIT_OK;
}

int phasor_fmt_arg(const char *cmd, phasor_fmt_t want, phasor_fmt_t *fmt)
{
    assert(want != PHASOR_FMT_TEXT);
    if (*fmt != PHASOR_FMT_TEXT && *fmt != want)
        return phasor_usage_error(cmd, "%s", "--csv and --json exclude each other");
    *fmt = want;
    return PHASOR_EXIT_OK;
}

int phasor_log_arg(const char *cmd, int argc, char **argv, int dir_only, const char **path)
{
    if (optind >= argc)
        return phasor_usage_error(cmd, "which log? give a log directory%s",
                                  dir_only ? "" : " or a rank file");
    if (argc - optind > 1)
        return phasor_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    *path = argv[optind];
    return PHASOR_EXIT_OK;
}

int phasor_open_run(const char *cmd, const char *path, long rank, plog_run_t **run)
{
    plog_error_t err;
    *run = NULL;
    if (plog_run_open(path, run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor %s: %s\n", cmd, err.msg);
        return err.code == PLOG_E_USAGE ? PHASOR_EXIT_USAGE : PHASOR_EXIT_INPUT;
    }
    if (rank >= 0 && (rank > INT32_MAX || plog_run_rank(*run, (int32_t)rank) == NULL)) {
        fprintf(stderr, "phasor %s: %s: no rank %ld in this log (world size %d)\n", cmd, path,
                rank, (int)plog_run_world_size(*run));
        plog_run_close(*run);
        *run = NULL;
        return PHASOR_EXIT_USAGE;
    }
    return PHASOR_EXIT_OK;
}

int phasor_each_event(const char *cmd, plog_run_t *run,
                      int (*fn)(void *ctx, const plog_rec_t *e), void *ctx)
{
    plog_error_t err;
    plog_iter_t *it = NULL;
    if (plog_iter_open(run, PLOG_ALL_RANKS, &it, &err) != PLOG_OK) {
        fprintf(stderr, "phasor %s: %s\n", cmd, err.msg);
        return PHASOR_EXIT_INPUT;
    }
    int status = PHASOR_EXIT_OK;
    const plog_rec_t *e;
    plog_err_t ie;
    while ((ie = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL)
        if (fn(ctx, e) != 0) {
            status = PHASOR_EXIT_INPUT;
            break;
        }
    if (ie != PLOG_OK) {
        fprintf(stderr, "phasor %s: %s\n", cmd, err.msg);
        status = PHASOR_EXIT_INPUT;
    }
    plog_iter_close(it);
    return status;
}

void phasor_print_warnings(const char *cmd, const plog_run_t *run)
{
    for (size_t i = 0; i < plog_run_nwarnings(run); i++)
        fprintf(stderr, "phasor %s: warning: %s\n", cmd, plog_run_warning(run, i));
}

int phasor_finish_out(const char *cmd, out_t *o)
{
    o_flush(o);
    if (fflush(o->f) != 0 || ferror(o->f)) {
        fprintf(stderr, "phasor %s: writing the output: %s\n", cmd, strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    return PHASOR_EXIT_OK;
}

/* "200ms", "1.5s", "5000us", "100000ns", "2" (seconds) into ns > 0; -1 when not. */
int phasor_num_arg(const char *cmd, const char *opt, const char *s, double lo, int strict,
                   double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(x) || x < lo || (strict && x == lo))
        return phasor_usage_error(cmd, "%s: '%s' is not a number %s %g", opt, s,
                                  strict ? ">" : ">=", lo);
    *v = x;
    return PHASOR_EXIT_OK;
}

int64_t phasor_duration_ns(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0) || !isfinite(v))
        return -1;
    double mul = 1e9;
    if (*end == '\0' || strcmp(end, "s") == 0)
        mul = 1e9;
    else if (strcmp(end, "ms") == 0)
        mul = 1e6;
    else if (strcmp(end, "us") == 0)
        mul = 1e3;
    else if (strcmp(end, "ns") == 0)
        mul = 1;
    else
        return -1;
    double ns = v * mul;
    return ns >= 1 && ns < 9e18 ? (int64_t)ns : -1;
}

void phasor_fmt_seconds(char *b, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(b, n, "-");
    else if (s < 1e-3)
        snprintf(b, n, "%.2f us", s * 1e6);
    else if (s < 1)
        snprintf(b, n, "%.3f ms", s * 1e3);
    else
        snprintf(b, n, "%.4f s", s);
}
