# Scalar parameters (`%a: f32`, docs/tir.md "Scalar parameters"): a kernel
# Y = a·X + b with a, b scalars and X set with --arg too, on the reference,
# natively at every width with --check, and on the XIR interpreter; the
# printed form (one-element const views read at the top of the parallel)
# reads back the same; a scalar used outside a parallel is TIR-P23, a
# repeated name TIR-P04; --arg errors (bad value, a value out of the type's
# range, unknown parameter, given with --in as well).
source "$(dirname "$0")/common.bash" "$@"

AXPB="$SRC/tests/kernels/axpb.tir"
expect 0 "$TILEC" run "$AXPB" --reference --arg a=2 --arg X=3 --arg b=0.5 --arg k=-4 &&
  contains "$WORK/out" '^%Y: f32\[100\] min=2.5 max=2.5 mean=2.5 '
for w in 1 4 16; do
  expect 0 "$TILEC" run "$AXPB" --width $w --threads 2 --check --arg a=-1.5 --arg k=7 -D N=1000 &&
    contains "$WORK/out" 'vs reference: max abs err .*, ok$'
done
expect 0 "$TILEC" run "$AXPB" --xir --arg a=2 && contains "$WORK/out" 'ok'

expect 0 "$TILEC" print "$AXPB" && {
  contains "$WORK/out" '^kernel @axpb\(%a: const view<f32>\[a\.0=1\], %X: const view<f32>\[X\.0=100\], %b: const view<f32>\[b\.0=1\], %k: const view<i32>\[k\.0=1\]'
  contains "$WORK/out" '= load %a\[%0\]$'
  cp "$WORK/out" "$WORK/printed.tir"
  expect 0 "$TILEC" print "$WORK/printed.tir" && cmp -s "$WORK/out" "$WORK/printed.tir" ||
    fail "the printed form of a kernel with scalar parameters does not read back the same"
}

printf 'kernel @k(%%a: f32, %%Y: view<f32>[Y.0=4]) {\n  %%t = mul %%a, %%a\n  parallel (%%i: i=4) {\n    store %%Y[%%i], %%a\n  }\n}\n' >"$WORK/outside.tir"
expect 1 "$TILEC" check "$WORK/outside.tir" && contains "$WORK/err" 'outside\.tir:2:12: error\[TIR-P23\]: scalar parameter .%a. is used outside a parallel'
printf 'kernel @k(%%a: f32, %%a: view<f32>[Y.0=4]) {\n}\n' >"$WORK/twice.tir"
expect 1 "$TILEC" check "$WORK/twice.tir" && contains "$WORK/err" 'twice\.tir:1:20: error\[TIR-P04\]'

expect 1 "$TILEC" run "$AXPB" --arg a=2x && contains "$WORK/err" 'TILEC-ARG01.*--arg a=2x: not a f32 value'
expect 1 "$TILEC" run "$AXPB" --arg k=3000000000 && contains "$WORK/err" 'not a i32 value'
# a finite decimal that overflows f32 is refused like an integer that does
# not fit; f32's largest finite value, an underflow to 0 and the words inf
# and nan are values
expect 1 "$TILEC" run "$AXPB" --arg a=1e39 && contains "$WORK/err" 'TILEC-ARG01.*--arg a=1e39: not a f32 value'
expect 1 "$TILEC" run "$AXPB" --arg X=-1e400 && contains "$WORK/err" 'TILEC-ARG01.*--arg X=-1e400: not a f32 value'
for v in 3.4028235e38 1e-50 -inf nan; do
  expect 0 "$TILEC" run "$AXPB" --reference --arg a=$v
done
expect 1 "$TILEC" run "$AXPB" --arg q=1 && contains "$WORK/err" "no parameter 'q'"
expect 2 "$TILEC" run "$AXPB" --arg a=1 --in a=x.npy && contains "$WORK/err" "given twice with --in/--arg"
expect 2 "$TILEC" run "$AXPB" --arg a && contains "$WORK/err" "expected NAME=VALUE"
finish
