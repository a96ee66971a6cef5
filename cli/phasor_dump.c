/* phasor_dump.c: `phasor dump`: every decoded event of a log as text, CSV or JSON
 * (formats: doc/dump-format.md). Output is streamed: one event in memory at a time. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_cmd.h"
#include "phasor_out.h"
#include "plog_calls.h"
#include "plog_probeset.h"
#include "plog_reader.h"
#include "tablew.h"

#define DUMP_JSON_VERSION 1
#define PROBE_JSON_VERSION 1

/* bytes of a status: PLOG_BYTES_UNKNOWN prints as -1 */
static void o_bytes(out_t *o, uint64_t v)
{
    if (v == PLOG_BYTES_UNKNOWN)
        o_str(o, "-1");
    else
        o_u64(o, v);
}


/* ---- event fields ---- */

static const char *const flag_names[] = {"inplace", "flag_true", "recvspec",  "handles",
                                         "status",  "vsend",     "vrecv",     "newcomm",
                                         "truncated", "inter",   "message",   "collinfo",
                                         "measured",  "renewed",   "polls"};
#define N_FLAG_NAMES (sizeof(flag_names) / sizeof(flag_names[0]))

static void o_flags(out_t *o, uint32_t flags, const char *sep, int json)
{
    int first = 1;
    for (unsigned b = 0; b < 32; b++) {
        if (!(flags & (1u << b)))
            continue;
        if (!first)
            o_str(o, sep);
        first = 0;
        char tmp[16];
        const char *name = b < N_FLAG_NAMES ? flag_names[b] : tmp;
        if (b >= N_FLAG_NAMES)
            snprintf(tmp, sizeof(tmp), "bit%u", b);
        if (json)
            o_jstr(o, name);
        else
            o_str(o, name);
    }
}

static void o_list(out_t *o, const uint64_t *v, uint32_t n, const char *sep)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            o_str(o, sep);
        o_u64(o, v[i]);
    }
}

static void o_reqids(out_t *o, const plog_rec_t *e, const char *sep)
{
    for (uint32_t i = 0; i < e->n_handles; i++) {
        if (i)
            o_str(o, sep);
        o_u64(o, e->handles[i].id);
    }
}

static void o_status_compact(out_t *o, const plog_rec_t *e)
{
    for (uint32_t i = 0; i < e->n_status; i++) {
        const plog_rstatus_t *s = &e->status[i];
        if (i)
            o_chr(o, ';');
        o_i64(o, s->source);
        o_chr(o, ':');
        o_i64(o, s->tag);
        o_chr(o, ':');
        o_bytes(o, s->bytes);
        o_chr(o, ':');
        o_u64(o, s->request);
    }
}

static const char *const csv_header =
    "rank,thread,call,start_ns,end_ns,comm,peer,tag,bytes,root,request,rbytes,rc,flags,status,"
    "class,recv_source,recv_tag,requests,vsend,vrecv,newcomm,message,callsite,stype_size,rtype_size,"
    "op,commutative,ncalls,inside_ns\n";

