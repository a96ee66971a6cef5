#!/usr/bin/env bash
# down.sh: remove an emulated cluster and everything it left: processes running in its
# hosts (MPI daemons, ranks, contention traffic), namespaces, veths, the bridge, their
# qdiscs, /etc/netns entries and the state directory. Idempotent; also cleans after a crash
# (finds the objects by name, not from saved state).
# Usage: bench/cluster/down.sh [--name NAME]
set -uo pipefail
prog=down.sh
. "$(dirname "$0")/lib.sh"

cluster_args "$@"
[ ${#args_left[@]} -eq 0 ] || die "unknown argument '${args_left[0]}' (see --help)"
check_name
require_tools

mapfile -t nss < <(ip netns list | awk '{ print $1 }' | grep -E "^$cluster_name-h[0-9]+$")

# Processes inside the hosts, by pid: TERM, then KILL what is left.
pids_in_hosts() { local h; for h in "${nss[@]}"; do ip netns pids "$h" 2>/dev/null; done; }
mapfile -t pids < <(pids_in_hosts)
if [ ${#pids[@]} -gt 0 ]; then
  kill -TERM "${pids[@]}" 2>/dev/null
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    mapfile -t pids < <(pids_in_hosts)
    [ ${#pids[@]} -eq 0 ] && break
    sleep 0.2
  done
  [ ${#pids[@]} -gt 0 ] && kill -KILL "${pids[@]}" 2>/dev/null
fi
# Contention clients recorded by contend.sh (they live in a host, so are gone by now;
# this catches pid files whose host was already deleted).
sd=$(state_dir)
for f in "$sd"/contend/*.pid; do
  [ -f "$f" ] || continue
  read -r pid _ <"$f" || continue
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && grep -q iperf3 "/proc/$pid/comm" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
done

# Deleting a namespace deletes its end of each veth pair, hence the pair and its qdiscs.
for h in "${nss[@]}"; do
  ip netns delete "$h" 2>/dev/null || echo "$prog: cannot delete namespace $h" >&2
  rm -rf "/etc/netns/$h"
done
for f in /etc/netns/"$cluster_name"-h*; do
  [[ ${f##*/} =~ ^$cluster_name-h[0-9]+$ ]] && rm -rf "$f"
done
# Bridge ports whose namespace vanished by other means, then the bridge.
while read -r l; do
  ip link delete "$l" 2>/dev/null
done < <(ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -E "^$cluster_name-(v[0-9]+|br)$" | sort -r)
rm -rf "$sd"
rmdir "$state_root" 2>/dev/null

# Verify, so a caller can rely on the exit status.
left=$( { ip netns list | awk '{ print $1 }' | grep -E "^$cluster_name-h[0-9]+$";
          ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -E "^$cluster_name-(v[0-9]+|br)$"; } )
[ -z "$left" ] || die "could not remove: $(tr "\n" " " <<<"$left")"
echo "cluster '$cluster_name' down"
