"""Values from Python are taken exactly or refused, never wrapped, truncated
or parsed: shape parameters are 64-bit integers (as `tilec -D`);
a scalar parameter takes a number of its kind that its type holds — an
integer type only integers in its range, a float type real numbers that stay
finite (inf and nan as given), bool True/False/0/1 (as `tilec run --arg`).
Every refusal names the parameter and the value."""
import datetime
import fractions
import importlib.util
import math
import os
import re

import numpy as np
import pytest

import tilec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOFTMAX = os.path.join(ROOT, "examples", "softmax.tir")

# Y = c ? f + h + d + k + u : 0, one scalar parameter of each kind
SCALARS = """kernel @scalars<N=4>(%f: f32, %h: f16, %d: f64, %k: i32, %u: u8, %c: bool, %Y: view<f32>[Y.0=N]) {
  parallel (%i: i=N) {
    %hf = cast %h to f32
    %df = cast %d to f32
    %kf = cast %k to f32
    %uf = cast %u to f32
    %s1 = add %f, %hf
    %s2 = add %s1, %df
    %s3 = add %s2, %kf
    %s4 = add %s3, %uf
    %z = const f32 0.0
    %y = select %c, %s4, %z
    store %Y[%i], %y
  }
}
"""
GOOD = dict(f=0.5, h=0.25, d=2.0, k=-3, u=200, c=True)


@pytest.fixture(scope="module")
def scalars():
    return tilec.compile(SCALARS, threads=1)


def call(kernel, **changed):
    """kernel's Y (all four elements equal) with GOOD but for `changed`."""
    y = kernel(**dict(GOOD, **changed))
    assert (y == y[0]).all() or np.isnan(y).all()
    return y[0]


@pytest.mark.parametrize("value", [np.int16(3), np.uint64(3), 3])
def test_shape_parameter_integers(value):
    k = tilec.compile(SOFTMAX, R=value, W=8, threads=1)
    assert k.params[0].shape == (3, 8)


@pytest.mark.parametrize("value, error, why", [
    (2 ** 64 + 17, ValueError, "not a 64-bit integer"),  # once wrapped to R=17
    (2 ** 63, ValueError, "not a 64-bit integer"),
    (-2 ** 63 - 1, ValueError, "not a 64-bit integer"),
    (17.9, TypeError, "not an integer"),  # once truncated to 17
    (17.0, TypeError, "not an integer"),
    ("17", TypeError, "not an integer"),  # once parsed
    (True, TypeError, "not an integer"),
    (np.float32(4), TypeError, "not an integer"),
    (None, TypeError, "not an integer"),
])
def test_shape_parameter_refused(value, error, why):
    message = re.escape(f"shape parameter R={value!r}: {why}")
    with pytest.raises(error, match=message):
        tilec.compile(SOFTMAX, R=value, W=8)
    with pytest.raises(error, match=message):
        tilec.explain(SOFTMAX, R=value, W=8)


def test_shape_parameter_range_is_the_c_apis():
    """int64's ends reach tilec, which judges them (a negative extent is its
    TIR-P10), as `tilec -D R=-1` does."""
    with pytest.raises(tilec.TilecError) as e:
        tilec.compile(SOFTMAX, R=-2 ** 63, W=8)
    assert e.value.code == "TIR-P10"


def test_scalars_accepted(scalars):
    assert call(scalars) == 0.5 + 0.25 + 2.0 - 3 + 200
    assert call(scalars, c=False) == 0 and call(scalars, c=0) == 0 and call(scalars, c=np.bool_(True)) == 199.75
    assert call(scalars, c=1) == 199.75 and call(scalars, c=np.uint8(1)) == 199.75
    assert call(scalars, f=np.float32(1.5), h=np.float16(0.5), d=fractions.Fraction(1, 4), k=np.int64(-2 ** 31),
                u=np.uint8(255)) == np.float32(1.5 + 0.5 + 0.25 - 2 ** 31 + 255)
    assert call(scalars, f=3, d=np.int8(-4), k=2 ** 31 - 1, u=0) == np.float32(3 + 0.25 - 4 + 2 ** 31 - 1)
    # the largest finite values, and what rounds to them, fit; so do infinities and NaN given as such
    assert call(scalars, f=3.4028235e38, k=0, u=0, d=0, h=0) == np.float32(3.4028235e38)
    assert call(scalars, f=0, h=65519.0, k=0, u=0, d=0) == 65504
    assert call(scalars, d=1.7976931348623157e308, k=0, u=0, h=0, f=0) == np.inf  # f64 fits; its cast to f32 does not
    assert call(scalars, f=-math.inf) == -np.inf and call(scalars, h=np.float16("inf")) == np.inf
    assert np.isnan(call(scalars, d=math.nan))
    assert call(scalars, f=1e-60, h=1e-10, d=0, k=0, u=0) == 0  # underflow rounds, it is no overflow