static void event_csv(out_t *o, const plog_rec_t *e)
{
    o_i64(o, e->rank);
    o_chr(o, ',');
    o_u64(o, e->thread);
    o_chr(o, ',');
    o_str(o, e->call_name);
    o_chr(o, ',');
    o_i64(o, e->start_ns);
    o_chr(o, ',');
    o_i64(o, e->end_ns);
    o_chr(o, ',');
    o_i64(o, e->comm);
    o_chr(o, ',');
    o_i64(o, e->peer);
    o_chr(o, ',');
    o_i64(o, e->tag);
    o_chr(o, ',');
    o_u64(o, e->bytes);
    o_chr(o, ',');
    o_i64(o, e->root);
    o_chr(o, ',');
    o_u64(o, e->request);
    o_chr(o, ',');
    o_u64(o, e->rbytes);
    o_chr(o, ',');
    o_i64(o, e->rc);
    o_chr(o, ',');
    o_flags(o, e->flags, "|", 0);
    o_chr(o, ',');
    o_status_compact(o, e);
    o_chr(o, ',');
    o_str(o, plog_class_name(e->cls));
    o_chr(o, ',');
    if (e->flags & PLOG_F_RECVSPEC) {
        o_i64(o, e->recv_source);
        o_chr(o, ',');
        o_i64(o, e->recv_tag);
    } else {
        o_chr(o, ',');
    }
    o_chr(o, ',');
    if (!(e->flags & PLOG_F_MESSAGE))
        o_reqids(o, e, ";");
    o_chr(o, ',');
    o_list(o, e->vsend, e->n_vsend, ";");
    o_chr(o, ',');
    o_list(o, e->vrecv, e->n_vrecv, ";");
    o_chr(o, ',');
    if (e->flags & PLOG_F_NEWCOMM)
        o_i64(o, e->newcomm);
    o_chr(o, ',');
    if (e->flags & PLOG_F_MESSAGE)
        o_u64(o, e->message);
    o_chr(o, ',');
    if (e->callsite != 0)
        o_u64(o, e->callsite);
    if (e->flags & PLOG_F_COLLINFO) {
        o_chr(o, ',');
        o_u64(o, e->stype_size);
        o_chr(o, ',');
        o_u64(o, e->rtype_size);
        o_chr(o, ',');
        if (e->op) {
            o_str(o, plog_op_name(e->op));
            o_chr(o, ',');
            o_u64(o, e->op_commutative);
        } else {
            o_chr(o, ',');
        }
    } else {
        o_str(o, ",,,,"); /* stype_size, rtype_size, op, commutative: empty */
    }
    o_chr(o, ',');
    o_u64(o, e->ncalls);
    o_chr(o, ',');
    o_u64(o, e->inside_ns);
    o_chr(o, '\n');
}

static void kv_i64(out_t *o, const char *key, int64_t v)
{
    o_chr(o, ' ');
    o_str(o, key);
    o_chr(o, '=');
    o_i64(o, v);
}

static void event_text(out_t *o, const plog_rec_t *e)
{
    o_i64(o, e->rank);
    o_chr(o, ' ');
    o_u64(o, e->thread);
    o_chr(o, ' ');
    o_i64(o, e->start_ns);
    o_chr(o, ' ');
    o_i64(o, e->end_ns);
    o_chr(o, ' ');
    o_str(o, e->call_name);
    if (e->comm != 0)
        kv_i64(o, "comm", e->comm);
    if (e->peer != PLOG_NONE)
        kv_i64(o, "peer", e->peer);
    if (e->tag != PLOG_NONE)
        kv_i64(o, "tag", e->tag);
    if (e->root != PLOG_NONE)
        kv_i64(o, "root", e->root);
    if (e->bytes != 0) {
        o_str(o, " bytes=");
        o_u64(o, e->bytes);
    }
    if (e->rbytes != 0) {
        o_str(o, " rbytes=");
        o_u64(o, e->rbytes);
    }
    if (e->request != 0) {
        o_str(o, " req=");
        o_u64(o, e->request);
    }
    if (e->rc != 0)
        kv_i64(o, "rc", e->rc);
    if (e->callsite != 0)
        kv_i64(o, "site", e->callsite);
    if (e->flags & PLOG_F_RECVSPEC) {
        kv_i64(o, "recv_source", e->recv_source);
        kv_i64(o, "recv_tag", e->recv_tag);
    }
    if (e->flags & PLOG_F_MESSAGE) {
        o_str(o, " msg=");
        o_u64(o, e->message);
    } else if (e->n_handles) {
        o_str(o, " requests=");
        o_reqids(o, e, ",");
    }
    if (e->n_status) {
        o_str(o, " status=");
        o_status_compact(o, e);
    }
    if (e->n_vsend) {
        o_str(o, " vsend=");
        o_list(o, e->vsend, e->n_vsend, ",");
    }
    if (e->n_vrecv) {
        o_str(o, " vrecv=");
        o_list(o, e->vrecv, e->n_vrecv, ",");
    }
    if (e->flags & PLOG_F_NEWCOMM)
        kv_i64(o, "newcomm", e->newcomm);
    if (e->flags & PLOG_F_COLLINFO) {
        o_str(o, " types=");
        o_u64(o, e->stype_size);
        o_chr(o, ':');
        o_u64(o, e->rtype_size);
        if (e->op) {
            o_str(o, " op=");
            o_str(o, plog_op_name(e->op));
            if (!e->op_commutative)
                o_str(o, ",noncommutative");
        }
    }
    if (e->flags & PLOG_F_POLLS) {
        o_str(o, " ncalls=");
        o_u64(o, e->ncalls);
        o_str(o, " inside_ns=");
        o_u64(o, e->inside_ns);
    }
    if (e->flags) {
        o_str(o, " flags=");
        o_flags(o, e->flags, "|", 0);
    }
    o_chr(o, '\n');
}

