# tilec demo: every example with a reference runs natively and matches it
# (exit 0), and the table has one row per example with its plan, W, compile
# time, run time and throughput.
source "$(dirname "$0")/common.bash" "$@"

expect 0 "$TILEC" demo
if grep -q '^no examples with references' "$WORK/out"; then
  finish
  exit 0
fi
contains "$WORK/out" '^kernel +shape +plan +W +compile ms +run us +throughput +max abs err +max rel err +status$'
contains "$WORK/out" '^gemm +M=64 .* order\[[0-9,]+\]/block[0-9]+/.* [0-9.]+ GF/s .* ok$'
contains "$WORK/out" '^softmax +R=17 .* [0-9.]+ GB/s .* ok$'
contains "$WORK/out" '^demo: [0-9]+ passed, 0 failed \(native'
grep -Eq ' (FAIL|ERROR)$' "$WORK/out" && fail "a demo row failed"
expect 1 "$TILEC" demo no_such_example && contains "$WORK/err" "no example named 'no_such_example'"
expect 1 "$TILEC" demo --examples-dir "$WORK" && contains "$WORK/out" ' ERROR$'
finish
