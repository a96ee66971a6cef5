#!/usr/bin/env bash
# setrate.sh: change the link rate of a running cluster in place (tc qdisc change), without
# tearing it down: the hosts, their processes and their TCP connections stay, so a run can
# see its network slow down and recover. The bucket follows up.sh's rule for the new rate.
# Usage: bench/cluster/setrate.sh RATE [--hosts LIST] [--way both|out|in] [--burst B]
#                                      [--latency T] [--name NAME]
#   RATE          the new rate, tc syntax (e.g. 150mbit)
#   --hosts LIST  comma-separated hosts (indices or names; default: all)
#   --way W       out: what a host sends (tbf on eth0 inside it); in: what it receives (tbf
#                 on its bridge port NAME-v<i>); both (default)
#   --burst B     tbf bucket (default as up.sh: one frame plus 1 KiB, or 100 us of RATE if
#                 more, at the cluster's MTU)
#   --latency T   tbf queue length (default: the cluster's, as up.sh set it)
# Prints one line: what was changed and how long the change took (ms). When every host's
# both ways change, the cluster's settings (rate, burst, latency) are updated, so rate.sh
# compares with the new rate; after a partial change they keep the rate up.sh set.
set -euo pipefail
prog=setrate.sh
. "$(dirname "$0")/lib.sh"

new_rate=""
opt_burst=""
opt_latency=""
hostlist=""
way=both
cluster_args "$@"
set -- "${args_left[@]}"
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) need_value "$@"; hostlist=$2; shift ;;
    --way) need_value "$@"; way=$2; shift ;;
    --burst) need_value "$@"; opt_burst=$2; shift ;;
    --latency) need_value "$@"; opt_latency=$2; shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$new_rate" ] || die "one rate only (got '$new_rate' and '$1')"; new_rate=$1 ;;
  esac
  shift
done
[ -n "$new_rate" ] || die "give the new rate (see --help)"
case "$way" in both|out|in) ;; *) die "--way must be both, out or in (got '$way')" ;; esac
check_name
require_tools
load_state # hosts, rate, burst, latency, mtu, ... as up.sh (or the last full change) left them
bits=$(rate_bits "$new_rate") || die "rate '$new_rate' is not a tc rate (e.g. 100mbit, 1gbit)"
[ "$bits" -ge 8000 ] || die "rate '$new_rate' is too low (at least 8kbit)"
# up.sh's bucket rule (see there and README "The bucket"): tbf drops a frame larger than
# its bucket, and a bucket much larger than a frame lets bursts pass above the rate.
min_burst=$((mtu + 1024))
if [ -z "$opt_burst" ]; then
  new_burst=$(( bits / 8 / 10000 ))
  [ "$new_burst" -ge "$min_burst" ] || new_burst=$min_burst
  new_burst="${new_burst}b"
else
  bb=$(size_bytes "$opt_burst") || die "burst '$opt_burst' is not a tc size (e.g. 10k, 65536b)"
  [ "$bb" -ge "$min_burst" ] || die "burst '$opt_burst' ($bb B) is less than one frame plus 1 KiB (MTU $mtu + 1024 B)"
  new_burst=$opt_burst
fi
new_latency=${opt_latency:-$latency}
[[ $new_latency =~ ^[0-9]+(\.[0-9]+)?(s|ms|us)$ ]] || die "latency '$new_latency' must be a time such as 20ms"

idx=()
if [ -n "$hostlist" ]; then
  IFS=, read -r -a hl <<<"$hostlist"
  for h in "${hl[@]}"; do idx+=("$(host_index "$h")"); done
else
  for ((i = 0; i < hosts; i++)); do idx+=("$i"); done
fi

# `tc qdisc change` keeps the qdisc (and the packets queued in it) and only sets new
# parameters; it fails rather than creating a qdisc where up.sh put none. `tc -n` enters
# the namespace without a process per host, so all links change within milliseconds.
t0=$(date +%s%N)
for i in "${idx[@]}"; do
  if [ "$way" != in ]; then
    tc -n "$(host_name "$i")" qdisc change dev eth0 root tbf rate "$new_rate" burst "$new_burst" latency "$new_latency" \
      || die "cannot change the tbf of eth0 in $(host_name "$i")"
  fi
  if [ "$way" != out ]; then
    tc qdisc change dev "$(veth_name "$i")" root tbf rate "$new_rate" burst "$new_burst" latency "$new_latency" \
      || die "cannot change the tbf of $(veth_name "$i")"
  fi
done
t1=$(date +%s%N)

if [ "$way" = both ] && [ ${#idx[@]} -eq "$hosts" ]; then
  conf="$(state_dir)/conf"
  sed -i -e "s/^rate=.*/rate=$new_rate/" -e "s/^burst=.*/burst=$new_burst/" \
    -e "s/^latency=.*/latency=$new_latency/" "$conf"
fi
names=()
for i in "${idx[@]}"; do names+=("$(host_name "$i")"); done
echo "$prog: ${names[*]}: $way at $new_rate (tbf burst $new_burst, latency $new_latency) in $(( (t1 - t0) / 1000000 )) ms"
