#!/usr/bin/python3
"""Checks the Python peers of `make bench` (torch_worker.py eager and inductor,
jax_worker.py, halide_worker.py manual and auto) against FP64 numpy at small
ragged shapes, through the protocol of worker_loop.py, at 1 and 2 threads
(compiling peers: one shape per op, one thread); the bf16 ops on bf16
inputs (rmsnorm_bf16 within one bf16 unit, 2^-7 relative), and a peer that
answers `unsupported` for an op is skipped for it.  Also checks that a worker
answers `unavailable` when its framework cannot be imported, `error` for bad
requests and for a thread count it was not started with.  Run by hand with
the bench's interpreter:
    build-bench/venv/bin/python bench/peers/test_workers.py [PEER...]
Exit 0 when all pass; a peer whose framework is not importable is skipped."""
import importlib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import worker_loop  # noqa: E402

TOL = 5e-5
# peer: (script, mode, the module whose import decides whether to skip,
# compiles (setup replies ok COMPILE_MS), slow (seconds per setup: one shape
# per op, and only two ops at two threads))
PEERS = {"torch": ("torch_worker.py", "eager", "torch", False, False),
         "inductor": ("torch_worker.py", "inductor", "torch", True, True),
         "jax": ("jax_worker.py", "jit", "jax", True, False),
         "halide": ("halide_worker.py", "manual", "halide", True, False),
         "halide-auto": ("halide_worker.py", "auto", "halide", True, True)}

try:
    import numpy as np
except Exception as e:
    print(f"skipped: numpy not importable ({e})")
    sys.exit(0)


def ref(op, dims, ins):
    x = ins[0].astype(np.float64)
    if op == "gemm_bf16":
        return x @ ins[1].astype(np.float64)
    if op == "rmsnorm_bf16":
        return ref("rmsnorm", dims, ins)
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        g = hq // hkv
        k = np.repeat(ins[1].astype(np.float64), g, axis=1)
        v = np.repeat(ins[2].astype(np.float64), g, axis=1)
        s = x @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
        s[..., np.arange(lk)[None, :] > np.arange(lq)[:, None] + lk - lq] = -np.inf
        p = np.exp(s - s.max(-1, keepdims=True))
        return (p / p.sum(-1, keepdims=True)) @ v
    r, w = dims
    if op in ("softmax", "masked_softmax"):
        valid = np.ones((r, w), bool)
        if op == "masked_softmax":
            valid = np.arange(w)[None, :] <= (np.arange(r) % w)[:, None]
        s = np.where(valid, x, -1e30)
        e = np.where(valid, np.exp(s - s.max(-1, keepdims=True)), 0.0)
        return e / e.sum(-1, keepdims=True)
    if op == "layernorm":
        c = x - x.mean(-1, keepdims=True)
        return c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5) * ins[1] + ins[2]
    if op == "rmsnorm":
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * ins[1]
    if op == "gelu":
        return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))) + ins[1]
    if op == "swiglu":
        return x / (1 + np.exp(-x)) * ins[1]
    if op == "rope":
        h = w // 2
        c, s = ins[1].astype(np.float64), ins[2].astype(np.float64)
        return np.concatenate([x[:, :h] * c - x[:, h:] * s, x[:, :h] * s + x[:, h:] * c], -1)
    raise ValueError(op)



class Proc:
    def __init__(self, script, mode, threads, env=None):
        argv = [sys.executable, os.path.join(HERE, script), "--mode", mode, "--threads", str(threads)]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.flush()
        return self.p.wait(timeout=30)


CASES = [(op, d) for op in worker_loop.ROW_OPS for d in ((17, 66), (5, 8), (17, 6), (1, 2))]
CASES += [("rmsnorm_bf16", (17, 66)), ("rmsnorm_bf16", (5, 8)), ("gemm_bf16", (17, 19, 13))]
CASES += [("attention", (1, 4, 2, 7, 11, 8, 7)), ("attention", (2, 8, 2, 1, 37, 64, 64)),
          ("attention", (1, 3, 3, 20, 20, 33, 17))]


