# The LLM fixture shapes of upstream-tests-bench.md §1.3, natively with --check
# (every writable output against the reference interpreter at 5e-5): rows
# operators at 17 rows × widths 7/32/65, RoPE at 6/32/66, online attention
# prefill/decode/GQA shapes, and the large-workspace rows cases.
source "$(dirname "$0")/common.bash" "$@"
E="$SRC/examples"

check() {
  expect 0 "$TILEC" run --check --threads 2 "$@" && contains "$WORK/out" 'vs reference: max abs err .*, ok$'
}

for op in rmsnorm layernorm swiglu gelu masked_softmax; do
  for width in 7 32 65; do check "$E/$op.tir" -D R=17 -D W=$width; done
done
for width in 6 32 66; do check "$E/rope.tir" -D R=17 -D W=$width; done
# (B, Hq, Hkv, Lq, Lk, D, Dv) with 2x3 blocks.
while read -r b hq hkv lq lk d dv; do
  check "$E/attention.tir" -D B=$b -D Hq=$hq -D Hkv=$hkv -D Lq=$lq -D Lk=$lk -D D=$d -D Dv=$dv -D bq=2 -D bk=3
done <<'SHAPES'
1 2 2 4 5 4 3
2 4 2 7 11 8 7
2 4 2 1 17 8 7
SHAPES
# Block shapes 1x1, 2x4, 3x5 on (1,2,1,7,11,8,7).
for blocks in "1 1" "2 4" "3 5"; do
  set -- $blocks
  check "$E/attention.tir" -D B=1 -D Hq=2 -D Hkv=1 -D Lq=7 -D Lk=11 -D D=8 -D Dv=7 -D bq=$1 -D bk=$2
done
# Large private workspace: rows of 16384 (and masked softmax at 4096).
check "$E/rmsnorm.tir" -D R=64 -D W=16384
check "$E/masked_softmax.tir" -D R=64 -D W=4096
check "$E/masked_softmax.tir" -D R=64 -D W=16384
finish
