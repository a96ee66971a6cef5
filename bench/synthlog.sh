# synthlog.sh: sourced by the throughput benches (report, steps, phases), which time one
# `phasor` command on one core over a synthetic log written by bench/mklog. Sets top, bdir
# (BUILD_DIR, default build/openmpi, must be configured), tmp (removed at exit) and log
# (LOGDIR to keep or reuse the log there, else under tmp). Not a test: prints measurements.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bdir=${BUILD_DIR:-$top/build/openmpi}
if [ ! -f "$bdir/Makefile" ]; then
  echo "$(basename "$0"): $bdir is not a configured build tree (set BUILD_DIR)" >&2
  exit 2
fi
make -C "$bdir" -s phasor bench/mklog >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=${LOGDIR:-$tmp/log}
mkdir -p "$log"

# synth_log WHAT MKLOG_ARGS...: writes the log unless it is there in the current format
# version (mklog's stdout to $tmp/mklog.out), saying how big it is and how long it took; WHAT
# describes it. A kept log of another version is written anew: the reader's speed differs.
synth_log() {
  local what=$1; shift
  if [ -f "$log/rank-000000.plog" ]; then
    local cur have
    cur=$(sed -n 's/^#define PLOG_VERSION \([0-9]*\)u.*/\1/p' "$top/format/plog_format.h")
    have=$(od -An -tu4 -j8 -N4 "$log/rank-000000.plog" | tr -d ' ')
    [ "$have" = "$cur" ] && return 0
    echo "$log holds logs of format version $have, not $cur: writing them anew"
    rm -f "$log"/rank-*.plog
  fi
  local start
  start=$(date +%s.%N)
  "$bdir/bench/mklog" "$@" >"$tmp/mklog.out"
  echo "wrote $(du -sh "$log" | cut -f1) of logs ($what) in $(echo "$(date +%s.%N) - $start" | bc) s"
}

# timed FILE CMD...: runs CMD pinned to core 0 under /usr/bin/time -v (its stderr to FILE),
# then sets wall (s) and rss (KiB) from FILE. Exits with FILE shown when CMD fails.
timed() {
  local f=$1; shift
  /usr/bin/time -v taskset -c 0 "$@" 2>"$f" || { cat "$f" >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$f")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$f")
}
