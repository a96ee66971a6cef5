#!/usr/bin/env bash
# replay_vs_simgrid.sh: how close `phasor replay` comes to the measured run time of whole
# runs, beside SimGrid SMPI's offline replay of the same log and probe (issue 30, "Export for
# SimGrid and the cross-check"). On the emulated cluster (bench/cluster: 4 hosts x 1 and
# 4 hosts x 2 ranks, links at RATE, without and with two competing iperf3 flows as
# bench/accuracy.sh starts them) it records under the shim with PHASOR_PROBE=quick:
#   stencil    examples/stencil N ITERS (--stencil "N ITERS", default "1024 2000": ~3 s)
#   collsweep  examples/collsweep (--collsweep ARGS, default "--reps 3 --max 1048576": ~2 s)
#   lammps     LAMMPS's melt example (Debian lammps + lammps-examples), --lammps-steps
#              steps (default 500: ~2.5 s)
# and, for the what-if checked against reality, the stencil at RATE and at SLOW (4 x 1, no
# contention, alternated). Then, per run: measured run time (`phasor replay --json`
# "measured_s"), phasor's prediction (collectives as steps, and --collectives whole), SimGrid's
# (`phasor export --format simgrid` + bench/simgrid/run.sh: "n/a" until both exist and
# smpirun is installed), |predicted / measured - 1| of each, and the median over ranks of
# |predicted / measured - 1| of the time in MPI; medians per configuration and application,
# and per configuration over all applications. What-if: `phasor predict LOG --save-model`
# of each run writes its probe as a model file; `phasor replay RUN_AT_RATE --model
# MODEL_OF_SLOW_RUN` predicts the run at SLOW from the run at RATE (and the other way), against
# the measured run at that rate.
# Targets (issue 30): whole-run median error <= 5 % without contention, <= 10 % with, never
# worse than SimGrid's; per-rank MPI time median error <= 10 %; what-if within 10 %.
# A measurement, not a test (never in scripts/test.sh). Recording needs root (namespaces).
# Usage: bench/replay_vs_simgrid.sh [--record-only | --analyse] [OUT] [options]
#   (neither)        record into OUT (default /work/replay-runs), then analyse it
#   --record-only    bring a cluster up, record every run into OUT, take it down
#   --analyse        analyse what OUT holds (no cluster, no root); re-run it any time, e.g.
#                    once the SimGrid export exists
# Layout: OUT/<config>/<app>-<i>/ (the log, plus bench.txt and program.out), config one of
#   4x1-quiet 4x1-contended 4x2-quiet 4x2-contended; OUT/whatif/stencil-<rate>-<i>/;
#   the analysis writes OUT/analysis/ (replay JSON, model files, SimGrid exports, table.txt).
# Options (recording):
#   --runs N         runs per configuration and application (default 3; medians need >= 3)
#   --first I        number the runs from I (default 1): add runs to an OUT that has some
#   --rate R         link rate (default 500mbit); --slow R the what-if's second rate (150mbit)
#   --apps LIST      comma-separated, of stencil,collsweep,lammps (default all three)
#   --configs LIST   comma-separated, of the four configs above (default all)
#   --no-whatif      skip the what-if runs
#   --stencil "N ITERS"  --collsweep "ARGS"  --lammps-steps S
#   --name NAME      cluster name (default phrvs)
# Environment: BUILD_DIR (default build/openmpi: libphasor.so, examples/), PHASOR (the
#   phasor command for the analysis; default build/dev/phasor if built, else
#   $BUILD_DIR/phasor), SIMGRID_RUN (default bench/simgrid/run.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prog=replay_vs_simgrid.sh
die() { echo "$prog: $*" >&2; exit 1; }

