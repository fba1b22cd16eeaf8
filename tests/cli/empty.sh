# An empty root domain (tests/kernels/nested_softmax.tir with -D B=0: nested
# batch, head and row parallels, a row softmax inside) through every command
# that compiles natively: run and bench run nothing, plan says why there is
# no plan (LOWER-A03), and emit-asm / emit-llvm print the kernel's entry —
# one that only returns — instead of crashing (they once died with
# SIGSEGV on the missing text).  The same kernel with batches runs and
# matches the reference.
source "$(dirname "$0")/common.bash" "$@"

K="$SRC/tests/kernels/nested_softmax.tir"
expect 0 "$TILEC" run "$K" --threads 2 --check && contains "$WORK/out" 'vs reference: max abs err .*, ok$'
expect 0 "$TILEC" run "$K" -D B=0 --threads 2 --check && {
  contains "$WORK/out" 'plan=empty;'
  contains "$WORK/out" '^%Y: f32\[0, 3, 5, 17\] empty '
}
expect 0 "$TILEC" bench "$K" -D B=0 --threads 2 && contains "$WORK/out" 'dispatch=0;'
expect 1 "$TILEC" plan "$K" -D B=0 && contains "$WORK/err" "LOWER-A03.*the root parallel's domain is empty"
for w in 1 16; do
  expect 0 "$TILEC" emit-asm "$K" -D B=0 --width $w && {
    contains "$WORK/out" '^; kernel=nested_softmax; plan=empty; .*dispatch=0;'
    contains "$WORK/out" '^tilec_entry:$'
    contains "$WORK/out" '^[[:space:]]+retq?$'
  }
  expect 0 "$TILEC" emit-llvm "$K" -D B=0 --width $w && {
    contains "$WORK/out" '^; kernel=nested_softmax; plan=empty; .*dispatch=0;'
    contains "$WORK/out" '^define void @tilec_entry\('
    contains "$WORK/out" '^  ret void$'
  }
done
finish
