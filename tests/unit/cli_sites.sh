#!/bin/bash
# cli_sites.sh: `phasor report` resolves call sites without opening what a hostile log
# names. A log (sites_mklog) whose modules are a FIFO, a relative path, a directory,
# /dev/zero, a sparse 5 GiB file, a missing file, an empty file, a text file, a /proc magic
# link, this very generator (resolves) and the generator with another build id: report
# must finish at once (under timeout) and say once per module why it was not resolved.
# Then --symbol-path (a sysroot copy, a flat directory of copies, symlinks that point out
# of the directory and must stay inside it), debug files (a .gnu_debuglink naming a
# regular file, one naming a FIFO, one found by build id under the symbol path) and
# --no-symbols.
# Usage: cli_sites.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $SITES_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${SITES_MKLOG:-./tests/unit/sites_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_sites.sh: need an executable phasor ($phasor), sites_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"
tmp=$(cd "$tmp" && pwd -P)
T=10 # seconds: a report that takes longer is hung (a FIFO opened for reading)

mkfifo "$tmp/fifo"
mkdir "$tmp/dir" "$tmp/log"
: >"$tmp/empty"
echo "not an ELF file" >"$tmp/text"
truncate -s 5G "$tmp/big"
"$mklog" "$tmp/log" "$tmp/fifo" rel/libx.so "$tmp/dir" /dev/zero "$tmp/big" "$tmp/missing" \
    "$tmp/empty" "$tmp/text" /proc/self/fd/0 SELF SELF-CHANGED || bad "sites_mklog"

# modules NAME FILE PY: the report's JSON in FILE; the Python expression PY holds over
# d (the document), mods (modules_unresolved), m (the same by path), frames (each listed
# site's innermost frame) and t (the scratch directory).
modules() {
    if python3 - "$2" "$3" "$tmp" >"$tmp/py.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = sys.argv[3]
mods = d["modules_unresolved"]
m = {x["module"]: x for x in mods}
frames = [s["stack"][0] for s in d["callsites"]]
def why(path, status, text):
    return m[path]["status"] == status and text in m[path]["why"]
ok = eval(sys.argv[2])
if not ok:
    print("check failed:", sys.argv[2])
    print(json.dumps(mods, indent=1)[:1500])
    print(json.dumps(frames)[:600])
    sys.exit(1)
PY
    then ok "$1"; else bad "$1"; sed 's/^/     /' "$tmp/py.out" | head -20; fi
}

start=$(date +%s%N)
expect_exit "report --json on hostile module paths finishes (timeout $T s)" 0 \
    timeout -k 1 $T "$phasor" report "$tmp/log" --json
ms=$((($(date +%s%N) - start) / 1000000))
check "report took $ms ms" "[ $ms -lt 5000 ]"
cp "$tmp/out" "$tmp/r.json"
modules "10 modules not resolved, once each; 11 sites in order" "$tmp/r.json" \
    "len(mods) == 10 and len(m) == 10 and len(frames) == 11"
modules "FIFO: refused, not a regular file" "$tmp/r.json" "why(t + '/fifo', 'refused', 'not a regular file')"
modules "relative path: refused" "$tmp/r.json" "why('rel/libx.so', 'refused', 'not an absolute path')"
modules "directory: not a regular file" "$tmp/r.json" "why(t + '/dir', 'refused', 'not a regular file')"
modules "/dev/zero: not a regular file" "$tmp/r.json" "why('/dev/zero', 'refused', 'not a regular file')"
modules "5 GiB file: too large" "$tmp/r.json" "why(t + '/big', 'refused', 'larger than 4 GiB')"
modules "missing file: missing" "$tmp/r.json" "why(t + '/missing', 'missing', 'No such file')"
modules "empty file: refused" "$tmp/r.json" "why(t + '/empty', 'refused', 'an empty file')"
modules "text file: not ELF" "$tmp/r.json" "why(t + '/text', 'missing', 'not an ELF file')"
modules "/proc magic link: not followed" "$tmp/r.json" \
    "why('/proc/self/fd/0', 'refused', 'magic link')"
