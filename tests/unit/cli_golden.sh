#!/bin/sh
# cli_golden.sh: the committed logs of tests/data are what plog_mkgolden makes. It regenerates
# them into a scratch directory and compares them with the committed ones. Not byte for byte:
# the committed logs are format version 1 (kept so that the reader is checked against bytes
# the current writer did not make: version-1 extras and zstd's own checksums), the writer
# writes PLOG_VERSION, so payloads, frame lengths and offsets differ. Compared instead: the
# events and communicators (`phasor dump --csv` and `--json`, the truncation as bytes before
# the end of the file), every header field and string but version and CRC, the frames (kind,
# thread, record count), each damaged file's damage (which field or payload its changed
# byte sits in), the missing-rank files (copies of golden's ranks 0 and 1), and that two
# runs of the generator give the same bytes.
# Usage: cli_golden.sh [PHASOR [MKGOLDEN [DATA_DIR]]]  (defaults: $PHASOR, $PLOG_MKGOLDEN,
# $PHASOR_TESTDATA or $srcdir/tests/data). Last line: "N passed, M failed".
phasor=${1:-${PHASOR:-./phasor}}
mkgolden=${2:-${PLOG_MKGOLDEN:-./tests/unit/plog_mkgolden}}
data=${3:-${PHASOR_TESTDATA:-${srcdir:-.}/tests/data}}
case $phasor in /*) ;; *) phasor=$(pwd)/$phasor ;; esac
if [ ! -x "$phasor" ] || [ ! -x "$mkgolden" ] || [ ! -d "$data/golden" ] ||
    ! command -v python3 >/dev/null 2>&1; then
    echo "cli_golden.sh: need an executable phasor ($phasor), plog_mkgolden ($mkgolden)," \
        "tests/data ($data) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/new" "$tmp/again"
expect_exit "plog_mkgolden writes the logs" 0 "$mkgolden" "$tmp/new"
"$mkgolden" "$tmp/again" && diff -r "$tmp/new" "$tmp/again" >"$tmp/det" 2>&1
check "plog_mkgolden is deterministic (two runs, the same bytes)" '[ $? -eq 0 ]'
(cd "$data" && find golden corrupt missing-rank -type f | sort) >"$tmp/old.files"
(cd "$tmp/new" && find golden corrupt missing-rank -type f | sort) >"$tmp/new.files"
check "the same files as committed" 'cmp -s "$tmp/old.files" "$tmp/new.files"'

# dump's output of both, from inside each tree so that the paths it prints are alike
for fmt in csv json; do
    (cd "$data" && "$phasor" dump --$fmt golden >"$tmp/old.$fmt" 2>"$tmp/old.$fmt.err")
    (cd "$tmp/new" && "$phasor" dump --$fmt golden >"$tmp/new.$fmt" 2>"$tmp/new.$fmt.err")
done
if cmp -s "$tmp/old.csv" "$tmp/new.csv"; then ok "dump --csv: the same events"; else
    bad "dump --csv: the same events"; diff "$tmp/old.csv" "$tmp/new.csv" | head -10; fi

python3 - "$data" "$tmp/new" "$tmp/old.json" "$tmp/new.json" >"$tmp/py.out" 2>&1 <<'EOF'
import json, os, struct, sys
old, new = sys.argv[1], sys.argv[2]
HDR = struct.Struct("<8sIIiiqIIQqII")   # plog_file_header_t, 64 bytes
FRM = struct.Struct("<IHHIIII")         # plog_frame_header_t, 24 bytes
FIELDS = ("magic", "version", "header_len", "rank", "world_size", "pid", "clock", "flags",
          "t_init_ns", "realtime_init_ns", "header_crc", "reserved")
SIZES = (8, 4, 4, 4, 4, 8, 4, 4, 8, 8, 4, 4)
assert sum(SIZES) == HDR.size == 64 and FRM.size == 24

def header(b):
    h = dict(zip(FIELDS, HDR.unpack_from(b)))
    h["strings"] = b[HDR.size:h["header_len"]]
    return h

def frames(b):
    """(offset, kind, thread, count, payload end) of every complete frame"""
    out, off = [], header(b)["header_len"]
    while off + FRM.size <= len(b):
        magic, kind, thread, comp, raw, count, crc = FRM.unpack_from(b, off)
        end = off + FRM.size + comp
        if end > len(b):
            break
        out.append((off, kind, thread, count, end))
        off = end
    return out

def where(b, pos):
    """what the byte at pos of a log belongs to, in terms that do not depend on the version"""
    h = header(b)
    if pos < HDR.size:
        f = 0
        for name, size in zip(FIELDS, SIZES):
            if pos < f + size:
                return "header " + name
            f += size
    if pos < h["header_len"]:
        return "header strings"
    for i, (off, kind, thread, count, end) in enumerate(frames(b)):
        if pos < off + FRM.size:
            return "frame %d (kind %d) header byte %d" % (i, kind, pos - off)
        if pos < end:
            return "frame %d (kind %d) payload" % (i, kind)
    return "after the frames"

def read(root, name):
    return open(os.path.join(root, name), "rb").read()

def check(name, cond, why=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else ": " + why))

# every header field and string but version and CRC; the frames
for name in ["golden/rank-%06d.plog" % r for r in range(3)]:
    a, b = read(old, name), read(new, name)
    ha, hb = header(a), header(b)
    diff = [k for k in ha if k not in ("version", "header_crc") and ha[k] != hb[k]]
    check("%s: header fields and strings equal (version %d committed, %d written now)"
          % (name, ha["version"], hb["version"]), not diff,
          "; ".join("%s %r vs %r" % (k, ha[k], hb[k]) for k in diff))
    fa = [f[1:4] for f in frames(a)]
    fb = [f[1:4] for f in frames(b)]
    check("%s: the same frames (kind, thread, records)" % name, fa == fb, "%s vs %s" % (fa, fb))

# dump --json: the same, the truncation counted from the end of its file
def dumped(path, root):
    d = json.load(open(path))
    for r in d["ranks"]:
        if r.get("truncated_at") is not None:
            size = os.path.getsize(os.path.join(root, "golden/rank-%06d.plog" % r["rank"]))
            r["truncated_at"] = "end - %d" % (size - r["truncated_at"])
    return d
ja, jb = dumped(sys.argv[3], old), dumped(sys.argv[4], new)
check("dump --json: the same communicators, ranks and events (truncated %s bytes)"
      % [r.get("truncated_at") for r in ja["ranks"]], ja == jb,
      "first difference in %s" % next((k for k in ja if ja[k] != jb.get(k)), "keys"))

# each damaged file is rank 1's log with the same kind of damage in the same place
for f in sorted(os.listdir(os.path.join(old, "corrupt"))):
    places = []
    for root in (old, new):
        src, bad = read(root, "golden/rank-000001.plog"), read(root, "corrupt/" + f)
        pos = [i for i in range(min(len(src), len(bad))) if src[i] != bad[i]]
        places.append([where(src, i) for i in pos] + (["length"] if len(src) != len(bad) else []))
    check("corrupt/%s: damaged in %s" % (f, places[0]), places[0] == places[1] and places[0],
          "committed %s, regenerated %s" % tuple(places))

# missing-rank: golden's ranks 0 and 1, in both trees
for root, what in ((old, "committed"), (new, "regenerated")):
    same = all(read(root, "missing-rank/" + n) == read(root, "golden/" + n)
               for n in ("rank-000000.plog", "rank-000001.plog"))
    check("missing-rank (%s): golden's ranks 0 and 1, rank 2 absent" % what,
          same and not os.path.exists(os.path.join(root, "missing-rank/rank-000002.plog")))
EOF
cat "$tmp/py.out"
passed=$((passed + $(grep -c '^ok ' "$tmp/py.out")))
failed=$((failed + $(grep -c '^FAIL ' "$tmp/py.out")))
grep -q "^ok .*missing-rank (regenerated)" "$tmp/py.out" || bad "the comparison ran to its end"

# the regenerated damaged files are refused like the committed ones
for f in "$tmp"/new/corrupt/*.plog; do
    expect_exit "regenerated corrupt/$(basename "$f"): dump exits 1" 1 "$phasor" dump "$f"
done

cli_done
