#!/usr/bin/env bash
# polls.sh: what the shim adds to polling loops, side by side with and without it
# (bench/polls.c), interleaved runs, medians.
#  1. ns added per MPI_Iprobe that finds nothing: N calls per rank on 1 rank and on 2, plain /
#     phasor without call sites / phasor at the default depth (target <= 10 ns added).
#  2. log bytes per run of polls: 0-byte round trips whose receiver polls with MPI_Iprobe
#     until the message is there (pong) against the same with a blocking MPI_Recv (block):
#     (bytes of pong's log - block's) / runs of polls, an upper bound (it also holds the
#     successful Iprobe that ends each run; target <= 64), and the counts exact: the
#     MPI_Iprobe calls `phasor report` counts against those the program made.
#  3. the same with PHASOR_POLLS=each (one event per poll), for comparison.
# Usage: bench/polls.sh [RUNS (default 7)] [N (default 10000000)] [K round trips (default 100000)]
# Environment: BUILD_DIR (default build/openmpi), PHASOR_BENCH_MPI (openmpi|mpich).
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${1:-7}
n=${2:-10000000}
k=${3:-100000}
make -C "$bdir" -s bench/polls >/dev/null
prog=$bdir/bench/polls
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "polls.sh: $*" >&2; exit 1; }

echo "MPI: $mpi, $runs runs each, medians; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. Iprobe loop
for np in 1 2; do
  off=(); zero=(); dflt=()
  for i in $(seq "$runs"); do
    off+=("$(run_mpi "$np" 0 - "$prog" iprobe "$n")")
    zero+=("$(PHASOR_CALLSITE_DEPTH=0 run_mpi "$np" 1 "$tmp/z$np.$i" "$prog" iprobe "$n")")
    dflt+=("$(run_mpi "$np" 1 "$tmp/d$np.$i" "$prog" iprobe "$n")")
  done
  m_off=$(printf '%s\n' "${off[@]}" | median)
  m_zero=$(printf '%s\n' "${zero[@]}" | median)
  m_dflt=$(printf '%s\n' "${dflt[@]}" | median)
  calls=$("$phasor" report --json "$tmp/z$np.1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sum(f["calls"] for f in r["functions"] if f["function"] == "MPI_Iprobe"))')
  bytes=$(du -sb "$tmp/z$np.1" | cut -f1)
  echo "Iprobe finding nothing, $np rank(s), $n calls each: without shim $m_off ns/call," \
    "with shim $m_zero (call sites off), $m_dflt (default depth)"
  awk -v a="$m_off" -v b="$m_zero" -v c="$m_dflt" 'BEGIN {
    printf "  added per call: %.1f ns call sites off, %.1f ns default depth (target <= 10)\n", b - a, c - a }'
  echo "  Iprobe calls counted by phasor report: $calls (made: $((np * (n + 1000))));" \
    "log $bytes bytes for the whole run"
  [ "$calls" -eq $((np * (n + 1000))) ] || fail "report counts $calls Iprobe calls, the program made $((np * (n + 1000)))"
  rm -rf "$tmp"/z$np.* "$tmp"/d$np.*
done

# 2, 3. bytes per run of polls, exact counts
for mode in runs each; do
  pb=(); bb=(); nr=()
  for i in $(seq "$runs"); do
    out=$(PHASOR_POLLS=$mode run_mpi 2 1 "$tmp/p$i" "$prog" pong "$k")
    PHASOR_POLLS=$mode run_mpi 2 1 "$tmp/b$i" "$prog" block "$k" >/dev/null
    polls=$(sed -n 's/.*polls=\([0-9]*\).*/\1/p' <<<"$out")
    recvs=$(sed -n 's/.*recvs=\([0-9]*\).*/\1/p' <<<"$out")
    read -r calls nruns < <("$phasor" dump --csv "$tmp/p$i" | python3 -c '
import csv, sys
rows = csv.DictReader(sys.stdin)
calls = runs = 0
for r in rows:
    if r["call"] != "MPI_Iprobe":
        continue
    calls += int(r["ncalls"])
    if "flag_true" not in r["flags"].split("|"):
        runs += 1
print(calls, runs)')
    [ "$calls" -eq $((polls + recvs)) ] || fail "PHASOR_POLLS=$mode: the log holds $calls Iprobe calls, the program made $((polls + recvs))"
    pb+=("$(du -sb "$tmp/p$i" | cut -f1)")
    bb+=("$(du -sb "$tmp/b$i" | cut -f1)")
    nr+=("$nruns")
    rm -rf "$tmp/p$i" "$tmp/b$i"
  done
  m_pb=$(printf '%s\n' "${pb[@]}" | median)
  m_bb=$(printf '%s\n' "${bb[@]}" | median)
  m_nr=$(printf '%s\n' "${nr[@]}" | median)
  what="runs of polls"; [ "$mode" = each ] && what="events of polls that found nothing"
  echo "PHASOR_POLLS=$mode, $k round trips polled for: log $m_pb bytes, $m_bb with blocking receives," \
    "$m_nr $what (medians); counts exact in every run"
  awk -v p="$m_pb" -v b="$m_bb" -v r="$m_nr" -v w="$what" 'BEGIN {
    printf "  bytes per %s (upper bound, with the Iprobe that ends each wait): %.1f%s\n", w, (p - b) / r,
      w == "runs of polls" ? " (target <= 64)" : "" }'
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
