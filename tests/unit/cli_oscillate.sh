#!/bin/sh
# cli_oscillate.sh: `phasor oscillate` on synthetic logs of phases_mklog (a chain with an idle
# wave) and with --model alone: usage errors exit 2 with a reason; bad configuration files and
# logs exit 1 naming the file; the JSON holds the comparison the doc promises; the model alone
# shows the paper's qualitative results (tanh resynchronises after a one-off delay, the
# bottleneck potential keeps the ranks apart); -o/--plots write every file, the SVGs parse and
# index.html carries the model's section.
# Usage: cli_oscillate.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $PHASES_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${PHASES_MKLOG:-./tests/unit/phases_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_oscillate.sh: need an executable phasor ($phasor), phases_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/log8"
"$mklog" "$tmp/log8" 8 40 1 || bad "phases_mklog 8 ranks"
# json FILE EXPR: the python expression over d (the JSON object) is true
json() {
    python3 -c 'import json,math,sys
d=json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>>"$tmp/json.err"
}

# ---- usage ----
expect_exit "oscillate --help" 0 "$phasor" oscillate --help
check "help names --model and --what-if" "grep -q -- --model '$tmp/out' && grep -q -- --what-if '$tmp/out'"
expect_exit "no log is a usage error" 2 "$phasor" oscillate
expect_exit "--ranks without --model is a usage error" 2 "$phasor" oscillate -P 4 "$tmp/log8"
check "the message says --model" "grep -q -- '--model' '$tmp/err'"
expect_exit "--plots without -o" 2 "$phasor" oscillate --plots "$tmp/log8"
expect_exit "a bad --potential" 2 "$phasor" oscillate --potential cosh "$tmp/log8"
expect_exit "a bad --what-if" 2 "$phasor" oscillate --what-if speed=2 "$tmp/log8"
expect_exit "a bad --noise" 2 "$phasor" oscillate --noise gauss:1 "$tmp/log8"
expect_exit "a bad --topology" 2 "$phasor" oscillate --model --topology torus
expect_exit "a bad --init" 2 "$phasor" oscillate --model --init local:x
expect_exit "a bad --perturb" 2 "$phasor" oscillate --model --perturb 1:2
expect_exit "--perturb past the ranks" 2 "$phasor" oscillate --model -P 4 --perturb 4:0.1:0.01
expect_exit "--what-if with --model" 2 "$phasor" oscillate --model --what-if coupling=2
expect_exit "--model with two files" 2 "$phasor" oscillate --model a.json b.json
expect_exit "--rtol 0" 2 "$phasor" oscillate --model --rtol 0

