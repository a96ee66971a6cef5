#!/bin/bash
# cli_json.sh: every JSON document phasor writes stays valid when the strings in it are
# hostile: a log (json_mklog) whose host names, MPI library string and ending hold control
# characters, quotes, backslashes, UTF-8 and bytes that are not UTF-8, in a directory whose
# name holds the same. Each document must decode as strict UTF-8 and parse with Python's
# strict json, and the strings must come back as written (well-formed UTF-8 kept, control
# characters escaped, each byte of a malformed sequence U+FFFD).
# Usage: cli_json.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $JSON_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${JSON_MKLOG:-./tests/unit/json_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_json.sh: need an executable phasor ($phasor), json_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

# a tab, a newline, a quote, a backslash, ESC, "é" and a lone 0xff in the directory's name
dir="$tmp/"$'lo\tg\n"q" \\ \x1b \xc3\xa9 \xff'
mkdir "$dir" || { bad "mkdir of a hostile name"; cli_done; exit 1; }
"$mklog" "$dir" || bad "json_mklog"

# valid NAME FILE PY: FILE is strict UTF-8 and strict JSON, and the Python expression PY
# (over d, the document, and the helpers below) holds.
valid() {
    if python3 - "$2" "$3" "$dir" >"$tmp/py.out" 2>&1 <<'PY'
import json, sys
raw = open(sys.argv[1], 'rb').read()
d = json.loads(raw.decode('utf-8'))  # strict: no lone surrogates, no raw control characters
logdir = sys.argv[3].encode('utf-8', 'surrogateescape')
def expect(b):
    """what a byte string must read as: UTF-8 kept, every other byte U+FFFD"""
    return b.decode('utf-8', 'replace')
host = [expect(b'node\t0\n\x1b[1m"q"\\\x7f'), expect(b'n\xc3\xa9ud-1\xff\xc0\xaf\xed\xa0\x80')]
lib = expect(b'Open MPI v4.1.4 \x01\x02\xfe')
path = expect(logdir)
ok = eval(sys.argv[2])
if not ok:
    print("check failed:", sys.argv[2])
    sys.exit(1)
PY
    then ok "$1"; else bad "$1"; sed 's/^/     /' "$tmp/py.out" | head -5; fi
}

# Python's 'replace' makes one U+FFFD of a malformed sequence; phasor one per byte: check
# the expectation itself against the bytes, so the checks below mean what they say.
check "rank 1's host name reads as 6 replacement characters after 'néud-1'" \
    "python3 -c \"import sys; s=b'n\\xc3\\xa9ud-1\\xff\\xc0\\xaf\\xed\\xa0\\x80'.decode('utf-8','replace'); sys.exit(s != 'n\\u00e9ud-1' + '\\ufffd'*6)\""

expect_exit "dump --json" 0 "$phasor" dump "$dir" --json
cp "$tmp/out" "$tmp/dump.json"
valid "dump --json: host names and library as written" "$tmp/dump.json" \
    "[r['hostname'] for r in d['ranks']] == host and all(r['mpi_library'] == lib for r in d['ranks']) and d['ranks'][0]['ending'] == expect(b'finalize\x03\xff')"

expect_exit "dump --probe --json" 0 "$phasor" dump "$dir" --probe --json
cp "$tmp/out" "$tmp/probe.json"
valid "dump --probe --json parses" "$tmp/probe.json" "isinstance(d, dict)"

expect_exit "report --json" 0 "$phasor" report "$dir" --json
cp "$tmp/out" "$tmp/report.json"
valid "report --json: path and host names as written" "$tmp/report.json" \
    "d['path'] == path and [r['host'] for r in d['ranks']] == host"

expect_exit "phases --json" 0 "$phasor" phases "$dir" --json
cp "$tmp/out" "$tmp/phases.json"
valid "phases --json: the log's path as written" "$tmp/phases.json" "d['log'] == path"

expect_exit "predict --json" 0 "$phasor" predict "$dir" --json
cp "$tmp/out" "$tmp/predict.json"
valid "predict --json parses" "$tmp/predict.json" "d['format'] == 'phasor-predict'"

expect_exit "predict --save-model into the hostile directory" 0 \
    "$phasor" predict "$dir" --save-model "$dir/model.json"
valid "the model file: host names as written" "$dir/model.json" \
    "isinstance(d, dict)"
expect_exit "predict --model FILE --json" 0 "$phasor" predict "$dir" --model "$dir/model.json" --json
cp "$tmp/out" "$tmp/predict-model.json"
valid "predict --model: the model names its file as written" "$tmp/predict-model.json" \
    "d['model'].startswith(path + '/model.json')"

expect_exit "export --format chrome" 0 "$phasor" export --format chrome "$dir"
cp "$tmp/out" "$tmp/chrome.json"
valid "export chrome parses" "$tmp/chrome.json" "len(d['traceEvents']) > 0"

cli_done
