/* phasor_steps.c: `phasor steps`: the point-to-point steps inside every collective call of a
 * log, as the MPI library's own algorithm performs them (doc/steps-format.md). Streams rank
 * by rank: one event and one schedule in memory at a time. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_recon.h"
#include "phasor_cmd.h"
#include "phasor_out.h"
#include "plog_reader.h"

#define STEPS_CSV_HEADER                                                                    \
    "rank,instance,collective,algorithm,comm,step,peer,bytes_sent,bytes_recv,start_ns,end_ns," \
    "kind,tag,flags\n"

typedef struct tally {
    uint64_t instances, with_steps, rows, measured, unmatched;
    uint64_t skipped[RECON__COUNT];
} tally_t;

/* Transfers phasor performed (PHASOR_STEPS=measure): STEP events, kept per thread until the
 * collective they belong to (flag MEASURED) arrives; their tag is the transfer's position. */
typedef struct mstep {
    int64_t start, end;
} mstep_t;

typedef struct pending {
    mstep_t *v;      /* by position - 1 */
    uint32_t n, cap; /* n: highest position seen */
} pending_t;

static int pending_add(pending_t *p, const plog_rec_t *e)
{
    if (e->tag <= 0)
        return 0;
    uint32_t pos = (uint32_t)e->tag;
    if (pos > p->cap) {
        uint32_t cap = pos * 2;
        mstep_t *v = realloc(p->v, cap * sizeof(*v));
        if (!v)
            return -1;
        memset(v + p->cap, 0, (cap - p->cap) * sizeof(*v));
        p->v = v;
        p->cap = cap;
    }
    p->v[pos - 1] = (mstep_t){e->start_ns, e->end_ns};
    if (pos > p->n)
        p->n = pos;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor steps <log-dir|rank-file> [--rank R] [--csv] [--library NAME]\n"
            "The point-to-point steps inside every collective call, rebuilt with the MPI\n"
            "library's own algorithm choice (its rules for the communicator size, message size,\n"
            "op and the forcing variables the run recorded). Peers and ranks are world ranks.\n"
            "\n"
            "  --rank R        only world rank R\n"
            "  --csv           one row per transfer with a header row (doc/steps-format.md)\n"
            "  --library NAME  rules to use: auto (from each rank's log; default), ompi41 or\n"
            "                  mpich40\n"
            "  -h, --help      this text\n"
            "\n"
            "A summary (instances, steps, calls without a schedule and why) goes to stderr.\n"
            "Exit status: 0 success, 1 unreadable or damaged log, 2 bad usage.\n");
}

static void row_csv(out_t *o, const plog_rec_t *e, uint64_t inst, const pcs_args_t *a,
                    const pcs_sched_t *s, const pcs_op_t *op, const mstep_t *m)
{
    int send = op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND;
    o_i64(o, e->rank);
    o_chr(o, ',');
    o_u64(o, inst);
    o_chr(o, ',');
    o_str(o, pcs_coll_name(a->coll));
    o_chr(o, ',');
    o_str(o, pcs_alg_name(s->alg));
    o_chr(o, ',');
    o_i64(o, e->comm);
    o_chr(o, ',');
    o_u64(o, op->step);
    o_chr(o, ',');
    o_i64(o, op->peer == PCS_ANY_SOURCE ? PLOG_ANY_SOURCE : recon_world(e, op->peer));
    o_chr(o, ',');
    o_u64(o, send ? op->len : 0);
    o_chr(o, ',');
    o_u64(o, send ? 0 : op->len);
    o_chr(o, ',');
    if (m) { /* measured: times on the run's aligned axis */
        o_i64(o, m->start);
        o_chr(o, ',');
        o_i64(o, m->end);
        o_chr(o, ',');
    } else {
        o_str(o, ",,");
    }
    o_str(o, send ? "send," : "recv,");
    o_i64(o, op->tag);
    o_chr(o, ',');
    if (op->flags & PCS_F_PERSISTENT)
        o_str(o, (op->flags & PCS_F_SYNC) ? "persistent|sync" : "persistent");
    else if (op->flags & PCS_F_SYNC)
        o_str(o, "sync");
    o_chr(o, '\n');
}

