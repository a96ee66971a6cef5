#!/usr/bin/env bash
# test.sh: install what is missing, build, run every test; last line: "N passed, M failed,
# K skipped" (K: runners or checks that could not run here, listed above it).
# Usage: scripts/test.sh [--mpi=openmpi|mpich] [--no-asan] [--unit-only]
#   --mpi=NAME   MPI library to build and run against (default: openmpi, Debian's default)
#   --no-asan    skip the AddressSanitizer+UBSan build of the unit tests
#   --unit-only  skip the MPI integration runs
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mpi=openmpi
asan=1
mpitests=1
for a in "$@"; do
  case "$a" in
    --mpi=openmpi|--mpi=mpich) mpi=${a#--mpi=} ;;
    --no-asan) asan=0 ;;
    --unit-only) mpitests=0 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done

"$top/scripts/install-deps.sh" --mpi="$mpi" || { echo "test.sh: dependencies missing"; echo "0 passed, 1 failed"; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$mpi" in
  openmpi) mpicc=$(command -v mpicc.openmpi || command -v mpicc) ;;
  mpich) mpicc=$(command -v mpicc.mpich) ;;
esac

passed=0
failed=0
failures=()
skipped=()
record() { # name status
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$1"); fi
}
# Add the counts a runner printed on its last "N passed, M failed[, K skipped]" line, or its
# Criterion synthesis line; without either, its exit status is one check. Exit 77 means it
# could not run here (automake's SKIP): it is listed as skipped, with the reason it printed,
# and adds only the passes it printed (checks it made before finding out). A runner that
# exits 0 without a single pass checked nothing: that is a failure, never a pass.
count_from() { # name logfile status
  local name=$1 log=$2 st=$3 line p=0 f=0 k=0 why
  line=$(grep -E '^(.*: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  if [ -n "$line" ]; then
    p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
    f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
    k=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+')
    k=${k:-0}
  else
    line=$(grep -E 'Synthesis: Tested: [0-9]+' "$log" | tail -1)
    if [ -n "$line" ]; then
      p=$(sed -E 's/.*Passing: ([0-9]+).*/\1/' <<<"$line")
      f=$(sed -E 's/.*Failing: ([0-9]+) \| Crashing: ([0-9]+).*/\1 \2/' <<<"$line")
      f=$(( ${f% *} + ${f#* } ))
    else
      case $st in 0) p=1 ;; 77) ;; *) f=1 ;; esac
    fi
  fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$st" -eq 77 ]; then
    why=$(grep -E '^(# )?SKIP' "$log" | tail -1 | sed -E 's/^(# )?SKIP:? *//')
    skipped+=("$name${why:+: $why}")
    [ "$f" -eq 0 ] || failures+=("$name")
    return
  fi
  [ "$k" -gt 0 ] && skipped+=("$name: $k of its checks")
  if [ "$f" -gt 0 ]; then
    failures+=("$name")
  elif [ "$st" -ne 0 ]; then
    failed=$((failed + 1)); failures+=("$name (exit $st)")
  elif [ "$p" -eq 0 ]; then
    failed=$((failed + 1)); failures+=("$name (exit 0, but nothing was checked)")
  fi
}

run_step() { # name command...
  local name=$1; shift
  local log; log=$(mktemp)
  echo "== $name"
  "$@" >"$log" 2>&1
  local st=$?
  cat "$log"
  count_from "$name" "$log" $st
  rm -f "$log"
}

build() { # dir configure-args...
  local dir=$1; shift
  echo "== build $dir ($*)"
  if ! "$top/scripts/build.sh" "$dir" "$@"; then
    record "build $dir" 1
    return 1
  fi
  make -C "$dir" -j"$(nproc)" check TESTS= >"$dir/check-build.out" 2>&1 \
    || { tail -40 "$dir/check-build.out"; record "build tests $dir" 1; return 1; }
  record "build $dir" 0
}

bdir="$top/build/$mpi"
if build "$bdir" --enable-werror MPICC="$mpicc"; then
  for t in "$bdir"/tests/unit/test_*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    run_step "unit $(basename "$t")" "$t" --jobs=2
  done
  [ -x "$top/tests/unit/hmm_ref.sh" ] && run_step "hmm against a Python Baum-Welch" "$top/tests/unit/hmm_ref.sh" "$bdir/tests/unit/hmm_ref_dump"
  [ -x "$top/tests/unit/cli_dump.sh" ] && run_step "cli dump" "$top/tests/unit/cli_dump.sh" "$bdir/phasor" "$top/tests/data"
  [ -x "$top/tests/unit/cli_report.sh" ] && run_step "cli report" "$top/tests/unit/cli_report.sh" "$bdir/phasor" "$top/tests/data"
  [ -x "$top/tests/unit/cli_golden.sh" ] && run_step "cli golden logs as their generator makes them" "$top/tests/unit/cli_golden.sh" "$bdir/phasor" "$bdir/tests/unit/plog_mkgolden" "$top/tests/data"
  [ -x "$top/tests/unit/cli_probe.sh" ] && run_step "cli dump --probe" "$top/tests/unit/cli_probe.sh" "$bdir/phasor" "$bdir/tests/unit/probe_mklog"
  [ -x "$top/tests/unit/cli_plots.sh" ] && run_step "cli phases --plots" "$top/tests/unit/cli_plots.sh" "$bdir/phasor" "$bdir/tests/unit/phases_mklog"
  [ -x "$top/tests/unit/cli_plots_render.sh" ] && run_step "cli plots in chromium" "$top/tests/unit/cli_plots_render.sh" "$bdir/phasor" "$bdir/tests/unit/phases_mklog"
  [ -x "$top/tests/unit/cli_export.sh" ] && run_step "cli export" "$top/tests/unit/cli_export.sh" "$bdir/phasor" "$top/tests/data"
  [ -x "$top/tests/unit/cli_export_simgrid.sh" ] && run_step "cli export --format simgrid" "$top/tests/unit/cli_export_simgrid.sh" "$bdir/phasor" "$top/tests/data"
  [ -x "$top/tests/unit/cli_steps.sh" ] && run_step "cli steps --csv and --json" "$top/tests/unit/cli_steps.sh" "$bdir/phasor" "$top/tests/data"
  [ -x "$top/tests/unit/cli_json.sh" ] && run_step "cli JSON with hostile strings" "$top/tests/unit/cli_json.sh" "$bdir/phasor" "$bdir/tests/unit/json_mklog"
  [ -x "$top/tests/unit/cli_sites.sh" ] && run_step "cli call-site modules a hostile log names" "$top/tests/unit/cli_sites.sh" "$bdir/phasor" "$bdir/tests/unit/sites_mklog"
  [ -x "$top/tests/unit/cli_polls.sh" ] && run_step "cli runs of polls through every command" "$top/tests/unit/cli_polls.sh" "$bdir/phasor" "$bdir/tests/unit/polls_mklog"
  [ -x "$top/tests/unit/cli_outfiles.sh" ] && run_step "cli outputs never follow a planted link" "$top/tests/unit/cli_outfiles.sh" "$bdir/phasor" "$top/tests/data" "$bdir/tests/unit/phases_mklog" "$bdir/tests/unit/probe_mklog"
  [ -x "$top/tests/unit/cli_guard.sh" ] && run_step "cli every command on hostile inputs, within 5 s and 200 MB" "$top/tests/unit/cli_guard.sh" "$bdir/phasor" "$top/tests/data"
  [ -x "$top/tests/unit/cli_symbols.sh" ] && run_step "exported symbols" "$top/tests/unit/cli_symbols.sh" "$bdir"
  [ $mpitests -eq 1 ] && run_step "mpi integration ($mpi)" "$bdir/tests/mpi/run_mpi_tests.sh"
  [ $mpitests -eq 1 ] && run_step "command line and transparency ($mpi)" "$bdir/tests/mpi/run_cli_tests.sh"
  [ $mpitests -eq 1 ] && run_step "endings without MPI_Finalize ($mpi)" "$bdir/tests/mpi/run_ending_tests.sh"
  [ $mpitests -eq 1 ] && run_step "a hung job killed by its launcher ($mpi)" "$bdir/tests/mpi/run_hang_tests.sh"
  [ $mpitests -eq 1 ] && run_step "distributed graph topologies, 50 runs on Open MPI (treematch) ($mpi)" "$bdir/tests/mpi/run_distgraph_tests.sh"
  [ $mpitests -eq 1 ] && run_step "call sites ($mpi)" "$bdir/tests/mpi/run_callsite_tests.sh"
  [ $mpitests -eq 1 ] && run_step "collective steps ($mpi)" "$bdir/tests/mpi/run_steps_tests.sh"
  [ $mpitests -eq 1 ] && run_step "network probe ($mpi)" "$bdir/tests/mpi/run_probe_tests.sh"
  [ $mpitests -eq 1 ] && run_step "network probes during the run ($mpi)" "$bdir/tests/mpi/run_probe_periodic_tests.sh"
  [ $mpitests -eq 1 ] && run_step "phases ($mpi)" "$bdir/tests/mpi/run_phases_tests.sh"
  [ $mpitests -eq 1 ] && run_step "export ($mpi)" "$bdir/tests/mpi/run_export_tests.sh"
  [ $mpitests -eq 1 ] && run_step "idle-wave mini-app ($mpi)" "$bdir/tests/mpi/run_idlewave_tests.sh"
  [ $mpitests -eq 1 ] && run_step "Sweep3D wavefront mini-app ($mpi)" "$bdir/tests/mpi/run_sweep_tests.sh"
  [ $mpitests -eq 1 ] && run_step "collective schedules executed ($mpi)" "$bdir/tests/mpi/run_coll_exec_tests.sh"
  # each of these two checks one MPI only and exits 77 (listed as skipped) on the other
  [ $mpitests -eq 1 ] && run_step "collective steps vs pml monitoring ($mpi)" "$bdir/tests/mpi/run_coll_truth_tests.sh"
  [ $mpitests -eq 1 ] && run_step "collective steps vs the messages MPICH hands UCX ($mpi)" "$bdir/tests/mpi/run_mpich_wire_tests.sh"
  [ $mpitests -eq 1 ] && run_step "emulated cluster ($mpi)" "$bdir/tests/mpi/run_cluster_tests.sh"
fi

if [ $asan -eq 1 ]; then
  adir="$top/build/asan-$mpi"
  if build "$adir" --enable-werror --enable-sanitizers MPICC="$mpicc"; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    for t in "$adir"/tests/unit/test_*; do
      [ -x "$t" ] && [ -f "$t" ] || continue
      run_step "asan+ubsan $(basename "$t")" "$t" --jobs=2
    done
    [ -x "$top/tests/unit/cli_sites.sh" ] && run_step "asan+ubsan cli call-site modules" "$top/tests/unit/cli_sites.sh" "$adir/phasor" "$adir/tests/unit/sites_mklog"
    [ -x "$top/tests/unit/cli_oscillate.sh" ] && run_step "asan+ubsan oscillate (fit, model, configuration files)" "$top/tests/unit/cli_oscillate.sh" "$adir/phasor" "$adir/tests/unit/phases_mklog"
    [ -x "$top/tests/unit/cli_health.sh" ] && run_step "asan+ubsan health and regimes" "$top/tests/unit/cli_health.sh" "$adir/phasor" "$adir/tests/unit/health_mklog"
    [ -x "$top/tests/unit/cli_polls.sh" ] && run_step "asan+ubsan runs of polls" "$top/tests/unit/cli_polls.sh" "$adir/phasor" "$adir/tests/unit/polls_mklog"
    [ -x "$top/tests/unit/cli_replay.sh" ] && run_step "asan+ubsan replay" "$top/tests/unit/cli_replay.sh" "$adir/phasor" "$adir/tests/unit/health_mklog" "$adir/tests/unit/probe_mklog"
  fi
fi

# the libFuzzer targets, a minute each (once: in the Open MPI pass)
[ "$mpi" = openmpi ] && [ -x "$top/tests/fuzz/smoke.sh" ] && run_step "fuzz the log reader and the model file, 60 s each" "$top/tests/fuzz/smoke.sh" 60

echo
[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
[ ${#skipped[@]} -gt 0 ] && printf 'skipped: %s\n' "${skipped[@]}"
echo "test.sh: $passed passed, $failed failed, ${#skipped[@]} skipped"
[ "$failed" -eq 0 ]
