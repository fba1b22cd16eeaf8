#!/usr/bin/python3
"""The JAX/XLA peer of `make bench`: each op written as a JAX user writes it
(jax.numpy / jax.nn), jax.jit-compiled for the CPU at setup (outside the
timing; setup replies `ok COMPILE_MS`), a coprocess of the family drivers
speaking the protocol of worker_loop.py.

Threads: XLA's CPU client sizes its thread pools from the CPUs the process
may run on when it starts, and ignores XLA_FLAGS' thread options for
them (measured: intra_op_parallelism_threads=1 still used 1.8 cores on a 4096²
softmax), so a worker for N threads restricts itself to N CPUs
(sched_setaffinity) before importing jax.

A run is one call of the jitted function on device-resident inputs, waited
for (block_until_ready), so dispatches do not overlap; XLA allocates the
output of every call, as it does in real JAX code.

The bf16 ops take bf16 arrays: rmsnorm_bf16 computes in f32 and rounds the
result to bf16 once; gemm_bf16 is jnp.matmul with
preferred_element_type=float32 (f32 accumulation and C).
"""
import os
import time

import worker_loop

MODE, THREADS = worker_loop.parse_argv(("jit",))
if THREADS < len(os.sched_getaffinity(0)):
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:THREADS])
try:
    import jax
    import jax.numpy as jnp
    IMPORT_ERROR = None
except Exception as e:  # ImportError, or a broken install
    IMPORT_ERROR = worker_loop.import_failure(e)
EPS = worker_loop.EPS


def softmax_rows(x):
    return jax.nn.softmax(x, axis=-1)


def function(op, dims):
    """The op as a function of its inputs (examples/OP.tir's semantics)."""
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        group = hq // hkv

        def attention(q, k, v):
            # grouped-query: query head h reads KV head h // group
            qg = q.reshape(b, hkv, group, lq, d)
            s = jnp.einsum("bkgqd,bkjd->bkgqj", qg, k) * (1.0 / d ** 0.5)
            # bottom-right causal: key j is valid for query i when j <= i + lk - lq
            keep = jnp.arange(lk)[None, :] <= jnp.arange(lq)[:, None] + (lk - lq)
            p = jax.nn.softmax(jnp.where(keep, s, -jnp.inf), axis=-1)
            return jnp.einsum("bkgqj,bkjd->bkgqd", p, v).reshape(b, hq, lq, dv)
        return attention
    if op == "gemm_bf16":
        return lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32)
    r, w = dims
    if op == "softmax":
        return softmax_rows
    if op == "masked_softmax":
        # valid: c <= r % w; invalid scores -1e30 (their exponentials underflow to 0)
        def masked(x):
            invalid = jnp.arange(w)[None, :] > (jnp.arange(r) % w)[:, None]
            return softmax_rows(jnp.where(invalid, -1.0e30, x))
        return masked
    if op == "layernorm":
        def layernorm(x, g, bt):
            mean = x.mean(-1, keepdims=True)
            c = x - mean
            return c * jax.lax.rsqrt((c * c).mean(-1, keepdims=True) + EPS) * g + bt
        return layernorm
    if op == "rmsnorm":
        return lambda x, g: x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + EPS) * g
    if op == "rmsnorm_bf16":
        def rmsnorm_bf16(xb, gb):
            x, g = xb.astype(jnp.float32), gb.astype(jnp.float32)
            return (x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + EPS) * g).astype(jnp.bfloat16)
        return rmsnorm_bf16
    if op == "gelu":
        return lambda x, u: jax.nn.gelu(x, approximate=True) + u
    if op == "swiglu":
        return lambda x, u: jax.nn.silu(x) * u
    if op == "rope":
        h = w // 2

        def rope(x, c, s):
            xl, xr = x[:, :h], x[:, h:]
            return jnp.concatenate((xl * c - xr * s, xl * s + xr * c), -1)
        return rope
    raise ValueError(f"unknown op {op}")


def setup(args):
    op, dims, arrays = worker_loop.parse_setup(args, THREADS)
    if op in worker_loop.BF16_OPS:  # exact: the values are bf16 numbers
        arrays = [a.astype(jnp.bfloat16) for a in arrays]
    ins = [jax.device_put(a) for a in arrays]
    t0 = time.perf_counter()
    fn = jax.jit(function(op, dims)).lower(*ins).compile()
    compile_ms = (time.perf_counter() - t0) * 1e3
    result = [None]

    def run():
        result[0] = fn(*ins).block_until_ready()
    return run, lambda: jax.device_get(result[0]), compile_ms


if __name__ == "__main__":
    worker_loop.serve(setup, lambda: f"jax {jax.__version__}, jaxlib {jax.lib.__version__}"
                      if IMPORT_ERROR is None else "", IMPORT_ERROR)