# ---- bad input ----
expect_exit "a missing log exits 1" 1 "$phasor" oscillate "$tmp/nolog"
mkdir "$tmp/trunc"
for f in "$tmp"/log8/*.plog; do head -c 200 "$f" >"$tmp/trunc/$(basename "$f")"; done
expect_exit "a truncated log is refused" 1 "$phasor" oscillate "$tmp/trunc"
check "the message names the log" "grep -q '$tmp/trunc' '$tmp/err'"
expect_exit "a missing configuration file exits 1" 1 "$phasor" oscillate --model "$tmp/none.json"
check "the message names the file" "grep -q 'none.json' '$tmp/err'"
printf '{"format": "phasor-oscillator-config", "version": 2}\n' >"$tmp/v2.json"
expect_exit "a configuration of another version" 1 "$phasor" oscillate --model "$tmp/v2.json"
check "the message names the version" "grep -q 'v2.json.*version' '$tmp/err'"
printf '{"format": "phasor-oscillator-config", "version": 1, "rank": 4}\n' >"$tmp/key.json"
expect_exit "an unknown key" 1 "$phasor" oscillate --model "$tmp/key.json"
check "the message names the key" "grep -q '\"rank\"' '$tmp/err'"
printf '{"format": "phasor-oscillator-config", "version": 1, "ranks": -3}\n' >"$tmp/neg.json"
expect_exit "a negative rank count" 1 "$phasor" oscillate --model "$tmp/neg.json"
printf '{"format": "phasor-oscillator-config", "version": 1, "ranks": 4,\n' >"$tmp/cut.json"
expect_exit "a file that is not JSON" 1 "$phasor" oscillate --model "$tmp/cut.json"

# ---- the model alone ----
base="-P 16 --period 0.01 --vp 2000 --perturb 8:0.1:0.005 --periods 60"
expect_exit "--model tanh with a delay" 0 "$phasor" oscillate --model --json $base --potential tanh
cp "$tmp/out" "$tmp/tanh.json"
check "tanh: valid JSON, format and version" \
    "json '$tmp/tanh.json' 'd[\"format\"] == \"phasor-oscillate\" and d[\"version\"] == 1'"
check "tanh: resynchronises (R back, pattern synchronised)" \
    "json '$tmp/tanh.json' 'd[\"figures\"][\"final_pattern\"] == \"synchronised\" and d[\"figures\"][\"resync_s\"] > 0'"
check "tanh: the idle wave travels" \
    "json '$tmp/tanh.json' 'd[\"figures\"][\"wave_reach_hops\"] >= 2'"
expect_exit "--model bottleneck with a delay" 0 "$phasor" oscillate --model --json $base --potential piecewise
cp "$tmp/out" "$tmp/bott.json"
check "bottleneck: a wavefront persists" "json '$tmp/bott.json' 'd[\"figures\"][\"final_pattern\"] == \"wavefront\"'"
check "bottleneck: no resynchronisation (R over the last quarter below tanh's)" \
    "python3 -c 'import json,sys; a=json.load(open(\"$tmp/tanh.json\")); b=json.load(open(\"$tmp/bott.json\")); sys.exit(0 if b[\"figures\"][\"r_tail\"] < 0.9 <= a[\"figures\"][\"r_tail\"] else 1)'"
cat >"$tmp/cfg.json" <<'EOF'
{"format": "phasor-oscillator-config", "version": 1, "ranks": 12, "topology": "ring:uni",
 "potential": "tanh:2", "period_s": 0.02, "noise": "uniform:0.05", "seed": 3,
 "perturbation": {"rank": 3, "t_s": 0.2, "delta_s": 0.01}, "init": "zero", "periods": 40}
EOF
expect_exit "--model with a configuration file" 0 "$phasor" oscillate --model --json "$tmp/cfg.json"
cp "$tmp/out" "$tmp/cfg.out.json"
check "the file's values are used" \
    "json '$tmp/cfg.out.json' 'd[\"model\"][\"ranks\"] == 12 and d[\"model\"][\"potential\"] == \"tanh:2\" and d[\"model\"][\"noise\"][\"kind\"] == \"uniform\" and d[\"model\"][\"edges\"] == 12'"
expect_exit "options override the file" 0 "$phasor" oscillate --model --json -P 6 "$tmp/cfg.json"
check "-P 6 over the file's 12" "json '$tmp/out' 'd[\"model\"][\"ranks\"] == 6'"
expect_exit "--model text output" 0 "$phasor" oscillate --model $base
check "the text names the figures" "grep -q 'resynchronisation' '$tmp/out' && grep -q 'final pattern' '$tmp/out'"
expect_exit "--model -o --plots" 0 "$phasor" oscillate --model $base -o "$tmp/m" --plots
check "--model files" "[ -s '$tmp/m/oscillate.csv' ] && [ -s '$tmp/m/gradient_model.csv' ] && [ -s '$tmp/m/boundaries_model.csv' ] && [ -s '$tmp/m/osc_r.svg' ]"
check "oscillate.csv has the model's columns only" "head -1 '$tmp/m/oscillate.csv' | grep -q '^t_ns,R_model,S_model,E_model,g_mean_model$'"

# ---- fitted to a log ----
expect_exit "fit, --json, -o, --plots" 0 "$phasor" oscillate --json -o "$tmp/f" --plots "$tmp/log8"
cp "$tmp/out" "$tmp/fit.json"
check "fit: comparison members are {model, measured}" \
    "json '$tmp/fit.json' 'all(set(d[\"comparison\"][k]) == {\"model\", \"measured\"} for k in (\"resync_s\", \"wave_speed_ranks_per_iteration\", \"r_mean\"))'"
check "fit: r_rms is a number" "json '$tmp/fit.json' 'isinstance(d[\"comparison\"][\"r_rms\"], float)'"
check "fit: every parameter has a value and a how" \
    "json '$tmp/fit.json' 'len(d[\"parameters\"]) >= 8 and all(p[\"how\"] for p in d[\"parameters\"])'"
check "fit: the perturbation is the synthetic delay (rank 0, iteration 10)" \
    "json '$tmp/fit.json' 'd[\"perturbation\"][\"rank\"] == 0 and d[\"perturbation\"][\"iteration\"] == 10'"
check "fit: T from the log (a chain: 7 edges)" "json '$tmp/fit.json' 'd[\"model\"][\"edges\"] == 7'"
for f in oscillate.csv parameters.csv gradient_measured.csv gradient_model.csv \
    deviation_measured.csv deviation_model.csv boundaries_model.csv osc_r.svg osc_s.svg \
    osc_e.svg osc_g.svg index.html order.svg; do
    check "fit writes $f" "[ -s '$tmp/f/$f' ]"
done
check "oscillate.csv: measured and model columns" \
    "head -1 '$tmp/f/oscillate.csv' | grep -q '^t_ns,R_measured,R_model,S_measured,S_model,'"
check "index.html has the model's section and its figures" \
    "grep -q 'id=\"model\"' '$tmp/f/index.html' && grep -q 'osc_r.svg' '$tmp/f/index.html'"
check "every SVG parses" "python3 -c 'import sys,glob,xml.etree.ElementTree as E; [E.parse(f) for f in glob.glob(\"$tmp/f/*.svg\")]'"
expect_exit "fit with a what-if" 0 "$phasor" oscillate --json --what-if coupling=3 "$tmp/log8"
check "what-if: its model has 3 x v_p" \
    "json '$tmp/out' 'abs(d[\"whatif\"][\"model\"][\"vp_per_s\"] - 3 * d[\"model\"][\"vp_per_s\"]) < 1e-6 * d[\"model\"][\"vp_per_s\"]'"
check "fit: the three families tried" "json '$tmp/fit.json' 'set(d[\"families\"]) == {\"tanh\", \"bottleneck\", \"wait\"}'"
expect_exit "fit with the paper's families only" 0 "$phasor" oscillate --json --potential paper "$tmp/log8"
check "--potential paper: tanh and bottleneck, no wait" "json '$tmp/out' 'set(d[\"families\"]) == {\"tanh\", \"bottleneck\"}'"
expect_exit "fit with the wait family" 0 "$phasor" oscillate --json --potential wait "$tmp/log8"
check "--potential wait: its delays are one period" \
    "json '$tmp/out' 'd[\"model\"][\"potential\"].startswith(\"wait:\") and abs([p for p in d[\"parameters\"] if p[\"name\"] == \"delay_s\"][0][\"value\"] - [p for p in d[\"parameters\"] if p[\"name\"] == \"period_s\"][0][\"value\"]) < 1e-12'"
expect_exit "fit with a fixed potential" 0 "$phasor" oscillate --json --potential sin --delay none "$tmp/log8"
check "the fixed potential is kept" "json '$tmp/out' 'd[\"model\"][\"potential\"] == \"sin\"'"
expect_exit "fit, text" 0 "$phasor" oscillate "$tmp/log8"
check "text: parameters and the comparison" "grep -q 'coupling_gain' '$tmp/out' && grep -q 'Model against measured' '$tmp/out'"
cli_done
