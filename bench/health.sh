#!/usr/bin/env bash
# health.sh: does `phasor health` find a slow stretch of the network, and `phasor regimes`
# its two regimes, in a real run? On the emulated cluster (bench/cluster) a run records
# under phasor while every link's rate drops (500 -> 150 Mbit/s) for a while and comes back
# (bench/cluster/setrate.sh, stamped on CLOCK_MONOTONIC, which the ranks share); then:
#  - health: the departed span of the inter-host messages against the true slow window: edge
#    errors in s and in health's windows (target: within one window);
#  - regimes --series messages: K = 2, and each regime's mean against the median message time
#    of a calibration run at that fixed rate (target: within 15 %);
#  - with --probe: the same from the periodic probe's series (PHASOR_PROBE=quick,every=N);
#  - --cost: the stencil plain, under phasor, and under phasor with the periodic probe.
# Not a test: prints figures, ratios and PASS/FAIL against the targets; exits 77 when the
# phasor command has no health/regimes.
# Usage: bench/health.sh [--record-only | --analyse] OUT [options]
#   (neither)        record into OUT, then analyse it
#   --record-only    bring a cluster up, record the calibration and switch runs into OUT
#                    (OUT/calib-RATE/, OUT/switch-I/, OUT/probe-I/), take it down
#   --analyse        analyse what OUT holds (no cluster, no root)
#   --cost [RUNS]    instead: the probe's cost on the stencil (RUNS >= 5 each, default 5)
# Options (recording):
#   --runs N         rate-switch runs (default 2)
#   --fast R --slow R  the two rates (default 500mbit, 150mbit)
#   --seconds S      length of a switch run (default 30); --slow-at S (10) --slow-for S (10)
#   --calib S        length of each calibration run (default 10)
#   --slots K        ranks per host on the 4 hosts (default 1; 2 for 4x2)
#   --bytes B        pingflow's message (default 65000: the largest Open MPI 4.1 sends
#                    eagerly over TCP, so every message's time is its transfer)
#   --program P      pingflow (default: bench/cluster/pingflow.c, ping-pong between hosts)
#                    or stencil (examples/stencil N ITERS, --stencil "N ITERS", default
#                    "4096 1000"; --cost: "1024 5000")
#   --probe N|auto   also record --runs runs with PHASOR_PROBE=quick,every=N (auto: a probe
#                    every ~0.5 s at the fast rate, from the fast calibration's pace)
#   --name NAME      cluster name (default phb)
# Environment: BUILD_DIR (default build/openmpi: libphasor.so, examples/stencil, phasor),
#   PHASOR (the phasor command for --analyse; default $BUILD_DIR/phasor),
#   HEALTH_ARGS / REGIMES_ARGS: extra options for phasor health / regimes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prog=health.sh
die() { echo "$prog: $*" >&2; exit 1; }

mode=all
out=""
runs=2
fast=500mbit
slow=150mbit
secs=30
slow_at=10
slow_for=10
calib=10
slots=1
bytes=65000
program=pingflow
stencil_args=""
probe=""
cost_runs=0
cname=${PHASOR_CLUSTER:-phb}
while [ $# -gt 0 ]; do
  case "$1" in
    --record-only) mode=record ;;
    --analyse|--analyze) mode=analyse ;;
    --cost) mode=cost; cost_runs=5
            if [[ ${2:-} =~ ^[0-9]+$ ]]; then cost_runs=$2; shift; fi ;;
    --runs) runs=$2; shift ;;
    --fast) fast=$2; shift ;;
    --slow) slow=$2; shift ;;
    --seconds) secs=$2; shift ;;
    --slow-at) slow_at=$2; shift ;;
    --slow-for) slow_for=$2; shift ;;
    --calib) calib=$2; shift ;;
    --slots) slots=$2; shift ;;
    --bytes) bytes=$2; shift ;;
    --program) program=$2; shift ;;
    --stencil) stencil_args=$2; shift ;;
    --probe) probe=$2; shift ;;
    --name) cname=$2; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$out" ] || die "one output directory only"; out=$1 ;;
  esac
  shift
