#!/usr/bin/env bash
# phases_throughput.sh: time and peak RSS of `phasor phases` on one core, over a synthetic
# log of RANKS ranks x ITERS iterations written by bench/mklog --iters (Pcontrol at every
# iteration, Irecv/Isend to both chain neighbours, Waitall; one delay travelling along the
# chain). Prints events read per second (every pass counted), grid points per second and
# the peak RSS per rank-iteration; with OUT=1 the CSV files are written too (their size is
# printed). A measurement, not a test. Usage: bench/phases_throughput.sh [ITERS (10000)]
# [RANKS (1024)]; BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bdir=${BUILD_DIR:-$top/build/openmpi}
iters=${1:-10000}
ranks=${2:-1024}
if [ ! -f "$bdir/Makefile" ]; then
  echo "phases_throughput.sh: $bdir is not a configured build tree (set BUILD_DIR)" >&2
  exit 2
fi
make -C "$bdir" -s phasor bench/mklog >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${LOGDIR:-}" ]; then
  log=$LOGDIR
  mkdir -p "$log"
else
  log=$tmp/log
  mkdir -p "$log"
fi
if [ ! -f "$log/rank-000000.plog" ]; then
  start=$(date +%s.%N)
  "$bdir/bench/mklog" --iters "$log" "$ranks" "$iters" >"$tmp/events"
  echo "wrote $(du -sh "$log" | cut -f1) of logs ($ranks ranks x $iters iterations) in" \
       "$(echo "$(date +%s.%N) - $start" | bc) s"
fi
events=$(cat "$tmp/events" 2>/dev/null || echo 0)
outopt=()
[ "${OUT:-0}" = 1 ] && outopt=(-o "$tmp/out")
for run in 1 2; do
  /usr/bin/time -v taskset -c 0 "$bdir/phasor" phases "$log" --json "${outopt[@]}" \
    >"$tmp/sum.json" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$tmp/err")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/err")
  points=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grid"]["points"])' "$tmp/sum.json")
  # passes over the log: boundaries, then compute times and the topology together
  awk -v e="$events" -v w="$wall" -v r="$rss" -v k="$run" -v p="$points" -v n="$ranks" -v i="$iters" 'BEGIN {
    printf "run %d: %.2f s; %.2f M events/s over 2 passes; %d grid points = %.0f points/s; " \
           "peak RSS %.1f MiB = %.1f bytes per rank-iteration\n",
           k, w, (e > 0 ? 2 * e / w / 1e6 : 0), p, p / w, r / 1024, r * 1024 / (n * i) }'
  [ "${OUT:-0}" = 1 ] && echo "  files: $(du -sh "$tmp/out" | cut -f1)"
done
