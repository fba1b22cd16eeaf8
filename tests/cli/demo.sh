# tilec demo: every example with a reference runs and matches it (exit 0), and
# the table has one row per example.
source "$(dirname "$0")/common.bash" "$@"

expect 0 "$TILEC" demo
if grep -q '^no examples with references' "$WORK/out"; then
  finish
  exit 0
fi
contains "$WORK/out" '^kernel +shape +interp ms +max abs err +max rel err +status$'
contains "$WORK/out" '^demo: [0-9]+ passed, 0 failed$'
grep -Eq ' (FAIL|ERROR)$' "$WORK/out" && fail "a demo row failed"
expect 1 "$TILEC" demo no_such_example && contains "$WORK/err" "no example named 'no_such_example'"
expect 1 "$TILEC" demo --examples-dir "$WORK" && contains "$WORK/out" ' ERROR$'
finish
