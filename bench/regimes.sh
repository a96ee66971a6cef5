#!/usr/bin/env bash
# regimes.sh: the evidence of doc/regimes-model.md for the latency-regime HMM (models/hmm.h),
# printed figure by figure. A measurement, not a test (the unit tests are tests/unit/test_hmm.c
# and hmm_ref.sh).
#  (1) synthetic series of known regimes: K_true in {2,3,4} x means 4, 2 and 1 sd apart x
#      persistent (stay 0.97) or iid draws from the mixture; SEEDS (100) seeded series of T
#      (2000) samples each, hmm_select over K = 1..6 with 5 restarts and the default outlier
#      policy: the rate of K recovered and the label accuracy (best one-to-one matching), with
#      the oracle's accuracy (Viterbi under the true parameters) beside it; PASS/FAIL against
#      the targets (>= 0.95 both) where the regimes are >= 2 sd apart
#  (2) speed: hmm_select on 10^6 samples over K <= 6 and on 10^4 over K <= 5, 5 restarts
# Usage: bench/regimes.sh [SEEDS (100)] [T (2000)]; REGIMES_CASES picks parts ("1 2").
# Needs only a build of models/ (BUILD_DIR, default build/dev; made if missing): no MPI.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bdir=${BUILD_DIR:-$top/build/dev}
seeds=${1:-100}
T=${2:-2000}
cases=${REGIMES_CASES:-1 2}
[ -f "$bdir/Makefile" ] || "$top/scripts/build.sh" "$bdir"
make -C "$bdir" -s bench/regimes_synth >/dev/null
synth=$bdir/bench/regimes_synth

if [[ " $cases " == *" 1 "* ]]; then
  echo "## (1) K recovered by BIC and label accuracy: $seeds seeds, T = $T, kmax 6, 5 restarts"
  for stay in 0.97 0; do
    for sep in 4 2 1; do
      for K in 2 3 4; do
        line=$("$synth" eval "$K" "$sep" "$stay" "$seeds" "$T" 6)
        rate=$(sed -E 's/.*K_recovered ([0-9.]+).*/\1/' <<<"$line")
        acc=$(sed -E 's/.* accuracy ([0-9.]+).*/\1/' <<<"$line")
        verdict="(no target: 1 sd)"
        if [ "$sep" != 1 ]; then
          verdict=$(awk -v r="$rate" -v a="$acc" 'BEGIN { print (r >= 0.95 ? "K PASS" : "K FAIL") ", " (a >= 0.95 ? "labels PASS" : "labels FAIL") }')
        fi
        echo "$line  => $verdict"
      done
    done
  done
fi

if [[ " $cases " == *" 2 "* ]]; then
  echo "## (2) speed (one core; cpu is the process's CPU time)"
  "$synth" speed 1000000 6 5
  "$synth" speed 10000 5 5 3
fi
