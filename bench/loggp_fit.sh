#!/usr/bin/env bash
# loggp_fit.sh: the LogGP paper's own check of its fit (002: modelled and measured round trips
# within 4 % for 64-256 KiB) on this machine. Records a full probe (phasor-probe --mode full:
# every ordered pair, 0 B and 512 B..2 MiB, one message in flight) of 2 ranks over shared
# memory and, with Open MPI, over TCP loopback (--mca btl tcp,self), and prints for each
# source the fitted bands (L, o, G), the rendezvous limit and handshake, and per size
# 64-256 KiB the measured and modelled round trip and the error, Hockney's beside it.
# A round trip is what the probe timed: `bytes` out and 0 bytes back, so measured = the
# one-way median + the 0-byte one-way median (the probe subtracts half the pair's 0-byte
# round trip), modelled = t(bytes) + t(0). Both ranks on one host, so phasor-probe is not
# given the library's eager size: the fit searches the samples for the handshake.
# A measurement, not a test. Usage: bench/loggp_fit.sh [REPS (20)]
# PHASOR_BENCH_MPI=openmpi|mpich picks the library (default openmpi); BUILD_DIR the build.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
reps=${1:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

report() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
path, name = sys.argv[1], sys.argv[2]
f = json.load(open(path))
# the source's pooled median (full probes have none: with 2 ranks, its one pair's)
med, pair = {}, {}
for row in f["samples"]:
    src, dst, n = row[0], row[1], row[2]
    (med if dst == -1 else pair)[(src, n)] = row[7]  # q50
for k, v in pair.items():
    med.setdefault(k, v)
lg, hk = f["models"]["loggp"], f["models"]["hockney"]
def lg_t(g, n):
    b = 0
    while b < len(g["bands"]) - 1 and g["bands"][b]["hi"] is not None and n > g["bands"][b]["hi"]:
        b += 1
    band = g["bands"][b]
    t = band["L2o_ns"] + band["G_ns_per_byte"] * max(n - 1, 0)
    if g["rndv"] and n > g["rndv"]:
        t += g["handshake_ns"]
    return max(t, 0.0)
def hk_t(h, n):
    for s in h["segments"]:
        if s["hi"] is None or n <= s["hi"]:
            return max(s["a_ns"] + s["b_ns_per_byte"] * n, 0.0)
print(f"== {name} (model file version {f['version']}, {f['probe']['repetitions']} repetitions)")
for g, h in zip(lg["sources"], hk["sources"]):
    src = g["src"]
    print(f"source {src}: rndv {g['rndv']} B, handshake {g['handshake_ns'] / 1e3:.2f} us, "
          f"L and o: {g['L_o_split']}")
    lo = 0
    for band in g["bands"]:
        hi = "inf" if band["hi"] is None else str(band["hi"])
        print(f"  band {lo}..{hi} B: L {band['L_ns'] / 1e3:.3f} us, o {band['o_ns'] / 1e3:.3f} us, "
              f"G {band['G_ns_per_byte']:.4f} ns/B (line at 0 B: {band['L2o_ns'] / 1e3:.3f} us)")
        lo = "" if band["hi"] is None else band["hi"] + 1
    print(f"  {'bytes':>7} {'measured us':>12} {'LogGP us':>9} {'error':>7} {'Hockney us':>11} {'error':>7}")
    for n in (65536, 131072, 262144):
        if (src, n) not in med or (src, 0) not in med:
            print(f"  {n:>7} not measured")
            continue
        m = med[(src, n)] + med[(src, 0)]
        p = lg_t(g, n) + lg_t(g, 0)
        q = hk_t(h, n) + hk_t(h, 0)
        print(f"  {n:>7} {m / 1e3:12.2f} {p / 1e3:9.2f} {100 * (p / m - 1):+6.1f}% "
              f"{q / 1e3:11.2f} {100 * (q / m - 1):+6.1f}%")
EOF
}

probe() { # NAME MPIRUN-ARGS...
  local name=$1; shift
  local out=$tmp/${name// /_}.json
  case "$mpi" in
    openmpi) "$mpirun" "${mpirun_opts[@]}" -np 2 "$@" "$bdir/phasor-probe" --mode full \
               --reps "$reps" -o "$out" >/dev/null ;;
    mpich) "$mpirun" -np 2 "$bdir/phasor-probe" --mode full --reps "$reps" -o "$out" >/dev/null ;;
  esac
  report "$out" "$name ($mpi)"
}

probe "shared memory"
[ "$mpi" = openmpi ] && probe "TCP loopback" --mca btl tcp,self
exit 0
