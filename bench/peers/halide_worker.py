#!/usr/bin/python3
"""The Halide peers of `make bench`: each op as Halide Funcs over the inputs
(numpy arrays shared with hl.Buffer, no copies), JIT-compiled for the host
at setup (outside the timing; setup replies `ok COMPILE_MS`), a coprocess of
the family drivers speaking the protocol of worker_loop.py.

--mode manual: the schedules below, written in the style of Halide's own
apps: rows split into parallel tasks, 16-wide vectors (one AVX-512 register),
per-row reductions computed at the row and vectorized through rfactor,
elementwise stages inlined into their consumer.  Two algorithmic choices an
experienced Halide user makes: GELU's 0.5·x·(1 + tanh y) is written as the
identical x / (1 + exp(−2y)) (hl.tanh is not vectorized: 69 against 1.4 ms
for exp on 4M elements, one thread), and RoPE's two output halves are two
unrolled iterations of a (half, i) loop instead of a select per element.
Attention stages K transposed per KV head so the score loop is vectorized
over keys (prefill) or reduces over d with rfactor (decode, one query row).

--mode auto: the same algorithms without a schedule, scheduled by each of
the wheel's CPU autoschedulers (Adams2019 with its built-in weights,
Mullapudi2016, Li2018) with parallelism = THREADS and the real sizes as
estimates; the one whose pipeline runs fastest (best of three runs each, at
setup) is the peer.  No single one wins every row: on 1024×4096, one
thread, softmax 15.0 / 9.4 / 10.6 ms, layernorm 8.4 / 8.1 / 6.1 ms, swiglu
2.8 / 3.3 / 5.0 ms.

Threads: HL_NUM_THREADS, set before Halide's runtime starts its pool.
"""
import os
import time

import worker_loop

MODE, THREADS = worker_loop.parse_argv(("manual", "auto"))
os.environ["HL_NUM_THREADS"] = str(THREADS)
try:
    import halide as hl
    IMPORT_ERROR = None
except Exception as e:  # ImportError, or a broken install
    IMPORT_ERROR = worker_loop.import_failure(e)
EPS = worker_loop.EPS
VEC = 16  # f32 lanes of an AVX-512 vector


def row_sum(name, expr_of, k, r):
    """f[r] = Σ_k expr_of(k.x)."""
    f = hl.Func(name)
    f[r] = hl.f32(0)
    f[r] += expr_of(k.x)
    return f


def schedule_row_reduction(f, k, out, r, width):
    """Computes f (a reduction over the RDom k) at out's row r, VEC lanes at
    a time (rfactor), the lanes combined once at the end."""
    f.compute_at(out, r)
    if width < 2 * VEC:
        return
    ko, ki = hl.RVar("ko"), hl.RVar("ki")
    u = hl.Var("u")
    f.update(0).split(k.x, ko, ki, VEC, hl.TailStrategy.GuardWithIf)
    intm = f.update(0).rfactor(ki, u)
    intm.compute_at(out, r).vectorize(u)
    intm.update(0).vectorize(u)