static void jkey(out_t *o, const char *key)
{
    o_str(o, ", \"");
    o_str(o, key);
    o_str(o, "\": ");
}

static void event_json(out_t *o, const plog_rec_t *e, int first)
{
    o_str(o, first ? "\n  {\"rank\": " : ",\n  {\"rank\": ");
    o_i64(o, e->rank);
    jkey(o, "thread");
    o_u64(o, e->thread);
    jkey(o, "call");
    o_jstr(o, e->call_name);
    jkey(o, "class");
    o_jstr(o, plog_class_name(e->cls));
    jkey(o, "start_ns");
    o_i64(o, e->start_ns);
    jkey(o, "end_ns");
    o_i64(o, e->end_ns);
    jkey(o, "comm");
    o_i64(o, e->comm);
    jkey(o, "peer");
    o_i64(o, e->peer);
    jkey(o, "tag");
    o_i64(o, e->tag);
    jkey(o, "bytes");
    o_u64(o, e->bytes);
    jkey(o, "rbytes");
    o_u64(o, e->rbytes);
    jkey(o, "root");
    o_i64(o, e->root);
    jkey(o, "request");
    o_u64(o, e->request);
    jkey(o, "rc");
    o_i64(o, e->rc);
    jkey(o, "flags");
    o_chr(o, '[');
    o_flags(o, e->flags, ", ", 1);
    o_chr(o, ']');
    jkey(o, "callsite");
    o_u64(o, e->callsite);
    if (e->flags & PLOG_F_COLLINFO) {
        jkey(o, "stype_size");
        o_u64(o, e->stype_size);
        jkey(o, "rtype_size");
        o_u64(o, e->rtype_size);
        jkey(o, "op");
        if (e->op) {
            o_jstr(o, plog_op_name(e->op));
            jkey(o, "commutative");
            o_str(o, e->op_commutative ? "true" : "false");
        } else {
            o_str(o, "null");
        }
    }
    if (e->flags & PLOG_F_RECVSPEC) {
        jkey(o, "recv_source");
        o_i64(o, e->recv_source);
        jkey(o, "recv_tag");
        o_i64(o, e->recv_tag);
    }
    if (e->flags & PLOG_F_MESSAGE) {
        jkey(o, "message");
        o_u64(o, e->message);
    } else if (e->flags & PLOG_F_HANDLES) {
        jkey(o, "requests");
        o_chr(o, '[');
        o_reqids(o, e, ", ");
        o_chr(o, ']');
    }
    if (e->flags & PLOG_F_STATUS) {
        jkey(o, "status");
        o_chr(o, '[');
        for (uint32_t i = 0; i < e->n_status; i++) {
            const plog_rstatus_t *s = &e->status[i];
            o_str(o, i ? ", {\"request\": " : "{\"request\": ");
            o_u64(o, s->request);
            jkey(o, "source");
            o_i64(o, s->source);
            jkey(o, "tag");
            o_i64(o, s->tag);
            jkey(o, "bytes");
            o_bytes(o, s->bytes);
            jkey(o, "index");
            o_u64(o, s->index);
            jkey(o, "cancelled");
            o_str(o, s->cancelled ? "true}" : "false}");
        }
        o_chr(o, ']');
    }
    if (e->flags & PLOG_F_VSEND) {
        jkey(o, "vsend");
        o_chr(o, '[');
        o_list(o, e->vsend, e->n_vsend, ", ");
        o_chr(o, ']');
    }
    if (e->flags & PLOG_F_VRECV) {
        jkey(o, "vrecv");
        o_chr(o, '[');
        o_list(o, e->vrecv, e->n_vrecv, ", ");
        o_chr(o, ']');
    }
    if (e->flags & PLOG_F_NEWCOMM) {
        jkey(o, "newcomm");
        o_i64(o, e->newcomm);
    }
    if (e->flags & PLOG_F_POLLS) {
        jkey(o, "ncalls");
        o_u64(o, e->ncalls);
        jkey(o, "inside_ns");
        o_u64(o, e->inside_ns);
    }
    o_chr(o, '}');
}