done
[ -n "$out" ] || [ "$mode" = cost ] || die "give the output directory (see --help)"
case "$program" in pingflow|stencil) ;; *) die "--program must be pingflow or stencil" ;; esac
[ "$cost_runs" -eq 0 ] || [ "$cost_runs" -ge 5 ] || die "--cost needs at least 5 runs each"
bdir=${BUILD_DIR:-$top/build/openmpi}
phasor=${PHASOR:-$bdir/phasor}
shim=$bdir/.libs/libphasor.so
cl=$top/bench/cluster
export PHASOR_CLUSTER=$cname OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# CLOCK_MONOTONIC (what the ranks' logs are on) without starting a process at each stamp
# (python3 takes 50-300 ms to start on the loaded 2 cores): bash's $EPOCHREALTIME (us) minus
# the realtime - monotonic offset, read once per run (realtime is not stepped within a run).
mono_offset() { mono_off=$(python3 -c 'import time; m0 = time.monotonic_ns(); r = time.time_ns(); m1 = time.monotonic_ns(); print(r - (m0 + m1) // 2)'); }
mono_ns() { local t=${EPOCHREALTIME/[.,]/}; echo $((t * 1000 - mono_off)); }
mono_off=0

# ---------------------------------------------------------------- recording
cluster_up=0
bg=""
cleanup() {
  if [ -n "$bg" ] && kill -0 "$bg" 2>/dev/null; then kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; fi
  [ $cluster_up -eq 0 ] || "$cl/down.sh" --name "$cname" >/dev/null || true
}

start_cluster() {
  [ -f "$shim" ] || die "no shim at $shim (set BUILD_DIR to a built tree)"
  "$cl/up.sh" 4 --rate "$fast" --name "$cname"
  cluster_up=1
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  if [ "$program" = pingflow ]; then
    mkdir -p "$top/build/health"
    "$(command -v mpicc.openmpi || command -v mpicc)" -O2 -o "$top/build/health/pingflow" "$cl/pingflow.c"
  fi
}

# the command line of a run of SECONDS
prog_cmd() { # seconds
  if [ "$program" = pingflow ]; then
    echo "$top/build/health/pingflow $bytes $1"
  else
    echo "$bdir/examples/stencil ${stencil_args:-4096 1000}"
  fi
}

# record DIR SECONDS [SWITCH] [PROBE]: one recorded run into DIR. With SWITCH=1 the links go
# slow SLOW_AT s after the program starts and fast again SLOW_FOR s later; the stamps around
# each change go to DIR/switches.txt. Beside the log: DIR/bench.txt (what ran),
# DIR/program.out (its output), moved in after the run (the shim wants a directory of its own).
record() {
  local dir=$1 s=$2 sw=${3:-0} pr=${4:-} x=()
  [ ! -e "$dir" ] || die "$dir exists; give a new output directory"
  [ -z "$pr" ] || x=(-x "PHASOR_PROBE=$pr")
  local cmd; cmd=$(prog_cmd "$s")
  local po="$dir.out" sf="$dir.switches"
  # shellcheck disable=SC2086
  "$cl/mpirun.sh" --name "$cname" --slots "$slots" -x LD_PRELOAD="$shim" -x PHASOR_DIR="$dir" \
    -x PHASOR_QUIET=1 "${x[@]}" -- $cmd >"$po" 2>&1 &
  bg=$!
  mono_offset
  local launched; launched=$(mono_ns)
  if [ "$sw" = 1 ]; then
    # from the program's own "started" line (pingflow), else 3 s after the launch
    local started="" k
    if [ "$program" = pingflow ]; then
      for ((k = 0; k < 600; k++)); do
        grep -q '^pingflow: started' "$po" 2>/dev/null && { started=$(mono_ns); break; }
        kill -0 "$bg" 2>/dev/null || break
        sleep 0.1
      done
    fi
    [ -n "$started" ] || { sleep 3; started=$(mono_ns); }
    sleep "$slow_at"
    local a b c d
    a=$(mono_ns); "$cl/setrate.sh" --name "$cname" "$slow" >>"$po.setrate" 2>&1; b=$(mono_ns)
    sleep "$slow_for"
    c=$(mono_ns); "$cl/setrate.sh" --name "$cname" "$fast" >>"$po.setrate" 2>&1; d=$(mono_ns)
    {
      echo "# rate switches on CLOCK_MONOTONIC (ns): KIND FROM TO BEFORE AFTER, the stamps"
      echo "# taken just before and just after setrate.sh changed every link"
      echo "launched $launched"
      echo "started $started"
      echo "slow $fast $slow $a $b"
      echo "fast $slow $fast $c $d"
    } >"$sf"
  fi
  local st=0
  wait "$bg" || st=$?
  bg=""
  [ $st -eq 0 ] || { tail -5 "$po" >&2; die "the run into $dir failed (status $st)"; }
  [ -d "$dir" ] || die "the run left no log in $dir"
  mv "$po" "$dir/program.out"
  [ ! -f "$sf" ] || mv "$sf" "$dir/switches.txt"
  [ ! -f "$po.setrate" ] || mv "$po.setrate" "$dir/setrate.txt"
  {
    echo "program $cmd"
    echo "hosts 4 slots $slots fast $fast slow $slow bytes $bytes probe ${pr:-none}"
    echo "switch $sw slow_at $slow_at slow_for $slow_for"
  } >"$dir/bench.txt"
  echo "$prog: recorded $dir ($(tr '\n' ' ' <"$dir/bench.txt"))"
}

