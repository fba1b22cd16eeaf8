# Native execution through the CLI: every example runs natively and matches
# the reference interpreter (`run --check`) at packet widths 1, 4, 8, 16 on 1
# and 2 threads, row examples also packet-local; the default engine is native; bench and emit-* smoke checks:
# softmax at W=16 is AVX-512 code calling SLEEF's vector exp, never libm's
# scalar expf; bounds faults; usage errors of the native options.
source "$(dirname "$0")/common.bash" "$@"

for example in "$SRC"/examples/*.tir; do
  for width in 1 4 8 16; do
    for threads in 1 2; do
      expect 0 "$TILEC" run "$example" --check --width "$width" --threads "$threads" &&
        contains "$WORK/out" "native \(W=$width, $threads workers\)" &&
        contains "$WORK/out" 'vs reference: max abs err .*, ok$'
    done
  done
done

# Ragged shapes and planner constraints.
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --check -D M=19 -D N=21 -D K=13 --order 1,0 --width 4 --threads 2 &&
  contains "$WORK/out" 'plan=order\[1,0\]'
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --check --tiles 2,5 --width 8 &&
  contains "$WORK/out" 'tiles\[2,5\]'

# Panel packing (--pack): on packs gemm's B (ragged, both workers counts)
# and gemm_bt's B transposed, off packs nothing; `tilec plan` names the
# decision; a bad mode is a usage error.
for threads in 1 2; do
  expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --check -D M=37 -D N=75 -D K=29 -D BN=32 --pack on --width 16 --threads "$threads" &&
    contains "$WORK/out" 'packed=gemm_pack_B;' && contains "$WORK/out" 'vs reference: max abs err .*, ok$'
  expect 0 "$TILEC" run "$SRC/examples/gemm_bt.tir" --check -D BN=32 --pack on --width 16 --threads "$threads" &&
    contains "$WORK/out" 'packed=gemm_bt_pack_B;' && contains "$WORK/out" 'gathers=0;'
done
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --check --pack off --width 16 && contains "$WORK/out" 'packed=none;'
expect 0 "$TILEC" plan "$SRC/examples/gemm.tir" --pack on --width 16 &&
  contains "$WORK/out" "packing \(on\): .*'%B': 60 tiles of 64 elements"
expect 0 "$TILEC" plan "$SRC/examples/gemm.tir" --width 16 &&
  contains "$WORK/out" "packing \(auto\): none: .*'%B': 15360 packed bytes fit the L2"
expect 2 "$TILEC" run "$SRC/examples/gemm.tir" --pack sometimes && contains "$WORK/err" "'sometimes' is not auto, on or off"

# Full-packet specialization: on by default, --no-full-packets turns it off;
# both agree with the reference on a ragged dispatch (33 rows, one per lane:
# a masked tail) and packet-local (every packet one whole row: only the
# all-active body).
for threads in 1 2; do
  for local in 1 16; do
    expect 0 "$TILEC" run "$SRC/examples/softmax.tir" -D R=33 --check --width 16 --threads "$threads" --local-lanes "$local" &&
      contains "$WORK/out" 'full_packet_bodies=1;'
    expect 0 "$TILEC" run "$SRC/examples/softmax.tir" -D R=33 --check --width 16 --threads "$threads" --local-lanes "$local" --no-full-packets &&
      contains "$WORK/out" 'full_packet_bodies=0;'
  done
done

# Packet-local rows (--local-lanes W): one program per packet, ragged row
# widths, 1 and 2 threads; contiguous row accesses, no gathers.
for example in softmax masked_softmax layernorm rmsnorm gelu swiglu rope; do
  for width in 4 16; do
    for threads in 1 2; do
      expect 0 "$TILEC" run "$SRC/examples/$example.tir" -D W=$((width + 2)) --check --width "$width" \
        --local-lanes "$width" --threads "$threads" &&
        contains "$WORK/out" "plan=order\[0\]/block[0-9]+/local$width/" &&
        contains "$WORK/out" ' gathers=0; scatters=0;' &&
        contains "$WORK/out" 'vs reference: max abs err .*, ok$'
    done
  done
done
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" -D W=1000 --check --width 16 --local-lanes 0 &&
  contains "$WORK/out" '/local16/'

# Representation settings and cost coefficients reach the native planner.
expect 0 "$TILEC" run "$SRC/examples/layernorm.tir" --check --partitions 1 --max-unrolled 0 --width 8 &&
  contains "$WORK/out" 'vs reference: max abs err .*, ok$'
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --check --cost block_dispatch=0 --search-grain --width 8 &&
  contains "$WORK/out" 'vs reference: max abs err .*, ok$'
expect 1 "$TILEC" run "$SRC/examples/gemm.tir" --cost arithmetic=-1 && contains "$WORK/err" 'PLAN-C01'

# native is the default engine; --reference still runs the interpreter.
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" && contains "$WORK/out" '^@softmax: native \(W='
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" --reference && contains "$WORK/out" 'reference interpreter'

# bench: timing, throughput and the compile breakdown.
expect 0 "$TILEC" bench "$SRC/examples/gemm.tir" --threads 2 --width 8 &&
  contains "$WORK/out" 'run: median [0-9.]+ us, min [0-9.]+ us, max [0-9.]+ us' &&
  contains "$WORK/out" 'throughput: [0-9.]+ GFLOP/s \(491520 flops' &&
  contains "$WORK/out" 'compile: verify .* plan .* lower .* llvm .* jit .* total'
expect 0 "$TILEC" bench "$SRC/examples/softmax.tir" --threads 1 && contains "$WORK/out" 'throughput: [0-9.]+ GB/s'

# tune: the pick first, then every other mapping (gemm: 2 orders x 2 lane modes, minus repeats), and the regret
expect 0 "$TILEC" tune "$SRC/examples/gemm.tir" --threads 1 && {
  contains "$WORK/out" '^@gemm: [2-4] mappings measured \(median of 7 rounds each\); model: '
  contains "$WORK/out" ' us +[0-9.]+x the fastest  model  1\.00x  <- the planner.s pick$'
  contains "$WORK/out" '<- the planner.s pick$'
  contains "$WORK/out" '^regret: [0-9]+\.[0-9]{3} '
}
expect 0 "$TILEC" tune "$SRC/examples/softmax.tir" --threads 1 && contains "$WORK/out" '^@softmax: [12] mappings measured'
expect 2 "$TILEC" tune && contains "$WORK/err" 'tilec tune: error: missing FILE.tir'
# tune --fit: the measured mappings' cost terms become samples, the coefficients are refitted, --profile loads them
expect 0 "$TILEC" tune "$SRC/examples/gemm.tir" --threads 1 --fit "$WORK/profile.txt" &&
  contains "$WORK/out" '^fit: ([2-4]) samples \(\1 new\) -> .*/profile.txt; term weights over arithmetic.s: arithmetic '
