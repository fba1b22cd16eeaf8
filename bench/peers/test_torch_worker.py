#!/usr/bin/python3
"""Checks bench/peers/torch_worker.py against FP64 numpy at small ragged shapes,
through its stdin/stdout protocol, at 1 and 2 threads, eager and (one shape per
op, one thread) `--mode inductor`, whose setup replies `ok COMPILE_MS`.  Also
checks that the worker answers `unavailable` when torch cannot be imported,
and `error` for a bad request.  Run by hand with the bench's interpreter:
build-bench/venv/bin/python bench/peers/test_torch_worker.py
Exit 0 when all pass (or when torch/numpy are not importable: skipped)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "torch_worker.py")
TOL = 5e-5

try:
    import numpy as np
    import torch  # noqa: F401  (only to decide whether to skip)
except Exception as e:
    print(f"skipped: torch/numpy not importable ({e})")
    sys.exit(0)


def ref(op, dims, ins):
    x = ins[0].astype(np.float64)
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


def shapes(op, dims):
    if op == "attention":
        b, hq, hkv, lq, lk, d, dv = dims
        return [(b, hq, lq, d), (b, hkv, lk, d), (b, hkv, lk, dv)]
    r, w = dims
    return {"softmax": [(r, w)], "masked_softmax": [(r, w)],
            "layernorm": [(r, w), (w,), (w,)], "rmsnorm": [(r, w), (w,)],
            "gelu": [(r, w), (r, w)], "swiglu": [(r, w), (r, w)],
            "rope": [(r, w), (r, w // 2), (r, w // 2)]}[op]


class Proc:
    def __init__(self, python=sys.executable, env=None, mode=None):
        # this interpreter, as the drivers start the bench's (the worker
        # re-execs /usr/bin/python3 itself when one lacks torch)
        argv = [python, WORKER] + (["--mode", mode] if mode else [])
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL if mode else None, text=True, env=env)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.flush()
        return self.p.wait(timeout=30)


def main():
    rng = np.random.default_rng(7)
    cases = [(op, d) for op in ("softmax", "masked_softmax", "layernorm", "rmsnorm",
                                "gelu", "swiglu", "rope")
             for d in ((17, 66), (5, 8), (17, 6), (1, 2))]
    cases += [("attention", (1, 4, 2, 7, 11, 8, 7)), ("attention", (2, 8, 2, 1, 37, 64, 64)),
              ("attention", (1, 3, 3, 20, 20, 33, 17))]
    failures = 0
    w = Proc()
    r = w.ask("version")
    print(f"{'ok' if r == 'ok ' + torch.__version__ else 'FAIL'} version -> {r}")
    failures += r != "ok " + torch.__version__
    compiled = Proc(mode="inductor")
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(w, "torch", threads, op, dims) for threads in (1, 2) for op, dims in cases]
        runs += [(compiled, "inductor", 1, op, dims) for op, dims in cases if dims in ((17, 66), (1, 4, 2, 7, 11, 8, 7))]
        for proc, name, threads, op, dims in runs:
            ins = [rng.uniform(-3, 3, s).astype("<f4") for s in shapes(op, dims)]
            for i, a in enumerate(ins):
                a.tofile(os.path.join(tmp, f"in{i}.f32"))
            dimstr = " ".join(map(str, dims))
            what = f"{name} {op} {dimstr} threads {threads}"
            r1 = proc.ask(f"setup {op} {threads} {tmp} {dimstr}")
            set_up = r1 == "ok" if name == "torch" else r1.startswith("ok ") and float(r1.split()[1]) > 0
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
            ok = bool(np.all(err <= TOL + TOL * np.abs(want[:err.size])))
            print(f"{'ok' if ok else 'FAIL'} {what} max_abs_err {err.max():.3g}")
            failures += not ok
        failures += compiled.close() != 0
        # bad requests are errors, and the worker keeps serving
        for bad in ("setup nosuchop 1 /tmp 3 4", f"setup softmax 1 {tmp} 3",
                    "frobnicate", "setup rope 1 /nonexistent 2 4"):
            r = w.ask(bad)
            print(f"{'ok' if r.startswith('error ') else 'FAIL'} '{bad}' -> {r[:70]}")
            failures += not r.startswith("error ")
        rc = w.close()
        if rc != 0:
            print(f"FAIL worker exit status {rc}")
            failures += 1

    # torch not importable: a torch.py that raises, and no re-exec
    with tempfile.TemporaryDirectory() as fake:
        with open(os.path.join(fake, "torch.py"), "w") as f:
            f.write("raise ImportError('no torch here')\n")
        env = dict(os.environ, PYTHONPATH=fake, TILEC_TORCH_REEXEC="1")
        u = Proc(sys.executable, env)
        r = u.ask("setup softmax 1 /tmp 2 2")
        ok = r.startswith("unavailable ") and "no torch here" in r and u.close() == 0
        print(f"{'ok' if ok else 'FAIL'} unavailable path -> {r}")
        failures += not ok

    print("torch worker:", "all passed" if not failures else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
