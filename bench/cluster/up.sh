#!/usr/bin/env bash
# up.sh: build an emulated cluster of N hosts (network namespaces on one bridge), each
# host's link rate-limited in both directions with tc tbf. See bench/cluster/README.md.
# Usage: bench/cluster/up.sh N [--rate RATE] [--burst BYTES] [--latency TIME] [--mtu BYTES]
#                              [--subnet A.B.C] [--name NAME] [--force]
#   N            number of hosts, 1..62
#   --rate R     each host's link rate, tc syntax (default 1gbit; see README for limits)
#   --burst B    tbf bucket size, tc syntax, at least MTU + 1 KiB (default: that, or 100 us
#                at RATE if more)
#   --latency T  longest wait of a packet in the tbf queue (default 20ms)
#   --mtu M      the links' MTU, 576..65535 (default 9000: jumbo frames, as HPC Ethernet
#                uses; a one-frame bucket of 1500 B costs the 2 cores too much)
#   --subnet S   first three bytes of the hosts' /24 (default 10.77.0; host i is S.(i+1))
#   --name NAME  cluster name, prefix of every object (default phc or $PHASOR_CLUSTER)
#   --force      tear down a cluster of the same name first
set -euo pipefail
prog=up.sh
. "$(dirname "$0")/lib.sh"

n=""
rate=1gbit
burst=""
latency=20ms
mtu=9000
subnet=10.77.0
force=0
cluster_args "$@"
set -- "${args_left[@]}"
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) need_value "$@"; rate=$2; shift ;;
    --burst) need_value "$@"; burst=$2; shift ;;
    --latency) need_value "$@"; latency=$2; shift ;;
    --mtu) need_value "$@"; mtu=$2; shift ;;
    --subnet) need_value "$@"; subnet=$2; shift ;;
    --force) force=1 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$n" ] || die "one host count only (got '$n' and '$1')"; n=$1 ;;
  esac
  shift
