#!/usr/bin/env bash
# report_throughput.sh: events per second and peak RSS of `phasor report` on one core, over a
# synthetic log of >= 10^8 events written by bench/mklog (stencil-like mix: Irecv/Isend x2,
# Waitall with 4 statuses, Allreduce every 4th iteration). Target: >= 20 M events/s.
# A measurement, not a test. Usage: bench/report_throughput.sh [EVENTS (1e8)] [RANKS (16)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
# OMPI=1: the log as Open MPI 4.1 writes it (mklog --ompi), so that report also rebuilds the
# Allreduce schedules for its collective-internal matrix, as on a real run.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bdir=${BUILD_DIR:-$top/build/openmpi}
events=${1:-100000000}
ranks=${2:-16}
if [ ! -f "$bdir/Makefile" ]; then
  echo "report_throughput.sh: $bdir is not a configured build tree (set BUILD_DIR)" >&2
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
  "$bdir/bench/mklog" ${OMPI:+--ompi} "$log" "$ranks" $(( (events + ranks - 1) / ranks )) >/dev/null
  echo "wrote $(du -sh "$log" | cut -f1) of logs in $(echo "$(date +%s.%N) - $start" | bc) s"
fi
n=$("$bdir/phasor" report --json "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
for run in 1 2 3; do
  /usr/bin/time -v taskset -c 0 "$bdir/phasor" report -o "$log.out" "$log" >/dev/null 2>"$log.time" || {
    cat "$log.time" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$log.time")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log.time")
  awk -v n="$n" -v w="$wall" -v r="$rss" -v k="$run" 'BEGIN {
    printf "run %d: %d events in %.2f s = %.2f M events/s, peak RSS %.1f MiB\n",
           k, n, w, n / w / 1e6, r / 1024 }'
done
rm -rf "$log.out" "$log.time"
