#!/usr/bin/env python3
"""gen_wrappers.py: turn pmpi/mpi_spec.txt into phasor's call tables and C wrappers.

    python3 pmpi/gen_wrappers.py --spec pmpi/mpi_spec.txt --outdir gen

writes gen/format/plog_calls.h, gen/format/plog_calls.c (ids, names, classes; no mpi.h, the
offline reader uses them too), gen/pmpi/pmpi_wrappers.c (one wrapper per spec line not
marked `special`), gen/pmpi/wrappers_measure.h (the PHASOR_STEPS=measure entries of
pmpi/wrappers_measure.c) and gen/pmpi/libphasor.map (the shim's version script: it exports
the MPI entry points, C and Fortran, and nothing else).
The spec's header documents the line syntax. Stdlib only. parse_spec() is importable so that
a Fortran generator can be driven from the same spec.
"""

import argparse
import glob
import os
import re
import string
import sys
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# The spec
# ---------------------------------------------------------------------------------------------


class SpecError(Exception):
    pass


@dataclass
class Param:
    decl: str   # as written in the spec: "const int recvcounts[]"
    name: str   # "recvcounts"; "..." for a variadic tail
    ctype: str  # the type with arrays as pointers and no qualifiers: "int *"


@dataclass
class Directive:
    key: str
    value: str
    conds: list  # qualifiers after '@'


@dataclass
class Call:
    id: int
    cls: str
    name: str        # "MPI_Send"
    ret: str         # "int"
    params: list     # [Param]
    directives: list  # [Directive]
    special: bool
    lineno: int

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None

    def get(self, key):
        return [d for d in self.directives if d.key == key]

    def one(self, key):
        ds = self.get(key)
        return ds[0].value if ds else None


PROTO_RE = re.compile(r'^(int)\s+((?:MPI|PHASOR)_\w+)\s*\((.*)\)$')
PARAM_RE = re.compile(r'^(.*?)\s*\b(\w+)\s*(\[\s*\])?$')
LINE_RE = re.compile(r'^(\d+)\s+([A-Z][A-Z0-9_]*)\s+(.*)$')

# key -> (expected C type(s) of the argument(s), ':'-separated parts)
DIRECTIVE_TYPES = {
    'comm': ['MPI_Comm'],
    'peer': ['int'],
    'tag': ['int'],
    'root': ['int'],
    'inplace': ['void *'],
    'req': ['MPI_Request *'],
    'status': ['MPI_Status *'],
    'flag': ['int *'],
    'recvspec': ['int', 'int'],
    'newcomm': ['MPI_Comm *'],
    'msg': ['MPI_Message *', None],
    'bytes': ['int', 'MPI_Datatype'],
    'rbytes': ['int', 'MPI_Datatype'],
    'vsend': ['int *', 'MPI_Datatype', None],
    'vrecv': ['int *', 'MPI_Datatype', None],
    'wsend': ['int *', 'MPI_Datatype *', None],
    'wrecv': ['int *', 'MPI_Datatype *', None],
    'stype': ['MPI_Datatype'],
    'rtype': ['MPI_Datatype'],
    'op': ['MPI_Op'],
}
CONDITIONS = ('root', 'leaf', 'part', 'inplace', 'noinplace')
LIST_LENGTHS = ('peers', 'size', 'indeg', 'outdeg')


def plain_type(t):
    """'const int' + array -> 'int *': what a directive's argument must be."""
    t = re.sub(r'\bconst\b', ' ', t)
    t = re.sub(r'\s*\*\s*', '*', t)
    t = re.sub(r'\s+', ' ', t).strip()
    return re.sub(r'(\w)\*', r'\1 *', t)


def parse_params(text, where):
    text = text.strip()
    if text == 'void':
        return []
    params = []
    for decl in (d.strip() for d in text.split(',')):
        if decl == '...':
            params.append(Param(decl, '...', '...'))
            continue
        m = PARAM_RE.match(decl)
        if not m or not m.group(1):
            raise SpecError(f'{where}: cannot read parameter "{decl}"')
        ctype = plain_type(m.group(1) + (' *' if m.group(3) else ''))
        params.append(Param(decl, m.group(2), ctype))
    return params


