#!/bin/sh
# cli_health.sh: `phasor health` and `phasor regimes` on the synthetic log of health_mklog
# (4 ranks on 2 hosts, messages between the hosts 3x slower from 4 s to 6 s): usage errors
# exit 2 with a reason; missing, truncated and bad inputs exit 1 naming the file (or read
# what a truncated log has); health finds the slow span within one window on every link
# between the hosts and none within a host; regimes finds the two regimes with their means,
# shares and switch times; -o writes CSVs and SVGs that parse.
# Usage: cli_health.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $HEALTH_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${HEALTH_MKLOG:-./tests/unit/health_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_health.sh: need an executable phasor ($phasor), health_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/log"
"$mklog" "$tmp/log" || bad "health_mklog"
# json FILE EXPR: the python expression over d (the JSON object) is true
json() {
    python3 -c 'import json,math,sys
d=json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>>"$tmp/json.err"
}
xml_ok() { python3 -c 'import sys,xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1" 2>>"$tmp/json.err"; }

# ---- usage ----
expect_exit "health --help" 0 "$phasor" health --help
check "health's help names --window and --threshold" "grep -q -- --window '$tmp/out' && grep -q -- --threshold '$tmp/out'"
expect_exit "regimes --help" 0 "$phasor" regimes --help
check "regimes' help names --series and --kmax" "grep -q -- --series '$tmp/out' && grep -q -- --kmax '$tmp/out'"
expect_exit "health without a log" 2 "$phasor" health
expect_exit "regimes without a log" 2 "$phasor" regimes
expect_exit "a bad --window" 2 "$phasor" health --window 3parsecs "$tmp/log"
check "the message names --window" "grep -q -- '--window' '$tmp/err'"
expect_exit "a window of 0" 2 "$phasor" health --window 0 "$tmp/log"
expect_exit "a threshold below 1" 2 "$phasor" health --threshold 0.5 "$tmp/log"
expect_exit "a window of a nanosecond: too many windows" 2 "$phasor" health --window 1ns "$tmp/log"
expect_exit "an unknown option" 2 "$phasor" health --csv "$tmp/log"
expect_exit "a bad --series" 2 "$phasor" regimes --series latency "$tmp/log"
check "the message lists the series" "grep -q 'messages' '$tmp/err'"
expect_exit "--kmax 0" 2 "$phasor" regimes --kmax 0 "$tmp/log"
expect_exit "--kmax past the largest" 2 "$phasor" regimes --kmax 99 "$tmp/log"
expect_exit "a bad --marker" 2 "$phasor" regimes --marker 'pcontrol:x' "$tmp/log"
expect_exit "two logs" 2 "$phasor" health "$tmp/log" "$tmp/log"

# ---- bad input ----
expect_exit "health: a missing log exits 1" 1 "$phasor" health "$tmp/nolog"
check "the message names the log" "grep -q '$tmp/nolog' '$tmp/err'"
expect_exit "regimes: a missing log exits 1" 1 "$phasor" regimes "$tmp/nolog"
expect_exit "a missing model file exits 1" 1 "$phasor" health --model "$tmp/none.json" "$tmp/log"
check "the message names the model file" "grep -q 'none.json' '$tmp/err'"
printf '{"format": "phasor-model", "version": 99}\n' >"$tmp/v99.json"
expect_exit "a model file of another version exits 1" 1 "$phasor" health --model "$tmp/v99.json" "$tmp/log"
check "the message names that file" "grep -q 'v99.json' '$tmp/err'"
mkdir "$tmp/hdr"
for f in "$tmp"/log/*.plog; do head -c 40 "$f" >"$tmp/hdr/$(basename "$f")"; done
expect_exit "logs cut inside their headers are refused" 1 "$phasor" health "$tmp/hdr"
check "the message names a file" "grep -q '$tmp/hdr/rank-' '$tmp/err'"
mkdir "$tmp/cut"
for f in "$tmp"/log/*.plog; do
    n=$(wc -c <"$f")
    head -c $((n * 2 / 3)) "$f" >"$tmp/cut/$(basename "$f")"
done
expect_exit "logs that end early: what they have is read" 0 "$phasor" health --json "$tmp/cut"
check "the reader says the logs ended early, naming one" "grep -q '$tmp/cut/rank-.*' '$tmp/err'"
check "the cut logs still give samples" "json '$tmp/out' 'd[\"counts\"][\"reliable\"] > 1000'"

# ---- health ----
expect_exit "health, text" 0 "$phasor" health "$tmp/log"
check "text names both hosts' links" "grep -q 'host node0' '$tmp/out' && grep -q 'host node1' '$tmp/out'"
check "text shows the departed span" "grep -q 'departed from the run' '$tmp/out'"
expect_exit "health --json" 0 "$phasor" health --json "$tmp/log"
cp "$tmp/out" "$tmp/h.json"
check "format and version" "json '$tmp/h.json' 'd[\"format\"]==\"phasor-health\" and d[\"version\"]==1'"
check "every message kept and matched (30000)" "json '$tmp/h.json' 'd[\"counts\"][\"reliable\"]==30000 and d[\"counts\"][\"matched\"]==30000 and d[\"counts\"][\"unmatched_sends\"]==0'"
check "2 hosts, 4 ranks" "json '$tmp/h.json' 'd[\"hosts\"]==2 and d[\"ranks\"]==4'"
check "links: intra-host, inter-host, host node0, host node1" "json '$tmp/h.json' 'sorted(l[\"link\"] for l in d[\"links\"])==[\"host node0\",\"host node1\",\"inter-host\",\"intra-host\"]'"
check "three departed spans, none within a host" "json '$tmp/h.json' 'len(d[\"windows\"])==3 and all(w[\"link\"]!=\"intra-host\" for w in d[\"windows\"])'"
check "each span is [4 s, 6 s] within one window" "json '$tmp/h.json' 'all(abs(w[\"start_ns\"]-d[\"first_ns\"]-4e9)<=d[\"window_ns\"][\"messages\"] and abs(w[\"end_ns\"]-d[\"first_ns\"]-6e9)<=d[\"window_ns\"][\"messages\"] for w in d[\"windows\"])'"
check "the spans' slowdown is 3 (+-10 %)" "json '$tmp/h.json' 'all(abs(w[\"slowdown\"]-3)<0.3 for w in d[\"windows\"])'"
check "best bandwidth between hosts: 64 KiB in 100 us (+-10 %)" "json '$tmp/h.json' 'abs([l for l in d[\"links\"] if l[\"link\"]==\"inter-host\"][0][\"best_bandwidth_bps\"]/(8*65536/100e-6)-1)<0.1'"
check "best latency within the host: 2 us" "json '$tmp/h.json' 'abs([l for l in d[\"links\"] if l[\"link\"]==\"intra-host\"][0][\"best_latency_s\"]-2e-6)<1e-7'"
expect_exit "health --window 1s --threshold 2.5" 0 "$phasor" health --json --window 1s --threshold 2.5 "$tmp/log"
check "1 s windows: the span is exactly 2 windows" "json '$tmp/out' 'd[\"window_ns\"][\"messages\"]==1000000000 and all(w[\"windows\"] in (2,3) for w in d[\"windows\"]) and len(d[\"windows\"])==3'"
expect_exit "a threshold above the slowdown" 0 "$phasor" health --json --threshold 4 "$tmp/log"
check "nothing departs" "json '$tmp/out' 'd[\"windows\"]==[]'"
expect_exit "health -o" 0 "$phasor" health -o "$tmp/hout" "$tmp/log"
check "health.csv has its header and a row per window of every link" "head -1 '$tmp/hout/health.csv' | grep -q '^link,source,start_ns' && [ \$(wc -l <'$tmp/hout/health.csv') -gt 100 ]"
check "health.svg parses" "xml_ok '$tmp/hout/health.svg'"

# ---- regimes ----
expect_exit "regimes --json" 0 "$phasor" regimes --json --kmax 4 --restarts 1 "$tmp/log"
cp "$tmp/out" "$tmp/r.json"
check "format and version" "json '$tmp/r.json' 'd[\"format\"]==\"phasor-regimes\" and d[\"version\"]==1'"
check "series: messages between and within hosts, iterations" "json '$tmp/r.json' '[s[\"name\"] for s in d[\"series\"]]==[\"messages/inter-host\",\"messages/intra-host\",\"iterations\"]'"
check "between hosts: K = 2" "json '$tmp/r.json' 'd[\"series\"][0][\"k\"]==2'"
check "their means: 100 us and 300 us (+-5 %)" "json '$tmp/r.json' 'abs(d[\"series\"][0][\"regimes\"][0][\"mean\"]/100e-6-1)<0.05 and abs(d[\"series\"][0][\"regimes\"][1][\"mean\"]/300e-6-1)<0.05'"
check "their shares: 80 % and 20 % (+-1 %)" "json '$tmp/r.json' 'abs(d[\"series\"][0][\"regimes\"][0][\"share\"]-0.8)<0.01'"
check "two switches, at 4 s and 6 s (+-10 ms)" "json '$tmp/r.json' 'len(d[\"series\"][0][\"switches\"])==2 and abs(d[\"series\"][0][\"switches\"][0][\"t_ns\"]-d[\"first_ns\"]-4e9)<1e7 and abs(d[\"series\"][0][\"switches\"][1][\"t_ns\"]-d[\"first_ns\"]-6e9)<1e7'"
check "BIC and log L for K = 1..4" "json '$tmp/r.json' 'sorted(d[\"series\"][0][\"bic\"])==[\"1\",\"2\",\"3\",\"4\"] and sorted(d[\"series\"][0][\"loglik\"])==[\"1\",\"2\",\"3\",\"4\"]'"
check "BIC's own K has the least BIC, and the K chosen is at most it" "json '$tmp/r.json' 'all(min(s[\"bic\"].values())==s[\"bic\"][str(s[\"k_bic\"])] and s[\"k\"]<=s[\"k_bic\"] for s in d[\"series\"])'"
check "messages: window medians of 50 ms by default" "json '$tmp/r.json' 'd[\"series\"][0][\"window_ns\"]==50000000 and d[\"series\"][0][\"samples\"]==200 and d[\"series\"][0][\"total\"]==20000'"
expect_exit "regimes --per-sample" 0 "$phasor" regimes --json --per-sample --series messages --kmax 3 --restarts 1 "$tmp/log"
check "every sample: 20000 fitted, still K = 2" "json '$tmp/out' 'd[\"series\"][0][\"window_ns\"]==0 and d[\"series\"][0][\"samples\"]==20000 and d[\"series\"][0][\"k\"]==2'"
expect_exit "a bad --resolution" 2 "$phasor" regimes --resolution 0.5 "$tmp/log"
expect_exit "a bad regimes --window" 2 "$phasor" regimes --window 1parsec "$tmp/log"
check "within the host: one regime at 2 us" "json '$tmp/r.json' 'd[\"series\"][1][\"k\"]==1 and abs(d[\"series\"][1][\"regimes\"][0][\"mean\"]-2e-6)<1e-8'"
check "transition rows sum to 1" "json '$tmp/r.json' 'all(abs(sum(r)-1)<1e-9 for s in d[\"series\"] for r in s[\"transitions\"])'"
expect_exit "regimes --series iterations --fit-ranks 1" 0 "$phasor" regimes --json --series iterations --fit-ranks 1 --kmax 2 "$tmp/log"
check "iterations: fitted on one rank, every rank labelled" "json '$tmp/out' 'len(d[\"series\"])==1 and d[\"series\"][0][\"fit_ranks\"].__len__()==1 and d[\"series\"][0][\"ranks_labelled\"]>=1'"
expect_exit "regimes --series probe on a log without probes" 0 "$phasor" regimes --json --series probe "$tmp/log"
check "the probe series is there, empty" "json '$tmp/out' 'd[\"series\"][0][\"samples\"]==0 and d[\"series\"][0][\"k\"]==0'"
expect_exit "regimes -o" 0 "$phasor" regimes --kmax 3 --restarts 0 --series messages -o "$tmp/rout" "$tmp/log"
check "one CSV per series, with its header" "head -1 '$tmp/rout/regimes-messages-inter-host.csv' | grep -q '^t_ns,value_s,regime' && [ -f '$tmp/rout/regimes-messages-intra-host.csv' ]"
check "the SVGs parse" "xml_ok '$tmp/rout/regimes-messages-inter-host.svg' && xml_ok '$tmp/rout/regimes-messages-intra-host.svg'"
check "the same seed gives the same output" "'$phasor' regimes --json --kmax 3 --seed 5 '$tmp/log' >'$tmp/s1' 2>/dev/null && '$phasor' regimes --json --kmax 3 --seed 5 '$tmp/log' >'$tmp/s2' 2>/dev/null && cmp -s '$tmp/s1' '$tmp/s2'"
# ---- the probe series (periodic probes every 100 ms, 3x slower between the hosts in [4, 6] s) ----
mkdir "$tmp/plog"
"$mklog" "$tmp/plog" probes || bad "health_mklog with probes"
expect_exit "health --json with probes" 0 "$phasor" health --json "$tmp/plog"
cp "$tmp/out" "$tmp/hp.json"
check "100 probes read" "json '$tmp/hp.json' 'd[\"counts\"][\"probes\"]==100'"
check "probe windows of 100 ms" "json '$tmp/hp.json' 'd[\"window_ns\"][\"probe\"]==100000000'"
check "the probes find the same span between the hosts, within one window" "json '$tmp/hp.json' 'sorted(w[\"link\"] for w in d[\"windows\"] if w[\"source\"]==\"probe\")==[\"host node0\",\"host node1\",\"inter-host\"] and all(abs(w[\"start_ns\"]-d[\"first_ns\"]-4e9)<=1e8 and abs(w[\"end_ns\"]-d[\"first_ns\"]-6e9)<=1e8 and abs(w[\"slowdown\"]-3)<0.3 for w in d[\"windows\"] if w[\"source\"]==\"probe\")'"
expect_exit "regimes --series probe" 0 "$phasor" regimes --json --series probe --kmax 3 --restarts 1 "$tmp/plog"
cp "$tmp/out" "$tmp/rp.json"
check "probe series between and within the hosts" "json '$tmp/rp.json' '[s[\"name\"] for s in d[\"series\"]]==[\"probe/inter-host\",\"probe/intra-host\"]'"
check "between: K = 2, 100 us and 300 us at 64 KiB, the large size alone (+-5 %), switches at 4 s and 6 s (+-0.1 s)" "json '$tmp/rp.json' 'd[\"series\"][0][\"k\"]==2 and abs(d[\"series\"][0][\"regimes\"][0][\"mean\"]/100e-6-1)<0.05 and abs(d[\"series\"][0][\"regimes\"][1][\"mean\"]/300e-6-1)<0.05 and [round((w[\"t_ns\"]-d[\"first_ns\"])/1e8) for w in d[\"series\"][0][\"switches\"]]==[40,60]'"
check "within: K = 1" "json '$tmp/rp.json' 'd[\"series\"][1][\"k\"]==1'"
[ -s "$tmp/json.err" ] && sed 's/^/     /' "$tmp/json.err" | tail -5
cli_done
