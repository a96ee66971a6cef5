#!/usr/bin/env python3
"""check_events.py: check a `phasor dump --json` of one MPI test program, event by event.

For each program of tests/mpi (and examples/stencil) this file holds the exact sequence of MPI
calls every rank makes, with the fields the shim must have recorded: peers and roots as world
ranks, tags, bytes, in-place flags, per-peer byte lists, the communicators created (their
members), request linkage (every start completed exactly once, every completion linked to an
earlier start on the same rank), what wildcard receives matched, thread ids. Program-independent
checks: the dump's header and rank table, no reader warnings, time order, one global balance of
point-to-point messages (every message sent is received by the world rank it names).

Usage:
  check_events.py --prog NAME --np N --dump DUMP.json [--stdout OUT] [--stderr ERR] [--selftest]
    --stdout/--stderr   the program's outputs under the shim (t_transparent, stencil use them)
    --ignore-warnings   diagnosis only: go on past the reader's warnings
    --selftest          also mutate the dump in ways the check must notice (drop an event,
                        change a peer, a tag, a status ...) and fail unless every mutant fails
Exit status: 0 all checks passed, 1 a check failed, 2 bad usage. Python 3 standard library only.
"""
import argparse
import copy
import itertools
import json
import random
import re
import sys
from collections import Counter

WORLD = 1
NONE, ANY, PNULL, PROOT = -1, -2, -3, -4     # dump specials (doc/dump-format.md)
ANY_TAG = -2
SEND_ST = (NONE, NONE, -1)                   # status of a send/collective completion
NULL_ST = (PNULL, ANY_TAG, 0)                # status of a receive from MPI_PROC_NULL
EMPTY_ST = (ANY, ANY_TAG, 0)                 # the empty status (inactive request)
# MPI_Irecv from MPI_PROC_NULL: MPICH 4.0 often hands the application source 0, tag 0 instead
# of the empty status (its shared pre-completed request); the shim must record what MPI said.
NULL_IRECV_ST = ('oneof', [NULL_ST, (0, 0, 0)])
REPORT_BYTES = 4096                          # mpitest.h MT_OUT_MAX: mt_finish()'s Gather


class CheckError(Exception):
    pass


def fail(msg):
    raise CheckError(msg)


def st(src, tag, nbytes, irecv=False):
    """Expected status of a receive from world rank src (MPI_PROC_NULL: the empty status)."""
    if src == PNULL:
        return NULL_IRECV_ST if irecv else NULL_ST
    return (src, tag, nbytes)


# ---------------------------------------------------------------------------------------------
# The cursor: walks one rank's (or one thread's) events in order and checks each against what
# the program must have called. Every field it compares is noted in `marks` for --selftest.
# ---------------------------------------------------------------------------------------------

DEFAULTS = {'comm': 0, 'peer': NONE, 'tag': NONE, 'root': NONE, 'bytes': 0, 'rbytes': 0,
            'request': 0}


class Cursor:
    def __init__(self, chk, rank, events, what):
        self.chk = chk
        self.rank = rank
        self.events = events      # list of (global index, event)
        self.pos = 0
        self.what = what
        self.req = {}             # request name -> id
        self.expect = {}          # request name -> expected status tuple, or ('pool', list)
        self.pending = set()      # names started and not yet completed
        self.pdef = {}            # persistent request name -> id of its Send_init/Recv_init
        self.inst = {}            # persistent request name -> current instance name
        self.ninst = Counter()
        self.comm = {}            # communicator name -> global id

    # -- basics --
    def where(self, gi=None):
        if gi is None:
            gi = self.events[self.pos][0] if self.pos < len(self.events) else None
        at = f"event #{gi}" if gi is not None else "end of events"
        return f"{self.what}, {at}"

    def err(self, msg, gi=None):
        fail(f"{self.where(gi)}: {msg}")

    def mark(self, gi, field):
        self.chk.marks.setdefault(gi, set()).add(field)

    def peek(self):
        return self.events[self.pos][1] if self.pos < len(self.events) else None

    def take(self, call):
        if self.pos >= len(self.events):
            self.err(f"expected {call}, but the events ended")
        gi, e = self.events[self.pos]
        if e['call'] != call:
            self.err(f"expected {call}, got {e['call']} ({brief(e)})", gi)
        self.pos += 1
        self.mark(gi, 'call')
        return gi, e

    def eq(self, gi, e, field, want):
        got = e.get(field)
        if got != want:
            self.err(f"{e['call']}: {field} is {got!r}, expected {want!r}", gi)
        self.mark(gi, field)

    def end(self):
        if self.pos != len(self.events):
            gi, e = self.events[self.pos]
            self.err(f"unexpected extra event {e['call']} ({brief(e)})", gi)

    # -- one event --
    def ev(self, call, **kw):
        """Next event must be `call` with the given fields; unspecified comm/peer/tag/root/
        bytes/rbytes must have their not-applicable values. Returns the event."""
        gi, e = self.take(call)
        rc = kw.pop('rc', 0)
        skip = kw.pop('skip', ())
        if rc == 'error':
            if e['rc'] == 0:
                self.err(f"{call}: rc 0, but MPI returned an error", gi)
            self.mark(gi, 'rc')
        else:
            self.eq(gi, e, 'rc', rc)
        for f, dflt in DEFAULTS.items():
            if f in kw:
                self.eq(gi, e, f, kw.pop(f))
            elif e['rc'] == 0 and f not in skip:
                self.eq(gi, e, f, dflt)
        self.flags(gi, e, inplace=kw.pop('inplace', False), inter=kw.pop('inter', False),
                   flag_true=kw.pop('flag_true', None))
        for f in ('recv_source', 'recv_tag', 'vsend', 'vrecv', 'newcomm'):
            self.eq(gi, e, f, kw.pop(f, None))      # None: must be absent
        if 'types' in kw:     # COLLINFO: (send type size, recv type size), 0 = not significant
            s, rt = kw.pop('types')
            self.eq(gi, e, 'stype_size', s)
            self.eq(gi, e, 'rtype_size', rt)
            op = kw.pop('op', None)  # (name, commutative) or None for no op
            self.eq(gi, e, 'op', op[0] if op else None)
            self.eq(gi, e, 'commutative', op[1] if op else None)
        if 'recv' in kw:      # the one status of a blocking receive or probe
            self.status_list(gi, e, [(0, kw.pop('recv'), 0)])
        elif e['rc'] == 0:
            self.eq(gi, e, 'status', None)
        if 'thread' in kw:
            self.eq(gi, e, 'thread', kw.pop('thread'))
        if kw:
            raise TypeError(f"unknown expectations {sorted(kw)}")
        return e

    def flags(self, gi, e, inplace=False, inter=False, flag_true=None):
        """The flags with a meaning of their own must be exactly as expected (flag_true None:
        not looked at); the others only say which fields are present, and truncated never."""
        flags = e.get('flags', [])
        for flag, want in (('inplace', inplace), ('inter', inter), ('flag_true', flag_true)):
            if want is not None and (flag in flags) != want:
                self.err(f"{e['call']}: flag {flag} {'missing' if want else 'unexpected'}", gi)
        if 'truncated' in flags:
            self.err(f"{e['call']}: recorded as truncated", gi)
        self.mark(gi, 'flags')

    def status_list(self, gi, e, want):
        """want: [(request id, (source, tag, bytes), index)] in order."""
        sts = e.get('status')
        if sts is None or len(sts) != len(want):
            self.err(f"{e['call']}: {0 if sts is None else len(sts)} statuses, expected "
                     f"{len(want)}", gi)
        for k, (rid, s3, idx) in enumerate(want):
            s = sts[k]
            got = (s['request'], (s['source'], s['tag'], s['bytes']), s['index'])
            if got != (rid, tuple(s3), idx):
                self.err(f"{e['call']}: status {k} is request {got[0]} source/tag/bytes "
                         f"{got[1]} index {got[2]}, expected request {rid} {tuple(s3)} "
                         f"index {idx}", gi)
            if s['cancelled']:
                self.err(f"{e['call']}: status {k} says cancelled", gi)
            self.mark(gi, ('status', k))

    # -- requests --
    def start(self, call, name, expect=SEND_ST, **kw):
        """A nonblocking start: binds its request id to `name`; `expect` is the status its
        completion must show: a (source, tag, bytes) tuple or ('pool', list-of-tuples)."""
        kw['skip'] = tuple(kw.get('skip', ())) + ('request',)
        e = self.ev(call, **kw)
        gi = self.events[self.pos - 1][0]
        rid = e.get('request', 0)
        if not rid:
            self.err(f"{call}: no request id", gi)
        if rid in [self.req[n] for n in self.pending]:
            self.err(f"{call}: request id {rid} is already open", gi)
        self.mark(gi, 'request')
        self.req[name] = rid
        self.expect[name] = expect
        self.pending.add(name)
        return e

    def pinit(self, call, name, expect, **kw):
        """Send_init/Recv_init: a persistent request definition."""
        kw['skip'] = ('request',)
        e = self.ev(call, **kw)
        gi = self.events[self.pos - 1][0]
        if not e.get('request'):
            self.err(f"{call}: no request id", gi)
        self.mark(gi, 'request')
        self.pdef[name] = e['request']
        self.expect[name] = expect
        return e

    def _instance(self, name, rid, gi):
        """A Start of persistent request `name` created instance id rid."""
        if name not in self.pdef:
            raise TypeError(name)
        if rid in [self.req[n] for n in self.pending] or not rid:
            self.err(f"start of {name}: instance id {rid} is 0 or already open", gi)
        self.ninst[name] += 1
        iname = f"{name}#{self.ninst[name]}"
        self.inst[name] = iname
        self.req[iname] = rid
        self.expect[iname] = self.expect[name]
        self.pending.add(iname)

    def pstart(self, name):
        gi, e = self.take('MPI_Start')
        self.eq(gi, e, 'rc', 0)
        self._instance(name, e.get('request'), gi)
        self.mark(gi, 'request')

    def pstartall(self, names):
        gi, e = self.take('MPI_Startall')
        self.eq(gi, e, 'rc', 0)
        ids = e.get('requests')
        if ids is None or len(ids) != len(names):
            self.err(f"MPI_Startall: requests {ids}, expected {len(names)} ids", gi)
        for n, rid in zip(names, ids):
            self._instance(n, rid, gi)
        self.mark(gi, 'requests')

    def cur(self, name):
        """The name of the open request behind `name` (a persistent request's instance)."""
        return self.inst.get(name, name)

    def _completed(self, gi, e, k, name):
        """Status k of event e completed request `name`: check it against its expectation."""
        s = e['status'][k]
        got = (s['source'], s['tag'], s['bytes'])
        exp = self.expect[name]
        if isinstance(exp, tuple) and exp and exp[0] == 'oneof':
            if got not in exp[1]:
                self.err(f"{e['call']}: status {k} ({name}) is {got}, expected one of "
                         f"{exp[1]}", gi)
        elif isinstance(exp, tuple) and exp and exp[0] == 'pool':
            pool = exp[1]
            if got not in pool:
                self.err(f"{e['call']}: status {k} ({name}) matched {got}, not one of the "
                         f"expected {sorted(pool)}", gi)
            pool.remove(got)
        elif got != tuple(exp):
            self.err(f"{e['call']}: status {k} ({name}) is {got}, expected {tuple(exp)}", gi)
        if s['cancelled'] != (exp == 'cancelled'):
            self.err(f"{e['call']}: status {k} ({name}) cancelled={s['cancelled']}", gi)
        self.mark(gi, ('status', k))
        self.pending.discard(name)

    def resolve(self, gi, e, name, rid, what):
        """The completion `what` of request `name` names request id rid. Fine if rid is
        name's id. MPI libraries hand out one shared handle for requests that are complete
        when started (Open MPI's ompi_request_empty, MPICH's builtin requests: sends done
        eagerly, MPI_PROC_NULL receives, trivial collectives); between such requests a log of
        handles cannot tell which start a completion consumed. So rid may also be another
        open request whose completion must look the same (a send or collective, or a
        receive from MPI_PROC_NULL): the two names then swap ids."""
        if rid == self.req[name]:
            return
        other = next((n for n in self.pending if self.req[n] == rid), None)
        same = other is not None and self.expect[other] == self.expect[name] and \
            self.expect[name] in (SEND_ST, NULL_ST, NULL_IRECV_ST)
        if not same:
            self.err(f"{e['call']}: {what} is request {rid}, expected {self.req[name]} "
                     f"({name})", gi)
        self.req[name], self.req[other] = self.req[other], self.req[name]

    def _check_entry(self, gi, e, k, arr, allowed):
        """Status k of a multi-request completion: returns the name it completed."""
        s = e['status'][k]
        idx = s['index']
        if not 0 <= idx < len(arr) or arr[idx] is None:
            self.err(f"{e['call']}: status {k} has index {idx}, not an active entry", gi)
        name = arr[idx]
        if name not in allowed:
            self.err(f"{e['call']}: status {k} completes {name} twice", gi)
        self.resolve(gi, e, name, s['request'], f"status {k} (index {idx})")
        self._completed(gi, e, k, name)
        return name

    def _handles(self, gi, e, arr):
        """Wait{any,all,some} may record their input array: ids, 0 for MPI_REQUEST_NULL
        (doc/log-format.md: always on failure; the shim also does it on success)."""
        if 'requests' in e or e.get('rc'):
            want = [self.req[n] if n is not None else 0 for n in arr]
            self.eq(gi, e, 'requests', want)

    def wait(self, name):
        name = self.cur(name)
        gi, e = self.take('MPI_Wait')
        self.completion_fields(gi, e)
        if name not in self.pending:
            self.err(f"MPI_Wait: {name} is not open", gi)
        self.resolve(gi, e, name, e.get('request'), "the request")
        self.eq(gi, e, 'request', self.req[name])
        n = len(e.get('status') or [])
        if n != 1:
            self.err(f"MPI_Wait: {n} statuses, expected 1", gi)
        self._check_entry(gi, e, 0, [name], {name})

    def waitall(self, names, call='MPI_Waitall'):
        """Waitall over `names` (None = MPI_REQUEST_NULL) or one successful Testall."""
        arr = [self.cur(n) if n is not None else None for n in names]
        gi, e = self.take(call)
        self.completion_fields(gi, e, flag_true=call == 'MPI_Testall' or None)
        if call == 'MPI_Waitall':
            self._handles(gi, e, arr)
        active = [n for n in arr if n is not None]
        sts = e.get('status') or []
        if len(sts) != len(active):
            self.err(f"{call}: {len(sts)} statuses for {len(active)} active requests", gi)
        for k, s in enumerate(sts):      # in array order, one per active entry
            want_idx = [i for i, n in enumerate(arr) if n is not None][k]
            if s['index'] != want_idx:
                self.err(f"{call}: status {k} has index {s['index']}, expected {want_idx}", gi)
            self._check_entry(gi, e, k, arr, set(active))

    def completion_fields(self, gi, e, flag_true=None):
        """A Wait/Test-family event: rc 0, no communicator, peer, tag, root or bytes."""
        self.eq(gi, e, 'rc', 0)
        for f, dflt in DEFAULTS.items():
            if f != 'request':
                self.eq(gi, e, f, dflt)
        self.flags(gi, e, flag_true=flag_true)

    def poll(self, call, names):
        """A loop of `call` (Waitany/Waitsome/Test/Testany/Testsome/Testall) over the array
        `names` until every request in it completed. Calls that complete nothing are allowed
        only for the Test family, and only as long as something is still open."""
        arr = [self.cur(n) if n is not None else None for n in names]
        left = {n for n in arr if n is not None}
        while left:
            if self.pos >= len(self.events):
                self.err(f"{call} loop: events ended with {sorted(left)} open")
            gi, e = self.take(call)
            sts = e.get('status') or []
            self.completion_fields(gi, e, flag_true=bool(sts) if call in (
                'MPI_Test', 'MPI_Testany', 'MPI_Testall') else False)
            view = [n if n in left else None for n in arr]
            if call in ('MPI_Waitany', 'MPI_Waitsome'):
                self._handles(gi, e, view)
            if call == 'MPI_Testall':
                if sts:
                    self.pos -= 1
                    self.waitall([n if n in left else None for n in arr], 'MPI_Testall')
                    left.clear()
                    break
                self.chk.loose.add(gi)
                continue
            if call == 'MPI_Test':
                self.resolve(gi, e, arr[0], e.get('request'), "the request")
                self.eq(gi, e, 'request', self.req[arr[0]])
            if call in ('MPI_Waitany', 'MPI_Waitsome') and not sts:
                self.err(f"{call}: completed nothing", gi)
            if call in ('MPI_Waitany', 'MPI_Testany', 'MPI_Test') and len(sts) > 1:
                self.err(f"{call}: {len(sts)} statuses", gi)
            if not sts:
                self.chk.loose.add(gi)   # how many empty polls happen is up to timing
            for k in range(len(sts)):
                left.discard(self._check_entry(gi, e, k, view, left))

    def polls_run(self, n, each, call, **kw):
        """n polls of `call` on the same arguments that found nothing: one event standing
        for n calls (the polls flag, ncalls n, its time inside within its span) when n >= 2;
        one event per call with PHASOR_POLLS=each (`each`) or n = 1."""
        for _ in range(n if each or n == 1 else 1):
            e = self.ev(call, flag_true=False, **kw)
            gi = self.events[self.pos - 1][0]
            run = 'polls' in e.get('flags', [])
            if run != (not each and n > 1):
                self.err(f"{call}: polls flag {'unexpected' if run else 'missing'}", gi)
            self.eq(gi, e, 'ncalls', n if run else None)
            # within the span on the run's own clock (the reader caps it there); the aligned
            # times may stretch it by the clock's drift correction
            span = e['end_ns'] - e['start_ns']
            if run and not 0 < e.get('inside_ns', 0) <= span + span // 1000 + 100:
                self.err(f"{call}: time inside {e.get('inside_ns')} not within its span", gi)
            self.mark(gi, 'inside_ns')

    def probe_loop(self, call, found, **kw):
        """Iprobe/Improbe until found: the last call has flag_true and the status `found`."""
        while True:
            e = self.peek()
            if e is None or e['call'] != call:
                self.err(f"{call} loop ended without finding the message")
            if 'flag_true' in e.get('flags', []):
                return self.ev(call, flag_true=True, recv=found, **kw)
            self.ev(call, flag_true=False, **kw)
            self.chk.loose.add(self.events[self.pos - 1][0])

    def cancel_wait(self, name):
        """MPI_Cancel of the receive `name`, then the MPI_Wait that completes it cancelled."""
        gi, e = self.take('MPI_Cancel')
        self.eq(gi, e, 'request', self.req[name])
        self.eq(gi, e, 'rc', 0)
        gi, e = self.take('MPI_Wait')
        self.eq(gi, e, 'request', self.req[name])
        sts = e.get('status') or []
        if len(sts) != 1 or sts[0]['request'] != self.req[name] or not sts[0]['cancelled']:
            self.err(f"MPI_Wait of the cancelled receive: status {sts}, expected one, "
                     f"cancelled", gi)
        self.mark(gi, ('status_req', 0))  # the rest of a cancelled request's status is undefined
        self.pending.discard(name)

    def reqfree(self, call, name):
        """Request_free of a persistent request: refers to its definition or its last start."""
        gi, e = self.take(call)
        self.eq(gi, e, 'rc', 0)
        ok = {self.pdef.get(name)}
        if name in self.inst:
            ok.add(self.req[self.inst[name]])
        if e.get('request') not in ok:
            self.err(f"{call}: request {e.get('request')}, expected one of {sorted(ok)}", gi)
        self.mark(gi, 'request')

    def finish(self, lib_end=True):
        """mt_finish(): the report Gather to rank 0, then MPI_Finalize; nothing may stay open."""
        if lib_end:
            self.ev('MPI_Gather', comm=WORLD, root=0, bytes=REPORT_BYTES,
                    rbytes=REPORT_BYTES if self.rank == 0 else 0)
        self.ev('MPI_Finalize')
        self.end()
        if self.pending:
            self.err(f"requests never completed: {sorted(self.pending)}")

    # -- communicators --
    def newcomm(self, call, name, members, kind='intra', remote=(), parent=None, **kw):
        """A constructor whose new communicator (members as world ranks, in comm-rank order)
        is bound to `name`; members None: this rank gets MPI_COMM_NULL (newcomm 0)."""
        gi, e = self.take(call)
        self.pos -= 1
        nid = e.get('newcomm')
        self.ev(call, newcomm=nid if members is not None else 0, **kw)
        if members is None:
            self.mark(gi, 'newcomm')
            return None
        return self.newcomm_def(gi, call, name, nid, members, kind, remote, parent)

    def newcomm_def(self, gi, call, name, nid, members, kind='intra', remote=(), parent=None):
        """Communicator nid, made by event gi, is in the comms list as described."""
        self.mark(gi, 'newcomm')
        c = self.chk.comms.get(nid)
        if c is None:
            self.err(f"{call}: newcomm {nid} is not in the comms list", gi)
        want = {'kind': kind, 'creator': call, 'members': list(members), 'remote': list(remote)}
        if parent is not None:
            want['parent'] = parent
        for f, v in want.items():
            if c.get(f) != v:
                self.err(f"{call}: comm {nid} {f} is {c.get(f)!r}, expected {v!r}", gi)
        self.chk.comm_marks.add(nid)
        self.comm[name] = nid
        return nid


