# -D overrides a shape parameter: the printed, specialized IR changes shape.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"

expect 0 "$TILEC" print "$K" && contains "$WORK/out" 'X\.0=4, X\.1=6\]'
cp "$WORK/out" "$WORK/default.txt"
expect 0 "$TILEC" print -D M=10 "$K" && contains "$WORK/out" 'X\.0=10, X\.1=6\]'
expect 0 "$TILEC" print -DM=10 -D N=3 "$K" && contains "$WORK/out" 'Y\.0=10, Y\.1=3\]'
# The printed IR parses back and prints the same (print is a fixed point).
expect 0 "$TILEC" print -D M=10 "$K" && cp "$WORK/out" "$WORK/p1.tir"
expect 0 "$TILEC" print "$WORK/p1.tir" && cmp -s "$WORK/out" "$WORK/p1.tir" || fail "print is not a fixed point"
# run sees the new shape too.
expect 0 "$TILEC" run --kernel cli_copy -D M=3 "$K" && contains "$WORK/out" '^%Y: f32\[3, 6\] '
finish
