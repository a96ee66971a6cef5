#!/bin/sh
# cli_steps.sh: `phasor steps` against the committed golden log (its collectives rebuilt with
# each library's rules, --library): --json is one document that parses, has the format's name
# and version, and holds exactly the rows of --csv, column for column (an empty CSV field is
# null); the usage errors exit 2.
# Usage: cli_steps.sh [PHASOR [DATA_DIR]]  (defaults: $PHASOR or ./phasor, $PHASOR_TESTDATA or
# $srcdir/tests/data). Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
data=${2:-${PHASOR_TESTDATA:-${srcdir:-.}/tests/data}}
case $phasor in /*) ;; *) phasor=$(pwd)/$phasor ;; esac
if [ ! -x "$phasor" ] || [ ! -d "$data/golden" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_steps.sh: need an executable phasor ($phasor), tests/data ($data) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"
cd "$data" || exit 1

# ---- usage ----
expect_exit "steps --help" 0 "$phasor" steps --help
grep -q -- "--json" "$tmp/out" && ok "steps --help lists --json" || bad "steps --help lists --json"
expect_exit "steps --csv --json" 2 "$phasor" steps --csv --json golden
expect_exit "steps --json --csv" 2 "$phasor" steps --json --csv golden
expect_exit "steps --rank without a value" 2 "$phasor" steps golden --rank
grep -q -- "--rank needs a value" "$tmp/err" && ok "steps says which option needs a value" \
    || bad "steps says which option needs a value"
expect_exit "steps unknown option" 2 "$phasor" steps --frob golden
expect_exit "steps --rank beyond the world" 2 "$phasor" steps --json --rank 9 golden

# ---- --json holds the rows of --csv ----
# same.py CSV JSON: the JSON's rows are the CSV's, in order, with the CSV header's columns;
# prints the number of rows.
cat >"$tmp/same.py" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
d = json.load(open(sys.argv[2]))
assert d["format"] == "phasor-steps" and d["version"] == 1, (d["format"], d["version"])
assert list(d) == ["format", "version", "rows"], list(d)
js = d["rows"]
assert len(js) == len(body), (len(js), len(body))
ints = {"rank", "instance", "comm", "step", "peer", "bytes_sent", "bytes_recv", "start_ns",
        "end_ns", "tag"}
for c, j in zip(body, js):
    assert list(j) == head, (list(j), head)
    for k, v in zip(head, c):
        if v == "" and k in ints:
            assert j[k] is None, (k, j)
        elif k in ints:
            assert type(j[k]) is int and j[k] == int(v), (k, v, j)
        else:
            assert j[k] == v, (k, v, j)
print(len(body))
PY
for lib in ompi41 mpich40; do
    for r in "" "--rank 1"; do
        "$phasor" steps --csv --library $lib $r golden >"$tmp/s.csv" 2>"$tmp/csv.err"
        a=$?
        "$phasor" steps --json --library $lib $r golden >"$tmp/s.json" 2>"$tmp/json.err"
        b=$?
        n=$(python3 "$tmp/same.py" "$tmp/s.csv" "$tmp/s.json" 2>"$tmp/py.err")
        check "--json $lib $r: exit 0, parses, the same $n rows as --csv" \
            "[ $a -eq 0 ] && [ $b -eq 0 ] && [ \"${n:-0}\" -gt 0 ] || { cat '$tmp/py.err'; false; }"
        check "--json $lib $r: the summary of --csv" "cmp -s '$tmp/csv.err' '$tmp/json.err'"
    done
done
# a log without schedules: a document with no rows
"$phasor" steps --json golden >"$tmp/none.json" 2>/dev/null
check "--json without steps: an empty rows array" \
    "python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"rows\"] == []' '$tmp/none.json'"
expect_exit "--json of a damaged log: exit 1" 1 "$phasor" steps --json corrupt/zstd-damage.plog

cli_done
