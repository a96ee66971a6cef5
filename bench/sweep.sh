#!/usr/bin/env bash
# sweep.sh: examples/sweep (the Sweep3D wavefront, sleep mode) recorded across process grids,
# and its run time predicted two ways from the same LogGP parameters: `phasor replay --kind
# loggp` of the log and the LogGP paper's closed-form model (bench/sweep_model.py, 002 eqs
# 5-9). Per grid, one full probe (phasor-probe --mode full, the grid's rank count, same launch
# options) gives the model file both use; then RUNS recorded runs. Prints per run and, per
# grid, the medians: the measured time, the replay's predicted time against its own measured
# span (measured_s, the log's), the closed form's against the sweep's own elapsed time (the
# slowest rank's, between a barrier and the last block), and the errors. The closed form's W
# is the run's measured mean block time (block_compute_ns), as the paper measured W_g on
# small runs. Oversubscribed on this 2-core machine: the ranks sleep, and blocked ranks yield
# (mpi_yield_when_idle). A measurement, not a test.
# Usage: bench/sweep.sh [RUNS (3)]   SWEEP_GRIDS="1x2 2x2 2x3 2x4" (px x py)
#   SWEEP_ARGS: the sweep's size (default: a 16 x 16 x 64 local grid, mo 6, mmi 3, mk 8,
#   12 iterations, 160 ns a point: about 1 ms a block, 3 KiB faces, eager)
# Open MPI only (the launch options); BUILD_DIR picks the build (default build/openmpi).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
runs=${1:-3}
grids=${SWEEP_GRIDS:-1x2 2x2 2x3 2x4}
read -r -a args <<<"${SWEEP_ARGS:---it 16 --jt 16 --kt 64 --mo 6 --mmi 3 --mk 8 -n 12 --sleep-ns-per-point 160}"
[ "$mpi" = openmpi ] || { echo "sweep.sh: Open MPI only (its launch options)"; exit 77; }
make -C "$bdir" -s examples/sweep >/dev/null
app=$bdir/examples/sweep
model=$top/bench/sweep_model.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=("${mpirun_opts[@]}" --mca mpi_yield_when_idle 1)
have_replay=1
"$phasor" replay --help >/dev/null 2>&1 || have_replay=0
# an option's value in the sweep's arguments, or its default
arg() {
  local i
  for ((i = 0; i < ${#args[@]} - 1; i++)); do
    [ "${args[i]}" = "$1" ] && { echo "${args[i + 1]}"; return; }
  done
  echo "$2"
}
it=$(arg --it 16) jt=$(arg --jt 16) kt=$(arg --kt 64) mo=$(arg --mo 6) mmi=$(arg --mmi 3)
mk=$(arg --mk 8) iters=$(arg -n "$(arg --iterations 1)")
echo "# sweep ${args[*]} ($mpi, $runs runs per grid)"
[ $have_replay = 1 ] || echo "# phasor replay --help failed: no replay column"
printf "%-5s %3s %10s %10s %10s %8s %10s %8s\n" grid run sweep_s log_s replay_s error closed_s error
for g in $grids; do
  px=${g%x*} py=${g#*x} np=$((${g%x*} * ${g#*x}))
  m=$tmp/model_$g.json
  "$mpirun" "${opts[@]}" -np "$np" "$bdir/phasor-probe" --mode full -o "$m" >/dev/null
  : >"$tmp/rows_$g"
  for r in $(seq "$runs"); do
    log=$tmp/log_${g}_$r
    "$mpirun" "${opts[@]}" -np "$np" -x LD_PRELOAD="$shim" -x PHASOR_DIR="$log" -x PHASOR_QUIET=1 \
      "$app" --px "$px" --py "$py" "${args[@]}" >"$tmp/out"
    el=$(awk '/^elapsed_s/ { print $2 }' "$tmp/out")
    w=$(awk '/^block_compute_ns/ { print $2 }' "$tmp/out")
    rm_s=nan rp_s=nan
    if [ $have_replay = 1 ]; then
      read -r rm_s rp_s < <("$phasor" replay "$log" --model "$m" --kind loggp --json |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["measured_s"], d["predicted_s"])') || :
      [ -n "${rp_s:-}" ] || { rm_s=nan rp_s=nan; echo "# $g run $r: phasor replay failed"; }
    fi
    cf=$(python3 "$model" --model "$m" --px "$px" --py "$py" --it "$it" --jt "$jt" --kt "$kt" \
      --mo "$mo" --mmi "$mmi" --mk "$mk" --iterations "$iters" --block-ns "$w" --json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_s"])')
    echo "$el $rm_s $rp_s $cf $w" >>"$tmp/rows_$g"
    python3 - "$g" "$r" "$el" "$rm_s" "$rp_s" "$cf" <<'EOF'
import sys
g, r = sys.argv[1], sys.argv[2]
el, rm, rp, cf = map(float, sys.argv[3:])
e1 = f"{100 * (rp / rm - 1):+7.1f}%" if rm == rm else "     --"
print(f"{g:<5} {r:>3} {el:10.4f} {rm:10.4f} {rp:10.4f} {e1} {cf:10.4f} {100 * (cf / el - 1):+7.1f}%")
EOF
  done
  python3 - "$g" "$tmp/rows_$g" <<'EOF'
import statistics as st, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2])]
med = lambda v: st.median(v)
el, rm, rp, cf, w = (med([r[i] for r in rows]) for i in range(5))
e_rp = med([100 * (r[2] / r[1] - 1) for r in rows]) if rm == rm else float("nan")
e_cf = med([100 * (r[3] / r[0] - 1) for r in rows])
print(f"{sys.argv[1]:<5} med {el:10.4f} {rm:10.4f} {rp:10.4f} {e_rp:+7.1f}% {cf:10.4f} {e_cf:+7.1f}%"
      f"   (W {w / 1e3:.0f} us a block)")
EOF
done
# what the closed form took from the last grid's model file
python3 "$model" --model "$m" --px "$px" --py "$py" --it "$it" --jt "$jt" --kt "$kt" --mo "$mo" \
  --mmi "$mmi" --mk "$mk" --iterations "$iters" --block-ns "$w" | sed 's/^#* */# /'
