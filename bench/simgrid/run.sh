#!/bin/sh
# run.sh: replay a `phasor export --format simgrid` directory with SimGrid 3.32's SMPI and
# print the simulated time beside the measured one. Not a test (not in scripts/test.sh or
# CI): SimGrid is optional. Exit 77 when SimGrid (smpirun, smpicxx) is not installed
# (Debian: apt-get install libsimgrid-dev).
# Usage: bench/simgrid/run.sh EXPORT_DIR [LOG_DIR [PHASOR]]
#   EXPORT_DIR  from `phasor export --format simgrid LOG_DIR -o EXPORT_DIR`
#   LOG_DIR     the log, for the measured time: from the earliest MPI_Init return to the
#               latest MPI_Finalize start (the replay's clock runs from init to finalize;
#               `phasor report`'s app time, across ranks)
# (smpicxx says -std=gnu++11; SimGrid 3.32's own headers need C++17.)
# Output: "simulated_s X", and with LOG_DIR "measured_s Y" and "ratio X/Y".
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: run.sh EXPORT_DIR [LOG_DIR [PHASOR]]}
log=${2:-}
phasor=${3:-phasor}
if ! command -v smpirun >/dev/null 2>&1 || ! command -v smpicxx >/dev/null 2>&1; then
    echo "run.sh: SimGrid's smpirun/smpicxx not found (apt-get install libsimgrid-dev); skipped" >&2
    exit 77
fi
[ -f "$dir/traces.txt" ] || { echo "run.sh: $dir/traces.txt: not an export (phasor export --format simgrid)" >&2; exit 1; }
bin=${TMPDIR:-/tmp}/phasor-simgrid-replay.$$
trap 'rm -f "$bin"' EXIT
smpicxx -std=gnu++17 -O2 -o "$bin" "$here/replay.cpp" || { echo "run.sh: smpicxx failed" >&2; exit 1; }
out=$(REPLAY="$bin" sh "$dir/run.sh" 2>&1) || { echo "$out" | tail -20 >&2; echo "run.sh: smpirun failed" >&2; exit 1; }
# smpi_replay_main: "[host:rank:(pid) T] [smpi_replay/INFO] Simulation time T"
sim=$(echo "$out" | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -1)
[ -n "$sim" ] || { echo "$out" | tail -20 >&2; echo "run.sh: no 'Simulation time' in SimGrid's output" >&2; exit 1; }
echo "simulated_s $sim"
if [ -n "$log" ]; then
    meas=$("$phasor" dump --csv "$log" 2>/dev/null | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["call"] ~ /^MPI_Init/ { if (t0 == "" || $c["end_ns"] < t0) t0 = $c["end_ns"] }
        $c["call"] == "MPI_Finalize" { if (t1 == "" || $c["start_ns"] > t1) t1 = $c["start_ns"] }
        END { if (t0 != "" && t1 != "") printf "%.9f\n", (t1 - t0) / 1e9 }')
    [ -n "$meas" ] || { echo "run.sh: $log: no MPI_Init and MPI_Finalize to measure between" >&2; exit 1; }
    echo "measured_s $meas"
    awk -v s="$sim" -v m="$meas" 'BEGIN { printf "ratio %.4f\n", s / m }'
fi