def parse_directive(word, where):
    if word in ('special', 'measure'):
        return Directive(word, '', [])
    m = re.match(r'^([a-z]+)=([^@]+)(?:@([a-z,]+))?$', word)
    if not m:
        raise SpecError(f'{where}: bad directive "{word}"')
    conds = m.group(3).split(',') if m.group(3) else []
    for c in conds:
        if c not in CONDITIONS:
            raise SpecError(f'{where}: unknown qualifier "@{c}"')
    return Directive(m.group(1), m.group(2), conds)


def check_directive(call, d, where):
    """Every argument a directive names must exist with the right C type."""
    if d.key in ('special', 'measure'):
        return
    if d.key not in DIRECTIVE_TYPES:
        raise SpecError(f'{where}: unknown directive "{d.key}"')
    want = DIRECTIVE_TYPES[d.key]
    parts = d.value.split(':')
    if d.key in ('bytes', 'rbytes') and d.value in ('vsend', 'vrecv'):
        return  # the sum of the line's list, checked by the wrapper generator
    least = len(want) if d.key == 'msg' else len([w for w in want if w])
    if len(parts) > len(want) or len(parts) < least:
        raise SpecError(f'{where}: {d.key}= wants {len(want)} ":"-separated parts')
    for part, ty in zip(parts, want):
        if ty is None:  # a keyword, not an argument
            ok = {'msg': ('in', 'out')}.get(d.key, LIST_LENGTHS)
            if part not in ok:
                raise SpecError(f'{where}: {d.key}=...:{part}: expected one of {ok}')
            continue
        if d.key in ('bytes', 'rbytes'):
            if ty == 'int' and part.endswith('[own]'):
                part, ty = part[:-5], 'int *'
            if ty == 'MPI_Datatype' and part.endswith('*peers'):
                part = part[:-6]
        p = call.param(part)
        if p is None:
            raise SpecError(f'{where}: {d.key}= names "{part}", not a parameter')
        if p.ctype != ty:
            raise SpecError(f'{where}: {d.key}= wants {ty}, "{part}" is {p.ctype}')


def parse_spec(path):
    calls, ids, names = [], {}, {}
    with open(path, encoding='utf-8') as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            where = f'{path}:{lineno}'
            proto, _, dirs = line.partition('|')
            m = LINE_RE.match(proto.strip())
            if not m:
                raise SpecError(f'{where}: expected "ID CLASS PROTOTYPE | DIRECTIVES"')
            pm = PROTO_RE.match(m.group(3).strip())
            if not pm:
                raise SpecError(f'{where}: cannot read prototype "{m.group(3).strip()}"')
            call = Call(int(m.group(1)), m.group(2), pm.group(2), pm.group(1),
                        parse_params(pm.group(3), where), [], False, lineno)
            call.directives = [parse_directive(w, where) for w in dirs.split()]
            call.special = any(d.key == 'special' for d in call.directives)
            for d in call.directives:
                check_directive(call, d, where)
            if not 0 < call.id < 65536:
                raise SpecError(f'{where}: id {call.id} out of range (1..65535)')
            if call.id in ids:
                raise SpecError(f'{where}: id {call.id} already used on line {ids[call.id]}')
            if call.name in names:
                raise SpecError(f'{where}: {call.name} already on line {names[call.name]}')
            ids[call.id], names[call.name] = lineno, lineno
            calls.append(call)
    if not calls:
        raise SpecError(f'{path}: no calls')
    return calls


# ---------------------------------------------------------------------------------------------
# gen/format/plog_calls.h and gen/format/plog_calls.c
# ---------------------------------------------------------------------------------------------

CALLS_H = string.Template('''\
/* plog_calls.h: ids, names and classes of the MPI calls phasor records.
 * GENERATED from pmpi/mpi_spec.txt by pmpi/gen_wrappers.py -- edit the spec, not this file.
 * Ids are an on-disk contract (plog_event_t.call). No mpi.h: the offline reader uses it too. */
#ifndef PLOG_CALLS_H
#define PLOG_CALLS_H

/* X(id, MPI_Name, CLASS): CLASS is the suffix of enum plog_call_class (plog_format.h). */
#define PLOG_CALLS(X) \\
$xlist

enum plog_call {
    PLOG_CALL_NONE = 0,
$enum
    PLOG_CALL__MAX = $max
};

#define PLOG_CALLS_COUNT $count /* calls in the list above */

/* "MPI_Send" for PLOG_CALL_MPI_Send; NULL for an id no call has. */
const char *plog_call_name(unsigned call);
/* enum plog_call_class of a call; -1 for an unknown id. */
int plog_call_class(unsigned call);
/* Id of an exact name such as "MPI_Isend"; -1 if there is none. */
int plog_call_by_name(const char *name);

#endif
''')

