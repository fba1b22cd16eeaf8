#!/usr/bin/python3
"""PyTorch peers of `make bench` (eager, and Inductor with `--mode inductor`),
run as coprocesses by the family drivers.

Protocol (one request per line on stdin, one reply line on stdout):
  setup OP THREADS DIR N0 N1 ...  load DIR/in0.f32, in1.f32, ... (the kernel's
                                  inputs, raw little-endian float32); reply ok
  check PATH                      run once, write the output (raw float32); ok
  run REPS                        run REPS times back to back; ok TOTAL_US
  version                         ok TORCH_VERSION
  quit                            exit
Errors reply `error MESSAGE`; if torch cannot be imported every request gets
`unavailable MESSAGE`.  OPs and dims: softmax, masked_softmax, layernorm,
rmsnorm, gelu, swiglu, rope (rows cols); attention (B Hq Hkv Lq Lk D Dv).
Semantics are those of examples/OP.tir.

With `--mode inductor` each op's function goes through
torch.compile(mode="max-autotune-no-cudagraphs") (Inductor's C++/OpenMP CPU
code), compiled at setup, outside the timing; setup then replies
`ok COMPILE_MS`.

Each op is what a PyTorch user writes in eager mode, under inference_mode.
Outputs are preallocated and written with out= where the final op has one
(torch.add/mul/cat/matmul); the temporaries of multi-op formulas (and
softmax / layer_norm / gelu / silu, which have no public out= in 1.13) are
allocated inside the timed loop, as they are in real eager code.
"""
import os
import sys
import time

# python3 on PATH may be an interpreter without the Debian torch (e.g. pyenv);
# fall back once to the system interpreter, which python3-torch installs into.
SYSTEM_PYTHON = "/usr/bin/python3"
try:
    import numpy as np
    import torch
    IMPORT_ERROR = None
except Exception as e:  # ImportError, or a broken install
    if (os.environ.get("TILEC_TORCH_REEXEC") is None and os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)):
        os.environ["TILEC_TORCH_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    IMPORT_ERROR = f"{type(e).__name__}: {e}".replace("\n", " ")

EPS = 1e-5


def n_inputs(op):
    return {"softmax": 1, "masked_softmax": 1, "layernorm": 3, "rmsnorm": 2,
            "gelu": 2, "swiglu": 2, "rope": 3, "attention": 3}[op]


def input_shapes(op, dims):
    """Shapes of the kernel's inputs, in its parameter order (examples/OP.tir)."""
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        return [(b, hq, lq, d), (b, hkv, lk, d), (b, hkv, lk, dv)]
    r, w = dims
    if op == "layernorm":
        return [(r, w), (w,), (w,)]
    if op == "rmsnorm":
        return [(r, w), (w,)]
    if op == "rope":
        return [(r, w), (r, w // 2), (r, w // 2)]
    return [(r, w)] * n_inputs(op)


def make_op(op, dims, ins):
    """Returns fn: fn() computes the op and returns its output tensor."""
    F = torch.nn.functional
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        q, k, v = ins
        out = torch.empty(b, hq, lq, dv)
        group, scale = hq // hkv, 1.0 / (d ** 0.5)
        # bottom-right causal: key j is valid for query i when j <= i + lk - lq
        masked = (torch.arange(lk)[None, :] > torch.arange(lq)[:, None] + (lk - lq))
        # PyTorch >= 2.0 has the fused kernel (default scale 1/sqrt(d); a
        # boolean mask keeps the True entries); older ones run it eagerly.
        sdpa = getattr(F, "scaled_dot_product_attention", None)
        keep = ~masked

        def fn():
            kk = k.repeat_interleave(group, dim=1) if group > 1 else k
            vv = v.repeat_interleave(group, dim=1) if group > 1 else v
            if sdpa is not None:
                return sdpa(q, kk, vv, attn_mask=keep)
            s = torch.matmul(q, kk.transpose(-1, -2)) * scale
            s.masked_fill_(masked, float("-inf"))
            return torch.matmul(torch.softmax(s, -1), vv, out=out)
        return fn

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


class Worker:
    def __init__(self, mode):
        self.fn = None
        self.interop_set = False
        self.mode = mode

    def setup(self, args):
        op, threads, d = args[0], int(args[1]), args[2]
        dims = [int(a) for a in args[3:]]
        if op not in ("softmax", "masked_softmax", "layernorm", "rmsnorm", "gelu",
                      "swiglu", "rope", "attention"):
            raise ValueError(f"unknown op {op}")
        if len(dims) != (7 if op == "attention" else 2):
            raise ValueError(f"{op}: wrong number of dims {dims}")
        if op == "rope" and dims[1] % 2:
            raise ValueError("rope: cols must be even")
        if not self.interop_set:
            # allowed once per process, before any inter-op work; eager ops
            # do not use the inter-op pool, so one thread is enough
            try:
                torch.set_num_interop_threads(1)
            except RuntimeError:
                pass
            self.interop_set = True
        torch.set_num_threads(threads)
        ins = []
        for i, shape in enumerate(input_shapes(op, dims)):
            path = os.path.join(d, f"in{i}.f32")
            a = np.fromfile(path, dtype="<f4")
            want = int(np.prod(shape))
            if a.size != want:
                raise ValueError(f"{path}: {a.size} floats, expected {want} for shape {shape}")
            ins.append(torch.from_numpy(a.reshape(shape)))
        self.fn = None
        fn = make_op(op, dims, ins)
        if self.mode != "inductor":
            self.fn = fn
            return "ok"
        torch._dynamo.reset()  # a fresh compile per row: no recompile limits across shapes
        t0 = time.perf_counter()
        compiled = torch.compile(fn, mode="max-autotune-no-cudagraphs", dynamic=False)
        compiled()  # compiles (and autotunes) here, outside the timing
        self.fn = compiled
        return f"ok {(time.perf_counter() - t0) * 1e3:.1f}"

    def version(self, args):
        return f"ok {torch.__version__}"

    def check(self, args):
        y = self.need()()
        y.contiguous().numpy().astype("<f4").tofile(args[0])
        return "ok"

    def run(self, args):
        reps, fn = int(args[0]), self.need()
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            fn()
        t1 = time.perf_counter_ns()
        return f"ok {(t1 - t0) / 1000.0:.3f}"

    def need(self):
        if self.fn is None:
            raise RuntimeError("no successful setup")
        return self.fn


def main():
    mode = sys.argv[2] if len(sys.argv) >= 3 and sys.argv[1] == "--mode" else "eager"
    if mode not in ("eager", "inductor"):
        sys.exit(f"torch_worker: unknown mode {mode}")
    worker = None if IMPORT_ERROR else Worker(mode)
    ctx = torch.inference_mode() if worker else None
    if ctx:
        ctx.__enter__()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, args = words[0], words[1:]
        if cmd == "quit":
            break
        if worker is None:
            reply = f"unavailable {IMPORT_ERROR}"
        else:
            try:
                handler = {"setup": worker.setup, "check": worker.check,
                           "run": worker.run, "version": worker.version}.get(cmd)
                if handler is None:
                    raise ValueError(f"unknown request {cmd}")
                reply = handler(args)
            except Exception as e:
                reply = f"error {type(e).__name__}: {e}".replace("\n", " ")
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()
    sys.stdout.flush()
    # Inductor leaves compile workers and threads whose interpreter shutdown
    # can wait forever; nothing is left to flush, so leave at once.
    os._exit(0)


if __name__ == "__main__":
    main()
