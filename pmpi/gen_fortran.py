#!/usr/bin/env python3
"""gen_fortran.py: turn pmpi/mpi_spec.txt into gen/pmpi/pmpi_fwrappers.c, the Fortran wrappers.

    python3 pmpi/gen_fortran.py --spec pmpi/mpi_spec.txt --outdir gen

Same spec, same directives, same event fields as the C wrappers of gen_wrappers.py: each
Fortran wrapper (mpi_send_ and its aliases mpi_send, mpi_send__, MPI_SEND) converts the
arguments its directives read into C values with the names the spec gives them, forwards every
Fortran argument untouched to the library's own Fortran entry (pmpi_send_), and then runs the
very fill code gen_wrappers.WrapperGen emits for the C wrapper. Why forward to the Fortran
entry: it is the only one that knows the library's Fortran conventions (handle tables,
sentinels, statuses); Open MPI's calls PMPI_ (so the C wrappers see nothing), MPICH's calls
MPI_ (the C wrappers see the call, but pass through unrecorded since we hold the thread's
re-entrancy depth). Calls marked `measure` are the exception under PHASOR_STEPS=measure: they
convert every argument and call pw_measure_NAME (pmpi/wrappers_measure.c), as the C
wrapper does; its fallback is the C PMPI_ entry the library's binding would have reached.
Calls marked `special` are hand-written in pmpi/fwrappers_special.c.
Fortran INTEGER is assumed to be MPI_Fint (no -fdefault-integer-8 unless MPI was built so).
"""

import argparse
import os
import re
import string
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_wrappers as gw  # noqa: E402

FWRAPPERS_C = string.Template('''\
/* pmpi_fwrappers.c: the generated Fortran (mpif.h / use mpi) wrappers.
 * GENERATED from pmpi/mpi_spec.txt by pmpi/gen_fortran.py -- edit the spec, not this file.
 * Pattern and helpers: pmpi/fwrappers.h; the special calls are in pmpi/fwrappers_special.c. */
#include "fwrappers.h"
#include "wrappers_measure.h"

/* ---- wrappers ---- */
$wrappers''')

# PHASOR_STEPS=measure: the C values pw_measure_NAME takes (its fallback is the C library
# entry, which is what the library's Fortran entry calls too); every rank of the call reaches
# it, recording or not, since phasor's agreement is collective.
FMEASURE = string.Template('''
/* $name (Fortran) under PHASOR_STEPS=measure */
static int pfw_measure_$short($fparams, int *measured)
{
    return pw_measure_$short($cargs, measured);
}
''')

FWRAPPER = string.Template('''
/* $id $name (Fortran) */
extern void p$fname($pparams) __attribute__((weak));
PW_ENTRY void $fname($dparams);
void $fname($fparams)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
${passthrough_call}${passthrough}        return;
    }
${inputs}${before}${t0line}${pending}${call}    const int rc = *ierr;
${poll}    uint64_t t1 = phasor_now();
${outputs}${after}    plog_event_t *ev = phasor_event_begin($begin_args);
    if (ev) {
${fill}    }
    phasor_leave(th);
${probe}}
PFW_ALIASES($fname, $lname, $lname2, $uname)
''')

FORTRAN_TYPE = {'void *': 'void *', 'MPI_Aint *': 'MPI_Aint *'}
F2C = {'MPI_Comm': 'PMPI_Comm_f2c', 'MPI_Datatype': 'PMPI_Type_f2c', 'MPI_Op': 'PMPI_Op_f2c',
       'MPI_Request': 'PMPI_Request_f2c', 'MPI_Message': 'PMPI_Message_f2c'}


def fparam(p):
    return f'{FORTRAN_TYPE.get(p.ctype, "MPI_Fint *")}f_{p.name}'


