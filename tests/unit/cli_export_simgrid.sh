#!/bin/sh
# cli_export_simgrid.sh: `phasor export --format simgrid` on the committed golden log
# (tests/unit/plog_mkgolden.c), without SimGrid: a trace per rank and the list of them, every
# action line in SimGrid 3.32's grammar, the bytes each rank sends equal to what the dump
# says it sent, compute equal to the gaps, the platform's hosts and the hostfile; bad
# options exit 2 naming what was wrong.
# Usage: cli_export_simgrid.sh [PHASOR [DATA_DIR]]. Last line: "N passed, M failed".
phasor=${1:-${PHASOR:-./phasor}}
data=${2:-${PHASOR_TESTDATA:-${srcdir:-.}/tests/data}}
case $phasor in /*) ;; *) phasor=$(pwd)/$phasor ;; esac
if [ ! -x "$phasor" ] || [ ! -d "$data/golden" ]; then
    echo "cli_export_simgrid.sh: need an executable phasor ($phasor) and tests/data ($data)" >&2
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

out=$tmp/sg
"$phasor" export --format simgrid -o "$out" golden 2>"$tmp/serr"
check "simgrid export exits 0" "[ $? -eq 0 ]"
n=$("$phasor" dump --csv golden 2>/dev/null | awk -F, 'NR > 1 { r[$1] = 1 } END { print length(r) }')
check "one trace per rank ($n)" "[ \$(ls $out/rank-*.txt | wc -l) -eq $n ]"
check "the list names each rank's file in rank order" \
    "[ \"\$(cat $out/traces.txt)\" = \"\$(cd $out && ls rank-*.txt)\" ]"
check "platform, hostfile and run.sh are there" \
    "[ -s $out/platform.xml ] && [ -s $out/hostfile ] && [ -x $out/run.sh ]"
check "each file says the export's version" "grep -q '^# phasor export simgrid version 1' $out/rank-000000.txt && grep -q 'phasor export simgrid version 1' $out/platform.xml"
check "the hostfile has rank i on rank i's host" "[ \"\$(cat $out/hostfile | tr '\n' ' ')\" = 'node0 node0 node1 ' ]"
check "the platform has the run's hosts, a core per rank" \
    "grep -q '<host id=\"node0\" speed=\"1Gf\" core=\"2\"/>' $out/platform.xml && grep -q '<host id=\"node1\" speed=\"1Gf\" core=\"1\"/>' $out/platform.xml"
check "no probe in the golden log is said" "grep -q 'no network model' $tmp/serr"
check "what SimGrid cannot express is counted" "grep -q 'warning: 2 collectives on a communicator' $tmp/serr"

# the grammar of SimGrid 3.32's replay (smpi_replay.cpp), with N = world size
cat >"$tmp/grammar.awk" <<'AWK'
function int_(s) { return s ~ /^[0-9]+$/ }
function ints(a, b,   i) { for (i = a; i <= b; i++) if (!int_($i)) return 0; return 1 }
/^#/ || NF == 0 { next }
$1 != rank { print FILENAME ": " FNR ": not rank " rank; bad++; next }
{
  a = $2; ok = 0
  if (a == "init" || a == "finalize" || a == "barrier" || a == "waitall" || a == "comm_split" || a == "comm_dup") ok = NF == 2
  else if (a == "compute") ok = NF == 3 && int_($3)
  else if (a ~ /^(send|isend|recv|irecv)$/) ok = NF == 5 && ints(3, 5)
  else if (a == "wait" || a == "test") ok = NF == 5 && ints(3, 5)
  else if (a == "bcast") ok = NF == 4 && ints(3, 4)
  else if (a == "reduce") ok = NF == 5 && ints(3, 5)
  else if (a ~ /^(allreduce|scan|exscan)$/) ok = NF == 4 && ints(3, 4)
  else if (a == "alltoall" || a == "allgather") ok = NF == 4 && ints(3, 4)
  else if (a == "gather" || a == "scatter") ok = NF == 5 && ints(3, 5)
  else if (a == "gatherv") ok = NF == 4 + N && ints(3, NF)
  else if (a == "allgatherv") ok = NF == 3 + N && ints(3, NF)
  else if (a == "scatterv") ok = NF == 4 + N && ints(3, NF)
  else if (a == "alltoallv") ok = NF == 4 + 2 * N && ints(3, NF)
  else if (a == "reducescatter") ok = NF == 3 + N && ints(3, NF)
  if (!ok) { print FILENAME ": " FNR ": " $0; bad++ }
}
END { exit bad > 0 }
AWK
okg=1
for f in "$out"/rank-*.txt; do
    r=$(basename "$f" .txt | sed 's/rank-0*//; s/^$/0/')
    awk -v rank="$r" -v N="$n" -f "$tmp/grammar.awk" "$f" >>"$tmp/gbad" || okg=0
