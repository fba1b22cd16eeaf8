"""The Python package against NumPy (run by `make test` through
tests/cli/python.sh; by hand: PYTHONPATH=python python3 -m pytest python/tests).

Every f32 example at its default shape and at a second one, at 1 and 2
threads, against an FP64 NumPy formula of the example's header comment (the
list is checked against examples/*.tir; rmsnorm_bf16 and gemm_bf16, whose
NumPy dtype needs ml_dtypes, and gemm_int8, not an f32 kernel, are left
out); argument
checking (dtype, shape, contiguity, writability, missing and unknown
arguments); outputs allocated or written in place, including over an input
(in-place softmax); options by name; errors as TilecError with the code and
the caret; the GIL released during dispatch (two threads run at once); f16
arrays; arrays of other libraries through DLPack and the buffer protocol,
without copies."""
import json
import math
import os
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

import tilec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")
TOL = 5e-5


def softmax(s, valid=None):
    if valid is not None:
        s = np.where(valid, s, -1e30)
    e = np.exp(s - s.max(-1, keepdims=True))
    if valid is not None:
        e = np.where(valid, e, 0.0)
    return e / e.sum(-1, keepdims=True)


def attention(q, k, v, causal=True):
    b, hq, lq, d = q.shape
    hkv, lk = k.shape[1], k.shape[2]
    g = hq // hkv
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    valid = np.ones((lq, lk), bool)
    if causal:
        valid = np.arange(lk)[None, :] <= np.arange(lq)[:, None] + lk - lq
    return softmax(s, np.broadcast_to(valid, s.shape)) @ v


def gelu(x, u):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))) + u


def rope(x, c, s):
    h = x.shape[1] // 2
    return np.concatenate([x[:, :h] * c - x[:, h:] * s, x[:, :h] * s + x[:, h:] * c], -1)


def gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def rope_table(x):
    h = x.shape[1] // 2
    theta = np.arange(x.shape[0])[:, None] * 10000.0 ** (-np.arange(h)[None, :] / h)
    c, s = np.cos(theta), np.sin(theta)
    return np.concatenate([x[:, :h] * c - x[:, h:] * s, x[:, :h] * s + x[:, h:] * c], -1)


def rope_interleaved(x, c, s):
    y = np.empty_like(x)
    y[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * s
    y[:, 1::2] = x[:, 0::2] * s + x[:, 1::2] * c
    return y


def layernorm(x, g, b):
    c = x - x.mean(-1, keepdims=True)
    return c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5) * g + b


def gqa(q, k, v):
    b, hkv, g, lq, d = q.shape
    o = attention(q.reshape(b, hkv * g, lq, d), k, v)
    return o.reshape(b, hkv, g, lq, -1)


# example: (reference of the inputs in parameter order, a second shape)
EXAMPLES = {
    "softmax": (lambda x: softmax(x), {"R": 33, "W": 130}),
    "masked_softmax": (lambda x: softmax(x, np.arange(x.shape[1])[None, :] <=
                                          (np.arange(x.shape[0]) % x.shape[1])[:, None]), {"R": 9, "W": 40}),
    "layernorm": (layernorm, {"R": 5, "W": 300}),
    "rmsnorm": (lambda x, g: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * g, {"R": 40, "W": 17}),
    "gelu": (gelu, {"R": 3, "W": 1000}),
    "swiglu": (lambda x, u: x / (1 + np.exp(-x)) * u, {"R": 64, "W": 64}),
    "rope": (rope, {"R": 7, "W": 64}),
    "gelu_erf": (gelu_erf, {"R": 4, "W": 333}),
    "rope_table": (rope_table, {"R": 30, "W": 128}),
    "rope_interleaved": (rope_interleaved, {"R": 9, "W": 70}),
    "transpose": (lambda x: x.T, {"M": 65, "N": 3, "B": 8}),
    "gemm": (lambda a, b: a @ b, {"M": 33, "N": 17, "K": 50}),
    "gemm_bt": (lambda a, b: a @ b.T, {"M": 16, "N": 40, "K": 9}),
    "bmm": (lambda a, b: a @ b, {"BATCH": 2, "M": 8, "N": 16, "K": 32}),
    "attention": (attention, {"B": 1, "Hq": 4, "Hkv": 1, "Lq": 6, "Lk": 20, "D": 16, "Dv": 8}),
    "attention_gqa": (gqa, {"B": 1, "Hq": 6, "Hkv": 2, "Lq": 4, "Lk": 9, "D": 8, "Dv": 16}),
}


