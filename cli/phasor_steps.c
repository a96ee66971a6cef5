/* phasor_steps.c: `phasor steps`: the point-to-point steps inside every collective call of a
 * log, as the MPI library's own algorithm performs them (doc/steps-format.md). Streams rank
 * by rank: one event and one schedule in memory at a time. */
#include <assert.h>
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
#include "tablew.h"
#include "vec.h"

#define STEPS_JSON_VERSION 1

/* ---- options ---- */

typedef struct steps_opts {
    phasor_fmt_t fmt;
    long rank; /* -1: every rank */
    recon_lib_t lib;
    const char *path;
} steps_opts_t;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor steps <log-dir|rank-file> [--rank R] [--csv | --json] [--library NAME]\n"
            "The point-to-point steps inside every collective call, rebuilt with the MPI\n"
            "library's own algorithm choice (its rules for the communicator size, message size,\n"
            "op and the forcing variables the run recorded). Peers and ranks are world ranks.\n"
            "\n"
            "  --rank R        only world rank R\n"
            "  --csv           one row per transfer with a header row (doc/steps-format.md)\n"
            "  --json          the same rows as one JSON document (doc/steps-format.md,\n"
            "                  version %d)\n"
            "  --library NAME  rules to use: auto (from each rank's log; default), ompi41 or\n"
            "                  mpich40\n"
            "  -h, --help      this text\n"
            "\n"
            "A summary (instances, steps, calls without a schedule and why) goes to stderr.\n"
            "Exit status: 0 success, 1 unreadable or damaged log, 2 bad usage.\n",
            STEPS_JSON_VERSION);
}

/* PHASOR_CONTINUE with *op filled, or the exit status (--help, bad usage). */
static int steps_parse(int argc, char **argv, steps_opts_t *op)
{
    *op = (steps_opts_t){.fmt = PHASOR_FMT_TEXT, .rank = -1, .lib = RECON_LIB_AUTO};
    static const struct option opts[] = {
        {"rank", required_argument, NULL, 'r'}, {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},       {"library", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0}};
    optind = 0; /* full reinitialisation: main may have run getopt already */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hr:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return PHASOR_EXIT_OK;
        case 'r':
            if (phasor_rank_arg("steps", optarg, &op->rank) != PHASOR_EXIT_OK)
                return PHASOR_EXIT_USAGE;
            break;
        case 'c':
        case 'j':
            if (phasor_fmt_arg("steps", c == 'c' ? PHASOR_FMT_CSV : PHASOR_FMT_JSON, &op->fmt) !=
                PHASOR_EXIT_OK)
                return PHASOR_EXIT_USAGE;
            break;
        case 'l': {
            int l = recon_lib_parse(optarg);
            if (l < 0)
                return phasor_usage_error("steps", "--library: unknown rules '%s' (auto, "
                                          "ompi41, mpich40)", optarg);
            op->lib = (recon_lib_t)l;
            break;
        }
        default:
            return phasor_getopt_error("steps", c, argv);
        }
    }
    int st = phasor_log_arg("steps", argc, argv, 0, &op->path);
    return st == PHASOR_EXIT_OK ? PHASOR_CONTINUE : st;
}

/* ---- measured steps ---- */

/* Transfers phasor performed (PHASOR_STEPS=measure): STEP events, kept per thread until the
 * collective they belong to (flag MEASURED) arrives; their tag is the transfer's position. */
typedef struct mstep {
    int64_t start, end;
} mstep_t;

typedef struct pending {
    mstep_t *v; /* by position - 1 */
    size_t n;   /* highest position seen */
    size_t cap;
} pending_t;

static int pending_add(pending_t *p, const plog_rec_t *e)
{
    if (e->tag <= 0)
        return 0;
    size_t pos = (size_t)e->tag, old = p->cap;
    if (VEC_GROW(p->v, p->cap, pos) != 0)
        return -1;
    if (p->cap > old) /* a position never seen must not carry stale times */
        memset(p->v + old, 0, (p->cap - old) * sizeof(*p->v));
    p->v[pos - 1] = (mstep_t){e->start_ns, e->end_ns};
    if (pos > p->n)
        p->n = pos;
    return 0;
}

/* ---- writers ---- */

static int is_transfer(const pcs_op_t *op)
{
    return op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND || op->kind == PCS_OP_RECV ||
           op->kind == PCS_OP_IRECV;
}

static int is_send(const pcs_op_t *op)
{
    return op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND;
}

/* The peer as a world rank; PLOG_ANY_SOURCE for a receive from any source. */
static int32_t peer_world(const plog_rec_t *e, const pcs_op_t *op)
{
    return op->peer == PCS_ANY_SOURCE ? PLOG_ANY_SOURCE : recon_world(e, op->peer);
}