mode=all
out=""
runs=3
first=1
rate=500mbit
slow=150mbit
apps=stencil,collsweep,lammps
configs=4x1-quiet,4x1-contended,4x2-quiet,4x2-contended
whatif=1
stencil_args="1024 2000"
collsweep_args="--reps 3 --max 1048576"
lammps_steps=500
cname=${PHASOR_CLUSTER:-phrvs}
while [ $# -gt 0 ]; do
  case "$1" in
    --record-only) mode=record ;;
    --analyse|--analyze) mode=analyse ;;
    --runs) runs=$2; shift ;;
    --first) first=$2; shift ;;
    --rate) rate=$2; shift ;;
    --slow) slow=$2; shift ;;
    --apps) apps=$2; shift ;;
    --configs) configs=$2; shift ;;
    --no-whatif) whatif=0 ;;
    --stencil) stencil_args=$2; shift ;;
    --collsweep) collsweep_args=$2; shift ;;
    --lammps-steps) lammps_steps=$2; shift ;;
    --name) cname=$2; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$out" ] || die "one output directory only"; out=$1 ;;
  esac
  shift
done
out=${out:-/work/replay-runs}
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] || die "--runs must be a positive integer"
[[ $first =~ ^[0-9]+$ ]] && [ "$first" -ge 1 ] || die "--first must be a positive integer"
bdir=${BUILD_DIR:-$top/build/openmpi}
if [ -n "${PHASOR:-}" ]; then phasor=$PHASOR
elif [ -x "$top/build/dev/phasor" ]; then phasor=$top/build/dev/phasor
else phasor=$bdir/phasor; fi
simgrid_run=${SIMGRID_RUN:-$top/bench/simgrid/run.sh}
shim=$bdir/.libs/libphasor.so
cl=$top/bench/cluster
export PHASOR_CLUSTER=$cname OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "$prog: load average $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

# ---------------------------------------------------------------- recording
cluster_up=0
contending=0
cleanup() {
  [ $contending -eq 0 ] || "$cl/contend.sh" --name "$cname" stop >/dev/null 2>&1 || true
  [ $cluster_up -eq 0 ] || "$cl/down.sh" --name "$cname" >/dev/null 2>&1 || true
  cluster_up=0
  echo "$prog: load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

app_cmd() { # app: the command line of one run
  case "$1" in
    stencil) echo "$bdir/examples/stencil $stencil_args" ;;
    collsweep) echo "$bdir/examples/collsweep $collsweep_args" ;;
    lammps) echo "$(command -v lmp) -in $out/in.melt -log none" ;;
    *) die "unknown application '$1' (stencil, collsweep, lammps)" ;;
  esac
}

# record DIR SLOTS APP INFO: one run under the shim into DIR; its output and what ran beside
# the log in DIR (moved in after the run: the shim wants a directory of its own)
record() {
  local dir=$1 slots=$2 app=$3 info=$4 cmd st=0 t0 t1
  [ ! -e "$dir" ] || die "$dir exists; give a new output directory (or remove it)"
  cmd=$(app_cmd "$app")
  t0=$EPOCHREALTIME
  # shellcheck disable=SC2086
  "$cl/mpirun.sh" --name "$cname" --slots "$slots" -x LD_PRELOAD="$shim" -x PHASOR_DIR="$dir" \
    -x PHASOR_PROBE=quick -x PHASOR_QUIET=1 -- $cmd >"$dir.out" 2>&1 || st=$?
  t1=$EPOCHREALTIME
  [ $st -eq 0 ] || { tail -5 "$dir.out" >&2; die "the run into $dir failed (status $st)"; }
  [ -d "$dir" ] || die "the run left no log in $dir"
  mv "$dir.out" "$dir/program.out"
  {
    echo "program $cmd"
    echo "hosts 4 slots $slots $info"
    echo "mpirun_wall_s $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
  } >"$dir/bench.txt"
  echo "$prog: recorded $dir ($(awk '{ printf "%s ", $0 }' "$dir/bench.txt"))"
}