done
check "every action line parses" "[ $okg -eq 1 ]"
[ $okg -eq 1 ] || sed 's/^/     /' "$tmp/gbad" | head -5

# bytes each rank sends: the dump's Send/Isend/Sendrecv bytes and its persistent sends'
# bytes once per Start (the golden log's one Send_init is started twice)
"$phasor" dump --csv golden 2>/dev/null >"$tmp/d.csv"
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["class"] ~ /^(send|isend|sendrecv)$/ && $c["peer"] >= 0 { b[$1] += $c["bytes"] }
    $c["class"] == "psend_init" { ps[$1] = $c["bytes"] }
    $c["class"] == "start" && $1 in ps { b[$1] += ps[$1] }
    END { for (r in b) print r, b[r] }' "$tmp/d.csv" | sort)
got=$(for f in "$out"/rank-*.txt; do awk '$2 ~ /^i?send$/ { b[$1] += $5 } END { for (r in b) print r, b[r] }' "$f"; done | sort)
want=$(echo $want) got=$(echo $got)
check "bytes sent per rank match the dump ($want)" "[ '$want' = '$got' ]"
check "golden: 12, 12 and 16 bytes sent by ranks 0, 1, 2" "[ '$got' = '0 12 1 12 2 16' ]"
# receives: each message a rank receives with its real source (the any-source Irecv's was 2)
check "the any-source Irecv names its sender and tag from the status" "grep -q '^0 irecv 2 7 16$' $out/rank-000000.txt"
check "the Mrecv is a recv from the Mprobe's status" "grep -q '^2 recv 0 3 4$' $out/rank-000002.txt"
check "persistent requests are an isend per Start, waited" "[ \$(grep -c '^1 isend 2 9 4$' $out/rank-000001.txt) -eq 2 ] && [ \$(grep -c '^1 wait 1 2 9$' $out/rank-000001.txt) -eq 2 ]"
check "Sendrecv keeps its tags: isend, recv, wait" "grep -A2 '^1 isend 2 11 4$' $out/rank-000001.txt | tr '\n' ' ' | grep -q '1 recv 2 11 4 1 wait 1 2 11'"

# compute: a rank's compute plus its written calls' durations is its span from MPI_Init's
# return to the end of its last written call (calls without an action stay in the gaps)
for r in 0 1; do
    comp=$(awk '$2 == "compute" { s += $3 } END { print s + 0 }' "$out/rank-00000$r.txt")
    # rank 0: the Comm_split, the second thread's Iprobe and the Bcast on comm 3 are in gaps;
    # the Send of its second thread (11000-11500) lies inside the Bcast (10000-12000)
    want=$(awk -F, -v r=$r 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 != r { next }
        $c["call"] ~ /^MPI_Init/ { t0 = $c["end_ns"]; next }
        $c["class"] ~ /^(comm|probe|psend_init|precv_init|reqfree)$/ || $c["comm"] == 3 && $c["class"] == "coll" { next }
        $c["call"] == "MPI_Finalize" { last = $c["start_ns"]; next }
        { if ($c["start_ns"] > e) s = $c["start_ns"]; else s = e; if ($c["end_ns"] > e) { busy += $c["end_ns"] - s; e = $c["end_ns"] } }
        END { print last - t0 - busy }' "$tmp/d.csv")
    check "rank $r: compute sums to its gaps ($comp = $want ns)" "[ '$comp' = '$want' ]"
done

# usage errors name what was wrong
expect_exit "simgrid without -o exits 2" 2 "needs -o DIR" "$phasor" export --format simgrid golden
expect_exit "simgrid with -m exits 2" 2 "takes no -m" "$phasor" export --format simgrid -o "$tmp/x" -m "$tmp/m.csv" golden
expect_exit "an unknown format lists simgrid" 2 "simgrid" "$phasor" export --format simgird -o "$tmp/x" golden
expect_exit "no log directory exits 2" 2 "export" "$phasor" export --format simgrid -o "$tmp/x"
expect_exit "a missing log exits 1 naming it" 1 "nosuchlog" "$phasor" export --format simgrid -o "$tmp/y" nosuchlog
: >"$tmp/afile"
expect_exit "an output that is a file exits 1 naming it" 1 "afile" "$phasor" export --format simgrid -o "$tmp/afile" golden
cli_done
