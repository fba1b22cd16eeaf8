# Input errors exit 1 with diagnostics on stderr: missing files, syntax errors
# (reported as file:line:col), verifier errors, unknown defines.
source "$(dirname "$0")/common.bash" "$@"

for cmd in check print run; do
  expect 1 "$TILEC" $cmd "$WORK/no-such-file.tir" && contains "$WORK/err" 'no-such-file.tir: cannot open'
done
expect 1 "$TILEC" check "$WORK" && contains "$WORK/err" 'TILEC-IO01'

# A syntax error on line 3.
printf '// a broken kernel\nkernel @broken(%%A: view<f32>[A.0=4]) {\n  %%x = frobnicate %%A\n}\n' >"$WORK/broken.tir"
for cmd in check print run; do
  expect 1 "$TILEC" $cmd "$WORK/broken.tir" &&
    contains "$WORK/err" "broken\.tir:3:[0-9]+: error\[TIR-P[0-9]+\]"
done
# ... shown as clang does: the source line, then a caret under the column.
expect 1 "$TILEC" check "$WORK/broken.tir" && {
  contains "$WORK/err" 'broken\.tir:3:8: error\[TIR-P02\]'
  contains "$WORK/err" '^ 3 \|   %x = frobnicate %A$'
  contains "$WORK/err" '^   \|        \^$'
}
# Nothing but garbage (binary bytes, a NUL, unbalanced brackets).
printf '\001\377 @@ }}} <<\000 %%%% kernel\n\t((' >"$WORK/garbage.tir"
expect 1 "$TILEC" check "$WORK/garbage.tir" && contains "$WORK/err" 'garbage\.tir:[0-9]+:[0-9]+: error\[TIR-'

# A kernel that parses but stores to a const view.
cat >"$WORK/const_store.tir" <<'TIR'
kernel @k(%A: const view<f32>[A.0=4]) {
  parallel (%i: i=4) {
    %v = const f32 1.0
    store %A[%i], %v
  }
}
TIR
expect 1 "$TILEC" check "$WORK/const_store.tir" &&
  contains "$WORK/err" 'const_store\.tir:[0-9]+:[0-9]+: error\[TIR-'

# A define that names no shape parameter.
expect 1 "$TILEC" check -D NOPE=3 "$SRC/tests/kernels/cli_copy.tir" && contains "$WORK/err" 'NOPE'
expect 0 "$TILEC" check "$SRC/tests/kernels/cli_copy.tir" && contains "$WORK/out" '^ok: 2 kernel\(s\)$'
finish