def test_every_f32_example_is_listed():
    names = {f[:-4] for f in os.listdir(EX) if f.endswith(".tir")}
    assert names - set(EXAMPLES) == {"rmsnorm_bf16", "gemm_bf16", "gemm_int8"}


def inputs(kernel, rng):
    return [rng.uniform(-1, 1, p.shape).astype(p.dtype) for p in kernel.params if p.read_only]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", ["default", "second"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example(name, shape, threads):
    ref, second = EXAMPLES[name]
    k = tilec.compile(os.path.join(EX, name + ".tir"), threads=threads, **(second if shape == "second" else {}))
    assert k.workers == threads
    rng = np.random.default_rng(len(name) * 31 + threads)
    xs = inputs(k, rng)
    y = k(*xs)
    want = ref(*[x.astype(np.float64) for x in xs])
    assert y.shape == want.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, want, rtol=TOL, atol=TOL)


def test_in_place_and_named():
    k = tilec.compile(os.path.join(EX, "softmax.tir"), R=8, W=33)
    x = np.random.default_rng(1).standard_normal((8, 33)).astype(np.float32)
    want = softmax(x.astype(np.float64))
    y = np.full_like(x, np.nan)
    assert k(x, y) is y
    np.testing.assert_allclose(y, want, rtol=TOL, atol=TOL)
    assert k(X=x, Y=y) is y
    assert k(x, x) is x  # over the input: the kernel allows Y to alias X
    np.testing.assert_allclose(x, want, rtol=TOL, atol=TOL)


AXPB = """kernel @axpb<N=64>(%a: f32, %X: const view<f32>[X.0=N], %k: i32, %Y: view<f32>[Y.0=N]) {
  parallel (%i: i=N) {
    %x = load %X[%i]
    %ax = mul %a, %x
    %kf = cast %k to f32
    %y = add %ax, %kf
    store %Y[%i], %y
  }
}
"""


def test_scalar_parameters():
    k = tilec.compile(AXPB, N=100)
    assert [(p.name, p.shape, p.read_only) for p in k.params][:3] == [("a", (1,), True), ("X", (100,), True),
                                                                    ("k", (1,), True)]
    x = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(k(2.5, x, -3), 2.5 * x - 3)
    np.testing.assert_array_equal(k(np.float32(0.5), x, np.int32(7)), 0.5 * x + 7)
    np.testing.assert_array_equal(k(a=np.array([4], np.float32), X=x, k=0), 4 * x)
    with pytest.raises(ValueError, match=r"'k' \(i32\) takes an integer in \[-2147483648, 2147483647\]"):
        k(1.0, x, 2 ** 40)
    with pytest.raises(TypeError, match=r"'k' \(i32\) takes an integer \(or a numpy.ndarray\), not float"):
        k(1.0, x, 1.5)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        k(1.0, 3.0, 1)  # X is not a scalar parameter


def test_half_precision():
    """f16 arrays in and out (np.float16), computed in f32 inside the kernel."""
    src = """kernel @h<N=37>(%X: const view<f16>[X.0=N], %Y: view<f16>[Y.0=N]) {
  parallel (%i: i=N) {
    %x = load %X[%i]
    %f = cast %x to f32
    %three = const f32 3.0
    %y = mul %f, %three
    %h = cast %y to f16
    store %Y[%i], %h
  }
}"""
    k = tilec.compile(src)
    assert k.params[0].dtype == np.float16 and k.params[1].dtype == np.float16
    x = (np.arange(37, dtype=np.float32) / 7 - 2).astype(np.float16)
    np.testing.assert_array_equal(k(x), (x.astype(np.float32) * 3).astype(np.float16))
    with pytest.raises(TypeError, match="float16"):
        k(x.astype(np.float32))