CALLS_C = string.Template('''\
/* plog_calls.c: name and class tables of the MPI calls in plog_calls.h.
 * GENERATED from pmpi/mpi_spec.txt by pmpi/gen_wrappers.py -- edit the spec, not this file. */
#include <stddef.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_format.h"

static const struct plog_call_desc {
    const char *name; /* NULL: no call has this id */
    int cls;
} plog_call_table[PLOG_CALL__MAX] = {
#define PLOG_CALL_DESC_(id, name, cls) [id] = {#name, PLOG_CLASS_##cls},
    PLOG_CALLS(PLOG_CALL_DESC_)
#undef PLOG_CALL_DESC_
};

const char *plog_call_name(unsigned call)
{
    return call < PLOG_CALL__MAX ? plog_call_table[call].name : NULL;
}

int plog_call_class(unsigned call)
{
    return plog_call_name(call) != NULL ? plog_call_table[call].cls : -1;
}

int plog_call_by_name(const char *name)
{
    if (name == NULL)
        return -1;
    for (unsigned i = 1; i < PLOG_CALL__MAX; i++)
        if (plog_call_table[i].name != NULL && strcmp(plog_call_table[i].name, name) == 0)
            return (int)i;
    return -1;
}
''')


def gen_calls_h(calls):
    by_id = sorted(calls, key=lambda c: c.id)
    width = max(len(c.name) for c in calls)
    xlist = ' \\\n'.join(f'    X({c.id}, {c.name}, {c.cls})' for c in by_id)
    enum = '\n'.join(f'    PLOG_CALL_{c.name:<{width}} = {c.id},' for c in by_id)
    return CALLS_H.substitute(xlist=xlist, enum=enum, max=by_id[-1].id + 1, count=len(calls))


def gen_calls_c(calls):
    return CALLS_C.substitute()


# ---------------------------------------------------------------------------------------------
# gen/pmpi/pmpi_wrappers.c
# ---------------------------------------------------------------------------------------------

WRAPPERS_C = string.Template('''\
/* pmpi_wrappers.c: the generated MPI wrappers (pattern: profiler/phasor_rt.h; the helpers
 * that turn arguments into extras: pmpi/wrappers.h, format/plog_extras.h).
 * GENERATED from pmpi/mpi_spec.txt by pmpi/gen_wrappers.py -- edit the spec, not this file.
 * The Wait/Test families, Start*, Request_free, Cancel, Comm_free/disconnect/idup are in
 * pmpi/wrappers_special.c; Init, Finalize, Abort and Pcontrol in pmpi/wrappers_lifecycle.c. */
#include "phasor_rt.h"
#include "wrappers.h"
#include "wrappers_measure.h"

/* ---- the wrappers, in spec order ---- */
$wrappers''')

WRAPPER = string.Template('''
/* $id $name ($cls) */
PW_ENTRY $ret $name($params)
{
    phasor_thread_t *th = phasor_enter();
${passthrough}${before}${t0line}${pending}${call}${poll}    uint64_t t1 = phasor_now();
${after}    plog_event_t *ev = phasor_event_begin($begin_args);
    if (ev) {
${fill}    }
    phasor_leave(th);
${probe}    return rc;
}
''')


def probe_point(c):
    """Blocking collectives (ids 100-149) end with PHASOR_PROBE_AFTER: under PHASOR_PROBE=
    ...,every=N every N-th one on MPI_COMM_WORLD runs a network probe (profiler/phasor_rt.h)."""
    return c.cls == 'COLL' and 100 <= c.id < 150 and c.one('comm') is not None


# Names the generated wrapper bodies declare; a spec parameter of the same name would clash.
LOCALS = {'th', 'pk0', 'pk1', 'quiet', 't0', 't1', 'rc', 'ev', 'x', 'room', 'nx', 'ok', 'ip', 'at_root', 'at_leaf', 'measured',
          'at_part', 'nvs', 'nvr', 'vs_sum', 'vr_sum', 'st', 'st_own', 'msg_in', 'new_id', 'veto'}