class FortranGen(gw.WrapperGen):
    fortran = True

    def render(self, call_args):
        c = self.c
        # the C wrapper's own sections: status swapping is replaced by the Fortran one below
        status = c.one('status')
        before = [b for b in self.before if not b.lstrip().startswith('MPI_Status st_own')]
        body = gw.WrapperGen.render(self, call_args)  # for the shared after/fill text only
        after = body.split('    uint64_t t1 = phasor_now();\n', 1)[1]
        after, fill = after.split('    plog_event_t *ev = phasor_event_begin(', 1)
        begin_args, fill = fill.split(');\n    if (ev) {\n', 1)
        fill = fill.rsplit('    }\n    phasor_leave(th);', 1)[0]
        after = after.replace('phasor_comm_register(', 'pfw_comm_register(')
        after = after.replace('return rc;', 'return;')  # a Fortran wrapper returns nothing
        text = '\n'.join(before) + after + fill + begin_args
        text = re.sub(r'->\w+', '', text)  # ev->comm is a field, not the argument
        used = lambda n: re.search(rf'\b{n}\b', text) is not None  # noqa: E731

        inputs, outputs = [], []
        for p in c.params:
            n, t = p.name, p.ctype
            if n == status or not used(n):
                continue
            if t == 'void *':
                inputs.append(f'    const void *{n} = pfw_buf(f_{n});')
            elif t == 'int':
                inputs.append(f'    const int {n} = *f_{n};')
            elif t == 'int *':
                inputs.append(f'    int *{n} = f_{n};')
            elif t in ('MPI_Comm', 'MPI_Datatype', 'MPI_Op'):
                inputs.append(f'    const {t} {n} = {F2C[t]}(*f_{n});')
            elif t == 'MPI_Datatype *':
                # converted after the call: the list length is known from the comm table then
                inputs.append(f'    const MPI_Datatype *{n} = NULL;')
                outputs.append(f'    if (rc == MPI_SUCCESS)\n        {n} = pfw_types(th, '
                               f'f_{n}, {self.list_len(self.list_len_of(n))}, '
                               f'{int("recv" in n)});')
            elif t in ('MPI_Request *', 'MPI_Comm *', 'MPI_Message *'):
                base = t[:-2]
                init = {'MPI_Request': 'MPI_REQUEST_NULL', 'MPI_Comm': 'MPI_COMM_NULL',
                        'MPI_Message': 'MPI_MESSAGE_NULL'}[base]
                if c.one('msg') == f'{n}:in':
                    inputs.append(f'    {base} {n}_c = {F2C[base]}(*f_{n});')
                else:
                    inputs.append(f'    {base} {n}_c = {init};')
                    outputs.append(f'    if (rc == MPI_SUCCESS)\n'
                                   f'        {n}_c = {F2C[base]}(*f_{n});')
                inputs.append(f'    {base} *{n} = &{n}_c;')
            else:
                raise gw.SpecError(f'{c.name}: no Fortran conversion for {t} {n}')
        fargs = [f'f_{p.name}' for p in c.params] + ['ierr']
        call = list(fargs)
        if status:
            before.append(f'    MPI_Fint st_f[PFW_STATUS_FINTS];\n'
                          f'    MPI_Fint *f_st = pfw_status_ignored(f_{status}) ? st_f : f_{status};\n'
                          f'    MPI_Status st_c;\n    MPI_Status *st = &st_c;\n'
                          f'    memset(&st_c, 0, sizeof(st_c));')
            call = ['f_st' if a == f'f_{status}' else a for a in call]
            outputs.append('    if (rc == MPI_SUCCESS)\n        PMPI_Status_f2c(f_st, &st_c);')

        passthrough = ''
        if c.one('newcomm'):
            nc, parent = c.one('newcomm'), self.comm()
            passthrough = (f'        if (*ierr == MPI_SUCCESS && phasor_active)\n'
                           f'            pfw_comm_register(PMPI_Comm_f2c(*f_{nc}), '
                           f'PMPI_Comm_f2c(*f_{parent}),\n'
                           f'                              PLOG_CALL_{c.name});\n')
        probe = ''
        if gw.probe_point(c):  # as the C wrapper: counted recording or not
            comm = c.one('comm')
            passthrough += f'        PHASOR_PROBE_AFTER(PMPI_Comm_f2c(*f_{comm}), *ierr);\n'
            probe = f'    PHASOR_PROBE_AFTER({comm}, rc);\n'
        fname, lname, lname2, uname = gw.fortran_names(c.name)
        fp = [fparam(p) for p in c.params] + ['MPI_Fint *ierr']
        fparams = gw.wrap_list(fp, len(fname) + 6)
        lib_call = f'    p{fname}({gw.wrap_list(call, 6 + len(fname))});\n'
        passthrough_call = f'        p{fname}({gw.wrap_list(fargs, 10 + len(fname))});\n'
        measure_fn = ''
        if c.get('measure'):
            short = c.name[4:]
            fn = f'pfw_measure_{short}'
            fa = [f'f_{p.name}' for p in c.params]
            passthrough_call = (f'        if (phasor_steps_mode) {{\n'
                           f'            int veto = -1;\n'
                           f'            *ierr = {fn}({gw.wrap_list(fa + ["&veto"], 21 + len(fn))});\n'
                           f'        }} else {{\n'
                           f'            p{fname}({gw.wrap_list(fargs, 14 + len(fname))});\n'
                           f'        }}\n')
            lib_call = (f'    int measured = 0;\n    if (phasor_steps_mode)\n'
                        f'        *ierr = {fn}({gw.wrap_list(fa + ["&measured"], 17 + len(fn))});\n'
                        f'    else\n        p{fname}({gw.wrap_list(call, 10 + len(fname))});\n')
            fill = '        if (measured)\n            ev->flags |= PLOG_F_MEASURED;\n' + fill
            measure_fn = FMEASURE.substitute(
                name=c.name, short=short,
                fparams=gw.wrap_list([fparam(p) for p in c.params], 25 + len(short)),
                cargs=gw.wrap_list([self.c_value(p) for p in c.params], 24 + len(short)))
        return measure_fn + FWRAPPER.substitute(
            id=c.id, name=c.name, fname=fname, lname=lname, lname2=lname2, uname=uname,
            fparams=fparams,
            pparams=gw.wrap_list(fp, len(fname) + 14), dparams=gw.wrap_list(fp, len(fname) + 15),
            passthrough_call=passthrough_call, call=lib_call,
            passthrough=passthrough, probe=probe,
            inputs=''.join(line + '\n' for line in inputs),
            before=''.join(line + '\n' for line in before),
            outputs=''.join(line + '\n' for line in outputs),
            after=after, begin_args=begin_args, fill=fill,
            pending=gw.pending_line(c, self.poll), t0line=self.t0line,
            poll=(self.poll or '').replace('return rc;', 'return;'))

    @staticmethod
    def c_value(p):
        """A Fortran argument as the C value of its spec type (pw_measure_NAME's view)."""
        n, t = f'f_{p.name}', p.ctype
        if t == 'void *':
            return f'pfw_buf({n})' if p.decl.startswith('const') else f'(void *)pfw_buf({n})'
        if t == 'int':
            return f'*{n}'
        if t == 'int *':
            return n  # MPI_Fint is int (fwrappers.h)
        if t in F2C:
            return f'{F2C[t]}(*{n})'
        raise gw.SpecError(f'no Fortran measure conversion for {t} {p.name}')

    def list_len_of(self, arg):
        for d in self.c.get('wsend') + self.c.get('wrecv'):
            parts = d.value.split(':')
            if parts[1] == arg:
                return parts[2] if len(parts) > 2 else 'peers'
        raise gw.SpecError(f'{self.c.name}: {arg} is in no w-list')


def gen_fwrappers_c(calls):
    return FWRAPPERS_C.substitute(
        wrappers=''.join(FortranGen(c).build() for c in calls if not c.special))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--spec', required=True, help='pmpi/mpi_spec.txt')
    ap.add_argument('--outdir', required=True, help='writes pmpi/pmpi_fwrappers.c there')
    opts = ap.parse_args(argv)
    try:
        text = gen_fwrappers_c(gw.parse_spec(opts.spec))
    except (gw.SpecError, OSError) as e:
        print(f'gen_fortran.py: {e}', file=sys.stderr)
        return 1
    os.makedirs(os.path.join(opts.outdir, 'pmpi'), exist_ok=True)
    gw.write_if_changed(os.path.join(opts.outdir, 'pmpi', 'pmpi_fwrappers.c'), text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