record_all() {
  start_cluster
  mkdir -p "$out"
  local f
  for f in "$out"/calib-* "$out"/switch-* "$out"/probe-*; do
    [ ! -e "$f" ] || die "$out already holds recordings ($f); give a new directory"
  done
  # calibration: the message time at each fixed rate
  "$cl/setrate.sh" --name "$cname" "$fast" >/dev/null
  record "$out/calib-$fast" "$calib"
  "$cl/setrate.sh" --name "$cname" "$slow" >/dev/null
  "$cl/rate.sh" --name "$cname" --time 1 0 1 | sed "s/^/$prog: at $slow: /"
  record "$out/calib-$slow" "$calib"
  "$cl/setrate.sh" --name "$cname" "$fast" >/dev/null
  "$cl/rate.sh" --name "$cname" --time 1 0 1 | sed "s/^/$prog: at $fast: /"
  local i
  for ((i = 1; i <= runs; i++)); do record "$out/switch-$i" "$secs" 1; done
  if [ -n "$probe" ]; then
    local every=$probe
    if [ "$every" = auto ]; then
      [ "$program" = pingflow ] || die "--probe auto needs pingflow (give N)"
      # pingflow: one MPI_Bcast on MPI_COMM_WORLD every 20 round trips
      every=$(awk '/round trips per pair in/ { for (i = 1; i <= NF; i++) { if ($i == "round") t = $(i - 1); if ($i == "s") s = $(i - 1) } }
                   END { n = int(0.5 * t / 20 / s + 0.5); print (n < 1 ? 1 : n) }' "$out/calib-$fast/program.out")
    fi
    echo "$prog: periodic probe: PHASOR_PROBE=quick,every=$every (about one every 0.5 s at $fast)"
    for ((i = 1; i <= runs; i++)); do record "$out/probe-$i" "$secs" 1 "quick,every=$every"; done
  fi
  cleanup
  cluster_up=0
  trap - EXIT
}

# the probe's cost: the stencil on the cluster (4 hosts x SLOTS, links at FAST), plain, under
# phasor, and under phasor with the periodic probe, interleaved, wall time of mpirun.
cost() {
  program=stencil
  stencil_args=${stencil_args:-1024 5000}
  start_cluster
  local tmp; tmp=$(mktemp -d /tmp/phasor-health-cost.XXXXXX)
  local variants=(plain phasor "quick,every=1000" "every=1000") i v t0 t1 st
  declare -A times=() nprobes=()
  for ((i = 1; i <= cost_runs; i++)); do
    for v in "${variants[@]}"; do
      local x=()
      case "$v" in
        plain) ;;
        phasor) x=(-x LD_PRELOAD="$shim" -x PHASOR_DIR="$tmp/$i-$v" -x PHASOR_QUIET=1) ;;
        *) x=(-x LD_PRELOAD="$shim" -x PHASOR_DIR="$tmp/$i-$v" -x PHASOR_QUIET=1 -x "PHASOR_PROBE=$v") ;;
      esac
      t0=$(mono_ns); st=0
      # shellcheck disable=SC2086
      "$cl/mpirun.sh" --name "$cname" --slots "$slots" "${x[@]}" -- "$bdir/examples/stencil" $stencil_args >"$tmp/out" 2>&1 || st=$?
      t1=$(mono_ns)
      [ $st -eq 0 ] || { cat "$tmp/out" >&2; rm -rf "$tmp"; die "stencil ($v) failed"; }
      times[$v]+="$(( (t1 - t0) / 1000000 )) "
      # the probes the run made (the one at MPI_Init included), from its log
      if [ "$v" != plain ] && [ -x "$phasor" ] && [ -z "${nprobes[$v]:-}" ]; then
        nprobes[$v]=$("$phasor" health --json "$tmp/$i-$v" 2>/dev/null |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["probes"])' 2>/dev/null || echo "?")
      fi
      rm -rf "${tmp:?}/$i-$v"
    done
  done
  rm -rf "$tmp"
  echo "stencil $stencil_args on 4 hosts x $slots at $fast, mpirun's wall time (launch included), $cost_runs runs each, interleaved"
  local base; base=$(tr ' ' '\n' <<<"${times[plain]}" | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  for v in "${variants[@]}"; do
    tr ' ' '\n' <<<"${times[$v]}" | grep . | sort -g | awk -v name="$v" -v base="$base" -v all="${times[$v]}" \
      '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
         printf "%-18s median %7.0f ms  ratio to plain %.3f   (runs: %s)\n", name, m, m / base, all }'
    [ -n "${nprobes[$v]:-}" ] && echo "                   probes in a run's log: ${nprobes[$v]}"
  done
  echo "(PHASOR_PROBE=every=N counts the blocking collectives on every communicator of all ranks: the stencil's Allreduce on its Cartesian communicator, once an iteration)"
}

