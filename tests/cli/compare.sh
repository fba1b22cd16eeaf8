# run --check and --xir compare exactly where exactness is defined: an
# infinity matches the same infinity, NaN matches NaN, -0 matches +0 (IEEE
# equality; docs/cli.md), integers by their bytes.  A mismatch names the count,
# the first coordinate and both values; --out files are written either way.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_compare.tir"
COPY="$SRC/tests/kernels/cli_copy.tir"

# data FILE N: the data of an f32 .npy of N elements as hex words, in order.
data() { tail -c $((4 * $2)) "$1" | od -An -v -t x4 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }

# A copy of 1, inf, -inf, NaN, -0, +0 matches, natively at W 1 and 16, on 1
# and 2 threads, and on the XIR interpreter; the copy is bitwise.
special="3f800000 7f800000 ff800000 7fc00000 80000000 00000000"
npy_f32 "$WORK/special.npy" '(1, 6)' $special
for engine in "--check --width 1 --threads 1" "--check --width 16 --threads 2" "--xir --width 4"; do
  rm -f "$WORK/y.npy"
  expect 0 "$TILEC" run "$COPY" --kernel cli_copy -D M=1 -D N=6 --in X="$WORK/special.npy" $engine \
    --out Y="$WORK/y.npy" &&
    contains "$WORK/out" '^  %Y vs reference: max abs err 0, ok$'
  [ "$(data "$WORK/y.npy" 6)" = "$special" ] || fail "$engine: copy of special values: $(data "$WORK/y.npy" 6)"
done

# Reductions over rows with infinities and NaNs: inf+2 = inf, the max of -infs
# is -inf, inf + -inf is NaN, max ignores nothing it should not; folded,
# unordered (1 and 4 partitions) and max, natively and on XIR.
npy_f32 "$WORK/rows.npy" '(4, 4)' 3f800000 7f800000 40000000 40400000 ff800000 ff800000 ff800000 ff800000 \
  7f800000 ff800000 00000000 00000000 7fc00000 3f800000 40000000 40400000
for engine in --check --xir; do
  for partitions in 1 4; do
    expect 0 "$TILEC" run "$K" --kernel cli_rows -D R=4 --in X="$WORK/rows.npy" $engine --partitions $partitions \
      --out S="$WORK/s.npy" --out T="$WORK/t.npy" &&
      [ "$(grep -c 'vs reference: max abs err 0, ok$' "$WORK/out")" -eq 3 ] || fail "$engine: rows: $(cat "$WORK/out")"
    contains "$WORK/out" '^%S: f32\[4, 1\] min=-inf max=inf .* nan=2 '
    # (rows 2 and 3 are NaNs, whose sign and payload are not compared)
    [ "$(data "$WORK/s.npy" 4 | cut -d' ' -f1-2)" = "7f800000 ff800000" ] || fail "$engine: S: $(data "$WORK/s.npy" 4)"
  done
done

# -0 against +0: the f32 engines compute -1e-30·1e-30 + 0 = +0, the FP64
# reference -0.  They match (the checksums show the difference).
npy_f32 "$WORK/a.npy" '(4,)' 8da24260 8da24260 8da24260 3f800000
npy_f32 "$WORK/b.npy" '(4,)' 0da24260 0da24260 0da24260 3f800000
npy_f32 "$WORK/c.npy" '(4,)' 00000000 00000000 00000000 00000000
for engine in --check --xir --reference; do
  expect 0 "$TILEC" run "$K" --kernel cli_mul_add --in A="$WORK/a.npy" --in B="$WORK/b.npy" --in C="$WORK/c.npy" \
    $engine --out Y="$WORK/y$engine.npy"
  [ "$engine" = --reference ] || contains "$WORK/out" '^  %Y vs reference: max abs err 0, ok$'
done
[ "$(data "$WORK/y--check.npy" 4)" = "00000000 00000000 00000000 3f800000" ] || fail "native +0: $(data "$WORK/y--check.npy" 4)"
[ "$(data "$WORK/y--reference.npy" 4)" = "80000000 80000000 80000000 3f800000" ] ||
  fail "reference -0: $(data "$WORK/y--reference.npy" 4)"

# A real mismatch: 1e8 + 1 - 1e8 folded in f32 is 0, in FP64 1 (row 1 only;
# row 0 is exact).  The report names the count, the coordinate and both
# values; the --out files hold the engine's results; exit 1.
npy_f32 "$WORK/lossy.npy" '(2, 4)' 3f800000 40000000 40400000 40800000 4cbebc20 3f800000 ccbebc20 00000000
for engine in --check --xir; do
  rm -f "$WORK/s.npy" "$WORK/m.npy"
  expect 1 "$TILEC" run "$K" --kernel cli_rows --in X="$WORK/lossy.npy" $engine \
    --out S="$WORK/s.npy" --out M="$WORK/m.npy" &&
    contains "$WORK/out" '^  %S vs reference: max abs err 1, MISMATCH \(1 of 2 elements; first at \[1, 0\]: 0, reference 1\)$' &&
    contains "$WORK/out" '^  %M vs reference: max abs err 0, ok$' &&
    contains "$WORK/err" "the (native|XIR) results differ from the reference interpreter"
  [ "$(data "$WORK/s.npy" 2)" = "41200000 00000000" ] || fail "$engine: --out S on a mismatch: $(data "$WORK/s.npy" 2)"
  [ "$(data "$WORK/m.npy" 2)" = "40800000 4cbebc20" ] || fail "$engine: --out M on a mismatch: $(data "$WORK/m.npy" 2)"
done
# A failed --out on a mismatch is reported too (and still exits 1).
expect 1 "$TILEC" run "$K" --kernel cli_rows --in X="$WORK/lossy.npy" --check --out S="$WORK/no/dir/s.npy" &&
  contains "$WORK/err" 'TILEC-IO01' && contains "$WORK/out" 'MISMATCH'

# Integers compare by value, exactly (i32 copy at every width).
expect 0 "$TILEC" run "$COPY" --kernel cli_copy_i32 --check --width 4 && contains "$WORK/out" '^  %Y vs reference: max abs err 0, ok$'
finish