record_all() {
  [ -f "$shim" ] || die "no shim at $shim (set BUILD_DIR to a built tree)"
  [ "$(id -u)" -eq 0 ] || die "recording needs root (network namespaces)"
  local a c
  for a in ${apps//,/ }; do
    app_cmd "$a" >/dev/null
    case "$a" in
      stencil|collsweep) make -C "$bdir" -s "examples/$a" >/dev/null ;;
      lammps)
        if ! command -v lmp >/dev/null || [ ! -f /usr/share/lammps/examples/melt/in.melt ]; then
          DEBIAN_FRONTEND=noninteractive apt-get install -y -q lammps lammps-examples >/dev/null ||
            die "cannot install lammps and lammps-examples"
        fi ;;
    esac
  done
  mkdir -p "$out"
  # the melt example, LAMMPS_STEPS steps (its own 250 take ~1 s on 4 ranks here)
  sed "s/^run[[:space:]].*/run\t\t$lammps_steps/" /usr/share/lammps/examples/melt/in.melt >"$out/in.melt"
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  "$cl/up.sh" 4 --rate "$rate" --name "$cname" --force | tail -1
  cluster_up=1
  local i slots cont
  for c in ${configs//,/ }; do
    case "$c" in
      4x1-quiet) slots=1 cont=0 ;; 4x1-contended) slots=1 cont=1 ;;
      4x2-quiet) slots=2 cont=0 ;; 4x2-contended) slots=2 cont=1 ;;
      *) die "unknown configuration '$c'" ;;
    esac
    mkdir -p "$out/$c"
    if [ $cont -eq 1 ]; then
      # as bench/accuracy.sh: h3's out- and h0's in-link, h1's out- and h2's in-link
      "$cl/contend.sh" --name "$cname" start 3 0 >/dev/null
      "$cl/contend.sh" --name "$cname" start 1 2 >/dev/null
      contending=1
    fi
    # the applications alternated, run by run, so that slow drift of the machine's load
    # falls on all of them
    for ((i = first; i < first + runs; i++)); do
      for a in ${apps//,/ }; do
        record "$out/$c/$a-$i" "$slots" "$a" "rate $rate contention $cont config $c"
      done
    done
    if [ $cont -eq 1 ]; then
      "$cl/contend.sh" --name "$cname" stop >/dev/null
      contending=0
    fi
  done
  if [ $whatif -eq 1 ]; then
    mkdir -p "$out/whatif"
    for ((i = first; i < first + runs; i++)); do
      for r in "$rate" "$slow"; do
        "$cl/setrate.sh" --name "$cname" "$r" >/dev/null
        record "$out/whatif/stencil-$r-$i" 1 stencil "rate $r contention 0 config whatif"
      done
    done
    "$cl/setrate.sh" --name "$cname" "$rate" >/dev/null
  fi
  cleanup
  trap - EXIT
}

