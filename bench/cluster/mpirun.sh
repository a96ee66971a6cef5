#!/usr/bin/env bash
# mpirun.sh: run an Open MPI job across the emulated cluster. mpirun itself runs in the
# first host (as on a real cluster's first node) and starts a daemon in every other host
# through rsh-agent.sh; all traffic, daemons' and ranks', goes over the rate-limited links.
# Usage: bench/cluster/mpirun.sh [--name NAME] [--slots K] [--hosts LIST] [--btl LIST]
#                                [MPIRUN ARGS...] [-- PROGRAM ARGS...]
#   --slots K     ranks per host (hostfile slots; default 1). Without -np, mpirun starts
#                 hosts x K ranks, filling each host in turn.
#   --hosts LIST  comma-separated hosts to use (indices or names; default: all)
#   --btl LIST    Open MPI BTLs (default tcp,vader,self: shared memory within a host, TCP
#                 over the emulated links between hosts, as on a real cluster; tcp,self
#                 makes ranks of one host talk TCP over its loopback)
#   --version     print the Open MPI version (so `phasor run` recognises the launcher)
# Ranks yield the CPU when idle (mpi_yield_when_idle 1) unless the arguments set it.
# Everything else before "--" goes to mpirun (-np, -x VAR, --map-by, --mca ...); after
# "--" comes the program. Recording with phasor:
#   phasor run -o logs -- bench/cluster/mpirun.sh --slots 2 -- ./app
#   bench/cluster/mpirun.sh -x LD_PRELOAD=build/openmpi/.libs/libphasor.so -x PHASOR_DIR=$PWD/logs -- ./app
# The environment: $MPIRUN (default mpirun.openmpi, else mpirun) picks the launcher.
set -euo pipefail
prog=mpirun.sh
. "$(dirname "$0")/lib.sh"

mpirun=${MPIRUN:-$(command -v mpirun.openmpi || command -v mpirun || true)}
slots=1
hostlist=""
btl=tcp,vader,self
margs=()
pargs=()
seen_dd=0
cluster_args "$@"
set -- "${args_left[@]}"
while [ $# -gt 0 ]; do
  if [ $seen_dd -eq 1 ]; then pargs+=("$1"); shift; continue; fi
  case "$1" in
    --version|-V)
      [ -n "$mpirun" ] || die "Open MPI's mpirun not found (Debian: apt-get install openmpi-bin)"
      exec "$mpirun" --version ;;
    --slots) need_value "$@"; slots=$2; shift ;;
    --hosts) need_value "$@"; hostlist=$2; shift ;;
    --btl) need_value "$@"; btl=$2; shift ;;
    --) seen_dd=1 ;;
    *) margs+=("$1") ;;
  esac
  shift
done
[[ $slots =~ ^[0-9]+$ ]] && [ "$slots" -ge 1 ] || die "--slots must be a positive number"
check_name
require_tools unshare
[ -n "$mpirun" ] || die "Open MPI's mpirun not found (Debian: apt-get install openmpi-bin)"
"$mpirun" --version 2>&1 | grep -E "Open MPI|OpenRTE" >/dev/null || die "$mpirun is not Open MPI's mpirun (this testbed drives Open MPI)"
load_state
[ ${#pargs[@]} -gt 0 ] || [ ${#margs[@]} -gt 0 ] || die "nothing to run (see --help)"

idx=()
if [ -n "$hostlist" ]; then
  IFS=, read -r -a hl <<<"$hostlist"
  for h in "${hl[@]}"; do idx+=("$(host_index "$h")"); done
else
  for ((i = 0; i < hosts; i++)); do idx+=("$i"); done
fi
sd=$(state_dir)
hf=$(mktemp "$sd/hostfile.XXXXXX")
trap 'rm -f "$hf"' EXIT
for i in "${idx[@]}"; do echo "$(host_name "$i") slots=$slots max_slots=$slots"; done >"$hf"

# mpirun: the network of the cluster only (eth0 in each host is the only interface besides
# lo, but name the subnet so nothing else is ever tried); a daemon per host started
# directly by mpirun, not by other daemons (every daemon needs the agent); the PMIx store
# in process memory (its default shared-memory store fails across these hosts).
# The ob1 PML over those BTLs, never UCX: all hosts share one machine, and UCX would find
# its shared-memory transports between them and bypass the emulated links.
# Ranks yield when idle: every "host" shares the same few cores, and a rank that spins
# starves the kernel threads that carry packets across the veths and the bridge (what a
# real NIC does on its own): 0-byte latency between hosts grows from ~20 us to ~1 ms.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
yield=(--mca mpi_yield_when_idle 1)
for a in "${margs[@]}"; do [ "$a" = mpi_yield_when_idle ] && yield=(); done
cmd=("$mpirun" --hostfile "$hf"
     --mca plm_rsh_agent "$cluster_dir/rsh-agent.sh" --mca plm_rsh_no_tree_spawn 1
     --mca pml ob1 --mca osc ^ucx
     --mca btl "$btl" --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24"
     "${yield[@]}" "${margs[@]}" "${pargs[@]}")
st=0
in_host "${idx[0]}" "${cmd[@]}" || st=$?
exit $st
