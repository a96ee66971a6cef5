#!/usr/bin/env bash
# smoke.sh: a short run of each libFuzzer target (fuzz_log: the log reader over decompressed
# frames; fuzz_model: the model file), SECONDS each (default 60), from the committed seeds and
# dictionaries, with ASan, UBSan and leak detection. A crash, a sanitizer report, a leak, an
# input slower than 10 s or over 2 GB fails it; the finding is left in the scratch directory
# named in the failure. Exit 77 when clang with libFuzzer cannot be had.
# Usage: tests/fuzz/smoke.sh [SECONDS]  (builds build/fuzz: ./configure --enable-fuzzing CC=clang)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
"$top/scripts/install-deps.sh" --fuzzing --quiet >/dev/null 2>&1 || true
command -v clang >/dev/null 2>&1 || { echo "# SKIP: no clang"; exit 77; }
mpicc=$(command -v mpicc.openmpi || command -v mpicc || command -v mpicc.mpich)
bdir=$top/build/fuzz
mkdir -p "$bdir"
cd "$bdir" || exit 1
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
  if ! "$top/configure" --enable-fuzzing CC=clang MPICC="$mpicc" >configure.out 2>&1; then
    grep -q "needs clang with libFuzzer" configure.out && { echo "# SKIP: clang without libFuzzer"; exit 77; }
    tail -20 configure.out; exit 1
  fi
fi
make -j"$(nproc)" tests/fuzz/fuzz_log tests/fuzz/fuzz_model >make.out 2>&1 || { tail -30 make.out; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/phasor-fuzz.XXXXXX")
failed=0 passed=0
for t in log model; do
  mkdir -p "$work/$t"
  (cd "$work" && "$bdir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -detect_leaks=1 \
     -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -dict="$top/tests/fuzz/fuzz_$t.dict" \
     "$work/$t" "$top/tests/fuzz/corpus/$t" >"$work/$t.out" 2>&1)
  st=$?
  runs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$work/$t.out" | grep -o "[0-9]*$")
  cov=$(grep -o "cov: [0-9]*" "$work/$t.out" | tail -1)
  if [ $st -eq 0 ]; then
    echo "ok fuzz_$t: ${runs:-?} runs in ${secs} s, $cov"
    passed=$((passed + 1))
  else
    echo "not ok fuzz_$t: exit $st after ${runs:-?} runs (input and log in $work)"
    grep -m5 "ERROR\|SUMMARY\|Test unit written" "$work/$t.out"
    failed=$((failed + 1))
  fi
done
[ $failed -eq 0 ] && rm -rf "$work"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
