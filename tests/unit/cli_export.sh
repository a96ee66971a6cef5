#!/bin/sh
# cli_export.sh: `phasor export` on the committed golden log, whose content is known
# (tests/unit/plog_mkgolden.c): its four point-to-point messages (one to an any-source
# Irecv completed in a Waitall, one persistent send's first Start to a persistent receive
# started by Startall, one to an Mrecv from a second thread) become exactly these
# flows and messages-CSV rows, compute slices fill the gaps, CSV rows are the dump's events;
# damaged and missing inputs exit 1 naming the file, usage errors exit 2.
# Usage: cli_export.sh [PHASOR [DATA_DIR]]  (defaults: $PHASOR or ./phasor, $PHASOR_TESTDATA or
# $srcdir/tests/data). Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
data=${2:-${PHASOR_TESTDATA:-${srcdir:-.}/tests/data}}
case $phasor in /*) ;; *) phasor=$(pwd)/$phasor ;; esac
if [ ! -x "$phasor" ] || [ ! -d "$data/golden" ]; then
    echo "cli_export.sh: need an executable phasor ($phasor) and tests/data ($data)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"
cd "$data" || exit 1
expect_exit() {
    name=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ] && grep -q -- "$pat" "$tmp/err"; then ok "$name"; else
        bad "$name (exit $got, wanted $want; stderr should name '$pat')"; sed 's/^/     /' "$tmp/err" | head -5; fi
}

"$phasor" export --format chrome -o "$tmp/t.json" -m "$tmp/m.csv" golden 2>"$tmp/cerr"
check "chrome export exits 0" "[ $? -eq 0 ]"
check "the three ends without a partner are counted (Sendrecv's two, the second Start)" "grep -q '3 message ends left unmatched' '$tmp/cerr'"
cat >"$tmp/m.want" <<'W'
src,dst,tag,comm,bytes,send_start_ns,send_end_ns,recv_end_ns
0,1,5,1,8,5000,5200,7002
2,0,7,1,16,3800,4300,9000
1,2,9,1,4,8203,8303,7800
0,2,3,3,4,11000,11500,12200
W
check "messages CSV: Isend->Recv, Send->any-source Irecv (Waitall), Start->Startall, Send->Mrecv" \
    "cmp -s '$tmp/m.want' '$tmp/m.csv'"
python3 - "$tmp/t.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
fl = {}
for e in ev:
    if e["ph"] in "sf":
        fl.setdefault(e["id"], {})[e["ph"]] = (e["pid"], e["tid"], e["ts"])
got = sorted((f["s"], f["f"]) for f in fl.values())
want = sorted([((0, 0, 5.0), (1, 0, 7.002)), ((2, 0, 3.8), (0, 0, 9.0)),
               ((1, 0, 8.203), (2, 0, 7.8)), ((0, 1, 11.0), (2, 0, 12.2))])
assert got == want, got
comp = sorted((e["pid"], e["tid"], e["ts"], e["dur"]) for e in ev
              if e["ph"] == "X" and e["name"] == "compute")
# rank 0 thread 0: gaps between Init_thread..Split..Isend..Irecv..Waitall..Bcast..Alltoallv..
# Allreduce..Finalize
r0 = [(ts, d) for p, t, ts, d in comp if (p, t) == (0, 0)]
assert r0 == [(0.0, 1.0), (3.0, 2.0), (5.2, 0.1), (5.4, 0.1), (9.0, 1.0), (12.0, 1.0),
              (15.0, 1.0), (17.0, 3.0)], r0
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert names == {0: "rank 0", 1: "rank 1", 2: "rank 2"}, names
x = [e for e in ev if e["ph"] == "X" and e["name"] == "MPI_Isend"][0]
assert x["args"]["peer"] == 1 and x["args"]["tag"] == 5 and x["args"]["bytes"] == 8, x
assert any(e["ph"] == "C" for e in ev)
print("ok")
PY
check "chrome: the four flows bind send start to completion end; compute gaps exact" \
    "grep -qx ok '$tmp/py' || { cat '$tmp/py'; false; }"

"$phasor" export --format csv golden >"$tmp/e.csv" 2>/dev/null
check "csv export exits 0" "[ $? -eq 0 ]"
cut -d, -f1-13 "$tmp/e.csv" | sort >"$tmp/e13"
cut -d, -f1-13 golden.csv | sort >"$tmp/g13"
check "csv: rows equal the golden dump's events (rank..rc)" "cmp -s '$tmp/e13' '$tmp/g13'"

expect_exit "missing log: exit 1" 1 nosuch "$phasor" export --format csv nosuch
expect_exit "damaged frame: exit 1" 1 frame-crc.plog "$phasor" export --format csv corrupt/frame-crc.plog
expect_exit "damaged zstd: exit 1" 1 zstd-damage.plog "$phasor" export --format chrome corrupt/zstd-damage.plog
# A failed export leaves no partial output, and a file already at -o as it was; a good one
# replaces it whole.
echo old >"$tmp/keep.json"
"$phasor" export --format chrome -o "$tmp/keep.json" corrupt/zstd-damage.plog 2>/dev/null
check "failed export (damage found mid-way): exit 1, the file at -o untouched, nothing left" \
    "[ $? -eq 1 ] && [ \"\$(cat '$tmp/keep.json')\" = old ] && [ \$(ls '$tmp' | grep -c part) -eq 0 ]"
"$phasor" export --format chrome -o "$tmp/keep.json" golden 2>/dev/null
check "good export: replaces the file at -o whole" \
    "[ $? -eq 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$tmp/keep.json'"
echo old >"$tmp/keep.json"
"$phasor" export --format chrome -o "$tmp/keep.json" -m /dev/full golden 2>/dev/null
check "the messages output fails (/dev/full): exit 1, the trace at -o not replaced either" \
    "[ $? -eq 1 ] && [ \"\$(cat '$tmp/keep.json')\" = old ] && [ \$(ls '$tmp' | grep -c part) -eq 0 ]"
"$phasor" export --format csv -o /dev/null golden 2>/dev/null
check "export to a device: written directly, the device kept" "[ $? -eq 0 ] && [ -c /dev/null ]"
expect_exit "unknown format: exit 2" 2 nosuch "$phasor" export --format nosuch golden
expect_exit "no format: exit 2" 2 format "$phasor" export golden
# OTF2: with libotf2, otf2-print must read the archive and see the three messages with their
# real sources; without it, a clear exit 2.
"$phasor" export --format otf2 -o "$tmp/otf2" golden >/dev/null 2>"$tmp/oerr"
orc=$?
if grep -q "built without OTF2" "$tmp/oerr"; then
    check "otf2 not built: exit 2 saying so" "[ $orc -eq 2 ]"
    skip "otf2: otf2-print reads the archive, the messages in it" "phasor built without OTF2"
elif ! command -v otf2-print >/dev/null; then
    bad "otf2-print missing (install otf2-tools) to check the OTF2 archive"
else
    otf2-print "$tmp/otf2/traces.otf2" >"$tmp/otf2.txt" 2>"$tmp/otf2.err"
    prc=$?
    check "otf2: exit 0, otf2-print reads the archive without complaint" \
        "[ $orc -eq 0 ] && [ $prc -eq 0 ] && ! [ -s '$tmp/otf2.err' ]"
    check "otf2: Isend 0->1 tag 5 and its Recv, any-source Irecv from 2 tag 7, Recv on comm 3" \
        "grep -q 'MPI_ISEND .*Receiver: 1 .*Tag: 5, Length: 8, Request: 1' '$tmp/otf2.txt' &&
         grep -q 'MPI_RECV .*Sender: 0 .*Tag: 5, Length: 8' '$tmp/otf2.txt' &&
         grep -q 'MPI_IRECV .*Sender: 2 .*Tag: 7, Length: 16, Request: 2' '$tmp/otf2.txt' &&
         grep -q 'MPI_RECV .*Sender: 0 .*\"comm 3\".*Tag: 3' '$tmp/otf2.txt' &&
         [ \$(grep -c '^ENTER' '$tmp/otf2.txt') -eq \$(grep -c '^LEAVE' '$tmp/otf2.txt') ] &&
         [ \$(grep -c '^ENTER' '$tmp/otf2.txt') -eq \$(tail -n +2 golden.csv | wc -l) ]"
    expect_exit "otf2 into an existing archive: exit 1" 1 "$tmp/otf2" \
        "$phasor" export --format otf2 -o "$tmp/otf2" golden
    "$phasor" export --format otf2 -o "$tmp/otf2bad" corrupt/zstd-damage.plog 2>/dev/null
    check "otf2 of a log damaged mid-way: exit 1, no partial archive (nor its new directory)" \
        "[ $? -eq 1 ] && ! [ -e '$tmp/otf2bad' ]"
    mkdir "$tmp/otf2old" && echo mine >"$tmp/otf2old/notes"
    "$phasor" export --format otf2 -o "$tmp/otf2old" corrupt/zstd-damage.plog 2>/dev/null
    check "otf2 failing into an existing directory: its other files stay, no archive is left" \
        "[ $? -eq 1 ] && [ \"\$(ls '$tmp/otf2old')\" = notes ]"
fi
expect_exit "otf2 without -o: exit 2" 2 "-o DIR" "$phasor" export --format otf2 golden
expect_exit "unwritable output: exit 1" 1 /nonexistent/x "$phasor" export --format csv -o /nonexistent/x golden

cli_done