/* The columns of --csv and --json (doc/steps-format.md). */
static const tablew_col_t steps_cols[] = {
    {"rank", TABLEW_INT, 0},       {"instance", TABLEW_INT, 0},   {"collective", TABLEW_NAME, 0},
    {"algorithm", TABLEW_NAME, 0},  {"comm", TABLEW_INT, 0},       {"step", TABLEW_INT, 0},
    {"peer", TABLEW_INT, 0},       {"bytes_sent", TABLEW_INT, 0}, {"bytes_recv", TABLEW_INT, 0},
    {"start_ns", TABLEW_INT, 0},   {"end_ns", TABLEW_INT, 0},     {"kind", TABLEW_NAME, 0},
    {"tag", TABLEW_INT, 0},        {"flags", TABLEW_NAME, 0}};

static void row_table(tablew_t *t, const plog_rec_t *e, uint64_t inst, const pcs_args_t *a,
                      const pcs_sched_t *s, const pcs_op_t *op, const mstep_t *m)
{
    tablew_row_t r = TABLEW_ROW(t, steps_cols);
    int send = is_send(op);
    tablew_i64(&r, e->rank);
    tablew_u64(&r, inst);
    tablew_name(&r, pcs_coll_name(a->coll));
    tablew_name(&r, pcs_alg_name(s->alg));
    tablew_i64(&r, e->comm);
    tablew_u64(&r, op->step);
    tablew_i64(&r, peer_world(e, op));
    tablew_u64(&r, send ? op->len : 0);
    tablew_u64(&r, send ? 0 : op->len);
    if (m) { /* measured: times on the run's aligned axis */
        tablew_i64(&r, m->start);
        tablew_i64(&r, m->end);
    } else {
        tablew_null(&r);
        tablew_null(&r);
    }
    tablew_name(&r, send ? "send" : "recv");
    tablew_i64(&r, op->tag);
    if (op->flags & PCS_F_PERSISTENT)
        tablew_name(&r, (op->flags & PCS_F_SYNC) ? "persistent|sync" : "persistent");
    else
        tablew_name(&r, (op->flags & PCS_F_SYNC) ? "sync" : "");
    tablew_row_end(&r);
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
        if (!is_transfer(op))
            continue;
        int send = is_send(op);
        snprintf(line, sizeof(line), "  step %u: %s %" PRIu64 " B %s %d%s", op->step,
                 send ? "send" : "recv", op->len, send ? "to" : "from", (int)peer_world(e, op),
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

/* ---- running ---- */

typedef struct tally {
    uint64_t instances, with_steps, rows, measured, unmatched;
    uint64_t skipped[RECON__COUNT];
} tally_t;

typedef struct steps {
    const steps_opts_t *op;
    recon_t *rc;
    uint64_t *seq; /* per-communicator instance numbers, by global id */
    size_t ncomms;
    pcs_sched_t s;
    pending_t *pend; /* by thread slot */
    size_t npend, pcap;
    out_t *o;
    tablew_t t; /* --csv, --json */
    tally_t n;
} steps_t;

/* The measured transfers of collective e, when they match its schedule one for one (the
 * k-th transfer of the schedule is the step at position k); NULL otherwise. */
static const mstep_t *measured_of(steps_t *st, const plog_rec_t *e, pending_t *pd)
{
    if (!(e->flags & PLOG_F_MEASURED))
        return NULL;
    size_t nt = 0;
    for (size_t i = 0; i < st->s.n; i++)
        nt += is_transfer(&st->s.ops[i]);
    if (nt != pd->n) {
        st->n.unmatched++;
        return NULL;
    }
    st->n.measured++;
    return pd->v;
}

static void on_collective(steps_t *st, const plog_rec_t *e, pending_t *pd)
{
    /* Collectives on one communicator are called in the same order on every rank: the
     * per-communicator ordinal names the same instance everywhere. */
    uint64_t inst = 0;
    if (e->comm > 0 && (size_t)e->comm <= st->ncomms)
        inst = st->seq[e->comm]++;
    pcs_args_t a;
    pcs_choice_t ch;
    recon_skip_t why = recon_event(st->rc, e, &a, &ch, &st->s);
    if (why == RECON_NOT_COLL)
        return;
    st->n.instances++;
    if (why != RECON_OK) {
        assert(why < RECON__COUNT);
        st->n.skipped[why]++;
        return;
    }
    st->n.with_steps++;
    const mstep_t *ms = measured_of(st, e, pd);
    pd->n = 0;
    if (st->op->fmt == PHASOR_FMT_TEXT) {
        instance_text(st->o, e, inst, &a, &ch, &st->s, ms);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < st->s.n; i++)
        if (is_transfer(&st->s.ops[i])) {
            row_table(&st->t, e, inst, &a, &st->s, &st->s.ops[i], ms ? &ms[k] : NULL);
            k++;
            st->n.rows++;
        }
}

/* The pending steps of e's thread; NULL when out of memory. */
static pending_t *pending_of(steps_t *st, const plog_rec_t *e)
{
    size_t need = (size_t)e->thread + 1;
    if (need > st->npend) {
        size_t old = st->pcap;
        if (VEC_GROW(st->pend, st->pcap, need) != 0)
            return NULL;
        memset(st->pend + old, 0, (st->pcap - old) * sizeof(*st->pend));
        st->npend = st->pcap;
    }
    return &st->pend[e->thread];
}

/* Every collective of world rank r. PLOG_OK, or the reader's error (or running out of
 * memory) in *err. */
static plog_err_t steps_rank(steps_t *st, plog_run_t *run, int32_t r, plog_error_t *err)
{
    memset(st->seq, 0, (st->ncomms + 1) * sizeof(*st->seq));
    for (size_t i = 0; i < st->npend; i++)
        st->pend[i].n = 0;
    plog_iter_t *it = NULL;
    plog_err_t ie = plog_iter_open(run, r, &it, err);
    if (ie != PLOG_OK)
        return ie;
    const plog_rec_t *e;
    while ((ie = plog_iter_next(it, &e, err)) == PLOG_OK && e != NULL) {
        pending_t *pd = pending_of(st, e);
        if (!pd || (e->cls == PLOG_CLASS_STEP && pending_add(pd, e) != 0)) {
            ie = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
            break;
        }
        if (e->cls == PLOG_CLASS_STEP)
            continue;
        if (e->cls == PLOG_CLASS_COLL || e->cls == PLOG_CLASS_ICOLL)
            on_collective(st, e, pd);
    }
    plog_iter_close(it);
    return ie;
}

/* The summary on stderr. */
static void steps_summary(const steps_t *st)
{
    const tally_t *t = &st->n;
    fprintf(stderr, "phasor steps: %" PRIu64 " collective calls, %" PRIu64 " with steps",
            t->instances, t->with_steps);
    if (st->op->fmt != PHASOR_FMT_TEXT)
        fprintf(stderr, " (%" PRIu64 " transfers)", t->rows);
    fprintf(stderr, "\n");
    for (int w = 1; w < RECON__COUNT; w++)
        if (t->skipped[w])
            fprintf(stderr, "phasor steps: %" PRIu64 " without steps: %s\n", t->skipped[w],
                    recon_skip_name((recon_skip_t)w));
    if (t->measured || t->unmatched)
        fprintf(stderr, "phasor steps: %" PRIu64 " calls with measured steps%s\n", t->measured,
                t->unmatched ? "; some measured calls do not match the rebuilt schedule "
                               "(times left out)" : "");
    if (t->unmatched)
        fprintf(stderr, "phasor steps: %" PRIu64 " measured calls left without times\n",
                t->unmatched);
    if (recon_assumed_bytes(st->rc))
        fprintf(stderr, "phasor steps: note: the log has no datatype sizes (format 1): "
                        "elements were taken to be bytes\n");
}

static void steps_free(steps_t *st)
{
    pcs_sched_free(&st->s);
    for (size_t i = 0; i < st->npend; i++)
        free(st->pend[i].v);
    free(st->pend);
    free(st->seq);
    recon_free(st->rc);
}

/* The steps of the opened run to stdout, the summary to stderr; the exit status. */
static int steps_run(const steps_opts_t *op, plog_run_t *run)
{
    static out_t o;
    o.f = stdout;
    o.n = 0;
    steps_t st = {.op = op, .o = &o, .s = PCS_SCHED_INIT};
    st.rc = recon_new(run, op->lib);
    st.ncomms = plog_run_ncomms(run);
    st.seq = calloc(st.ncomms + 1, sizeof(*st.seq));
    if (!st.rc || !st.seq) {
        fprintf(stderr, "phasor steps: out of memory\n");
        steps_free(&st);
        return PHASOR_EXIT_INPUT;
    }
    if (op->fmt != PHASOR_FMT_TEXT)
        tablew_begin(&st.t, &o, op->fmt == PHASOR_FMT_CSV ? TABLEW_CSV : TABLEW_JSON, steps_cols,
                     TABLEW_NCOLS(steps_cols), "phasor-steps",
                     STEPS_JSON_VERSION);
    plog_error_t err;
    plog_err_t rc = PLOG_OK;
    for (int32_t r = 0; r < plog_run_world_size(run) && rc == PLOG_OK; r++)
        if (plog_run_rank(run, r) != NULL && (op->rank < 0 || r == op->rank))
            rc = steps_rank(&st, run, r, &err);
    if (rc == PLOG_OK && op->fmt != PHASOR_FMT_TEXT)
        tablew_end(&st.t);
    int status = phasor_finish_out("steps", &o);
    if (rc != PLOG_OK) {
        fprintf(stderr, "phasor steps: %s\n", err.msg);
        status = PHASOR_EXIT_INPUT;
    } else if (status == PHASOR_EXIT_OK) {
        steps_summary(&st);
    }
    steps_free(&st);
    return status;
}

int phasor_cmd_steps(int argc, char **argv)
{
    steps_opts_t op;
    int status = steps_parse(argc, argv, &op);
    if (status != PHASOR_CONTINUE)
        return status;
    plog_run_t *run;
    status = phasor_open_run("steps", op.path, op.rank, &run);
    if (status != PHASOR_EXIT_OK)
        return status;
    status = steps_run(&op, run);
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("steps", run);
    plog_run_close(run);
    return status;
}