class RowOp:
    """A row op's algorithm: out[c, r] over inputs as hl.Buffers (dimension
    0 is the column, as numpy's last axis)."""

    def __init__(self, op, dims, arrays):
        self.rows, self.width = dims
        self.c, self.r = hl.Var("c"), hl.Var("r")
        self.reductions = []      # row reductions to compute at the row
        self.staged = []          # per-element stages to compute at the row
        self.staged_scalars = []  # per-row values to compute at the row
        self.arrays = arrays  # an hl.Buffer does not keep its numpy array alive
        self.ins = [hl.Buffer(a) for a in arrays]
        c, r, w = self.c, self.r, self.width
        k = self.k = hl.RDom([(0, w)])
        x = self.ins[0]
        out = hl.Func("out")
        if op in ("softmax", "masked_softmax"):
            xs = hl.Func("xs")
            if op == "softmax":
                xs[c, r] = x[c, r]
            else:  # valid: c <= r % w; invalid scores -1e30 (exp underflows to 0)
                xs[c, r] = hl.select(c <= r % w, x[c, r], hl.f32(-1.0e30))
            mx = hl.Func("mx")
            mx[r] = hl.f32(float("-inf"))
            mx[r] = hl.max(mx[r], xs[k.x, r])
            e = hl.Func("e")
            e[c, r] = hl.exp(xs[c, r] - mx[r])
            s = row_sum("s", lambda j: e[j, r], k, r)
            out[c, r] = e[c, r] / s[r]
            self.reductions = [mx, s]
            self.staged = [e]
        elif op == "layernorm":
            g, b = self.ins[1], self.ins[2]
            mean = hl.Func("mean")
            total = row_sum("total", lambda j: x[j, r], k, r)
            mean[r] = total[r] / w
            var = row_sum("var", lambda j: (x[j, r] - mean[r]) * (x[j, r] - mean[r]), k, r)
            out[c, r] = (x[c, r] - mean[r]) * (1.0 / hl.sqrt(var[r] / w + hl.f32(EPS))) * g[c] + b[c]
            self.reductions = [total, var]
            self.staged_scalars = [mean]
        elif op == "rmsnorm":
            g = self.ins[1]
            ss = row_sum("ss", lambda j: x[j, r] * x[j, r], k, r)
            out[c, r] = x[c, r] * (1.0 / hl.sqrt(ss[r] / w + hl.f32(EPS))) * g[c]
            self.reductions = [ss]
        elif op == "gelu":
            u = self.ins[1]
            y = hl.f32(0.7978845608) * (x[c, r] + hl.f32(0.044715) * x[c, r] * x[c, r] * x[c, r])
            # 0.5·x·(1 + tanh y) = x / (1 + exp(−2y))
            out[c, r] = x[c, r] / (1.0 + hl.exp(-2.0 * y)) + u[c, r]
        elif op == "swiglu":
            u = self.ins[1]
            out[c, r] = x[c, r] / (1.0 + hl.exp(-x[c, r])) * u[c, r]
        elif op == "rope":
            h = w // 2
            cs, sn = self.ins[1], self.ins[2]
            i, half = hl.Var("i"), hl.Var("half")
            lo, hi = x[i, r], x[i + h, r]
            out3 = hl.Func("out3")
            out3[i, half, r] = hl.select(half == 0, lo * cs[i, r] - hi * sn[i, r], lo * sn[i, r] + hi * cs[i, r])
            self.half = (i, half)
            out = out3
        self.out = out
        self.op = op

    def schedule(self):
        c, r = self.c, self.r
        rows_per_task = max(1, min(8, self.rows // (4 * THREADS)))
        ro, ri = hl.Var("ro"), hl.Var("ri")
        if self.op == "rope":
            i, half = self.half
            o = self.out
            o.bound(half, 0, 2).reorder(i, half, r).split(r, ro, ri, rows_per_task).parallel(ro).unroll(half)
            if self.width // 2 >= VEC:
                o.vectorize(i, VEC, hl.TailStrategy.GuardWithIf)
            return
        o = self.out
        o.split(r, ro, ri, rows_per_task).parallel(ro)
        if self.width >= VEC:
            o.vectorize(c, VEC, hl.TailStrategy.GuardWithIf)
        for f in self.staged:
            f.compute_at(o, ri)
            if self.width >= VEC:
                f.vectorize(c, VEC, hl.TailStrategy.GuardWithIf)
        for f in self.staged_scalars:
            f.compute_at(o, ri)
        for f in self.reductions:
            schedule_row_reduction(f, self.k, o, ri, self.width)

    def realize_into(self, out_array):
        if self.op == "rope":
            h = self.width // 2
            return hl.Buffer(out_array.reshape(self.rows, 2, h))
        return hl.Buffer(out_array)

    def estimates(self):
        if self.op == "rope":
            self.out.set_estimates([(0, self.width // 2), (0, 2), (0, self.rows)])
        else:
            self.out.set_estimates([(0, self.width), (0, self.rows)])


class Attention:
    """Causal grouped-query attention, out[e, i, h, n] (dimension 0 is the
    innermost numpy axis: e over Dv, i over queries, h over query heads, n
    over the batch).  The causal mask bounds the key loops (RDom.where), so
    masked pairs are never computed."""

    def __init__(self, dims, arrays):
        b, hq, hkv, lq, lk, d, dv = self.dims = dims
        self.arrays = arrays  # an hl.Buffer does not keep its numpy array alive
        q, k, v = [hl.Buffer(a) for a in arrays]
        group = hq // hkv
        e, i, j, h, n, t = (hl.Var(x) for x in ("e", "i", "j", "h", "n", "t"))
        self.vars = (e, i, j, h, n, t)
        rd = hl.RDom([(0, d)])
        rj = hl.RDom([(0, lk)])
        rj.where(rj.x <= i + (lk - lq))  # bottom-right causal
        self.rd, self.rj = rd, rj
        kt = hl.Func("kt")  # K transposed per KV head: keys innermost
        kt[j, t, h, n] = k[t, j, h, n]
        s = hl.Func("s")
        if lq > 1:  # inline sums: the accumulator is a register
            s[j, i, h, n] = hl.sum(q[rd.x, i, h, n] * kt[j, rd.x, h // group, n])
        else:
            s[j, i, h, n] = hl.f32(0)
            s[j, i, h, n] += q[rd.x, i, h, n] * k[rd.x, j, h // group, n]
        mx = hl.Func("mx")
        mx[i, h, n] = hl.f32(float("-inf"))
        mx[i, h, n] = hl.max(mx[i, h, n], s[rj.x, i, h, n])
        p = hl.Func("p")
        p[j, i, h, n] = hl.exp((s[j, i, h, n] - mx[i, h, n]) * hl.f32(1.0 / d ** 0.5))
        den = hl.Func("den")
        den[i, h, n] = hl.f32(0)
        den[i, h, n] += p[rj.x, i, h, n]
        acc = hl.Func("acc")
        if lq > 1:
            acc[e, i, h, n] = hl.sum(p[rj.x, i, h, n] * v[e, rj.x, h // group, n])
        else:
            acc[e, i, h, n] = hl.f32(0)
            acc[e, i, h, n] += p[rj.x, i, h, n] * v[e, rj.x, h // group, n]
        out = hl.Func("out")
        out[e, i, h, n] = acc[e, i, h, n] / den[i, h, n]
        self.funcs = dict(kt=kt, s=s, mx=mx, p=p, den=den, acc=acc)
        self.out = out

    def schedule(self):
        b, hq, hkv, lq, lk, d, dv = self.dims
        e, i, j, h, n, t = self.vars
        f, out, rd, rj = self.funcs, self.out, self.rd, self.rj
        group = hq // hkv
        if lq > 1:
            # prefill: K transposed once per KV head; per block of bi query
            # rows, scores vectorized over keys with the d loop innermost (the
            # accumulators stay in registers, bi rows unrolled)
            bi = 4 if lq % 4 == 0 else 1
            io, ii, hn = hl.Var("io"), hl.Var("ii"), hl.Var("hn")
            out.split(i, io, ii, bi).fuse(h, n, hn).parallel(hn).parallel(io)
            if dv >= VEC:
                out.vectorize(e, VEC, hl.TailStrategy.GuardWithIf)
            f["kt"].compute_root().parallel(h).vectorize(j, VEC, hl.TailStrategy.GuardWithIf)
            for name in ("s", "p", "mx", "den", "acc"):
                f[name].compute_at(out, io)
            f["s"].vectorize(j, VEC, hl.TailStrategy.GuardWithIf)
            f["p"].vectorize(j, VEC, hl.TailStrategy.GuardWithIf)
            if dv >= VEC:
                f["acc"].vectorize(e, VEC, hl.TailStrategy.GuardWithIf)
        else:
            # decode: one program per KV head over its group of query heads, so
            # K and V are read once per group; scores reduce over d VEC lanes
            # at a time (atomic vectorized reduction)
            g, hi = hl.Var("g"), hl.Var("hi")
            out.split(h, g, hi, group).fuse(g, n, g).parallel(g)
            if dv >= VEC:
                out.vectorize(e, VEC, hl.TailStrategy.GuardWithIf)
            for name in ("s", "p", "mx", "den", "acc"):
                f[name].compute_at(out, g)
            if d >= VEC:
                f["s"].update(0).reorder(rd.x, h, j).atomic().vectorize(rd.x, VEC)
            f["p"].vectorize(j, VEC, hl.TailStrategy.GuardWithIf)
            if dv >= VEC:
                f["acc"].vectorize(e, VEC, hl.TailStrategy.GuardWithIf)
                f["acc"].update(0).reorder(e, h, rj.x).vectorize(e, VEC, hl.TailStrategy.GuardWithIf)

    def realize_into(self, out_array):
        return hl.Buffer(out_array)

    def estimates(self):
        b, hq, hkv, lq, lk, d, dv = self.dims
        self.out.set_estimates([(0, dv), (0, lq), (0, hq), (0, b)])


AUTOSCHEDULERS = ("Adams2019", "Mullapudi2016", "Li2018")


def compiled(op, dims, arrays, autoscheduler):
    """(run, output) of the op's pipeline, scheduled by hand (autoscheduler
    None) or by the named autoscheduler, JIT-compiled and run once."""
    import numpy as np
    algo = Attention(dims, arrays) if op == "attention" else RowOp(op, dims, arrays)
    out_array = np.empty(worker_loop.output_shape(op, dims), np.float32)
    target = hl.get_jit_target_from_environment()
    pipeline = hl.Pipeline(algo.out)
    if autoscheduler is None:
        algo.schedule()
    else:
        algo.estimates()
        pipeline.apply_autoscheduler(target, hl.AutoschedulerParams(autoscheduler, {"parallelism": str(THREADS)}))
    pipeline.compile_jit(target)
    out_buf = algo.realize_into(out_array)
    pipeline.realize(out_buf)  # the first run finishes the JIT, outside the timing
    algo.out_array = out_array  # kept alive with its hl.Buffer
    return (lambda: pipeline.realize(out_buf)), (lambda: algo.out_array)


def setup(args):
    op, dims, arrays = worker_loop.parse_setup(args, THREADS)
    if op in worker_loop.BF16_OPS:
        raise worker_loop.Unsupported(f"{op}: no Halide pipeline or schedule is written for the bf16 ops")
    t0 = time.perf_counter()
    if MODE == "manual":
        run, output = compiled(op, dims, arrays, None)
    else:
        load_autoschedulers()
        best = None
        for name in AUTOSCHEDULERS:
            run, output = compiled(op, dims, arrays, name)
            us = min(float(worker_loop.timed(run, 1).split()[1]) for _ in range(3))
            if best is None or us < best[0]:
                best = (us, run, output)
        run, output = best[1], best[2]
    return run, output, (time.perf_counter() - t0) * 1e3


def load_autoschedulers():
    if not hasattr(load_autoschedulers, "done"):
        lib = os.path.join(os.path.dirname(hl.__file__), "lib64")
        for name in AUTOSCHEDULERS:
            hl.load_plugin(os.path.join(lib, f"libautoschedule_{name.lower()}.so"))
        load_autoschedulers.done = True


def version():
    v = getattr(hl, "__version__", None)
    if v is None:
        from importlib.metadata import version as dist_version
        v = dist_version("halide")
    return f"halide {v}, {MODE} schedule, target {hl.get_jit_target_from_environment()}"


if __name__ == "__main__":
    worker_loop.serve(setup, version, IMPORT_ERROR)
