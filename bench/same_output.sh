#!/usr/bin/env bash
# same_output.sh: run two builds of `phasor` over the same logs with every subcommand and
# output format, and say where their outputs differ (stdout, stderr, exit status, files
# written with -o). For refactoring: the output must not change byte for byte.
#
# Usage: bench/same_output.sh OLD_PHASOR NEW_PHASOR LOGDIR...
#   Each LOGDIR is a log directory (a run with PHASOR_PROBE=quick also exercises predict
#   and --save-model). The committed golden, corrupt and missing-rank logs are always added.
# Prints one line per differing case and "N cases, M differ"; exit 0 when none differ.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,9p' "$0"; exit 2; }
old=$(realpath "$1") new=$(realpath "$2"); shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
data=$top/tests/data
work=$(mktemp -d "${TMPDIR:-/tmp}/phasor-same.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
logs=("$@" "$data/golden")

cases=0
differ=0
otf2_text() { otf2-print -G "$1/traces.otf2" 2>&1; otf2-print -A "$1/traces.otf2" 2>&1 | grep -v '^Trace identifier'; }
# one NAME ARGS...: run both phasors with ARGS ({OUT} stands for a fresh output path, the
# same for both runs) and compare what they printed, their status and what they wrote.
one() {
  local name=$1; shift
  cases=$((cases + 1))
  local side bin
  for side in old new; do
    [ $side = old ] && bin=$old || bin=$new
    rm -rf "$work/out"
    local args=() a
    for a in "$@"; do args+=("${a//\{OUT\}/$work/out}"); done
    (cd "$work" && "$bin" "${args[@]}" >"$work/$side.stdout" 2>"$work/$side.stderr"; echo $? >"$work/$side.status")
    rm -rf "$work/$side.out"
    [ -e "$work/out" ] && mv "$work/out" "$work/$side.out"
  done
  local why=()
  cmp -s "$work/old.status" "$work/new.status" || why+=("status $(cat "$work/old.status") -> $(cat "$work/new.status")")
  cmp -s "$work/old.stdout" "$work/new.stdout" || why+=(stdout)
  cmp -s "$work/old.stderr" "$work/new.stderr" || why+=(stderr)
  if [ -e "$work/old.out" ] || [ -e "$work/new.out" ]; then
    # an OTF2 anchor file holds a random trace identifier: compare what otf2-print reads
    local x=()
    [ -f "$work/old.out/traces.otf2" ] && x=(-x traces.otf2)
    if [ -f "$work/old.out" ] && [ -f "$work/new.out" ] && grep -q '"created"' "$work/old.out"; then
      # a model file stamps the second it was written
      diff -q <(grep -v '"created"' "$work/old.out") <(grep -v '"created"' "$work/new.out") \
        >/dev/null || why+=("file written")
    else
      diff -r -q "${x[@]}" "$work/old.out" "$work/new.out" >/dev/null 2>&1 || why+=("files written")
    fi
    if [ ${#x[@]} -gt 0 ] && ! diff -q <(otf2_text "$work/old.out") <(otf2_text "$work/new.out") >/dev/null; then
      why+=("OTF2 archive")
    fi
  fi
  if [ ${#why[@]} -gt 0 ]; then
    differ=$((differ + 1))
    echo "DIFFER $name: ${why[*]}"
  fi
}

# What the predict cases need: a model file written from a run's probe, if there is one.
model=
for d in "${logs[@]}"; do
  if "$old" predict "$d" --save-model "$work/model.json" >/dev/null 2>&1; then
    model=$work/model.json
    break
  fi
done

for d in "${logs[@]}"; do
  n=$(basename "$d")
  one "$n dump" dump "$d"
  one "$n dump --csv" dump "$d" --csv
  one "$n dump --json" dump "$d" --json
  one "$n dump --rank 1 --csv" dump "$d" --rank 1 --csv
  one "$n dump --probe" dump "$d" --probe
  one "$n dump --probe --json" dump "$d" --probe --json
  one "$n dump --probe --csv" dump "$d" --probe --csv
  one "$n report" report "$d"
  one "$n report --json" report "$d" --json
  one "$n report -o" report "$d" -o "{OUT}"
  one "$n steps" steps "$d"
  one "$n steps --csv" steps "$d" --csv
  one "$n steps --rank 0 --csv" steps "$d" --rank 0 --csv
  one "$n steps --library mpich40" steps "$d" --library mpich40 --csv
  # the replay's reduction cost is measured when it starts unless --gamma fixes it
  for m in steps expected-max "replay --gamma 0.1"; do
    one "$n predict $m" predict "$d" --method $m
    one "$n predict $m --csv" predict "$d" --method $m --csv
    one "$n predict $m --json" predict "$d" --method $m --json
  done
  one "$n predict -o" predict "$d" -o "{OUT}"
  one "$n predict --breaks detect" predict "$d" --breaks detect --json
  one "$n predict --kind hockney,loggp" predict "$d" --kind hockney,loggp --csv
  one "$n predict --save-model" predict "$d" --save-model "{OUT}"
  if [ -n "$model" ]; then
    one "$n predict --model" predict "$d" --model "$model" --json
    one "$n predict --model replay" predict "$d" --model "$model" --method replay --gamma 0.1 --csv
    one "$n predict --model expected-max" predict "$d" --model "$model" --method expected-max
  fi
  one "$n phases" phases "$d"
  one "$n phases --json" phases "$d" --json
  one "$n phases -o --plots" phases "$d" -o "{OUT}" --plots
  one "$n phases --compute-only --potential piecewise" phases "$d" --compute-only --potential piecewise --json
  one "$n phases --marker period --wrap" phases "$d" --marker period --wrap --json
  one "$n export chrome" export --format chrome "$d"
  one "$n export csv" export --format csv "$d" -m "{OUT}"
  one "$n export otf2" export --format otf2 -o "{OUT}" "$d"
  one "$n export simgrid" export --format simgrid -o "{OUT}" "$d"
  one "$n health --json" health "$d" --json
  # replay's reductions are timed where it runs unless --gamma says
  one "$n replay" replay "$d" --gamma 0.1
  one "$n replay --json -o" replay "$d" --gamma 0.1 --json -o "{OUT}"
  one "$n replay what-ifs" replay "$d" --gamma 0.1 --bandwidth 2 --latency 3 --slow-rank 0:2 --json
  if [ -n "$model" ]; then
    one "$n replay --model" replay "$d" --model "$model" --gamma 0.1 --kind loggp --json
  fi
done

# Refused input: damaged, missing, wrong-version logs and bad usage.
for f in "$data"/corrupt/*.plog "$data/missing-rank" "$work/no-such-log"; do
  n=$(basename "$f")
  for c in dump report steps predict phases health replay; do one "$n $c" $c "$f"; done
  one "$n export" export --format csv "$f"
done
one "usage: no subcommand"
one "usage: unknown" frobnicate
one "usage: --help" --help
one "usage: --version" --version
for c in run dump report steps predict phases export; do
  one "usage: $c --help" $c --help
  one "usage: $c --bogus" $c --bogus
done
one "usage: predict --method bad" predict "$data/golden" --method fast
one "usage: phases --potential bad" phases "$data/golden" --potential cos
one "usage: run --dry-run" run --dry-run --lib "$old" -o logs -- mpirun -np 2 ./app
one "usage: run --dry-run mpich" run --dry-run --lib "$old" -o logs -- mpiexec.hydra -n 2 ./app

echo "$cases cases, $differ differ"
[ $differ -eq 0 ]
