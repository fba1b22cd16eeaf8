# run --in/--out: an .npy goes through the copy kernel unchanged, mismatched
# or broken inputs are rejected with exit 1.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"

# Generated X, written out with the result; Y must equal X byte for byte
# (same dtype and shape give the same .npy header).
expect 0 "$TILEC" run "$K" --kernel cli_copy --seed 5 --out X="$WORK/x.npy" --out %Y="$WORK/y.npy"
cmp -s "$WORK/x.npy" "$WORK/y.npy" || fail "copy of X differs from X"
head -c 10 "$WORK/x.npy" | od -An -c | tr -d ' \n' | grep -q '223NUMPY001\\0v\\0' || fail "x.npy has no v1 .npy prefix"
[ "$(wc -c <"$WORK/x.npy")" -eq $((128 + 4 * 6 * 4)) ] || fail "x.npy size"

# Feed it back in: the kernel copies it to a new file.
expect 0 "$TILEC" run "$K" --reference --kernel=@cli_copy --in X="$WORK/x.npy" --out Y="$WORK/y2.npy"
cmp -s "$WORK/x.npy" "$WORK/y2.npy" || fail "round trip through --in changed the data"
# The summary of a --in run matches the summary of the generated run.
expect 0 "$TILEC" run "$K" --kernel cli_copy --seed 5 && grep '^%' "$WORK/out" >"$WORK/s1"
expect 0 "$TILEC" run "$K" --kernel cli_copy --in X="$WORK/x.npy" && grep '^%' "$WORK/out" >"$WORK/s2"
cmp -s "$WORK/s1" "$WORK/s2" || fail "summaries differ: $(cat "$WORK/s1" "$WORK/s2")"
contains "$WORK/s1" '^%Y: f32\[4, 6\] min=-?[0-9.e-]+ max=-?[0-9.e-]+ mean=-?[0-9.e-]+ checksum=[0-9a-f]{16}$'
# Only writable parameters are summarized.
grep -q '^%X' "$WORK/s1" && fail "const parameter X was summarized"

# Integers.
expect 0 "$TILEC" run "$K" --kernel cli_copy_i32 --seed 1 --out X="$WORK/xi.npy" --out Y="$WORK/yi.npy"
cmp -s "$WORK/xi.npy" "$WORK/yi.npy" || fail "i32 copy differs"
contains "$WORK/out" '^%Y: i32\[4, 6\] min=-?[0-8] max=-?[0-8] '

# Mismatches: dtype, shape, unknown parameter, not an .npy, missing file.
expect 1 "$TILEC" run "$K" --kernel cli_copy --in X="$WORK/xi.npy" && contains "$WORK/err" 'TILEC-CLI03.*dtype <i4'
expect 1 "$TILEC" run "$K" --kernel cli_copy -D M=5 --in X="$WORK/x.npy" &&
  contains "$WORK/err" 'shape \[4, 6\] does not match parameter %X of shape \[5, 6\]'
expect 1 "$TILEC" run "$K" --kernel cli_copy --in Z="$WORK/x.npy" && contains "$WORK/err" "no parameter 'Z'"
expect 1 "$TILEC" run "$K" --kernel cli_copy --out Q="$WORK/q.npy" && contains "$WORK/err" "no parameter 'Q'"
expect 1 "$TILEC" run "$K" --kernel cli_copy --in X="$K" && contains "$WORK/err" 'TILEC-NPY01'
head -c 100 "$WORK/x.npy" >"$WORK/cut.npy"
expect 1 "$TILEC" run "$K" --kernel cli_copy --in X="$WORK/cut.npy" && contains "$WORK/err" 'TILEC-NPY07'
expect 1 "$TILEC" run "$K" --kernel cli_copy --in X="$WORK/none.npy" && contains "$WORK/err" 'none.npy: cannot open'
expect 1 "$TILEC" run "$K" --kernel cli_copy --out Y="$WORK/no/dir/y.npy" && contains "$WORK/err" 'TILEC-IO01'

# From a pipe: the same data reads the same; the header is checked against the
# parameter before anything is allocated (a 2 GiB shape in a 1 GB address
# space is a shape mismatch, not out of memory); a short stream is truncated.
expect 0 "$TILEC" run "$K" --kernel cli_copy --reference --in X=<(cat "$WORK/x.npy") --out Y="$WORK/y3.npy"
cmp -s "$WORK/x.npy" "$WORK/y3.npy" || fail "an --in from a pipe changed the data"
npy_f32 "$WORK/huge.npy" '(536870912,)' 3f800000 3f800000 3f800000 3f800000
if limits_work -v 1000000; then
  expect 1 limited -v 1000000 "$TILEC" run "$K" --kernel cli_copy --reference --in X=<(cat "$WORK/huge.npy") &&
    contains "$WORK/err" 'TILEC-CLI04.*shape \[536870912\] does not match parameter %X'
fi
npy_f32 "$WORK/short.npy" '(4, 6)' 3f800000 3f800000 3f800000
expect 1 "$TILEC" run "$K" --kernel cli_copy --reference --in X=<(cat "$WORK/short.npy") &&
  contains "$WORK/err" 'TILEC-NPY07.*the data needs 96 bytes, only 12 present'

# A shape whose byte size overflows is an error, not a crash.
expect 1 "$TILEC" run "$K" --kernel cli_copy -D M=4611686018427387904 && contains "$WORK/err" 'error\['

# Kernel selection.
expect 1 "$TILEC" run "$K" && contains "$WORK/err" 'choose one with --kernel'
expect 1 "$TILEC" run "$K" --kernel nope && contains "$WORK/err" "no kernel named 'nope'"
finish