LIST_FLAG = {'vsend': 'PLOG_F_VSEND', 'wsend': 'PLOG_F_VSEND',
             'vrecv': 'PLOG_F_VRECV', 'wrecv': 'PLOG_F_VRECV'}


def pending_args(c):
    """phasor_pending's arguments: what the watch thread names if this call blocks."""
    return ['th', f'PLOG_CALL_{c.name}', 't0', c.one('comm') or 'MPI_COMM_NULL',
            c.one('peer') or c.one('root') or 'MPI_PROC_NULL', c.one('tag') or '0',
            'MPI_REQUEST_NULL']


def pending_line(c, poll):
    """The phasor_pending line of a wrapper; none for a poll (it never blocks, and a run's
    polls must stay cheap)."""
    if poll:
        return ''
    return f'    phasor_pending({wrap_list(pending_args(c), 19)});\n'


class WrapperGen:
    """Emits one wrapper. Sections: before the call, after it (values needed before the
    event is reserved), and the fill: fields that need no MPI query, extras in the order
    plog_format.h fixes, then fields valid only on success."""

    fortran = False  # FortranGen: renders its own library call and measure path

    def __init__(self, call):
        self.c = call
        self.before, self.after, self.fill, self.extras, self.on_ok = [], [], [], [], []
        self.poll = None
        self.t0line = '    uint64_t t0 = phasor_now();\n'
        self.max_const, self.max_terms = 0, []
        self.uses = set()  # locals of 'after' we must declare
        self.passthrough_register = None
        clash = LOCALS & {p.name for p in call.params}
        if clash:
            raise SpecError(f'{call.name}: parameter name(s) {sorted(clash)} clash with '
                            'generator locals')
        if any(p.name == '...' for p in call.params):
            raise SpecError(f'{call.name}: variadic calls must be special')

    # -- conditions -----------------------------------------------------------------------
    def cond(self, d, need_ok):
        parts = ['ok'] if need_ok else []
        for q in d.conds:
            if q in ('root', 'leaf', 'part'):
                if not self.c.one('root'):
                    raise SpecError(f'{self.c.name}: @{q} needs a root= directive')
                self.comm()  # at_root asks the comm table
                parts.append('at_' + q)
            elif q == 'inplace':
                parts.append('ip')
            elif q == 'noinplace':
                parts.append('!ip')
            if q in ('inplace', 'noinplace') and not self.c.get('inplace'):
                raise SpecError(f'{self.c.name}: @{q} needs an inplace= directive')
        self.uses.update(p.lstrip('!') for p in parts)
        return ' && '.join(parts)

    @staticmethod
    def guarded(cond, stmt, indent='        '):
        return f'{indent}if ({cond})\n{indent}    {stmt}' if cond else f'{indent}{stmt}'

    def comm(self):
        arg = self.c.one('comm')
        if arg is None:
            raise SpecError(f'{self.c.name}: needs comm= for this directive')
        return arg

    def bytes_expr(self, value):
        """COUNT:TYPE, COUNTS[own]:TYPE, COUNT:TYPE*peers, vsend, vrecv -> C expression."""
        if value in ('vsend', 'vrecv'):
            if not (self.c.get(value) or self.c.get('w' + value[1:])):
                raise SpecError(f'{self.c.name}: bytes={value} without a {value} list')
            return 'vs_sum' if value == 'vsend' else 'vr_sum'
        count, dtype = value.split(':')
        mult = ''
        if dtype.endswith('*peers'):
            dtype = dtype[:-6]
            mult = f' * (uint64_t)phasor_comm_peers({self.comm()})'
        if count.endswith('[own]'):
            return f'pw_own_bytes({self.comm()}, {count[:-5]}, {dtype}){mult}'
        return f'phasor_bytes({count}, {dtype}){mult}'

    def list_len(self, length):
        comm = self.comm()
        return {'peers': f'phasor_comm_peers({comm})', 'size': f'pw_comm_size({comm})',
                'indeg': f'pw_indegree({comm})', 'outdeg': f'pw_outdegree({comm})'}[length]

    # -- the sections -----------------------------------------------------------------------
    def build(self):
        c = self.c
        call_args = [p.name for p in c.params]
        d_of = {d.key: d for d in c.directives}

        if 'comm' in d_of:
            self.fill.append(f'        phasor_event_set_comm(ev, {c.one("comm")});')
        if 'peer' in d_of:
            self.fill.append(f'        ev->peer = phasor_rank_arg({c.one("peer")});')
        if 'tag' in d_of:
            self.fill.append(f'        ev->tag = phasor_tag_arg({c.one("tag")});')
        if 'root' in d_of:
            self.fill.append(f'        ev->root = phasor_root_arg({c.one("root")});')
        if 'inplace' in d_of:
            d = d_of['inplace']
            cond = self.cond(d, False)
            test = f'{d.value} == MPI_IN_PLACE'
            self.after.append(f'    const int ip = {cond + " && " if cond else ""}{test};')
            self.fill.append('        if (ip)\n            ev->flags |= PLOG_F_INPLACE;')

        flag = c.one('flag')
        hit = f'ok && *{flag}' if flag else 'ok'
        if flag and c.cls == 'PROBE':
            # found nothing: joins the thread's run of polls (phasor_rt.h), no event of its own
            self.poll = (f'    if (rc == MPI_SUCCESS && !*{flag}) {{\n'
                         f'        pw_poll_probe(th, PLOG_CALL_{c.name}, quiet, t0, pk0, pk1, '
                         f'{c.one("comm")}, {c.one("peer")},\n'
                         f'                      {c.one("tag")});\n'
                         f'        phasor_leave(th);\n        return rc;\n    }}\n')
            self.t0line = (f'    const uint64_t pk0 = PHASOR_BITS({c.one("comm")}),\n'
                           f'                   pk1 = plog_extras_pair({c.one("peer")}, {c.one("tag")});\n'
                           f'    int quiet;\n'
                           f'    uint64_t t0 = pw_poll_start(th, PLOG_CALL_{c.name}, pk0, pk1, &quiet);\n')
        if flag:
            self.uses.add('ok')
            self.on_ok.append(f'            if (*{flag})\n'
                              f'                ev->flags |= PLOG_F_FLAG_TRUE;')

        # extras, in the order of plog_format.h: RECVSPEC, HANDLES, STATUS, VSEND, VRECV, NEWCOMM,
        # COLLINFO
        if 'recvspec' in d_of:
            src, tag = c.one('recvspec').split(':')
            self.add_extra(1, None, 'plog_extras_word', 'PLOG_F_RECVSPEC',
                           f'pw_recvspec({src}, {tag})')
        if 'msg' in d_of:
            arg, way = c.one('msg').split(':')
            if way == 'in':  # the handle is MPI_MESSAGE_NULL after the call
                self.before.append(f'    const uint64_t msg_in = pw_msg_value({arg});')
                self.add_extra(2, None, 'pw_put_message', 'msg_in')
            else:
                self.uses.add('ok')
                self.add_extra(2, hit, 'pw_put_message', f'pw_msg_value({arg})')
        if 'status' in d_of:
            arg = c.one('status')
            self.before.append('    MPI_Status st_own;\n'
                               f'    MPI_Status *st = {arg} == MPI_STATUS_IGNORE ? &st_own : {arg};')
            call_args = ['st' if a == arg else a for a in call_args]
            self.uses.add('ok')
            self.add_extra('1 + PLOG_STATUS_WORDS', hit, 'pw_put_status1', 'MPI_REQUEST_NULL', 'st',
                           '0', '0')
        for side, nvar, sumvar in (('send', 'nvs', 'vs_sum'), ('recv', 'nvr', 'vr_sum')):
            ds = c.get('v' + side) + c.get('w' + side)
            if not ds:
                continue
            lengths = {(d.value.split(':') + ['peers'])[2] for d in ds}
            if len(lengths) != 1:
                raise SpecError(f'{c.name}: {side} lists disagree on their length')
            # reserve room only where a list will be written (not at a Gatherv's leaves);
            # in-place or not, a list has the same length
            sides = {self.cond(Directive(d.key, d.value,
                                         [q for q in d.conds if 'inplace' not in q]), False)
                     for d in ds}
            where = ['ok'] if '' in sides else ['ok', ' || '.join(sorted(sides))]
            if len(sides) > 1 and len(where) > 1:
                where[1] = f'({where[1]})'
            self.after.append(f'    const int {nvar} = {" && ".join(where)} ? '
                              f'{self.list_len(lengths.pop())} : 0;')
            self.uses.add('ok')
            self.fill.insert(0, f'        uint64_t {sumvar} = 0;')
            for d in ds:
                counts, types = d.value.split(':')[:2]
                one, many = (types, 'NULL') if d.key[0] == 'v' else ('MPI_DATATYPE_NULL', types)
                self.add_extra(None, self.cond(d, True), 'pw_put_vlist', LIST_FLAG[d.key],
                               nvar, counts, one, many, f'&{sumvar}')
            self.max_terms.append(f'(size_t){nvar}')
            self.max_const += 1
            field_ = 'bytes' if side == 'send' else 'rbytes'
            if not c.get(field_):  # the list's sum is the field unless the line says otherwise
                self.on_ok.append(f'            ev->{field_} = {sumvar};')
        if 'newcomm' in d_of:
            # register even when no event can be recorded (nested call, thread over the
            # budget): later calls of other threads must know the comm
            self.passthrough_register = (f'phasor_comm_register(*{c.one("newcomm")}, '
                                         f'{self.comm()}, PLOG_CALL_{c.name});')
            self.after.append(f'    const uint32_t new_id =\n        ok ? phasor_comm_register('
                              f'*{c.one("newcomm")}, {self.comm()}, PLOG_CALL_{c.name}) : 0;')
            self.uses.add('ok')
            self.add_extra(1, 'ok', 'plog_extras_word', 'PLOG_F_NEWCOMM', 'new_id')

        if any(k in d_of for k in ('stype', 'rtype', 'op')):
            sizes = []
            for key in ('stype', 'rtype'):
                d = d_of.get(key)
                if d is None:
                    sizes.append('0')
                    continue
                cond = self.cond(d, False)
                expr = f'phasor_type_size({d.value})'
                sizes.append(f'({cond} ? {expr} : 0)' if cond else expr)
            op = f'phasor_op_word({d_of["op"].value})' if 'op' in d_of else 'PLOG_OP_NONE'
            self.uses.add('ok')
            self.add_extra(2, 'ok', 'plog_extras_collinfo', *sizes, op)

        # fields valid only after a successful call
        if 'req' in d_of:
            self.on_ok.append(f'            ev->request = phasor_req_handle({c.one("req")});')
        for key in ('bytes', 'rbytes'):
            for d in c.get(key):
                expr = self.bytes_expr(d.value)
                self.on_ok.append(self.guarded(self.cond(d, False), f'ev->{key} = {expr};',
                                               '            '))
        if self.on_ok:
            self.uses.add('ok')

        return self.render(call_args)

    def add_extra(self, words, cond, func, *args):
        """One extras writer call: func(ev, x + nx, room - nx, args...)."""
        if words is not None:
            if isinstance(words, int):
                self.max_const += words
            else:
                self.max_terms.append(words)
        indent = 12 if cond else 8
        call = wrap_list(['ev', 'x + nx', 'room - nx', *args], indent + len(func) + 7)
        self.extras.append(self.guarded(cond, f'nx += {func}({call});'))

    def render(self, call_args):
        c = self.c
        after = []
        if self.poll:
            after.append('    if (quiet)\n        t0 = t1; /* a quiet poll that found something */')
        if 'ok' in self.uses:
            after.append('    const int ok = rc == MPI_SUCCESS;')
        root = c.one('root')
        if 'at_root' in self.uses:
            after.append(f'    const int at_root = phasor_is_root({self.comm()}, {root});')
        if 'at_leaf' in self.uses:
            after.append(f'    const int at_leaf = pw_at_leaf({root});')
        if 'at_part' in self.uses:
            after.append(f'    const int at_part = pw_at_part({root});')
        after += self.after

        fill = list(self.fill)
        if self.extras:
            fill.insert(0, '        uint64_t *x = phasor_extras(ev);\n'
                           '        size_t room = phasor_extras_room(th, ev), nx = 0;')
            fill += self.extras
        if self.on_ok:
            fill.append('        if (ok) {\n' + '\n'.join(self.on_ok) + '\n        }')
        fill.append(f'        phasor_event_end(th, ev, {"nx" if self.extras else 0});')

        terms = ([str(self.max_const)] if self.max_const else []) + self.max_terms
        max_extras = ' + '.join(terms) or '0'

        names = [p.name for p in c.params]
        args = wrap_list(names, len(c.name) + 17)
        probe = ''
        if probe_point(c) and not self.fortran:
            # every rank counts its collectives on MPI_COMM_WORLD, recording or not
            probe = f'    PHASOR_PROBE_AFTER({c.one("comm")}, rc);\n'
        if probe and c.get('measure'):
            passthrough = (f'    if (!th) {{\n        int veto = -1;\n'
                           f'        int rc = phasor_steps_mode\n'
                           f'                     ? pw_measure_{c.name[4:]}({wrap_list(names + ["&veto"], 31 + len(c.name))})\n'
                           f'                     : P{c.name}({wrap_list(names, 25 + len(c.name))});\n'
                           f'    {probe}        return rc;\n    }}\n')
        elif probe:
            passthrough = (f'    if (!th) {{\n        int rc = P{c.name}({wrap_list(names, len(c.name) + 18)});\n'
                           f'    {probe}        return rc;\n    }}\n')
        elif self.passthrough_register:
            passthrough = (f'    if (!th) {{\n        int rc = P{c.name}({wrap_list(names, len(c.name) + 23)});\n'
                           f'        if (rc == MPI_SUCCESS && phasor_active)\n'
                           f'            {self.passthrough_register}\n'
                           f'        return rc;\n    }}\n')
        elif c.get('measure') and not self.fortran:
            # every rank of a collective must reach phasor's agreement, recording or not
            passthrough = (f'    if (!th) {{\n        int veto = -1;\n'
                           f'        return phasor_steps_mode\n'
                           f'                   ? pw_measure_{c.name[4:]}({wrap_list(names + ["&veto"], 29 + len(c.name))})\n'
                           f'                   : P{c.name}({wrap_list(names, 23 + len(c.name))});\n    }}\n')
        else:
            passthrough = f'    if (!th)\n        return P{c.name}({args});\n'
        if c.get('measure') and not self.fortran:
            # PHASOR_STEPS=measure: phasor performs the collective (or hands it back)
            call = (f'    int measured = 0;\n'
                    f'    int rc = phasor_steps_mode\n'
                    f'                 ? pw_measure_{c.name[4:]}({wrap_list(call_args + ["&measured"], 27 + len(c.name))})\n'
                    f'                 : P{c.name}({wrap_list(call_args, 21 + len(c.name))});\n')
            fill.insert(0, '        if (measured)\n            ev->flags |= PLOG_F_MEASURED;')
        else:
            call = f'    int rc = P{c.name}({wrap_list(call_args, len(c.name) + 15)});\n'
        return WRAPPER.substitute(passthrough=passthrough, call=call, probe=probe,
            pending=pending_line(c, self.poll), t0line=self.t0line, poll=self.poll or '',
            id=c.id, name=c.name, cls=c.cls, ret=c.ret,
            params=wrap_list([p.decl for p in c.params] or ['void'], len(c.ret + c.name) + 11),
            before=''.join(line + '\n' for line in self.before),
            after=''.join(line + '\n' for line in after),
            begin_args=wrap_list(['th', f'PLOG_CALL_{c.name}', 't0', 't1', 'rc', max_extras],
                                 42),
            fill=''.join(line + '\n' for line in fill))


