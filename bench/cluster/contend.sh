#!/usr/bin/env bash
# contend.sh: background traffic that competes with the MPI job for chosen links. A TCP
# stream from SRC to DST (iperf3, installed from Debian when missing) loads SRC's outgoing
# and DST's incoming link until stopped; several pairs may run at once.
# Usage: bench/cluster/contend.sh [--name NAME] start SRC DST [RATE] [--streams K]
#        bench/cluster/contend.sh [--name NAME] stop [SRC DST]   (no pair: stop all)
#        bench/cluster/contend.sh [--name NAME] status
#   SRC, DST   hosts: index (0), short (h0) or full name (phc-h0)
#   RATE       the stream's target rate, iperf3 syntax (e.g. 200M, 1G); default: as fast
#              as TCP gets, i.e. a fair share of the link against each MPI connection
#   --streams K  parallel TCP streams (default 1); more streams take a larger share
set -euo pipefail
prog=contend.sh
. "$(dirname "$0")/lib.sh"

action=""
args=()
streams=1
cluster_args "$@"
set -- "${args_left[@]}"
while [ $# -gt 0 ]; do
  case "$1" in
    --streams) need_value "$@"; streams=$2; shift ;;
    start|stop|status) [ -z "$action" ] || die "one action only"; action=$1 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ -n "$action" ] || die "give an action: start, stop or status (see --help)"
[[ $streams =~ ^[0-9]+$ ]] && [ "$streams" -ge 1 ] && [ "$streams" -le 32 ] || die "--streams must be 1..32"
check_name
require_tools unshare
load_state
cd_="$(state_dir)/contend"
mkdir -p "$cd_"

alive() { [ -n "$1" ] && [ -d "/proc/$1" ] && grep -qx iperf3 "/proc/$1/comm" 2>/dev/null; }
stop_pair() { # a b
  local f="$cd_/$1-$2" pid
  for pid in $(cat "$f.client.pid" "$f.server.pid" 2>/dev/null); do
    alive "$pid" && kill -TERM "$pid" 2>/dev/null
  done
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    local any=0
    for pid in $(cat "$f.client.pid" "$f.server.pid" 2>/dev/null); do alive "$pid" && any=1; done
    [ $any -eq 0 ] && break
    sleep 0.1
  done
  for pid in $(cat "$f.client.pid" "$f.server.pid" 2>/dev/null); do
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
  done
  rm -f "$f.client.pid" "$f.server.pid" "$f.rate"
  echo "contention $(host_name "$1") -> $(host_name "$2") stopped"
}

case "$action" in
  start)
    [ ${#args[@]} -ge 2 ] && [ ${#args[@]} -le 3 ] || die "start needs SRC DST [RATE]"
    a=$(host_index "${args[0]}") b=$(host_index "${args[1]}")
    [ "$a" -ne "$b" ] || die "source and destination are the same host"
    brate=${args[2]:-0}
    [[ $brate =~ ^[0-9]+(\.[0-9]+)?[KMGTkmgt]?$ ]] || die "rate '$brate' must be a number with an optional K, M, G or T suffix"
    ensure_cmd iperf3 iperf3
    f="$cd_/$a-$b"
    if alive "$(cat "$f.client.pid" 2>/dev/null || true)"; then
      die "contention $(host_name "$a") -> $(host_name "$b") already runs (stop it first)"
    fi
    port=$((5201 + a)) # one server per source in each destination host
    rm -f "$f.server.pid" "$f.client.pid"
    ip netns exec "$(host_name "$b")" iperf3 -s -D -p $port -I "$f.server.pid" --logfile "$f.server.log"
    for _ in $(seq 50); do [ -s "$f.server.pid" ] && break; sleep 0.1; done
    [ -s "$f.server.pid" ] || die "iperf3 server did not start in $(host_name "$b") (see $f.server.log)"
    # The daemon writes its pid file before it listens: on a loaded machine a client started
    # at once is refused. Wait for the listening socket, and give a refused client two more
    # tries.
    for _ in $(seq 50); do
      ip netns exec "$(host_name "$b")" ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
      sleep 0.1
    done
    for try in 1 2 3; do
      ip netns exec "$(host_name "$a")" iperf3 -c "$(host_addr "$b")" -p $port -t 0 -b "$brate" \
        -P "$streams" -i 0 --connect-timeout 2000 >"$f.client.log" 2>&1 </dev/null &
      echo $! >"$f.client.pid"
      sleep 0.5
      alive "$(cat "$f.client.pid")" && break
      grep -q "Connection refused" "$f.client.log" && [ "$try" -lt 3 ] && { sleep 0.5; continue; }
      st=$(cat "$f.client.log"); stop_pair "$a" "$b" >/dev/null; die "iperf3 client failed: $st"
    done
    echo "${brate/#0/link speed}" >"$f.rate"
    echo "contention $(host_name "$a") -> $(host_name "$b") started (${streams} TCP stream(s), rate ${brate/#0/link speed}, port $port)"
    ;;
  stop)
    if [ ${#args[@]} -eq 0 ]; then
      for f in "$cd_"/*.client.pid "$cd_"/*.server.pid; do
        [ -f "$f" ] || continue
        p=${f##*/}; p=${p%%.*}
        [ -f "$cd_/$p.done" ] && continue
        touch "$cd_/$p.done"
        stop_pair "${p%-*}" "${p#*-}"
      done
      rm -f "$cd_"/*.done
    else
      [ ${#args[@]} -eq 2 ] || die "stop takes SRC DST or nothing"
      a=$(host_index "${args[0]}") b=$(host_index "${args[1]}")
      stop_pair "$a" "$b"
    fi
    ;;
  status)
    n=0
    for f in "$cd_"/*.client.pid; do
      [ -f "$f" ] || continue
      p=${f##*/}; p=${p%%.*}
      if alive "$(cat "$f")"; then st=running; else st="ended (see $cd_/$p.client.log)"; fi
      echo "$(host_name "${p%-*}") -> $(host_name "${p#*-}"): rate $(cat "$cd_/$p.rate" 2>/dev/null || echo '?'), $st"
      n=$((n + 1))
    done
    [ $n -gt 0 ] || echo "no contention in cluster '$cluster_name'"
    ;;
esac
