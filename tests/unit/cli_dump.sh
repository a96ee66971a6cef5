#!/bin/sh
# cli_dump.sh: `phasor dump` against the committed logs of tests/data: the golden run gives
# exactly the expected CSV/JSON, and every damaged input exits 1 with one line naming the file.
# Usage: cli_dump.sh [PHASOR [DATA_DIR]]  (defaults: $PHASOR or ./phasor, $PHASOR_TESTDATA or
# $srcdir/tests/data). Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
data=${2:-${PHASOR_TESTDATA:-${srcdir:-.}/tests/data}}
case $phasor in /*) ;; *) phasor=$(pwd)/$phasor ;; esac
if [ ! -x "$phasor" ] || [ ! -d "$data/golden" ]; then
    echo "cli_dump.sh: need an executable phasor ($phasor) and tests/data ($data)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"
cd "$data" || exit 1 # relative paths keep file names in the output stable


# ---- usage ----
expect_exit "phasor --help" 0 "$phasor" --help
expect_exit "phasor --version" 0 "$phasor" --version
expect_exit "phasor (no subcommand)" 2 "$phasor"
expect_exit "phasor unknown subcommand" 2 "$phasor" frobnicate
expect_exit "dump --help" 0 "$phasor" dump --help
grep -q -- "--json" "$tmp/out" && ok "dump --help lists --json" || bad "dump --help lists --json"
grep -q -- "--probe" "$tmp/out" && ok "dump --help lists --probe" || bad "dump --help lists --probe"
expect_exit "dump without a log" 2 "$phasor" dump
expect_exit "dump --csv --json" 2 "$phasor" dump --csv --json golden
expect_exit "dump --rank x" 2 "$phasor" dump --rank x golden
expect_exit "dump --rank beyond the world" 2 "$phasor" dump --rank 9 golden
expect_exit "dump unknown option" 2 "$phasor" dump --frob golden
expect_exit "dump --probe of a log without the probe" 1 "$phasor" dump --probe golden
grep -qF "golden: no rank ran the network probe" "$tmp/err" \
    && ok "dump --probe without the probe names the log" \
    || bad "dump --probe without the probe names the log"

# ---- the golden run ----
expect_exit "dump --csv golden" 0 "$phasor" dump --csv golden
if cmp -s "$tmp/out" golden.csv; then ok "golden CSV matches golden.csv"; else
    bad "golden CSV matches golden.csv"; diff golden.csv "$tmp/out" | head -20; fi
expect_exit "dump --json golden" 0 "$phasor" dump --json golden
if cmp -s "$tmp/out" golden.json; then ok "golden JSON matches golden.json"; else
    bad "golden JSON matches golden.json"; diff golden.json "$tmp/out" | head -20; fi
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$tmp/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "phasor-dump" and d["version"] == 1 and d["world_size"] == 3
assert [r["ended"] for r in d["ranks"]] == ["complete", "complete", "truncated"]
assert all(e["rank"] in (0, 1, 2) for e in d["events"])
keys = ["rank", "thread", "call", "class", "start_ns", "end_ns", "comm", "peer", "tag", "bytes",
        "rbytes", "root", "request", "rc", "flags", "callsite"]
assert all(list(e)[:len(keys)] == keys for e in d["events"])
EOF
    then ok "golden JSON parses and follows the schema"; else bad "golden JSON parses and follows the schema"; fi
else
    skip "golden JSON parses and follows the schema" "no python3"
fi
expect_exit "dump golden (text)" 0 "$phasor" dump golden
grep -q "ended early at offset" "$tmp/out" && ok "text names the truncated rank" || bad "text names the truncated rank"
expect_exit "dump --rank 1 --csv golden" 0 "$phasor" dump --rank 1 --csv golden
{ head -1 golden.csv; grep '^1,' golden.csv; } >"$tmp/want1"
if cmp -s "$tmp/out" "$tmp/want1"; then ok "--rank 1 is rank 1's rows"; else bad "--rank 1 is rank 1's rows"; fi
expect_exit "dump one rank file" 0 "$phasor" dump --csv golden/rank-000001.plog
[ "$(grep -c '^1,' "$tmp/out")" -eq "$(grep -c '^1,' golden.csv)" ] && ok "one file: its events" || bad "one file: its events"
expect_exit "dump truncated rank file" 0 "$phasor" dump --csv golden/rank-000002.plog
grep -q "ended early" "$tmp/err" && ok "truncation reported on stderr" || bad "truncation reported on stderr"

# ---- bad input: exit 1, one line naming the file ----
for f in corrupt/*.plog; do
    expect_exit "dump $f" 1 "$phasor" dump "$f"
    if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$f" "$tmp/err"; then
        ok "$f: one line naming the file"
    else
        bad "$f: one line naming the file"; cat "$tmp/err"
    fi
    grep -q "offset" "$tmp/err" && ok "$f: names the offset" || bad "$f: names the offset"
done
expect_exit "dump missing-rank" 1 "$phasor" dump missing-rank
grep -q "missing-rank/rank-000002.plog" "$tmp/err" && ok "missing rank named" || bad "missing rank named"
expect_exit "dump a path that does not exist" 1 "$phasor" dump no-such-log
grep -q "no-such-log" "$tmp/err" && ok "absent path named" || bad "absent path named"
expect_exit "dump --json on a damaged file" 1 "$phasor" dump --json corrupt/zstd-damage.plog

cli_done
