#!/bin/sh
# cli_polls.sh: runs of unsuccessful polls (log format 11, PLOG_F_POLLS) through the phasor
# command, on polls_mklog's two logs of the same calls: "runs" writes consecutive polls that
# found nothing as one event, "each" one event per poll (PHASOR_POLLS=each). dump shows a
# run's count and time inside (text, CSV, JSON) and its CSV's ncalls sum to the calls; report,
# replay, phases and the SimGrid export agree between the two logs but for the events they
# count; Chrome and OTF2 carry the count on the run's slice; a run that claims one poll is
# refused with the file named.
# Usage: cli_polls.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $POLLS_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${POLLS_MKLOG:-./tests/unit/polls_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_polls.sh: need an executable phasor ($phasor), polls_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

for m in runs each bad; do
    mkdir "$tmp/$m"
    "$mklog" "$tmp/$m" $m || bad "polls_mklog $m"
done
# py SCRIPT ARGS...: the python script exits 0
py() { python3 -c "$@" 2>>"$tmp/py.err"; }

# ---- dump ----
expect_exit "dump (runs)" 0 "$phasor" dump "$tmp/runs"
cp "$tmp/out" "$tmp/runs.txt"
check "a run of 4 Tests shows its count and time inside" \
    "grep -q 'MPI_Test req=[0-9]* site=11 ncalls=4 inside_ns=400 flags=polls\$' '$tmp/runs.txt'"
check "a run of 3 Iprobes shows its count and time inside" \
    "grep -q 'MPI_Iprobe comm=1 peer=-2 tag=-2 site=12 ncalls=3 inside_ns=150 flags=polls\$' '$tmp/runs.txt'"
check "an event of one call shows neither" "! grep -q 'MPI_Allreduce.*ncalls' '$tmp/runs.txt'"
expect_exit "dump (each)" 0 "$phasor" dump "$tmp/each"
check "one event per poll: no run" "! grep -q 'polls' '$tmp/out'"

expect_exit "dump --csv (runs)" 0 "$phasor" dump "$tmp/runs" --csv
cp "$tmp/out" "$tmp/runs.csv"
expect_exit "dump --csv (each)" 0 "$phasor" dump "$tmp/each" --csv
cp "$tmp/out" "$tmp/each.csv"
check "the CSV ends with ncalls,inside_ns" "head -1 '$tmp/runs.csv' | grep -q ',commutative,ncalls,inside_ns\$'"
# the calls and their time inside, per function, from both CSVs
cat >"$tmp/csv.py" <<'EOF'
import csv, sys
def calls(path):
    c = {}
    for row in csv.DictReader(open(path)):
        n, t = c.get(row["call"], (0, 0))
        c[row["call"]] = (n + int(row["ncalls"]), t + int(row["inside_ns"]))
    return c
a, b = calls(sys.argv[1]), calls(sys.argv[2])
sys.exit(0 if a == b and a["MPI_Test"][0] > 40 else 1)
EOF
check "summing ncalls and inside_ns gives the calls of the log written one by one" \
    "py \"\$(cat '$tmp/csv.py')\" '$tmp/runs.csv' '$tmp/each.csv'"
check "fewer events with runs" "[ \$(wc -l <'$tmp/runs.csv') -lt \$(wc -l <'$tmp/each.csv') ]"

expect_exit "dump --json (runs)" 0 "$phasor" dump "$tmp/runs" --json
check "JSON: ncalls and inside_ns exactly on the events with the polls flag" \
    "py 'import json,sys
