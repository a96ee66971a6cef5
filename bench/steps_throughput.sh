#!/usr/bin/env bash
# steps_throughput.sh: transfers per second and peak RSS of `phasor steps --csv` on one core,
# over a synthetic log of RANKS ranks x COLLS collectives per rank written by bench/mklog
# --colls (Open MPI 4.1 rules: Allreduce 8 B and 64 KiB, Bcast 4 KiB, Reduce 8 B, Allgather
# 8 B, Barrier on MPI_COMM_WORLD). Target: >= 5 M steps (transfer rows) per second.
# A measurement, not a test. Usage: bench/steps_throughput.sh [COLLS (10000)] [RANKS (1024)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bdir=${BUILD_DIR:-$top/build/openmpi}
colls=${1:-10000}
ranks=${2:-1024}
if [ ! -f "$bdir/Makefile" ]; then
  echo "steps_throughput.sh: $bdir is not a configured build tree (set BUILD_DIR)" >&2
  exit 2
fi
make -C "$bdir" -s phasor bench/mklog >/dev/null
if [ -n "${LOGDIR:-}" ]; then
  log=$LOGDIR
  mkdir -p "$log"
else
  log=$(mktemp -d)
  trap 'rm -rf "$log"' EXIT
fi
if [ ! -f "$log/rank-000000.plog" ]; then
  start=$(date +%s.%N)
  "$bdir/bench/mklog" --colls "$log" "$ranks" "$colls" >/dev/null
  echo "wrote $(du -sh "$log" | cut -f1) of logs ($ranks ranks x $colls collectives) in" \
       "$(echo "$(date +%s.%N) - $start" | bc) s"
fi
for run in 1 2 3; do
  /usr/bin/time -v taskset -c 0 "$bdir/phasor" steps --csv "$log" >/dev/null 2>"$log.err" || {
    cat "$log.err" >&2; exit 1; }
  rows=$(sed -n 's/.*(\([0-9]*\) transfers).*/\1/p' "$log.err")
  calls=$(sed -n 's/^phasor steps: \([0-9]*\) collective calls.*/\1/p' "$log.err")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$log.err")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log.err")
  awk -v n="$rows" -v c="$calls" -v w="$wall" -v r="$rss" -v k="$run" 'BEGIN {
    printf "run %d: %d transfers of %d collective calls in %.2f s = %.2f M steps/s " \
           "(%.2f M calls/s), peak RSS %.1f MiB\n", k, n, c, w, n / w / 1e6, c / w / 1e6, r / 1024 }'
done
rm -f "$log.err"
