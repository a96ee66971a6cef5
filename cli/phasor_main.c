/* phasor_main.c: the phasor command: dispatches `phasor <subcommand> ...` to its handler. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "phasor_cmd.h"
#include "plog_format.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} subcommands[] = {
    {"run", phasor_cmd_run, "run an MPI program under the profiler (phasor run -- mpirun ...)"},
    {"dump", phasor_cmd_dump, "print every decoded event of a log (--rank, --csv, --json)"},
    {"report", phasor_cmd_report, "profile of a log: time per rank/function, imbalance, matrix"},
    {"steps", phasor_cmd_steps,
     "the point-to-point steps inside every collective call (--csv, --json)"},
    {"predict", phasor_cmd_predict, "collective times predicted by network models vs measured"},
    {"phases", phasor_cmd_phases, "phases of the ranks and coupled-oscillator metrics (-o DIR)"},
    {"oscillate", phasor_cmd_oscillate, "the oscillator model fitted to a run, side by side"},
    {"health", phasor_cmd_health, "the network over the whole run, from its messages and probes"},
    {"regimes", phasor_cmd_regimes, "latency regimes of the run's timing series (HMM, BIC)"},
    {"replay", phasor_cmd_replay, "the whole run replayed against a network model; what-ifs"},
    {"export", phasor_cmd_export, "a log as OTF2, Chrome/Perfetto JSON or CSV (--format, -o)"},
};

#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *f)
{
    fprintf(f, "Usage: phasor <subcommand> [options] [arguments]\n"
               "       phasor --help | --version\n"
               "       phasor help <subcommand>\n\nSubcommands:\n");
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(f, "\nEach subcommand takes --help. Exit status: 0 success, 1 bad input, "
               "2 bad usage.\n");
}

/* The subcommand called name; NULL after the message when there is none. */
static const struct subcommand *find(const char *name)
{
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        if (strcmp(subcommands[i].name, name) == 0)
            return &subcommands[i];
    fprintf(stderr, "phasor: unknown subcommand '%s'; try 'phasor --help'\n", name);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return PHASOR_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
        (strcmp(cmd, "help") == 0 && argc < 3)) {
        usage(stdout);
        return PHASOR_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("phasor %s (log format %u)\n", PACKAGE_VERSION, PLOG_VERSION);
        return PHASOR_EXIT_OK;
    }
    int help = strcmp(cmd, "help") == 0; /* phasor help SUBCOMMAND = its --help */
    const struct subcommand *sc = find(help ? argv[2] : cmd);
    if (sc == NULL)
        return PHASOR_EXIT_USAGE;
    if (help) {
        char opt[] = "--help";
        char *hargv[] = {argv[2], opt, NULL};
        return sc->fn(2, hargv);
    }
    return sc->fn(argc - 1, argv + 1);
}
