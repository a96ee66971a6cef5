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
#  (d) bidirectional open chain, scalable, delay on rank 0, without and with noise
#      (exponential of mean 5 %, uniform of mean 10 % and 30 % of the compute time; several
#      runs each, each also without the delay as the twin reference): the delay's own effect
#      against the twin (when the ranks' shifts agree again, how far half of it travelled),
#      the idle wave's single waits (reach and decay along the chain), R's recovery against
#      its own pre-delay level, and R back above 0.95 (which noise alone keeps R from:
#      biased), as medians and ranges (paper: noise damps the wave and shortens
#      resynchronisation)
# Figures come from `phasor dump --csv` through bench/idlewave_wave.py (iterations between the
# MPI_Pcontrol markers, the idle wave from the MPI_Waitall times, R and the phase gradient
# from the markers, as defined in doc/idlewave.md). When the phasor build has `phasor phases`,
# its JSON summary of each run is kept too and its R_min, time to resynchronise and wave speed
# are printed next to them.
# Usage: bench/phases.sh [NP (16)] [ITERATIONS (100)] [COMPUTE_US (30000)]
# PHASES_CASES picks cases ("a b c d"); PHASES_B_SWEEP overheads (us) for extra bottleneck
# runs in (b); (d) runs on PHASES_D_NP ranks (32), PHASES_D_RUNS (3) runs per noise setting,
# seeds from PHASES_D_SEED (7) on; PHASES_D_NOISE the settings ("none exp:5% uniform:10%
# uniform:20% uniform:30%", idlewave's --noise values, the first the reference).
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
# case NAME WAVE-ARGS -- IDLEWAVE-ARGS: run (on PH_NP ranks if set, else NP), dump, figures
# (NAME.json), phasor phases (against PH_REF if set)
case_run() {
  local name=$1; shift
  local wargs=()
  local src=
  while [ "$1" != -- ]; do
    [ "$1" = --delay-rank ] && src=$2
    wargs+=("$1"); shift
  done
  shift
  run_mpi "${PH_NP:-$np}" 1 "$out/$name" "$app" "${common[@]}" "$@" >"$out/$name.out" 2>&1
  "$phasor" dump --csv "$out/$name" >"$out/$name.csv" 2>"$out/$name.dumperr"
  python3 "$wave" "$out/$name.csv" --rstar 0.95 "${wargs[@]}" --delay-iter "$diter" >"$out/$name.json"
  if [ $have_phases = 1 ]; then
    # the delay's rank and iteration are known: a loaded machine's hiccups can be larger
    "$phasor" phases --json --threshold 0.95 ${src:+--source "$src:$diter"} \
      ${PH_REF:+--reference "$PH_REF"} "$out/$name" \
      >"$out/$name.phases.json" 2>"$out/$name.phases.err" || true
  fi
}
# fig NAME EXPR: a figure of NAME.json (python expression over d, the JSON object)
fig() {
  python3 -c 'import json,sys,statistics
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
rc = s.get("recovery", {})
f = lambda v, fm="%.3g": "-" if v is None else fm % v
print("    phasor phases: R_min %.3f, R_final %.3f, longest recovered excursion %s, wave %s ranks/iteration"
      % (s["order"]["R_min"], s["order"]["R_final"],
         "-" if d is None else "%.3f s" % (d / 1e9), f(w.get("ranks_per_iteration"))))
if w.get("found") and "reach_hops" in w:
    print("      wave reached %d of %d hops, loses %s ms of idle period per hop; R recovered to 90 %%"
          " of its drop below its pre-delay %s after %s iterations"
          % (w["reach_hops"], w["extent_hops"], f(w["decay_ns_per_hop"] and w["decay_ns_per_hop"] / 1e6),
             f(rc.get("R_base")), f(rc.get("iterations"))))
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
want() { case " ${PHASES_CASES:-a b c d} " in *" $1 "*) return 0 ;; esac; return 1; }
if want a; then
case_run a --delay-rank "$mid" -- -c "$comp" --direction bi --delay-rank "$mid"
echo "(a) scalable, bidirectional open chain, delay on rank $mid: R min $(fig a 'd["phases"]["R_min"]'), back >= 0.95 $(resync a);" \
  "wave $(fig a 'd["wave"]["ranks_per_iteration"]["up"]') / $(fig a 'd["wave"]["ranks_per_iteration"]["down"]') ranks per iteration (up/down)"
