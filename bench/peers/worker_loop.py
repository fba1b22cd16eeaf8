"""The coprocess protocol shared by the Python peers of `make bench`
(torch_worker.py, jax_worker.py, halide_worker.py); the client is
bench/py_peer.c.

A worker is started as `python WORKER.py --threads N [--mode MODE]` and serves
one thread count for its whole life: some frameworks size their thread pools
once per process (XLA, Halide's runtime), so the client keeps one worker per
peer and thread count.  Requests, one per line on stdin, one reply line each
on stdout:
  setup OP THREADS DIR N0 N1 ...  load DIR/in0.f32, in1.f32, ... (the kernel's
                                  inputs, raw little-endian float32, in its
                                  parameter order) and prepare OP; reply
                                  `ok`, or `ok COMPILE_MS` from a peer that
                                  compiles (outside the timing)
  check PATH                      run once, write the output (raw float32); ok
  run REPS                        run REPS times back to back; ok TOTAL_US
  version                         ok VERSION
  quit                            exit
Errors reply `error MESSAGE`; when the framework cannot be imported every
request gets `unavailable MESSAGE`; a setup of an op the peer does not
implement gets `unsupported MESSAGE` (the client reports the peer skipped).
OPs and dims: softmax, masked_softmax, layernorm, rmsnorm, rmsnorm_bf16, gelu,
swiglu, rope (rows cols); gemm_bf16 (M N K); attention (B Hq Hkv Lq Lk D Dv).
Semantics are those of examples/OP.tir.  The bf16 ops' inputs are bf16
numbers, sent as the float32 values they are (a peer converts them to bf16 at
setup, outside the timing); rmsnorm_bf16's output is bf16 (`check` writes its
exact float32 widening), gemm_bf16's is float32."""
import os
import sys
import time

ROW_OPS = ("softmax", "masked_softmax", "layernorm", "rmsnorm", "gelu", "swiglu", "rope")
BF16_OPS = ("rmsnorm_bf16", "gemm_bf16")
OPS = ROW_OPS + BF16_OPS + ("attention",)
DIMS = {"attention": 7, "gemm_bf16": 3}  # the number of dims; 2 (rows cols) for the others


class Unsupported(Exception):
    """Raised by a worker's setup for an op it does not implement."""
EPS = 1e-5  # layernorm, rmsnorm


def parse_argv(modes):
    """(mode, threads) from `[--mode M] --threads N`; exits on anything else.
    Called before the framework is imported (threads are set through its
    environment)."""
    mode, threads, args = modes[0], 1, sys.argv[1:]
    while args:
        if len(args) < 2 or args[0] not in ("--mode", "--threads"):
            sys.exit(f"{os.path.basename(sys.argv[0])}: usage: [--mode {'|'.join(modes)}] --threads N")
        if args[0] == "--mode":
            mode = args[1]
        else:
            threads = int(args[1])
        args = args[2:]
    if mode not in modes or threads < 1:
        sys.exit(f"{os.path.basename(sys.argv[0])}: bad --mode {mode} or --threads {threads}")
    return mode, threads


def input_shapes(op, dims):
    """Shapes of the kernel's inputs, in its parameter order (examples/OP.tir)."""
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        return [(b, hq, lq, d), (b, hkv, lk, d), (b, hkv, lk, dv)]
    if op == "gemm_bf16":
        m, n, k = dims
        return [(m, k), (k, n)]
    r, w = dims
    return {"softmax": [(r, w)], "masked_softmax": [(r, w)],
            "layernorm": [(r, w), (w,), (w,)], "rmsnorm": [(r, w), (w,)], "rmsnorm_bf16": [(r, w), (w,)],
            "gelu": [(r, w), (r, w)], "swiglu": [(r, w), (r, w)],
            "rope": [(r, w), (r, w // 2), (r, w // 2)]}[op]


def output_shape(op, dims):
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        return (b, hq, lq, dv)
    if op == "gemm_bf16":
        return tuple(dims[:2])
    return tuple(dims)


def parse_setup(args, threads):
    """(op, dims, inputs as float32 numpy arrays) of a setup request."""
    import numpy as np
    op, want_threads, d = args[0], int(args[1]), args[2]
    dims = [int(a) for a in args[3:]]
    if op not in OPS:
        raise ValueError(f"unknown op {op}")
    if want_threads != threads:
        raise ValueError(f"this worker runs {threads} threads, not {want_threads}")
    if len(dims) != DIMS.get(op, 2):
        raise ValueError(f"{op}: wrong number of dims {dims}")
    if op == "rope" and dims[1] % 2:
        raise ValueError("rope: cols must be even")
    if op == "attention" and dims[1] % dims[2]:
        raise ValueError("attention: Hkv must divide Hq")
    ins = []
    for i, shape in enumerate(input_shapes(op, dims)):
        path = os.path.join(d, f"in{i}.f32")
        a = np.fromfile(path, dtype="<f4")
        want = 1
        for n in shape:
            want *= n
        if a.size != want:
            raise ValueError(f"{path}: {a.size} floats, expected {want} for shape {shape}")
        ins.append(a.reshape(shape))
    return op, dims, ins


def timed(fn, reps):
    """Runs fn() reps times back to back; the reply to `run`."""
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        fn()
    return f"ok {(time.perf_counter_ns() - t0) / 1000.0:.3f}"


class Served:
    """What a worker is between requests: the prepared op's run function and
    its output as a numpy array (after a run)."""

    def __init__(self, setup, version):
        self.setup_fn, self.version_fn = setup, version
        self.run_fn = self.output_fn = None

    def setup(self, args):
        self.run_fn = self.output_fn = None
        self.run_fn, self.output_fn, compile_ms = self.setup_fn(args)
        return "ok" if compile_ms is None else f"ok {compile_ms:.1f}"

    def check(self, args):
        self.need()()
        self.output_fn().astype("<f4").tofile(args[0])
        return "ok"

    def run(self, args):
        return timed(self.need(), int(args[0]))

    def version(self, args):
        preload = os.environ.get("LD_PRELOAD", "")
        allocator = "jemalloc, no purging" if "jemalloc" in preload else "glibc malloc"
        return f"ok {self.version_fn()}; {allocator}"

    def need(self):
        if self.run_fn is None:
            raise RuntimeError("no successful setup")
        return self.run_fn


def serve(setup, version, import_error):
    """The request loop.  setup(args) -> (run, output, compile_ms or None):
    run() computes the op once; output() returns its result as a numpy
    array.  import_error: None, or why the framework is unavailable."""
    served = None if import_error else Served(setup, version)
    # The replies get stdout to themselves: what a library prints there (Halide
    # prints its warnings to stdout) goes to stderr instead.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, args = words[0], words[1:]
        if cmd == "quit":
            break
        if served is None:
            reply = f"unavailable {import_error}"
        else:
            try:
                handler = {"setup": served.setup, "check": served.check,
                           "run": served.run, "version": served.version}.get(cmd)
                if handler is None:
                    raise ValueError(f"unknown request {cmd}")
                reply = handler(args)
            except Unsupported as e:
                reply = f"unsupported {e}"
            except Exception as e:
                reply = f"error {type(e).__name__}: {e}"
        replies.write(reply.replace("\n", " ") + "\n")
        replies.flush()
    replies.flush()
    # JIT runtimes (Inductor's compile workers, XLA's and Halide's thread
    # pools) can make interpreter shutdown wait forever; nothing is left to
    # flush, so leave at once.
    os._exit(0)


def import_failure(e):
    return f"{type(e).__name__}: {e}".replace("\n", " ")
