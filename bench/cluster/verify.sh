#!/usr/bin/env bash
# verify.sh: check the emulated cluster end to end on this machine and print what it
# measures: a cluster of its own (name phcv) is brought up, each link's iperf3 rate is set
# against the tbf rate, an MPI program runs with 1 and 2 ranks per host under phasor (whose
# logs must name every host), the MPI bandwidth of a pair is measured alone and against
# contention, and the teardown is checked to leave nothing. A measurement, not a test: the
# ratios are printed, and only a broken step (not a slow one) makes the exit status non-zero.
# Usage: bench/cluster/verify.sh [N (default 4)] [--rate R (default 1gbit)]
#   BUILD_DIR (default build/openmpi) is the phasor build to use; it is built when missing.
set -euo pipefail
prog=verify.sh
. "$(dirname "$0")/lib.sh"

n=4
rate=1gbit
cluster_args "$@"
set -- "${args_left[@]}"
[ -z "$name_given" ] || die "it brings up a cluster of its own, phcv: no --name"
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) need_value "$@"; rate=$2; shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) n=$1 ;;
  esac
  shift
done
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] || die "N must be at least 2"
require_tools unshare
top=$(cd "$cluster_dir/../.." && pwd)
bdir=${BUILD_DIR:-$top/build/openmpi}
mpicc=$(command -v mpicc.openmpi || command -v mpicc || true)
[ -n "$mpicc" ] || die "Open MPI's mpicc not found (scripts/install-deps.sh installs it)"
[ -x "$bdir/phasor" ] || "$top/scripts/build.sh" "$bdir" MPICC="$mpicc"
make -C "$bdir" -s examples/stencil bench/cluster/mpibw >/dev/null
export PHASOR_CLUSTER=phcv
cluster_name=phcv
work=$(mktemp -d "${TMPDIR:-/tmp}/phasor-clusterverify.XXXXXX")
trap '"$cluster_dir/down.sh" >/dev/null 2>&1; rm -rf "$work"' EXIT

step() { echo "== $*"; }
step "up: $n hosts at $rate"
"$cluster_dir/up.sh" "$n" --rate "$rate" --force

step "ping by name, host 0 to the last"
ip netns exec "$(host_name 0)" ping -c 3 -q "$(host_name $((n - 1)))" | tail -1

step "iperf3 per link (ceiling ~0.99 at MTU 9000, ~0.955 at 1500: TCP payload per byte on the wire)"
"$cluster_dir/rate.sh" --time 3

for k in 1 2; do
  step "stencil on $n hosts x $k under phasor"
  "$bdir/phasor" run -o "$work/logs$k" -- "$cluster_dir/mpirun.sh" --slots "$k" -- \
    "$bdir/examples/stencil" 512 50 >"$work/run$k.out" 2>&1 || { cat "$work/run$k.out"; die "stencil failed"; }
  "$bdir/phasor" dump "$work/logs$k" | grep '^# rank [0-9]' | sed 's/^# /  /'
  got=$("$bdir/phasor" dump "$work/logs$k" --json | grep -o '"hostname": *"[^"]*"' | sort -u | wc -l)
  [ "$got" -eq "$n" ] || die "phasor's logs name $got hosts, not $n"
  echo "  $((n * k)) ranks on $got hosts"
done

last=$((n - 1))
step "MPI bandwidth $(host_name 0) -> $(host_name 1), alone and against contention into $(host_name 1)"
bw() { "$cluster_dir/mpirun.sh" --hosts 0,1 -- "$bdir/bench/cluster/mpibw" 1048576 10 | awk '/^total/ { print $2 }'; }
alone=$(bw)
src=$last; [ "$src" -ne 1 ] || src=0
if [ "$src" -eq 0 ]; then
  echo "  (2 hosts: the contention comes from host 0 itself, sharing its out-link)"
fi
"$cluster_dir/contend.sh" start "$src" 1
sleep 1
loaded=$(bw)
"$cluster_dir/contend.sh" stop
after=$(bw)
awk -v a="$alone" -v l="$loaded" -v f="$after" -v r="$(rate_bits "$rate")" 'BEGIN {
  printf "  alone %.1f Mbit/s (%.3f of the rate), contended %.1f Mbit/s (%.3f of alone), after %.1f Mbit/s\n",
         a, a * 1e6 / r, l, l / a, f }'

step "teardown"
"$cluster_dir/down.sh"
trap 'rm -rf "$work"' EXIT
left=$( { ip netns list | grep -E "^phcv-" || true; ip -o link show | grep -E ": phcv-" || true;
          tc qdisc show | grep -E "dev phcv-" || true; ls -d /etc/netns/phcv-* 2>/dev/null || true; } )
[ -z "$left" ] || die "left after teardown: $left"
echo "  nothing left (namespaces, links, qdiscs, /etc/netns, state)"