phases_line a
fi

if want b; then
# (b): half the period is overhead that uses no bandwidth (communication time, in the 2020
# paper's terms): without it desynchronising gains nothing (the bandwidth is saturated either
# way) and no wavefront forms; with half, it was clearest in quiet runs, with less it was
# weaker and came and went with the machine's load (doc/idlewave.md). The emulated
# bottleneck without overhead is run too
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
# PHASES_B_SWEEP="US US ...": the bottleneck again with each overhead (same period in step),
# to see from which share of the period on the wavefront holds on this machine
for ov in ${PHASES_B_SWEEP:-}; do
  case_run "b_over$ov" --delay-rank "$mid" -- -c "$(((comp - ov) * sat / np))" --compute bottleneck \
    --saturation $sat --overhead-us "$ov" --direction bi --delay-rank "$mid"
  echo "(b) bottleneck, overhead $ov us of $comp: R over the last quarter $(fig "b_over$ov" 'd["phases"]["R_mean_last_quarter"]')," \
    "phase gradient $(fig "b_over$ov" 'd["phases"]["gradient_mean_last_quarter"]') iterations;" \
    "$(grep -h 'elapsed' "$out/b_over$ov.out" | head -1 | sed 's/^idlewave: elapsed [^,]*, //')"
done
fi

if want c; then
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
fi

