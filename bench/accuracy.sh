#!/usr/bin/env bash
# accuracy.sh: how close `phasor predict` comes to the collective times measured in the
# same run, on the emulated cluster (bench/cluster): 4 hosts x 1 and 4 hosts x 2 ranks,
# Bcast, Allgather, Alltoall, Allreduce, Reduce x 1 KiB..4 MiB (examples/collsweep), recorded
# under the shim with the quick probe at MPI_Init, without and with background traffic on
# two links; for each model and method (steps, expected-max, replay), the median and 90th
# percentile over instances of |predicted / measured - 1|. Targets: median <= 10% (P90 <= 25%) without contention, <= 20%
# (P90 <= 40%) with. After each configuration's replay, a "spread" line: the same figures
# for the measured instances against their own collective and size's median, what a
# prediction exact to each median would score (doc/models.md, "Repeatability").
# A measurement, not a test. Needs root (network namespaces).
# Usage: bench/accuracy.sh [RATE (500mbit)] [REPS (5)]
# OUT=DIR keeps the logs and predictions (default: a temporary directory, removed);
# BURST=B passes --burst B to bench/cluster/up.sh (tbf bucket; default one MTU-sized frame
# plus 1 KiB, or 100 us of RATE if more).
# LATENCY=T passes --latency T to bench/cluster/up.sh (tbf queue; default 20ms).
# MTU=M passes --mtu M to bench/cluster/up.sh (default 9000).
# PROBE=full records with the full probe at MPI_Init instead of the quick one (every ordered
# pair one at a time: the lookup table's own probe; slower, and one way only).
set -euo pipefail
probe=${PROBE:-quick}
case "$probe" in quick|full) ;; *) echo "accuracy.sh: PROBE must be quick or full, not '$probe'" >&2; exit 2 ;; esac
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
rate=${1:-500mbit}
reps=${2:-5}
cl=$top/bench/cluster
name=phacc
make -C "$bdir" -s examples/collsweep >/dev/null
if [ -n "${OUT:-}" ]; then out=$OUT; mkdir -p "$out"; else out=$(mktemp -d); fi
cleanup() { "$cl/down.sh" --name "$name" >/dev/null 2>&1 || true; [ -n "${OUT:-}" ] || rm -rf "$out"; }
trap cleanup EXIT
"$cl/up.sh" 4 --rate "$rate" ${BURST:+--burst "$BURST"} ${LATENCY:+--latency "$LATENCY"} ${MTU:+--mtu "$MTU"} --name "$name" --force | tail -1
echo "4 emulated hosts at $rate each way; $probe probe at MPI_Init; logs in $out"

summary() { # CSV label: per model, median and P90 of |ratio - 1| over instances
  python3 - "$@" <<'PY'
import csv, sys, statistics as st
# the sweep's collectives only (not its barriers), at its sizes (not its 8-byte timing reduce)
want = {"bcast", "allgather", "alltoall", "allreduce", "reduce"}
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["collective"] in want and int(r["bytes"]) >= 1024]
label = sys.argv[2]
models = [k[len("predicted_ns_"):] for k in rows[0] if k.startswith("predicted_ns_")] if rows else []
def q(v, p):
    v = sorted(v); h = (len(v) - 1) * p; lo = int(h); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])
for m in models:
    err = [abs(float(r["predicted_ns_" + m]) / float(r["measured_ns"]) - 1) for r in rows if float(r["measured_ns"]) > 0]
    ratio = [float(r["predicted_ns_" + m]) / float(r["measured_ns"]) for r in rows if float(r["measured_ns"]) > 0]
    by = {}
    for r in rows:
        if float(r["measured_ns"]) > 0:
            by.setdefault(r["collective"], []).append(float(r["predicted_ns_" + m]) / float(r["measured_ns"]))
    per = " ".join("%s %.2f" % (c, st.median(v)) for c, v in sorted(by.items()))
    # from 64 KiB up the network dominates; below, scheduling noise on the shared cores does
    big = [abs(float(r["predicted_ns_" + m]) / float(r["measured_ns"]) - 1) for r in rows
           if float(r["measured_ns"]) > 0 and int(r["bytes"]) >= 65536]
    print("%-34s %-8s %5d  median|r-1| %6.1f%%  P90|r-1| %7.1f%%  median ratio %.2f  "
          ">=64K %5.1f%%/%6.1f%%  (%s)" %
          (label, m, len(err), 100 * st.median(err), 100 * q(err, 0.9), st.median(ratio),
           100 * st.median(big), 100 * q(big, 0.9), per))
if models and sys.argv[3:] == ["spread"]:
    # how far the instances of one collective and size are from their own median: the error
    # of a prediction that knew each one's median exactly (and the same without each
    # collective's first call, which sets up what later calls reuse)
    cell = {}
    for r in rows:
        if float(r["measured_ns"]) > 0:
            cell.setdefault((r["collective"], r["bytes"]), []).append(float(r["measured_ns"]))
    err = [abs(st.median(v) / y - 1) for v in cell.values() for y in v]
    warm = [abs(st.median(v[1:]) / y - 1) for v in cell.values() if len(v) > 1 for y in v[1:]]
    print("%-34s %-8s %5d  median|r-1| %6.1f%%  P90|r-1| %7.1f%%  without first calls "
          "%.1f%%/%.1f%%" % (label.rsplit(" ", 1)[0] + " spread", "measured", len(err),
                             100 * st.median(err), 100 * q(err, 0.9),
                             100 * st.median(warm) if warm else 0, 100 * q(warm, 0.9) if warm else 0))
PY
}

for slots in 1 2; do
  for cont in no yes; do
    tag="4x${slots}-${cont}"
    log=$out/$tag
    rm -rf "$log"
    if [ "$cont" = yes ]; then
      "$cl/contend.sh" --name "$name" start 3 0 >/dev/null
      "$cl/contend.sh" --name "$name" start 1 2 >/dev/null
    fi
    "$cl/mpirun.sh" --name "$name" --slots "$slots" -x LD_PRELOAD="$shim" -x PHASOR_DIR="$log" \
      -x PHASOR_PROBE="$probe" -x PHASOR_QUIET=1 -- "$bdir/examples/collsweep" --reps "$reps" \
      >"$log.out" 2>&1 || { echo "run $tag failed:"; tail -5 "$log.out"; exit 1; }
    [ "$cont" = yes ] && "$cl/contend.sh" --name "$name" stop >/dev/null
    for method in steps expected-max replay; do
      "$phasor" predict --method "$method" --csv "$log" >"$log.$method.csv" 2>"$log.$method.err"
      summary "$log.$method.csv" "$tag contention=$cont $method" \
        $([ "$method" = replay ] && echo spread)
    done
  done
done
