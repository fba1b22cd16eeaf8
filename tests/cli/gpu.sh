# The CUDA target from the command line, without a GPU: tilec plan/lower/run
# --xir --target cuda plan for the GPU target and check its lowering at
# W = 32 on the XIR interpreter; tilec emit-ptx prints
# PTX for the chosen architecture (ptxas assembles it when it is on PATH);
# tilec run/bench --target cuda without a driver fail with GPU-D01 "no CUDA
# driver" (exit 1); malformed --target / --sm values are usage errors.
source "$(dirname "$0")/common.bash" "$@"

expect 0 "$TILEC" emit-ptx "$SRC/examples/gemm.tir" && {
  contains "$WORK/out" '^\.target sm_90$'
  contains "$WORK/out" '^\.visible \.entry gemm\($'
  contains "$WORK/out" '^\.maxntid [0-9]*, 1, 1$'
  cp "$WORK/out" "$WORK/gemm.ptx"
  if command -v ptxas > /dev/null; then
    ptxas -arch=sm_90 "$WORK/gemm.ptx" -o "$WORK/gemm.cubin" || fail "ptxas rejected gemm's PTX"
  else
    echo "ptxas is not on PATH: the PTX is not assembled"
  fi
}
expect 0 "$TILEC" emit-ptx "$SRC/examples/transpose.tir" --sm sm_80 -D M=100 -D N=70 &&
  contains "$WORK/out" '^\.target sm_80$'
# Planner constraints apply: a forced block of 64 threads.
expect 0 "$TILEC" emit-ptx "$SRC/examples/rope.tir" --block 64 && contains "$WORK/out" '^\.maxntid 64, 1, 1$'
expect 1 "$TILEC" emit-ptx "$SRC/examples/rope.tir" --block 48 && contains "$WORK/err" 'PLAN-O06'
expect 2 "$TILEC" emit-ptx "$SRC/examples/rope.tir" --sm sm_99 && contains "$WORK/err" "'sm_99' is not one of sm_60"
expect 2 "$TILEC" run "$SRC/examples/rope.tir" --target gpu && contains "$WORK/err" "'gpu' is not cpu or cuda"

# The GPU's plan from the planner's commands, and its lowering on the XIR
# interpreter at W = 32 (the GPU's semantics) for every example.
expect 0 "$TILEC" plan "$SRC/examples/softmax.tir" --target cuda -D R=4096 -D W=4096 && {
  contains "$WORK/out" 'plan for target cuda-gpu \(W=32'
  contains "$WORK/out" '^cost policy: gpu; coefficients: .*contiguous_memory 4 gathered_lane 1'
  contains "$WORK/out" 'block 1024, W 32, local lanes 32'
}
expect 0 "$TILEC" lower "$SRC/examples/rope.tir" --target cuda && contains "$WORK/out" 'packet_width=32'
for example in "$SRC"/examples/*.tir; do
  expect 0 "$TILEC" run "$example" --xir --target cuda --seed 2 && contains "$WORK/out" 'vs reference: .*, ok$'
done

# CPU realizations asked for on the GPU are refused, not dropped.
expect 1 "$TILEC" emit-ptx "$SRC/examples/gemm.tir" --pack on && contains "$WORK/err" 'GPU-O03.*panel packing'
expect 1 "$TILEC" plan "$SRC/examples/softmax.tir" --target cuda --split on && contains "$WORK/err" 'GPU-O03.*split'
expect 1 "$TILEC" lower "$SRC/examples/softmax.tir" --target cuda --grain 2 && contains "$WORK/err" 'GPU-O03.*task grains'

# Ahead-of-time objects are CPU code.
expect 1 "$TILEC" compile "$SRC/examples/softmax.tir" -o "$WORK/softmax.o" --target cuda &&
  contains "$WORK/err" 'TILEC-AOT03'

# No driver: a diagnostic, never a crash.
TILEC_CUDA_DRIVER=/nonexistent/libcuda.so.1 expect 1 "$TILEC" run "$SRC/examples/softmax.tir" --target cuda --check &&
  contains "$WORK/err" 'GPU-D01.*no CUDA driver'
TILEC_CUDA_DRIVER=/nonexistent/libcuda.so.1 expect 1 "$TILEC" bench "$SRC/examples/softmax.tir" --target cuda &&
  contains "$WORK/err" 'no CUDA driver'
# scripts/gpu-check's first step (no GPU, no PyTorch): PTX with its launch
# header, inputs and reference outputs for the default shapes.
if command -v python3 > /dev/null; then
  # (no math functions: no libdevice needed)
  expect 0 python3 "$SRC/scripts/gpu-check" prepare --only transpose,gemm --no-large --dir "$WORK/gc" \
    --tilec "$TILEC" && {
    for f in transpose.default.ptx transpose.default.X.npy transpose.default.Y.npy gemm.default.C.npy manifest.json; do
      [ -s "$WORK/gc/$f" ] || fail "gpu-check prepare wrote no $f"
    done
    contains "$WORK/gc/gemm.default.ptx" '^// tilec-arg: 2 C f32 bytes=20480 write$'
  }
fi
finish