# ---------------------------------------------------------------- analysis
# The JSON it reads (doc/health-format.md, doc/regimes-format.md):
#   health:  time_ref_monotonic_ns; window_ns (a number, or per source {"messages": N,
#            "probe": N, ...}); windows[] {start_ns, end_ns, link, slowdown[, source]};
#            counts.probes (periodic probes in the log)
#   regimes: series[] {name, samples, k, regimes[] {mean, sd, share} (fastest first),
#            switches[] {t_ns, from, to}}; means in seconds
# Expected message times come from the calibration runs, by this script's own matching of
# `phasor dump --csv` (health's rule: a message whose receiver already waited; its time from
# the later posting to the receive's completion), independent of the commands under test.
analyse() {
  [ -d "$out" ] || die "no directory $out"
  [ -x "$phasor" ] || die "no phasor command at $phasor (set PHASOR or BUILD_DIR)"
  python3 - "$out" "$phasor" "${HEALTH_ARGS:-}" "${REGIMES_ARGS:-}" <<'PY'
import glob, json, os, statistics, struct, subprocess, sys

out, phasor, health_args, regimes_args = sys.argv[1:5]
TOL = 0.15  # regimes' means against the calibration

def run(args):
    r = subprocess.run([phasor] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr

def has_cmd(name):
    return run([name, "--help"])[0] == 0

def bench_txt(d):
    kv = {}
    try:
        for line in open(os.path.join(d, "bench.txt")):
            w = line.split()
            for i in range(0, len(w) - 1, 2):
                kv.setdefault(w[i], w[i + 1])
    except OSError:
        pass
    return kv

def time_ref(d):
    """CLOCK_MONOTONIC of the log's time 0: rank 0's t_init_ns (doc/log-format.md)."""
    with open(os.path.join(d, "rank-000000.plog"), "rb") as f:
        h = f.read(48)
    return struct.unpack_from("<Q", h, 40)[0]

def hosts_of(d):
    rc, txt, _ = run(["report", d, "--json"])
    if rc != 0:
        return {}
    return {r["rank"]: r.get("host") for r in json.loads(txt)["ranks"]}

SENDS = {"MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend", "MPI_Rsend", "MPI_Irsend", "MPI_Bsend", "MPI_Ibsend"}
WAITS = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"}

def messages(d):
    """[(t_ns send posting on the log's axis, seconds, bytes, inter-host)] of the kept messages."""
    hosts = hosts_of(d)
    p = subprocess.Popen([phasor, "dump", d, "--csv"], stdout=subprocess.PIPE, text=True)
    head = None
    sends, recvs, irecv = {}, {}, {}
    for line in p.stdout:
        f = line.rstrip("\n").split(",")
        if head is None:
            head = {k: i for i, k in enumerate(f)}
            continue
        call = f[head["call"]]
        rank, start, end = int(f[0]), int(f[head["start_ns"]]), int(f[head["end_ns"]])
        comm = f[head["comm"]]
        if call in SENDS:
            peer = int(f[head["peer"]])
            if peer >= 0:
                sends.setdefault((comm, rank, peer, f[head["tag"]]), []).append((start, int(f[head["bytes"]])))
        elif call == "MPI_Recv":
            st = f[head["status"]].split(":")
            if len(st) >= 2 and int(st[0]) >= 0:
                recvs.setdefault((comm, int(st[0]), rank, st[1]), []).append((start, start, end))
        elif call == "MPI_Irecv":
            irecv[(rank, f[head["request"]])] = (comm, start)
        elif call in WAITS:
            for e in f[head["status"]].split(";"):
                st = e.split(":")
                if len(st) < 4:
                    continue
                post = irecv.pop((rank, st[3]), None)
                if post is None or int(st[0]) < 0:
                    continue
                recvs.setdefault((post[0], int(st[0]), rank, st[1]), []).append((post[1], start, end))
    p.wait()
    res = []
    for key, ss in sends.items():
        rr = sorted(recvs.get(key, []))
        for (spost, nbytes), (rpost, wstart, rend) in zip(ss, rr):
            if wstart <= spost:  # the receiver was already waiting
                res.append((spost, (rend - max(spost, rpost)) / 1e9, nbytes,
                            hosts.get(key[1]) != hosts.get(key[2])))
    res.sort()
    return res

def med(v):
    return statistics.median(v) if v else float("nan")

def ms(x):
    return "%.3f ms" % (1e3 * x)

def switches(d):
    sw = {}
    for line in open(os.path.join(d, "switches.txt")):
        w = line.split()
        if w and w[0] in ("slow", "fast"):
            sw[w[0]] = (int(w[3]), int(w[4]))
        elif w and w[0] in ("launched", "started"):
            sw[w[0]] = int(w[1])
    return sw

# ---- calibration
calib, calib_mean = {}, {}
for d in sorted(glob.glob(os.path.join(out, "calib-*"))):
    rate = os.path.basename(d)[len("calib-"):]
    m = [x for x in messages(d) if x[3]]
    if not m:
        print("calibration %s: no kept inter-host messages" % rate)
        continue
    t = [x[1] for x in m]
    sizes = statistics.mode([x[2] for x in m])
    calib[rate] = med(t)
    calib_mean[rate] = statistics.fmean(t)
    print("calibration at %-8s %6d kept inter-host messages of %d B: median %s, mean %s, p10 %s, p90 %s"
          % (rate, len(t), sizes, ms(med(t)), ms(statistics.fmean(t)),
             ms(statistics.quantiles(t, n=10)[0]), ms(statistics.quantiles(t, n=10)[-1])))
runs = sorted(glob.glob(os.path.join(out, "switch-*")) + glob.glob(os.path.join(out, "probe-*")))
if not runs:
    sys.exit("health.sh: no switch-* or probe-* runs in %s" % out)
b0 = bench_txt(runs[0])
fast, slow = b0.get("fast", "500mbit"), b0.get("slow", "150mbit")
if fast in calib and slow in calib:
    print("expected message time: %s at %s, %s at %s: ratio %.2f (%s)"
          % (ms(calib[fast]), fast, ms(calib[slow]), slow, calib[slow] / calib[fast],
             "the rates' ratio %.2f" % (float(fast.rstrip("mbit")) / float(slow.rstrip("mbit")))
             if fast.endswith("mbit") and slow.endswith("mbit") else ""))
else:
    print("no calibration for %s and %s in %s: regimes' means are not judged" % (fast, slow, out))

have_health, have_regimes = has_cmd("health"), has_cmd("regimes")
verdicts = []

def regimes_check(d, series_kind, truth, run_name):
    # every switch, where the command can list them all (--max-switches), else what it lists
    rc, txt, err = run(["regimes", d, "--series", series_kind, "--json", "--max-switches", "1000000"] + regimes_args.split())
    if rc == 2:
        rc, txt, err = run(["regimes", d, "--series", series_kind, "--json"] + regimes_args.split())
    if rc != 0:
        print("  regimes --series %s failed: %s" % (series_kind, err.strip()))
        verdicts.append((run_name, "regimes " + series_kind, False))
        return
    doc = json.loads(txt)
    ref = doc.get("time_ref_monotonic_ns", time_ref(d))
    ser = [s for s in doc["series"] if s["name"].split("/")[0] == series_kind]
    ser.sort(key=lambda s: (s["name"].split("/")[-1] != "inter-host", -s.get("samples", 0)))
    if not ser or not ser[0].get("samples"):
        print("  regimes %s: no series with samples" % series_kind)
        verdicts.append((run_name, "regimes " + series_kind, False))
        return
    s = ser[0]
    rg = sorted(s["regimes"], key=lambda r: r["mean"])
    print("  regimes %s: %d samples, K = %s: %s" % (s["name"], s["samples"], s["k"],
          ", ".join("%s (sd %s, share %.2f)" % (ms(r["mean"]), ms(r["sd"]), r["share"]) for r in rg)))
    exp = calib.get(fast), calib.get(slow)
    if series_kind == "probe":
        exp = probe_calib.get(fast), probe_calib.get(slow)
    ok = s["k"] == 2
    if exp[0] and exp[1] and rg:
        lo, hi = rg[0]["mean"] / exp[0], rg[-1]["mean"] / exp[1]
        ok = ok and abs(lo - 1) <= TOL and abs(hi - 1) <= TOL
        print("    fastest regime %s vs %s expected at %s: ratio %.3f; slowest %s vs %s at %s: ratio %.3f (target K = 2, ratios within %.2f)"
              % (ms(rg[0]["mean"]), ms(exp[0]), fast, lo, ms(rg[-1]["mean"]), ms(exp[1]), slow, hi, 1 + TOL))
    else:
        ok = False
        print("    no calibration to judge the means against")
    # With K > 2, the regimes grouped by the nearer expected time (on a log scale): each
    # group's share-weighted mean against the calibration's mean (information, not the target)
    group = {}
    if exp[0] and exp[1] and s["k"] > 2:
        import math
        mid = math.sqrt(exp[0] * exp[1])
        lo_g = [r for r in rg if r["mean"] < mid]
        hi_g = [r for r in rg if r["mean"] >= mid]
        cm = (calib_mean.get(fast), calib_mean.get(slow)) if series_kind == "messages" else exp
        for gname, g, e in (("fast", lo_g, cm[0]), ("slow", hi_g, cm[1])):
            sh = sum(r["share"] for r in g)
            if sh > 0 and e:
                gm = sum(r["mean"] * r["share"] for r in g) / sh
                group[gname] = gm
                print("    grouped: %s regimes %s: share %.2f, mean %s vs the calibration's mean %s: ratio %.3f"
                      % (gname, [rg.index(r) for r in g], sh, ms(gm), ms(e), gm / e))
    sw = s.get("switches", [])
    if truth and sw:
        # a switch between the groups (K = 2: between the two regimes) nearest each true edge
        if exp[0] and exp[1]:
            import math
            mid = math.sqrt(exp[0] * exp[1])
            slow_ids = {i for i, r in enumerate(s["regimes"]) if r["mean"] >= mid}
            cross = [x for x in sw if (x["from"] in slow_ids) != (x["to"] in slow_ids)]
        else:
            cross = sw
        near = []
        for edge, t in (("slow", truth[0]), ("fast", truth[1])):
            if cross:
                best = min(cross, key=lambda x: abs(x["t_ns"] - t))
                near.append("%s edge: nearest switch between fast and slow regimes %+.3f s" % (edge, (best["t_ns"] - t) / 1e9))
        print("    switches: %d listed (%s in all), %d between fast and slow regimes; %s"
              % (len(sw), s.get("switches_total", len(sw)), len(cross), "; ".join(near)))
    print("    %s" % ("PASS" if ok else "FAIL"))
    verdicts.append((run_name, "regimes " + series_kind, ok))

# the probe's expected times: the calibration runs' probe series, when they have one
probe_calib = {}

for d in runs:
    name = os.path.basename(d)
    bt = bench_txt(d)
    sw = switches(d)
    ref = time_ref(d)
    # the true slow window on the log's axis: each change at the middle of its stamps
    ts = (sum(sw["slow"]) / 2 - ref, sum(sw["fast"]) / 2 - ref)
    unc = ((sw["slow"][1] - sw["slow"][0]) / 2e9, (sw["fast"][1] - sw["fast"][0]) / 2e9)
    print("\n%s (%s, probe %s): slow window %.3f .. %.3f s on the log's axis (+- %.3f, %.3f s: setrate.sh's time)"
          % (name, bt.get("program", "?"), bt.get("probe", "none"), ts[0] / 1e9, ts[1] / 1e9, unc[0], unc[1]))
    m = [x for x in messages(d) if x[3]]
    pad = 0.5e9
    parts = [[x[1] for x in m if x[0] < ts[0] - pad], [x[1] for x in m if ts[0] + pad <= x[0] < ts[1] - pad],
             [x[1] for x in m if x[0] >= ts[1] + pad]]
    print("  kept inter-host messages (this script's matching): median before %s (%d), during %s (%d), after %s (%d); during / outside %.2f"
          % (ms(med(parts[0])), len(parts[0]), ms(med(parts[1])), len(parts[1]), ms(med(parts[2])), len(parts[2]),
             med(parts[1]) / med(parts[0] + parts[2]) if parts[1] and parts[0] + parts[2] else float("nan")))
    if not have_health:
        continue
    rc, txt, err = run(["health", d, "--json"] + health_args.split())
    if rc != 0:
        print("  health failed: %s" % err.strip())
        verdicts.append((name, "health", False))
        continue
    h = json.loads(txt)
    ref = h.get("time_ref_monotonic_ns", ref)
    ts = (sum(sw["slow"]) / 2 - ref, sum(sw["fast"]) / 2 - ref)
    kinds = ["messages"] + (["probe"] if h.get("counts", {}).get("probes") else [])
    for kind in kinds:
        wn = h["window_ns"]
        wn = wn.get(kind) if isinstance(wn, dict) else wn
        spans = [w for w in h["windows"] if w.get("source", "messages") == kind]
        inter = [w for w in spans if w["link"] == "inter-host"] or spans
        def overlap(w):
            return max(0, min(w["end_ns"], ts[1]) - max(w["start_ns"], ts[0]))
        hit = max(inter, key=overlap) if inter else None
        if hit is None or overlap(hit) == 0:
            print("  health %s: no departed span over the slow window (%d spans elsewhere)" % (kind, len(inter)))
            verdicts.append((name, "health " + kind, False))
            continue
        e0, e1 = hit["start_ns"] - ts[0], hit["end_ns"] - ts[1]
        ok = abs(e0) <= wn and abs(e1) <= wn
        others = [w for w in inter if w is not hit]
        print("  health %s: window %.3f s; %s departed %.3f .. %.3f s (slowdown %.2f): edge errors %+.3f s (%+.2f windows), %+.3f s (%+.2f windows); %d other span(s) of that link%s: %s"
              % (kind, wn / 1e9, hit["link"], hit["start_ns"] / 1e9, hit["end_ns"] / 1e9, hit["slowdown"],
                 e0 / 1e9, e0 / wn, e1 / 1e9, e1 / wn, len(others),
                 "".join(" [%.3f .. %.3f s, %.2f]" % (w["start_ns"] / 1e9, w["end_ns"] / 1e9, w["slowdown"]) for w in others[:5]),
                 "PASS" if ok else "FAIL"))
        verdicts.append((name, "health " + kind, ok))
        if have_regimes:
            if kind == "probe" and not probe_calib:
                for rate in (fast, slow):
                    cd = os.path.join(out, "calib-%s" % rate)
                    rc2, t2, _ = run(["regimes", cd, "--series", "probe", "--json", "--kmax", "1"])
                    if rc2 == 0:
                        sr = [s for s in json.loads(t2)["series"] if s.get("samples")]
                        if sr:
                            probe_calib[rate] = sr[0]["regimes"][0]["mean"]
            regimes_check(d, kind, ts, name)

print()
if not have_health or not have_regimes:
    print("health.sh: %s has no %s: recorded runs checked by this script's matching only"
          % (phasor, " and ".join(c for c, h in (("health", have_health), ("regimes", have_regimes)) if not h)))
    sys.exit(77)
for v in verdicts:
    print("%-10s %-18s %s" % (v[0], v[1], "PASS" if v[2] else "FAIL"))
PY
}

case "$mode" in
  record) record_all ;;
  analyse) analyse ;;
  all) record_all; analyse ;;
  cost) cost ;;
esac
