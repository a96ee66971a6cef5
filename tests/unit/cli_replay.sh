#!/bin/sh
# cli_replay.sh: `phasor replay` on the synthetic log of health_mklog (4 ranks exchanging
# 64 KiB and 8 B messages for 10 s) with a model file saved from probe_mklog's quick probe:
# usage errors exit 2 with a reason; missing and bad inputs exit 1 naming the file; the JSON
# is whole and consistent (every rank, the critical path adding up to its length, the run's
# prediction the latest rank's); what-ifs move the prediction the way they must (faster
# links never slower, more latency never faster, more compute slower, the baseline beside
# them); -o writes the CSVs and a Perfetto trace that parse.
# Usage: cli_replay.sh [PHASOR [HEALTH_MKLOG [PROBE_MKLOG]]]
#        (defaults: $PHASOR, $HEALTH_MKLOG, $PROBE_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${HEALTH_MKLOG:-./tests/unit/health_mklog}}
pmklog=${3:-${PROBE_MKLOG:-./tests/unit/probe_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || [ ! -x "$pmklog" ] ||
    ! command -v python3 >/dev/null 2>&1; then
    echo "cli_replay.sh: need an executable phasor ($phasor), health_mklog ($mklog)," \
        "probe_mklog ($pmklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/log" "$tmp/plog"
"$mklog" "$tmp/log" || bad "health_mklog"
"$pmklog" "$tmp/plog" || bad "probe_mklog"
"$phasor" predict "$tmp/plog" --save-model "$tmp/model.json" >/dev/null 2>&1 || bad "save a model"
# json FILE EXPR: the python expression over d (the JSON object) is true
json() {
    python3 -c 'import json,math,sys
d=json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>>"$tmp/json.err"
}

# ---- usage ----
expect_exit "replay --help" 0 "$phasor" replay --help
check "--help names the what-ifs" "grep -q -- '--bandwidth' '$tmp/out' && grep -q -- '--slow-rank' '$tmp/out'"
expect_exit "no log" 2 "$phasor" replay
expect_exit "--bandwidth 0" 2 "$phasor" replay "$tmp/log" --bandwidth 0
check "--bandwidth 0 says why" "grep -q 'bandwidth' '$tmp/err'"
expect_exit "--latency x" 2 "$phasor" replay "$tmp/log" --latency x
expect_exit "--slow-rank 3" 2 "$phasor" replay "$tmp/log" --slow-rank 3
check "--slow-rank says the form" "grep -q 'RANK:FACTOR' '$tmp/err'"
expect_exit "--slow-rank out of the run" 2 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --slow-rank 9:2
expect_exit "--collectives foo" 2 "$phasor" replay "$tmp/log" --collectives foo
expect_exit "--kind foo" 2 "$phasor" replay "$tmp/log" --kind foo
expect_exit "--compute-scale -1" 2 "$phasor" replay "$tmp/log" --compute-scale -1
expect_exit "unknown option" 2 "$phasor" replay "$tmp/log" --frobnicate

# ---- bad input ----
expect_exit "missing directory" 1 "$phasor" replay "$tmp/nothing"
expect_exit "no probe and no model" 1 "$phasor" replay "$tmp/log"
check "no probe: says to give --model" "grep -q -- '--model' '$tmp/err'"
expect_exit "missing model file" 1 "$phasor" replay "$tmp/log" --model "$tmp/none.json"
check "missing model: names the file" "grep -q 'none.json' '$tmp/err'"
printf '{"format": "phasor-model", "version": 1, ' >"$tmp/bad.json"
expect_exit "truncated model file" 1 "$phasor" replay "$tmp/log" --model "$tmp/bad.json"
check "truncated model: names the file" "grep -q 'bad.json' '$tmp/err'"

# ---- the replay ----
expect_exit "replay text" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536
check "text: the run and every rank" "grep -q '^run (end of MPI_Init' '$tmp/out' && [ \$(grep -cE '^ +[0-3] ' '$tmp/out') -ge 4 ]"
check "text: the critical path" "grep -q '^critical path:' '$tmp/out'"
expect_exit "replay --json" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536 --json
cp "$tmp/out" "$tmp/base.json"
check "json: format and version" "json '$tmp/base.json' 'd[\"format\"] == \"phasor-replay\" and d[\"version\"] == 1'"
check "json: every rank" "json '$tmp/base.json' 'sorted(r[\"rank\"] for r in d[\"ranks\"]) == [0, 1, 2, 3]'"
check "json: every message matched, none forced" "json '$tmp/base.json' 'd[\"counts\"][\"messages\"] == 30000 and d[\"counts\"][\"forced\"] == 0 and d[\"counts\"][\"unmatched_sends\"] == 0'"
check "json: measured run 10 s" "json '$tmp/base.json' 'abs(d[\"measured_s\"] - 10.0001) < 1e-3'"
check "json: the run ends with its latest rank" "json '$tmp/base.json' 'abs(d[\"predicted_s\"] - max(r[\"predicted_end_s\"] for r in d[\"ranks\"])) < 1e-9'"
check "json: no rank in MPI longer than it ran" "json '$tmp/base.json' 'all(0 <= r[\"predicted_mpi_s\"] <= r[\"predicted_end_s\"] + 1e-9 for r in d[\"ranks\"])'"
check "json: no what-if, no baseline" "json '$tmp/base.json' 'd[\"whatif\"] is None and \"baseline_predicted_s\" not in d'"
check "json: the path adds up to its length" "json '$tmp/base.json' 'abs(sum(s[\"predicted_end_s\"] - s[\"predicted_start_s\"] + (s[\"edge_s\"] if i else 0) for i, s in enumerate(d[\"critical_path\"][\"stretches\"])) - d[\"critical_path\"][\"predicted_s\"]) < 1e-6'"
check "json: the path spans the run" "json '$tmp/base.json' 'abs(d[\"critical_path\"][\"stretches\"][-1][\"predicted_end_s\"] - d[\"predicted_s\"]) < 1e-6'"
check "json: compute + MPI + between = path" "json '$tmp/base.json' 'abs(d[\"critical_path\"][\"compute_s\"] + d[\"critical_path\"][\"mpi_s\"] + d[\"critical_path\"][\"between_ranks_s\"] - d[\"critical_path\"][\"predicted_s\"] - d[\"critical_path\"][\"stretches\"][0][\"edge_s\"]) < 1e-6'"

# ---- what-ifs: the direction is certain, the size is the model's ----
expect_exit "--bandwidth 4" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536 --bandwidth 4 --json
cp "$tmp/out" "$tmp/bw.json"
check "faster links: never slower, baseline beside" "json '$tmp/bw.json' 'd[\"predicted_s\"] <= d[\"baseline_predicted_s\"] + 1e-9 and d[\"whatif\"][\"bandwidth\"] == 4'"
check "the baseline is the plain replay" "python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if abs(a[\"baseline_predicted_s\"] - b[\"predicted_s\"]) < 1e-9 else 1)' '$tmp/bw.json' '$tmp/base.json'"
expect_exit "--latency 50" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536 --latency 50 --json
check "more latency: slower messages, not a faster run" "json '$tmp/out' 'd[\"predicted_s\"] >= d[\"baseline_predicted_s\"] - 1e-9 and sum(r[\"predicted_mpi_s\"] for r in d[\"ranks\"]) > 0'"
expect_exit "--compute-scale 2" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536 --compute-scale 2 --json
check "twice the compute: a longer run" "json '$tmp/out' 'd[\"predicted_s\"] > 1.5 * d[\"baseline_predicted_s\"]'"
expect_exit "--slow-rank 0:2" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536 --slow-rank 0:2 --json
check "one slow rank: the run waits for it" "json '$tmp/out' 'd[\"predicted_s\"] > 1.5 * d[\"baseline_predicted_s\"] and d[\"whatif\"][\"slow_rank\"] == 0'"
expect_exit "--collectives whole" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --eager 65536 --collectives whole --json
check "whole: named in the JSON" "json '$tmp/out' 'd[\"collectives\"] == \"whole\"'"
expect_exit "--kind loggp" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --kind loggp --json
check "loggp: sends and receives priced apart, the run replayed" "json '$tmp/out' 'd[\"model_kind\"] == \"loggp\" and d[\"counts\"][\"messages\"] == 30000 and d[\"predicted_s\"] > 0'"
expect_exit "--kind hockney" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --kind hockney --json
check "hockney: named" "json '$tmp/out' 'd[\"model_kind\"] == \"hockney\"'"
expect_exit "--no-path" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" --no-path --json
check "--no-path: no path" "json '$tmp/out' '\"critical_path\" not in d and d[\"counts\"][\"peak_path_nodes\"] == 0'"

# ---- -o ----
expect_exit "-o DIR" 0 "$phasor" replay "$tmp/log" --model "$tmp/model.json" -o "$tmp/o"
check "-o: ranks CSV" "[ \$(wc -l <'$tmp/o/replay_ranks.csv') -eq 5 ] && head -1 '$tmp/o/replay_ranks.csv' | grep -q '^rank,measured_end_s'"
check "-o: path CSV" "[ \$(wc -l <'$tmp/o/replay_path.csv') -ge 2 ]"
check "-o: Perfetto trace parses" "json '$tmp/o/replay_path.json' 'd[\"otherData\"][\"format\"] == \"phasor-replay-path\" and any(e[\"ph\"] == \"X\" for e in d[\"traceEvents\"])'"
ln -s "$tmp/elsewhere" "$tmp/link"
expect_exit "-o through a link not followed" 1 "$phasor" replay "$tmp/log" --model "$tmp/model.json" -o "$tmp/link"

cli_done
