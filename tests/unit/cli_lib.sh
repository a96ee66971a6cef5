# cli_lib.sh: sourced by the cli_*.sh tests after their own argument checks: a scratch
# directory $tmp (removed at exit), the pass/fail/skip counters, and
#   ok NAME / bad NAME          count one check
#   skip NAME REASON            a check that cannot run here (a tool missing): never passed
#   check NAME EXPR             ok when the shell expression EXPR holds
#   expect_exit NAME STATUS CMD...  ok when CMD exits with STATUS (stdout to $tmp/out,
#                               stderr to $tmp/err, shown when it did not)
#   cli_done                    the last line, "SCRIPT: N passed, M failed[, K skipped]", and
#                               the status: 1 if a check failed or none ran, 77 (automake's
#                               SKIP) if every one was skipped, else 0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
skipped=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
expect_exit() {
    name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok "$name"; else bad "$name (exit $got, wanted $want)"; sed 's/^/     /' "$tmp/err" | head -5; fi
}
cli_done() {
    if [ "$skipped" -gt 0 ]; then
        echo "$(basename "$0"): $passed passed, $failed failed, $skipped skipped"
    else
        echo "$(basename "$0"): $passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ] || return 1
    [ "$passed" -gt 0 ] && return 0
    [ "$skipped" -gt 0 ] && return 77
    return 1
}