modules "the generator itself resolves to main" "$tmp/r.json" \
    "frames[9]['status'] in ('line', 'function') and frames[9]['function'] == 'main'"
modules "another build id: changed, no lines" "$tmp/r.json" \
    "mods[9]['status'] == 'changed' and frames[10]['status'] == 'changed' and frames[10]['file'] is None"
modules "frames of unusable modules are 'refused' or 'missing'" "$tmp/r.json" \
    "all(f['status'] in ('refused', 'missing') for f in frames[:9])"
selfpath=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['callsites'][9]['stack'][0]['module'])" "$tmp/r.json")

expect_exit "text report on hostile module paths finishes" 0 \
    timeout -k 1 $T "$phasor" report "$tmp/log"
sed -n '/^modules not resolved/,/^$/p' "$tmp/out" | grep '^  ' >"$tmp/mods.txt"
check "text: 10 modules not resolved, each once" \
    "[ \$(wc -l <\"$tmp/mods.txt\") -eq 10 ] && [ \$(grep -c \"^  $tmp/fifo: refused: .*not a regular file\" \"$tmp/mods.txt\") -eq 1 ]"
check "text: the generator's site is 'at main (...)'" "grep -q 'at main (' \"$tmp/out\""

# --symbol-path: a sysroot (DIR/<recorded path>), a flat directory (DIR/<base name>)
mkdir -p "$tmp/root$(dirname "$selfpath")" "$tmp/flat" "$tmp/esc/lib" "$tmp/log2" "$tmp/log3"
cp "$selfpath" "$tmp/root$selfpath"
cp "$selfpath" "$tmp/flat/"
"$mklog" "$tmp/log2" SELF || bad "sites_mklog SELF"
expect_exit "--symbol-path sysroot, after a directory without the module" 0 \
    timeout -k 1 $T "$phasor" report "$tmp/log2" --json --symbol-path "$tmp/esc" \
    --symbol-path "$tmp/root"
modules "sysroot: resolved" "$tmp/out" "not mods and frames[0]['function'] == 'main'"
expect_exit "--symbol-path flat directory" 0 timeout -k 1 $T "$phasor" report "$tmp/log2" \
    --json --symbol-path "$tmp/flat"
modules "flat: resolved by base name" "$tmp/out" "not mods and frames[0]['function'] == 'main'"
expect_exit "--symbol-path where the module is not" 0 timeout -k 1 $T "$phasor" report \
    "$tmp/log2" --json --symbol-path "$tmp/dir"
modules "not under the symbol path: missing (the recorded path is not tried)" "$tmp/out" \
    "mods[0]['status'] == 'missing' and frames[0]['status'] == 'missing'"
# symlinks in the symbol path to a real ELF outside it: resolved inside it, so missing
ln -s "$tmp/flat/$(basename "$selfpath")" "$tmp/esc/lib/libout.so"
ln -s "../../../../../../../../../..$tmp/flat/$(basename "$selfpath")" "$tmp/esc/lib/librel.so"
"$mklog" "$tmp/log3" /lib/libout.so /lib/librel.so || bad "sites_mklog escape"
expect_exit "--symbol-path with symlinks pointing out" 0 timeout -k 1 $T "$phasor" report \
    "$tmp/log3" --json --symbol-path "$tmp/esc"
modules "symlinks out of the symbol path stay inside it" "$tmp/out" \
    "[x['status'] for x in mods] == ['missing', 'missing'] and all(f['status'] == 'missing' for f in frames)"

