#!/usr/bin/env bash
# oscillate.sh: the evidence of doc/oscillate.md, printed figure by figure. A measurement, not
# a test (the analytic checks are tests/unit/test_osc.c).
#  (1) the paper's qualitative results from the model alone (`phasor oscillate --model`):
#      a one-off delay under tanh and under the bottleneck potential (resynchronises, or a
#      wavefront persists); bidirectional against unidirectional (time to resynchronise, ratio;
#      the paper: about 2); noise against none (moderate noise shortens it)
#  (2) speed: 4096 oscillators on a next-neighbour chain with delays, 200 periods (wall time,
#      peak memory), and the fit of a 64-rank run
#  (3) the fitted model against measured runs of examples/idlewave: 8, 16 and 32 ranks,
#      scalable (sleep) and bottleneck compute, uni- and bidirectional, without and with
#      noise: the resynchronisation time and the idle wave's speed, model against measured,
#      per run and as medians of the relative errors
# Usage: bench/oscillate.sh [ITERATIONS (60)] [COMPUTE_US (20000)]
# OSC_CASES picks parts ("1 2 3"); OSC_NP the rank counts of (3) ("8 16 32"); OSC_FAMILIES the
# --potential values (3) fits each run with ("auto paper": every family, the paper's two); OSC_FIT_NP the
# rank count of the fit's timing (64). Logs and JSON stay in OSC_OUT (default: a new directory
# under TMPDIR). PHASOR_BENCH_MPI=openmpi|mpich picks the library (default openmpi).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
iters=${1:-60}
comp=${2:-20000}
cases=${OSC_CASES:-1 2 3}
nps=${OSC_NP:-8 16 32}
fitnp=${OSC_FIT_NP:-64}
families=${OSC_FAMILIES:-auto paper}
out=${OSC_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/phasor-oscillate.XXXXXX")}
mkdir -p "$out"
make -C "$bdir" -s examples/idlewave >/dev/null
app=$bdir/examples/idlewave
[ "$mpi" = openmpi ] && mpirun_opts+=(--mca mpi_yield_when_idle 1)
echo "# logs and JSON in $out"

# get FILE EXPR: a figure of a JSON file (python expression over d)
get() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); v=eval(sys.argv[2])
print("-" if v is None else (f"{v:.4g}" if isinstance(v, float) else v))' "$1" "$2"
}
# model NAME ARGS...: phasor oscillate --model --json into NAME.json
model() {
  local name=$1; shift
  "$phasor" oscillate --model --json "$@" >"$out/$name.json"
}

if [[ " $cases " == *" 1 "* ]]; then
  # v_p = 2 / period is the paper's formula with beta kappa = 2 (rendezvous messages over
  # distance 1); 20 / period is ten times as strong, nearer what fits measured idle waves
  for vp in 200 2000; do
    echo "## (1) the model alone: 16 oscillators, period 10 ms, v_p $vp /s, rank 8 held back 5 ms at 0.1 s, 200 periods"
    base=(-P 16 --period 0.01 --vp "$vp" --perturb 8:0.1:0.005 --periods 200)
    model "tanh$vp" "${base[@]}" --potential tanh
    model "bott$vp" "${base[@]}" --potential piecewise
    printf '%-28s %10s %10s %14s\n' potential "R tail" resync_s pattern
    for n in "tanh$vp" "bott$vp"; do
      printf '%-28s %10s %10s %14s\n' "$(get "$out/$n.json" 'd["model"]["potential"]')" \
        "$(get "$out/$n.json" 'd["figures"]["r_tail"]')" \
        "$(get "$out/$n.json" 'd["figures"]["resync_s"]')" \
        "$(get "$out/$n.json" 'd["figures"]["final_pattern"]')"
    done
    echo "bidirectional against unidirectional (tanh): resync_s, uni / bi"
    for shape in ring chain; do
      model "bi$shape$vp" "${base[@]}" --topology "$shape:bi"
      model "uni$shape$vp" "${base[@]}" --topology "$shape:uni"
      rb=$(get "$out/bi$shape$vp.json" 'd["figures"]["resync_s"]')
      ru=$(get "$out/uni$shape$vp.json" 'd["figures"]["resync_s"]')
      echo "$shape: bi $rb s, uni $ru s, uni/bi $(python3 -c "print(f'{$ru/$rb:.3g}')" 2>/dev/null || echo -)"
    done
    echo "noise (uniform, share of omega), chain, tanh: resync_s over 5 seeds, median (- not recovered)"
    for share in 0 0.02 0.05 0.1 0.2; do
      vals=()
      for seed in 1 2 3 4 5; do
        model "noise$vp.$share.$seed" "${base[@]}" --noise "uniform:$share" --seed "$seed"
        vals+=("$(get "$out/noise$vp.$share.$seed.json" 'd["figures"]["resync_s"]')")
      done
      echo "share $share: ${vals[*]} median $(printf '%s\n' "${vals[@]}" | grep -v -- - | median)"
    done
  done
