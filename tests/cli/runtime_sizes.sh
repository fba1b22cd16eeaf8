# Runtime sizes on the command line (docs/tir.md "Runtime sizes", docs/cli.md
# `run --dim`): a ranged shape parameter left unpinned prints as a range and
# its forms; `run --reference` takes it from --dim or from an --in array's
# shape and gives the bytes the -D-pinned kernel gives; native (--check) and
# --xir runs of the one kernel match the reference at several sizes; the
# plan names the sizes it was made for; a missing, unknown, disagreeing or
# out-of-range size is an error; the CUDA target plans and emits it (the
# grid from the dims); an ahead-of-time object's typed entry takes the
# sizes after the parameters (tests/cli/aot.sh runs one).
source "$(dirname "$0")/common.bash" "$@"
K="$WORK/softmax_rows.tir"
sed 's/^kernel @softmax<R=17,/kernel @softmax<R: 1..4096,/' "$SRC/examples/softmax.tir" >"$K"
grep -q 'R: 1..4096' "$K" || fail "the example's header changed: this test makes R a range"

expect 0 "$TILEC" print "$K" && {
  contains "$WORK/out" '^kernel @softmax<R: 1..4096>\(%X: const view<f32>\[X.0=R, X.1=65\]'
  contains "$WORK/out" 'parallel \(%r: r=R\)'
}
expect 0 "$TILEC" check "$K"

# --dim R=5 is -D R=5, byte for byte
expect 0 "$TILEC" run --reference "$K" --dim R=5 --out Y="$WORK/dyn.npy" &&
  contains "$WORK/out" '%Y: f32\[5, 65\]'
expect 0 "$TILEC" run --reference "$K" -D R=5 --out Y="$WORK/pinned.npy"
cmp -s "$WORK/dyn.npy" "$WORK/pinned.npy" || fail "run --dim R=5 differs from -D R=5"

# the size from an --in array's shape (an axis that is exactly R), or both agreeing
expect 0 "$TILEC" run --reference "$K" -D R=7 --out X="$WORK/x7.npy"
expect 0 "$TILEC" run --reference "$K" --in X="$WORK/x7.npy" && contains "$WORK/out" '%Y: f32\[7, 65\]'
expect 0 "$TILEC" run --reference "$K" --in X="$WORK/x7.npy" --dim R=7

# what is refused
expect 2 "$TILEC" run --reference "$K" && contains "$WORK/err" 'needs runtime size R: give --dim R=N'
expect 2 "$TILEC" run --reference "$K" --dim R=five && contains "$WORK/err" '--dim R=five: not an integer'
expect 1 "$TILEC" run --reference "$K" --dim R=4097 &&
  contains "$WORK/err" 'TIR-M09.*R=4097 of .@softmax. is outside its range 1..4096'
expect 1 "$TILEC" run --reference "$K" --dim L=4 && {
  contains "$WORK/err" 'kernel @softmax has no runtime size .L.'
  contains "$WORK/err" 'runtime sizes: R \(1..4096\)'
}
expect 1 "$TILEC" run --reference "$K" --in X="$WORK/x7.npy" --dim R=8 &&
  contains "$WORK/err" 'runtime size R is 8, but the shape of .*x7.npy makes it 7'
expect 1 "$TILEC" run --reference "$SRC/examples/softmax.tir" --dim R=4 &&
  contains "$WORK/err" 'none \(its extents are numbers\)'
for r in 1 4 17 100; do
  expect 0 "$TILEC" run "$K" --dim R=$r --check --host zen4 --threads 2 && contains "$WORK/out" "%Y vs reference: .*, ok"
  expect 0 "$TILEC" run --xir "$K" --dim R=$r && contains "$WORK/out" "%Y vs reference: .*, ok"
