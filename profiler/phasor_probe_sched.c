/* phasor_probe_sched.c: when the shim probes the network (PHASOR_PROBE, the protocols are
 * phasor_probe.c's): once inside MPI_Init (quick|full), then, if asked, a short quick probe at
 * the end of every N-th blocking collective on a communicator of every rank (MPI_COMM_WORLD,
 * its duplicates, a Cartesian communicator over it; every=N) and at MPI_Pcontrol(2)
 * (pcontrol). Each probe is a PROBE frame of its own with its number, what
 * started it and its times (doc/log-format.md).
 *
 * A probe is collective: every rank must reach it at the same point. Collectives on one
 * communicator are called in the same order on every rank (MPI requires it, threads or not),
 * and collectives on communicators that overlap must be called in an order consistent on
 * every rank, or the program may deadlock (MPI-3.1 section 5.14, "Correctness"); so the count
 * of blocking collectives on communicators of every rank is the same on every rank at each
 * one of them (an erroneous program that calls two of them in different orders on different
 * ranks, and gets away with it, can hang under every=N); Pcontrol(2) is taken as a collective on MPI_COMM_WORLD (the application calls it
 * alike on every rank). The later probes run on a duplicate of MPI_COMM_WORLD made at the
 * first of them (a message of the application's can never match one of the probe's) and freed
 * at MPI_Finalize; phasor_shim_comm (Init, Finalize) is never in use at the same time. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#include "phasor_core.h"
#include "phasor_probe.h"

uint32_t phasor_probe_every;
static int pcontrol_on;
static double budget_s;
/* Blocking collectives on communicators of every rank so far. Not a read-modify-write: two threads never
 * count at once, since MPI requires the application to order the collectives of one
 * communicator (the relaxed atomics only keep the compiler honest). */
static uint64_t world_colls;

/* Held through a later probe and while its communicator is freed: an application that
 * breaks the ordering rule (Pcontrol(2) on one thread during a collective on another) gets
 * its probes one after the other, never two interleaved on one communicator. */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm probe_comm = MPI_COMM_NULL;
static uint32_t next_seq = 1; /* 0 is the probe at MPI_Init's */
static int probes_off;        /* stopped: MPI_Finalize began, or a probe failed */

/* The probe's results as this rank's PROBE frame. */
static void write_probe(const pprobe_result_t *res, const plog_probe_when_t *when)
{
    size_t cap = PLOG_PROBE_BOUND(res->n_entries);
    uint8_t *buf = malloc(cap);
    if (!buf)
        return;
    plog_wcur_t w = {buf, buf + cap, 0};
    plog_probe_encode(&w, &res->info, when, res->entries, res->n_entries);
    assert(!w.overflow);
    phasor_write_frame(PLOG_FRAME_PROBE, (uint32_t)res->n_entries, buf, (size_t)(w.p - buf));
    free(buf);
}

/* The probe at MPI_Init; on phasor_shim_comm (MPI_COMM_WORLD there). Every rank must take
 * part, so the ranks first agree on the whole setting; then on whether to probe later. */
void phasor_probe_at_init(void)
{
    int mine[4] = {phasor_cfg.probe, (int)phasor_cfg.probe_every, phasor_cfg.probe_pcontrol,
                   (int)phasor_cfg.probe_budget_ms};
    int lo_hi[8], agreed[8];
    for (int i = 0; i < 4; i++) {
        lo_hi[i] = mine[i];
        lo_hi[4 + i] = -mine[i];
    }
    if (PMPI_Allreduce(lo_hi, agreed, 8, MPI_INT, MPI_MIN, phasor_shim_comm) != MPI_SUCCESS)
        return;
    int later = phasor_cfg.probe_every > 0 || phasor_cfg.probe_pcontrol;
    int same_later = 1;
    for (int i = 1; i < 4; i++)
        same_later &= agreed[i] == -agreed[4 + i];
    if (later && !same_later && phasor_world_rank == 0)
        phasor_warn("PHASOR_PROBE's every, pcontrol or budget differ between ranks: "
                    "no probes after MPI_Init");
    if (same_later) {
        budget_s = (double)phasor_cfg.probe_budget_ms * 1e-3;
        __atomic_store_n(&pcontrol_on, phasor_cfg.probe_pcontrol, __ATOMIC_RELAXED);
        /* read by the wrappers once phasor_active is set (a release store after this) */
        __atomic_store_n(&phasor_probe_every, (uint32_t)phasor_cfg.probe_every,
                         __ATOMIC_RELAXED);
    }
    if (agreed[0] != -agreed[4]) {
        if (phasor_world_rank == 0)
            phasor_warn("PHASOR_PROBE differs between ranks: no probe at MPI_Init");
        return;
    }
    if (agreed[0] == 0)
        return;
    pprobe_opts_t o;
    pprobe_defaults((pprobe_mode_t)agreed[0], &o);
    o.on_comm = 1;
    pprobe_result_t res;
    plog_probe_when_t when = {0, PLOG_PROBE_AT_INIT, phasor_mono_ns(), 0};
    int rc = pprobe_run(phasor_shim_comm, PPROBE_NO_GATHER, &o, &res);
    when.t_end_ns = phasor_mono_ns();
    if (rc != MPI_SUCCESS) {
        phasor_warn("rank %d: the network probe failed (MPI error %d): no probe results",
                    phasor_world_rank, rc);
        return;
    }
    write_probe(&res, &when);
    if (phasor_world_rank == 0)
        phasor_warn("network probe (%s): %.2f s, %u repetitions",
                    agreed[0] == PPROBE_QUICK ? "quick" : "full", res.info.elapsed_s,
                    res.info.reps);
    pprobe_result_free(&res);
}

