# runner_lib.sh: how every tests/mpi runner counts, sourced by each (root: its scratch
# directory, named in failures). A case passes only when it checked something; a case that
# cannot run here is skipped, never passed; a runner that cannot run at all exits 77, which
# automake reports as SKIP and scripts/test.sh lists as skipped.
#   result NAME STATUS [WHY]  one case: "ok N - NAME" if STATUS is 0, else "not ok N - NAME: WHY"
#   skip NAME REASON          one case not run here: "skip N - NAME: REASON"
#   skip_all REASON           the runner cannot run here: "# SKIP REASON", the counts, exit 77
#                             (1 if a case failed before)
#   finish                    the last line, "N passed, M failed[, K skipped]", and the exit
#                             status: 1 if a case failed or none ran, 77 if every case was
#                             skipped, else 0
passed=0
failed=0
skipped=0
n=0
result() {
  n=$((n + 1))
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1)); echo "ok $n - $1"
  else
    failed=$((failed + 1)); echo "not ok $n - $1: ${3:-} (files in $root)"
  fi
}
skip() {
  n=$((n + 1)); skipped=$((skipped + 1)); echo "skip $n - $1: $2"
}
counts() {
  if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
  else echo "$passed passed, $failed failed"; fi
}
skip_all() {
  echo "# SKIP $1"
  counts
  [ "$failed" -eq 0 ] && exit 77
  exit 1
}
finish() {
  [ "$passed" -gt 0 ] || [ "$failed" -gt 0 ] || [ "$skipped" -gt 0 ] || echo "# no case ran"
  counts
  [ "$failed" -eq 0 ] || exit 1
  [ "$passed" -gt 0 ] && exit 0
  [ "$skipped" -gt 0 ] && exit 77
  exit 1
}
