#!/usr/bin/env bash
# probe_periodic.sh: what one probe during the run costs (PHASOR_PROBE=every=1): its time,
# from the earliest rank's start to the latest rank's end (plog_probeseries_load), median and
# max over the probes of one run, and the log bytes of one rank's PROBE frame (header and
# hash included), at each rank count. Not a test: figures for doc/log-format.md.
# Usage: bench/probe_periodic.sh BUILD_DIR [NP...]   (default 2 4 8; Open MPI: oversubscribed)
set -eu
b=$(cd "$1" && pwd); shift
[ $# -gt 0 ] || set -- 2 4 8
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for np in "$@"; do
  mpirun --oversubscribe -np "$np" -x PHASOR_DIR="$tmp/np$np" -x PHASOR_PROBE="every=1${BUDGET:+,budget=$BUDGET}" \
    -x LD_PRELOAD="$b/.libs/libphasor.so" "$b/tests/mpi/t_probe_periodic" 40 >/dev/null
  "$b/tests/mpi/probeseries_show" "$tmp/np$np" >"$tmp/np$np.show"
  python3 - "$np" "$tmp/np$np" "$tmp/np$np.show" <<'PY'
import glob, statistics, struct, sys
np_, d, show = sys.argv[1], sys.argv[2], sys.argv[3]
ms = [(int(l.split()[4]) - int(l.split()[3])) / 1e6 for l in open(show) if l[0].isdigit()]
sizes = []
for f in glob.glob(d + "/rank-*.plog"):
    b = open(f, "rb").read()
    off = struct.unpack_from("<I", b, 12)[0]
    while off + 24 <= len(b):
        magic, kind, thread, clen, rlen, count, crc = struct.unpack_from("<IHHIIII", b, off)
        if kind == 6:
            sizes.append(24 + clen)
        off += 24 + clen
print("%s ranks: %d probes, median %.2f ms, max %.2f ms; PROBE frame %d..%d bytes per rank"
      % (np_, len(ms), statistics.median(ms), max(ms), min(sizes), max(sizes)))
PY
done