done
[ -n "$n" ] || die "give the number of hosts (see --help)"
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 62 ] || die "host count '$n' must be 1..62"
check_name
bits=$(rate_bits "$rate") || die "rate '$rate' is not a tc rate (e.g. 100mbit, 1gbit)"
[ "$bits" -ge 8000 ] || die "rate '$rate' is too low (at least 8kbit)"
[[ $subnet =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] \
  && [ "${BASH_REMATCH[1]}" -le 255 ] && [ "${BASH_REMATCH[2]}" -le 255 ] && [ "${BASH_REMATCH[3]}" -le 255 ] \
  || die "subnet '$subnet' must be three bytes, e.g. 10.77.0"
[[ $mtu =~ ^[0-9]+$ ]] && [ "$mtu" -ge 576 ] && [ "$mtu" -le 65535 ] || die "mtu '$mtu' must be 576..65535"
# tbf drops a frame larger than its bucket (which tc rounds down to its clock's ticks), so
# TCP between the hosts would stall: the bucket holds a frame and 1 KiB at least.
min_burst=$((mtu + 1024))
if [ -z "$burst" ]; then
  # A real link serialises every byte at its rate; tbf lets a full bucket pass at once, so
  # the bucket is kept to one frame (plus headroom), or 100 us of RATE where that is more:
  # below that tbf's timer cannot keep the link busy (1gbit with a 10 KiB bucket: 0.82-0.89
  # of the rate). A 64 KiB bucket made 16-64 KiB messages after a pause several times faster
  # than the link (bench/cluster/README.md).
  burst=$(( bits / 8 / 10000 ))
  [ "$burst" -ge "$min_burst" ] || burst=$min_burst
  burst="${burst}b"
else
  bb=$(size_bytes "$burst") || die "burst '$burst' is not a tc size (e.g. 10k, 65536b)"
  [ "$bb" -ge "$min_burst" ] || die "burst '$burst' ($bb B) is less than one frame plus 1 KiB (MTU $mtu + 1024 B)"
fi
[[ $latency =~ ^[0-9]+(\.[0-9]+)?(s|ms|us)$ ]] || die "latency '$latency' must be a time such as 20ms"
require_tools unshare
ensure_cmd ping iputils-ping

sd=$(state_dir)
if [ -e "$sd" ] || ip netns list | grep -qE "^$cluster_name-h[0-9]+( |$)" || ip link show "$(bridge_name)" >/dev/null 2>&1; then
  if [ $force -eq 1 ]; then
    "$cluster_dir/down.sh" --name "$cluster_name"
  else
    die "cluster '$cluster_name' (or a remnant of it) exists; run bench/cluster/down.sh --name $cluster_name, or give --force"
  fi
fi

# Half-built clusters are removed, whatever step failed.
trap 'st=$?; if [ $st -ne 0 ]; then echo "$prog: failed; removing what was built" >&2; "$cluster_dir/down.sh" --name "$cluster_name" >/dev/null 2>&1 || true; fi' EXIT

mkdir -p "$sd/contend"
br=$(bridge_name)
ip link add "$br" type bridge
# No spanning tree and no forwarding delay: ports forward the moment they come up.
ip link set "$br" type bridge stp_state 0 forward_delay 0 2>/dev/null || true
ip link set "$br" up

hostsfile=$(mktemp)
{
  echo "127.0.0.1 localhost"
  echo "::1 localhost ip6-localhost ip6-loopback"
  for ((i = 0; i < n; i++)); do echo "$subnet.$((i + 1)) $(host_name $i)"; done
} >"$hostsfile"

shape() { # netns-or-"" dev
  local ns=(); [ -n "$1" ] && ns=(ip netns exec "$1")
  "${ns[@]}" tc qdisc replace dev "$2" root tbf rate "$rate" burst "$burst" latency "$latency"
}

for ((i = 0; i < n; i++)); do
  h=$(host_name $i) v=$(veth_name $i)
  ip netns add "$h"
  ip link add "$v" type veth peer name eth0 netns "$h"
  ip link set "$v" mtu "$mtu"
  ip -n "$h" link set eth0 mtu "$mtu"
  ip link set "$v" master "$br"
  ip link set "$v" up
  ip -n "$h" link set lo up
  ip -n "$h" addr add "$subnet.$((i + 1))/24" dev eth0
  ip -n "$h" link set eth0 up
  # Egress of eth0 in the host: what the host sends. Egress of the bridge port: what it
  # receives. Both limited: a full-duplex link of RATE each way.
  shape "$h" eth0
  shape "" "$v"
  mkdir -p "/etc/netns/$h"
  cp "$hostsfile" "/etc/netns/$h/hosts"
done
rm -f "$hostsfile"

# TCP congestion control: what a namespace inherits, the machine's default. Recorded, not set:
# a namespace may only pick one the machine allows (tcp_allowed_congestion_control).
cc=$(ip netns exec "$(host_name 0)" cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null || echo unknown)
cat >"$sd/conf" <<EOF
hosts=$n
rate=$rate
burst=$burst
latency=$latency
mtu=$mtu
cc=$cc
subnet=$subnet
EOF
: >"$sd/hostfile"
for ((i = 0; i < n; i++)); do echo "$(host_name $i)" >>"$sd/hostfile"; done

# Every host must reach every other before the cluster is declared up (ports may take a
# moment to forward).
for ((i = 0; i < n; i++)); do
  for ((j = 0; j < n; j++)); do
    [ $i -ne $j ] || continue
    ok=0
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      if ip netns exec "$(host_name $i)" ping -c 1 -W 1 -q "$subnet.$((j + 1))" >/dev/null 2>&1; then ok=1; break; fi
      sleep 0.2
    done
    [ $ok -eq 1 ] || die "$(host_name $i) cannot ping $(host_name $j) ($subnet.$((j + 1)))"
  done
done
trap - EXIT
echo "cluster '$cluster_name' up: $n hosts $(host_name 0) .. $(host_name $((n - 1))) on $subnet.0/24, $rate each way per host (tbf burst $burst, latency $latency, MTU $mtu, TCP $cc)"
