#!/usr/bin/python3
"""PyTorch peers of `make bench`: eager (`--mode eager`) and Inductor
(`--mode inductor`), coprocesses of the family drivers speaking the protocol
of worker_loop.py.

Inductor: each op's function goes through
torch.compile(mode="max-autotune-no-cudagraphs", dynamic=False) (Inductor's
C++/OpenMP CPU code), compiled and autotuned at setup, outside the timing;
setup replies `ok COMPILE_MS`.

Each op is what a PyTorch user writes in eager mode, under inference_mode,
with torch.set_num_threads(THREADS).  Outputs are preallocated and written
with out= where the final op has one (torch.add/mul/cat/matmul); the
temporaries of multi-op formulas (and softmax / layer_norm / gelu / silu,
which have no public out=) are allocated inside the timed loop, as they are
in real eager code.

The bf16 ops take bf16 tensors.  rmsnorm_bf16 is F.rms_norm (f32 statistics,
one rounding of the bf16 result; the same formula in bf16 ops rounds every
step and misses the check by 2-3 bf16 units).  gemm_bf16 wants C in f32:
torch.mm on bf16 returns bf16 (its out_dtype= has no CPU kernel in 2.15) and
runs at 0.6 GFLOP/s on AVX2 without AVX512-BF16 (measured, 1024³), so the
peer widens the operands and multiplies in f32, the widening timed:
torch.matmul(a.float(), b.float(), out=C).
"""
import time

import worker_loop

MODE, THREADS = worker_loop.parse_argv(("eager", "inductor"))
try:
    import torch
    IMPORT_ERROR = None
except Exception as e:  # ImportError, or a broken install
    IMPORT_ERROR = worker_loop.import_failure(e)
EPS = worker_loop.EPS


def make_op(op, dims, ins):
    """Returns fn: fn() computes the op and returns its output tensor."""
    F = torch.nn.functional
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        q, k, v = ins
        # scaled_dot_product_attention (its default scale is 1/sqrt(d)) with
        # grouped-query heads (enable_gqa: no repeated K/V).  The mask is
        # bottom-right causal: key j is valid for query i when j <= i + lk - lq;
        # none when every key is valid (decode), is_causal when lq == lk (the
        # fused kernel's own causal path), else a boolean mask (True: keep).
        sdpa = F.scaled_dot_product_attention
        gqa = {"enable_gqa": True} if hq != hkv else {}
        if lq == 1:
            return lambda: sdpa(q, k, v, **gqa)
        if lq == lk:
            return lambda: sdpa(q, k, v, is_causal=True, **gqa)
        keep = torch.arange(lk)[None, :] <= torch.arange(lq)[:, None] + (lk - lq)
        return lambda: sdpa(q, k, v, attn_mask=keep, **gqa)

    if op == "gemm_bf16":
        m, n, k = dims
        a, b = ins
        c = torch.empty(m, n)
        return lambda: torch.matmul(a.float(), b.float(), out=c)
    r, w = dims
    out = torch.empty(r, w)
    if op == "softmax":
        x, = ins
        return lambda: torch.softmax(x, -1)
    if op == "masked_softmax":
        x, = ins
        # valid: c <= r % w; invalid scores -1e30 (their exponentials underflow to 0)
        invalid = torch.arange(w)[None, :] > (torch.arange(r) % w)[:, None]
        return lambda: torch.softmax(x.masked_fill(invalid, -1.0e30), -1)
    if op == "layernorm":
        x, g, bt = ins
        return lambda: F.layer_norm(x, (w,), g, bt, EPS)
    if op == "rmsnorm":
        x, g = ins
        return (lambda: torch.mul(x * torch.rsqrt(x.square().mean(-1, keepdim=True) + EPS), g,
                                  out=out))
    if op == "rmsnorm_bf16":
        x, g = ins
        return lambda: F.rms_norm(x, (w,), g, EPS)
    if op == "gelu":
        x, u = ins
        return lambda: torch.add(F.gelu(x, approximate="tanh"), u, out=out)
    if op == "swiglu":
        x, u = ins
        return lambda: torch.mul(F.silu(x), u, out=out)
    if op == "rope":
        x, c, s = ins
        h = w // 2
        xl, xr = x[:, :h], x[:, h:]
        return lambda: torch.cat((xl * c - xr * s, xl * s + xr * c), -1, out=out)
    raise ValueError(f"unknown op {op}")


def setup(args):
    op, dims, arrays = worker_loop.parse_setup(args, THREADS)
    ins = [torch.from_numpy(a) for a in arrays]
    if op in worker_loop.BF16_OPS:
        ins = [t.bfloat16() for t in ins]  # exact: the values are bf16 numbers
    fn = make_op(op, dims, ins)
    compile_ms = None
    if MODE == "inductor":
        torch._dynamo.reset()  # a fresh compile per row: no recompile limits across shapes
        t0 = time.perf_counter()
        fn = torch.compile(fn, mode="max-autotune-no-cudagraphs", dynamic=False)
        fn()  # compiles (and autotunes) here, outside the timing
        compile_ms = (time.perf_counter() - t0) * 1e3
    result = [None]

    def run():
        result[0] = fn()
    # .float(): numpy has no bf16 (exact, and a no-op on an f32 result)
    return run, lambda: result[0].contiguous().float().numpy(), compile_ms


def main():
    if IMPORT_ERROR is None:
        # the inter-op pool is set once per process, before any inter-op
        # work; eager ops do not use it, so one thread is enough
        torch.set_num_interop_threads(1)
        torch.set_num_threads(THREADS)
        torch.inference_mode().__enter__()
    worker_loop.serve(setup, lambda: torch.__version__, IMPORT_ERROR)


if __name__ == "__main__":
    main()
