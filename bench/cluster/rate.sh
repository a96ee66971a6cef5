#!/usr/bin/env bash
# rate.sh: measure TCP throughput between hosts of the emulated cluster with iperf3 and
# compare it with the configured tbf rate. Pairs run one after another (never at once, so
# they do not share the CPU). Whatever contend.sh runs meanwhile competes, as it should.
# Usage: bench/cluster/rate.sh [--name NAME] [--time SECONDS] [SRC DST]...
#   no pair given: each host i sends to host i+1 (the last to host 0)
# Prints one line per pair: "SRC -> DST: M Mbit/s measured, C Mbit/s configured, ratio R".
set -euo pipefail
prog=rate.sh
. "$(dirname "$0")/lib.sh"

secs=3
pairs=()
cluster_args "$@"
set -- "${args_left[@]}"
while [ $# -gt 0 ]; do
  case "$1" in
    --time) need_value "$@"; secs=$2; shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) pairs+=("$1") ;;
  esac
  shift
done
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 1 ] || die "--time must be a whole number of seconds"
[ $((${#pairs[@]} % 2)) -eq 0 ] || die "hosts come in pairs: SRC DST"
check_name
require_tools unshare
load_state
ensure_cmd iperf3 iperf3
if [ ${#pairs[@]} -eq 0 ]; then
  [ "$hosts" -ge 2 ] || die "one host only: nothing to measure"
  for ((i = 0; i < hosts; i++)); do pairs+=("$i" "$(((i + 1) % hosts))"); done
fi
conf_mbit=$(awk -v b="$(rate_bits "$rate")" 'BEGIN { printf "%.1f", b / 1e6 }')

port=5199 # below contend.sh's ports
status=0
for ((k = 0; k < ${#pairs[@]}; k += 2)); do
  a=$(host_index "${pairs[k]}") b=$(host_index "${pairs[k + 1]}")
  [ "$a" -ne "$b" ] || die "a pair needs two different hosts (got $(host_name "$a") twice)"
  pidf=$(mktemp)
  ip netns exec "$(host_name "$b")" iperf3 -s -1 -D -p $port -I "$pidf" >/dev/null
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$pidf" ] && break; sleep 0.1; done
  out=$(ip netns exec "$(host_name "$a")" iperf3 -c "$(host_addr "$b")" -p $port -t "$secs" -f m 2>&1) || {
    echo "$prog: iperf3 $(host_name "$a") -> $(host_name "$b") failed: $out" >&2
    srv=$(cat "$pidf" 2>/dev/null || true); [ -n "$srv" ] && kill "$srv" 2>/dev/null
    rm -f "$pidf"; status=1; continue; }
  rm -f "$pidf"
  m=$(awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") v = $(i - 1) } END { print v }' <<<"$out")
  [ -n "$m" ] || { echo "$prog: no receiver rate in iperf3's output: $out" >&2; status=1; continue; }
  echo "$(host_name "$a") -> $(host_name "$b"): $m Mbit/s measured, $conf_mbit Mbit/s configured, ratio $(awk -v m="$m" -v c="$conf_mbit" 'BEGIN { printf "%.3f", m / c }')"
done
exit $status
