#!/usr/bin/env bash
# merge_throughput.sh: events per second of the reader's merged iteration (every rank by
# aligned start time, plog_iter_open(PLOG_ALL_RANKS)) on one core, over a synthetic log of
# RANKS ranks and EVENTS events in all written by bench/mklog --ompi: a bare loop over
# plog_iter_next (built here against the build's libplogread), then `phasor health` and
# `phasor export --format csv -o /dev/null`, which iterate merged. Median of 3 runs, by CPU
# time (user + sys; wall also shown: on a shared machine it counts other jobs' time too).
# Target: `phasor health` >= 10 M events/s. A measurement, not a test.
# Usage: bench/merge_throughput.sh [EVENTS (10000000)] [RANKS (16)]
# BUILD_DIR: a configured build tree (default build/openmpi); LOGDIR: reuse/keep the log there.
# To compare two builds, run it with each BUILD_DIR and the same LOGDIR.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/synthlog.sh"
events=${1:-10000000}
ranks=${2:-16}
synth_log "$ranks ranks x $((events / ranks)) events" --ompi "$log" "$ranks" "$((events / ranks))"

cat >"$tmp/iter.c" <<'EOF'
/* iter.c: every event of a log, merged; prints the count and a hash of the order. */
#include <stdio.h>
#include "plog_reader.h"
int main(int argc, char **argv)
{
    plog_error_t err;
    plog_run_t *run;
    plog_iter_t *it;
    const plog_rec_t *e;
    unsigned long long n = 0, h = 0;
    if (argc != 2 || plog_run_open(argv[1], &run, &err) != PLOG_OK ||
        plog_iter_open(run, PLOG_ALL_RANKS, &it, &err) != PLOG_OK) {
        fprintf(stderr, "iter: %s\n", argc != 2 ? "usage: iter LOG" : err.msg);
        return 1;
    }
    plog_err_t rc;
    while ((rc = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL) {
        n++;
        h = h * 1000003u + ((unsigned long long)e->start_ns ^ (unsigned long long)e->rank << 48);
    }
    plog_iter_close(it);
    plog_run_close(run);
    if (rc != PLOG_OK) {
        fprintf(stderr, "iter: %s\n", err.msg);
        return 1;
    }
    printf("%llu events, order hash %016llx\n", n, h);
    return 0;
}
EOF
${CC:-cc} -O2 -I"$top/reader" -I"$top/format" -I"$top/util" -I"$bdir/gen" "$tmp/iter.c" \
  -o "$tmp/iter" -L"$bdir/.libs" -lplogread -Wl,-rpath,"$bdir/.libs"
n=$(taskset -c 0 "$tmp/iter" "$log" | tee "$tmp/iter.out" | cut -d' ' -f1)
echo "merged order: $(cat "$tmp/iter.out")"

# measure NAME CMD...: three runs of CMD, the median events/s by CPU time and by wall
measure() {
  local name=$1; shift
  local cpus=() walls=() k
  for k in 1 2 3; do
    timed "$tmp/err" "$@" >/dev/null
    cpus+=("$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$tmp/err")")
    walls+=("$wall")
  done
  local cpu w
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n 2p)
  w=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 2p)
  awk -v name="$name" -v n="$n" -v c="$cpu" -v w="$w" 'BEGIN {
    printf "%-8s %.2f s CPU = %.2f M events/s (wall %.2f s = %.2f M events/s)\n",
           name, c, n / c / 1e6, w, n / w / 1e6 }'
}
measure iterate "$tmp/iter" "$log"
measure health "$bdir/phasor" health "$log"
measure export "$bdir/phasor" export --format csv -o /dev/null "$log"
