#!/usr/bin/env bash
# demo.sh: install what is missing, build phasor, record the bundled stencil example on 4 ranks
# under the shim (with the quick network probe at MPI_Init), and show what phasor reads back:
# the report, the first events, predicted vs measured collective times, the ranks' phases, the
# oscillator model fitted to the run beside it, and a Chrome/Perfetto trace.
# Usage: scripts/demo.sh [--mpi=openmpi|mpich]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mpi=openmpi
for a in "$@"; do
  case "$a" in
    --mpi=openmpi|--mpi=mpich) mpi=${a#--mpi=} ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done

"$top/scripts/install-deps.sh" --mpi="$mpi"
case "$mpi" in
  openmpi) mpicc=$(command -v mpicc.openmpi || command -v mpicc); mpirun=$(command -v mpirun.openmpi || command -v mpirun); np_opt=(--oversubscribe) ;;
  mpich) mpicc=$(command -v mpicc.mpich); mpirun=$(command -v mpirun.mpich); np_opt=() ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bdir="$top/build/$mpi"
echo "== building phasor in $bdir"
"$top/scripts/build.sh" "$bdir" MPICC="$mpicc"
make -C "$bdir" -s examples/stencil >/dev/null

out=$(mktemp -d /tmp/phasor-demo.XXXXXX)
echo "== running the stencil example on 4 ranks under phasor (logs in $out/logs)"
PHASOR_PROBE=quick,every=50 "$bdir/phasor" run -o "$out/logs" -- "$mpirun" "${np_opt[@]}" -np 4 \
  "$bdir/examples/stencil"

echo
echo "== what phasor read back: phasor report"
"$bdir/phasor" report "$out/logs" -o "$out/report"
echo
echo "== the first events of rank 1 (times in ns on the aligned axis)"
# through a file: with pipefail, head closing the pipe early would fail the demo (SIGPIPE)
"$bdir/phasor" dump "$out/logs" --rank 1 >"$out/rank1.txt"
head -12 "$out/rank1.txt"
echo
echo "== collective times predicted from the probe, next to the measured ones: phasor predict"
"$bdir/phasor" predict "$out/logs" --kind lookup
echo
echo "== the ranks as coupled oscillators: phasor phases (CSVs and SVG plots in $out/phases)"
"$bdir/phasor" phases "$out/logs" -o "$out/phases" --plots >"$out/phases.txt"
head -8 "$out/phases.txt"
echo
echo "== the oscillator model fitted to the run, side by side with it: phasor oscillate"
"$bdir/phasor" oscillate "$out/logs" -o "$out/oscillate" >"$out/oscillate.txt"
sed -n '/^Model against measured/,/phase pattern distance/p' "$out/oscillate.txt"
echo
echo "== the network over the run, from its own messages and a probe every 50 collectives: phasor health"
"$bdir/phasor" health "$out/logs" -o "$out/health"
echo
echo "== its latency regimes: phasor regimes (plots in $out/regimes)"
"$bdir/phasor" regimes "$out/logs" --series messages,probe -o "$out/regimes" >"$out/regimes.txt"
grep -E '^series|K =|^  [0-9] ' "$out/regimes.txt"
echo
echo "== the whole run replayed on its probed network, and with rank 1 computing 1.5x slower: phasor replay"
"$bdir/phasor" replay "$out/logs" -o "$out/replay" --path-rows 3
"$bdir/phasor" replay "$out/logs" --slow-rank 1:1.5 --no-path | grep '^what-if'
echo
echo "== a trace for ui.perfetto.dev or chrome://tracing: phasor export"
"$bdir/phasor" export "$out/logs" --format chrome -o "$out/trace.json"
echo "wrote $out/trace.json ($(wc -c <"$out/trace.json") bytes)"
echo
ls -l "$out/logs"
echo "Try: $bdir/phasor dump $out/logs --json | less    (matrix heatmap: $out/report/matrix.svg)"
echo "     open $out/phases/index.html                   (the phase plots together)"
echo "     $bdir/phasor steps $out/logs | less          (the transfers inside each collective)"
echo "     open $out/replay/replay_path.json in ui.perfetto.dev (the replay's critical path)"
