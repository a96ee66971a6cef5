#!/bin/sh
# cli_guard.sh: a resource guard. Every command, on every damaged and crafted input of
# tests/data (corrupt/, crafted/, missing-rank/) and on the golden run, must finish within 5 s
# and 200 MB of address space (timeout, ulimit -v), never die of a signal, and on an input
# that cannot be true exit 1 with a message on stderr. A model file over the size limit is
# refused before it is read.
# Usage: cli_guard.sh PHASOR DATA_DIR
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=$1 data=$2
if [ ! -x "$phasor" ] || [ ! -d "$data/crafted" ] || ! command -v timeout >/dev/null 2>&1; then
    echo "cli_guard.sh: need an executable phasor, tests/data and timeout" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"
# the libtool wrapper script would count against the limits: run the program it runs
real=$(dirname "$phasor")/.libs/$(basename "$phasor")
if [ -x "$real" ] && head -c 2 "$phasor" | grep -q '#!'; then
    LD_LIBRARY_PATH=$(dirname "$phasor")/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
    phasor=$real
fi

# guarded WANT NAME ARGS...: WANT "fail" (exit 1 with a message) or "any" (0, or 1 with a
# message); never a timeout, a signal or the memory limit (an out-of-memory refusal counts)
guarded() {
    want=$1 name=$2
    shift 2
    ( ulimit -v 200000; exec timeout -k 1 5 "$phasor" "$@" ) >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ $st -ge 124 ]; then
        bad "$name: exit $st (timeout, signal or memory): $(head -c 200 "$tmp/err")"
    elif [ $st -ne 0 ] && [ ! -s "$tmp/err" ]; then
        bad "$name: exit $st with nothing said"
    elif grep -qi "out of memory\|cannot allocate" "$tmp/err"; then
        bad "$name: ran out of the 200 MB: $(head -c 200 "$tmp/err")"
    elif [ "$want" = fail ] && [ $st -ne 1 ]; then
        bad "$name: exit $st, not 1"
    elif [ $st -ne 0 ] && [ $st -ne 1 ]; then
        bad "$name: exit $st"
    else
        ok "$name (exit $st)"
    fi
}

cmds="dump|dump --csv|dump --json|dump --probe|report|report --json|steps|steps --json|predict|predict --json|predict --method replay|phases|phases --json|export -f csv -o -|export -f chrome -o -"
run_all() { # WANT INPUT
    oldifs=$IFS
    IFS='|'
    for c in $cmds; do
        IFS=$oldifs
        # shellcheck disable=SC2086
        guarded "$1" "$c $2" $c "$2"
        IFS='|'
    done
    IFS=$oldifs
}

for f in "$data"/corrupt/*.plog "$data"/crafted/world-20000000.plog \
         "$data"/crafted/world-2147483647.plog "$data"/crafted/world-dir "$data"/missing-rank; do
    run_all fail "$f"
done
for f in "$data"/crafted/world-10000.plog "$data"/crafted/world-100000.plog "$data"/golden; do
    run_all any "$f"
done
# the messages name the field
guarded fail "world size claimed alone" report "$data/crafted/world-2147483647.plog"
check "... names the file and the field" 'grep -q "world-2147483647.plog: offset 20: .*world size 2147483647" "$tmp/err"'
guarded fail "world size beyond the directory" report "$data/crafted/world-dir"
check "... names the first file missing" 'grep -q "world-dir/rank-000003.plog: missing file (rank 3 of a world of size 100000" "$tmp/err"'

# a model file over the limit (sparse: no disk used) is refused before it is parsed
truncate -s 200M "$tmp/big.json"
guarded fail "predict --model of 200 MiB" predict --model "$tmp/big.json" "$data/golden"
check "... says the limit" 'grep -q "at most 128 MiB" "$tmp/err"'
mkfifo "$tmp/fifo.json"
guarded fail "predict --model naming a FIFO" predict --model "$tmp/fifo.json" "$data/golden"

cli_done
