#!/usr/bin/env bash
# rsh-agent.sh: Open MPI's remote shell for the emulated cluster (plm_rsh_agent), used by
# mpirun.sh. Called as "rsh-agent.sh HOST COMMAND WORDS...", like ssh: the words are joined
# with spaces and run by a shell inside HOST's network namespace, under HOST's own hostname,
# with a fresh environment such as a remote login would give (only what a cluster's login
# files would set: PATH, the library path, root's permission for Open MPI, the PMIx store).
# HOST is a host name (NAME-h<i>) or its address.
set -uo pipefail
prog=rsh-agent.sh
[ $# -ge 2 ] || { echo "$prog: usage: $prog HOST COMMAND..." >&2; exit 255; }
host=$1; shift
ns=$host
if [[ $host =~ ^[0-9.]+$ ]]; then
  # An address: the namespace whose eth0 holds it.
  ns=""
  for n in $(ip netns list | awk '{ print $1 }'); do
    if ip -n "$n" -o -4 addr show dev eth0 2>/dev/null | grep -qF " $host/"; then ns=$n; break; fi
  done
  [ -n "$ns" ] || { echo "$prog: no cluster host has address $host" >&2; exit 255; }
fi
ip netns list | awk '{ print $1 }' | grep -qxF "$ns" || { echo "$prog: no host (network namespace) named '$host'" >&2; exit 255; }
exec ip netns exec "$ns" unshare --uts -- env -i \
  HOME="${HOME:-/root}" USER="${USER:-root}" LOGNAME="${LOGNAME:-root}" SHELL=/bin/sh \
  PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}" ${LD_LIBRARY_PATH:+LD_LIBRARY_PATH="$LD_LIBRARY_PATH"} \
  ${TMPDIR:+TMPDIR="$TMPDIR"} \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash \
  sh -c 'hostname "$0" || exit 255; eval "$1"' "$ns" "$*"
