#!/usr/bin/env bash
# probe_time.sh: how long the network probe takes inside MPI_Init (PHASOR_PROBE=quick), on
# NP ranks, over RUNS runs: the probe's own clock (slowest rank, from the log) and the extra
# wall time of the whole job against the same job under the shim without the probe.
# Target (quick): <= 1 s on 8 ranks. A measurement, not a test.
# Usage: bench/probe_time.sh [NP (8)] [RUNS (5)] [MODE (quick)]
# PHASOR_BENCH_MPI=openmpi|mpich picks the library (default openmpi).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
np=${1:-8}
runs=${2:-5}
mode=${3:-quick}
make -C "$bdir" -s examples/stencil >/dev/null
app=$bdir/examples/stencil
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
probe_env=(-x PHASOR_PROBE="$mode")
[ "$mpi" = mpich ] && probe_env=(-genv PHASOR_PROBE "$mode")
: >"$tmp/elapsed"; : >"$tmp/extra"
for r in $(seq "$runs"); do
  rm -rf "$tmp/with" "$tmp/without"
  w0=$(wall run_mpi "$np" 1 "$tmp/without" "$app")
  case "$mpi" in
    openmpi) w1=$(wall "$mpirun" "${mpirun_opts[@]}" -np "$np" -x LD_PRELOAD="$shim" -x PHASOR_DIR="$tmp/with" \
                   -x PHASOR_QUIET=1 "${probe_env[@]}" "$app") ;;
    mpich) w1=$(wall "$mpirun" -np "$np" -genv LD_PRELOAD "$shim" -genv PHASOR_DIR "$tmp/with" \
                 -genv PHASOR_QUIET 1 "${probe_env[@]}" "$app") ;;
  esac
  el=$("$phasor" report --json "$tmp/with" | python3 -c 'import json,sys; p=json.load(sys.stdin)["probe"]; print(p["elapsed_s"], p["repetitions"])')
  echo "run $r: probe ${el% *} s (${el#* } repetitions), job ${w1} s with it, ${w0} s without"
  echo "${el% *}" >>"$tmp/elapsed"
  echo "$w1 - $w0" | bc >>"$tmp/extra"
done
printf "median over %d runs, %d ranks, %s (%s): probe %.3f s, job +%.3f s (target <= 1 s)\n" \
  "$runs" "$np" "$mode" "$mpi" "$(median <"$tmp/elapsed")" "$(median <"$tmp/extra")"