/* IPMPI-style: one header line per instance, one line per transfer. */
static void instance_text(out_t *o, const plog_rec_t *e, uint64_t inst, const pcs_args_t *a,
                          const pcs_choice_t *ch, const pcs_sched_t *s, const mstep_t *ms)
{
    char line[256];
    snprintf(line, sizeof(line),
             "rank %d #%" PRIu64 " %s comm %d (%d ranks) %" PRIu64 " B: %s, %u steps",
             (int)e->rank, inst, e->call_name, (int)e->comm, a->size, e->bytes,
             pcs_alg_name(s->alg), s->nsteps);
    o_str(o, line);
    if (ch->rule_line > 0) {
        const char *file = ch->component == PCS_COMP_MPICH_CH4    ? "ch4 generic.json"
                           : ch->component == PCS_COMP_MPICH_MPIR ? "mpir generic.json"
                                                                  : "decision_fixed.c";
        snprintf(line, sizeof(line), " (rule: %s line %d)", file, ch->rule_line);
        o_str(o, line);
    }
    o_str(o, ms ? " measured\n" : "\n");
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const pcs_op_t *op = &s->ops[i];
        int send = op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND;
        if (!send && op->kind != PCS_OP_RECV && op->kind != PCS_OP_IRECV)
            continue;
        int32_t peer = op->peer == PCS_ANY_SOURCE ? PLOG_ANY_SOURCE : recon_world(e, op->peer);
        snprintf(line, sizeof(line), "  step %u: %s %" PRIu64 " B %s %d%s", op->step,
                 send ? "send" : "recv", op->len, send ? "to" : "from", (int)peer,
                 op->peer == PCS_ANY_SOURCE ? " (any source)" : "");
        o_str(o, line);
        if (ms) {
            snprintf(line, sizeof(line), " [%" PRId64 " .. %" PRId64 " ns]", ms[k].start,
                     ms[k].end);
            o_str(o, line);
        }
        o_chr(o, '\n');
        k++;
    }
}

static int is_transfer(const pcs_op_t *op)
{
    return op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND || op->kind == PCS_OP_RECV ||
           op->kind == PCS_OP_IRECV;
}

