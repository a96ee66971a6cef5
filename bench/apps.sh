#!/usr/bin/env bash
# apps.sh: what phasor costs on whole applications, unmodified, as a user runs them: the wall
# time of mpirun (launch included) for each application plain (no shim), under phasor without
# call sites (PHASOR_CALLSITE_DEPTH=0) and under phasor as it comes (call sites at the default
# depth, 4), the three interleaved (plain, nosite, default, plain, ...), RUNS runs each;
# medians, each shimmed median's ratio to plain, and beside it the events a run's log holds
# (phasor report --json) and its bytes. The load average is printed at the start and the end.
#  - lammps: Debian's LAMMPS (lmp) on its `melt` example (4000 atoms of Lennard-Jones fluid),
#    a copy of the installed in.melt made to run 9000 steps (~10 s on 2 ranks here);
#  - hpcc: the HPC Challenge suite (HPL, PTRANS, DGEMM, STREAM, RandomAccess, FFT, latency and
#    bandwidth), N = 3000 in the hpccinf.txt this script writes (~15 s on 2 ranks);
#  - stencil: examples/stencil 1024 10000 (~7 s on 2 ranks).
# Targets, with call sites at the default depth: lammps and stencil <= 2 % slower than plain,
# hpcc <= 5 % (it runs many small timed kernels, some of them latency loops).
# A run that fails (the application's exit status) or lacks the application's own success
# marker (LAMMPS' "Total wall time", hpccoutf.txt's "End of HPC Challenge tests." and no
# FAILED check, the stencil's checksum), or a shimmed run that left no log, ends the script
# with status 1: a silently failing run is never timed. LAMMPS and hpcc are installed from
# Debian when missing (lammps, lammps-examples, hpcc); an app that cannot be installed, or
# that cannot run under the MPI measured (Debian's builds are Open MPI's), is skipped with a
# message. Not a test: prints measurements (at least 7 runs each for a published figure).
# Usage: bench/apps.sh [options] [RUNS (default 7)]
#   --apps LIST        comma-separated, from lammps,hpcc,stencil (default: all three)
#   --np N             ranks (default 2)
#   --quick            small sizes (~1-3 s a run): checks that the script works, not a figure
#   --lammps-steps S   melt's steps (default 9000)
#   --hpcc-n N         HPL's matrix order, which also sizes hpcc's other tests (default 3000)
#   --stencil "N IT"   the stencil's size and iterations (default "1024 10000")
# Environment: BUILD_DIR (default build/openmpi: the shim, examples/stencil, phasor),
#   PHASOR_BENCH_MPI (openmpi or mpich, as common.sh), TMPDIR (where runs and logs go).
set -euo pipefail
prog=apps.sh
die() { echo "$prog: $*" >&2; exit 1; }

runs=7
apps=lammps,hpcc,stencil
np=2
lammps_steps=9000
hpcc_n=3000
stencil_args="1024 10000"
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) apps=${2:?--apps needs a list}; shift ;;
    --apps=*) apps=${1#--apps=} ;;
    --np) np=${2:?--np needs a number}; shift ;;
    --quick) lammps_steps=1000; hpcc_n=1000; stencil_args="1024 1000" ;;
    --lammps-steps) lammps_steps=${2:?}; shift ;;
    --hpcc-n) hpcc_n=${2:?}; shift ;;
    --stencil) stencil_args=${2:?}; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ $1 =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$1'"; runs=$1 ;;
  esac
  shift
done
[[ $np =~ ^[1-9][0-9]*$ ]] || die "--np must be a positive number"
[[ $lammps_steps =~ ^[1-9][0-9]*$ ]] || die "--lammps-steps must be a positive number"
[[ $hpcc_n =~ ^[1-9][0-9]*$ ]] || die "--hpcc-n must be a positive number"
[[ $stencil_args =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]] || die "--stencil takes \"N ITERATIONS\""
sel=()
IFS=, read -r -a want <<<"$apps"
for a in "${want[@]}"; do
  case "$a" in
    lammps|hpcc|stencil) [[ " ${sel[*]} " == *" $a "* ]] || sel+=("$a") ;;
    *) die "unknown app '$a' (lammps, hpcc, stencil)" ;;
  esac
