/* phasor_cmd.h: the phasor command's subcommands; each takes argv[0] = its own name and
 * returns the process exit status (PHASOR_EXIT_*). Every subcommand answers --help. Also
 * what they share: option parsing's messages, opening the run, the loop over its events,
 * finishing the output. */
#ifndef PHASOR_CMD_H
#define PHASOR_CMD_H

#include <stddef.h>
#include <stdint.h>

#define PHASOR_EXIT_OK 0    /* success */
#define PHASOR_EXIT_INPUT 1 /* bad input: a one-line reason naming the file went to stderr */
#define PHASOR_EXIT_USAGE 2 /* bad usage */
/* An option parser's answer when the subcommand is to go on (not an exit status). */
#define PHASOR_CONTINUE (-1)

struct plog_run;
struct plog_rec;
struct out;

/* "phasor CMD: <message>" and a pointer to --help on stderr; returns PHASOR_EXIT_USAGE. */
int phasor_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long's answer c for what it did not accept, with opterr = 0 and an optstring that
 * begins with ':': ':' an option without its value ("--rank needs a value"), anything else
 * an option not known. Returns PHASOR_EXIT_USAGE after the message. */
int phasor_getopt_error(const char *cmd, int c, char **argv);

/* --rank R: *rank = R, a world rank (0 .. INT32_MAX); else the usage error. Returns
 * PHASOR_EXIT_OK or PHASOR_EXIT_USAGE. */
int phasor_rank_arg(const char *cmd, const char *arg, long *rank);

/* A finite number in s for option opt into *v: at least lo (above lo when strict); else the
 * usage error ("OPT: 'S' is not a number >= LO" / "> LO"). PHASOR_EXIT_OK or _USAGE. */
int phasor_num_arg(const char *cmd, const char *opt, const char *s, double lo, int strict,
                   double *v);

/* A duration: "200ms", "1.5s", "5000us", "100000ns", or a bare number of seconds, into ns
 * (>= 1); -1 when it is none of these. */
int64_t phasor_duration_ns(const char *s);
/* A time in seconds for a table: "12.34 us", "1.234 ms", "2.5000 s"; "-" when not finite. */
void phasor_fmt_seconds(char *b, size_t n, double s);

/* The form of a subcommand whose output is one table: text, or --csv / --json (tablew.h). */
typedef enum phasor_fmt { PHASOR_FMT_TEXT, PHASOR_FMT_CSV, PHASOR_FMT_JSON } phasor_fmt_t;
/* --csv (want PHASOR_FMT_CSV) or --json given: into *fmt, or the usage error when the other
 * one came before ("--csv and --json exclude each other"). PHASOR_EXIT_OK or _USAGE. */
int phasor_fmt_arg(const char *cmd, phasor_fmt_t want, phasor_fmt_t *fmt);

/* After the options: exactly one argument, the log, into *path; else the usage error
 * ("which log? give a log directory[ or a rank file]", "unexpected argument"). dir_only: the
 * subcommand reads whole runs only. Returns PHASOR_EXIT_OK or PHASOR_EXIT_USAGE. */
int phasor_log_arg(const char *cmd, int argc, char **argv, int dir_only, const char **path);

/* Open the log at path into *run; rank >= 0: world rank rank must be in it. On failure
 * the reason on stderr ("phasor CMD: ...") and the exit status: PHASOR_EXIT_USAGE for what
 * the reader calls bad usage and for a rank the log does not have, else PHASOR_EXIT_INPUT. */
int phasor_open_run(const char *cmd, const char *path, long rank, struct plog_run **run);

/* Every event of run, all ranks merged by time, to fn(ctx, e) until fn returns nonzero (fn
 * says why on stderr). PHASOR_EXIT_OK; PHASOR_EXIT_INPUT when fn stopped, or after the
 * reader's error on stderr ("phasor CMD: <reason>"). The iterator is closed on return. */
int phasor_each_event(const char *cmd, struct plog_run *run,
                      int (*fn)(void *ctx, const struct plog_rec *e), void *ctx);

/* The reader's warnings (plog_run_warning) on stderr, "phasor CMD: warning: ...", for the
 * subcommands whose output has no place of its own for them. */
void phasor_print_warnings(const char *cmd, const struct plog_run *run);

/* Flush o and its FILE; PHASOR_EXIT_OK, or PHASOR_EXIT_INPUT after "phasor CMD: writing the
 * output: <reason>" when the bytes did not all get out. */
int phasor_finish_out(const char *cmd, struct out *o);

int phasor_cmd_run(int argc, char **argv);  /* cli/phasor_run.c */
int phasor_cmd_dump(int argc, char **argv); /* cli/phasor_dump.c */
int phasor_cmd_report(int argc, char **argv); /* cli/phasor_report.c */
int phasor_cmd_steps(int argc, char **argv); /* cli/phasor_steps.c */
int phasor_cmd_predict(int argc, char **argv); /* cli/phasor_predict.c */
int phasor_cmd_health(int argc, char **argv);  /* cli/phasor_health.c */
int phasor_cmd_regimes(int argc, char **argv); /* cli/phasor_regimes.c */
int phasor_cmd_replay(int argc, char **argv);  /* cli/phasor_replay.c */
int phasor_cmd_phases(int argc, char **argv); /* cli/phasor_phases.c */
int phasor_cmd_export(int argc, char **argv); /* cli/phasor_export.c */
int phasor_cmd_oscillate(int argc, char **argv); /* cli/phasor_oscillate.c */

#endif