/* ---- run-level sections ---- */

static void o_ranklist(out_t *o, const int32_t *v, uint32_t n)
{
    o_chr(o, '[');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            o_str(o, ", ");
        o_i64(o, v[i]);
    }
    o_chr(o, ']');
}

static const char *creator_name(uint32_t call)
{
    if (call == 0)
        return "MPI_Init"; /* the predefined communicators */
    const char *n = plog_call_name(call);
    return n != NULL ? n : "unknown";
}

static uint64_t kv_u64(const plog_rank_t *rk, const char *key, uint64_t dflt)
{
    const char *v = plog_rank_kv(rk, key);
    if (v == NULL || *v < '0' || *v > '9')
        return dflt;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    return errno == 0 && *end == '\0' ? (uint64_t)x : dflt;
}

static void json_tail(out_t *o, const plog_run_t *run)
{
    o_str(o, "\n],\n\"comms\": [");
    for (size_t gid = 1; gid <= plog_run_ncomms(run); gid++) {
        const plog_gcomm_t *g = plog_run_comm(run, (int32_t)gid);
        o_str(o, gid > 1 ? ",\n  {\"id\": " : "\n  {\"id\": ");
        o_i64(o, g->id);
        jkey(o, "kind");
        o_jstr(o, plog_comm_kind_name(g->kind));
        jkey(o, "members");
        o_ranklist(o, g->members, g->n_members);
        jkey(o, "remote");
        o_ranklist(o, g->remote, g->n_remote);
        jkey(o, "creator");
        o_jstr(o, creator_name(g->call));
        jkey(o, "parent");
        o_i64(o, g->parent);
        o_chr(o, '}');
    }
    o_str(o, "\n],\n\"ranks\": [");
    int first = 1;
    for (int32_t r = 0; r < plog_run_world_size(run); r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (rk == NULL)
            continue;
        o_str(o, first ? "\n  {\"rank\": " : ",\n  {\"rank\": ");
        first = 0;
        o_i64(o, r);
        const char *host = plog_rank_kv(rk, "hostname");
        const char *lib = plog_rank_kv(rk, "mpi_library");
        jkey(o, "hostname");
        o_jstr(o, host ? host : "");
        jkey(o, "pid");
        o_i64(o, rk->hdr.pid);
        jkey(o, "mpi_library");
        o_jstr(o, lib ? lib : "");
        jkey(o, "ended");
        o_jstr(o, rk->complete ? "complete" : "truncated");
        /* how the shim closed it: finalize, MPI_Abort, signal SIGxxx, exit without
         * MPI_Finalize; absent from a log that was cut short */
        const char *ending = rk->complete ? plog_rank_kv(rk, "ending") : NULL;
        if (ending) {
            jkey(o, "ending");
            o_jstr(o, ending);
        }
        if (!rk->complete) {
            jkey(o, "truncated_at");
            o_u64(o, rk->end_offset);
        }
        jkey(o, "events");
        o_u64(o, rk->n_events);
        plog_drops_t dr;
        plog_rank_drops(rk, &dr);
        /* "dropped" stays a number (what is known: a lower bound unless dropped_exact) */
        jkey(o, "dropped");
        o_u64(o, dr.write_dropped + dr.thread_dropped);
        jkey(o, "dropped_exact");
        o_str(o, dr.write_count == PLOG_DROPS_EXACT && (dr.threads_known || !dr.write_errno)
                     ? "true" : "false");
        jkey(o, "dropped_write");
        o_u64(o, dr.write_dropped);
        jkey(o, "write_error");
        if (dr.write_errno)
            o_jstr(o, strerror(dr.write_errno));
        else
            o_str(o, "null");
        jkey(o, "dropped_threads");
        if (dr.threads_known)
            o_u64(o, dr.thread_dropped);
        else
            o_str(o, "null");
        jkey(o, "threads");
        uint64_t threads = kv_u64(rk, "threads", rk->n_threads);
        o_u64(o, threads);
        /* before slots were reused each slot had one thread */
        jkey(o, "threads_started");
        o_u64(o, kv_u64(rk, "threads_started", threads));
        o_chr(o, '}');
    }
    o_str(o, "\n],\n\"warnings\": [");
    for (size_t i = 0; i < plog_run_nwarnings(run); i++) {
        o_str(o, i ? ",\n  " : "\n  ");
        o_jstr(o, plog_run_warning(run, i));
    }
    o_str(o, "\n]}\n");
}

