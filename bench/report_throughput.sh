#!/usr/bin/env bash
# report_throughput.sh: events per second and peak RSS of `phasor report` on one core, over a
# synthetic log of >= 10^8 events written by bench/mklog (stencil-like mix: Irecv/Isend x2,
# Waitall with 4 statuses, Allreduce every 4th iteration). Target: >= 20 M events/s.
# A measurement, not a test. Usage: bench/report_throughput.sh [EVENTS (1e8)] [RANKS (16)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
# OMPI=1: the log as Open MPI 4.1 writes it (mklog --ompi), so that report also rebuilds the
# Allreduce schedules for its collective-internal matrix, as on a real run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/synthlog.sh"
events=${1:-100000000}
ranks=${2:-16}
synth_log "$ranks ranks" ${OMPI:+--ompi} "$log" "$ranks" $(( (events + ranks - 1) / ranks ))
n=$("$bdir/phasor" report --json "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
for run in 1 2 3; do
  timed "$tmp/time" "$bdir/phasor" report -o "$tmp/out" "$log" >/dev/null
  awk -v n="$n" -v w="$wall" -v r="$rss" -v k="$run" 'BEGIN {
    printf "run %d: %d events in %.2f s = %.2f M events/s, peak RSS %.1f MiB\n",
           k, n, w, n / w / 1e6, r / 1024 }'
done
