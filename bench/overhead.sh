#!/usr/bin/env bash
# overhead.sh: what the shim adds to an MPI call, measured side by side with and without it.
#  1. ns added per intercepted call: 0-byte Irecv+Isend+Waitall to self, 10^6 iterations,
#     1 rank, median of RUNS runs each: call sites off (PHASOR_CALLSITE_DEPTH=0, target
#     <= 40 ns/call) and at the default depth 4 (target <= 100 ns/call, everything included).
#  2. 0-byte ping-pong latency between 2 ranks, shim (default depth) / no shim (target <= 1.05).
#  3. by class of call, ns added per call, call sites off and at depth 4: blocking Send + Recv
#     to self, a one-rank Allreduce, an Iprobe that finds nothing (a run of polls: target
#     <= 10 ns), all 1 rank, same RUNS and medians.
# Usage: bench/overhead.sh [RUNS (default 5)] [ITERATIONS (default 1000000)]
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${1:-5}
iters=${2:-1000000}
make -C "$bdir" -s bench/overhead_loop bench/pingpong bench/polls >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

off=(); on0=(); on=(); ppoff=(); ppon=()
unset PHASOR_CALLSITE_DEPTH
for i in $(seq "$runs"); do
  off+=("$(run_mpi 1 0 - "$bdir/bench/overhead_loop" "$iters")")
  on0+=("$(PHASOR_CALLSITE_DEPTH=0 run_mpi 1 1 "$tmp/z$i" "$bdir/bench/overhead_loop" "$iters")")
  on+=("$(PHASOR_CALLSITE_DEPTH=4 run_mpi 1 1 "$tmp/o$i" "$bdir/bench/overhead_loop" "$iters")")
  ppoff+=("$(run_mpi 2 0 - "$bdir/bench/pingpong" 1000000)")
  ppon+=("$(run_mpi 2 1 "$tmp/p$i" "$bdir/bench/pingpong" 1000000)")
done
m_off=$(printf '%s\n' "${off[@]}" | median)
m_on0=$(printf '%s\n' "${on0[@]}" | median)
m_on=$(printf '%s\n' "${on[@]}" | median)
p_off=$(printf '%s\n' "${ppoff[@]}" | median)
p_on=$(printf '%s\n' "${ppon[@]}" | median)
events=$("$phasor" dump "$tmp/o1" --csv | tail -n +2 | wc -l)
echo "MPI: $mpi, $runs runs each, medians"
echo "loop (3 calls/iteration): without shim $m_off ns/iter, with shim $m_on0 ns/iter" \
  "(call sites off), $m_on ns/iter (call sites at depth 4)"
awk -v a="$m_off" -v b="$m_on0" 'BEGIN { printf "added per intercepted call, call sites off: %.1f ns (target <= 40)\n", (b - a) / 3 }'
awk -v a="$m_off" -v b="$m_on" 'BEGIN { printf "added per intercepted call, call sites at depth 4: %.1f ns (target <= 100)\n", (b - a) / 3 }'
sites=$("$phasor" dump "$tmp/o1" --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "callsite") c = i; next }
  $c != "" { n++ } END { print n + 0 }')
echo "events with a call site in one depth-4 run: $sites"
echo "events recorded in one shimmed loop run: $events (expected $((3 * iters + 3 * 10000 + 2)))"
echo "ping-pong half round trip: without $p_off ns, with $p_on ns"
awk -v a="$p_off" -v b="$p_on" 'BEGIN { printf "ping-pong latency ratio shim/no-shim: %.3f (target <= 1.05)\n", b / a }'

# 3. by class of call
for cls in block:2 coll:1 iprobe:1; do
  name=${cls%%:*} ncalls=${cls##*:}
  if [ "$name" = iprobe ]; then cmd=("$bdir/bench/polls" iprobe "$((iters * 10))"); ncalls=0; else
    cmd=("$bdir/bench/overhead_loop" "$iters" "$name"); fi
  c_off=(); c_0=(); c_4=()
  for i in $(seq "$runs"); do
    c_off+=("$(run_mpi 1 0 - "${cmd[@]}")")
    c_0+=("$(PHASOR_CALLSITE_DEPTH=0 run_mpi 1 1 "$tmp/c0$i" "${cmd[@]}")")
    c_4+=("$(PHASOR_CALLSITE_DEPTH=4 run_mpi 1 1 "$tmp/c4$i" "${cmd[@]}")")
    rm -rf "$tmp/c0$i" "$tmp/c4$i"
  done
  a=$(printf '%s\n' "${c_off[@]}" | median)
  b=$(printf '%s\n' "${c_0[@]}" | median)
  c=$(printf '%s\n' "${c_4[@]}" | median)
  # polls prints ns per call, overhead_loop ns per iteration of ncalls calls
  awk -v n="$name" -v k="$ncalls" -v a="$a" -v b="$b" -v c="$c" 'BEGIN { d = k ? k : 1
    printf "%-7s without %.1f ns/call; added per call: %.1f ns call sites off, %.1f ns depth 4\n",
      n, a / d, (b - a) / d, (c - a) / d }'
done
