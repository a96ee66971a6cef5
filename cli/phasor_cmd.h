/* phasor_cmd.h: the phasor command's subcommands; each takes argv[0] = its own name and
 * returns the process exit status (PHASOR_EXIT_*). Every subcommand answers --help. */
#ifndef PHASOR_CMD_H
#define PHASOR_CMD_H

#define PHASOR_EXIT_OK 0    /* success */
#define PHASOR_EXIT_INPUT 1 /* bad input: a one-line reason naming the file went to stderr */
#define PHASOR_EXIT_USAGE 2 /* bad usage */

/* "phasor CMD: <message>" and a pointer to --help on stderr; returns PHASOR_EXIT_USAGE. */
int phasor_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The reader's warnings (plog_run_warning) on stderr, "phasor CMD: warning: ...", for the
 * subcommands whose output has no place of its own for them. */
struct plog_run;
void phasor_print_warnings(const char *cmd, const struct plog_run *run);

int phasor_cmd_run(int argc, char **argv);  /* cli/phasor_run.c */
int phasor_cmd_dump(int argc, char **argv); /* cli/phasor_dump.c */
int phasor_cmd_report(int argc, char **argv); /* cli/phasor_report.c */
int phasor_cmd_steps(int argc, char **argv); /* cli/phasor_steps.c */
int phasor_cmd_predict(int argc, char **argv); /* cli/phasor_predict.c */
int phasor_cmd_phases(int argc, char **argv); /* cli/phasor_phases.c */
int phasor_cmd_export(int argc, char **argv); /* cli/phasor_export.c */

#endif