contains "$WORK/profile.txt" '^contiguous_memory=[0-9.e+-]+$'
contains "$WORK/profile.txt" '^# sample [0-9.]+ [0-9.e+]+ .* @gemm order\['
expect 0 "$TILEC" tune "$SRC/examples/softmax.tir" --threads 1 --fit "$WORK/profile.txt" &&
  contains "$WORK/out" '^fit: [3-6] samples \([12] new\)'
expect 0 "$TILEC" plan "$SRC/examples/gemm.tir" --profile "$WORK/profile.txt" && contains "$WORK/out" '^cost policy: analytic'
expect 2 "$TILEC" tune "$SRC/examples/gemm.tir" --fit "$WORK/p2.txt" --cost arithmetic=2 &&
  contains "$WORK/err" 'drop --cost and --profile'
printf '# a profile\nl2_line=3\nnot a coefficient\n' >"$WORK/bad.txt"
expect 2 "$TILEC" plan "$SRC/examples/gemm.tir" --profile "$WORK/bad.txt" &&
  contains "$WORK/err" "bad.txt:3: expected NAME=VALUE, found 'not a coefficient'"
expect 2 "$TILEC" plan "$SRC/examples/gemm.tir" --profile "$WORK/absent.txt" && contains "$WORK/err" "cannot read"

# tune --param: every combination timed once, then from the cache (on disk: ctest runs with TILEC_CACHE=memory)
saved_cache=${TILEC_CACHE-}
export TILEC_CACHE=disk TILEC_CACHE_DIR="$WORK/tunecache"
expect 0 "$TILEC" tune "$SRC/examples/gemm.tir" --param BM=4,8 --param BN=8 --threads 1 && {
  contains "$WORK/out" '^tune: 2 combinations \(median of 7 rounds each; cache .*/tunecache/tune.tsv\)$'
  contains "$WORK/out" '^  BM=4 BN=8 +order\[.* us$'
  contains "$WORK/out" '^fastest: BM=[48] BN=8 \([0-9.]+ us\)$'
}
expect 0 "$TILEC" tune "$SRC/examples/gemm.tir" --param BM=4,8 --param BN=8 --threads 1 && {
  contains "$WORK/out" '^  BM=4 BN=8 +order\[.* us  \(cached\)$'
  contains "$WORK/out" '^  BM=8 BN=8 +order\[.* us  \(cached\)$'
}
unset TILEC_CACHE_DIR
export TILEC_CACHE="$saved_cache"
expect 2 "$TILEC" tune "$SRC/examples/gemm.tir" --param BM=4,x && contains "$WORK/err" "--param BM: '4,x' is not a list"
expect 2 "$TILEC" tune "$SRC/examples/gemm.tir" --param BM && contains "$WORK/err" "--param needs NAME=V1,V2"
expect 1 "$TILEC" tune "$SRC/examples/gemm.tir" --param NOPE=1 && contains "$WORK/err" 'NOPE'