done
expect 1 "$TILEC" run "$K" --dim R=0 --check && contains "$WORK/err" 'R=0 of .@softmax. is outside its range 1..4096'
# the CUDA target: planned per bucket, the PTX's launch comments give the
# grid and bytes as formulas over the sizes, the dims a buffer after the
# arguments (ptxas accepts it where it is installed); the XIR interpreter
# at W = 32 runs its lowering against the reference
expect 0 "$TILEC" plan "$K" --target cuda && contains "$WORK/out" '^bucket R=256..4096, planned at R=1024'
expect 0 "$TILEC" emit-ptx "$K" && cp "$WORK/out" "$WORK/k.ptx" &&
  contains "$WORK/k.ptx" '^// tilec-launch: entry=softmax sm=sm_90 block=[0-9]+ dispatch=32\*R grid=ceil\(dispatch/[0-9]+\) args=2\+dims$' &&
  contains "$WORK/k.ptx" '^// tilec-sizes: R=1..4096 \(this PTX: its bucket 256..4096\); dims: an i64 buffer' &&
  contains "$WORK/k.ptx" '^// tilec-arg: 0 X f32 bytes=4\*R\*65 read$' &&
  contains "$WORK/k.ptx" '^\s*\.param \.u64 softmax_param_2,$'
if command -v ptxas >/dev/null; then
  expect 0 ptxas -arch=sm_90 "$WORK/k.ptx" -o "$WORK/k.cubin"
fi
for r in 1 33 300; do
  expect 0 "$TILEC" run --xir --target cuda "$K" --dim R=$r && contains "$WORK/out" "%Y vs reference: .*, ok"
done
expect 0 "$TILEC" compile "$K" -o "$WORK/k.o" --header "$WORK/k.h" && contains "$WORK/k.h" '^int softmax\(const float \*X, float \*Y, int64_t R\);$'
expect 0 "$TILEC" plan "$K" &&
  contains "$WORK/out" '^bucket R=256..4096, planned at R=1024, the plan of its (low end|middle|high end) \(worst regret over the three: R=256.s [0-9.]+, R=1024.s [0-9.]+, R=4096.s [0-9.]+\):$'
# bucket_cuts replaces the cuts (0: one bucket); they must rise (PLAN-O13)
expect 0 "$TILEC" plan "$K" && contains "$WORK/out" '^bucket R=1..1, planned at R=1, the kernel specialized there \(static code\):$'
expect 0 "$TILEC" plan "$K" --bucket-cuts 0 && contains "$WORK/out" '^runtime sizes: 1 buckets' &&
  contains "$WORK/out" '^bucket R=1..4096, planned at R=64'
expect 0 "$TILEC" plan "$K" --bucket-cuts 16,1000 && contains "$WORK/out" '^bucket R=1..15,' &&
  contains "$WORK/out" '^bucket R=16..999,' && contains "$WORK/out" '^bucket R=1000..4096,'
expect 1 "$TILEC" plan "$K" --bucket-cuts 16,8 && contains "$WORK/err" 'PLAN-O13.*bucket_cuts must rise: 8 follows 16'
expect 0 "$TILEC" plan "$K" --json --explain && {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); b = d["buckets"]
assert [x["sizes"]["R"] for x in b] == [[1, 1], [2, 255], [256, 4096]], b
assert [x["planned_at"]["R"] for x in b] == [1, 22, 1024] and all(x["plan"]["ok"] for x in b)
assert b[0]["choice"] is None and all(x["choice"]["from"] in ("low end", "middle", "high end") for x in b[1:])
for x in b[1:]:  # the chosen plan has the least worst regret, the middle on a tie
    r = {k: v for k, v in x["choice"]["regret"].items() if isinstance(v, float)}
    assert min(r.values()) >= 1 and r[x["choice"]["from"]] == min(r.values()), x["choice"]
    assert x["choice"]["from"] == "middle" or r[x["choice"]["from"]] <= r["middle"], x["choice"]' "$WORK/out" ||
    fail "plan --json of a kernel with runtime sizes: not one plan per bucket"
}
# bench times the one kernel at the sizes --dim gives (every size needs one)
expect 0 "$TILEC" bench "$K" --dim R=64 --threads 1 && {
  contains "$WORK/out" 'dims=R:1..4096'
  contains "$WORK/out" 'throughput: .* GB/s \(33280 argument bytes\)'
}
expect 2 "$TILEC" bench "$K" --threads 1 && contains "$WORK/err" 'needs runtime size R: give --dim R=N$'
# a tile over a runtime size, with the caret at its extent
sed 's/tile \[m=1, n=W\], %y/tile [m=R, n=W], %y/' "$K" >"$WORK/tile.tir"
expect 1 "$TILEC" check "$WORK/tile.tir" && {
  contains "$WORK/err" 'error\[TIR-P27\]: a tile.s extents must be numbers'
  contains "$WORK/err" '^ +\| +\^'
}
finish
