#!/bin/sh
# cli_report.sh: `phasor report` end to end on the committed logs of tests/data: the golden run
# gives the known matrix and sections (text, JSON, matrix.csv, matrix.svg); bad paths and
# damaged files exit 1 naming the file; usage errors exit 2.
# Usage: cli_report.sh [PHASOR [DATA_DIR]]  (defaults: $PHASOR or ./phasor, $PHASOR_TESTDATA or
# $srcdir/tests/data). Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
data=${2:-${PHASOR_TESTDATA:-${srcdir:-.}/tests/data}}
case $phasor in /*) ;; *) phasor=$(pwd)/$phasor ;; esac
if [ ! -x "$phasor" ] || [ ! -d "$data/golden" ]; then
    echo "cli_report.sh: need an executable phasor ($phasor) and tests/data ($data)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"
cd "$data" || exit 1 # relative paths keep file names in the output stable


# ---- usage ----
expect_exit "report --help" 0 "$phasor" report --help
check "report --help lists --json and -o" 'grep -q -- "--json" "$tmp/out" && grep -q -- "-o" "$tmp/out"'
expect_exit "phasor help report" 0 "$phasor" help report
expect_exit "phasor --help lists report" 0 "$phasor" --help
check "report in the subcommand list" 'grep -q "^  report" "$tmp/out"'
expect_exit "report without a log" 2 "$phasor" report
expect_exit "report unknown option" 2 "$phasor" report --frob golden
expect_exit "report -o without a directory" 2 "$phasor" report golden -o
expect_exit "report two logs" 2 "$phasor" report golden golden

# ---- the golden run: text ----
expect_exit "report golden" 0 "$phasor" report golden
for s in "Time per rank" "Load imbalance" "MPI functions by time" "Message sizes" \
    "Collectives by communicator size" "Point-to-point matrix" "Top call sites" \
    "How the logs ended"; do
    check "text has section '$s'" 'grep -q "^@--- $s" "$tmp/out"'
done
check "text: call sites not recorded" 'grep -q "^call sites not recorded" "$tmp/out"'
check "text: rank 2 truncated at offset 452" 'grep -q "^rank 2: truncated at offset 452" "$tmp/out"'
check "text: 4 rank pairs, 6 messages, 40 bytes" 'grep -q "^4 rank pairs, 6 messages, 40 bytes" "$tmp/out"'
check "text: Init and Finalize are not listed as MPI functions" '! grep -q "^Init\|^Finalize" "$tmp/out"'
check "text fits 100 columns" '[ "$(awk "length > 100" "$tmp/out" | wc -l)" -eq 0 ]'

# ---- JSON ----
expect_exit "report --json golden" 0 "$phasor" report --json golden
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$tmp/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "phasor-report" and d["version"] == 3 and d["world_size"] == 3
assert [r["dropped"] for r in d["ranks"]] == [0, 0, 0] and d["ranks"][0]["write_error"] is None
assert [r["ended"] for r in d["ranks"]] == ["complete", "complete", "truncated"]
assert d["ranks"][2]["truncated_at"] == 452 and d["ranks"][0]["truncated_at"] is None
assert d["callsites"] == [] and d["callsites_note"] == "call sites not recorded"
assert d["matrix"]["csv"] is None and d["matrix"]["messages"] == 6
assert [e[:2] for e in d["matrix"]["entries"]] == [[0, 1], [0, 2], [1, 2], [2, 0]]
f = {x["function"]: x for x in d["functions"]}
assert "MPI_Init_thread" not in f and f["MPI_Start"]["calls"] == 2
times = [x["time_ns"] for x in d["functions"]]
assert times == sorted(times, reverse=True)
assert set(d["imbalance"]) == {"mpi", "app"}
for k in ("histograms", "collectives", "warnings", "totals"):
    assert k in d
EOF
    then ok "golden JSON parses and follows doc/report-format.md"; else bad "golden JSON parses and follows doc/report-format.md"; fi
else
    skip "golden JSON parses and follows doc/report-format.md" "no python3"
fi

# ---- -o: matrix.csv and matrix.svg ----
expect_exit "report -o golden" 0 "$phasor" report -o "$tmp/o" golden
cat >"$tmp/want.csv" <<'EOF'
src,dst,messages,bytes_min,bytes_max,bytes_sum
0,1,1,8,8,8
0,2,1,4,4,4
1,2,3,4,4,12
2,0,1,16,16,16
EOF
check "matrix.csv is the known matrix" 'cmp -s "$tmp/o/matrix.csv" "$tmp/want.csv"'
check "matrix.svg is an SVG document" 'head -2 "$tmp/o/matrix.svg" | grep -q "<svg" && tail -1 "$tmp/o/matrix.svg" | grep -q "</svg>"'
check "matrix.svg has one cell per pair" '[ "$(grep -c "<title>" "$tmp/o/matrix.svg")" -eq 4 ]'
if command -v xmllint >/dev/null 2>&1; then
    check "matrix.svg is well-formed XML" 'xmllint --noout "$tmp/o/matrix.svg"'
else
    skip "matrix.svg is well-formed XML" "no xmllint (apt-get install libxml2-utils)"
fi
check "text names the files written" 'grep -q "written: $tmp/o/matrix.csv" "$tmp/out"'
expect_exit "report -o into a file path" 1 "$phasor" report -o golden/rank-000000.plog golden

# ---- bad input: exit 1, naming the file ----
expect_exit "report a path that does not exist" 1 "$phasor" report no-such-log
check "absent path named" 'grep -q "no-such-log" "$tmp/err"'
for f in corrupt/*.plog; do
    expect_exit "report $f" 1 "$phasor" report "$f"
    check "$f: one line naming the file" '[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$f" "$tmp/err"'
done
expect_exit "report missing-rank" 1 "$phasor" report missing-rank
check "missing rank named" 'grep -q "missing-rank/rank-000002.plog" "$tmp/err"'

# ---- events the logs do not hold: the markers a rank leaves when its writes fail ----
# (doc/log-format.md: .R.E writing failed; .R.E.N at least N dropped; .R.E.N.T final)
mkdir -p "$tmp/drops" && cp golden/*.plog "$tmp/drops/"
: >"$tmp/drops/.phasor-write-failed.9999.3"
: >"$tmp/drops/.phasor-dropped.1.28.1234.5"
: >"$tmp/drops/.phasor-dropped.1.28.1000"   # an older, lower count of the same rank
: >"$tmp/drops/.phasor-dropped.2.5"
: >"$tmp/drops/.phasor-dropped.0.122.77"
: >"$tmp/drops/.phasor-dropped.9.28.7.0"    # a rank outside the world: ignored
: >"$tmp/drops/.phasor-dropped.x.28"        # not a marker
expect_exit "report with drop markers" 0 "$phasor" report "$tmp/drops"
check "rank 1: 1234 dropped, no space left" 'grep -q "rank-000001.plog: 1234 events dropped: writing the log failed (No space left on device)" "$tmp/out"'
check "rank 1: 5 thread-budget calls" 'grep -q "rank-000001.plog: 5 calls of threads over the thread budget" "$tmp/out"'
check "rank 2: dropped, count unknown, I/O error" 'grep -q "rank-000002.plog: events dropped: writing the log failed (Input/output error); how many is unknown" "$tmp/out"'
check "rank 0: at least 77, quota" 'grep -q "rank-000000.plog: at least 77 events dropped: writing the log failed (Disk quota exceeded)" "$tmp/out"'
check "endings: rank 1's line" 'grep -q "^rank 1: 1239 events dropped, 1234 because writing the log failed (No space left on device), 5 calls of threads over the thread budget" "$tmp/out"'
check "endings: the total" 'grep -q "^at least 1316 events dropped by 3 ranks" "$tmp/out"'
check "rank 0's job count checked" 'grep -q "rank 0 counted 9999 events dropped and 3 ranks failing to write at MPI_Finalize; the ranks. own counts say 1316 and 3" "$tmp/out"'
expect_exit "report --json with drop markers" 0 "$phasor" report --json "$tmp/drops"
check "report JSON: per-rank keys" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
r = d[\"ranks\"]
assert d[\"version\"] == 3
assert [x[\"dropped\"] for x in r] == [77, 1239, 0], r
assert [x[\"dropped_exact\"] for x in r] == [False, True, False]
assert [x[\"dropped_write\"] for x in r] == [77, 1234, 0]
assert [x[\"write_errno\"] for x in r] == [122, 28, 5]
assert r[1][\"write_error\"] == \"No space left on device\" and r[1][\"dropped_threads\"] == 5
assert r[0][\"dropped_threads\"] is None
assert any(\"1234 events dropped: writing the log failed\" in w for w in d[\"warnings\"])
" "$tmp/out"'
expect_exit "dump --json with drop markers" 0 "$phasor" dump --json "$tmp/drops"
check "dump JSON: rank 1 dropped 1239, write_error" 'grep -q "\"rank\": 1,.*\"dropped\": 1239, \"dropped_exact\": true, \"dropped_write\": 1234, \"write_error\": \"No space left on device\", \"dropped_threads\": 5" "$tmp/out"'
check "dump JSON: rank 2 count unknown" 'grep -q "\"rank\": 2,.*\"dropped\": 0, \"dropped_exact\": false, \"dropped_write\": 0, \"write_error\": \"Input/output error\"" "$tmp/out"'
expect_exit "dump with drop markers" 0 "$phasor" dump "$tmp/drops"
check "dump text: rank 1's tail line" 'grep -q "^# rank 1: .*1239 dropped (writing failed: No space left on device)" "$tmp/out"'
check "dump text: rank 2's tail line" 'grep -q "^# rank 2: .*some dropped (writing failed: Input/output error)" "$tmp/out"'
# one rank file: the markers beside it count too
expect_exit "report one rank file with drop markers" 0 "$phasor" report "$tmp/drops/rank-000001.plog"
check "one rank file: its drops said" 'grep -q "1234 events dropped: writing the log failed" "$tmp/out"'
cli_done