def brief(e):
    keys = ('comm', 'peer', 'tag', 'root', 'bytes', 'rbytes', 'request')
    return ' '.join(f"{k}={e.get(k)}" for k in keys if e.get(k) not in (None, 0, -1))


# ---------------------------------------------------------------------------------------------
# The programs: one function per program, called once per rank (or thread) with a cursor.
# They mirror the C sources line by line; keep them in step.
# ---------------------------------------------------------------------------------------------

def p2p_modes(c, P, r, ctx):
    peer = r ^ 1 if (r ^ 1) < P else PNULL
    lo = r % 2 == 0
    c.ev('MPI_Init')
    if lo:
        c.ev('MPI_Send', comm=WORLD, peer=peer, tag=10, bytes=16)
        c.ev('MPI_Bsend', comm=WORLD, peer=peer, tag=11, bytes=32)
        c.ev('MPI_Ssend', comm=WORLD, peer=peer, tag=12, bytes=64)
        c.ev('MPI_Recv', comm=WORLD, peer=peer, tag=14, rbytes=0, recv=st(peer, 14, 0))
        c.ev('MPI_Rsend', comm=WORLD, peer=peer, tag=13, bytes=128)
    else:
        for tag, n in ((10, 16), (11, 32), (12, 64)):
            c.ev('MPI_Recv', comm=WORLD, peer=peer, tag=tag, rbytes=128, recv=st(peer, tag, n))
        c.start('MPI_Irecv', 'rs', st(peer, 13, 128), comm=WORLD, peer=peer, tag=13, rbytes=128)
        c.ev('MPI_Send', comm=WORLD, peer=peer, tag=14, bytes=0)
        c.wait('rs')
    names = ['nb0', 'nb1', 'nb2', 'nb3']
    counts = [3, 5, 7, 9]
    if lo:
        for k in range(4):
            c.start('MPI_Irecv', names[k], st(peer, 20 + k, 8 * counts[k], irecv=True),
                    comm=WORLD, peer=peer, tag=20 + k, rbytes=72)
        c.ev('MPI_Send', comm=WORLD, peer=peer, tag=29, bytes=0)
    else:
        c.ev('MPI_Recv', comm=WORLD, peer=peer, tag=29, rbytes=0, recv=st(peer, 29, 0))
        for k, call in enumerate(('MPI_Isend', 'MPI_Ibsend', 'MPI_Issend', 'MPI_Irsend')):
            c.start(call, names[k], SEND_ST, comm=WORLD, peer=peer, tag=20 + k,
                    bytes=8 * counts[k])
    c.waitall(names)
    c.ev('MPI_Sendrecv', comm=WORLD, peer=peer, tag=30, bytes=24, rbytes=24, recv_source=peer,
         recv_tag=30, recv=st(peer, 30, 24))
    c.ev('MPI_Sendrecv_replace', comm=WORLD, peer=peer, tag=31, bytes=40, rbytes=40,
         recv_source=peer, recv_tag=31, recv=st(peer, 31, 40))
    c.ev('MPI_Send', comm=WORLD, peer=PNULL, tag=40, bytes=8)
    c.ev('MPI_Recv', comm=WORLD, peer=PNULL, tag=40, rbytes=8, recv=NULL_ST)
    c.start('MPI_Isend', 'n1', SEND_ST, comm=WORLD, peer=PNULL, tag=40, bytes=8)
    c.wait('n1')
    c.start('MPI_Irecv', 'n2', NULL_IRECV_ST, comm=WORLD, peer=PNULL, tag=40, rbytes=8)
    c.wait('n2')
    c.ev('MPI_Sendrecv', comm=WORLD, peer=PNULL, tag=40, bytes=8, rbytes=8, recv_source=PNULL,
         recv_tag=40, recv=NULL_ST)
    c.finish()


