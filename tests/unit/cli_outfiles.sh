#!/bin/sh
# cli_outfiles.sh: no output file of any subcommand follows a symbolic link planted at its
# name: for each file each command writes, a link to a victim file is planted there first;
# the command must succeed, leave the victim untouched and replace the link by its output (a
# regular file). Also: an output directory that is a link owned by someone else is refused,
# a failed write exits 1 naming the file and leaves no partial file, a file already there
# stays whole when the command fails.
# Usage: cli_outfiles.sh PHASOR DATA_DIR PHASES_MKLOG PROBE_MKLOG
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=$1 data=$2 phmk=$3 prmk=$4
if [ ! -x "$phasor" ] || [ ! -d "$data/golden" ] || [ ! -x "$phmk" ] || [ ! -x "$prmk" ]; then
    echo "cli_outfiles.sh: need phasor, tests/data, phases_mklog and probe_mklog" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/ph" "$tmp/pr"
"$phmk" "$tmp/ph" 8 40 1 >/dev/null || bad "phases_mklog"
"$prmk" "$tmp/pr" >/dev/null || bad "probe_mklog"
golden=$data/golden
victim=$tmp/victim
echo "not yours" >"$victim"
vwant=$(cat "$victim")

# planted DIR NAME...: a fresh DIR with a link to the victim at each NAME
planted() {
    dir=$1; shift
    rm -rf "$dir"; mkdir -p "$dir"
    for n in "$@"; do ln -s "$victim" "$dir/$n"; done
}
# unharmed WHAT DIR NAME...: the victim as it was, each NAME now a regular file
unharmed() {
    what=$1 dir=$2; shift 2
    check "$what: the victim is untouched" '[ "$(cat "$victim")" = "$vwant" ] && [ ! -L "$victim" ]'
    for n in "$@"; do
        check "$what: $n is the command's own file" '[ -f "$dir/$n" ] && [ ! -L "$dir/$n" ]'
    done
    check "$what: no temporary file left" '[ -z "$(ls -A "$dir" | grep "\.tmp[0-9]")" ]'
}

set -- matrix.csv matrix.svg coll_matrix.csv coll_matrix.svg
planted "$tmp/rep" "$@"
expect_exit "report -o with links planted" 0 "$phasor" report -o "$tmp/rep" "$golden"
unharmed "report -o" "$tmp/rep" "$@"

set -- predict.csv predict.svg
planted "$tmp/pred" "$@"
expect_exit "predict -o with links planted" 0 "$phasor" predict -o "$tmp/pred" "$tmp/pr"
unharmed "predict -o" "$tmp/pred" "$@"

planted "$tmp/model" m.json
expect_exit "predict --save-model onto a link" 0 "$phasor" predict --save-model "$tmp/model/m.json" "$tmp/pr"
unharmed "predict --save-model" "$tmp/model" m.json
check "the model file is JSON" 'grep -q "\"format\"" "$tmp/model/m.json"'

# every file phases -o --plots writes (its --json lists them)
"$phasor" phases --json -o "$tmp/phlist" --plots "$tmp/ph" >"$tmp/phlist.json" 2>/dev/null
set -- $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["files"]))' "$tmp/phlist.json")
nfiles=$#
check "phases lists the files it writes" '[ "$nfiles" -ge 10 ]'
planted "$tmp/phases" "$@"
expect_exit "phases -o --plots with links planted" 0 "$phasor" phases -o "$tmp/phases" --plots "$tmp/ph"
unharmed "phases -o --plots" "$tmp/phases" "$@"

planted "$tmp/exp" trace.json msgs.csv
expect_exit "export chrome -o -m onto links" 0 "$phasor" export -f chrome -o "$tmp/exp/trace.json" -m "$tmp/exp/msgs.csv" "$golden"
unharmed "export chrome" "$tmp/exp" trace.json msgs.csv
planted "$tmp/expc" t.csv
expect_exit "export csv -o onto a link" 0 "$phasor" export -f csv -o "$tmp/expc/t.csv" "$golden"
unharmed "export csv" "$tmp/expc" t.csv

# an output directory that is someone else's link is not followed (root: the link is made
# by another user with chown -h; without root, skipped)
mkdir -p "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/theirs"
if chown -h nobody "$tmp/theirs" 2>/dev/null && [ "$(id -u)" != "$(stat -c %u "$tmp/theirs")" ]; then
    expect_exit "report -o into someone else's link" 1 "$phasor" report -o "$tmp/theirs" "$golden"
    check "... says why, writes nothing there" 'grep -q "symbolic link that is not yours" "$tmp/err" && [ -z "$(ls -A "$tmp/elsewhere")" ]'
else
    skip "report -o into someone else's link" "cannot give a link another owner here (needs root)"
fi
ln -s "$tmp/elsewhere" "$tmp/mine"
expect_exit "report -o into my own link to a directory" 0 "$phasor" report -o "$tmp/mine" "$golden"
check "... writes there" '[ -f "$tmp/elsewhere/matrix.csv" ]'

# a failed write: exit 1 naming the file; a file already there stays whole
mkdir -p "$tmp/keep"
echo "old model" >"$tmp/keep/m.json"
expect_exit "predict --save-model on a log without a probe" 1 "$phasor" predict --save-model "$tmp/keep/m.json" "$golden"
check "... the model file already there is whole" '[ "$(cat "$tmp/keep/m.json")" = "old model" ] && [ -z "$(ls -A "$tmp/keep" | grep tmp)" ]'
if [ -w /dev/full ]; then
    expect_exit "export onto /dev/full" 1 "$phasor" export -f csv -o /dev/full "$golden"
    check "... names it" 'grep -q "/dev/full" "$tmp/err"'
fi
if [ "$(id -u)" != 0 ]; then
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    expect_exit "report -o into a read-only directory" 1 "$phasor" report -o "$tmp/ro" "$golden"
    check "... names the file" 'grep -q "$tmp/ro/matrix.csv" "$tmp/err"'
else
    skip "report -o into a read-only directory" "root writes anyway"
fi

cli_done