# debug files are found by the rule too: a stripped copy whose .gnu_debuglink names a
# regular file (lines), one whose debuglink names a FIFO (finishes, no lines), and the
# debug file by build id under the symbol path's usr/lib/debug/.build-id/
if command -v objcopy >/dev/null && command -v strip >/dev/null &&
    objcopy --only-keep-debug "$selfpath" "$tmp/app.debug" 2>/dev/null; then
    mkdir -p "$tmp/split" "$tmp/fifodbg" "$tmp/log4" "$tmp/log5" "$tmp/log6"
    strip -s -o "$tmp/split/app" "$selfpath" &&
        objcopy --add-gnu-debuglink="$tmp/app.debug" "$tmp/split/app" &&
        cp "$tmp/app.debug" "$tmp/split/" && cp "$tmp/split/app" "$tmp/fifodbg/app" &&
        mkfifo "$tmp/fifodbg/app.debug" || bad "split debug files"
    "$mklog" "$tmp/log4" "SELF=$tmp/split/app" && "$mklog" "$tmp/log5" "SELF=$tmp/fifodbg/app" ||
        bad "sites_mklog split"
    expect_exit "debuglink to a regular file" 0 timeout -k 1 $T "$phasor" report "$tmp/log4" --json
    modules "debuglink: the stripped copy resolves to a line" "$tmp/out" \
        "not mods and frames[0]['status'] == 'line' and frames[0]['function'] == 'main'"
    expect_exit "debuglink to a FIFO finishes (timeout $T s)" 0 \
        timeout -k 1 $T "$phasor" report "$tmp/log5" --json
    modules "debuglink to a FIFO: no lines" "$tmp/out" "frames[0]['status'] != 'line'"
    bid=$(python3 -c "
import sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'\\x03\\x00\\x00\\x00GNU\\x00')
print(d[i + 8:i + 28].hex() if i >= 0 else '')" "$tmp/app.debug")
    mkdir -p "$tmp/sysd/usr/lib/debug/.build-id/${bid:0:2}" "$tmp/sysd$(dirname "$selfpath")"
    cp "$tmp/split/app" "$tmp/sysd$selfpath"
    cp "$tmp/app.debug" "$tmp/sysd/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
    expect_exit "debug file by build id under the symbol path" 0 \
        timeout -k 1 $T "$phasor" report "$tmp/log2" --json --symbol-path "$tmp/sysd"
    modules "build id: the stripped sysroot copy resolves to a line" "$tmp/out" \
        "not mods and frames[0]['status'] == 'line'"
else
    skip "split debug files" "no objcopy/strip"
fi

# this machine's debug files by build id (Debian's libc6-dbg, when installed): a static
# function of libc that only its debug file's symbol table names
libc=/lib/x86_64-linux-gnu/libc.so.6
lbid=$(python3 -c "
import sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'\\x03\\x00\\x00\\x00GNU\\x00')
print(d[i + 8:i + 28].hex() if i >= 0 else '')" "$libc" 2>/dev/null)
ldbg=/usr/lib/debug/.build-id/${lbid:0:2}/${lbid:2}.debug
if [ -n "$lbid" ] && [ -f "$ldbg" ] && command -v nm >/dev/null &&
    addr=$(nm "$ldbg" 2>/dev/null | awk '$3 == "__libc_start_call_main" { print $1; exit }') &&
    [ -n "$addr" ]; then
    mkdir "$tmp/log7"
    "$mklog" "$tmp/log7" "$libc@0x$(printf '%x' $((0x$addr + 1)))" || bad "sites_mklog libc"
    expect_exit "libc with its -dbg package" 0 timeout -k 1 $T "$phasor" report "$tmp/log7" --json
    modules "libc's debug file found by build id in /usr/lib/debug" "$tmp/out" \
        "frames[0]['function'] == '__libc_start_call_main'"
else
    skip "libc's debug file by build id" "libc6-dbg not installed"
fi

expect_exit "--no-symbols" 0 timeout -k 1 $T "$phasor" report "$tmp/log" --json --no-symbols
modules "--no-symbols: every frame 'off'" "$tmp/out" \
    "all(f['status'] == 'off' for f in frames) and all(x['status'] == 'off' for x in mods)"
cli_done