def p2p_any(c, P, r, ctx):
    def count(s, k):
        return s + k

    def tag(s, k):
        return 400 if k == 4 else 100 * k + s

    c.ev('MPI_Init')
    for k in range(1, 9):
        if r == 0:
            pool = [(s, tag(s, k), 4 * count(s, k)) for s in range(1, P)]
            names = [f"r{k}.{i}" for i in range(P - 1)]
            if k in (1, 2):
                for _ in range(P - 1):
                    gi, e = c.take('MPI_Recv')
                    c.pos -= 1
                    s = (e.get('status') or [{}])[0]
                    got3 = (s.get('source'), s.get('tag'), s.get('bytes'))
                    if got3 not in pool:
                        c.err(f"MPI_Recv(ANY_SOURCE, ANY_TAG) matched {got3}, not one of "
                              f"{sorted(pool)}", gi)
                    pool.remove(got3)
                    c.ev('MPI_Recv', comm=WORLD, peer=ANY, tag=ANY_TAG, rbytes=256, recv=got3)
            elif k == 5:
                for i in range(P - 1):
                    s = i + 1
                    c.start('MPI_Irecv', names[i], (s, tag(s, k), 4 * count(s, k)), comm=WORLD,
                            peer=s, tag=ANY_TAG, rbytes=256)
            else:
                for i in range(P - 1):
                    c.start('MPI_Irecv', names[i], ('pool', pool), comm=WORLD, peer=ANY,
                            tag=400 if k == 4 else ANY_TAG, rbytes=256)
            if k in (1, 2):
                pass
            elif k == 3:
                c.waitall(names)
            elif k == 4:
                c.poll('MPI_Waitany', names)
            elif k == 5:
                c.poll('MPI_Waitsome', names)
            elif k == 6:
                c.poll('MPI_Testany', names)
            elif k == 7:
                c.poll('MPI_Testsome', names)
            else:
                c.poll('MPI_Testall', names)
        else:
            n, t = 4 * count(r, k), tag(r, k)
            if k == 3:
                c.start('MPI_Isend', f"s{k}", SEND_ST, comm=WORLD, peer=0, tag=t, bytes=n)
                c.wait(f"s{k}")
            elif k == 4:
                c.start('MPI_Isend', f"s{k}", SEND_ST, comm=WORLD, peer=0, tag=t, bytes=n)
                c.poll('MPI_Test', [f"s{k}"])
            else:
                c.ev('MPI_Ssend' if k == 8 else 'MPI_Send', comm=WORLD, peer=0, tag=t, bytes=n)
        c.ev('MPI_Barrier', comm=WORLD)
    right, left = (r + 1) % P, (r + P - 1) % P
    c.ev('MPI_Sendrecv', comm=WORLD, peer=right, tag=9, bytes=12, rbytes=256, recv_source=ANY,
         recv_tag=ANY_TAG, recv=(left, 9, 12))
    c.ev('MPI_Sendrecv_replace', comm=WORLD, peer=right, tag=10, bytes=16, rbytes=16,
         recv_source=ANY, recv_tag=10, recv=(left, 10, 16))
    c.finish()


def persistent(c, P, r, ctx):
    right, left = (r + 1) % P, (r + P - 1) % P
    c.ev('MPI_Init')
    c.pinit('MPI_Send_init', 'S', SEND_ST, comm=WORLD, peer=right, tag=7, bytes=40)
    c.pinit('MPI_Recv_init', 'R', (left, 7, 40), comm=WORLD, peer=left, tag=7, rbytes=40)
    c.pinit('MPI_Ssend_init', 'S2', SEND_ST, comm=WORLD, peer=right, tag=8, bytes=24)
    c.pinit('MPI_Recv_init', 'R2', (left, 8, 24), comm=WORLD, peer=ANY, tag=8, rbytes=24)
    order = ['R', 'S', 'R2', 'S2']
    for it in range(6):
        if it % 3 == 1:
            for n in ('R', 'R2', 'S', 'S2'):
                c.pstart(n)
            for n in ('S', 'S2', 'R', 'R2'):
                c.wait(n)
        else:
            c.pstartall(order)
            if it % 3 == 0:
                c.waitall(order)
            else:
                c.poll('MPI_Testall', order)
    for n in ('S', 'R', 'S2', 'R2'):
        c.reqfree('MPI_Request_free', n)
    c.finish()


def requests(c, P, r, ctx):
    right, left = (r + 1) % P, (r + P - 1) % P
    big = 4 << 20
    c.ev('MPI_Init')
    # cancelled and freed before the rank's first completion, then cancelled and waited for
    c.start('MPI_Irecv', 'c1', 'cancelled', comm=WORLD, peer=r, tag=99, rbytes=4)
    for call in ('MPI_Cancel', 'MPI_Request_free'):
        gi, e = c.take(call)
        c.eq(gi, e, 'rc', 0)
        c.eq(gi, e, 'request', c.req['c1'])
    c.pending.discard('c1')
    c.start('MPI_Irecv', 'c2', 'cancelled', comm=WORLD, peer=r, tag=98, rbytes=4)
    c.cancel_wait('c2')
    # buffered persistent sends, restarted while the last may be in flight: whatever handle
    # MPI gives them, every Start opens an instance its Wait completes
    c.pinit('MPI_Bsend_init', 'B', SEND_ST, comm=WORLD, peer=right, tag=5, bytes=big)
    for it in range(4):
        c.pstart('B')
        c.wait('B')
        c.ev('MPI_Recv', comm=WORLD, peer=left, tag=5, rbytes=big, recv=(left, 5, big))
    c.pinit('MPI_Bsend_init', 'B1', SEND_ST, comm=WORLD, peer=right, tag=6, bytes=big)
    c.pinit('MPI_Bsend_init', 'B2', SEND_ST, comm=WORLD, peer=right, tag=7, bytes=big)
    for it in range(4):
        c.pstartall(['B1', 'B2'])
        c.waitall(['B1', 'B2'])
        for tag in (6, 7):
            c.ev('MPI_Recv', comm=WORLD, peer=left, tag=tag, rbytes=big, recv=(left, tag, big))
    for n in ('B', 'B1', 'B2'):
        c.reqfree('MPI_Request_free', n)
    # generalized requests: MPI leaves their status to the query function; the log's is
    # that of a request that is neither a send nor a receive
    c.start('MPI_Grequest_start', 'g1', SEND_ST)
    gi, e = c.take('MPI_Grequest_complete')
    c.eq(gi, e, 'rc', 0)
    c.eq(gi, e, 'request', c.req['g1'])
    c.wait('g1')
    c.start('MPI_Grequest_start', 'g2', SEND_ST)
    c.ev('MPI_Test', request=c.req['g2'], flag_true=False)
    gi, e = c.take('MPI_Grequest_complete')
    c.eq(gi, e, 'request', c.req['g2'])
    c.poll('MPI_Test', ['g2'])
    c.finish()


def probe(c, P, r, ctx):
    right, left = (r + 1) % P, (r + P - 1) % P
    c.ev('MPI_Init')
    c.start('MPI_Isend', 's1', SEND_ST, comm=WORLD, peer=right, tag=40, bytes=16)
    c.ev('MPI_Probe', comm=WORLD, peer=left, tag=40, recv=(left, 40, 16))
    c.ev('MPI_Recv', comm=WORLD, peer=left, tag=40, rbytes=16, recv=(left, 40, 16))
    c.wait('s1')
    c.start('MPI_Isend', 's2', SEND_ST, comm=WORLD, peer=right, tag=41, bytes=20)
    c.probe_loop('MPI_Iprobe', (left, 41, 20), comm=WORLD, peer=ANY, tag=41)
    c.ev('MPI_Recv', comm=WORLD, peer=left, tag=41, rbytes=64, recv=(left, 41, 20))
    c.wait('s2')
    c.start('MPI_Isend', 's3', SEND_ST, comm=WORLD, peer=right, tag=42, bytes=24)
    seen = set()
    mp = c.ev('MPI_Mprobe', comm=WORLD, peer=left, tag=42, recv=(left, 42, 24))
    mr = c.ev('MPI_Mrecv', rbytes=64, recv=(left, 42, 24), skip=('peer', 'comm'))
    same_message(c, mp, mr, seen)
    c.wait('s3')
    c.start('MPI_Isend', 's4', SEND_ST, comm=WORLD, peer=right, tag=43, bytes=28)
    mp = c.probe_loop('MPI_Improbe', (left, 43, 28), comm=WORLD, peer=ANY, tag=ANY_TAG)
    mr = c.start('MPI_Imrecv', 'm4', (left, 43, 28), rbytes=64, skip=('peer', 'comm'))
    same_message(c, mp, mr, seen)
    c.wait('m4')
    c.wait('s4')
    c.ev('MPI_Probe', comm=WORLD, peer=PNULL, tag=44, recv=NULL_ST)
    c.ev('MPI_Iprobe', comm=WORLD, peer=PNULL, tag=44, flag_true=True, recv=NULL_ST)
    mp = c.ev('MPI_Mprobe', comm=WORLD, peer=PNULL, tag=44, recv=NULL_ST)
    mr = c.ev('MPI_Mrecv', rbytes=64, recv=NULL_ST, skip=('peer', 'comm'))
    same_message(c, mp, mr, seen)
    c.ev('MPI_Iprobe', comm=WORLD, peer=left, tag=99, flag_true=False)
    c.ev('MPI_Improbe', comm=WORLD, peer=ANY, tag=99, flag_true=False)
    c.finish()


def polls(c, P, r, ctx):
    """t_polls: runs of polls that found nothing, N = 100 of each kind on one set of
    arguments (PHASOR_POLLS=each, said on stderr: one event per poll)."""
    n, each = 100, ctx['polls'] == 'each'
    right, left = (r + 1) % P, (r + P - 1) % P
    c.ev('MPI_Init')
    c.polls_run(n, each, 'MPI_Iprobe', comm=WORLD, peer=left, tag=99)
    c.polls_run(3, each, 'MPI_Iprobe', comm=WORLD, peer=left, tag=98)
    c.polls_run(1, each, 'MPI_Iprobe', comm=WORLD, peer=left, tag=99)
    for _ in range(4):
        c.polls_run(1, each, 'MPI_Iprobe', comm=WORLD, peer=left, tag=97)
        c.polls_run(1, each, 'MPI_Iprobe', comm=WORLD, peer=ANY, tag=97)
    c.start('MPI_Irecv', 'r', (left, 7, 4), comm=WORLD, peer=left, tag=7, rbytes=4)
    c.polls_run(n, each, 'MPI_Test', request=c.req['r'])
    c.polls_run(n, each, 'MPI_Request_get_status', request=c.req['r'])
    for call in ('MPI_Testany', 'MPI_Testall', 'MPI_Testsome'):
        c.polls_run(n, each, call)
    c.polls_run(n, each, 'MPI_Improbe', comm=WORLD, peer=left, tag=99)
    c.ev('MPI_Barrier', comm=WORLD)
    c.ev('MPI_Send', comm=WORLD, peer=right, tag=7, bytes=4)
    c.poll('MPI_Test', ['r'])
    c.finish()


def same_message(c, mp, mr, seen):
    """Mprobe/Improbe get a new message id; the Mrecv/Imrecv that consumes the message shows
    the same id (dump-format.md, Messages)."""
    a, b = mp.get('message'), mr.get('message')
    gi = c.events[c.pos - 1][0]
    if not a or a != b or a in seen or 'message' not in mr.get('flags', []):
        c.err(f"{mr['call']}: message {b} is not the new message {a} of its probe", gi)
    if 'requests' in mp or 'requests' in mr:
        c.err(f"{mr['call']}: a message handle shown as a request list", gi)
    seen.add(a)
    c.mark(gi, 'message')


def pair_count(i, j):
    return (i + j) % 3 + 1


def pair_size(i, j):
    return 4 if (i + j) % 2 else 8