def check_peer(name, rng, tmp):
    script, mode, module, compiles, slow = PEERS[name]
    try:
        importlib.import_module(module)
    except Exception as e:
        print(f"skipped {name}: {module} not importable ({e})")
        return 0
    failures = 0
    for threads in (1, 2):
        proc = Proc(script, mode, threads)
        r = proc.ask("version")
        print(f"{'ok' if r.startswith('ok ') else 'FAIL'} {name} version -> {r}")
        failures += not r.startswith("ok ")
        cases = CASES if not slow else [(op, d) for op, d in CASES if d in ((17, 66), (1, 4, 2, 7, 11, 8, 7))]
        if slow and threads == 2:
            cases = cases[:2]
        for op, dims in cases:
            ins = [rng.uniform(-3, 3, s).astype("<f4") for s in worker_loop.input_shapes(op, dims)]
            if op in worker_loop.BF16_OPS:  # bf16 numbers: the upper halves
                ins = [(a.view("<u4") & 0xFFFF0000).view("<f4") for a in ins]
            for i, a in enumerate(ins):
                a.tofile(os.path.join(tmp, f"in{i}.f32"))
            dimstr = " ".join(map(str, dims))
            what = f"{name} {op} {dimstr} threads {threads}"
            r1 = proc.ask(f"setup {op} {threads} {tmp} {dimstr}")
            if r1.startswith("unsupported "):
                print(f"skipped {what}: {r1}")
                continue
            set_up = r1 == "ok" if not compiles else r1.startswith("ok ") and float(r1.split()[1]) > 0
            out = os.path.join(tmp, "out.f32")
            r2 = proc.ask(f"check {out}") if set_up else "-"
            r3 = proc.ask("run 3") if r2 == "ok" else "-"
            if not set_up or r2 != "ok" or not r3.startswith("ok ") or float(r3.split()[1]) <= 0:
                print(f"FAIL {what}: {r1} / {r2} / {r3}")
                failures += 1
                continue
            want = ref(op, dims, ins).reshape(-1)
            got = np.fromfile(out, dtype="<f4").astype(np.float64)
            err = np.abs(got - want) if got.size == want.size else np.array([np.inf])
            rtol = 2.0 ** -7 if op == "rmsnorm_bf16" else TOL
            ok = bool(np.all(err <= TOL + rtol * np.abs(want[:err.size])))
            print(f"{'ok' if ok else 'FAIL'} {what} max_abs_err {err.max():.3g}")
            failures += not ok
        # bad requests are errors, and the worker keeps serving
        for bad in ("setup nosuchop 1 /tmp 3 4", f"setup softmax {threads} {tmp} 3",
                    f"setup softmax {3 - threads} {tmp} 3 4", "frobnicate",
                    f"setup rope {threads} /nonexistent 2 4"):
            r = proc.ask(bad)
            print(f"{'ok' if r.startswith('error ') else 'FAIL'} {name} '{bad}' -> {r[:70]}")
            failures += not r.startswith("error ")
        rc = proc.close()
        if rc != 0:
            print(f"FAIL {name} worker exit status {rc}")
            failures += 1

    # the framework not importable: a module of its name that raises
    with tempfile.TemporaryDirectory() as fake:
        with open(os.path.join(fake, f"{module}.py"), "w") as f:
            f.write(f"raise ImportError('no {module} here')\n")
        u = Proc(script, mode, 1, dict(os.environ, PYTHONPATH=fake))
        r = u.ask("setup softmax 1 /tmp 2 2")
        ok = r.startswith("unavailable ") and f"no {module} here" in r and u.close() == 0
        print(f"{'ok' if ok else 'FAIL'} {name} unavailable path -> {r}")
        failures += not ok
    return failures


def main():
    names = sys.argv[1:] or list(PEERS)
    unknown = [n for n in names if n not in PEERS]
    if unknown:
        sys.exit(f"unknown peer {unknown[0]}; choose from {' '.join(PEERS)}")
    rng = np.random.default_rng(7)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            failures += check_peer(name, rng, tmp)
    print("workers:", "all passed" if not failures else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
