#!/usr/bin/env bash
# phases.sh: the four scenarios of the coupled-oscillator paper, run with examples/idlewave
# under the shim on this machine, and their figures. A measurement, not a test.
#  (a) scalable (sleep) compute, bidirectional open chain, delay of half an iteration on the
#      middle rank: resynchronises? (R back >= 0.95: after how long)
#  (b) bottleneck compute (shared-bandwidth emulation, 4 ranks saturate it) with half of
#      the period spent in overhead that uses no bandwidth, against the same run with scalable
#      compute and against the bottleneck without overhead; bidirectional open chain, delay on
#      the middle rank: does a computational wavefront persist? (R over the last quarter of
#      the run stays below 0.95, the mean phase difference between communicating ranks stays
#      high) And the time per iteration: desynchronised, compute overlaps the overhead
#      (bottleneck evasion), so the bottlenecked run gets faster than in step
#  (c) bidirectional against unidirectional periodic chain, scalable: time to resynchronise,
#      ratio uni / bi (paper: about 2)
#  (d) bidirectional open chain, scalable, delay on rank 0, without and with exponential noise
#      (mean 5 % of the compute time): ratio of the times to resynchronise (paper: below 1),
#      how far the idle wave got, and its decay (mean amplitude over the farther half of the
#      reached ranks over the nearer half)
# Figures come from `phasor dump --csv` through bench/idlewave_wave.py (iterations between the
# MPI_Pcontrol markers, the idle wave from the MPI_Waitall times, R and the phase gradient
# from the markers, as defined in doc/idlewave.md). When the phasor build has `phasor phases`,
# its JSON summary of each run is kept too and its R_min, time to resynchronise and wave speed
# are printed next to them.
# Usage: bench/phases.sh [NP (16)] [ITERATIONS (100)] [COMPUTE_US (30000)]
# The logs, dumps and figures stay in PHASES_OUT (default: a new directory under TMPDIR).
# PHASOR_BENCH_MPI=openmpi|mpich picks the library (default openmpi).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
np=${1:-16}
iters=${2:-100}
comp=${3:-30000}
out=${PHASES_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/phasor-phases.XXXXXX")}
mkdir -p "$out"
make -C "$bdir" -s examples/idlewave >/dev/null
app=$bdir/examples/idlewave
wave=$top/bench/idlewave_wave.py
have_phases=0
"$phasor" phases --help >/dev/null 2>&1 && have_phases=1
[ "$mpi" = openmpi ] && mpirun_opts+=(--mca mpi_yield_when_idle 1)

half=$((comp / 2))
diter=$((iters / 5))
sat=4
alone=$((comp * sat / np))   # the bottleneck's lone-rank time: in step, the same period
common=(-n "$iters" --delay-iter "$diter" --delay-us "$half")
# case NAME WAVE-ARGS -- IDLEWAVE-ARGS: run, dump, figures (NAME.json), phasor phases
case_run() {
  local name=$1; shift
  local wargs=()
  while [ "$1" != -- ]; do wargs+=("$1"); shift; done
  shift
  run_mpi "$np" 1 "$out/$name" "$app" "${common[@]}" "$@" >"$out/$name.out" 2>&1
  "$phasor" dump --csv "$out/$name" >"$out/$name.csv" 2>"$out/$name.dumperr"
  python3 "$wave" "$out/$name.csv" --rstar 0.95 "${wargs[@]}" --delay-iter "$diter" >"$out/$name.json"
  if [ $have_phases = 1 ]; then
    "$phasor" phases --json --threshold 0.95 "$out/$name" >"$out/$name.phases.json" \
      2>"$out/$name.phases.err" || true
  fi
}
# fig NAME EXPR: a figure of NAME.json (python expression over d, the JSON object)
fig() {
  python3 -c 'import json,sys,statistics
def amp_ratio(d):  # mean wait excess of the reached ranks, farther half over nearer half
    w = d["wave"]; r = sorted(w["reached"], key=lambda k: abs(int(k) - w["source"]))
    if len(r) < 2: return None
    h = len(r) // 2; a = w["amplitude_ns"]
    return statistics.mean(a[k] for k in r[h:]) / statistics.mean(a[k] for k in r[:h])
d=json.load(open(sys.argv[1])); v=eval(sys.argv[2])
print("-" if v is None else (f"{v:.3g}" if isinstance(v, float) else v))' "$out/$1.json" "$2"
}
phases_line() {
  [ $have_phases = 1 ] && [ -s "$out/$1.phases.json" ] || return 0
  python3 - "$out/$1.phases.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ex = [e for e in s["resync"]["excursions"] if e["recovered"]]
d = max((e["duration_ns"] for e in ex), default=None)
w = s["wave"]
print("    phasor phases: R_min %.3f, R_final %.3f, longest recovered excursion %s, wave %s ranks/iteration"
      % (s["order"]["R_min"], s["order"]["R_final"],
         "-" if d is None else "%.3f s" % (d / 1e9), w.get("ranks_per_iteration")))
PY
}
resync() { # NAME: "after X s = Y iterations" or "not within the run"
  local s
  s=$(fig "$1" 'd["phases"]["resync_s"]')
  if [ "$s" = - ]; then echo "not within the run"; else
    echo "after $s s = $(fig "$1" 'd["phases"]["resync_iterations"]') iterations"; fi
}
echo "# $np ranks, $iters iterations, compute $comp us, delay $half us in iteration $diter ($mpi); logs in $out"

mid=$((np / 2))
case_run a --delay-rank "$mid" -- -c "$comp" --direction bi --delay-rank "$mid"
echo "(a) scalable, bidirectional open chain, delay on rank $mid: R min $(fig a 'd["phases"]["R_min"]'), back >= 0.95 $(resync a);" \
  "wave $(fig a 'd["wave"]["ranks_per_iteration"]["up"]') / $(fig a 'd["wave"]["ranks_per_iteration"]["down"]') ranks per iteration (up/down)"
phases_line a

# (b): half the period is overhead that uses no bandwidth (communication time, in the 2020
# paper's terms; with a third the wavefront was weaker and came and went with the machine's
# load); without it the emulated bottleneck is run too
over=$((comp / 2))
case_run b_bottleneck --delay-rank "$mid" -- -c "$(((comp - over) * sat / np))" --compute bottleneck \
  --saturation $sat --overhead-us "$over" --direction bi --delay-rank "$mid"
case_run b_scalable --delay-rank "$mid" -- -c "$((comp - over))" --overhead-us "$over" --direction bi \
  --delay-rank "$mid"
case_run b_nooverhead --delay-rank "$mid" -- -c "$alone" --compute bottleneck --saturation $sat \
  --direction bi --delay-rank "$mid"
for b in b_bottleneck b_scalable b_nooverhead; do
  echo "(b) ${b#b_}, bidirectional open chain, delay on rank $mid: R over the last quarter $(fig $b 'd["phases"]["R_mean_last_quarter"]')," \
    "phase gradient $(fig $b 'd["phases"]["gradient_mean_last_quarter"]') iterations (max $(fig $b 'd["phases"]["gradient_max"]')), R back >= 0.95 $(resync $b);" \
    "$(grep -h 'elapsed' "$out/$b.out" | head -1 | sed 's/^idlewave: elapsed [^,]*, //')"
  phases_line $b
done
echo "    bottleneck: $sat ranks saturate the node's bandwidth; in step the same $((comp / 1000)) ms per iteration as the scalable run"

case_run c_uni --direction uni --boundary periodic --delay-rank 0 -- -c "$comp" --direction uni --boundary periodic --delay-rank 0
case_run c_bi --boundary periodic --delay-rank 0 -- -c "$comp" --direction bi --boundary periodic --delay-rank 0
echo "(c) periodic chain, delay on rank 0: unidirectional R back >= 0.95 $(resync c_uni); bidirectional $(resync c_bi)"
python3 - "$out/c_uni.json" "$out/c_bi.json" <<'PY'
import json, sys
u, b = (json.load(open(f))["phases"]["resync_s"] for f in sys.argv[1:3])
print("    ratio uni / bi: %s (paper: about 2)" % ("-" if not u or not b else "%.2f" % (u / b)))
PY
phases_line c_uni
phases_line c_bi

case_run d_quiet --delay-rank 0 -- -c "$comp" --direction bi --delay-rank 0
case_run d_noise --delay-rank 0 -- -c "$comp" --direction bi --delay-rank 0 --noise exp:5% --seed 7
for dn in d_quiet d_noise; do
  echo "(d) ${dn#d_}, bidirectional open chain, delay on rank 0: R back >= 0.95 $(resync $dn)," \
    "R over the last quarter $(fig $dn 'd["phases"]["R_mean_last_quarter"]'), ranks reached $(fig $dn 'len(d["wave"]["reached"])')," \
    "last arrival $(fig $dn 'max(d["wave"]["reached"].values(), default=None)') (delay in $diter)," \
    "wave amplitude far half / near half $(fig $dn 'amp_ratio(d)')"
  phases_line $dn
done
python3 - "$out/d_quiet.json" "$out/d_noise.json" <<'PY'
import json, sys
q, n = (json.load(open(f))["phases"]["resync_s"] for f in sys.argv[1:3])
print("    ratio noise / quiet: %s (paper: below 1)" % ("-" if q is None or n is None or q == 0 else "%.2f" % (n / q)))
PY