def colls(c, P, r, ctx):
    SUM, MAX, MIN = ('sum', True), ('max', True), ('min', True)
    c.ev('MPI_Init')
    c.ev('MPI_Barrier', comm=WORLD)
    c.ev('MPI_Bcast', comm=WORLD, root=P - 1, bytes=20, types=(4, 4))
    c.ev('MPI_Bcast', comm=WORLD, root=0, bytes=24, types=(8, 8))
    root = P // 2
    c.ev('MPI_Gather', comm=WORLD, root=root, bytes=12, rbytes=12 if r == root else 0,
         types=(4, 4 if r == root else 0))
    if r == 0:
        c.ev('MPI_Gather', comm=WORLD, root=0, bytes=8, rbytes=8, inplace=True, types=(0, 4))
    else:
        c.ev('MPI_Gather', comm=WORLD, root=0, bytes=8, types=(4, 0))
    gv = [4 * (i + 1) for i in range(P)]
    if r == P - 1:
        c.ev('MPI_Gatherv', comm=WORLD, root=P - 1, bytes=4 * (r + 1), vrecv=gv, rbytes=sum(gv),
             types=(4, 4))
    else:
        c.ev('MPI_Gatherv', comm=WORLD, root=P - 1, bytes=4 * (r + 1), types=(4, 0))
    if r == 0:
        c.ev('MPI_Gatherv', comm=WORLD, root=0, bytes=4, vrecv=gv, rbytes=sum(gv), inplace=True,
             types=(0, 4))
    else:
        c.ev('MPI_Gatherv', comm=WORLD, root=0, bytes=4 * (r + 1), types=(4, 0))
    root = 1 % P
    c.ev('MPI_Scatter', comm=WORLD, root=root, bytes=8 if r == root else 0, rbytes=8,
         types=(4 if r == root else 0, 4))
    if r == 0:
        c.ev('MPI_Scatter', comm=WORLD, root=0, bytes=8, rbytes=8, inplace=True, types=(4, 0))
    else:
        c.ev('MPI_Scatter', comm=WORLD, root=0, rbytes=8, types=(0, 4))
    sv = [4 * (i + 2) for i in range(P)]
    root = P // 2
    if r == root:
        c.ev('MPI_Scatterv', comm=WORLD, root=root, vsend=sv, bytes=sum(sv), rbytes=4 * (r + 2),
             types=(4, 4))
    else:
        c.ev('MPI_Scatterv', comm=WORLD, root=root, rbytes=4 * (r + 2), types=(0, 4))
    if r == 0:
        c.ev('MPI_Scatterv', comm=WORLD, root=0, vsend=sv, bytes=sum(sv), rbytes=8, inplace=True,
             types=(4, 0))
    else:
        c.ev('MPI_Scatterv', comm=WORLD, root=0, rbytes=4 * (r + 2), types=(0, 4))
    c.ev('MPI_Allgather', comm=WORLD, bytes=8, rbytes=8, types=(4, 4))
    c.ev('MPI_Allgather', comm=WORLD, bytes=8, rbytes=8, inplace=True, types=(0, 4))
    agv = [8 * (i + 1) for i in range(P)]
    c.ev('MPI_Allgatherv', comm=WORLD, bytes=8 * (r + 1), vrecv=agv, rbytes=sum(agv),
         types=(8, 8))
    c.ev('MPI_Allgatherv', comm=WORLD, bytes=8 * (r + 1), vrecv=agv, rbytes=sum(agv),
         inplace=True, types=(0, 8))
    c.ev('MPI_Alltoall', comm=WORLD, bytes=8, rbytes=8, types=(4, 4))
    c.ev('MPI_Alltoall', comm=WORLD, bytes=8, rbytes=8, inplace=True, types=(0, 4))
    av = [4 * pair_count(r, j) for j in range(P)]
    c.ev('MPI_Alltoallv', comm=WORLD, vsend=av, vrecv=av, bytes=sum(av), rbytes=sum(av),
         types=(4, 4))
    c.ev('MPI_Alltoallv', comm=WORLD, vsend=av, vrecv=av, bytes=sum(av), rbytes=sum(av),
         inplace=True, types=(0, 4))
    aw = [pair_count(r, j) * pair_size(r, j) for j in range(P)]
    c.ev('MPI_Alltoallw', comm=WORLD, vsend=aw, vrecv=aw, bytes=sum(aw), rbytes=sum(aw))
    c.ev('MPI_Alltoallw', comm=WORLD, vsend=aw, vrecv=aw, bytes=sum(aw), rbytes=sum(aw),
         inplace=True)
    c.ev('MPI_Reduce', comm=WORLD, root=P - 1, bytes=16, rbytes=16, types=(4, 4), op=SUM)
    c.ev('MPI_Reduce', comm=WORLD, root=0, bytes=24, rbytes=24, inplace=r == 0, types=(8, 8),
         op=MAX)
    c.ev('MPI_Allreduce', comm=WORLD, bytes=24, rbytes=24, types=(8, 8), op=SUM)
    c.ev('MPI_Allreduce', comm=WORLD, bytes=8, rbytes=8, inplace=True, types=(4, 4), op=MIN)
    c.ev('MPI_Allreduce', comm=WORLD, bytes=8, rbytes=8, types=(8, 8), op=('user', False))
    rs = [4 * (i + 1) for i in range(P)]
    for inplace in (False, True):
        c.ev('MPI_Reduce_scatter', comm=WORLD, vrecv=rs, bytes=sum(rs), rbytes=4 * (r + 1),
             inplace=inplace, types=(4, 4), op=SUM)
    for inplace in (False, True):
        c.ev('MPI_Reduce_scatter_block', comm=WORLD, bytes=8 * P, rbytes=8, inplace=inplace,
             types=(4, 4), op=SUM)
    for call in ('MPI_Scan', 'MPI_Exscan'):
        for inplace in (False, True):
            c.ev(call, comm=WORLD, bytes=8, rbytes=8, inplace=inplace, types=(4, 4), op=SUM)
    e = c.ev('MPI_Bcast', root=r, bytes=4, skip=('comm',), types=(4, 4))
    gi = c.events[c.pos - 1][0]
    self_comm = c.chk.comms.get(e['comm'])
    if not self_comm or self_comm['members'] != [r] or e['comm'] == WORLD:
        c.err(f"MPI_Bcast on MPI_COMM_SELF: comm {e['comm']} is {self_comm}", gi)
    c.mark(gi, 'comm')
    c.ev('MPI_Barrier', comm=WORLD)
    c.finish()


