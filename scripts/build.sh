#!/usr/bin/env bash
# build.sh: configure and build phasor out of tree. Usage: scripts/build.sh DIR [configure args]
# Regenerates configure when configure.ac or Makefile.am is newer (never committed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1; shift
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] \
   || [ "$top/Makefile.am" -nt "$top/Makefile.in" ] || ! ls "$top"/m4/*.m4 >/dev/null 2>&1 \
   || [ -n "$(find "$top/m4" -name '*.m4' -newer "$top/configure")" ]; then
  (cd "$top" && autoreconf -fi >/dev/null 2>&1) || (cd "$top" && autoreconf -fi)
fi
mkdir -p "$dir"
cd "$dir"
stamp="configure-args"
args="$*"
if [ ! -f Makefile ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$args" ] || [ "$top/configure" -nt Makefile ]; then
  "$top/configure" "$@" >configure.out 2>&1 || { cat configure.out; exit 1; }
  echo "$args" >"$stamp"
fi
make -j"$(nproc)" >make.out 2>&1 || { tail -50 make.out; exit 1; }
