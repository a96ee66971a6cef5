/* phasor_probe_main.c: phasor-probe, the network-health probe as an MPI program:
 * `mpirun -np N phasor-probe [-o model.json]` measures the network between the ranks
 * (phasor_probe.h) and writes the samples and the models fitted to them as a model file
 * (doc/model-format.md) for `phasor predict --model`. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sched.h"
#include "model_file.h"
#include "phasor_probe.h"

static void usage(FILE *o)
{
    fprintf(o,
            "Usage: mpirun -np N phasor-probe [-o FILE] [--mode quick|full] [--budget S]\n"
            "                                 [--reps N] [--rounds N] [--seed N]\n"
            "Measures the network between the ranks and writes a model file (default\n"
            "phasor-model.json): the quantiles of every pair's and source's message times and\n"
            "the lookup, piecewise Hockney and LogGP models fitted to them.\n"
            "  --mode quick   every pair exchanges 4 KiB..1 MiB both ways at once, a round of\n"
            "                 pairs at a time after a barrier, until the budget is spent (default)\n"
            "  --mode full    every ordered pair, 0 B and 512 B..2 MiB, one message in flight\n"
            "  --budget S     quick: seconds to spend (default 0.8)\n"
            "  --reps N       quick: at least N repetitions (3); full: N per pair and size (5)\n"
            "  --rounds N     quick: partners per rank (tournament rounds, default 16)\n"
            "  --seed N       the random orders (default fixed, so runs are comparable)\n"
            "  --breaks SPEC  Hockney segments: study (default), detect, or sizes 16384,65536\n"
            "Exit status: 0 ok, 1 the file could not be written or the probe failed, 2 bad usage.\n");
}

/* Every rank parses the same argv, so they agree without messages. 0 run, 1 help, -1 bad. */
static pnm_opts_t fitopts;

static int parse(int argc, char **argv, pprobe_opts_t *o, const char **out, char *why,
                 size_t cap)
{
    static const struct option opts[] = {
        {"mode", required_argument, NULL, 'm'}, {"budget", required_argument, NULL, 'b'},
        {"reps", required_argument, NULL, 'r'}, {"rounds", required_argument, NULL, 'R'},
        {"seed", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
        {"breaks", required_argument, NULL, 'B'},
        {NULL, 0, NULL, 0}};
    pprobe_defaults(PPROBE_QUICK, o);
    *out = "phasor-model.json";
    int reps = -1;
    opterr = 0;
    int ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': *out = optarg; break;
        case 'm':
            if (!strcmp(optarg, "quick") || !strcmp(optarg, "full")) {
                double b = o->budget_s;
                int rounds = o->max_rounds;
                uint64_t seed = o->seed;
                pprobe_defaults(!strcmp(optarg, "full") ? PPROBE_FULL : PPROBE_QUICK, o);
                o->budget_s = b;
                o->max_rounds = rounds;
                o->seed = seed;
            } else {
                snprintf(why, cap, "--mode: '%s' is not quick or full", optarg);
                return -1;
            }
            break;
        case 'b':
            o->budget_s = strtod(optarg, &end);
            if (*end || !(o->budget_s > 0 && o->budget_s < 3600)) {
                snprintf(why, cap, "--budget: '%s' is not a number of seconds", optarg);
                return -1;
            }
            break;
        case 'r':
            reps = (int)strtol(optarg, &end, 10);
            if (*end || reps < 1 || reps > 100000) {
                snprintf(why, cap, "--reps: '%s' is not a count from 1 to 100000", optarg);
                return -1;
            }
            break;
        case 'R':
            o->max_rounds = (int)strtol(optarg, &end, 10);
            if (*end || o->max_rounds < 1) {
                snprintf(why, cap, "--rounds: '%s' is not a positive count", optarg);
                return -1;
            }
            break;
        case 's':
            o->seed = strtoull(optarg, &end, 0);
            if (*end) {
                snprintf(why, cap, "--seed: '%s' is not a number", optarg);
                return -1;
            }
            break;
        case 'B':
            if (pnm_opts_parse_breaks(optarg, &fitopts) != 0) {
                snprintf(why, cap, "--breaks: '%s' is not study, detect or increasing sizes",
                         optarg);
                return -1;
            }
            break;
        case 'h': return 1;
        default:
            snprintf(why, cap, optopt ? "%s needs a value" : "unknown option '%s'",
                     argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(why, cap, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (reps > 0) {
        o->reps_min = reps;
        if (o->reps_max < reps)
            o->reps_max = reps;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    pprobe_opts_t o;
    const char *out;
    char why[1024] = "";
    int p = parse(argc, argv, &o, &out, why, sizeof(why));
    if (p != 0) {
        if (me == 0) {
            if (p > 0)
                usage(stdout);
            else
                fprintf(stderr, "phasor-probe: %s (phasor-probe --help)\n", why);
        }
        MPI_Finalize();
        return p > 0 ? 0 : 2;
    }
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "phasor-probe: needs at least 2 ranks (mpirun -np N)\n");
        MPI_Finalize();
        return 2;
    }
    pprobe_result_t res;
    int rc = pprobe_run(MPI_COMM_WORLD, 0, &o, &res);
    int status = 0;
    if (rc != MPI_SUCCESS) {
        if (me == 0)
            fprintf(stderr, "phasor-probe: the probe failed (MPI error %d)\n", rc);
        status = 1;
    } else if (me == 0) {
        pmf_t f;
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int len = 0;
        MPI_Get_library_version(lib, &len);
        /* LogGP's handshake at the library's eager size between hosts, where it was
         * measured (the whole string: MPICH names its device on a later line); on one
         * host the pairs go by shared memory, whose size is another */
        const char *whose;
        int one_host = 1;
        for (int32_t r = 1; res.hosts && r < res.nranks; r++)
            one_host &= strcmp(res.hosts[r], res.hosts[0]) == 0;
        fitopts.rndv = one_host ? 0 : pcs_eager_size(lib, &whose);
        if (pmf_from_probe(&f, &res.info, res.nranks, res.entries, res.n_entries) != 0) {
            fprintf(stderr, "phasor-probe: out of memory\n");
            status = 1;
        } else {
            pmf_set_library(&f, lib);
            f.hosts = res.hosts;
            plog_error_t err;
            if (pmf_fit_all(&f, &fitopts, &err) != PLOG_OK) {
                fprintf(stderr, "phasor-probe: %s\n", err.msg);
                status = 1;
            } else if (pmf_write(out, &f, &err) != PLOG_OK) {
                fprintf(stderr, "phasor-probe: %s\n", err.msg);
                status = 1;
            } else {
                printf("phasor-probe: %s, %d ranks, %.3f s, %u repetitions: wrote %s (lookup%s%s)\n",
                       f.mode == PPROBE_FULL ? "full" : "quick", f.nranks, f.elapsed_s, f.reps,
                       out, f.has[PNM_HOCKNEY] ? ", hockney" : "", f.has[PNM_LOGGP] ? ", loggp" : "");
            }
        }
        f.hosts = NULL; /* res owns them */
        pmf_free(&f);
        pprobe_result_free(&res);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