if want d; then
# (d) noise: bidirectional open chain, sleep compute, the delay on rank 0; PHASES_D_RUNS runs
# (default 3, the seed changes per run) of each --noise setting, medians and ranges.
# R back above a fixed bar is biased against noise (noise alone keeps R below it), so:
#  - the same run with the same seed but no delay is made too (idlewave draws its noise per
#    rank and iteration), and `phasor phases --reference` compares the two boundary by
#    boundary: the noise cancels, what is left is the delay's own effect. Recovery: the
#    spread of the ranks' shifts back to 10 % of its peak (iterations after the delay);
#    how much of the delay the far end of the chain took; hops at which at least half of it
#    still arrived. Noise that damps the idle wave lowers the far end's share and the hops;
#    noise that speeds resynchronisation shortens the recovery;
#  - from the delayed run alone: R recovered to 90 % of its drop below its own pre-delay
#    level (R smoothed over a period), and the idle wave as a run of per-iteration waits of
#    at least half the delay (its reach in hops and the idle period lost per hop).
# 32 ranks by default: from an end of a 16-rank chain the quiet wave is gone in 15
# iterations, about the time noise needs to absorb the delay, and the two cannot be told
# apart; on 32 ranks (31 iterations) they can (doc/idlewave.md, "(d) on 32 ranks")
dnp=${PHASES_D_NP:-32}
echo "# (d) on $dnp ranks"
druns=${PHASES_D_RUNS:-3}
dnoise=${PHASES_D_NOISE:-"none exp:5% uniform:10% uniform:20% uniform:30%"}
dseed=${PHASES_D_SEED:-7} # first run's seed; another base gives an independent batch
for nz in $dnoise; do
  for i in $(seq 1 "$druns"); do
    name=d_${nz//[:%]/_}_$i
    run_mpi "$dnp" 1 "$out/$name.ref" "$app" -n "$iters" -c "$comp" --direction bi --noise "$nz" \
      --seed $((dseed - 1 + i)) >"$out/$name.ref.out" 2>&1
    PH_NP=$dnp PH_REF=$out/$name.ref case_run "$name" --delay-rank 0 -- -c "$comp" --direction bi \
      --delay-rank 0 --noise "$nz" --seed $((dseed - 1 + i))
  done
done
NP=$dnp python3 - "$out" "$druns" $dnoise <<'PY'
import json, math, os, statistics, sys
out, runs, noises = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
far = int(os.environ.get("NP", "16")) - 1
def get(nz, f):
    v = []
    for i in range(1, runs + 1):
        base = os.path.join(out, "d_%s_%d" % (nz.replace(":", "_").replace("%", "_"), i))
        try:
            v.append(f(json.load(open(base + ".json")), json.load(open(base + ".phases.json"))))
        except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
            v.append(None)
    return v
def show(v, fmt="%.3g"):
    ok = sorted(x for x in v if x is not None)
    miss = len(v) - len(ok)
    if not ok:
        return "-", None
    m = statistics.median(ok) # inf (never within the run) counts as slower than any value
    f = lambda x: "never" if x == math.inf else fmt % x
    txt = f(m) + (" [" + f(ok[0]) + " - " + f(ok[-1]) + "]" if len(ok) > 1 else "")
    never = sum(x == math.inf for x in ok)
    return (txt + ("" if not never else " (%d never back)" % never) +
            ("" if not miss else " (%d of %d runs without)" % (miss, len(v)))), m
tw = lambda p: p["twin"] if p["twin"]["found"] else None
figs = [
    ("twin: shifts agree again (10 % of the peak spread) after, iterations",
     lambda d, p: tw(p)["iterations"] if tw(p)["recovered"] else math.inf),
    ("twin: share of the delay the far end (%d hops) took" % far,
     lambda d, p: tw(p)["far_reach_ns"] / tw(p)["source_reach_ns"]),
    ("twin: hops with half the delay", lambda d, p: tw(p)["survival_hops"]),
    ("R back >= 0.95 after, iterations", lambda d, p: d["phases"]["resync_iterations"]),
    ("R recovered to 90 % of its drop below its own pre-delay level, iterations",
     lambda d, p: p["recovery"]["iterations"]),
    ("R before the delay", lambda d, p: p["recovery"]["R_base"]),
    ("R over the last quarter", lambda d, p: p["recovery"]["R_tail"]),
    ("per-iteration waits >= half the delay: reach, hops", lambda d, p: p["wave"]["reach_hops"]),
    ("per-iteration waits: idle period lost per hop, ms",
     lambda d, p: p["wave"]["decay_ns_per_hop"] / 1e6),
]
med, vals = {}, {}
for name, f in figs:
    for nz in noises:
        vals[(name, nz)] = get(nz, f)
        txt, m = show(vals[(name, nz)])
        med[(name, nz)] = m
        print("(d) %-12s %s: %s" % (nz, name, txt))
q = noises[0]
for nz in noises[1:]:
    for name, f in [figs[0], figs[3], figs[4]]:
        a, b = med[(name, q)], med[(name, nz)]
        print("    %s / %s, %s (medians): %s" % (nz, q, name,
              "-" if not a or b is None or a == math.inf else
              "never back" if b == math.inf else "%.2f" % (b / a)))
# distribution-free: how many runs the twin finds back before the first setting's fastest,
# i.e. sooner than the idle wave could have crossed the chain in any run of the first
rec = {nz: [x for x in vals[(figs[0][0], nz)] if x is not None] for nz in noises}
if rec[q] and min(rec[q]) < math.inf:
    lo = min(rec[q])
    for nz in noises:
        print("    %s: twin back before %s's fastest (%g iterations) in %d of %d usable runs" %
              (nz, q, lo, sum(x < lo for x in rec[nz]), len(rec[nz])))
print("    paper: noise damps the idle wave and shortens resynchronisation (ratios below 1)")
PY
fi