@pytest.mark.parametrize("name, value, why", [
    ("f", 1 + 2j, "takes a real number (or a numpy.ndarray), not complex "),
    ("f", np.complex64(1), "takes a real number (or a numpy.ndarray), not complex64 "),
    ("f", "3", "takes a real number (or a numpy.ndarray), not str "),
    ("f", np.str_("3"), "takes a real number (or a numpy.ndarray), not str_ "),
    ("f", b"3", "takes a real number (or a numpy.ndarray), not bytes "),
    ("f", np.datetime64("2020-01-01"), "takes a real number (or a numpy.ndarray), not datetime64 "),
    ("f", np.timedelta64(3), "takes a real number (or a numpy.ndarray), not timedelta64 "),
    ("f", datetime.datetime(2020, 1, 1), "takes a real number (or a numpy.ndarray), not datetime "),
    ("d", True, "takes a real number (or a numpy.ndarray), not bool "),
    ("d", [1.0], "takes a real number (or a numpy.ndarray), not list "),
    ("k", 1.5, "takes an integer (or a numpy.ndarray), not float "),
    ("k", 2.0, "takes an integer (or a numpy.ndarray), not float "),
    ("k", np.float32(1), "takes an integer (or a numpy.ndarray), not float32 "),
    ("k", "3", "takes an integer (or a numpy.ndarray), not str "),
    ("k", True, "takes an integer (or a numpy.ndarray), not bool "),
    ("u", np.timedelta64(3), "takes an integer (or a numpy.ndarray), not timedelta64 "),
    ("c", 0.0, "takes True, False, 0 or 1 (or a numpy.ndarray), not float "),
    ("c", "true", "takes True, False, 0 or 1 (or a numpy.ndarray), not str "),
])
def test_scalars_of_the_wrong_kind(scalars, name, value, why):
    with pytest.raises(TypeError, match=re.escape(f"scalars: '{name}' ") + ".*" + re.escape(why)):
        call(scalars, **{name: value})


def within(largest):
    return f"takes a real number within ±{largest} (or an inf or nan), not "


F32 = within("3.4028234663852886e+38")
I32 = "takes an integer in [-2147483648, 2147483647], not "


@pytest.mark.parametrize("name, value, why", [
    ("f", 1e300, F32 + "1e+300"),  # once inf with a warning only
    ("f", -1e39, F32 + "-1e+39"),
    ("f", np.float64(3.4028236e38), F32),
    ("f", 2 ** 128, F32 + str(2 ** 128)),
    pytest.param("d", 10 ** 400, within("1.7976931348623157e+308"), id="d-10**400"),
    pytest.param("d", fractions.Fraction(-10 ** 400), within("1.7976931348623157e+308"), id="d-Fraction(-10**400)"),
    ("h", 65520.0, within("65504.0") + "65520.0"),
    ("k", 2 ** 31, I32 + "2147483648"),
    ("k", np.int64(-2 ** 31 - 1), I32),
    ("u", -1, "takes an integer in [0, 255], not -1"),
    ("u", 256, "takes an integer in [0, 255], not 256"),
    ("c", 5, "takes True, False, 0 or 1, not 5"),  # once True
    ("c", -1, "takes True, False, 0 or 1, not -1"),
])
def test_scalars_out_of_range(scalars, name, value, why):
    with pytest.raises(ValueError, match=re.escape(f"scalars: '{name}' ") + ".*" + re.escape(why)):
        call(scalars, **{name: value})


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max, reason="no wider long double")
def test_scalar_long_double_beyond_f64(scalars):
    with pytest.raises(ValueError, match="'d' \\(f64\\) takes a real number within"):
        call(scalars, d=np.longdouble("1e400"))


@pytest.mark.skipif(importlib.util.find_spec("ml_dtypes") is not None, reason="with ml_dtypes bf16 takes numbers")
def test_bf16_scalar_without_ml_dtypes():
    """Without ml_dtypes a bf16 is two opaque bytes: a number is refused (it
    once became 0), the bits pass."""
    k = tilec.compile("""kernel @widen<N=2>(%s: bf16, %Y: view<f32>[Y.0=N]) {
  parallel (%i: i=N) {
    %f = cast %s to f32
    store %Y[%i], %f
  }
}""", threads=1)
    with pytest.raises(TypeError, match=r"widen: 's' \(bf16\) takes a numpy.ndarray of dtype V2"):
        k(1.5)
    np.testing.assert_array_equal(k(np.array([0x3FC0], np.uint16).view("V2")), [1.5, 1.5])  # bf16 1.5
