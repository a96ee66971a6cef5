#!/usr/bin/env bash
# install-deps.sh: install, from Debian's archive, whatever phasor's build and tests need and
# the machine lacks. Usage: scripts/install-deps.sh [--mpi=openmpi|mpich] [--fuzzing] [--quiet]
#   --fuzzing  also clang and libFuzzer (tests/fuzz/smoke.sh, ./configure --enable-fuzzing)
set -euo pipefail

mpi=openmpi
quiet=0
fuzzing=0
for a in "$@"; do
  case "$a" in
    --mpi=openmpi|--mpi=mpich) mpi=${a#--mpi=} ;;
    --quiet) quiet=1 ;;
    --fuzzing) fuzzing=1 ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done

pkgs=(build-essential autoconf automake libtool autoconf-archive pkgconf python3
      libzstd-dev libxxhash-dev zlib1g-dev libcriterion-dev zstd gfortran libunwind-dev libdw-dev
      libjansson-dev)
# Optional, for tests/unit/cli_plots_render.sh (reported as skipped without it): headless
# Chromium renders the page of `phasor phases --plots`. A failure to install them is not fatal.
optional=(chromium chromium-driver)
# OTF2 export (optional at configure time; otf2-print reads the archives in the tests)
pkgs+=(libotf2-trace-dev otf2-tools)
# UCX headers: the test module recording what MPICH (ch4:ucx) sends (run_mpich_wire_tests.sh)
pkgs+=(libucx-dev)
# The emulated cluster of bench/cluster and its test: namespaces, tbf, traffic, ping.
pkgs+=(iproute2 util-linux iperf3 iputils-ping)
[ $fuzzing -eq 1 ] && pkgs+=(clang libclang-rt-14-dev)
case "$mpi" in
  openmpi) pkgs+=(openmpi-bin libopenmpi-dev) ;;
  mpich) pkgs+=(mpich libmpich-dev) ;;
esac

install_optional() {
  local miss=() p
  for p in "${optional[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || miss+=("$p")
  done
  [ ${#miss[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] && S= || S=sudo
    DEBIAN_FRONTEND=noninteractive $S apt-get install -y -qq --no-install-recommends "${miss[@]}" \
      >/dev/null 2>&1 && return 0
  fi
  echo "install-deps.sh: optional ${miss[*]} not installed (the Chromium test will be skipped)" >&2
}
trap install_optional EXIT

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps.sh: missing Debian packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
else
  SUDO=
fi
[ $quiet -eq 1 ] || echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