def wrap_list(items, column, width=98):
    """Comma-separated items, continued under column when a line would pass width (room is
    left for the closing ");")."""
    lines, cur = [], ''
    for i, item in enumerate(items):
        piece = item + (', ' if i + 1 < len(items) else '')
        if cur and column + len(cur) + len(piece.rstrip()) > width:
            lines.append(cur.rstrip())
            cur = ''
        cur += piece
    lines.append(cur)
    return ('\n' + ' ' * column).join(lines)


def gen_wrappers_c(calls):
    return WRAPPERS_C.substitute(
        wrappers=''.join(WrapperGen(c).build() for c in calls if not c.special))


def gen_measure_h(calls):
    """Prototypes of pmpi/wrappers_measure.c's functions, one per `measure` line: the
    call's own parameters plus `int *measured` (set when phasor performed the call)."""
    protos = []
    for c in calls:
        if not c.get('measure'):
            continue
        params = [p.decl for p in c.params] + ['int *measured']
        protos.append(f'int pw_measure_{c.name[4:]}(' +
                      wrap_list(params, len(c.name) + 12) + ');\n')
    return ('/* wrappers_measure.h: GENERATED from pmpi/mpi_spec.txt by pmpi/gen_wrappers.py.\n'
            ' * The collectives phasor can perform itself (PHASOR_STEPS=measure), defined in\n'
            ' * pmpi/wrappers_measure.c. */\n'
            '#ifndef WRAPPERS_MEASURE_H\n#define WRAPPERS_MEASURE_H\n\n#include <mpi.h>\n\n'
            '#pragma GCC visibility push(hidden) /* the shim\'s own: see phasor_rt.h */\n\n' +
            ''.join(protos) + '\n#pragma GCC visibility pop\n\n#endif\n')


def fortran_names(name):
    """The spellings of a call's Fortran entry point: mpi_send_ (gfortran and most), mpi_send,
    mpi_send__ (g77, f2c) and MPI_SEND (pmpi/fwrappers.h, PFW_ALIASES)."""
    low = name.lower()
    return [low + '_', low, low + '__', name.upper()]


def gen_shim_map(calls):
    """libphasor.so's version script: the shim exports the MPI entry points it defines (the C
    name and the Fortran spellings of every MPI_ call of the spec) and nothing else, so that
    neither its runtime nor the libraries linked into it can clash with the application's
    symbols or the MPI library's own (MPICH's Fortran profiling layer is named pmpi_*)."""
    names = []
    for c in calls:
        if c.name.startswith('MPI_'):
            names += [c.name] + fortran_names(c.name)
    body = ''.join(f'    {n};\n' for n in names)
    return ('/* libphasor.map: GENERATED from pmpi/mpi_spec.txt by pmpi/gen_wrappers.py.\n'
            ' * What libphasor.so exports: the MPI entry points it wraps, C and Fortran. */\n'
            '{\n  global:\n' + body + '  local:\n    *;\n};\n')


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def write_if_changed(path, text):
    """Leave an identical file alone so that make does not rebuild what did not change."""
    try:
        with open(path, encoding='utf-8') as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, path)