def test_argument_errors():
    k = tilec.compile(os.path.join(EX, "rmsnorm.tir"), R=4, W=8)
    x, g = np.ones((4, 8), np.float32), np.ones((1, 8), np.float32)
    with pytest.raises(TypeError, match="dtype float64"):
        k(x.astype(np.float64), g)
    with pytest.raises(ValueError, match=r"shape \(4, 9\)"):
        k(np.ones((4, 9), np.float32), g)
    with pytest.raises(ValueError, match="not C-contiguous"):
        k(np.ones((8, 4), np.float32).T, g)
    with pytest.raises(TypeError, match="missing input 'G'"):
        k(x)
    with pytest.raises(TypeError, match="no parameter named 'Z'"):
        k(x, g, Z=x)
    with pytest.raises(TypeError, match="given twice"):
        k(x, g, X=x)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        k([[1.0] * 8] * 4, g)
    out = np.ones((4, 8), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        k(x, g, out)


def test_errors_carry_code_location_and_caret():
    with pytest.raises(tilec.TilecError) as e:
        tilec.compile("kernel @k(%X: view<f32>[X.0=4]) {\n  %y = frob %X\n}\n")
    assert e.value.code == "TIR-P02"
    assert e.value.diagnostics[0]["line"] == 2 and e.value.diagnostics[0]["column"] == 8
    assert str(e.value).splitlines() == ["<string>:2:8: error[TIR-P02]: unknown operation 'frob'",
                                         " 2 |   %y = frob %X", "   |        ^"]
    with pytest.raises(tilec.TilecError) as e:
        tilec.compile(os.path.join(EX, "softmax.tir"), NOPE=3)
    assert e.value.code == "TIR-P11"
    with pytest.raises(tilec.TilecError) as e:
        tilec.compile(os.path.join(EX, "softmax.tir"), options={"fuse": "sometimes"})
    assert e.value.code == "TILEC-O01" and "auto, on or off" in str(e.value)
    with pytest.raises(tilec.TilecError, match="unknown compile option 'speed'"):
        tilec.compile(os.path.join(EX, "softmax.tir"), options={"speed": 11})
    with pytest.raises(FileNotFoundError):
        tilec.compile(os.path.join(EX, "no_such.tir"))


def test_cuda_target_without_a_driver(monkeypatch):
    # the CUDA target by name (docs/gpu.md): no driver is a TilecError, never a crash
    monkeypatch.setenv("TILEC_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
    with pytest.raises(tilec.TilecError) as e:
        tilec.compile(os.path.join(EX, "softmax.tir"), options={"target": "cuda", "gpu_arch": "sm_80"})
    assert e.value.code == "GPU-D01" and "no CUDA driver" in str(e.value)
    with pytest.raises(tilec.TilecError, match="cpu or cuda"):
        tilec.compile(os.path.join(EX, "softmax.tir"), options={"target": "tpu"})
    assert tilec.compile(os.path.join(EX, "softmax.tir"), options={"target": "cpu"}).width >= 1


def test_options_and_metadata():
    k = tilec.compile(os.path.join(EX, "softmax.tir"), R=64, W=64, threads=1, width=4,
                      options={"fuse": "off", "local_lanes": 1, "stores": "cached"})
    assert k.width == 4 and k.workers == 1
    assert "W=4" in k.realization and k.metadata["W"] == 4
    assert "fused" not in k.realization.split("plan=")[1].split(";")[0]
    assert "planner=exact" in k.plan and k.backend
    assert tilec.version() == tilec.__version__
    assert [(p.name, p.read_only) for p in k.params] == [("X", True), ("Y", False)]
    # the option table: every name options= takes, what it reads
    table = tilec.compile_options()
    assert table["pack"][0] == "auto, on or off" and table["order"][0] == "comma-separated unsigned integers"
    assert "cost.l2_line" in table and "threads" in table and "runtime" not in table
    # lists and cost coefficients by name, read by the one option table
    k = tilec.compile(os.path.join(EX, "softmax.tir"), R=64, W=64, threads=1, width=4,
                      options={"order": [0], "tiles": (1,), "cost.block_dispatch": 64.0, "search_task_grain": True})
    assert "order[0]" in k.realization
    with pytest.raises(tilec.TilecError, match="comma-separated unsigned integers"):
        tilec.compile(os.path.join(EX, "softmax.tir"), options={"order": [0, -1]})
    with pytest.raises(tilec.TilecError, match="'cost.block_dispatch': 'fast' is not a number"):
        tilec.compile(os.path.join(EX, "softmax.tir"), options={"cost.block_dispatch": "fast"})


def test_compile_cache():
    """Compiling the same kernel twice: the second is an in-memory cache hit
    (no LLVM run) and computes the same.  The first may come from the disk
    cache (docs/cli.md), which an earlier run of the suite filled."""
    path = os.path.join(EX, "layernorm.tir")
    a = tilec.compile(path, R=7, W=123, threads=1)
    b = tilec.compile(path, R=7, W=123, threads=1)
    assert a.metadata["cache"] in ("miss", "hit", "disk") and b.metadata["cache"] == "hit"
    assert b.metadata["optimize_ms"] == 0 and b.metadata["jit_ms"] == 0
    rng = np.random.default_rng(5)
    xs = inputs(a, rng)
    np.testing.assert_array_equal(a(*xs), b(*xs))
    del a
    np.testing.assert_allclose(b(*xs), layernorm(*[x.astype(np.float64) for x in xs]), rtol=TOL, atol=TOL)


def test_pipeline():
    gemm = os.path.join(EX, "gemm.tir")
    # the modeled plan and lowering are what `tilec plan` and `tilec lower` print
    cli = os.environ.get("TILEC_CLI")
    text = tilec.pipeline(gemm, print_after=("lower", "plan"), stop_after="lower", modeled=True, workers=2)
    assert text.startswith("@gemm: plan for target cpu-thread-pool (W=8, 2 workers")
    assert "\n// dispatch_size=" in text and text.rstrip().endswith("}")
    if cli:
        plan = subprocess.run([cli, "plan", gemm, "--workers", "2"], capture_output=True, text=True, check=True)
        lower = subprocess.run([cli, "lower", gemm, "--workers", "2"], capture_output=True, text=True, check=True)
        assert text == plan.stdout + lower.stdout
    # stopping early prints nothing after; the host's plan as JSON
    assert tilec.pipeline(gemm, print_after="verify", stop_after="verify").startswith("kernel @gemm(")
    plan = json.loads(tilec.pipeline(gemm, print_after="plan", stop_after="plan", json=True, threads=2))
    assert plan["target"]["worker_count"] == 2
    # the code: the JIT's LLVM IR; every stage's check on the XIR engine
    assert "define " in tilec.pipeline(gemm, print_after="emit", threads=1)
    assert tilec.pipeline(gemm, verify_each=True, engine="xir") == ""
    assert tilec.pipeline(gemm, print_after=("plan", "emit"), engine="reference").startswith("kernel @gemm(")
    split = tilec.pipeline(os.path.join(EX, "softmax.tir"), print_after="split", stop_after="split")
    assert split.startswith("// @softmax: not split: ")
    for bad in ({"print_after": "codegen"}, {"stop_after": "run"}, {"engine": "gpu"}, {"workers": -1}):
        with pytest.raises(ValueError):
            tilec.pipeline(gemm, **bad)
    with pytest.raises(tilec.TilecError) as e:
        tilec.pipeline(gemm, stop_after="plan", options={"block_size": 3})
    assert e.value.code.startswith("PLAN-")


def test_explain():
    text = tilec.explain(os.path.join(EX, "softmax.tir"), R=1024, W=4096, threads=2, width=16)
    lines = text.splitlines()
    assert lines[0] == "@softmax: plan for target cpu-thread-pool (W=16, 2 workers, 32 task chunks per worker)"
    assert any(l.startswith("chosen: candidate #") for l in lines)
    assert any(l.startswith("ranked candidates (") for l in lines) and "<- chosen" in text
    assert any(l.startswith("rejected candidates (") for l in lines)
    # the kernel compiled with the same options runs the chosen plan
    k = tilec.compile(os.path.join(EX, "softmax.tir"), R=1024, W=4096, threads=2, width=16)
    chosen = next(l for l in lines if l.startswith("chosen:"))
    assert f"block {k.metadata['block']}," in chosen
    with pytest.raises(tilec.TilecError) as e:
        tilec.explain("kernel @k(%X: view<f32>[X.0=4]) {\n  %y = frob %X\n}\n")
    assert e.value.code == "TIR-P02"
    with pytest.raises(tilec.TilecError, match="no kernel named 'nope'"):
        tilec.explain(os.path.join(EX, "softmax.tir"), kernel="nope")


def test_gil_released_during_dispatch():
    """A thread dispatches a long kernel (a 768³ GEMM, tens of ms) three
    times while the main thread keeps running Python, noting the time at
    each step.  Were the GIL held for the whole call, the main thread would
    stop for a whole dispatch: its steps would not spread across one.  It
    is released, so the main thread steps from a dispatch's start to its
    end."""
    import time
    n = 768
    k = tilec.compile(os.path.join(EX, "gemm.tir"), M=n, N=n, K=n, threads=1)
    a = np.random.default_rng(3).uniform(-1, 1, (n, n)).astype(np.float32)
    result, spans = [None], []

    def work():
        for _ in range(3):
            t0 = time.perf_counter()
            result[0] = k(a, a)
            spans.append((t0, time.perf_counter()))

    t = threading.Thread(target=work)
    steps = []
    t.start()
    while t.is_alive():
        steps.append(time.perf_counter())
    t.join()
    want = a.astype(np.float64) @ a.astype(np.float64)
    np.testing.assert_allclose(result[0], want, rtol=1e-4, atol=1e-3)
    # Inside each dispatch the main thread kept stepping from near its start
    # to near its end: with the GIL held for the call it could step only in
    # the few ms around the call (Python's switch interval), not across the
    # dispatch.  The spread of its steps, not its longest pause, is what is
    # checked: the OS may deschedule it for a while on a busy machine.
    def spread(s0, s1):
        inside = [x for x in steps if s0 < x < s1]
        return (inside[-1] - inside[0]) / (s1 - s0) if len(inside) > 1 else 0.0
    spreads = [spread(s0, s1) for s0, s1 in spans]
    assert min(spreads) > 0.5, f"the main thread stepped across {min(spreads):.0%} of a dispatch: {spreads}"


def test_runtime_sizes():
    """A kernel with a runtime size (docs/tir.md "Runtime sizes"): one
    compile serves every row count; the size comes from the arrays (or a
    keyword where no array gives it), outputs are allocated at it, and
    sizes outside the range or disagreeing with an array are refused."""
    text = open(os.path.join(EX, "softmax.tir")).read().replace("@softmax<R=17,", "@softmax<R: 1..64,")
    k = tilec.compile(text)
    assert k.sizes == {"R": (1, 64)}
    assert [p.shape for p in k.params] == [("R", 65), ("R", 65)]
    assert '"dims": "R:1..64"' in k.json
    rng = np.random.default_rng(3)
    for rows in (1, 2, 17, 64):
        x = rng.standard_normal((rows, 65)).astype(np.float32)
        y = k(x)
        assert y.shape == (rows, 65)
        np.testing.assert_allclose(y, softmax(x.astype(np.float64)), rtol=TOL, atol=TOL)
        out = np.empty_like(x)
        assert k(X=x, Y=out, R=rows) is out
    with pytest.raises(ValueError, match="R=65 is outside its range 1..64"):
        k(np.zeros((65, 65), np.float32))
    with pytest.raises(ValueError, match="runtime size R is 3, but 'Y' has shape"):
        k(np.zeros((3, 65), np.float32), np.zeros((4, 65), np.float32))
    with pytest.raises(TypeError, match="missing input 'X'"):
        k(R=3)
    with pytest.raises(TypeError, match="runtime size R takes an integer"):
        k(np.zeros((3, 65), np.float32), R="3")
    pinned = tilec.compile(text, R=5)
    assert pinned.sizes == {} and pinned.params[0].shape == (5, 65)


class Exported:
    """An array that is no numpy.ndarray and speaks DLPack alone, as a PyTorch
    CPU tensor does: a NumPy array's memory, on the device it says."""

    def __init__(self, a, device=(1, 0)):
        self.a, self.device = a, device

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.device


def test_interop_without_copies():
    k = tilec.compile(os.path.join(EX, "softmax.tir"), R=8, W=33)
    x = np.random.default_rng(2).standard_normal((8, 33)).astype(np.float32)
    want = softmax(x.astype(np.float64))
    # DLPack: read and written in the caller's memory, the caller's object returned
    y = np.full_like(x, np.nan)
    out = Exported(y)
    assert k(Exported(x), out) is out
    np.testing.assert_allclose(y, want, rtol=TOL, atol=TOL)
    # the buffer protocol: a 2-D memoryview in, one over a bytearray out
    ym = memoryview(bytearray(x.nbytes)).cast("B").cast("f", (8, 33))
    assert k(memoryview(x), ym) is ym
    np.testing.assert_allclose(np.asarray(ym), want, rtol=TOL, atol=TOL)
    # an output the call allocates: a numpy.ndarray, or the inputs' type when
    # their library imports DLPack (torch.from_dlpack, jax.numpy.from_dlpack)
    assert isinstance(k(Exported(x)), np.ndarray)
    library = types.ModuleType("arraylib")
    library.from_dlpack = lambda a: ("arraylib", np.from_dlpack(a))
    tensor_type = type("Tensor", (Exported,), {"__module__": "arraylib"})
    sys.modules["arraylib"] = library
    try:
        kind, got = k(tensor_type(x))
    finally:
        del sys.modules["arraylib"]
    assert kind == "arraylib"
    np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)
    # runtime sizes from a DLPack array's shape
    rows = tilec.compile(os.path.join(EX, "dynamic", "softmax_rows.tir"), W=33)
    np.testing.assert_allclose(rows(Exported(x)), want, rtol=TOL, atol=TOL)
    # refused: strides, another device, a type tilec has not, read-only memory out
    with pytest.raises(ValueError, match="not C-contiguous"):
        k(Exported(np.ones((33, 8), np.float32).T))
    with pytest.raises(TypeError, match="CPU memory only"):
        k(Exported(x, device=(2, 0)))
    with pytest.raises(TypeError, match="no tilec scalar"):
        k(Exported(x.astype(np.complex64)))
    with pytest.raises(ValueError, match="read-only"):
        k(x, memoryview(bytes(x.nbytes)).cast("f", (8, 33)))
