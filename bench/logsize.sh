#!/usr/bin/env bash
# logsize.sh: compressed log bytes per recorded event for the stencil example on 4 ranks
# (target <= 4 B/event). Usage: bench/logsize.sh [ITERATIONS (default 2000)]
set -euo pipefail
source "$(dirname "$0")/common.sh"
iters=${1:-2000}
make -C "$bdir" -s examples/stencil >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_mpi 4 1 "$tmp/logs" "$bdir/examples/stencil" 256 "$iters" >/dev/null
bytes=$(cat "$tmp"/logs/rank-*.plog | wc -c)
events=$("$phasor" dump "$tmp/logs" --csv | tail -n +2 | wc -l)
echo "stencil, 4 ranks, $iters iterations: $events events, $bytes bytes of logs"
awk -v b="$bytes" -v e="$events" 'BEGIN { printf "bytes per event: %.2f (target <= 4)\n", b / e }'