d=json.load(open(sys.argv[1]))
r=[e for e in d[\"events\"] if \"polls\" in e[\"flags\"]]
o=[e for e in d[\"events\"] if \"polls\" not in e[\"flags\"]]
sys.exit(0 if r and all(e[\"ncalls\"]>=2 and e[\"inside_ns\"]<=e[\"end_ns\"]-e[\"start_ns\"] for e in r) and not any(\"ncalls\" in e for e in o) else 1)' '$tmp/out'"

# ---- report: the same calls and times from both logs ----
expect_exit "report --json (runs)" 0 "$phasor" report "$tmp/runs" --json
cp "$tmp/out" "$tmp/runs.rep.json"
expect_exit "report --json (each)" 0 "$phasor" report "$tmp/each" --json
cp "$tmp/out" "$tmp/each.rep.json"
cat >"$tmp/same.py" <<'EOF'
import json, sys
drop = set(sys.argv[3].split(","))
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in drop}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for k in a:
        if a.get(k) != b.get(k):
            print("differs:", k, file=sys.stderr)
sys.exit(0 if a == b else 1)
EOF
check "report: the same document but for the events counted" \
    "py \"\$(cat '$tmp/same.py')\" '$tmp/runs.rep.json' '$tmp/each.rep.json' events,path"
check "report counts every Test" \
    "py 'import json,sys
d=json.load(open(sys.argv[1]))
f=[x for x in d[\"functions\"] if x[\"function\"] == \"MPI_Test\"]
sys.exit(0 if f and f[0][\"calls\"] == 20 + sum(i % 5 for i in range(20)) else 1)' '$tmp/runs.rep.json'"
expect_exit "report (runs)" 0 "$phasor" report "$tmp/runs"
sed -E '1d; s/[0-9]+ events/N events/; s/^( +[0-9*]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +)[0-9]+/\1N/' "$tmp/out" >"$tmp/runs.rep.txt"
expect_exit "report (each)" 0 "$phasor" report "$tmp/each"
sed -E '1d; s/[0-9]+ events/N events/; s/^( +[0-9*]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +)[0-9]+/\1N/' "$tmp/out" >"$tmp/each.rep.txt"
check "report text: the same but for the events counted" "cmp -s '$tmp/runs.rep.txt' '$tmp/each.rep.txt'"

# ---- replay: the same prediction, on a Hockney model written here (1 us + 4 GB/s) ----
cat >"$tmp/model.json" <<'EOF'
{"format": "phasor-model", "version": 9, "probe": {"mode": "full", "ranks": 2},
 "samples": [[0, 1, 0, 10, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
             [0, 1, 4096, 10, 2024, 2024, 2024, 2024, 2024, 2024, 2024, 2024],
             [1, 0, 0, 10, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
             [1, 0, 4096, 10, 2024, 2024, 2024, 2024, 2024, 2024, 2024, 2024]],
 "models": {"hockney": {"sources": [
     {"src": 0, "segments": [{"hi": null, "a_ns": 1000.0, "b_ns_per_byte": 0.25}]},
     {"src": 1, "segments": [{"hi": null, "a_ns": 1000.0, "b_ns_per_byte": 0.25}]}],
   "all": {"segments": [{"hi": null, "a_ns": 1000.0, "b_ns_per_byte": 0.25}]}}}}
EOF
rp="--model $tmp/model.json --kind hockney --eager 65480 --gamma 0.1"
expect_exit "replay --json (runs)" 0 "$phasor" replay "$tmp/runs" $rp --json
cp "$tmp/out" "$tmp/runs.rp.json"
expect_exit "replay --json (each)" 0 "$phasor" replay "$tmp/each" $rp --json
cp "$tmp/out" "$tmp/each.rp.json"
check "replay: the same document but for the events counted" \
    "py \"\$(cat '$tmp/same.py')\" '$tmp/runs.rp.json' '$tmp/each.rp.json' events,first_event,last_event,path"
expect_exit "replay what-ifs --json (runs)" 0 "$phasor" replay "$tmp/runs" $rp --slow-rank 0:2 --json
cp "$tmp/out" "$tmp/runs.rp.json"
expect_exit "replay what-ifs --json (each)" 0 "$phasor" replay "$tmp/each" $rp --slow-rank 0:2 --json
cp "$tmp/out" "$tmp/each.rp.json"
check "replay with rank 0 twice as slow: the same but for the events counted" \
    "py \"\$(cat '$tmp/same.py')\" '$tmp/runs.rp.json' '$tmp/each.rp.json' events,first_event,last_event,path"

# ---- phases: the same compute per iteration ----
expect_exit "phases --json --compute-only (runs)" 0 "$phasor" phases "$tmp/runs" --marker pcontrol:1 --compute-only --json
cp "$tmp/out" "$tmp/runs.ph.json"
expect_exit "phases --json --compute-only (each)" 0 "$phasor" phases "$tmp/each" --marker pcontrol:1 --compute-only --json
cp "$tmp/out" "$tmp/each.ph.json"
check "phases: the same document" "py \"\$(cat '$tmp/same.py')\" '$tmp/runs.ph.json' '$tmp/each.ph.json' log,path"

# ---- exports ----
expect_exit "export simgrid (runs)" 0 "$phasor" export --format simgrid -o "$tmp/sg.runs" "$tmp/runs"
expect_exit "export simgrid (each)" 0 "$phasor" export --format simgrid -o "$tmp/sg.each" "$tmp/each"
check "SimGrid: the same traces (a test per poll, the compute between them)" \
    "cmp -s '$tmp/sg.runs/rank-000000.txt' '$tmp/sg.each/rank-000000.txt' && cmp -s '$tmp/sg.runs/rank-000001.txt' '$tmp/sg.each/rank-000001.txt'"
check "SimGrid: a test per unsuccessful poll (4 x (0+1+2+3+4))" \
    "[ \$(grep -c ' test ' '$tmp/sg.runs/rank-000000.txt') -eq 40 ]"
expect_exit "export chrome (runs)" 0 "$phasor" export --format chrome "$tmp/runs"
check "Chrome: a run's slice spans its polls, with ncalls and inside_ns" \
    "py 'import json,sys
d=json.load(open(sys.argv[1]))
r=[e for e in d[\"traceEvents\"] if e.get(\"ph\")==\"X\" and \"ncalls\" in e.get(\"args\",{})]
sys.exit(0 if r and any(e[\"name\"]==\"MPI_Test\" and e[\"args\"][\"ncalls\"]==4 and e[\"args\"][\"inside_ns\"]==400 and abs(e[\"dur\"]-1.3)<1e-9 for e in r) else 1)' '$tmp/out'"
"$phasor" export --format otf2 -o "$tmp/otf2" "$tmp/runs" >/dev/null 2>"$tmp/err"
st=$?
if [ $st -eq 2 ] && grep -q 'without OTF2' "$tmp/err"; then
    skip "OTF2: a run's region carries ncalls and inside_ns" "phasor built without libotf2"
elif ! command -v otf2-print >/dev/null 2>&1; then
    skip "OTF2: a run's region carries ncalls and inside_ns" "no otf2-print"
else
    check "OTF2: a run's region carries ncalls and inside_ns" \
        "[ $st -eq 0 ] && otf2-print '$tmp/otf2/traces.otf2' | grep -q '(\"ncalls\" <0>; UINT64; 4), (\"inside_ns\" <1>; UINT64; 400)'"
    "$phasor" export --format otf2 -o "$tmp/otf2.each" "$tmp/each" >/dev/null 2>&1
    check "OTF2: no attributes without runs" "! otf2-print -G '$tmp/otf2.each/traces.otf2' | grep -q '^ATTRIBUTE'"
fi

# ---- damage ----
for c in "dump" "report" "replay $rp" "phases" "export --format csv"; do
    expect_exit "$c: a run of one poll is refused" 1 "$phasor" $c "$tmp/bad"
    check "$c: the message names the file and the count" \
        "grep -q 'rank-000000.plog.*a run of 1 polls' '$tmp/err'"
done

cli_done