/* "N dropped", and why when a write failed ("at least N", "some" when the count is unknown) */
static void drops_text(const plog_drops_t *d, char *buf, size_t cap)
{
    uint64_t n = d->write_dropped + d->thread_dropped;
    if (d->write_errno == 0)
        snprintf(buf, cap, "%" PRIu64 " dropped", n);
    else if (d->write_count == PLOG_DROPS_UNKNOWN)
        snprintf(buf, cap, "some dropped (writing failed: %s)", strerror(d->write_errno));
    else
        snprintf(buf, cap, "%s%" PRIu64 " dropped (writing failed: %s)",
                 d->write_count == PLOG_DROPS_AT_LEAST ? "at least " : "", n,
                 strerror(d->write_errno));
}

static void text_tail(out_t *o, const plog_run_t *run)
{
    for (int32_t r = 0; r < plog_run_world_size(run); r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (rk == NULL)
            continue;
        const char *host = plog_rank_kv(rk, "hostname");
        char line[512];
        const char *ending = rk->complete ? plog_rank_kv(rk, "ending") : NULL;
        char dropped[192];
        plog_drops_t dr;
        plog_rank_drops(rk, &dr);
        drops_text(&dr, dropped, sizeof(dropped));
        snprintf(line, sizeof(line), "# rank %d: %s%s%s, %" PRIu64 " events, %s, host %s, pid %"
                 PRId64 "\n", (int)r, rk->complete ? "complete" : "truncated",
                 ending ? ", ended by " : "", ending ? ending : "", rk->n_events, dropped,
                 host ? host : "?", rk->hdr.pid);
        o_str(o, line);
        if (!rk->complete) {
            snprintf(line, sizeof(line), "#   %s ended early at offset %" PRIu64 "\n", rk->path,
                     rk->end_offset);
            o_str(o, line);
        }
    }
}

/* ---- --probe: the network probe's samples, as the log holds them ---- */

/* The columns of --probe (doc/dump-format.md); the quantiles in ns with one decimal. */
static const tablew_col_t probe_cols[] = {
    {"src", TABLEW_INT, 0},    {"dst", TABLEW_INT, 0},    {"way", TABLEW_NAME, 0},
    {"bytes", TABLEW_INT, 0},  {"n", TABLEW_INT, 0},      {"min_ns", TABLEW_FIX, 1},
    {"q10_ns", TABLEW_FIX, 1}, {"q25_ns", TABLEW_FIX, 1}, {"q50_ns", TABLEW_FIX, 1},
    {"q75_ns", TABLEW_FIX, 1}, {"q90_ns", TABLEW_FIX, 1}, {"max_ns", TABLEW_FIX, 1},
    {"mean_ns", TABLEW_FIX, 1}};