# emit-asm / emit-llvm.
# (W = 16 is one zmm register with AVX-512F, two ymm halves on an AVX2 host: code is generated for the
# features both this machine and the described host have, and the avx2-laptop profile has no AVX-512.)
if grep -qw avx512f /proc/cpuinfo && [[ "${TILEC_HOST:-native}" != avx2-laptop* ]]; then wide='%zmm[0-9]+' expf=Sleef_expf16_u10; else wide='%ymm[0-9]+' expf=Sleef_expf8_u10; fi
expect 0 "$TILEC" emit-asm "$SRC/examples/softmax.tir" --width 16 && {
  contains "$WORK/out" "$wide"
  contains "$WORK/out" "$expf"
  if grep -Eq '(call|jmp)[a-z]*[[:space:]]+\*?expf(@PLT)?$|\$expf,' "$WORK/out"; then fail "emit-asm calls scalar expf"; fi
}
expect 0 "$TILEC" emit-llvm "$SRC/examples/softmax.tir" --width 8 && contains "$WORK/out" '<8 x float>' &&
  contains "$WORK/out" 'Sleef_expf8_u10'

# Bounds faults: a scalar store past its view is reported as the reference
# reports it (TIR-I08 at the store's location) at every width and thread
# count, with and without --check-bounds; the lowering counts the checks.
for width in 1 4 16; do
  for threads in 1 2; do
    expect 1 "$TILEC" run "$SRC/tests/kernels/elementwise.tir" --kernel scalar_ops --width "$width" --threads "$threads" &&
      contains "$WORK/err" "elementwise.tir:48:5: error\[TIR-I08\]: scalar store to %Y in '@scalar_ops': index 17 along axis 0 is outside \[0, 16\)"
  done
done
expect 1 "$TILEC" run "$SRC/tests/kernels/elementwise.tir" --kernel scalar_ops --check-bounds &&
  contains "$WORK/err" 'error\[TIR-I08\]'
expect 0 "$TILEC" lower "$SRC/tests/kernels/elementwise.tir" --kernel scalar_ops &&
  contains "$WORK/out" 'bounds_checks=1; bounds_checks_removed=4;' && contains "$WORK/out" '  fault u32 4, %'
expect 0 "$TILEC" lower "$SRC/tests/kernels/elementwise.tir" --kernel scalar_ops --check-bounds &&
  contains "$WORK/out" 'bounds_checks=5; bounds_checks_removed=0;'

# Usage and compile errors.
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --threads 0 && contains "$WORK/err" '--threads needs'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --workers 4 && contains "$WORK/err" 'models a target .*--threads'
expect 0 "$TILEC" run "$SRC/examples/layernorm.tir" --fuse on --check && contains "$WORK/out" 'plan=.*/fused/'
expect 0 "$TILEC" run "$SRC/examples/layernorm.tir" --fuse off --check
expect 1 "$TILEC" run "$SRC/tests/kernels/row_prefix.tir" --local-lanes 16 --width 16 && contains "$WORK/err" 'PLAN-O04'
# The mma contraction contract: fused steps by default, --separate-mma keeps
# the multiply and add apart; both match the reference.
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" && contains "$WORK/out" 'mma_steps=fused;' &&
  contains "$WORK/out" ' = fma '
expect 0 "$TILEC" lower "$SRC/examples/gemm.tir" --separate-mma && contains "$WORK/out" 'mma_steps=separate;'
grep -q ' = fma ' "$WORK/out" && fail "--separate-mma still emits fma"
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --check --separate-mma -D M=19 -D N=21 -D K=13 &&
  contains "$WORK/out" 'vs reference: max abs err .*, ok$'
expect 0 "$TILEC" run "$SRC/examples/gemm.tir" --xir --separate-mma && contains "$WORK/out" 'vs reference: .*, ok$'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --reference --check && contains "$WORK/err" '--check is for native'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --xir --threads 2 && contains "$WORK/err" '--threads is for native'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --xir --no-full-packets && contains "$WORK/err" '--no-full-packets is for native'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --xir --stores cached && contains "$WORK/err" '--stores is for native'
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --stores sometimes && contains "$WORK/err" "'sometimes' is not auto, cached or streaming"
# streaming stores: the packet-local row store streams and the result is the reference's
expect 0 "$TILEC" run "$SRC/examples/rmsnorm.tir" -D W=1030 --width 8 --local-lanes 8 --stores streaming --check &&
  contains "$WORK/out" 'streaming_stores=1;' && contains "$WORK/out" 'vs reference: .*, ok$'
expect 0 "$TILEC" run "$SRC/examples/rmsnorm.tir" -D W=1030 --width 8 --local-lanes 8 --stores cached &&
  contains "$WORK/out" 'streaming_stores=0;'
expect 2 "$TILEC" bench && contains "$WORK/err" 'missing FILE.tir'
expect 1 "$TILEC" emit-asm "$SRC/examples/softmax.tir" --block 7 && contains "$WORK/err" 'error\['

finish
