# tilec lower and tilec run --xir: every example lowers to XIR and matches the
# reference interpreter at every packet width; plan options are checked.
source "$(dirname "$0")/common.bash" "$@"

expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" && {
  contains "$WORK/out" '^// dispatch_size=80 block_size=64 packet_width=8 '
  contains "$WORK/out" '^// arg 2 %C: f32, at least 20480 bytes, write$'
  contains "$WORK/out" '^// realization: .*static_snapshot_bytes_per_worker='
  contains "$WORK/out" '^kernel @gemm\(%A: buffer<f32>, %B: buffer<f32>, %C: buffer<f32>\) block_size=64 \{'
}
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --order 1,0 --block 32 --width 4 &&
  contains "$WORK/out" 'block=32; width=4; root_order=\[1,0\];'

for example in "$SRC"/examples/*.tir; do
  for width in 1 2 4 8 16; do
    expect 0 "$TILEC" run "$example" --xir --width "$width" --seed 3 &&
      contains "$WORK/out" 'vs reference: max abs err .*, ok$'
  done
done
# A ragged shape and a permuted root.
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --xir -D M=19 -D N=21 -D K=13 --order 1,0 --width 4
expect 0 "$TILEC" run "$SRC/examples/attention.tir" --xir --order 2,0,1 --partitions 1 --max-unrolled 8

# Refusals are diagnostics (exit 1); malformed values are usage errors (exit 2).
expect 1 "$TILEC" run "$SRC/examples/softmax.tir" --xir --width 3 && contains "$WORK/err" 'error\[LOWER-'
expect 1 "$TILEC" lower "$SRC/examples/softmax.tir" --order 1,0 &&
  contains "$WORK/err" 'XIR root axis order must be a complete permutation'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --width 4 && contains "$WORK/err" 'need --xir'
expect 2 "$TILEC" lower "$SRC/examples/softmax.tir" --order 0,x
expect 2 "$TILEC" lower "$SRC/examples/softmax.tir" --block -1
expect 2 "$TILEC" lower
finish