#define PROBE_NQ 8 /* the quantile columns, last */

static void probe_quantiles(const plog_probe_q_t *q, double v[PROBE_NQ])
{
    const double x[PROBE_NQ] = {q->min, q->q10, q->q25, q->q50, q->q75, q->q90, q->max, q->mean};
    memcpy(v, x, sizeof(x));
}

/* The text form's two # lines. */
static void probe_text_head(out_t *o, const plog_probeset_t *ps, const char *path)
{
    char line[800];
    snprintf(line, sizeof(line), ": %s probe, %d of %d ranks, %u sizes, %u repetitions, "
             "%u rounds, %.3f s\n# ",
             plog_probe_mode_name(ps->info.mode), (int)ps->ranks, (int)ps->world,
             ps->info.nsizes, ps->info.reps, ps->info.rounds, ps->info.elapsed_s);
    o_str(o, "# phasor dump --probe of ");
    o_str(o, path);
    o_str(o, line);
    for (size_t i = 0; i < TABLEW_NCOLS(probe_cols); i++) {
        o_str(o, i ? " " : "");
        o_str(o, probe_cols[i].name);
    }
    o_str(o, " (dst *: every destination of src pooled)\n");
}

static void probe_text_row(out_t *o, const plog_probeset_t *ps, const plog_probe_entry_t *e)
{
    o_i64(o, e->src);
    o_chr(o, ' ');
    if (e->dst < 0)
        o_chr(o, '*');
    else
        o_i64(o, e->dst);
    o_chr(o, ' ');
    o_str(o, plog_probe_way_name(e->way));
    o_chr(o, ' ');
    o_u64(o, ps->info.sizes[e->size_idx]);
    o_chr(o, ' ');
    o_u64(o, e->q.n);
    double v[PROBE_NQ];
    probe_quantiles(&e->q, v);
    for (int i = 0; i < PROBE_NQ; i++) {
        char b[400]; /* %.1f of the largest finite double */
        snprintf(b, sizeof(b), " %.1f", v[i]);
        o_str(o, b);
    }
    o_chr(o, '\n');
}

/* The JSON document's members before the entries: the probe's description. */
static void probe_json_head(out_t *o, const plog_probeset_t *ps)
{
    o_str(o, ", \"mode\": ");
    o_jstr(o, plog_probe_mode_name(ps->info.mode));
    o_str(o, ", \"world_size\": ");
    o_i64(o, ps->world);
    o_str(o, ", \"ranks\": ");
    o_i64(o, ps->ranks);
    o_str(o, ", \"sizes\": [");
    for (unsigned i = 0; i < ps->info.nsizes; i++) {
        o_str(o, i ? ", " : "");
        o_u64(o, ps->info.sizes[i]);
    }
    o_str(o, "], \"repetitions\": ");
    o_u64(o, ps->info.reps);
    o_str(o, ", \"rounds\": ");
    o_u64(o, ps->info.rounds);
    char b[400];
    snprintf(b, sizeof(b), "%.6f", ps->info.elapsed_s);
    o_str(o, ", \"elapsed_s\": ");
    o_str(o, b);
    o_str(o, ", \"seed\": ");
    o_u64(o, ps->info.seed);
    o_str(o, ", \"log_version\": ");
    o_u64(o, ps->info.version);
}

static void probe_table_row(tablew_t *t, const plog_probeset_t *ps, const plog_probe_entry_t *e)
{
    tablew_row_t r = TABLEW_ROW(t, probe_cols);
    tablew_i64(&r, e->src);
    tablew_i64(&r, e->dst);
    tablew_name(&r, plog_probe_way_name(e->way));
    tablew_u64(&r, ps->info.sizes[e->size_idx]);
    tablew_u64(&r, e->q.n);
    double v[PROBE_NQ];
    probe_quantiles(&e->q, v);
    for (int i = 0; i < PROBE_NQ; i++)
        tablew_num(&r, v[i]);
    tablew_row_end(&r);
}

/* Every entry of the run's probe (pairs first, then each source's pooled ones), rank R's
 * only with --rank. The exit status: 1 when the log has no probe or a damaged one. */
