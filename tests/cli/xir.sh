# tilec lower and tilec run --xir: every example lowers to XIR and matches the
# reference interpreter at every packet width; plan options (root order and
# root axis tiles included) are checked; an empty root domain runs nothing
# (--xir, --check) and has no XIR to print (lower: LOWER-A03).
source "$(dirname "$0")/common.bash" "$@"

expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --block 64 --local-lanes 1 && {
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
expect 1 "$TILEC" lower "$SRC/examples/softmax.tir" --order 1,0 &&
  contains "$WORK/err" 'XIR root axis order must be a complete permutation'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --reference --width 4 && contains "$WORK/err" 'do not apply to --reference'
expect 2 "$TILEC" lower "$SRC/examples/softmax.tir" --order 0,x
expect 2 "$TILEC" lower "$SRC/examples/softmax.tir" --block -1
expect 2 "$TILEC" lower

# Packed panels on the XIR interpreter: the copy kernel runs first; gemm's
# B (ragged) and gemm_bt's B (transposed) at several widths; `tilec lower`
# shows the panels argument.
for width in 1 4 16; do
  expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --xir --pack on -D M=37 -D N=75 -D K=29 -D BN=32 --width "$width" &&
    contains "$WORK/out" 'packed panels' && contains "$WORK/out" 'vs reference: max abs err .*, ok$'
  expect 0 "$TILEC" run "$SRC/examples/gemm_bt.tir" --xir --pack on -D BN=32 --width "$width" &&
    contains "$WORK/out" 'packed panels' && contains "$WORK/out" 'vs reference: max abs err .*, ok$'
done
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --pack on --width 16 &&
  contains "$WORK/out" '%B_packed: buffer<f32>' && contains "$WORK/out" 'packed_operand=B; packed_bytes=15360;'

# Root axis tiles: a tiled gemm (8×10 programs in 2×5 blocks) still matches the
# reference; the realization records the fixed tiles; an identity tiling emits
# the same XIR as none; invalid tiles are refused, malformed ones are usage errors.
for order in 0,1 1,0; do
  expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --xir --tiles 2,5 --order "$order" --width 4 &&
    contains "$WORK/out" 'vs reference: max abs err .*, ok$'
done
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --xir -D M=19 -D N=21 -D K=13 --tiles 3,1 --width 8 &&
  contains "$WORK/out" 'vs reference: max abs err .*, ok$'
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --tiles 2,5 --local-lanes 1 && {
  contains "$WORK/out" 'root_order=\[0,1\]; fixed_root_axis_tiles=\[2,5\]; root_temporal_cache_cost=unmodeled; dispatch_size=80;'
  grep -v '^//' "$WORK/out" >"$WORK/tiled.xir"
}
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --local-lanes 1 && grep -v '^//' "$WORK/out" >"$WORK/plain.xir"
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --tiles 1,1 --local-lanes 1 && {
  contains "$WORK/out" 'fixed_root_axis_tiles=\[1,1\];'
  grep -v '^//' "$WORK/out" | cmp -s - "$WORK/plain.xir" || fail "identity tiles 1,1 changed the XIR"
}
cmp -s "$WORK/tiled.xir" "$WORK/plain.xir" && fail "tiles 2,5 did not change the XIR"
expect 1 "$TILEC" lower "$SRC/examples/gemm.tir" --tiles 3,5 &&
  contains "$WORK/err" 'XIR root axis tiles must be positive divisors of the original extents'
expect 1 "$TILEC" run "$SRC/examples/gemm.tir" --xir --tiles 2 &&
  contains "$WORK/err" 'XIR root axis tiles must specify every original axis'
expect 2 "$TILEC" lower "$SRC/examples/gemm.tir" --tiles 2,x
expect 2 "$TILEC" run "$SRC/examples/gemm.tir" --reference --tiles 2,5 && contains "$WORK/err" 'do not apply to --reference'
# an empty root domain: nothing to lower or run, the outputs as the reference leaves them
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" -D R=0 --xir && contains "$WORK/out" 'the root domain is empty, nothing runs' &&
  contains "$WORK/out" '%Y vs reference: max abs err 0, ok'
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" -D R=0 --check && contains "$WORK/out" 'plan=empty;'
expect 1 "$TILEC" lower "$SRC/examples/softmax.tir" -D R=0 && contains "$WORK/err" 'LOWER-A03'
# if regions on the XIR engine as natively (a scalar and a tile carry)
expect 0 "$TILEC" run "$SRC/tests/kernels/conditional.tir" --kernel cond_rows --xir &&
  contains "$WORK/out" '%S vs reference: max abs err [0-9.e-]+, ok'
expect 0 "$TILEC" run "$SRC/tests/kernels/conditional.tir" --kernel tile_carry --xir &&
  contains "$WORK/out" '%T vs reference: max abs err 0, ok'
# one program per lane cannot realize an if with a loop inside: every candidate says why
expect 1 "$TILEC" run "$SRC/tests/kernels/conditional.tir" --kernel guarded_sum --width 8 --local-lanes 1 &&
  contains "$WORK/err" "PLAN-S01.*the condition of 'if' op #[0-9]+ may differ between the lanes and its body has a loop"
finish