done
[ ${#sel[@]} -gt 0 ] || die "--apps names no app"

source "$(dirname "$0")/common.sh"
make -C "$bdir" -s examples/stencil >/dev/null
# The call-site depth of each configuration is this script's to set, run by run.
unset PHASOR_CALLSITE_DEPTH

# ---------------------------------------------------------------- what can run
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else return 1; fi; }
apt_install() { # PACKAGES...: 0 when installed
  local miss=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || miss+=("$p")
  done
  [ ${#miss[@]} -eq 0 ] && return 0
  echo "$prog: installing ${miss[*]} from Debian"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || true
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${miss[@]}" >/dev/null 2>&1
}
melt_in() {
  local f
  for f in /usr/share/lammps/examples/melt/in.melt /usr/share/doc/lammps-examples/examples/melt/in.melt; do
    [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
run_apps=()
for a in "${sel[@]}"; do
  case "$a" in
    lammps|hpcc)
      if [ "$mpi" != openmpi ]; then
        echo "$prog: $a skipped: Debian's $a is built against Open MPI, the runs here are $mpi's" >&2
        continue
      fi
      if [ "$a" = lammps ]; then
        { command -v lmp >/dev/null && melt_in >/dev/null; } || apt_install lammps lammps-examples || true
        if ! command -v lmp >/dev/null || ! melt_in >/dev/null; then
          echo "$prog: lammps skipped: no lmp or no melt example, and apt-get could not install lammps lammps-examples" >&2
          continue
        fi
      else
        command -v hpcc >/dev/null || apt_install hpcc || true
        if ! command -v hpcc >/dev/null; then
          echo "$prog: hpcc skipped: no hpcc, and apt-get could not install it" >&2
          continue
        fi
      fi ;;
  esac
  run_apps+=("$a")
done
[ ${#run_apps[@]} -gt 0 ] || { echo "$prog: no app left to measure" >&2; exit 77; }

tmp=$(mktemp -d -t phasor-apps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The shim and the stencil as built now: the tree may be rebuilt while the runs go on (a
# half-written libphasor.so would fail a run, a new one would change what is measured).
cp "$shim" "$tmp/libphasor.so"
shim=$tmp/libphasor.so
cp "$bdir/examples/stencil" "$tmp/stencil"

# ---------------------------------------------------------------- the applications
# LAMMPS: the installed melt example, its `run` line changed to the steps wanted
if [[ " ${run_apps[*]} " == *" lammps "* ]]; then
  melt=$(melt_in)
  sed -E "s/^run[[:space:]].*/run $lammps_steps/" "$melt" >"$tmp/in.melt"
  grep -q "^run $lammps_steps\$" "$tmp/in.melt" || die "$melt has no 'run' line to change"
fi
# hpcc: HPL's input (hpcc sizes its other tests from N), P x Q = NP with P <= Q
hpcc_p=1
for ((d = 1; d * d <= np; d++)); do [ $((np % d)) -ne 0 ] || hpcc_p=$d; done
hpcc_q=$((np / hpcc_p))
cat >"$tmp/hpccinf.txt" <<EOF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$hpcc_n         Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$hpcc_p            Ps
$hpcc_q            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
EOF

describe() {
  case "$1" in
    lammps) echo "LAMMPS ($(lmp -h 2>/dev/null | sed -n 's/^Large-scale.* - \([0-9].*\)/\1/p' | head -n 1)) melt, 4000 atoms, $lammps_steps steps" ;;
    hpcc) echo "hpcc, N = $hpcc_n, NB = 80, P x Q = $hpcc_p x $hpcc_q" ;;
    stencil) echo "examples/stencil $stencil_args" ;;
  esac
}

# run_one APP CONFIG I: one timed run; its wall time (us) in times[APP.CONFIG], and for a
# shimmed run the events and bytes of its log in events[...] and bytes[...].
declare -A times=() events=() bytes=()
unread=()
run_one() {
  local app=$1 cfg=$2 i=$3 use=1 depth="" st=0 t0 t1
  local wd=$tmp/run-$app-$cfg-$i log=$tmp/log-$app-$cfg-$i out=$tmp/out-$app-$cfg-$i
  case "$cfg" in
    plain) use=0 ;;
    nosite) depth=0 ;;
  esac
  local cmd=()
  case "$app" in
    lammps) cmd=(lmp -in "$tmp/in.melt" -log none) ;;
    hpcc) cmd=(hpcc) ;;
    stencil) read -r -a cmd <<<"$tmp/stencil $stencil_args" ;;
  esac
  mkdir "$wd"
  [ "$app" != hpcc ] || cp "$tmp/hpccinf.txt" "$wd/"
  t0=${EPOCHREALTIME/[.,]/}
  if [ -n "$depth" ]; then
    ( cd "$wd" && PHASOR_CALLSITE_DEPTH=$depth run_mpi "$np" "$use" "$log" "${cmd[@]}" ) </dev/null >"$out" 2>&1 || st=$?
  else
    ( cd "$wd" && run_mpi "$np" "$use" "$log" "${cmd[@]}" ) </dev/null >"$out" 2>&1 || st=$?
  fi
  t1=${EPOCHREALTIME/[.,]/}
  # a run that failed, or did not say it succeeded, is never timed
  local bad=""
  if [ $st -ne 0 ]; then
    bad="exit status $st"
  else
    case "$app" in
      lammps) grep -q "^Total wall time" "$out" || bad="no 'Total wall time' in its output" ;;
      hpcc) if ! grep -q "End of HPC Challenge tests" "$wd/hpccoutf.txt" 2>/dev/null; then
              bad="hpccoutf.txt does not end with 'End of HPC Challenge tests.'"
            elif grep -q "FAILED" "$wd/hpccoutf.txt"; then
              bad="a check FAILED in hpccoutf.txt"
            fi ;;
      stencil) grep -q "^checksum " "$out" || bad="no checksum in its output" ;;
    esac
  fi
  if [ -z "$bad" ] && [ "$use" = 1 ]; then
    local nlog
    nlog=$(find "$log" -maxdepth 1 -name 'rank-*.plog' 2>/dev/null | wc -l)
    [ "$nlog" -eq "$np" ] || bad="the shim left $nlog rank logs in $log, not $np (was it preloaded?)"
  fi
  if [ -n "$bad" ]; then
    echo "$prog: $app run $i ($cfg) failed: $bad; its output ends:" >&2
    tail -n 20 "$out" >&2
    [ "$app" != hpcc ] || [ ! -f "$wd/hpccoutf.txt" ] || { echo "--- hpccoutf.txt ends:" >&2; tail -n 10 "$wd/hpccoutf.txt" >&2; }
    exit 1
  fi
  times[$app.$cfg]+="$((t1 - t0)) "
  if [ "$use" = 1 ]; then
    local n
    # a log the reader refuses is phasor's failure, not the application's: the run stays timed,
    # its events are "?", and the script's status says so at the end
    if n=$("$phasor" report "$log" --json --no-symbols 2>"$tmp/report.err" |
           python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])' 2>/dev/null); then
      events[$app.$cfg]+="$n "
    else
      unread+=("$app run $i ($cfg): $(head -c 300 "$tmp/report.err")")
      echo "$prog: phasor report could not read the log of $app run $i ($cfg): $(head -c 300 "$tmp/report.err")" >&2
    fi
    bytes[$app.$cfg]+="$(find "$log" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }') "
  fi
  rm -rf "$wd" "$log" "$out"
}