static int dump_probe(const plog_run_t *run, const char *path, phasor_fmt_t fmt, long rank)
{
    plog_probeset_t ps;
    plog_error_t err;
    if (plog_probeset_load(run, &ps, &err) != PLOG_OK) {
        fprintf(stderr, "phasor dump: %s\n", err.msg);
        return PHASOR_EXIT_INPUT;
    }
    static out_t o;
    o.f = stdout;
    o.n = 0;
    tablew_t t;
    if (fmt == PHASOR_FMT_TEXT) {
        probe_text_head(&o, &ps, path);
    } else {
        tablew_begin(&t, &o, fmt == PHASOR_FMT_CSV ? TABLEW_CSV : TABLEW_JSON, probe_cols,
                     TABLEW_NCOLS(probe_cols), "phasor-probe", PROBE_JSON_VERSION);
        if (fmt == PHASOR_FMT_JSON)
            probe_json_head(tablew_out(&t), &ps);
        tablew_rows_key(&t, "entries");
    }
    for (size_t i = 0; i < ps.n; i++) {
        const plog_probe_entry_t *e = &ps.e[i];
        assert(e->size_idx < ps.info.nsizes);
        if (rank >= 0 && e->src != rank)
            continue;
        if (fmt == PHASOR_FMT_TEXT)
            probe_text_row(&o, &ps, e);
        else
            probe_table_row(&t, &ps, e);
    }
    if (fmt != PHASOR_FMT_TEXT)
        tablew_end(&t);
    plog_probeset_free(&ps);
    return phasor_finish_out("dump", &o);
}

/* ---- options ---- */

typedef struct dump_opts {
    phasor_fmt_t fmt;
    long rank; /* -1: every rank */
    int probe;
    const char *path;
} dump_opts_t;

static void dump_usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor dump <log-dir|rank-file> [--rank R] [--probe] [--csv | --json]\n"
            "Print every decoded event, ordered by rank then start time: ranks are world ranks,\n"
            "times are ns since rank 0's MPI_Init (clocks aligned), communicators global ids.\n"
            "\n"
            "  --rank R   only the events of world rank R\n"
            "  --probe    the network probe's samples instead (PHASOR_PROBE=quick|full): per\n"
            "             source, destination, way and size, their count and quantiles in ns\n"
            "  --csv      CSV with a header row\n"
            "  --json     one JSON document (schema: doc/dump-format.md, version %d)\n"
            "  -h, --help this text\n"
            "\n"
            "Exit status: 0 success, 1 unreadable or damaged log (the reason names the file and\n"
            "offset) or, with --probe, a log without the probe, 2 bad usage. A log that ended\n"
            "early is read up to its last complete frame.\n",
            DUMP_JSON_VERSION);
}

/* PHASOR_CONTINUE with *op filled, or the exit status (--help, bad usage). */
static int dump_parse(int argc, char **argv, dump_opts_t *op)
{
    *op = (dump_opts_t){.fmt = PHASOR_FMT_TEXT, .rank = -1};
    static const struct option opts[] = {
        {"rank", required_argument, NULL, 'r'}, {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},       {"help", no_argument, NULL, 'h'},
        {"probe", no_argument, NULL, 'p'},      {NULL, 0, NULL, 0}};
    optind = 0; /* full reinitialisation: main may have run getopt already */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hr:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            dump_usage(stdout);
            return PHASOR_EXIT_OK;
        case 'r':
            if (phasor_rank_arg("dump", optarg, &op->rank) != PHASOR_EXIT_OK)
                return PHASOR_EXIT_USAGE;
            break;
        case 'p':
            op->probe = 1;
            break;
        case 'c':
        case 'j':
            if (phasor_fmt_arg("dump", c == 'c' ? PHASOR_FMT_CSV : PHASOR_FMT_JSON, &op->fmt) !=
                PHASOR_EXIT_OK)
                return PHASOR_EXIT_USAGE;
            break;
        default:
            return phasor_getopt_error("dump", c, argv);
        }
    }
    int st = phasor_log_arg("dump", argc, argv, 0, &op->path);
    return st == PHASOR_EXIT_OK ? PHASOR_CONTINUE : st;
}

