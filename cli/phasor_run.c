/* phasor_run.c: `phasor run [options] -- <launcher> <args>`: preload the shim into every rank.
 *
 * The shim must reach the ranks, not the launcher: Open MPI's mpirun forwards nothing to
 * remote daemons unless told with -x, and MPICH's Hydra takes -genv. So phasor inserts the
 * launcher's own forwarding options right after its name, and sets the variables in its own
 * environment too (for launchers it does not know, and for local ranks), then execs. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "phasor_cmd.h"

#ifndef PHASOR_LIBDIR
#define PHASOR_LIBDIR "/usr/local/lib"
#endif

enum launcher { L_UNKNOWN, L_OPENMPI, L_MPICH };

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: phasor run [-o DIR] [--lib PATH] [--dry-run] -- LAUNCHER [ARGS...]\n"
            "\n"
            "Run an MPI job with every rank recorded by libphasor.so.\n"
            "\n"
            "  -o, --output DIR  directory for the rank logs (default: phasor-DATE-TIME-PID)\n"
            "      --lib PATH    libphasor.so to preload (default: next to this phasor, or\n"
            "                    " PHASOR_LIBDIR ")\n"
            "      --dry-run     print the command that would run, and exit\n"
            "  -h, --help        this text\n"
            "\n"
            "Open MPI's mpirun/mpiexec and MPICH's Hydra get the shim and every PHASOR_*\n"
            "variable forwarded to all ranks (-x / -genv); other launchers inherit them.\n"
            "Example: phasor run -o logs -- mpirun -np 4 ./app\n");
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Find libphasor.so: build tree (.libs next to the binary or its libtool wrapper), an
 * installed tree (../lib), then the configured libdir. */
static int find_lib(char *out, size_t cap)
{
    const char *env = getenv("PHASOR_LIB");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return file_exists(out);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            const char *rel[] = {"libphasor.so", ".libs/libphasor.so", "../lib/libphasor.so",
                                 "../.libs/libphasor.so"};
            for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
                if ((size_t)snprintf(out, cap, "%s/%s", exe, rel[i]) >= cap)
                    continue;
                char real[PATH_MAX];
                if (file_exists(out) && realpath(out, real) &&
                    (size_t)snprintf(out, cap, "%s", real) < cap)
                    return 1;
            }
        }
    }
    snprintf(out, cap, "%s/libphasor.so", PHASOR_LIBDIR);
    return file_exists(out);
}

/* Ask the launcher what it is; its --version output names the implementation. */
static enum launcher detect_launcher(const char *prog)
{
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "'%s' --version 2>&1", prog);
    if (strchr(prog, '\'') != NULL)
        return L_UNKNOWN;
    FILE *p = popen(cmd, "r");
    if (!p)
        return L_UNKNOWN;
    char line[512];
    enum launcher l = L_UNKNOWN;
    while (fgets(line, sizeof(line), p)) {
        if (strstr(line, "Open MPI") || strstr(line, "OpenRTE") || strstr(line, "open-mpi"))
            l = L_OPENMPI;
        else if (strstr(line, "HYDRA") || strstr(line, "Hydra") || strstr(line, "MPICH"))
            l = L_MPICH;
    }
    pclose(p);
    return l;
}

extern char **environ;

typedef struct run_opts {
    const char *outdir, *lib; /* -o, --lib (NULL: the defaults) */
    int dry;
    char **cmd; /* the launcher and its arguments */
    int ncmd;
} run_opts_t;

/* PHASOR_CONTINUE with *op filled, or the exit status (--help, bad usage). Options end at
 * "--" or at the first word that is not one (the launcher). */
static int run_parse(int argc, char **argv, run_opts_t *op)
{
    *op = (run_opts_t){0};
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            run_usage(stdout);
            return PHASOR_EXIT_OK;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc) {
            op->outdir = argv[++i];
        } else if (strcmp(a, "--lib") == 0 && i + 1 < argc) {
            op->lib = argv[++i];
        } else if (strcmp(a, "--dry-run") == 0) {
            op->dry = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "phasor run: unknown option '%s'\n", a);
            run_usage(stderr);
            return PHASOR_EXIT_USAGE;
        } else {
            break; /* the launcher, without a -- before it */
        }
    }
    if (i >= argc) {
        fprintf(stderr, "phasor run: no launcher command given\n");
        run_usage(stderr);
        return PHASOR_EXIT_USAGE;
    }
    op->cmd = argv + i;
    op->ncmd = argc - i;
    return PHASOR_CONTINUE;
}

/* The shim to preload, as an absolute path, into lib; PHASOR_EXIT_OK or the exit status. */
static int run_lib(const run_opts_t *op, char lib[PATH_MAX])
{
    if (op->lib) {
        if (!realpath(op->lib, lib) || !file_exists(lib)) {
            fprintf(stderr, "phasor run: %s: no such library\n", op->lib);
            return PHASOR_EXIT_INPUT;
        }
    } else if (!find_lib(lib, PATH_MAX)) {
        fprintf(stderr, "phasor run: cannot find libphasor.so (looked next to this program "
                        "and in %s); give --lib PATH or set PHASOR_LIB\n", PHASOR_LIBDIR);
        return PHASOR_EXIT_INPUT;
    }
    return PHASOR_EXIT_OK;
}