# ---------------------------------------------------------------- the runs
cfgs=(plain nosite default)
echo "apps.sh: $mpi, $np ranks, $runs run(s) of each configuration, interleaved (${cfgs[*]}); wall time of mpirun, launch included"
echo "phasor: $(git -C "$top" describe --always --dirty 2>/dev/null || echo "not a git tree: $top"); shim $bdir/.libs/libphasor.so (copied at the start); logs under $tmp"
env | grep '^PHASOR_' | sed 's/^/note: set in the environment, reaches the runs: /' || true
[ "$runs" -ge 7 ] || echo "note: fewer than 7 runs each: not a figure to publish"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
start=$SECONDS
for app in "${run_apps[@]}"; do
  echo "$app: $(describe "$app") ..." >&2
  for ((i = 1; i <= runs; i++)); do
    for cfg in "${cfgs[@]}"; do run_one "$app" "$cfg" "$i"; done
  done
done
echo "load average at end:   $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min); $((SECONDS - start)) s of runs"

# ---------------------------------------------------------------- the table
med() { local v; v=$(tr ' ' '\n' <<<"$1" | grep . || true); if [ -n "$v" ]; then median <<<"$v"; else echo nan; fi; }
echo
printf '%-8s %-8s %10s %10s %12s %11s %13s   %s\n' app config "median s" "vs plain" "events/run" "events/s" "log bytes/run" "runs (s)"
for app in "${run_apps[@]}"; do
  base=$(med "${times[$app.plain]}")
  for cfg in "${cfgs[@]}"; do
    m=$(med "${times[$app.$cfg]}")
    all=$(tr ' ' '\n' <<<"${times[$app.$cfg]}" | grep . | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 / 1e6 }')
    if [ "$cfg" = plain ]; then
      printf '%-8s %-8s %10.3f %10s %12s %11s %13s   %s\n' "$app" "$cfg" "$(awk -v m="$m" 'BEGIN { print m / 1e6 }')" - - - - "$all"
    else
      ev=$(med "${events[$app.$cfg]:-}")
      by=$(med "${bytes[$app.$cfg]:-}")
      awk -v app="$app" -v cfg="$cfg" -v m="$m" -v b="$base" -v ev="$ev" -v by="$by" -v all="$all" 'BEGIN {
        e = "?"; es = "?"
        if (ev != "nan") { e = sprintf("%.0f", ev); es = sprintf("%.0f", ev / (m / 1e6)) }
        printf "%-8s %-8s %10.3f %10s %12s %11s %13.0f   %s\n", app, cfg, m / 1e6,
          sprintf("%+.1f %%", 100 * (m / b - 1)), e, es, by, all }'
    fi
  done
  echo "         ($(describe "$app"))"
done
echo
echo "vs plain: the median's change against plain's median. Targets, call sites at the default depth:"
echo "lammps and stencil <= +2 %, hpcc <= +5 %. events/run: in the log of one run, all ranks"
echo "(median over the runs); events/s: per second of the median run, all ranks together."
for app in "${run_apps[@]}"; do
  case "$app" in hpcc) tgt=5 ;; *) tgt=2 ;; esac
  awk -v app="$app" -v a="$(med "${times[$app.plain]}")" -v b="$(med "${times[$app.default]}")" -v t="$tgt" 'BEGIN {
    r = 100 * (b / a - 1); printf "%-8s default vs plain %+.1f %% (target <= +%d %%): %s\n", app, r, t, (r <= t ? "within" : "OVER") }'
done
if [ ${#unread[@]} -gt 0 ]; then
  echo "$prog: phasor report could not read the log of ${#unread[@]} shimmed run(s) (their events are '?'); the first: ${unread[0]}" >&2
  exit 1
fi