/* ---- the events ---- */

static void dump_head(out_t *o, phasor_fmt_t fmt, const char *path, const plog_run_t *run)
{
    if (fmt == PHASOR_FMT_CSV) {
        o_str(o, csv_header);
    } else if (fmt == PHASOR_FMT_JSON) {
        o_str(o, "{\"format\": \"phasor-dump\", \"version\": ");
        o_i64(o, DUMP_JSON_VERSION);
        o_str(o, ", \"world_size\": ");
        o_i64(o, plog_run_world_size(run));
        o_str(o, ",\n\"events\": [");
    } else {
        char line[4200];
        snprintf(line, sizeof(line), "# phasor dump of %s: world size %d\n"
                 "# rank thread start_ns end_ns call fields...\n", path,
                 (int)plog_run_world_size(run));
        o_str(o, line);
    }
}

/* Every event of the ranks asked for, rank by rank. PLOG_OK, or the reader's error. */
static plog_err_t dump_events(out_t *o, const dump_opts_t *op, plog_run_t *run,
                              plog_error_t *err)
{
    plog_err_t ie = PLOG_OK;
    int first = 1;
    for (int32_t r = 0; r < plog_run_world_size(run) && ie == PLOG_OK; r++) {
        if (plog_run_rank(run, r) == NULL || (op->rank >= 0 && r != op->rank))
            continue;
        plog_iter_t *it = NULL;
        if ((ie = plog_iter_open(run, r, &it, err)) != PLOG_OK)
            break;
        const plog_rec_t *e;
        while ((ie = plog_iter_next(it, &e, err)) == PLOG_OK && e != NULL) {
            switch (op->fmt) {
            case PHASOR_FMT_CSV: event_csv(o, e); break;
            case PHASOR_FMT_JSON: event_json(o, e, first); break;
            default: event_text(o, e); break;
            }
            first = 0;
        }
        plog_iter_close(it);
    }
    return ie;
}

/* What the output has no place for, on stderr: the reader's warnings and, for CSV, each
 * rank that ended early (the text form says both in its tail, JSON in its members). */
static void dump_notes(phasor_fmt_t fmt, const plog_run_t *run)
{
    if (fmt == PHASOR_FMT_JSON)
        return;
    phasor_print_warnings("dump", run);
    if (fmt != PHASOR_FMT_CSV)
        return;
    for (int32_t r = 0; r < plog_run_world_size(run); r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (rk != NULL && !rk->complete)
            fprintf(stderr, "phasor dump: note: %s ended early at offset %" PRIu64
                    "; its complete frames were read\n", rk->path, rk->end_offset);
    }
}

int phasor_cmd_dump(int argc, char **argv)
{
    dump_opts_t op;
    int status = dump_parse(argc, argv, &op);
    if (status != PHASOR_CONTINUE)
        return status;
    plog_run_t *run;
    status = phasor_open_run("dump", op.path, op.rank, &run);
    if (status != PHASOR_EXIT_OK)
        return status;
    if (op.probe) {
        status = dump_probe(run, op.path, op.fmt, op.rank);
        plog_run_close(run);
        return status;
    }

    static out_t o;
    o.f = stdout;
    o.n = 0;
    dump_head(&o, op.fmt, op.path, run);
    plog_error_t err;
    if (dump_events(&o, &op, run, &err) != PLOG_OK) {
        o_flush(&o);
        fflush(stdout);
        fprintf(stderr, "phasor dump: %s\n", err.msg);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    if (op.fmt == PHASOR_FMT_JSON)
        json_tail(&o, run);
    else if (op.fmt == PHASOR_FMT_TEXT)
        text_tail(&o, run);
    status = phasor_finish_out("dump", &o);
    if (status == PHASOR_EXIT_OK)
        dump_notes(op.fmt, run);
    plog_run_close(run);
    return status;
}