/* A later probe, started by trigger (enum plog_probe_trigger); collective over
 * MPI_COMM_WORLD. */
static void probe_later(uint32_t trigger)
{
    pthread_mutex_lock(&probe_lock);
    if (probes_off)
        goto out;
    int rc = MPI_SUCCESS;
    if (probe_comm == MPI_COMM_NULL)
        rc = PMPI_Comm_dup(MPI_COMM_WORLD, &probe_comm);
    pprobe_result_t res = {0};
    plog_probe_when_t when = {next_seq, trigger, phasor_mono_ns(), 0};
    if (rc == MPI_SUCCESS) {
        pprobe_opts_t o;
        pprobe_defaults_later(budget_s, next_seq, &o);
        o.on_comm = 1;
        rc = pprobe_run(probe_comm, PPROBE_NO_GATHER, &o, &res);
    }
    when.t_end_ns = phasor_mono_ns();
    if (rc != MPI_SUCCESS) {
        /* the others may wait for this rank in the next one: better they wait in this one */
        phasor_warn("rank %d: network probe %u failed (MPI error %d): no more probes",
                    phasor_world_rank, next_seq, rc);
        probes_off = 1;
        __atomic_store_n(&phasor_probe_every, 0, __ATOMIC_RELAXED);
        goto out;
    }
    next_seq++;
    write_probe(&res, &when);
    pprobe_result_free(&res);
out:
    pthread_mutex_unlock(&probe_lock);
}

void phasor_probe_tick(MPI_Comm comm, int rc)
{
    if (rc != MPI_SUCCESS)
        return;
    if (comm != MPI_COMM_WORLD) {
        /* another intracommunicator of every rank (a duplicate, a Cartesian one): most
         * applications leave MPI_COMM_WORLD for one of these. The shim's own table knows
         * its size without a library call; one it could not register is asked (every rank
         * must come to the same answer) */
        const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
        int inter = 1, n = 0;
        if (ci != NULL) {
            inter = ci->rsize > 0;
            n = ci->size;
        } else if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
                   (!inter && PMPI_Comm_size(comm, &n) != MPI_SUCCESS)) {
            return;
        }
        if (inter || n != phasor_world_size)
            return;
    }
    phasor_thread_t *t = phasor_tls;
    if (t && __atomic_load_n(&t->depth, __ATOMIC_RELAXED) != 0)
        return; /* inside another wrapper (a Fortran one, say): the outer call counts */
    uint64_t n = __atomic_load_n(&world_colls, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&world_colls, n, __ATOMIC_RELAXED);
    uint32_t every = __atomic_load_n(&phasor_probe_every, __ATOMIC_RELAXED);
    if (every != 0 && n % every == 0)
        probe_later(PLOG_PROBE_EVERY);
}

void phasor_probe_pcontrol(int level)
{
    if (level == 2 && __atomic_load_n(&pcontrol_on, __ATOMIC_RELAXED) && phasor_active)
        probe_later(PLOG_PROBE_PCONTROL);
}

void phasor_probe_stop(void)
{
    __atomic_store_n(&phasor_probe_every, 0, __ATOMIC_RELAXED);
    pthread_mutex_lock(&probe_lock);
    probes_off = 1;
    __atomic_store_n(&pcontrol_on, 0, __ATOMIC_RELAXED);
    if (probe_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&probe_comm);
    pthread_mutex_unlock(&probe_lock);
}
