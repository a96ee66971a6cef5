/* mpitest.h: helpers shared by the MPI integration programs: call checks and rank-ordered output.
 *
 * Every program prints its results through mt_printf(); mt_finish() hands each rank's text to
 * rank 0 with exactly one MPI_Gather on MPI_COMM_WORLD (root 0, MT_OUT_MAX bytes per rank) and
 * then calls MPI_Finalize, so stdout is byte-for-byte deterministic and the checker
 * (check_events.py) knows the last two recorded calls of every rank. Diagnostics go to stderr,
 * which the runner does not compare. */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which GCC 12 takes for a zero-sized
 * array and warns about in every Waitall/Testall/Testsome that ignores statuses. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MT_OUT_MAX 4096 /* bytes of text one rank may hand to rank 0; keep in check_events.py */

typedef struct mt_state {
    int rank, size;
    int errors;
    size_t len;
    char out[MT_OUT_MAX]; /* first sizeof(int) bytes: error count, then NUL-terminated text */
} mt_state_t;

static mt_state_t mt;

/* A diagnostic: stderr only, counted so that the program fails. */
static inline void mt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void mt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[rank %d] %s:%d: ", mt.rank, file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    mt.errors++;
}

/* An MPI call that must succeed. */
#define MT_CHECK(call)                                                                  \
    do {                                                                                \
        int mt_rc_ = (call);                                                            \
        if (mt_rc_ != MPI_SUCCESS)                                                      \
            mt_fail(__FILE__, __LINE__, "%s returned %d", #call, mt_rc_);               \
    } while (0)

/* A result MPI must have produced. */
#define MT_EXPECT(cond, ...)                                                            \
    do {                                                                                \
        if (!(cond))                                                                    \
            mt_fail(__FILE__, __LINE__, __VA_ARGS__);                                   \
    } while (0)

/* Append a line of this rank's deterministic output. */
static inline void mt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void mt_printf(const char *fmt, ...)
{
    size_t off = sizeof(int) + mt.len;
    size_t room = MT_OUT_MAX - off;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(mt.out + off, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        mt_fail(__FILE__, __LINE__, "output of rank %d exceeds MT_OUT_MAX", mt.rank);
        mt.out[MT_OUT_MAX - 1] = '\0';
        mt.len = MT_OUT_MAX - 1 - sizeof(int);
        return;
    }
    mt.len += (size_t)n;
}

/* After MPI_Init: remember rank and size (Comm_rank/size are never recorded). */
static inline void mt_begin(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &mt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt.size);
}

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE, then mt_begin(). 0 when it was provided;
 * otherwise the program cannot run its threads: a failure is counted (said loudly). */
static inline int mt_begin_multiple(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE;
    MT_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    mt_begin();
    if (provided == MPI_THREAD_MULTIPLE)
        return 0;
    mt_fail(__FILE__, __LINE__, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    return -1;
}

/* Gather every rank's text to rank 0, print it in rank order, finalize.
 * Returns the exit status: non-zero if this rank (or, on rank 0, any rank) saw an error. */
static inline int mt_finish(void)
{
    char *all = NULL;
    int total = mt.errors;
    memcpy(mt.out, &mt.errors, sizeof(int));
    if (mt.rank == 0) {
        all = malloc((size_t)mt.size * MT_OUT_MAX);
        if (!all) {
            fprintf(stderr, "mpitest: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rc = MPI_Gather(mt.out, MT_OUT_MAX, MPI_BYTE, all, MT_OUT_MAX, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] report MPI_Gather returned %d\n", mt.rank, rc);
        total++;
    }
    if (mt.rank == 0 && rc == MPI_SUCCESS) {
        for (int r = 0; r < mt.size; r++) {
            const char *blk = all + (size_t)r * MT_OUT_MAX;
            int e;
            memcpy(&e, blk, sizeof(int));
            if (r != 0)
                total += e;
            const char *p = blk + sizeof(int);
            while (*p) {
                const char *nl = strchr(p, '\n');
                size_t n = nl ? (size_t)(nl - p) : strlen(p);
                printf("r%d: %.*s\n", r, (int)n, p);
                p += n + (nl ? 1 : 0);
            }
        }
        printf("result: %s\n", total ? "FAIL" : "PASS");
        fflush(stdout);
    }
    free(all);
    MPI_Finalize();
    return total ? 1 : 0;
}

/* Call between polls (Test, Iprobe ...) that found nothing. On an oversubscribed node a tight
 * polling loop can spin a million times while its peer waits for a core, and every call is a
 * recorded event; 50 us keeps logs small without changing what the program does. */
static inline void mt_poll_pause(void)
{
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
}

/* Deterministic content of element i of a message from world rank src with tag. */
static inline int mt_val(int src, int tag, int i) { return src * 100000 + tag * 100 + i; }

static inline void mt_fill_int(int *buf, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        buf[i] = mt_val(src, tag, i);
}

/* Number of elements of buf that differ from what src would have sent with tag. */
static inline int mt_bad_int(const int *buf, int n, int src, int tag)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += buf[i] != mt_val(src, tag, i);
    return bad;
}

static inline void mt_fill_dbl(double *buf, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        buf[i] = mt_val(src, tag, i) + 0.25;
}

static inline int mt_bad_dbl(const double *buf, int n, int src, int tag)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += buf[i] != mt_val(src, tag, i) + 0.25;
    return bad;
}

/* Count of elements of the given type in a status (MPI_UNDEFINED printed as -1). */
static inline int mt_count(const MPI_Status *st, MPI_Datatype t)
{
    int n = -1;
    MT_CHECK(MPI_Get_count(st, t, &n));
    return n == MPI_UNDEFINED ? -1 : n;
}

/* Print a named result's element count and sum; count it as an error if it differs from want. */
static inline void mt_result_i(const char *what, const int *got, const int *want, int n)
{
    long sum = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        sum += got[i];
        bad += got[i] != want[i];
    }
    mt_printf("%s: n=%d sum=%ld bad=%d\n", what, n, sum, bad);
    MT_EXPECT(!bad, "%s: %d wrong elements", what, bad);
}

static inline void mt_result_d(const char *what, const double *got, const double *want, int n)
{
    double sum = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        sum += got[i];
        bad += got[i] != want[i];
    }
    mt_printf("%s: n=%d sum=%.17g bad=%d\n", what, n, sum, bad);
    MT_EXPECT(!bad, "%s: %d wrong elements", what, bad);
}

static inline void *mt_calloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

#endif