def hand_written(spec_path, calls):
    """Which special calls have a definition in a pmpi/*.c file next to the spec."""
    found = {}
    for path in sorted(glob.glob(os.path.join(os.path.dirname(spec_path) or '.', '*.c'))):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for c in calls:
            if c.special and re.search(rf'^\s*int\s+{c.name}\s*\(', text, re.M):
                found[c.name] = os.path.basename(path)
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--spec', required=True, help='pmpi/mpi_spec.txt')
    ap.add_argument('--outdir', required=True, help='where to write the generated files')
    ap.add_argument('--quiet', action='store_true', help='no summary line')
    opts = ap.parse_args(argv)
    try:
        calls = parse_spec(opts.spec)
        # the call table belongs to the log format (writer and readers); the wrappers to the shim
        outputs = {'format/plog_calls.h': gen_calls_h(calls),
                   'format/plog_calls.c': gen_calls_c(calls),
                   'pmpi/pmpi_wrappers.c': gen_wrappers_c(calls),
                   'pmpi/wrappers_measure.h': gen_measure_h(calls),
                   'pmpi/libphasor.map': gen_shim_map(calls)}
    except (SpecError, OSError) as e:
        print(f'gen_wrappers.py: {e}', file=sys.stderr)
        return 1
    for name, text in outputs.items():
        path = os.path.join(opts.outdir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_if_changed(path, text)
    if not opts.quiet:
        special = [c for c in calls if c.special and c.name.startswith('MPI_')]
        found = hand_written(opts.spec, calls)
        missing = [c.name for c in special if c.name not in found]
        print(f'gen_wrappers.py: {len(calls)} calls: {len(calls) - len(special)} generated, '
              f'{len(special)} special ({len(special) - len(missing)} found in pmpi/*.c)')
        if missing:
            print(f'gen_wrappers.py: special, no hand-written wrapper yet: {" ".join(missing)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
