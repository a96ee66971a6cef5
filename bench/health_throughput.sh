#!/usr/bin/env bash
# health_throughput.sh: events per second and peak RSS of `phasor health` (the passive
# samples: every message matched sender to receiver, every collective rebuilt and priced) on
# one core, over a synthetic log of >= 10^8 events written by bench/mklog --ompi (stencil-like
# mix: Irecv/Isend x2, Waitall with 4 statuses, an Allreduce every 4th iteration).
# Target (issue 29): >= 10 M events/s. A measurement, not a test.
# Usage: bench/health_throughput.sh [EVENTS (1e8)] [RANKS (16)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/synthlog.sh"
events=${1:-100000000}
ranks=${2:-16}
synth_log "$ranks ranks" --ompi "$log" "$ranks" $(( (events + ranks - 1) / ranks ))
n=$("$bdir/phasor" health --json "$log" 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["counts"]["events"], d["counts"]["matched"], d["counts"]["reliable"])')
read -r nev nmatched nkept <<<"$n"
echo "$nev events, $nmatched messages matched, $nkept kept as samples"
for run in 1 2 3; do
  timed "$tmp/time" "$bdir/phasor" health --json "$log" >/dev/null
  awk -v n="$nev" -v w="$wall" -v r="$rss" -v k="$run" 'BEGIN {
    printf "run %d: %d events in %.2f s = %.2f M events/s, peak RSS %.1f MiB\n",
           k, n, w, n / w / 1e6, r / 1024 }'
done
