"""tilec.Module (docs/modules.md) from Python: two kernels over a runtime
size run as one module give y = x·w + x exactly; a module size plus an
offset reaches a kernel; the build errors name the step and the call's
errors leave the module usable; a module compiles ahead of time."""
import numpy as np
import pytest

import tilec

SOURCE = """kernel @{op}<T: 1..64, N=8>(%A: const view<f32>[A.0=T, A.1=N], %B: const view<f32>[B.0=T, B.1=N],
    %Y: view<f32>[Y.0=T, Y.1=N]) {{
  parallel (%t: t=T) {{
    %c0 = const index 0
    %a = load %A[%t, %c0] tile [m=1, n=N]
    %b = load %B[%t, %c0] tile [m=1, n=N]
    %y = {op} %a, %b
    store %Y[%t, %c0] tile [m=1, n=N], %y
  }}
}}
"""
MUL = tilec.compile(SOURCE.format(op="mul"), threads=2)
ADD = tilec.compile(SOURCE.format(op="add"), threads=2)
W = (np.arange(64 * 8, dtype=np.float32).reshape(64, 8) % 7) - 3


def axpx():
    m = tilec.Module("axpx", T=(1, 64))
    x, y = m.input("x", np.float32), m.output("y", np.float32)
    w, t = m.constant("w", W), m.temporary("t", np.float32)
    return m, x, y, w, t


def test_module_runs_the_steps():
    m, x, y, w, t = axpx()
    m.step(MUL, x, w, t).step(ADD, t, x, y, T="T").finish()
    assert m.arena_bytes == 64 * 8 * 4 and m.arg_bytes(1, T=5) == 5 * 8 * 4
    m.time_steps()
    for rows in (1, 5, 64):
        xs = np.random.default_rng(rows).standard_normal((rows, 8)).astype(np.float32)
        ys = np.zeros((rows, 8), np.float32)
        m(xs, ys, T=rows)
        np.testing.assert_array_equal(ys, xs * W[:rows] + xs)
    times = m.step_times()
    assert [name for name, _ in times] == ["mul", "add"] and all(t > 0 for _, t in times)


def test_module_size_offsets():
    m = tilec.Module("shifted", P=(1, 63))
    x, y = m.input("x", np.float32), m.output("y", np.float32)
    m.step(ADD, x, x, y, T="P+1").finish()
    xs = np.ones((4, 8), np.float32)
    ys = np.zeros((4, 8), np.float32)
    m(xs, ys, P=3)
    assert (ys == 2).all()
    with pytest.raises(tilec.TilecError) as e:  # P+1 = 5 rows, 4 given
        m(xs[:3], ys[:3], P=4)
    assert e.value.code == "RT-D04" and e.value.diagnostics[-1]["code"] == "MOD-R05"
    m(xs, ys, P=3)  # usable after the failure


def test_module_build_errors_name_the_step():
    m, x, y, w, t = axpx()
    with pytest.raises(tilec.TilecError) as e:
        m.step(MUL, x, w)
    assert e.value.code == "MOD-B08" and "step 1 (mul)" in str(e.value)
    m.step(ADD, t, x, y)  # reads t, which no step wrote before it
    m.step(MUL, x, w, t)
    with pytest.raises(tilec.TilecError) as e:
        m.finish()
    assert e.value.code == "MOD-B10" and "temporary t" in str(e.value)
    with pytest.raises(ValueError, match="none of the module's sizes"):
        m.step(MUL, x, w, t, T="U")
    with pytest.raises(TypeError, match="takes 2 arrays"):
        m(np.zeros((1, 8), np.float32))


def test_module_and_kernel_lifetimes():
    """A kernel a live module runs refuses to close (its code would be freed
    under the module); a closed module refuses to run; then the kernel closes."""
    kernel = tilec.compile(SOURCE.format(op="add"), threads=1)
    m = tilec.Module("alive", T=(1, 64))
    x, y = m.input("x", np.float32), m.output("y", np.float32)
    m.step(kernel, x, x, y).finish()
    with pytest.raises(ValueError, match="step of module alive"):
        kernel.close()
    xs = np.ones((2, 8), np.float32)
    ys = np.zeros((2, 8), np.float32)
    m(xs, ys, T=2)
    assert (ys == 2).all()
    m.close()
    m.close()  # again: harmless
    with pytest.raises(ValueError, match="released"):
        m(xs, ys, T=2)
    kernel.close()


def test_module_compiled_ahead_of_time():
    # an object and its header (tests/cli/aot_module.sh links and runs such objects)
    m, x, y, w, t = axpx()
    m.step(MUL, x, w, t).step(ADD, t, x, y)
    with pytest.raises(tilec.TilecError, match="MOD-A01"):
        m.compile_aot()
    m.finish()
    obj, header = m.compile_aot(cpu="x86-64-v3", symbol="axpx_v3")
    assert obj[:4] == b"\x7fELF" and w.array is not None
    assert "tilec_status axpx_v3_create(tilec_context *ctx, tilec_aot_module **out);" in header
    assert "target x86-64-v3" in header
    with pytest.raises(tilec.TilecError, match="TILEC-AOT01"):
        m.compile_aot(symbol="2fast")