/* The log directory, absolute (ranks may start in another working directory): -o, or
 * phasor-DATE-TIME-PID here. PHASOR_EXIT_OK or the exit status. */
static int run_dir(const run_opts_t *op, char dir[PATH_MAX])
{
    if (op->outdir) {
        snprintf(dir, PATH_MAX, "%s", op->outdir);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, PATH_MAX, "phasor-%s-%ld", stamp, (long)getpid());
    }
    if (dir[0] == '/')
        return PHASOR_EXIT_OK;
    char cwd[PATH_MAX], tmp[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd))) {
        fprintf(stderr, "phasor run: cannot read the working directory: %s\n", strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", cwd, dir) >= sizeof(tmp)) {
        fprintf(stderr, "phasor run: output path too long\n");
        return PHASOR_EXIT_USAGE;
    }
    memcpy(dir, tmp, PATH_MAX);
    return PHASOR_EXIT_OK;
}

/* var's name (before its '=') at dst, NUL-terminated; returns where the next one goes. */
static char *name_copy(char *dst, const char *var)
{
    size_t n = (size_t)(strchr(var, '=') - var);
    memcpy(dst, var, n);
    dst[n] = '\0';
    return dst + n + 1;
}

/* The launcher's new argv: its name, its options forwarding the preload and every PHASOR_*
 * variable to all ranks (Open MPI -x, Hydra -genv), then its own arguments; NULL when out of
 * memory. An unknown launcher gets the preload in the environment it inherits instead. The
 * variables' names are copied into *names (one block, NUL-separated): free both. */
static char **run_argv(enum launcher l, char **cmd, int ncmd, const char *preload, char **names)
{
    int nvars = 0;
    size_t room = 1;
    for (char **e = environ; *e; e++) {
        nvars++;
        room += strlen(*e) + 1;
    }
    char **nv = calloc((size_t)(ncmd + 3 * nvars + 8), sizeof(char *));
    char *nm = *names = malloc(room);
    if (!nv || !nm) {
        free(nv);
        free(nm);
        return NULL;
    }
    int k = 0;
    nv[k++] = cmd[0];
    if (l == L_OPENMPI) {
        static char ldp[2 * PATH_MAX + 16];
        snprintf(ldp, sizeof(ldp), "LD_PRELOAD=%s", preload);
        nv[k++] = "-x";
        nv[k++] = ldp;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "PHASOR_", 7) != 0)
                continue;
            nv[k++] = "-x";
            nv[k++] = nm;
            nm = name_copy(nm, *e);
        }
    } else if (l == L_MPICH) {
        nv[k++] = "-genv";
        nv[k++] = "LD_PRELOAD";
        nv[k++] = (char *)preload;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "PHASOR_", 7) != 0)
                continue;
            const char *eq = strchr(*e, '=');
            nv[k++] = "-genv";
            nv[k++] = nm;
            nm = name_copy(nm, *e);
            nv[k++] = (char *)(eq + 1);
        }
    } else {
        setenv("LD_PRELOAD", preload, 1);
    }
    for (int j = 1; j < ncmd; j++)
        nv[k++] = cmd[j];
    assert(k < ncmd + 3 * nvars + 8);
    nv[k] = NULL;
    return nv;
}

int phasor_cmd_run(int argc, char **argv)
{
    run_opts_t op;
    int status = run_parse(argc, argv, &op);
    if (status != PHASOR_CONTINUE)
        return status;
    char lib[PATH_MAX], dir[PATH_MAX];
    if ((status = run_lib(&op, lib)) != PHASOR_EXIT_OK ||
        (status = run_dir(&op, dir)) != PHASOR_EXIT_OK)
        return status;

    const char *old = getenv("LD_PRELOAD");
    static char preload[2 * PATH_MAX + 2];
    if (old && *old)
        snprintf(preload, sizeof(preload), "%s:%s", lib, old);
    else
        snprintf(preload, sizeof(preload), "%s", lib);
    setenv("PHASOR_DIR", dir, 1);
    setenv("PHASOR_SUMMARY", "1", 0); /* the line that says where the logs went */
    enum launcher l = detect_launcher(op.cmd[0]);
    char *names;
    char **nv = run_argv(l, op.cmd, op.ncmd, preload, &names);
    if (!nv) {
        fprintf(stderr, "phasor run: out of memory\n");
        return PHASOR_EXIT_INPUT;
    }
    if (op.dry) {
        printf("PHASOR_DIR=%s", dir);
        if (l == L_UNKNOWN)
            printf(" LD_PRELOAD=%s", preload);
        for (int j = 0; nv[j]; j++)
            printf(" %s", nv[j]);
        printf("\n");
        free(nv);
        free(names);
        return PHASOR_EXIT_OK;
    }
    fflush(NULL);
    execvp(nv[0], nv);
    int e = errno;
    fprintf(stderr, "phasor run: cannot run '%s': %s\n", nv[0], strerror(e));
    free(nv);
    free(names);
    return e == ENOENT ? 127 : 126;
}
