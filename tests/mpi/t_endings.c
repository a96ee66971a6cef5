/* t_endings.c: ways a rank can end other than MPI_Finalize, to check that the shim leaves a
 * readable log that says how it ended and does not change how the job ends.
 * Usage: t_endings MODE   (MODE: finalize, segv, abort, mpi_abort, exit, term, abort_term,
 *                          writer_mask, segv_nodefer, segv_slow_term)
 * Every rank does ITERS Allreduce + a ring Sendrecv, prints one line, then rank 1 (or rank 0
 * alone) ends as MODE says; the other ranks wait in a Barrier until the launcher stops
 * them (or, for finalize and exit, do the same thing). */
#include <dirent.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ITERS 5

static int aborting;
static volatile sig_atomic_t in_handler;

/* abort_term: a termination request 20 ms after abort() began, as a launcher sends when a
 * rank dies. Without the shim abort() has ended the process long before; with it, the
 * request arrives while the shim writes the log (PHASOR_TEST_SIGNAL_DELAY_MS holds that
 * open), and the process must still end of SIGABRT. */
static void *term_soon(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&aborting, __ATOMIC_ACQUIRE))
        ;
    struct timespec d = {0, 20 * 1000000};
    nanosleep(&d, NULL);
    kill(getpid(), SIGTERM);
    return NULL;
}

/* segv_nodefer: the application's own SIGSEGV handler, installed before MPI_Init with
 * SA_NODEFER | SA_RESETHAND (what signal() gives under -std=c11), raises the signal again:
 * the default action ends the process inside the handler, and _exit(5) is never reached. */
static void nodefer_handler(int sig)
{
    raise(sig);
    _exit(5);
}

/* segv_slow_term: the application's SIGSEGV handler takes 2 s, and a SIGTERM comes 100 ms
 * into it: the process ends of SIGTERM, not by the handler's _exit(9). */
static void slow_handler(int sig)
{
    (void)sig;
    in_handler = 1;
    struct timespec d = {2, 0};
    nanosleep(&d, NULL);
    _exit(9);
}

static void *term_in_handler(void *arg)
{
    (void)arg;
    while (!in_handler) {
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
    struct timespec d = {0, 100 * 1000000};
    nanosleep(&d, NULL);
    kill(getpid(), SIGTERM);
    return NULL;
}

static void install(int sig, void (*h)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* writer_mask: whether the shim's writer thread (named phasor-writer) blocks the termination
 * signals, read from /proc; to stderr, since a job without the shim has no such thread. */
static void report_writer_mask(int rank)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d))) {
        char path[300], line[256];
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int writer = fgets(line, sizeof(line), f) && strncmp(line, "phasor-writer", 13) == 0;
        fclose(f);
        if (!writer)
            continue;
        found = 1;
        snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
        /* A new thread runs with every signal blocked until it first gets a core and sets
         * its own mask (glibc's pthread_create); with the ranks spinning in MPI that can
         * take a while, so a mask with everything blocked is read again. */
        const unsigned long long everything = ~0ULL & ~(1ULL << (SIGKILL - 1)) &
                                              ~(1ULL << (SIGSTOP - 1));
        unsigned long long blk = everything;
        for (int tries = 0; tries < 500 && blk == everything; tries++) {
            if (tries) {
                struct timespec ms = {0, 10 * 1000000};
                nanosleep(&ms, NULL);
            }
            if ((f = fopen(path, "r"))) {
                while (fgets(line, sizeof(line), f))
                    if (sscanf(line, "SigBlk: %llx", &blk) == 1)
                        break;
                fclose(f);
            }
        }
        /* blocked: what is sent to the process; open: faults the writer itself may raise */
        const int want[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGXCPU};
        const int open_[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
        int ok = 1;
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
            ok &= (int)(blk >> (want[i] - 1) & 1);
        for (size_t i = 0; i < sizeof(open_) / sizeof(open_[0]); i++)
            ok &= !(int)(blk >> (open_[i] - 1) & 1);
        fprintf(stderr, "writer-mask rank %d: %s (SigBlk %llx)\n", rank,
                ok ? "blocks the termination signals, not the faults" : "wrong mask", blk);
    }
    if (d)
        closedir(d);
    if (!found)
        fprintf(stderr, "writer-mask rank %d: no writer thread\n", rank);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "finalize";
    if (strcmp(mode, "segv_nodefer") == 0)
        install(SIGSEGV, nodefer_handler, SA_NODEFER | SA_RESETHAND);
    if (strcmp(mode, "segv_slow_term") == 0)
        install(SIGSEGV, slow_handler, 0);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sum = 0;
    for (int i = 0; i < ITERS; i++) {
        int v = rank + i, s = 0, r = -1;
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &r, 1, MPI_INT,
                     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += s + r;
    }
    printf("rank %d of %d: %s, sum %d\n", rank, size, mode, sum);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    const int ender = size > 1 ? 1 : 0;

    if (strcmp(mode, "writer_mask") == 0)
        report_writer_mask(rank);
    if (strcmp(mode, "finalize") == 0 || strcmp(mode, "writer_mask") == 0) {
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "exit") == 0) { /* every rank leaves without MPI_Finalize */
        exit(3);
    }
    if (rank == ender) {
        if (strcmp(mode, "segv") == 0 || strcmp(mode, "segv_nodefer") == 0) {
            volatile int *p = NULL;
            *p = 1;
        } else if (strcmp(mode, "segv_slow_term") == 0) {
            pthread_t t;
            if (pthread_create(&t, NULL, term_in_handler, NULL) == 0) {
                volatile int *p = NULL;
                *p = 1;
            }
        } else if (strcmp(mode, "abort") == 0) {
            abort();
        } else if (strcmp(mode, "abort_term") == 0) {
            pthread_t t;
            if (pthread_create(&t, NULL, term_soon, NULL) == 0) {
                __atomic_store_n(&aborting, 1, __ATOMIC_RELEASE);
                abort();
            }
        } else if (strcmp(mode, "mpi_abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(mode, "term") == 0) {
            raise(SIGTERM);
        }
        fprintf(stderr, "t_endings: unknown mode %s\n", mode);
        return 2;
    }
    /* the others: blocked in MPI until the launcher takes the job down */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