fi

if [[ " $cases " == *" 2 "* ]]; then
  echo "## (2) speed: 4096 oscillators, chain bi, tau = 0.1 period, 200 periods (median of 3)"
  ts=()
  for k in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$out/speed.$k.time" \
      "$phasor" oscillate --model --json -P 4096 --period 0.01 --delay 0.001 --periods 200 \
      --perturb 2048:0.5:0.005 --points 2000 >"$out/speed.$k.json"
    ts+=("$(cat "$out/speed.$k.time")")
  done
  printf '%s\n' "${ts[@]}" | awk '{print "wall " $1 " s, peak RSS " $2 " KiB"}'
  echo "integrator: $(get "$out/speed.1.json" 'd["integrator"]')"
  echo "## the fit of a $fitnp-rank run ($iters iterations)"
  d=$((fitnp / 2))
  run_mpi "$fitnp" 1 "$out/fit$fitnp" "$app" -n "$iters" -c "$comp" --delay-rank "$d" \
    --delay-iter $((iters / 4)) --delay-us $((comp / 2)) >/dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$out/fit$fitnp.time" \
    "$phasor" oscillate --json --source "$d:$((iters / 4))" "$out/fit$fitnp" >"$out/fit$fitnp.json"
  awk '{print "fit: wall " $1 " s, peak RSS " $2 " KiB"}' "$out/fit$fitnp.time"
  echo "integrations $(get "$out/fit$fitnp.json" 'd["fit"]["integrations"]')," \
    "fit $(get "$out/fit$fitnp.json" 'd["fit"]["seconds"]') s"
fi

if [[ " $cases " == *" 3 "* ]]; then
  echo "## (3) fitted model against measured idlewave runs ($iters iterations of $comp us, delay of"
  echo "## half an iteration on rank P/2 (bi) or P/4 (uni) in iteration $((iters / 4)); each run fitted"
  echo "## with --potential $families)"
  printf '%-30s %-6s %9s %9s %7s %7s %7s %7s %-12s %-12s %s\n' run fit resync_m resync_x rel \
    wave_m wave_x rel pattern_m pattern_x potential
  for fam in $families; do : >"$out/rel_resync.$fam"; : >"$out/rel_wave.$fam"; done
  for np in $nps; do
    for kind in sleep bottleneck; do
      for dir in bi uni; do
        for noise in none uniform:10%; do
          name="np$np-$kind-$dir-${noise%%:*}"
          d=$((np / 2))
          [ "$dir" = uni ] && d=$((np / 4))
          extra=()
          [ "$kind" = bottleneck ] && extra=(--compute bottleneck --saturation 4 --overhead-us $((comp / 2)))
          run_mpi "$np" 1 "$out/$name" "$app" -n "$iters" -c "$comp" --direction "$dir" \
            --noise "$noise" --delay-rank "$d" --delay-iter $((iters / 4)) \
            --delay-us $((comp / 2)) "${extra[@]}" >"$out/$name.out" 2>&1 || { echo "$name: run failed"; continue; }
          for fam in $families; do
            j="$out/$name.$fam.json"
            "$phasor" oscillate --json --potential "$fam" --source "$d:$((iters / 4))" "$out/$name" \
              >"$j" 2>"$out/$name.$fam.err" || { echo "$name $fam: $(head -1 "$out/$name.$fam.err")"; continue; }
            c='d["comparison"]'
            rm_=$(get "$j" "$c[\"resync_s\"][\"model\"]")
            rx=$(get "$j" "$c[\"resync_s\"][\"measured\"]")
            rr=$(get "$j" "$c[\"resync_rel\"]")
            wm=$(get "$j" "$c[\"wave_speed_ranks_per_iteration\"][\"model\"]")
            wx=$(get "$j" "$c[\"wave_speed_ranks_per_iteration\"][\"measured\"]")
            wr=$(get "$j" "$c[\"wave_speed_rel\"]")
            printf '%-30s %-6s %9s %9s %7s %7s %7s %7s %-12s %-12s %s\n' "$name" "$fam" "$rm_" "$rx" "$rr" \
              "$wm" "$wx" "$wr" "$(get "$j" "$c[\"final_pattern\"][\"model\"]")" \
              "$(get "$j" "$c[\"final_pattern\"][\"measured\"]")" \
              "$(get "$j" 'd["model"]["potential"]')"
            [ "$rr" != - ] && echo "$rr" >>"$out/rel_resync.$fam"
            [ "$wr" != - ] && echo "$wr" >>"$out/rel_wave.$fam"
          done
        done
      done
    done
  done
  for fam in $families; do
    echo "--potential $fam: median relative error: resync $(median <"$out/rel_resync.$fam") over" \
      "$(wc -l <"$out/rel_resync.$fam") runs with both figures (target <= 0.25), wave speed" \
      "$(median <"$out/rel_wave.$fam") over $(wc -l <"$out/rel_wave.$fam") runs (target <= 0.10)"
  done
fi
