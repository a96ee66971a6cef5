#!/bin/sh
# cli_probe.sh: `phasor dump --probe` on the synthetic probe of probe_mklog (2 ranks, sizes
# 4096 and 65536, every entry's quantiles a function of its key): the text, CSV and JSON
# forms print every entry exactly, in the reader's order (pairs by source, destination, way
# and size, then the pooled ones), --rank keeps one source, and a damaged log exits 1
# naming the file. The real probe's output is checked by
# run_probe_tests.sh (MPI).
# Usage: cli_probe.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $PROBE_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${PROBE_MKLOG:-./tests/unit/probe_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_probe.sh: need an executable phasor ($phasor), probe_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/log"
"$mklog" "$tmp/log" || bad "probe_mklog"

# what dump must print, from probe_mklog's rule; F: text or csv, R: a source or -1 for all
expected() {
    python3 - "$1" "$2" <<'PY'
import sys
form, only = sys.argv[1], int(sys.argv[2])
rows = []
for pooled in (False, True):
    for src in (0, 1):
        dst = -1 if pooled else 1 - src
        for way in (0, 1):
            for z, size in enumerate((4096, 65536)):
                if only >= 0 and src != only:
                    continue
                b = 1000 * (src + 1) + 100 * (dst + 1) + 10 * way + z
                q = [b, b + 0.5, b + 1, b + 2, b + 3, b + 4, b + 5, b + 2.25]
                d = ("*" if form == "text" and dst < 0 else str(dst))
                f = [str(src), d, ("exchange", "one-way")[way], str(size), "3"] + ["%.1f" % v for v in q]
                rows.append((" " if form == "text" else ",").join(f))
print("\n".join(rows))
PY
}

expect_exit "dump --probe, text" 0 "$phasor" dump --probe "$tmp/log"
head -1 "$tmp/out" | grep -q "quick probe, 2 of 2 ranks, 2 sizes, 3 repetitions, 1 rounds, 0.100 s" \
    && ok "text: the probe's header line" || bad "text: the probe's header line"
sed -n 2p "$tmp/out" | grep -q "^# src dst way bytes n min_ns q10_ns q25_ns q50_ns q75_ns q90_ns max_ns mean_ns" \
    && ok "text: the columns line" || bad "text: the columns line"
expected text -1 >"$tmp/want"
if tail -n +3 "$tmp/out" | cmp -s - "$tmp/want"; then ok "text: every entry, pooled as *"; else
    bad "text: every entry, pooled as *"; tail -n +3 "$tmp/out" | diff "$tmp/want" - | head -10; fi

expect_exit "dump --probe --csv" 0 "$phasor" dump --probe --csv "$tmp/log"
{ echo "src,dst,way,bytes,n,min_ns,q10_ns,q25_ns,q50_ns,q75_ns,q90_ns,max_ns,mean_ns"
  expected csv -1; } >"$tmp/want"
if cmp -s "$tmp/out" "$tmp/want"; then ok "csv: header and every entry"; else
    bad "csv: header and every entry"; diff "$tmp/want" "$tmp/out" | head -10; fi

expect_exit "dump --probe --csv --rank 1" 0 "$phasor" dump --probe --csv --rank 1 "$tmp/log"
{ echo "src,dst,way,bytes,n,min_ns,q10_ns,q25_ns,q50_ns,q75_ns,q90_ns,max_ns,mean_ns"
  expected csv 1; } >"$tmp/want"
if cmp -s "$tmp/out" "$tmp/want"; then ok "csv --rank 1: source 1's entries only"; else
    bad "csv --rank 1: source 1's entries only"; diff "$tmp/want" "$tmp/out" | head -10; fi

expect_exit "dump --probe --json" 0 "$phasor" dump --probe --json "$tmp/log"
expected csv -1 >"$tmp/want"
if python3 - "$tmp/out" "$tmp/want" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
head = {k: v for k, v in d.items() if k not in ("entries", "log_version")}
assert head == {"format": "phasor-probe", "version": 1, "mode": "quick", "world_size": 2,
                "ranks": 2, "sizes": [4096, 65536], "repetitions": 3, "rounds": 1,
                "elapsed_s": 0.1, "seed": 7}, head
assert d["log_version"] >= 1
cols = ["src", "dst", "way", "bytes", "n", "min_ns", "q10_ns", "q25_ns", "q50_ns", "q75_ns",
        "q90_ns", "max_ns", "mean_ns"]
want = [line.split(",") for line in open(sys.argv[2]).read().split()]
got = [[str(e[c]) if c in ("src", "dst", "way", "bytes", "n") else "%.1f" % e[c] for c in cols]
       for e in d["entries"]]
assert list(d["entries"][0]) == cols, list(d["entries"][0])
assert got == want, (got[:2], want[:2])
PY
then ok "json: header and every entry"; else bad "json: header and every entry"; fi

# refusals: bad usage; a damaged log (a byte in the middle of rank 1's file, its PROBE
# frame's, flipped: the frame's checksum fails). A log without a probe: cli_dump.sh.
expect_exit "dump --probe --rank 5 of 2 ranks" 2 "$phasor" dump --probe --rank 5 "$tmp/log"
python3 - "$tmp/log/rank-000001.plog" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0xff
open(p, "wb").write(bytes(b))
PY
expect_exit "dump --probe of a damaged log exits 1" 1 "$phasor" dump --probe "$tmp/log"
grep -qF "rank-000001.plog" "$tmp/err" && ok "the damaged file is named" \
    || { bad "the damaged file is named"; cat "$tmp/err"; }

cli_done
