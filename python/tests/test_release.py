"""A kernel's lifetime from Python: released by close(), `with`, an explicit
__del__() or the garbage collector — in any order relative to the shared
compile context, also at interpreter exit — and a released kernel refuses to
run instead of touching freed memory; a kernel used in forked workers."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tilec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOFTMAX = os.path.join(ROOT, "examples", "softmax.tir")


def run_python(script, timeout=None):
    """script in a fresh interpreter loading the same package and library:
    its exit status, stderr and stdout (subprocess.TimeoutExpired after
    `timeout` seconds)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(tilec.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stderr, r.stdout


def test_module_level_kernels_at_exit():
    """Two kernels at module level and a function referring to them: at exit
    the module's dict is a cycle (f.__globals__), so the garbage collector
    finalizes the kernels and the shared context in any order; the context
    must go last.  Once the context went between the two and the process
    died with SIGSEGV."""
    rc, err, _ = run_python(f"""
import tilec
a = tilec.compile({SOFTMAX!r}, threads=1)
b = tilec.compile({SOFTMAX!r}, R=3, threads=1)
def f():
    a, b
""")
    assert (rc, err) == (0, "")


def test_kernels_in_a_collected_cycle_and_at_exit():
    """The same while running: kernels (one dispatched, so it has a dispatch
    context too) in a reference cycle collected by gc.collect(), then more
    left for exit, still referenced from a cycle."""
    rc, err, _ = run_python(f"""
import gc, numpy as np, tilec
ks = [tilec.compile({SOFTMAX!r}, R=2, W=8, threads=1) for _ in range(3)]
ks[0](np.ones((2, 8), np.float32))
ks.append(ks)
del ks
gc.collect()
keep = [tilec.compile({SOFTMAX!r}, R=R, W=8, threads=2) for R in (1, 2, 3)]
keep[1](np.ones((2, 8), np.float32))
keep.append(keep)
def f():
    keep
""")
    assert (rc, err) == (0, "")


def test_kernel_usable_in_an_atexit_handler():
    """Nothing is destroyed at exit (the process's end frees it): a handler
    registered before tilec's finalizers, so running after them, still runs
    a kernel — as may a daemon thread at that point."""
    rc, err, out = run_python(f"""
import atexit
atexit.register(lambda: print(k(np.ones((2, 8), np.float32)).sum()))
import numpy as np, tilec
k = tilec.compile({SOFTMAX!r}, R=2, W=8, threads=2)
""")
    assert (rc, err, out) == (0, "", "2.0\n")


def released(k):
    """Every use of a released kernel raises the same clear error."""
    x = np.ones((2, 8), np.float32)
    uses = [lambda: k(x), lambda: k.realization, lambda: k.json, lambda: k.metadata, lambda: k.plan,
            lambda: k.backend, lambda: k.width, lambda: k.workers, lambda: k.__enter__()]
    for use in uses:
        with pytest.raises(ValueError, match="kernel softmax was released"):
            use()
    assert "released" in repr(k) and k.name == "softmax" and len(k.params) == 2  # what it was stays readable


def test_explicit_del_then_use():
    k = tilec.compile(SOFTMAX, R=2, W=8, threads=1)
    k.__del__()
    k.__del__()  # twice: harmless
    released(k)


def test_close_and_with():
    k = tilec.compile(SOFTMAX, R=2, W=8, threads=1)
    x = np.ones((2, 8), np.float32)
    np.testing.assert_allclose(k(x), np.full((2, 8), 1 / 8), rtol=1e-6)
    k.close()
    k.close()
    released(k)
    with tilec.compile(SOFTMAX, R=2, W=8, threads=1) as k:
        np.testing.assert_allclose(k(x), np.full((2, 8), 1 / 8), rtol=1e-6)
    released(k)
    # the shared context outlives released kernels: compiling again works, from its cache
    assert tilec.compile(SOFTMAX, R=2, W=8, threads=1).metadata["cache"] == "hit"


def test_kernel_in_forked_workers():
    """multiprocessing's default start method on Linux forks: the children of
    a process whose 2-worker kernel has run dispatch it too (the runtime
    starts its workers again in the child) and get the parent's results.
    Once the first dispatch in a child waited forever for workers that fork
    does not copy; the timeout turns that into a failure."""
    rc, err, out = run_python(f"""
import multiprocessing as mp, numpy as np, tilec
k = tilec.compile({SOFTMAX!r}, threads=2)
X = np.random.default_rng(7).random((17, 65), dtype=np.float32)
ref = k(X=X)
def work(i):
    return float(np.abs(k(X=X * 1) - ref).max())
if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as p:
        print(p.map(work, range(4)))
""", timeout=120)
    assert (rc, err, out) == (0, "", "[0.0, 0.0, 0.0, 0.0]\n")