# ---------------------------------------------------------------- analysis
analyse() {
  [ -d "$out" ] || die "no directory $out"
  [ -x "$phasor" ] || die "no phasor command at $phasor (set PHASOR or BUILD_DIR)"
  "$phasor" replay --help >/dev/null 2>&1 || die "$phasor has no replay subcommand (set PHASOR to a current build)"
  local sg=0 why=""
  if ! "$phasor" export --help 2>&1 | grep -q simgrid; then why="phasor export has no --format simgrid"
  elif ! command -v smpirun >/dev/null; then why="SimGrid is not installed (apt-get install -y libsimgrid-dev)"
  elif [ ! -x "$simgrid_run" ]; then why="no $simgrid_run"
  else sg=1; fi
  [ $sg -eq 1 ] || echo "$prog: SimGrid column n/a: $why"
  python3 - "$out" "$phasor" "$sg" "$simgrid_run" "$rate" "$slow" <<'PY'
import glob, json, os, re, statistics, subprocess, sys

out, phasor, sg, simgrid_run, rate, slow = sys.argv[1:7]
sg = sg == "1"
# phasor replay and phasor export leave phasor's own probes out of the compute and of the
# measured times (doc/replay-format.md, probes_s): every time here is the application's.
ana = os.path.join(out, "analysis")
os.makedirs(ana, exist_ok=True)
failures = []

def run(args, **kw):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return r.returncode, r.stdout, r.stderr

def replay(d, extra, tag):
    """phasor replay D --json EXTRA, kept in analysis/; None (and a failure noted) if it fails."""
    name = os.path.relpath(d, out).replace("/", "_")
    dst = os.path.join(ana, "%s.%s.json" % (name, tag))
    cmd = [phasor, "replay", d, "--json", "--no-path"] + extra
    try:
        rc, txt, err = run(cmd, timeout=600)
    except subprocess.TimeoutExpired:
        failures.append((" ".join(cmd), "timed out after 600 s"))
        return None
    if rc != 0:
        failures.append((" ".join(cmd), "exit %d: %s" % (rc, err.strip()[-500:])))
        return None
    try:
        doc = json.loads(txt)
        float(doc["measured_s"]); float(doc["predicted_s"])
    except (ValueError, KeyError, TypeError) as e:
        failures.append((" ".join(cmd), "unreadable JSON (%s): %s" % (e, txt[:300])))
        return None
    with open(dst, "w") as f:
        f.write(txt)
    return doc

def simgrid(d):
    """SimGrid's simulated time of the run in D, from phasor's export of its log and probe."""
    if not sg:
        return None
    name = os.path.relpath(d, out).replace("/", "_")
    exp = os.path.join(ana, name + ".simgrid")
    subprocess.run(["rm", "-rf", exp])
    cmd = [phasor, "export", "--format", "simgrid", d, "-o", exp]
    rc, txt, err = run(cmd)
    if rc != 0:
        failures.append((" ".join(cmd), "exit %d: %s" % (rc, err.strip()[-500:])))
        return None
    cmd = [simgrid_run, exp]
    try:
        rc, txt, err = run(cmd, timeout=900)
    except subprocess.TimeoutExpired:
        failures.append((" ".join(cmd), "timed out after 900 s"))
        return None
    with open(exp + ".out", "w") as f:
        f.write(txt + err)
    if rc != 0:
        failures.append((" ".join(cmd), "exit %d: %s" % (rc, (err or txt).strip()[-500:])))
        return None
    # the simulated time: a line naming it, else the last number on standard output
    nums = []
    for line in txt.splitlines():
        m = re.findall(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", line)
        if m:
            nums.append((("simulated" in line.lower()) or ("time" in line.lower()), float(m[-1])))
    named = [v for k, v in nums if k]
    val = named[-1] if named else (nums[-1][1] if nums else None)
    if val is None:
        failures.append((" ".join(cmd), "no simulated time in its output: %s" % txt[-300:]))
    return val

def err(p, m):
    return abs(p / m - 1) if p is not None and m else None

probe_cache = {}
def probe_s(d):
    """Wall time of the probe at MPI_Init (slowest rank), from `phasor dump --probe --json`."""
    if d not in probe_cache:
        cmd = [phasor, "dump", d, "--probe", "--json"]
        rc, txt, e = run(cmd)
        try:
            probe_cache[d] = float(json.loads(txt)["elapsed_s"]) if rc == 0 else None
        except (ValueError, KeyError):
            probe_cache[d] = None
        if probe_cache[d] is None:
            failures.append((" ".join(cmd), "no probe time (exit %d): %s" % (rc, e.strip()[-300:])))
    return probe_cache[d]

def bench_load(d):
    try:
        for line in open(os.path.join(d, "bench.txt")):
            if line.startswith("loadavg "):
                return line.split()[1].split(",")[0]
    except OSError:
        pass
    return "?"

def app_err(p, m, g):
    """|p / m - 1|: both are the application's time already (G, the probe's, is shown only)."""
    return err(p, m)

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None

def pct(x):
    return "%6.1f%%" % (100 * x) if x is not None else "    n/a"

def sec(x):
    return "%8.3f" % x if x is not None else "     n/a"

def mpi_err(doc):
    e = [abs(r["predicted_mpi_s"] / r["measured_mpi_s"] - 1) for r in doc["ranks"] if r["measured_mpi_s"] > 0]
    return statistics.median(e) if e else None

lines = []
def say(s=""):
    print(s)
    lines.append(s)

configs = ["4x1-quiet", "4x1-contended", "4x2-quiet", "4x2-contended"]
head = "%-14s %-12s %5s %8s %7s %8s %8s %8s  %7s %7s %7s  %7s  %7s" % (
    "config", "run", "load", "meas_s", "probe_s", "phasor", "whole", "simgrid", "err_ph", "err_wh", "err_sg", "raw_ph", "mpi_err")
rows = []
say("Per run. meas_s: `phasor replay --json` measured_s; phasor: its predicted_s (collectives as steps); whole: with")
say("--collectives whole; simgrid: SMPI's simulated time of `phasor export --format simgrid`. The quick probe at")
say("MPI_Init (probe_s, `phasor dump --probe` elapsed_s) is the shim's time: phasor replay and the export leave it")
say("out of measured and predicted alike. err_*: |predicted/measured - 1|; raw_ph: the same for phasor.")
say("mpi_err: median over ranks of |predicted_mpi_s/measured_mpi_s - 1| (steps). load: the machine's 1-minute load")
say("average just after the run (bench.txt; 2 cores shared with other work).")
say(head)
for c in configs:
    for d in sorted(glob.glob(os.path.join(out, c, "*-[0-9]*")), key=lambda p: (re.sub(r"-\d+$", "", p), int(p.rsplit("-", 1)[1]))):
        if not os.path.isdir(d):
            continue
        app = re.sub(r"-\d+$", "", os.path.basename(d))
        a = replay(d, [], "steps")
        w = replay(d, ["--collectives", "whole"], "whole")
        s = simgrid(d)
        g = probe_s(d)
        m = a["measured_s"] if a else (w["measured_s"] if w else None)
        r = dict(config=c, app=app, run=os.path.basename(d), meas=m, probe=g,
                 ph=a["predicted_s"] if a else None, wh=w["predicted_s"] if w else None, sg=s)
        r["e_ph"], r["e_wh"] = app_err(r["ph"], m, g), app_err(r["wh"], m, g)
        r["e_sg"] = err(s, m)
        r["raw"] = err(r["ph"], m)
        r["mpi"] = mpi_err(a) if a else None
        rows.append(r)
        r["load"] = bench_load(d)
        say("%-14s %-12s %5s %s %7.3f %s %s %s  %s %s %s  %s  %s" % (c, r["run"], r["load"], sec(m), g if g is not None else float("nan"),
            sec(r["ph"]), sec(r["wh"]), sec(s), pct(r["e_ph"]), pct(r["e_wh"]), pct(r["e_sg"]), pct(r["raw"]), pct(r["mpi"])))

def summary(sel, label):
    say("%-27s %5s %s %7.3f %s %s %s  %s %s %s  %s  %s   (%d runs)" % (label, "",
        sec(med([r["meas"] for r in sel])), med([r["probe"] for r in sel]) or float("nan"),
        sec(med([r["ph"] for r in sel])), sec(med([r["wh"] for r in sel])),
        sec(med([r["sg"] for r in sel])), pct(med([r["e_ph"] for r in sel])), pct(med([r["e_wh"] for r in sel])),
        pct(med([r["e_sg"] for r in sel])), pct(med([r["raw"] for r in sel])), pct(med([r["mpi"] for r in sel])), len(sel)))

say()
say("Medians per configuration and application (errors: medians of the runs' errors)")
say(head.replace("config         run         ", "config / app               "))
verdicts = []
for c in configs:
    cr = [r for r in rows if r["config"] == c]
    if not cr:
        continue
    for app in sorted({r["app"] for r in cr}):
        summary([r for r in cr if r["app"] == app], "%s %s" % (c, app))
    summary(cr, "%s ALL" % c)
    lim = 0.10 if "contended" in c else 0.05
    e_ph, e_sg, e_mpi = med([r["e_ph"] for r in cr]), med([r["e_sg"] for r in cr]), med([r["mpi"] for r in cr])
    verdicts.append(("%s whole-run median error <= %d %%" % (c, round(100 * lim)), e_ph is not None and e_ph <= lim, pct(e_ph)))
    verdicts.append(("%s not worse than SimGrid" % c, None if e_sg is None else (e_ph is not None and e_ph <= e_sg),
                     "%s vs %s" % (pct(e_ph).strip(), pct(e_sg).strip())))
    verdicts.append(("%s per-rank MPI time median error <= 10 %%" % c, e_mpi is not None and e_mpi <= 0.10, pct(e_mpi)))

# ---- what-if against reality
wd = os.path.join(out, "whatif")
runs_at = {}
for d in glob.glob(os.path.join(wd, "stencil-*-[0-9]*")):
    m = re.match(r"stencil-(.+)-(\d+)$", os.path.basename(d))
    if m:
        runs_at.setdefault(m.group(1), {})[int(m.group(2))] = d
if runs_at:
    say()
    rates = [x for x in (rate, slow) if x in runs_at] or sorted(runs_at)
    others = sorted(set(runs_at) - set(rates))
    rates += others
    model, meas = {}, {}
    for rt in rates:
        for i, d in sorted(runs_at[rt].items()):
            f = os.path.join(ana, "whatif-model-%s-%d.json" % (rt, i))
            cmd = [phasor, "predict", d, "--save-model", f]
            rc, txt, e = run(cmd)
            if rc != 0:
                failures.append((" ".join(cmd), "exit %d: %s" % (rc, e.strip()[-500:])))
            else:
                model[(rt, i)] = f
            a = replay(d, [], "steps")
            if a:
                meas[(rt, i)] = a
    say("What-if against reality: the stencil at %s (4 x 1, no contention). `phasor replay RUN_A --model MODEL_B --json`" % " and ".join(rates))
    say("predicted_s (MODEL_B: `phasor predict RUN_B --save-model`) against RUN_B's measured_s, pairs of the same index.")
    say("err = raw: |pred_B / meas_B - 1|, both without phasor's probes (probe_A, probe_B shown only).")
    say("%-26s %8s %8s %8s %8s %8s  %7s %7s  %s" % ("A -> B", "meas_A", "probe_A", "meas_B", "probe_B", "pred_B", "err", "raw", "(B's own replay: err)"))
    for fa, fb in ((rates[0], rates[1]), (rates[1], rates[0])) if len(rates) >= 2 else ():
        errs, raws = [], []
        for i in sorted(runs_at[fa]):
            if i not in runs_at.get(fb, {}) or (fb, i) not in model or (fa, i) not in meas or (fb, i) not in meas:
                continue
            p = replay(runs_at[fa][i], ["--model", model[(fb, i)]], "whatif-%s" % fb)
            if not p:
                continue
            ga, gb = probe_s(runs_at[fa][i]), probe_s(runs_at[fb][i])
            ma, mb = meas[(fa, i)]["measured_s"], meas[(fb, i)]["measured_s"]
            e = err(p["predicted_s"], mb)
            errs.append(e)
            raws.append(err(p["predicted_s"], mb))
            say("%-26s %s %s %s %s %s  %s %s  %s" % ("%s-%d -> %s-%d" % (fa, i, fb, i), sec(ma), sec(ga), sec(mb), sec(gb),
                sec(p["predicted_s"]), pct(e), pct(raws[-1]), pct(app_err(meas[(fb, i)]["predicted_s"], mb, gb)).strip()))
        if errs:
            say("%-26s median over %d pairs: err %s, raw %s" % ("%s -> %s" % (fa, fb), len(errs), pct(med(errs)).strip(), pct(med(raws)).strip()))
            verdicts.append(("what-if %s -> %s within 10 %%" % (fa, fb), med(errs) is not None and med(errs) <= 0.10, pct(med(errs))))

say()
say("targets (issue 30)")
for name, ok, fig in verdicts:
    say("  %-58s %-16s %s" % (name, fig.strip(), "n/a" if ok is None else ("PASS" if ok else "FAIL")))
if failures:
    say()
    say("phasor/SimGrid failures (logs kept):")
    for cmd, why in failures:
        say("  $ " + cmd)
        say("    " + why)
say()
say("load average at the analysis: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
with open(os.path.join(ana, "table.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
PY
}

case "$mode" in
  record) record_all ;;
  analyse) analyse ;;
  all) record_all; analyse ;;
esac
