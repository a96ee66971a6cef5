#!/usr/bin/env bash
# steps_throughput.sh: transfers per second and peak RSS of `phasor steps --csv` on one core,
# over a synthetic log of RANKS ranks x COLLS collectives per rank written by bench/mklog
# --colls (Open MPI 4.1 rules: Allreduce 8 B and 64 KiB, Bcast 4 KiB, Reduce 8 B, Allgather
# 8 B, Barrier on MPI_COMM_WORLD). Target: >= 5 M steps (transfer rows) per second.
# A measurement, not a test. Usage: bench/steps_throughput.sh [COLLS (10000)] [RANKS (1024)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/synthlog.sh"
colls=${1:-10000}
ranks=${2:-1024}
synth_log "$ranks ranks x $colls collectives" --colls "$log" "$ranks" "$colls"
for run in 1 2 3; do
  timed "$tmp/err" "$bdir/phasor" steps --csv "$log" >/dev/null
  rows=$(sed -n 's/.*(\([0-9]*\) transfers).*/\1/p' "$tmp/err")
  calls=$(sed -n 's/^phasor steps: \([0-9]*\) collective calls.*/\1/p' "$tmp/err")
  awk -v n="$rows" -v c="$calls" -v w="$wall" -v r="$rss" -v k="$run" 'BEGIN {
    printf "run %d: %d transfers of %d collective calls in %.2f s = %.2f M steps/s " \
           "(%.2f M calls/s), peak RSS %.1f MiB\n", k, n, c, w, n / w / 1e6, c / w / 1e6, r / 1024 }'
done
