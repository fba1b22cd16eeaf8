# Generated inputs depend on --seed only: same seed, same data; another seed,
# other data; the default is seed 0.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"

summary() { # seed-args... → writes the summary lines to stdout
  "$TILEC" run "$K" --kernel cli_copy "$@" | grep '^%'
}
a=$(summary --seed 42) || fail "run failed"
b=$(summary --seed 42) || fail "run failed"
c=$(summary --seed 43) || fail "run failed"
d=$(summary) || fail "run failed"
e=$(summary --seed 0) || fail "run failed"
[ -n "$a" ] || fail "no summary"
[ "$a" = "$b" ] || fail "same seed, different results: $a / $b"
[ "$a" != "$c" ] || fail "seeds 42 and 43 gave the same data"
[ "$d" = "$e" ] || fail "the default seed is not 0"

# The data files themselves are identical, and within [-1, 1).
expect 0 "$TILEC" run "$K" --kernel cli_copy --seed 9 --out X="$WORK/a.npy"
expect 0 "$TILEC" run "$K" --kernel cli_copy --seed 9 --out X="$WORK/b.npy"
cmp -s "$WORK/a.npy" "$WORK/b.npy" || fail "same seed wrote different inputs"
expect 0 "$TILEC" run "$K" --kernel cli_copy --seed 9
contains "$WORK/out" '^%Y: f32\[4, 6\] min=-0\.[0-9]+ max=0\.[0-9]+ '
# Each parameter has its own stream: supplying Y with --in leaves X's
# generated data unchanged, and so does restating a default with -D.
expect 0 "$TILEC" run "$K" --kernel cli_copy_i32 --seed 3 --out X="$WORK/x1.npy" --out Y="$WORK/y1.npy"
expect 0 "$TILEC" run "$K" --kernel cli_copy_i32 --seed 4 --out X="$WORK/other.npy"
expect 0 "$TILEC" run "$K" --kernel cli_copy_i32 --seed 3 --in Y="$WORK/other.npy" --out X="$WORK/x2.npy"
cmp -s "$WORK/x1.npy" "$WORK/x2.npy" || fail "--in Y changed the generated X"
expect 0 "$TILEC" run "$K" --kernel cli_copy_i32 --seed 3 -D N=6 --out X="$WORK/x3.npy"
cmp -s "$WORK/x1.npy" "$WORK/x3.npy" || fail "restating a default define changed the data"
finish
