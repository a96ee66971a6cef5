# shellcheck shell=bash
# lib.sh: sourced by the bench/cluster scripts: names, state and checks shared by all.
# A cluster called NAME (default "phc", or $PHASOR_CLUSTER, or --name) is made of:
#   network namespaces NAME-h0 .. NAME-h<N-1>   (the "hosts"; also their hostnames)
#   a bridge NAME-br in the root namespace       (the "switch"; it has no address)
#   veth pairs NAME-v<i> (bridge side) <-> eth0 (inside NAME-h<i>)
#   /etc/netns/NAME-h<i>/hosts                   (name resolution inside the hosts)
#   /run/phasor-cluster/NAME/                    (settings, hostfile, contention pids)
# Every name derives from NAME, so down.sh can find all of it again after a crash.

cluster_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster_name=${PHASOR_CLUSTER:-phc}
state_root=/run/phasor-cluster

die() { echo "$prog: $*" >&2; exit 1; }

# The names must fit Linux's 15-character interface names ("NAME-v63").
check_name() {
  [[ $cluster_name =~ ^[a-z][a-z0-9]{0,7}$ ]] \
    || die "cluster name '$cluster_name' must be 1-8 lowercase letters or digits, starting with a letter"
}

# Fail cleanly, before touching anything, when the machine cannot host a cluster.
require_tools() { # extra tools...
  [ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, veth, bridge and tc need CAP_NET_ADMIN)"
  local t
  for t in ip tc "$@"; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found on PATH (Debian: apt-get install ${pkg_of[$t]:-$t})"
  done
}
declare -A pkg_of=([ip]=iproute2 [tc]=iproute2 [unshare]=util-linux [iperf3]=iperf3
                   [mpirun]=openmpi-bin [orted]=openmpi-bin [ping]=iputils-ping)

# Install a Debian package when its command is missing (only as root, which all scripts are).
ensure_cmd() { # command package
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "$prog: installing $2 from Debian's archive" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y -qq --no-install-recommends "$2" >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends "$2" >/dev/null; }; } \
    || die "cannot install $2 (apt-get failed)"
  command -v "$1" >/dev/null 2>&1 || die "$2 installed but '$1' still not on PATH"
}

state_dir() { echo "$state_root/$cluster_name"; }
host_name() { echo "$cluster_name-h$1"; }
veth_name() { echo "$cluster_name-v$1"; }
bridge_name() { echo "$cluster_name-br"; }

# Load the settings up.sh saved: hosts (count), rate, burst, latency, mtu, cc (the hosts'
# TCP congestion control), subnet (a.b.c).
load_state() {
  local f; f="$(state_dir)/conf"
  [ -f "$f" ] || die "no cluster '$cluster_name' is up (no $f); run bench/cluster/up.sh N first"
  # shellcheck disable=SC1090
  . "$f"
}

# HOST may be given as NAME-h<i>, h<i> or <i>; prints the index.
host_index() {
  local h=$1
  h=${h#"$cluster_name"-}
  h=${h#h}
  [[ $h =~ ^[0-9]+$ ]] && [ "$h" -lt "$hosts" ] || die "no host '$1' in cluster '$cluster_name' (hosts: $(host_name 0) .. $(host_name $((hosts - 1))))"
  echo "$h"
}
host_addr() { echo "$subnet.$(($1 + 1))"; }

# Run a command inside host i, under the host's own hostname (a UTS namespace of its own),
# as a remote shell would see it. netns exec also binds /etc/netns/HOST/hosts over /etc/hosts.
in_host() { # index command...
  local h; h=$(host_name "$1"); shift
  ip netns exec "$h" unshare --uts -- sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
}

# tc_number VALUE ROUND UNIT=FACTOR...: VALUE (a number and a unit, any case) times its
# unit's factor, rounded (ROUND 1) or truncated (0), as an integer; fails on another unit.
# awk's %d would stop at 2^31 - 1 (mawk), hence %.0f.
tc_number() {
  local v=${1,,} round=$2 n u p
  shift 2
  [[ $v =~ ^([0-9]+(\.[0-9]+)?)([a-z]*)$ ]] || return 1
  n=${BASH_REMATCH[1]} u=${BASH_REMATCH[3]}
  for p in "$@"; do
    [ "${p%%=*}" = "$u" ] || continue
    awk -v n="$n" -v f="${p#*=}" -v r="$round" \
      'BEGIN { x = n * f; printf "%.0f", r ? x : int(x) }'
    return 0
  done
  return 1
}

# Rate in bit/s from tc's syntax (e.g. 500mbit, 1gbit, 20mbit, 125mbps).
rate_bits() {
  tc_number "$1" 1 =1 bit=1 kbit=1e3 mbit=1e6 gbit=1e9 bps=8 kbps=8e3 mbps=8e6 gbps=8e9
}

# A tc size (tc's get_size: b, k/kb, m/mb, g/gb in bytes, kbit/mbit/gbit in bits) in bytes,
# truncated as tc truncates it.
size_bytes() {
  tc_number "$1" 0 =1 b=1 k=1024 kb=1024 m=1048576 mb=1048576 g=1073741824 gb=1073741824 \
    kbit=128 mbit=131072 gbit=134217728
}

# --help: the comment block at the top of the calling script.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

# The arguments every script shares: "--opt=VALUE" is "--opt VALUE", -h/--help prints the
# usage, --name NAME names the cluster (name_given=1). What is left, in order, is in
# args_left for the script's own options; from "--" on nothing is touched (a program's
# arguments):   cluster_args "$@"; set -- "${args_left[@]}"
cluster_args() {
  args_left=()
  name_given=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --) args_left+=("$@"); return ;;
      --*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}"; continue ;;
      -h|--help) usage; exit 0 ;;
      --name) need_value "$@"; cluster_name=$2; name_given=1; shift ;;
      *) args_left+=("$1") ;;
    esac
    shift
  done
}

# need_value OPTION ARGS...: dies unless OPTION is followed by a non-empty value.
need_value() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }
