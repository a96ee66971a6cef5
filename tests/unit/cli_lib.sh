# cli_lib.sh: sourced by the cli_*.sh tests after their own argument checks: a scratch
# directory $tmp (removed at exit), the pass/fail counters, and
#   ok NAME / bad NAME          count one check
#   check NAME EXPR             ok when the shell expression EXPR holds
#   expect_exit NAME STATUS CMD...  ok when CMD exits with STATUS (stdout to $tmp/out,
#                               stderr to $tmp/err, shown when it did not)
#   cli_done                    the last line, "SCRIPT: N passed, M failed", and the status
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
expect_exit() {
    name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok "$name"; else bad "$name (exit $got, wanted $want)"; sed 's/^/     /' "$tmp/err" | head -5; fi
}
cli_done() {
    echo "$(basename "$0"): $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