int phasor_cmd_steps(int argc, char **argv)
{
    int csv = 0;
    long rank = -1;
    recon_lib_t lib = RECON_LIB_AUTO;
    static const struct option opts[] = {
        {"rank", required_argument, NULL, 'r'}, {"csv", no_argument, NULL, 'c'},
        {"library", required_argument, NULL, 'l'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "hr:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return PHASOR_EXIT_OK;
        case 'r': {
            char *end;
            errno = 0;
            rank = strtol(optarg, &end, 10);
            if (errno || *end != '\0' || end == optarg || rank < 0 || rank > INT32_MAX)
                return phasor_usage_error("steps", "--rank needs a world rank (a number >= 0), "
                                          "not '%s'", optarg);
            break;
        }
        case 'c':
            csv = 1;
            break;
        case 'l': {
            int l = recon_lib_parse(optarg);
            if (l < 0)
                return phasor_usage_error("steps", "--library: unknown rules '%s' (auto, ompi41, mpich40)",
                                          optarg);
            lib = (recon_lib_t)l;
            break;
        }
        default:
            if (optopt == 'r' || optopt == 'l')
                return phasor_usage_error("steps", "%s needs a value", argv[optind - 1]);
            return phasor_usage_error("steps", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return phasor_usage_error("steps", "%s", "which log? give a log directory or a rank file");
    if (argc - optind > 1)
        return phasor_usage_error("steps", "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];

    plog_error_t err;
    plog_run_t *run = NULL;
    if (plog_run_open(path, &run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor steps: %s\n", err.msg);
        return err.code == PLOG_E_USAGE ? PHASOR_EXIT_USAGE : PHASOR_EXIT_INPUT;
    }
    if (rank >= 0 && plog_run_rank(run, (int32_t)rank) == NULL) {
        fprintf(stderr, "phasor steps: %s: no rank %ld in this log (world size %d)\n", path, rank,
                (int)plog_run_world_size(run));
        plog_run_close(run);
        return PHASOR_EXIT_USAGE;
    }
    recon_t *rc = recon_new(run, lib);
    size_t ncomms = plog_run_ncomms(run);
    uint64_t *seq = calloc(ncomms + 1, sizeof(*seq)); /* per-communicator instance numbers */
    if (!rc || !seq) {
        fprintf(stderr, "phasor steps: out of memory\n");
        recon_free(rc);
        free(seq);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }

    static out_t o;
    o.f = stdout;
    o.n = 0;
    if (csv)
        o_str(&o, STEPS_CSV_HEADER);
    tally_t t = {0};
    pcs_sched_t s = PCS_SCHED_INIT;
    pending_t *pend = NULL; /* by thread slot */
    size_t npend = 0;
    int status = PHASOR_EXIT_OK;
    for (int32_t r = 0; r < plog_run_world_size(run) && status == PHASOR_EXIT_OK; r++) {
        if (plog_run_rank(run, r) == NULL || (rank >= 0 && r != rank))
            continue;
        memset(seq, 0, (ncomms + 1) * sizeof(*seq));
        plog_iter_t *it = NULL;
        if (plog_iter_open(run, r, &it, &err) != PLOG_OK) {
            status = PHASOR_EXIT_INPUT;
            break;
        }
        for (size_t i = 0; i < npend; i++)
            pend[i].n = 0;
        const plog_rec_t *e;
        plog_err_t ie;
        while ((ie = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL) {
            if (e->thread >= npend) {
                size_t n = (size_t)e->thread + 1;
                pending_t *np = realloc(pend, n * sizeof(*np));
                if (!np)
                    break;
                memset(np + npend, 0, (n - npend) * sizeof(*np));
                pend = np;
                npend = n;
            }
            pending_t *pd = &pend[e->thread];
            if (e->cls == PLOG_CLASS_STEP) {
                if (pending_add(pd, e) != 0)
                    break;
                continue;
            }
            if (e->cls != PLOG_CLASS_COLL && e->cls != PLOG_CLASS_ICOLL)
                continue;
            /* Collectives on one communicator are called in the same order on every rank:
             * the per-communicator ordinal names the same instance everywhere. */
            uint64_t inst = 0;
            if (e->comm > 0 && (size_t)e->comm <= ncomms)
                inst = seq[e->comm]++;
            pcs_args_t a;
            pcs_choice_t ch;
            recon_skip_t why = recon_event(rc, e, &a, &ch, &s);
            if (why == RECON_NOT_COLL)
                continue;
            t.instances++;
            if (why != RECON_OK) {
                t.skipped[why]++;
                continue;
            }
            t.with_steps++;
            /* measured: the k-th transfer of the schedule is the step at position k */
            const mstep_t *ms = NULL;
            if (e->flags & PLOG_F_MEASURED) {
                size_t nt = 0;
                for (size_t i = 0; i < s.n; i++)
                    nt += is_transfer(&s.ops[i]);
                if (nt == pd->n) {
                    ms = pd->v;
                    t.measured++;
                } else {
                    t.unmatched++;
                }
            }
            pd->n = 0;
            if (!csv) {
                instance_text(&o, e, inst, &a, &ch, &s, ms);
                continue;
            }
            size_t k = 0;
            for (size_t i = 0; i < s.n; i++)
                if (is_transfer(&s.ops[i])) {
                    row_csv(&o, e, inst, &a, &s, &s.ops[i], ms ? &ms[k] : NULL);
                    k++;
                    t.rows++;
                }
        }
        if (ie != PLOG_OK)
            status = PHASOR_EXIT_INPUT;
        plog_iter_close(it);
    }
    o_flush(&o);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor steps: writing the output: %s\n", strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
    if (status != PHASOR_EXIT_OK) {
        fprintf(stderr, "phasor steps: %s\n", err.msg);
    } else {
        fprintf(stderr, "phasor steps: %" PRIu64 " collective calls, %" PRIu64 " with steps",
                t.instances, t.with_steps);
        if (csv)
            fprintf(stderr, " (%" PRIu64 " transfers)", t.rows);
        fprintf(stderr, "\n");
        for (int w = 1; w < RECON__COUNT; w++)
            if (t.skipped[w])
                fprintf(stderr, "phasor steps: %" PRIu64 " without steps: %s\n", t.skipped[w],
                        recon_skip_name((recon_skip_t)w));
        if (t.measured || t.unmatched)
            fprintf(stderr, "phasor steps: %" PRIu64 " calls with measured steps%s\n", t.measured,
                    t.unmatched ? "; some measured calls do not match the rebuilt schedule "
                                  "(times left out)" : "");
        if (t.unmatched)
            fprintf(stderr, "phasor steps: %" PRIu64 " measured calls left without times\n",
                    t.unmatched);
        if (recon_assumed_bytes(rc))
            fprintf(stderr, "phasor steps: note: the log has no datatype sizes (format 1): "
                            "elements were taken to be bytes\n");
    }
    pcs_sched_free(&s);
    for (size_t i = 0; i < npend; i++)
        free(pend[i].v);
    free(pend);
    free(seq);
    recon_free(rc);
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("steps", run);
    plog_run_close(run);
    return status;
}
