#!/usr/bin/env bash
# phases_throughput.sh: time and peak RSS of `phasor phases` on one core, over a synthetic
# log of RANKS ranks x ITERS iterations written by bench/mklog --iters (Pcontrol at every
# iteration, Irecv/Isend to both chain neighbours, Waitall; one delay travelling along the
# chain). Prints events read per second (every pass counted), grid points per second and
# the peak RSS per rank-iteration; with OUT=1 the CSV files are written too (their size is
# printed). A measurement, not a test. Usage: bench/phases_throughput.sh [ITERS (10000)]
# [RANKS (1024)]; BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/synthlog.sh"
iters=${1:-10000}
ranks=${2:-1024}
synth_log "$ranks ranks x $iters iterations" --iters "$log" "$ranks" "$iters"
events=$(cat "$tmp/mklog.out" 2>/dev/null || echo 0)
outopt=()
[ "${OUT:-0}" = 1 ] && outopt=(-o "$tmp/out")
for run in 1 2; do
  timed "$tmp/err" "$bdir/phasor" phases "$log" --json "${outopt[@]}" >"$tmp/sum.json"
  points=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grid"]["points"])' "$tmp/sum.json")
  # passes over the log: boundaries, then compute times and the topology together
  awk -v e="$events" -v w="$wall" -v r="$rss" -v k="$run" -v p="$points" -v n="$ranks" -v i="$iters" 'BEGIN {
    printf "run %d: %.2f s; %.2f M events/s over 2 passes; %d grid points = %.0f points/s; " \
           "peak RSS %.1f MiB = %.1f bytes per rank-iteration\n",
           k, w, (e > 0 ? 2 * e / w / 1e6 : 0), p, p / w, r / 1024, r * 1024 / (n * i) }'
  [ "${OUT:-0}" = 1 ] && echo "  files: $(du -sh "$tmp/out" | cut -f1)"
done
