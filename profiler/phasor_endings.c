/* phasor_endings.c: the ends without MPI_Finalize: fatal signals and exit(). The log is
 * written (every thread's records and an END frame naming the ending) and the process ends
 * exactly as it would have without phasor. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "phasor_core.h"

/* Best effort, documented in doc/design.md: the handler waits (at most ~200 ms) for the
 * writer thread to finish what it holds and for the write lock; if the crash happened while
 * the log was being written, it gives up and the log reads as truncated. It then restores
 * the previous disposition and passes the signal on, so the process ends exactly as it
 * would have. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                    SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction prev_action[NFATAL];
static int handler_installed[NFATAL];

/* The signal that ends the process is the first one: the process would have ended of it
 * without phasor, before any later one arrived. So while its handler writes the log, the
 * thread running it blocks every signal in fatal_signals (sa_mask), and a handler entered on
 * another thread meanwhile waits for the first to finish. crash_ending: 0 no signal being
 * handled, 1 phasor writing (a window that does not exist without phasor: later signals
 * wait), 2 passing the signal on (as without phasor: later signals go their way). */
static volatile sig_atomic_t crash_ending;
static volatile sig_atomic_t crash_owner; /* the thread (tid) handling the first signal */

static int ends_process(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

static void unblock_one(int sig)
{
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

static void sleep_ms(long ms)
{
    struct timespec d = {ms / 1000, ms % 1000 * 1000000};
    nanosleep(&d, NULL);
}

/* The first fatal signal's log: every thread's records and an END frame naming it, once the
 * writer thread has drained (at most ~200 ms) and the write lock is free; kept locked after,
 * the process is about to end. */
static void write_crash_log(int sig)
{
    if (phasor_log_closed || !phasor_writer_ok())
        return;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < 200; i++, sleep_ms(1))
        if (phasor_writer_idle() && pthread_mutex_trylock(&phasor_write_lock) == 0) {
            if (phasor_cfg.signal_delay_ms > 0)
                sleep_ms(phasor_cfg.signal_delay_ms);
            char ending[64];
            snprintf(ending, sizeof(ending), "signal SIG%s",
                     sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
            phasor_flush_all_slots_locked();
            phasor_write_tail_locked(ending);
            return;
        }
}

/* The first signal, passed on as the kernel would have delivered it to prev, the
 * disposition before ours (restored). Returns only if the process carries on. */
static void pass_on(int sig, const struct sigaction *prev, siginfo_t *si, void *uctx)
{
    sigaction(sig, prev, NULL);
    if (ends_process(prev)) {
        /* Ends here, with the other fatal signals still blocked on this thread; still
         * here, the default did nothing (the init of a PID namespace, a debugger that
         * dropped it) and the process carries on, as without phasor. */
        raise(sig);
        unblock_one(sig);
        return;
    }
    if (!(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_IGN)
        return;
    /* The handler before ours (the MPI library's backtrace printer, say) is called here
     * rather than after we return, so that it sees this signal's own siginfo, under the
     * mask the kernel would have set for it. */
    if (prev->sa_flags & SA_RESETHAND) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    }
    sigset_t during, m = ((ucontext_t *)uctx)->uc_sigmask;
    sigorset(&m, &m, &prev->sa_mask);
    if (prev->sa_flags & SA_NODEFER)
        sigdelset(&m, sig);
    else
        sigaddset(&m, sig);
    pthread_sigmask(SIG_SETMASK, &m, &during);
    if (prev->sa_flags & SA_SIGINFO)
        prev->sa_sigaction(sig, si, uctx);
    else
        prev->sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &during, NULL);
    /* Most such handlers end by raising the signal again with its default action; it is
     * pending here, blocked, and ends the process now. */
    struct sigaction now;
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, sig) &&
        sigaction(sig, NULL, &now) == 0 && ends_process(&now))
        unblock_one(sig);
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uctx)
{
    int saved_errno = errno;
    pid_t self = (pid_t)syscall(SYS_gettid);
    size_t idx = 0;
    while (idx < NFATAL && fatal_signals[idx] != sig)
        idx++;
    int installed = idx < NFATAL && handler_installed[idx];
    if (!__atomic_exchange_n(&phasor_in_crash, 1, __ATOMIC_ACQ_REL)) {
        crash_owner = self;
        __atomic_store_n(&crash_ending, 1, __ATOMIC_RELEASE);
        write_crash_log(sig);
        __atomic_store_n(&crash_ending, 2, __ATOMIC_RELEASE);
        errno = saved_errno; /* as the handler before ours would have found it */
        if (installed)
            pass_on(sig, &prev_action[idx], si, uctx);
        /* It carried on: so does the process, unrecorded (the log is closed), and a later
         * fatal signal is handled as a first one again. */
        __atomic_store_n(&crash_ending, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&phasor_in_crash, 0, __ATOMIC_RELEASE);
        errno = saved_errno;
        return;
    }
    /* A later signal. It waits only if it arrived while phasor wrote, never on the writing
     * thread itself (an abort() in the flush), and at most 5 s. */
    if (crash_owner != self && __atomic_load_n(&crash_ending, __ATOMIC_ACQUIRE) == 1)
        for (int i = 0; i < 5000 && __atomic_load_n(&crash_ending, __ATOMIC_ACQUIRE); i++)
            sleep_ms(1);
    if (installed)
        sigaction(sig, &prev_action[idx], NULL);
    errno = saved_errno;
    raise(sig);
}

static void at_exit_without_finalize(void)
{
    if (!phasor_active || phasor_log_closed)
        return;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    phasor_slots_close(0);
    phasor_watch_stop();
    phasor_writer_stop_thread();
    pthread_mutex_lock(&phasor_write_lock);
    if (!phasor_log_closed) {
        phasor_flush_all_slots_locked();
        phasor_write_tail_locked("exit without MPI_Finalize");
    }
    pthread_mutex_unlock(&phasor_write_lock);
}

/* Fault signals are always caught (and passed on); termination requests only when their
 * disposition is the default, since a handler of the application's may mean to carry on.
 * Then exit() without MPI_Finalize. */
void phasor_install_endings(void)
{
    static char altstack[64 << 10]; /* so a stack overflow in the main thread still logs */
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0};
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
        sigaltstack(&ss, NULL);
    for (size_t i = 0; i < NFATAL; i++) {
        struct sigaction cur;
        if (sigaction(fatal_signals[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
            continue;
        int fault = i < 5; /* the first five of fatal_signals */
        if (!fault && ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_fatal_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < NFATAL; j++)
            sigaddset(&sa.sa_mask, fatal_signals[j]);
        if (sigaction(fatal_signals[i], &sa, &prev_action[i]) == 0)
            handler_installed[i] = 1;
    }
    atexit(at_exit_without_finalize);
}