def icolls(c, P, r, ctx):
    c.ev('MPI_Init')
    cnt1 = [4 * (i + 1) for i in range(P)]
    a = ['ib', 'ibc', 'ig', 'igv', 'isc', 'iscv']
    c.start('MPI_Ibarrier', 'ib', comm=WORLD)
    c.start('MPI_Ibcast', 'ibc', comm=WORLD, root=P - 1, bytes=16)
    c.start('MPI_Igather', 'ig', comm=WORLD, root=P // 2, bytes=8, rbytes=8 if r == P // 2 else 0)
    if r == 0:
        c.start('MPI_Igatherv', 'igv', comm=WORLD, root=0, bytes=4 * (r + 1), vrecv=cnt1,
                rbytes=sum(cnt1))
    else:
        c.start('MPI_Igatherv', 'igv', comm=WORLD, root=0, bytes=4 * (r + 1))
    c.start('MPI_Iscatter', 'isc', comm=WORLD, root=1 % P, bytes=12 if r == 1 % P else 0, rbytes=12)
    if r == P - 1:
        c.start('MPI_Iscatterv', 'iscv', comm=WORLD, root=P - 1, vsend=cnt1, bytes=sum(cnt1),
                rbytes=4 * (r + 1))
    else:
        c.start('MPI_Iscatterv', 'iscv', comm=WORLD, root=P - 1, rbytes=4 * (r + 1))
    c.waitall(a)
    b = ['iag', 'iagv', 'ia2a', 'ia2av', 'ia2aw']
    c.start('MPI_Iallgather', 'iag', comm=WORLD, bytes=8, rbytes=8)
    c.start('MPI_Iallgatherv', 'iagv', comm=WORLD, bytes=4 * (r + 1), vrecv=cnt1, rbytes=sum(cnt1))
    c.start('MPI_Ialltoall', 'ia2a', comm=WORLD, bytes=4, rbytes=4)
    av = [4 * pair_count(r, j) for j in range(P)]
    c.start('MPI_Ialltoallv', 'ia2av', comm=WORLD, vsend=av, vrecv=av, bytes=sum(av),
            rbytes=sum(av))
    aw = [pair_count(r, j) * pair_size(r, j) for j in range(P)]
    c.start('MPI_Ialltoallw', 'ia2aw', comm=WORLD, vsend=aw, vrecv=aw, bytes=sum(aw),
            rbytes=sum(aw))
    c.waitall(b)
    cs = ['ir', 'iar', 'irs', 'irsb', 'isn', 'iex']
    c.start('MPI_Ireduce', 'ir', comm=WORLD, root=P // 2, bytes=12, rbytes=12)
    c.start('MPI_Iallreduce', 'iar', comm=WORLD, bytes=16, rbytes=16)
    c.start('MPI_Ireduce_scatter', 'irs', comm=WORLD, vrecv=cnt1, bytes=sum(cnt1),
            rbytes=4 * (r + 1))
    c.start('MPI_Ireduce_scatter_block', 'irsb', comm=WORLD, bytes=4 * P, rbytes=4)
    c.start('MPI_Iscan', 'isn', comm=WORLD, bytes=4, rbytes=4)
    c.start('MPI_Iexscan', 'iex', comm=WORLD, bytes=4, rbytes=4)
    for n in reversed(cs):
        c.wait(n)
    c.start('MPI_Iallreduce', 'iari', comm=WORLD, bytes=8, rbytes=8, inplace=True)
    c.poll('MPI_Test', ['iari'])
    c.start('MPI_Ibcast', 'ib2', comm=WORLD, root=0, bytes=4)
    if r == 0:
        c.start('MPI_Igather', 'igi', comm=WORLD, root=0, bytes=4, rbytes=4, inplace=True)
    else:
        c.start('MPI_Igather', 'igi', comm=WORLD, root=0, bytes=4)
    c.poll('MPI_Waitany', ['ib2', 'igi'])
    ring = c.newcomm('MPI_Cart_create', 'ring', list(range(P)), kind='cart', parent=WORLD,
                     comm=WORLD)
    c.start('MPI_Ineighbor_alltoall', 'ina', comm=ring, bytes=4, rbytes=4)
    c.wait('ina')
    c.ev('MPI_Neighbor_allgather', comm=ring, bytes=8, rbytes=8)
    c.ev('MPI_Comm_free', comm=ring)
    c.finish()


def subcomm(c, P, r, ctx):
    c.ev('MPI_Init')
    same = [i for i in range(P - 1, -1, -1) if i % 2 == r % 2]     # split: descending ranks
    other = [i for i in range(P - 1, -1, -1) if i % 2 != r % 2]
    sr, ss = same.index(r), len(same)
    split = c.newcomm('MPI_Comm_split', 'split', same, parent=WORLD, comm=WORLD)
    c.ev('MPI_Allreduce', comm=split, bytes=4, rbytes=4)
    c.ev('MPI_Bcast', comm=split, root=same[0], bytes=4)
    to, frm = same[(sr + 1) % ss], same[(sr + ss - 1) % ss]
    c.ev('MPI_Sendrecv', comm=split, peer=to, tag=60, bytes=4, rbytes=4, recv_source=frm,
         recv_tag=60, recv=(frm, 60, 4))
    dup = c.newcomm('MPI_Comm_dup', 'dup', range(P), parent=WORLD, comm=WORLD)
    c.ev('MPI_Barrier', comm=dup)
    c.ev('MPI_Allreduce', comm=dup, bytes=4, rbytes=4)
    right, left = (r + 1) % P, (r + P - 1) % P
    c.start('MPI_Irecv', 'dr', (left, 61, 4), comm=dup, peer=left, tag=61, rbytes=4)
    c.start('MPI_Isend', 'ds', comm=dup, peer=right, tag=61, bytes=4)
    c.waitall(['dr', 'ds'])
    gi, e = c.take('MPI_Comm_idup')           # a start that creates a communicator
    c.pos -= 1
    c.start('MPI_Comm_idup', 'idup', newcomm=e.get('newcomm'), comm=WORLD)
    idup = c.newcomm_def(gi, 'MPI_Comm_idup', 'idup', e.get('newcomm'), range(P), parent=WORLD)
    c.wait('idup')
    c.ev('MPI_Allreduce', comm=idup, bytes=4, rbytes=4)
    c.ev('MPI_Comm_free', comm=idup)
    node = c.newcomm('MPI_Comm_split_type', 'node', range(P), parent=WORLD, comm=WORLD)
    c.ev('MPI_Allreduce', comm=node, bytes=4, rbytes=4)
    c.ev('MPI_Comm_free', comm=node)
    d1 = max(d for d in range(1, P + 1) if P % d == 0 and d * d <= P)
    d0 = P // d1                      # MPI_Dims_create(P, 2): d0 >= d1, as square as can be
    cart = c.newcomm('MPI_Cart_create', 'cart', range(P), kind='cart', parent=WORLD, comm=WORLD)
    row = [(r // d1) * d1 + j for j in range(d1)]
    col = [i * d1 + r % d1 for i in range(d0)]
    row_c = c.newcomm('MPI_Cart_sub', 'row', row, kind='cart', parent=cart, comm=cart)
    col_c = c.newcomm('MPI_Cart_sub', 'col', col, kind='cart', parent=cart, comm=cart)
    c.ev('MPI_Allgather', comm=row_c, bytes=4, rbytes=4)
    c.ev('MPI_Bcast', comm=col_c, root=col[0], bytes=4)
    evens, odds = list(range(0, P, 2)), list(range(1, P, 2))
    if r % 2 == 0:
        ev_c = c.newcomm('MPI_Comm_create_group', 'evens', evens, parent=WORLD, comm=WORLD, tag=5)
        c.ev('MPI_Allreduce', comm=ev_c, bytes=4, rbytes=4)
    od_c = c.newcomm('MPI_Comm_create', 'odds', odds if r % 2 else None, parent=WORLD,
                     comm=WORLD)
    if r % 2:
        c.ev('MPI_Barrier', comm=od_c)
    a = r % 2 == 0
    ga = [i for i in range(P - 1, -1, -1) if i % 2 == 0]
    gb = [i for i in range(P - 1, -1, -1) if i % 2 == 1]
    lower, upper = (ga, gb) if sorted(ga) < sorted(gb) else (gb, ga)
    inter = c.newcomm('MPI_Intercomm_create', 'inter', lower, kind='inter', remote=upper,
                      parent=None, comm=split, root=same[0], tag=7)
    if sr == 0:
        if a:
            c.ev('MPI_Send', comm=inter, peer=other[0], tag=62, bytes=4, inter=True)
        else:
            c.ev('MPI_Recv', comm=inter, peer=other[0], tag=62, rbytes=4, inter=True,
                 recv=(other[0], 62, 4))
    if a:
        c.ev('MPI_Bcast', comm=inter, root=PROOT if sr == 0 else PNULL,
             bytes=4 if sr == 0 else 0, inter=True)
    else:
        c.ev('MPI_Bcast', comm=inter, root=ga[0], bytes=4, inter=True)
    c.ev('MPI_Allreduce', comm=inter, bytes=4, rbytes=4, inter=True)
    merged = c.newcomm('MPI_Intercomm_merge', 'merged', ga + gb, parent=inter, comm=inter,
                       inter=True)
    c.ev('MPI_Allreduce', comm=merged, bytes=4, rbytes=4)
    c.ev('MPI_Barrier', comm=merged)
    c.ev('MPI_Comm_free', comm=merged)
    c.ev('MPI_Comm_free', comm=inter, inter=True)
    if r % 2:
        c.ev('MPI_Comm_free', comm=od_c)
    else:
        c.ev('MPI_Comm_free', comm=ev_c)
    for cid in (col_c, row_c, cart, dup, split):
        c.ev('MPI_Comm_free', comm=cid)
    c.finish()


def threads_main(c, P, r, ctx):
    c.ev('MPI_Init_thread', thread=0)
    c.finish()


def threads_worker(c, P, r, ctx):
    """One worker's events, from the cursor's position: a slot holds the workers that used
    it one after another (a worker that ended before the next one's first call left it)."""
    right, left = (r + 1) % P, (r + P - 1) % P
    tag = c.peek().get('tag') if c.peek() else None
    if tag not in (70, 71, 72, 73):
        c.err(f"first event's tag {tag} is not one of the worker tags 70..73")
    for it in range(20):
        c.start('MPI_Isend', f"{tag}s{it}", comm=WORLD, peer=right, tag=tag, bytes=32)
        c.ev('MPI_Recv', comm=WORLD, peer=left, tag=tag, rbytes=32, recv=(left, tag, 32))
        c.wait(f"{tag}s{it}")
    return tag


# t_threadchurn.c: workers per rank, alive at once, calls per worker
CHURN_WORKERS, CHURN_BATCH, CHURN_CALLS = 10000, 4, 3


# What the checker compares of a t_threadchurn event besides its request ids (below); marked
# for --selftest, which picks what to change among them.
CHURN_VARYING = frozenset(('rank', 'thread', 'start_ns', 'end_ns', 'callsite', 'request',
                           'requests', 'status'))
CHURN_MARKS = (frozenset(('call', 'comm', 'peer', 'tag', 'bytes', 'rbytes', 'root', 'rc',
                          'flags', 'request')),) * 2 + \
    (frozenset(('call', 'rc', 'flags', 'request', ('status', 0), ('status', 1))),)


def churn_worker(chk, r, t, sub, i, self_comm):
    """One worker thread of t_threadchurn, events sub[i:i + 3] of its slot t: Irecv and Isend
    to itself on MPI_COMM_SELF with its own number as the tag, then Waitall. The Cursor's
    checks, as whole-event compares: 10 000 workers per rank, and --selftest checks ~40
    mutants. Returns the tag."""
    if len(sub) < i + 3:
        fail(f"rank {r} thread {t}, event #{sub[i][0]}: {len(sub) - i} events left, expected "
             f"a worker's Irecv, Isend, Waitall")
    (ga, a), (gb, b), (gc, c) = sub[i:i + 3]
    tag = a.get('tag')
    if not isinstance(tag, int) or not 0 <= tag < CHURN_WORKERS:
        fail(f"rank {r} thread {t}, event #{ga}: tag {tag}, not a worker number")
    ra, rb = a.get('request'), b.get('request')
    want = ((ga, a, {'call': 'MPI_Irecv', 'class': 'irecv', 'comm': self_comm, 'peer': r,
                     'tag': tag, 'bytes': 0, 'rbytes': 16, 'root': NONE, 'rc': 0, 'flags': []}),
            (gb, b, {'call': 'MPI_Isend', 'class': 'isend', 'comm': self_comm, 'peer': r,
                     'tag': tag, 'bytes': 16, 'rbytes': 0, 'root': NONE, 'rc': 0, 'flags': []}),
            (gc, c, {'call': 'MPI_Waitall', 'class': 'complete', 'comm': 0, 'peer': NONE,
                     'tag': NONE, 'bytes': 0, 'rbytes': 0, 'root': NONE, 'rc': 0,
                     'flags': ['handles', 'status'] if 'requests' in c else ['status']}))
    for gi, e, w in want:
        got = {k: v for k, v in e.items() if k not in CHURN_VARYING}
        if got != w:
            diff = sorted(k for k in set(got) | set(w) if got.get(k) != w.get(k))
            fail(f"rank {r} thread {t}, event #{gi} ({e.get('call')}): "
                 + ', '.join(f"{k} is {got.get(k)!r}, expected {w.get(k)!r}" for k in diff))
    if not ra or not rb or ra == rb or c.get('request') != 0:
        fail(f"rank {r} thread {t}, events #{ga}..#{gc}: request ids {ra}, {rb}, "
             f"{c.get('request')}, expected two new ids and 0")
    want_st = [{'request': ra, 'source': r, 'tag': tag, 'bytes': 16, 'index': 0,
                'cancelled': False},
               {'request': rb, 'source': NONE, 'tag': NONE, 'bytes': -1, 'index': 1,
                'cancelled': False}]
    if c.get('status') != want_st or c.get('requests', [ra, rb]) != [ra, rb]:
        fail(f"rank {r} thread {t}, event #{gc} (MPI_Waitall): status {c.get('status')} "
             f"requests {c.get('requests')}, expected {want_st}, requests [{ra}, {rb}]")
    for gi, m in zip((ga, gb, gc), CHURN_MARKS):
        chk.marks[gi] = m
    return tag


def transparent(c, P, r, ctx):
    rcs = ctx['rcs'].get(r, [])
    if len(rcs) != (9 if P >= 2 else 7):
        c.err(f"{len(rcs)} 'mt-rc' lines for rank {r} on stderr, expected {9 if P >= 2 else 7}")
    rcs = list(rcs)

    def err_ev(call, **kw):
        label, rc_call, rc = rcs.pop(0)
        if rc_call != call:
            c.err(f"stderr rc line {label} {rc_call}, expected {call}")
        return c.ev(call, rc=rc if rc != 0 else 0, **kw)

    # Failed calls: byte counts are not asked for (0); a rank that does not exist reads as
    # PLOG_R_BADRANK (-5).
    right, left = (r + 1) % P, (r + P - 1) % P
    bad = -5
    c.ev('MPI_Init')
    err_ev('MPI_Send', comm=WORLD, peer=bad, tag=0, bytes=0)
    err_ev('MPI_Send', comm=WORLD, peer=right, tag=0, bytes=0)
    err_ev('MPI_Recv', comm=WORLD, peer=right, tag=-5, rbytes=0)
    err_ev('MPI_Isend', comm=WORLD, peer=bad, tag=0, bytes=0, request=0)
    err_ev('MPI_Bcast', comm=WORLD, root=bad, bytes=0)
    err_ev('MPI_Allreduce', comm=WORLD, bytes=0, rbytes=0)
    err_ev('MPI_Barrier', comm=0)
    if P >= 2:
        c.start('MPI_Isend', 't1', comm=WORLD, peer=right, tag=6, bytes=16)
        err_ev('MPI_Recv', comm=WORLD, peer=left, tag=6, rbytes=0)
        c.wait('t1')
        c.start('MPI_Irecv', 't2', comm=WORLD, peer=left, tag=7, rbytes=8)
        c.start('MPI_Isend', 't3', comm=WORLD, peer=right, tag=7, bytes=16)
        label, rc_call, rc = rcs.pop(0)
        gi, e = c.take('MPI_Waitall')
        c.eq(gi, e, 'rc', rc)
        if rc == 0:       # Open MPI does not report the truncation in Waitall
            c.pos -= 1
            c.expect['t2'] = (left, 7, 8)
            c.waitall(['t2', 't3'])
        else:             # MPI_ERR_IN_STATUS: the inputs, and a status per request that ended
            c.eq(gi, e, 'requests', [c.req['t2'], c.req['t3']])
            still = re.search(rf"^r{r}: waitall status 1: .*request set$", ctx['stdout'], re.M)
            ended = {'t2'} if still else {'t2', 't3'}    # MPI_ERR_PENDING leaves t3 open
            sts = e.get('status') or []
            want = sorted(c.req[n] for n in ended)
            if sorted(s_['request'] for s_ in sts) != want:
                c.err(f"MPI_Waitall (MPI_ERR_IN_STATUS): statuses {sts!r}, expected one for "
                      f"each of the requests that ended {want}", gi)
            for s_ in sts:   # the truncated receive's byte count is the library's business
                if s_['request'] == c.req['t2'] and (s_['source'], s_['tag']) != (left, 7):
                    c.err(f"MPI_Waitall (MPI_ERR_IN_STATUS): receive status {s_!r}, expected "
                          f"source {left} tag 7", gi)
            c.mark(gi, 'status')
            c.pending -= ended
            c.chk.ended.setdefault(r, set()).update(c.req[n] for n in ended)
            if still:
                c.wait('t3')
    c.ev('MPI_Sendrecv', comm=WORLD, peer=right, tag=5, bytes=12, rbytes=16, recv_source=left,
         recv_tag=5, recv=(left, 5, 12))
    c.start('MPI_Irecv', 'a', (left, 8, 8), comm=WORLD, peer=left, tag=8, rbytes=16)
    c.start('MPI_Isend', 'b', comm=WORLD, peer=right, tag=8, bytes=8)
    c.waitall(['a', 'b'])
    c.start('MPI_Isend', 'c', comm=WORLD, peer=right, tag=9, bytes=4)
    c.start('MPI_Irecv', 'd', (left, 9, 4), comm=WORLD, peer=left, tag=9, rbytes=16)
    c.poll('MPI_Waitany', [None, 'd'])
    c.wait('c')
    c.start('MPI_Irecv', 'e', (left, 10, 16), comm=WORLD, peer=left, tag=10, rbytes=16)
    c.ev('MPI_Send', comm=WORLD, peer=right, tag=10, bytes=16)
    c.poll('MPI_Waitsome', ['e', None])
    c.start('MPI_Irecv', 'f', (left, 11, 8), comm=WORLD, peer=left, tag=11, rbytes=16)
    c.ev('MPI_Send', comm=WORLD, peer=right, tag=11, bytes=8)
    c.poll('MPI_Test', ['f'])
    c.ev('MPI_Sendrecv', comm=WORLD, peer=right, tag=12, bytes=5, rbytes=16, recv_source=left,
         recv_tag=12, recv=(left, 12, 5))
    # completions of MPI_REQUEST_NULL: no statuses, flags true for the Test family
    c.ev('MPI_Wait')
    c.ev('MPI_Test', flag_true=True)
    c.ev('MPI_Waitany')
    null_handles(c)
    c.ev('MPI_Testany', flag_true=True)
    c.ev('MPI_Waitsome')
    null_handles(c)
    c.ev('MPI_Waitall')
    null_handles(c)
    c.ev('MPI_Testall', flag_true=True)
    c.pinit('MPI_Send_init', 'P1', SEND_ST, comm=WORLD, peer=r, tag=13, bytes=8)
    inactive_wait(c)
    c.pinit('MPI_Recv_init', 'P2', (r, 13, 8), comm=WORLD, peer=r, tag=13, rbytes=8)
    c.pstartall(['P2', 'P1'])
    c.waitall(['P2', 'P1'])
    c.reqfree('MPI_Request_free', 'P2')
    c.reqfree('MPI_Request_free', 'P1')
    c.start('MPI_Irecv', 'x', 'cancelled', comm=WORLD, peer=r, tag=999, rbytes=8)
    c.cancel_wait('x')
    c.ev('MPI_Iprobe', comm=WORLD, peer=ANY, tag=998, flag_true=False)
    c.newcomm('MPI_Comm_split', 'half', None if r % 2 else list(range(0, P, 2)), parent=WORLD,
              comm=WORLD)
    if r % 2 == 0:
        c.ev('MPI_Comm_free', comm=c.comm['half'])
    c.ev('MPI_Pcontrol', tag=2)        # the level, recorded as the tag
    c.ev('MPI_Pcontrol', tag=0)
    c.finish()


def null_handles(c):
    """A Wait{any,some,all} over two MPI_REQUEST_NULLs: if the inputs are shown, as zeros."""
    gi, e = c.events[c.pos - 1]
    if 'requests' in e:
        c.eq(gi, e, 'requests', [0, 0])


def inactive_wait(c):
    """MPI_Wait on an inactive persistent request returns at once with an empty status
    (MPI_ANY_SOURCE, MPI_ANY_TAG, 0 bytes) and completes nothing: the event may name the
    definition or no request, and its status, if any, no request."""
    gi, e = c.take('MPI_Wait')
    c.eq(gi, e, 'rc', 0)
    if e.get('request') not in (0, c.pdef['P1']):
        c.err(f"MPI_Wait on an inactive request: request {e.get('request')}", gi)
    c.mark(gi, 'request')
    sts = e.get('status')
    if sts is not None:
        c.status_list(gi, e, [(0, EMPTY_ST, 0)])


def stencil(c, P, r, ctx):
    m = re.search(r"^stencil: (\d+)x\d+ points, (\d+) iterations, (\d+) processes as (\d+)x(\d+)",
                  ctx['stdout'], re.M)
    if not m:
        c.err("stencil's stdout has no 'stencil: ...' line")
    n, iters, size, d0, d1 = map(int, m.groups())
    if size != P or d0 * d1 != P:
        c.err(f"stencil ran as {d0}x{d1} on {size} processes, expected {P}")
    c.ev('MPI_Init')
    gi, e = c.take('MPI_Cart_create')
    c.pos -= 1
    members = (c.chk.comms.get(e.get('newcomm')) or {}).get('members', [])
    if sorted(members) != list(range(P)):
        c.err(f"MPI_Cart_create: members {members}, expected a permutation of 0..{P - 1}", gi)
    cart = c.newcomm('MPI_Cart_create', 'cart', members, kind='cart', parent=WORLD, comm=WORLD)
    me = members.index(r)
    c0, c1 = divmod(me, d1)

    def share(parts, coord):
        return n // parts + (coord < n % parts)

    def world(i, j):
        return members[i * d1 + j] if 0 <= i < d0 and 0 <= j < d1 else PNULL

    rows, cols = share(d0, c0), share(d1, c1)
    nbr = [world(c0 - 1, c1), world(c0 + 1, c1), world(c0, c1 - 1), world(c0, c1 + 1)]
    length = [cols, cols, rows, rows]
    opposite = [1, 0, 3, 2]
    for it in range(iters):
        names = []
        for d in range(4):
            names.append(f"r{it}.{d}")
            c.start('MPI_Irecv', names[-1], st(nbr[d], opposite[d], 8 * length[d], True),
                    comm=cart, peer=nbr[d], tag=opposite[d], rbytes=8 * length[d])
        for d in range(4):
            names.append(f"s{it}.{d}")
            c.start('MPI_Isend', names[-1], comm=cart, peer=nbr[d], tag=d, bytes=8 * length[d])
        c.waitall(names)
        c.ev('MPI_Allreduce', comm=cart, bytes=8, rbytes=8)
    c.ev('MPI_Reduce', comm=cart, root=members[0], bytes=8, rbytes=8)
    c.ev('MPI_Comm_free', comm=cart)
    c.finish(lib_end=False)


def fortran(c, P, r, ctx):
    """tests/mpi/t_fortran.f90 (mpif.h): every call recorded once, as from C."""
    c.ev('MPI_Init')
    if P > 1 and r == 0:
        c.ev('MPI_Send', comm=WORLD, peer=1, tag=7, bytes=16)
    elif P > 1 and r == 1:
        c.ev('MPI_Recv', comm=WORLD, peer=0, tag=7, rbytes=16, recv=(0, 7, 16))
    c.ev('MPI_Bcast', comm=WORLD, root=0, bytes=24)
    c.ev('MPI_Allreduce', comm=WORLD, bytes=4, rbytes=4, inplace=True)
    same = [i for i in range(P) if i % 2 == r % 2]       # split(mod(rank, 2), key=rank)
    sr, ss = same.index(r), len(same)
    sub = c.newcomm('MPI_Comm_split', 'sub', same, parent=WORLD, comm=WORLD)
    frm, to = same[(sr + ss - 1) % ss], same[(sr + 1) % ss]
    c.start('MPI_Irecv', 'r', (frm, 3, 8), comm=sub, peer=frm, tag=3, rbytes=8)
    c.start('MPI_Isend', 's', comm=sub, peer=to, tag=3, bytes=8)
    c.waitall(['r', 's'])
    c.ev('MPI_Allreduce', comm=sub, bytes=4, rbytes=4)
    c.ev('MPI_Comm_free', comm=sub)
    c.finish(lib_end=False)


def fortran_req(c, P, r, ctx):
    """tests/mpi/t_fortran_req.f90 (use mpi): the hand-written Fortran completions."""
    c.ev('MPI_Init')
    right, left = (r + 1) % P, (r + P - 1) % P
    for rnd, call in enumerate(('MPI_Waitany', 'MPI_Waitsome', 'MPI_Testsome',
                                'MPI_Testany')):
        names = [f'a{rnd}', f'b{rnd}', f'c{rnd}', f'd{rnd}']
        c.start('MPI_Irecv', names[0], (left, 1, 4), comm=WORLD, peer=left, tag=1, rbytes=4)
        c.start('MPI_Irecv', names[1], (left, 2, 4), comm=WORLD, peer=left, tag=2, rbytes=4)
        c.start('MPI_Isend', names[2], comm=WORLD, peer=right, tag=1, bytes=4)
        c.start('MPI_Isend', names[3], comm=WORLD, peer=right, tag=2, bytes=4)
        c.ev('MPI_Barrier', comm=WORLD)
        c.poll(call, names)
    gi, e = c.take('MPI_Comm_idup')
    c.pos -= 1
    c.start('MPI_Comm_idup', 'idup', newcomm=e.get('newcomm'), comm=WORLD)
    idup = c.newcomm_def(gi, 'MPI_Comm_idup', 'idup', e.get('newcomm'), range(P), parent=WORLD)
    c.wait('idup')
    c.ev('MPI_Barrier', comm=idup)
    c.ev('MPI_Comm_free', comm=idup)
    c.pinit('MPI_Send_init', 'S', SEND_ST, comm=WORLD, peer=right, tag=5, bytes=4)
    c.pinit('MPI_Recv_init', 'R', (left, 5, 4), comm=WORLD, peer=left, tag=5, rbytes=4)
    c.pstartall(['S', 'R'])
    c.ev('MPI_Barrier', comm=WORLD)
    c.poll('MPI_Testall', ['S', 'R'])
    c.pstart('R')
    c.pstart('S')
    c.wait('S')
    c.wait('R')
    c.reqfree('MPI_Request_free', 'S')
    c.reqfree('MPI_Request_free', 'R')
    c.ev('MPI_Pcontrol', tag=3)
    c.ev('MPI_Reduce', comm=WORLD, root=0, bytes=4, rbytes=4)
    c.finish(lib_end=False)


def fortran_colls(c, P, r, ctx):
    """tests/mpi/t_fortran_colls.f90 (use mpi): arguments the Fortran wrappers convert."""
    c.ev('MPI_Init')
    right, left = (r + 1) % P, (r + P - 1) % P
    c.ev('MPI_Alltoallw', comm=WORLD, bytes=4 * P, rbytes=4 * P, vsend=[4] * P, vrecv=[4] * P)
    if r == 0:
        c.ev('MPI_Gatherv', comm=WORLD, root=0, bytes=4, vrecv=[4] * P, rbytes=4 * P,
             inplace=True)
    else:
        c.ev('MPI_Gatherv', comm=WORLD, root=0, bytes=4)
    c.ev('MPI_Reduce_scatter', comm=WORLD, bytes=4 * P, rbytes=4, vrecv=[4] * P)
    c.ev('MPI_Sendrecv', comm=WORLD, peer=right, tag=4, bytes=8, rbytes=8, recv_source=ANY,
         recv_tag=4, recv=(left, 4, 8))
    c.start('MPI_Isend', 's', SEND_ST, comm=WORLD, peer=right, tag=9, bytes=12)
    c.ev('MPI_Barrier', comm=WORLD)
    c.probe_loop('MPI_Iprobe', (left, 9, 12), comm=WORLD, peer=ANY, tag=9)
    mp = c.ev('MPI_Mprobe', comm=WORLD, peer=left, tag=9, recv=(left, 9, 12))
    mr = c.ev('MPI_Mrecv', rbytes=12, recv=(left, 9, 12), skip=('peer', 'comm'))
    same_message(c, mp, mr, set())
    c.wait('s')
    ring = c.newcomm('MPI_Cart_create', 'ring', list(range(P)), kind='cart', parent=WORLD,
                     comm=WORLD)
    c.ev('MPI_Neighbor_alltoall', comm=ring, bytes=4, rbytes=4)
    c.ev('MPI_Comm_free', comm=ring)
    c.finish(lib_end=False)


def halo(c, P, r, ctx):
    """examples/halo.f90 (use mpi): 10 iterations of a 1-D ghost swap and an Allreduce."""
    if not re.search(rf"^halo: 64 cells, 10 iterations, {P} processes, sum ", ctx['stdout'],
                     re.M):
        c.err("halo's stdout has no 'halo: 64 cells, 10 iterations, ...' line")
    c.ev('MPI_Init')
    left = r - 1 if r > 0 else PNULL
    right = r + 1 if r + 1 < P else PNULL
    for it in range(10):
        c.start('MPI_Irecv', f'l{it}', st(left, 1, 8, True), comm=WORLD, peer=left, tag=1,
                rbytes=8)
        c.start('MPI_Irecv', f'r{it}', st(right, 0, 8, True), comm=WORLD, peer=right, tag=0,
                rbytes=8)
        c.start('MPI_Isend', f'sl{it}', comm=WORLD, peer=left, tag=0, bytes=8)
        c.start('MPI_Isend', f'sr{it}', comm=WORLD, peer=right, tag=1, bytes=8)
        c.waitall([f'l{it}', f'r{it}', f'sl{it}', f'sr{it}'])
        c.ev('MPI_Allreduce', comm=WORLD, bytes=8, rbytes=8)
    c.ev('MPI_Allreduce', comm=WORLD, bytes=8, rbytes=8, inplace=True)
    c.finish(lib_end=False)


def bigtype(c, P, r, ctx):
    """tests/mpi/t_bigtype.c: 3 and 5 GiB elements, sized past INT_MAX."""
    big = 3 << 30
    c.ev('MPI_Init')
    c.ev('MPI_Send', comm=WORLD, peer=PNULL, tag=7, bytes=big)
    c.ev('MPI_Recv', comm=WORLD, peer=PNULL, tag=7, rbytes=2 * big, recv=NULL_ST)
    c.ev('MPI_Bcast', comm=WORLD, root=0, types=(big, big))
    c.ev('MPI_Send', comm=WORLD, peer=PNULL, tag=8, bytes=5 << 30)
    c.ev('MPI_Bcast', comm=WORLD, root=0, types=(2**32 - 1, 2**32 - 1))   # saturated
    c.finish()


PROGRAMS = {
    't_p2p_modes': p2p_modes, 't_p2p_any': p2p_any, 't_persistent': persistent,
    't_requests': requests,
    't_probe': probe, 't_colls': colls, 't_icolls': icolls, 't_subcomm': subcomm,
    't_threads': None, 't_threadchurn': None, 't_transparent': transparent, 'stencil': stencil,
    't_fortran': fortran, 't_fortran_req': fortran_req, 't_fortran_colls': fortran_colls,
    'halo': halo, 't_bigtype': bigtype, 't_polls': polls,
}
# Programs whose sends and receives must balance globally (t_transparent's truncated
# receives return errors, which record nothing).
BALANCED = set(PROGRAMS) - {'t_transparent'}


# ---------------------------------------------------------------------------------------------
# The whole dump
# ---------------------------------------------------------------------------------------------

class Checker:
    def __init__(self, dump, prog, np_, stdout='', stderr=''):
        self.dump = dump
        self.prog = prog
        self.np = np_
        self.stdout = stdout
        self.stderr = stderr
        self.marks = {}          # event index -> fields compared against an expectation
        self.loose = set()       # events whose number depends on timing (empty polls)
        self.comm_marks = set()  # communicators whose definition was checked
        self.comms = {}
        self.ended = {}          # rank -> request ids ended by a completion that failed
        self.ignore_warnings = False

    def run(self):
        d = self.dump
        if d.get('format') != 'phasor-dump' or d.get('version') != 1:
            fail(f"not a version 1 phasor dump: format {d.get('format')!r} "
                 f"version {d.get('version')!r}")
        if d.get('world_size') != self.np:
            fail(f"world_size {d.get('world_size')}, expected {self.np}")
        warnings = [w for w in d.get('warnings') or [] if not self.expected_warning(w)]
        if warnings and not self.ignore_warnings:
            fail(f"the reader warned: {warnings[:3]}")
        self.comms = {c['id']: c for c in d.get('comms', [])}
        if len(self.comms) != len(d.get('comms', [])):
            fail("two communicators share an id")
        w = self.comms.get(WORLD)
        if not w or w.get('members') != list(range(self.np)) or w.get('kind') != 'intra':
            fail(f"communicator 1 is not MPI_COMM_WORLD of {self.np} ranks: {w}")
        self.comm_marks.add(WORLD)
        events = d.get('events', [])
        ranks = {x['rank']: x for x in d.get('ranks', [])}
        if sorted(ranks) != list(range(self.np)):
            fail(f"rank table lists ranks {sorted(ranks)}")
        last = None
        for gi, e in enumerate(events):
            key = (e['rank'], e['start_ns'])
            if last is not None and key < last:
                fail(f"event #{gi}: not ordered by rank then start time")
            last = key
            if e['end_ns'] < e['start_ns']:
                fail(f"event #{gi} ({e['call']}): ends before it starts")
        fn = PROGRAMS[self.prog]
        ctx = {'stdout': self.stdout, 'rcs': self.parse_rcs(),
               'max_threads': self.max_threads(),
               'polls': 'each' if re.search(r"^mt-polls each$", self.stderr, re.M) else 'runs'}
        for r in range(self.np):
            mine = [(gi, e) for gi, e in enumerate(events) if e['rank'] == r]
            info = ranks[r]
            # t_threadchurn over its thread budget: the calls of threads without a slot
            # (check_churn counts them exactly); nothing else may be missing
            lost = info.get('dropped_threads') if self.prog == 't_threadchurn' else 0
            if info.get('ended') != 'complete' or info.get('dropped') != lost or \
                    info.get('dropped_exact') is not True:
                fail(f"rank {r}: log ended {info.get('ended')}, {info.get('dropped')} dropped "
                     f"(exact: {info.get('dropped_exact')})")
            if info.get('events') != len(mine):
                fail(f"rank {r}: rank table says {info.get('events')} events, dump has "
                     f"{len(mine)}")
            if self.prog == 't_threads':
                self.check_threads(r, mine, info, ctx)
            elif self.prog == 't_threadchurn':
                self.check_churn(r, mine, info, ctx)
            else:
                bad = [gi for gi, e in mine if e['thread'] != 0]
                if bad or info.get('threads') != 1:
                    fail(f"rank {r}: single-threaded program, but threads "
                         f"{sorted({e['thread'] for _, e in mine})}")
                c = Cursor(self, r, mine, f"rank {r}")
                fn(c, self.np, r, ctx)
            self.check_linkage(r, mine)
        if self.prog in BALANCED:
            self.check_balance(events)
        unused = set(self.comms) - self.comm_marks - self.predefined_self()
        if unused:
            fail(f"communicators nobody created: {sorted(unused)}")

    def expected_warning(self, w):
        """Warnings about the MPI library or the program, not phasor. MPICH 4.0 completes
        MPI_Irecv from MPI_PROC_NULL with source 0, tag 0 (see NULL_IRECV_ST): the reader may
        say so. t_transparent's erroneous calls name 3 ranks that do not exist (Send and
        Isend to rank P+5, Bcast from root P+1)."""
        mpich = any('MPICH' in (x.get('mpi_library') or '') for x in self.dump.get('ranks', []))
        if mpich and re.search(r"rank-\d+\.plog: \d+ statuses of receives from MPI_PROC_NULL "
                               r"were not the empty status", w):
            return True
        m = re.search(r"rank-(\d+)\.plog: (\d+) calls of threads over the thread budget", w)
        if self.prog == 't_threadchurn' and self.max_threads() <= CHURN_BATCH and m:
            info = [x for x in self.dump.get('ranks', []) if x.get('rank') == int(m.group(1))]
            return len(info) == 1 and info[0].get('dropped_threads') == int(m.group(2))
        return self.prog == 't_transparent' and re.search(
            r"rank-\d+\.plog: 3 ranks could not be translated", w) is not None

    def max_threads(self):
        """The thread budget of the run (t_threadchurn says it on stderr), else the default."""
        m = re.search(r"^mt-max-threads (\S+)$", self.stderr, re.M)
        return int(m.group(1)) if m else 256

    def predefined_self(self):
        return {cid for cid, c in self.comms.items()
                if c.get('creator') == 'MPI_Init' and len(c.get('members', [])) == 1}

    def parse_rcs(self):
        rcs = {}
        for line in self.stderr.splitlines():
            m = re.match(r"mt-rc (\d+) (\S+) (\S+) (-?\d+)$", line.strip())
            if m:
                rcs.setdefault(int(m.group(1)), []).append(
                    (m.group(2), m.group(3), int(m.group(4))))
        return rcs

    def check_threads(self, r, mine, info, ctx):
        threads = sorted({e['thread'] for _, e in mine})
        if threads != list(range(len(threads))) or not 2 <= len(threads) <= 5 or \
                info.get('threads') != len(threads) or info.get('threads_started') != 5:
            fail(f"rank {r}: threads {threads} (rank table {info.get('threads')}, "
                 f"{info.get('threads_started')} started), expected the main thread 0 and "
                 f"the 4 workers in slots 1..4 (fewer when one ended before another started)")
        tags = []
        for t in threads:
            sub = [(gi, e) for gi, e in mine if e['thread'] == t]
            c = Cursor(self, r, sub, f"rank {r} thread {t}")
            if t == 0:
                threads_main(c, self.np, r, ctx)
                continue
            while c.peek() is not None:
                tags.append(threads_worker(c, self.np, r, ctx))
            c.end()
            if c.pending:
                c.err(f"requests never completed: {sorted(c.pending)}")
        if sorted(tags) != [70, 71, 72, 73]:
            fail(f"rank {r}: worker threads used tags {tags}, expected one each of 70..73")
        return tags

    def check_churn(self, r, mine, info, ctx):
        """t_threadchurn: the main thread in slot 0, and every worker's three calls exactly once
        in another slot, the workers of one slot one after another (a slot is reused once its
        thread exited); no more slots than threads alive at once. Within the thread budget
        every worker is recorded; over it, the calls of those without a slot are counted, and
        recorded plus counted is every call made."""
        self_comm = next((cid for cid, c in self.comms.items() if cid != WORLD
                          and c.get('creator') == 'MPI_Init' and c.get('members') == [r]), None)
        if self_comm is None:
            fail(f"rank {r}: no MPI_COMM_SELF in the comms list")
        self.comm_marks.add(self_comm)
        slots = {}
        for gi, e in mine:
            slots.setdefault(e['thread'], []).append((gi, e))
        alive = min(CHURN_BATCH + 1, ctx['max_threads'])
        if sorted(slots) != list(range(len(slots))) or not 0 < len(slots) <= alive or \
                info.get('threads') != len(slots):
            fail(f"rank {r}: thread slots {sorted(slots)} (rank table {info.get('threads')}), "
                 f"expected 0 and at most {alive - 1} more")
        seen = Counter()
        for t, sub in sorted(slots.items()):
            if t == 0:
                c = Cursor(self, r, sub, f"rank {r} thread 0")
                c.ev('MPI_Init_thread', thread=0)
                c.finish()
                continue
            for i in range(0, len(sub), CHURN_CALLS):
                seen[churn_worker(self, r, t, sub, i, self_comm)] += 1
        twice = sorted(w for w, n in seen.items() if n > 1)
        if twice:
            fail(f"rank {r}: workers recorded more than once: {twice[:5]}")
        lost = CHURN_WORKERS - len(seen)
        if ctx['max_threads'] > CHURN_BATCH and lost:
            fail(f"rank {r}: {lost} workers missing (first: "
                 f"{sorted(set(range(CHURN_WORKERS)) - set(seen))[:5]})")
        if info.get('dropped_threads') != CHURN_CALLS * lost:
            fail(f"rank {r}: {info.get('dropped_threads')} calls of threads without a slot, "
                 f"expected {CHURN_CALLS * lost} ({lost} workers not recorded)")
        if info.get('threads_started') != 1 + len(seen):
            fail(f"rank {r}: threads_started {info.get('threads_started')}, expected "
                 f"{1 + len(seen)} (the main thread and the recorded workers)")

    def check_linkage(self, r, mine):
        """Every request started on a rank is completed exactly once, by a completion that
        comes after its start; persistent definitions are freed; nothing completes twice."""
        open_, defs, done = {}, set(), set()
        for gi, e in mine:
            cls, call, rid = e['class'], e['call'], e.get('request', 0)
            if e['rc'] != 0:
                continue
            if cls in ('isend', 'irecv', 'icoll') or call in ('MPI_Comm_idup',
                                                               'MPI_Grequest_start'):
                if not rid or rid in open_ or rid in done or rid in defs:
                    fail(f"rank {r}, event #{gi}: {call} request id {rid} not new")
                open_[rid] = gi
            elif cls in ('psend_init', 'precv_init'):
                if not rid or rid in open_ or rid in done or rid in defs:
                    fail(f"rank {r}, event #{gi}: {call} request id {rid} not new")
                defs.add(rid)
            elif call == 'MPI_Start':
                if not rid or rid in open_ or rid in done or rid in defs:
                    fail(f"rank {r}, event #{gi}: MPI_Start instance id {rid} not new")
                open_[rid] = gi
            elif call == 'MPI_Startall':
                for x in e.get('requests') or []:
                    if not x or x in open_ or x in done or x in defs:
                        fail(f"rank {r}, event #{gi}: MPI_Startall instance id {x} not new")
                    open_[x] = gi
            elif cls == 'complete':
                for s in e.get('status') or []:
                    x = s['request']
                    if x == 0 and (s['source'], s['tag'], s['bytes']) == EMPTY_ST:
                        continue     # an inactive persistent request: nothing completes
                    if x not in open_:
                        how = 'completed before' if x in done else 'never started'
                        fail(f"rank {r}, event #{gi}: {call} completes request {x}, which is "
                             f"not open ({how})")
                    del open_[x]
                    done.add(x)
            elif call == 'MPI_Request_free':
                defs.discard(rid)
                if rid in open_:     # an active request freed: it ends unseen
                    del open_[rid]
                    done.add(rid)
        for x in self.ended.get(r, ()):
            open_.pop(x, None)       # ended by a completion call that returned an error
        if open_:
            fail(f"rank {r}: requests started and never completed: "
                 f"{sorted(open_)} (events {sorted(open_.values())[:5]})")
        if defs:
            fail(f"rank {r}: persistent requests never freed: {sorted(defs)}")

    def check_balance(self, events):
        """Every message sent (as recorded at the sender: world rank peer, tag, bytes) is
        received (as recorded in the receiver's status: world source, tag, bytes)."""
        sent, got = Counter(), Counter()
        null_starts = {(e['rank'], e['request']) for e in events
                       if e['class'] == 'irecv' and e['peer'] == PNULL}
        for e in events:
            r = e['rank']
            if e['rc'] != 0:
                continue
            cls = e['class']
            if cls in ('send', 'isend', 'sendrecv') and e['peer'] >= 0:
                sent[(r, e['peer'], e['tag'], e['bytes'])] += 1
            for s in e.get('status') or []:
                if (e['rank'], s['request']) in null_starts and s['request']:
                    continue
                if s['source'] >= 0 and e['class'] != 'probe' and not s['cancelled']:
                    got[(s['source'], r, s['tag'], s['bytes'])] += 1
        # persistent sends: t_persistent starts each of its 4 requests equally often,
        # t_fortran_req each of its 2
        nreq = {'t_persistent': 4, 't_fortran_req': 2, 't_requests': 3}.get(self.prog)
        if nreq:
            for r in range(self.np):
                mine = [e for e in events if e['rank'] == r and e['rc'] == 0]
                nstarts = sum(1 for e in mine if e['call'] == 'MPI_Start') + \
                    sum(len(e.get('requests') or []) for e in mine if e['call'] == 'MPI_Startall')
                for d in mine:
                    if d['class'] == 'psend_init':
                        sent[(r, d['peer'], d['tag'], d['bytes'])] += nstarts // nreq
        if sent != got:
            extra_s = sent - got
            extra_r = got - sent
            fail(f"point-to-point messages do not balance (src, dst, tag, bytes): sent and "
                 f"never received {sorted(extra_s)[:4]}; received and never sent "
                 f"{sorted(extra_r)[:4]}")


# ---------------------------------------------------------------------------------------------
# --selftest: mutants of a dump that passed must all fail
# ---------------------------------------------------------------------------------------------

def mutants(dump, marks, loose, comm_marks, np_, rng):
    """Yield (description, mutated dump) pairs; every one changes something the check looked
    at, so every one must be rejected."""
    ev = dump['events']
    strict = [gi for gi in marks if gi not in loose]
    field_ix = {}
    for gi, fs in marks.items():
        for f in fs:
            field_ix.setdefault(f if isinstance(f, str) else 'status', []).append(gi)

    def clone(*touch, part=None):
        """A copy sharing everything but the events in touch (and the part named) with dump:
        dumps of spinning programs are large, and each mutant changes very little."""
        d = dict(dump)
        d['events'] = list(ev)
        for gi in touch:
            d['events'][gi] = copy.deepcopy(ev[gi])
        if part:
            d[part] = copy.deepcopy(dump[part])
        return d

    picks = rng.sample(strict, min(4, len(strict)))
    for gi in picks:
        d = clone()
        del d['events'][gi]
        yield f"drop event #{gi} ({ev[gi]['call']})", d
    for gi in rng.sample(strict, min(2, len(strict))):
        d = clone()
        d['events'].insert(gi, copy.deepcopy(ev[gi]))
        yield f"duplicate event #{gi} ({ev[gi]['call']})", d
    for f, change in (('peer', lambda v: (v + 1) % np_ if v >= 0 else 0),
                      ('tag', lambda v: v + 1),
                      ('bytes', lambda v: v + 4),
                      ('rbytes', lambda v: v + 8),
                      ('root', lambda v: (v + 1) % np_ if v >= 0 else 0),
                      ('comm', lambda v: v + 1),
                      ('request', lambda v: v + 1000),
                      ('rc', lambda v: 13 if v == 0 else 0),
                      ('vsend', lambda v: (v or [0])[:-1] + [(v or [0])[-1] + 1]),
                      ('newcomm', lambda v: (v or 0) + 1),
                      ('message', lambda v: v + 1),
                      ('ncalls', lambda v: v + 1),
                      ('inside_ns', lambda v: v + 10**12)):
        cands = [gi for gi in field_ix.get(f, [])
                 if f in ev[gi] and change(ev[gi][f]) != ev[gi][f]]
        if f == 'peer':      # a peer of 1 rank moving to itself is no change in a 1-rank run
            cands = [gi for gi in cands if np_ > 1 or ev[gi][f] < 0]
        if f == 'root':
            cands = [gi for gi in cands if np_ > 1 or ev[gi][f] < 0]
        for gi in rng.sample(cands, min(2, len(cands))):
            d = clone(gi)
            d['events'][gi][f] = change(ev[gi][f])
            yield f"change {f} of event #{gi} ({ev[gi]['call']})", d
    st_cands = [(gi, f[1], f[0]) for gi, fs in marks.items() for f in fs
                if isinstance(f, tuple)]
    for gi, k, what in rng.sample(st_cands, min(3, len(st_cands))):
        for key, change in (('source', lambda v: v + 1), ('request', lambda v: v + 1000),
                            ('bytes', lambda v: v + 1), ('tag', lambda v: v + 1)):
            if what == 'status_req' and key != 'request':
                continue
            d = clone(gi)
            d['events'][gi]['status'][k][key] = change(ev[gi]['status'][k][key])
            yield f"change status {k} {key} of event #{gi} ({ev[gi]['call']})", d
    flagged = [gi for gi in strict if 'flags' in marks[gi]]
    for gi in rng.sample(flagged, min(2, len(flagged))):
        d = clone(gi)
        fl = d['events'][gi]['flags']
        if 'inplace' in fl:
            fl.remove('inplace')
        else:
            fl.append('inplace')
        yield f"toggle inplace of event #{gi} ({ev[gi]['call']})", d
    swaps = [gi for gi in strict if gi + 1 in marks and gi + 1 not in loose
             and ev[gi]['rank'] == ev[gi + 1]['rank'] and ev[gi]['call'] != ev[gi + 1]['call']]
    for gi in rng.sample(swaps, min(2, len(swaps))):
        d = clone(gi, gi + 1)
        a, b = d['events'][gi], d['events'][gi + 1]
        for k in list(a):
            if k not in ('rank', 'thread', 'start_ns', 'end_ns'):
                a[k], b[k] = b.get(k), a.get(k)
        for x in (a, b):
            for k in [k for k, v in x.items() if v is None]:
                del x[k]
        yield f"swap the calls of events #{gi} and #{gi + 1}", d
    multi = [c for c in dump['comms'] if c['id'] in comm_marks and len(c['members']) > 1]
    for c in rng.sample(multi, min(2, len(multi))):
        d = clone(part='comms')
        dc = next(x for x in d['comms'] if x['id'] == c['id'])
        dc['members'] = dc['members'][1:] + dc['members'][:1]
        yield f"rotate the members of communicator {c['id']}", d
    threaded = [gi for gi, e in enumerate(ev) if e['thread'] != 0]
    for gi in rng.sample(threaded, min(2, len(threaded))):
        d = clone(gi)
        d['events'][gi]['thread'] = (ev[gi]['thread'] % 4) + 1
        yield f"move event #{gi} to another thread", d
    d = clone()
    d['warnings'] = ['a warning']
    yield "add a reader warning", d
    if d['ranks']:
        d = clone(part='ranks')
        d['ranks'][-1]['ended'] = 'truncated'
        yield "mark the last rank's log truncated", d


def churn_mutants(dump, rng):
    """t_threadchurn: the counts must be exact, not only each worker's events right."""
    ev = dump['events']
    workers = [gi for gi, e in enumerate(ev) if e['thread'] != 0 and e['call'] == 'MPI_Irecv']
    if not workers:
        return

    def with_ranks(evs, r, **change):
        d = dict(dump)
        d['events'] = evs
        d['ranks'] = copy.deepcopy(dump['ranks'])
        info = next(x for x in d['ranks'] if x['rank'] == r)
        for k, v in change.items():
            info[k] = v(info[k])
        return d

    gi = rng.choice(workers)
    e = ev[gi]
    mine = [i for i, x in enumerate(ev) if (x['rank'], x['thread']) == (e['rank'], e['thread'])]
    k = mine.index(gi)
    three = set(mine[k:k + 3])
    yield (f"drop worker {e['tag']} of rank {e['rank']} (events #{gi}.., and from the rank "
           f"table's count)", with_ranks([x for i, x in enumerate(ev) if i not in three],
                                         e['rank'], events=lambda n: n - 3))
    # the copy last in its rank's events, with requests of its own
    rank_ev = [i for i, x in enumerate(ev) if x['rank'] == e['rank']]
    last, t = rank_ev[-1] + 1, max(ev[i]['end_ns'] for i in rank_ev)
    rid = max(x.get('request', 0) for i, x in enumerate(ev) if x['rank'] == e['rank'])
    copies = [copy.deepcopy(ev[i]) for i in sorted(three)]
    for j, x in enumerate(copies):
        x['start_ns'], x['end_ns'] = t + 2 * j + 1, t + 2 * j + 2
        if j < 2:
            x['request'] = rid + 1 + j
        else:
            for n, sx in enumerate(x['status']):
                sx['request'] = rid + 1 + n
            if 'requests' in x:
                x['requests'] = [rid + 1, rid + 2]
    yield (f"record worker {e['tag']} of rank {e['rank']} twice",
           with_ranks(ev[:last] + copies + ev[last:], e['rank'], events=lambda n: n + 3))
    r = e['rank']
    yield (f"rank {r}: 3 calls of threads without a slot",
           with_ranks(ev, r, dropped=lambda n: n + 3, dropped_threads=lambda n: n + 3))
    yield f"rank {r}: one more thread started", with_ranks(ev, r, threads_started=lambda n: n + 1)
    yield f"rank {r}: one more slot", with_ranks(ev, r, threads=lambda n: n + 1)


def selftest(args, dump, base):
    rng = random.Random(f"{args.prog}/{args.np}")
    n = 0
    survivors = []
    more = churn_mutants(dump, rng) if args.prog == 't_threadchurn' else ()
    for desc, d in itertools.chain(
            mutants(dump, base.marks, base.loose, base.comm_marks, args.np, rng), more):
        n += 1
        try:
            Checker(d, args.prog, args.np, base.stdout, base.stderr).run()
        except CheckError:
            continue
        except Exception as x:       # a crash on bad input is a checker bug
            survivors.append(f"{desc}: the check crashed ({type(x).__name__}: {x})")
            continue
        survivors.append(f"{desc}: accepted")
    if survivors:
        for s in survivors:
            print(f"FAIL selftest: mutant not rejected: {s}")
        return False
    print(f"selftest: all {n} mutants rejected")
    return n > 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--prog', required=True, choices=sorted(PROGRAMS))
    ap.add_argument('--np', type=int, required=True)
    ap.add_argument('--dump', required=True)
    ap.add_argument('--stdout', default=None)
    ap.add_argument('--stderr', default=None)
    ap.add_argument('--selftest', action='store_true')
    ap.add_argument('--ignore-warnings', action='store_true',
                    help="diagnosis only: go on past the reader's warnings")
    args = ap.parse_args()
    try:
        with open(args.dump) as f:
            dump = json.load(f)
        out = open(args.stdout).read() if args.stdout else ''
        err = open(args.stderr).read() if args.stderr else ''
    except (OSError, ValueError) as x:
        print(f"FAIL: cannot read input: {x}")
        return 1
    chk = Checker(dump, args.prog, args.np, out, err)
    chk.ignore_warnings = args.ignore_warnings
    try:
        chk.run()
    except CheckError as x:
        print(f"FAIL {args.prog} np={args.np}: {x}")
        return 1
    print(f"ok {args.prog} np={args.np}: {len(dump['events'])} events checked")
    if args.selftest and not selftest(args, dump, chk):
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
