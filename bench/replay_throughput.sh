#!/usr/bin/env bash
# replay_throughput.sh: calls per second and peak RSS of `phasor replay` on one core, over a
# synthetic log of >= 10^8 events written by bench/mklog --ompi (stencil-like mix as Open MPI
# 4.1 logs it: Irecv/Isend to both ring neighbours, Waitall with 4 statuses, an Allreduce
# every 4th iteration, its steps rebuilt and replayed), on the lookup model of a synthetic
# quick probe (tests/unit/probe_mklog, saved by phasor predict --save-model). Target: >= 5 M
# calls/s, and memory bounded by the messages and requests open, not by the log: the peak
# RSS is printed for the log and for a log of a tenth of its events.
# A measurement, not a test. Usage: bench/replay_throughput.sh [EVENTS (1e8)] [RANKS (16)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/synthlog.sh"
events=${1:-100000000}
ranks=${2:-16}
make -C "$bdir" -s tests/unit/probe_mklog >/dev/null
mkdir -p "$tmp/probe"
"$bdir/tests/unit/probe_mklog" "$tmp/probe"
"$bdir/phasor" predict "$tmp/probe" --save-model "$tmp/model.json" >/dev/null 2>&1
synth_log "$ranks ranks" --ompi "$log" "$ranks" $(( (events + ranks - 1) / ranks ))
mkdir -p "$tmp/small"
"$bdir/bench/mklog" --ompi "$tmp/small" "$ranks" $(( (events / 10 + ranks - 1) / ranks )) >/dev/null
for what in small full; do
  dir=$log; [ $what = small ] && dir=$tmp/small
  for run in 1 2 3; do
    [ $what = small ] && [ $run -gt 1 ] && break
    timed "$tmp/time" "$bdir/phasor" replay "$dir" --model "$tmp/model.json" --json >"$tmp/out.json"
    n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["counts"]; print(c["events"], c["peak_messages"], c["peak_requests"], c["peak_path_nodes"])' "$tmp/out.json")
    set -- $n
    awk -v n="$1" -v w="$wall" -v r="$rss" -v k="$run" -v what="$what" -v pm="$2" -v pq="$3" -v pn="$4" 'BEGIN {
      printf "%s log, run %d: %d calls in %.2f s = %.2f M calls/s, peak RSS %.1f MiB " \
             "(open at most: %d messages, %d requests, %d path nodes)\n",
             what, k, n, w, n / w / 1e6, r / 1024, pm, pq, pn }'
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
