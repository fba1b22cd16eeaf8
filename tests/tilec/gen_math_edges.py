#!/usr/bin/env python3
"""gen_math_edges.py — writes tests/tilec/math_edges.h, the range edges of
every math function (docs/tir.md "Math functions") with their correctly
rounded results, for tests/tilec/test_math.c.

The table is checked in so that the math test needs neither mpmath nor
this script; rerun it (python3 tests/tilec/gen_math_edges.py) after
changing the inputs below.  `--check` (the ctest tilec.math_edges_table;
exit 77, skipped, without mpmath) says whether the checked-in table is what
it writes.

Inputs, per function and type (f32, f64; the math functions take no other
types): ±0, ±inf, NaN, the smallest and largest subnormals, the smallest
normal, the largest finite value, values around 1, and each function's own
regions: every threshold where the rounded result changes kind (overflow to
inf, underflow to subnormal and to zero, saturation at ±1 or ±π/2, the tiny
region where f(x) rounds to x or to 1), found by bisection on the oracle,
with its neighbours and points approaching it from both sides.

The oracle: mpmath at 256 bits, checked against 640 bits, rounded to the
type exactly (round to nearest even, subnormals, overflow to inf).  Where an
input is ±0, ±inf or NaN the result is C's (Annex F, as glibc computes it:
signed zeros, infinities, pow's and atan2's special cases); the rounding
functions (floor ceil round trunc) are exact in glibc and taken from it.
Every value is also compared with glibc (float functions for f32): a
difference of more than 2 ulps (4 for f64, where glibc is looser) stops the
generator, since it would mean an oracle mistake here."""
import ctypes
import math
import struct
import sys
from fractions import Fraction
from pathlib import Path

try:
    import mpmath
    from mpmath import mp, mpf
except ImportError:  # the check is skipped (ctest's SKIP_RETURN_CODE) where mpmath is not installed
    sys.exit(77 if sys.argv[1:] == ["--check"] else "gen_math_edges.py needs mpmath (scripts/install-deps installs it)")

OUT = Path(__file__).with_name("math_edges.h")
LIBM = ctypes.CDLL("libm.so.6")


class Fmt:
    def __init__(self, name, prec, emax, pack):
        self.name, self.prec, self.emax, self.pack = name, prec, emax, pack
        self.emin = 1 - emax
        self.min_sub = 2.0 ** (self.emin - prec + 1)
        self.min_normal = 2.0 ** self.emin
        self.max = (2 - 2.0 ** (1 - prec)) * 2.0 ** emax
        self.bits = 32 if pack == "f" else 64

    def ordered(self, x):
        """The float's position among the type's values (−0 and +0 both 0)."""
        i = struct.unpack("<i" if self.bits == 32 else "<q", struct.pack("<" + self.pack, x))[0]
        return -(i & ((1 << (self.bits - 1)) - 1)) if i < 0 else i

    def at(self, n):
        """The value at position n (the inverse of ordered; 0 is +0)."""
        i = n if n >= 0 else (-n) | (1 << (self.bits - 1))
        return struct.unpack("<" + self.pack, struct.pack("<I" if self.bits == 32 else "<Q", i))[0]

    def step(self, x, k):
        return self.at(self.ordered(x) + k)

    def round(self, v):
        """A real (Fraction) rounded to the type: nearest, ties to even."""
        if v == 0:
            return 0.0
        sign, a = (-1.0, -v) if v < 0 else (1.0, v)
        e = a.numerator.bit_length() - a.denominator.bit_length()
        if Fraction(2) ** e > a:
            e -= 1
        quantum = Fraction(2) ** max(e - self.prec + 1, self.emin - self.prec + 1)
        q, r = divmod(a, quantum)
        if r * 2 > quantum or (r * 2 == quantum and q % 2 == 1):
            q += 1
        value = q * quantum
        return sign * math.inf if value > Fraction(self.max) else sign * float(value)


F32 = Fmt("f32", 24, 127, "f")
F64 = Fmt("f64", 53, 1023, "d")


def libm(name, nargs, f32):
    fn = getattr(LIBM, name + ("f" if f32 else ""))
    c = ctypes.c_float if f32 else ctypes.c_double
    fn.restype, fn.argtypes = c, [c] * nargs
    return fn


# The functions: name -> (arity, mpmath form of finite non-zero inputs,
# C form in double for ±0/±inf/NaN inputs, whose results are exact).  Both of one list, so the two cannot
# disagree on which functions exist.
def c1(name):
    return lambda x: libm(name, 1, False)(x)


def c_rsqrt(x):
    return 1.0 / libm("sqrt", 1, False)(x) if x != 0 else math.copysign(math.inf, x)


def c_sigmoid(x):
    return 1.0 / (1.0 + libm("exp", 1, False)(-x))


def mp_cbrt(x):
    return mpmath.cbrt(x) if x > 0 else -mpmath.cbrt(-x)


def mp_pow(x, y):
    """x^y of finite non-zero operands; an integer power exactly, since it
    may be a tie (2^-1075 rounds to 0) that no precision of exp·log settles."""
    if x < 0 and y != int(y):
        return math.nan
    sign = -1 if x < 0 and abs(y) < 2.0**53 and int(y) % 2 == 1 else 1
    t = mpf(y) * mpmath.log(abs(mpf(x)), 2)
    if t > 1100:
        return sign * math.inf
    if t < -1200:
        return sign * 0.0
    if y == int(y) and abs(y) <= 1200:  # larger ones are no tie (x^y has too many bits)
        return Fraction(x) ** int(y)
    return sign * mpmath.power(2, t)


def mp_exp2(x):
    return Fraction(2) ** int(x) if x == int(x) and abs(x) < 2000 else mpmath.exp(x * mpmath.ln2)


FUNCTIONS = {
    "exp": (1, mpmath.exp, c1("exp")),
    "log": (1, mpmath.log, c1("log")),
    "tanh": (1, mpmath.tanh, c1("tanh")),
    "sqrt": (1, mpmath.sqrt, c1("sqrt")),
    "erf": (1, mpmath.erf, c1("erf")),
    "sigmoid": (1, lambda x: 1 / (1 + mpmath.exp(-x)), c_sigmoid),
    "rsqrt": (1, lambda x: 1 / mpmath.sqrt(x), c_rsqrt),
    "sin": (1, mpmath.sin, c1("sin")),
    "cos": (1, mpmath.cos, c1("cos")),
    "tan": (1, mpmath.tan, c1("tan")),
    "asin": (1, mpmath.asin, c1("asin")),
    "acos": (1, mpmath.acos, c1("acos")),
    "atan": (1, mpmath.atan, c1("atan")),
    "sinh": (1, mpmath.sinh, c1("sinh")),
    "cosh": (1, mpmath.cosh, c1("cosh")),
    "expm1": (1, mpmath.expm1, c1("expm1")),
    "log1p": (1, mpmath.log1p, c1("log1p")),
    "exp2": (1, mp_exp2, c1("exp2")),
    "log2": (1, lambda x: mpmath.log(x, 2), c1("log2")),
    "log10": (1, mpmath.log10, c1("log10")),
    "cbrt": (1, mp_cbrt, c1("cbrt")),
    "floor": (1, None, c1("floor")),
    "ceil": (1, None, c1("ceil")),
    "round": (1, None, c1("round")),
    "trunc": (1, None, c1("trunc")),
    "pow": (2, mp_pow, lambda x, y: libm("pow", 2, False)(x, y)),
    "atan2": (2, mpmath.atan2, lambda y, x: libm("atan2", 2, False)(y, x)),
}


def exact(v):
    """An mpmath or exact result as a Fraction, or a float for inf, NaN and
    the zeros of underflow (whose sign a Fraction would lose)."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, float):  # inf, NaN, a signed zero, kept as they are
        return v if not math.isfinite(v) or v == 0 else Fraction(v)
    if isinstance(v, mpmath.mpc):
        return math.nan if v.imag != 0 else exact(v.real)
    if mpmath.isnan(v):
        return math.nan
    if mpmath.isinf(v):
        return math.inf if v > 0 else -math.inf
    sign, man, exp, bc = v._mpf_
    if exp + bc > 2000:  # beyond every type's range: no huge Fraction
        return -math.inf if sign else math.inf
    if exp + bc < -2000:
        return -0.0 if sign else 0.0
    value = Fraction(man) * Fraction(2) ** exp
    return -value if sign else value


def oracle(name, fmt, args):
    """The correctly rounded result of name(args) in fmt, as a float."""
    arity, mp_form, c_form = FUNCTIONS[name]
    if mp_form is None or any(a == 0 or not math.isfinite(a) for a in args):
        r = c_form(*args)
        # π multiples (atan2's, atan(±inf), acos(0)) were rounded to double:
        # round the real value to the type instead.
        if math.isfinite(r) and r != 0 and abs(r) != 1 and abs(r) != 0.5 and mp_form is not None:
            k = round(r / (math.pi / 4))
            assert abs(r - k * math.pi / 4) < 1e-15, (name, args, r)
            mp.prec = 256
            return fmt.round(exact(k * mp.pi / 4))
        return r if not math.isfinite(r) or r == 0 else fmt.round(Fraction(r))
    results = []
    for prec in (256, 640):
        mp.prec = prec
        v = exact(mp_form(*args))
        results.append(fmt.round(v) if isinstance(v, Fraction) else v)
    mp.prec = 256
    a, b = results
    assert a == b or (math.isnan(a) and math.isnan(b)), (name, fmt.name, args, a, b)
    return a


def ulps(fmt, a, b):
    """The distance of a and b in values of fmt (inf, NaN: 0 or far)."""
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else 1 << 60
    if math.isinf(a) or math.isinf(b):
        return 0 if a == b else 1 << 60
    return abs(fmt.ordered(a) - fmt.ordered(b))


def boundary(fmt, lo, hi, kind):
    """The adjacent pair (a, b) between lo and hi where kind(x) changes
    (found by bisection: kind is monotone there), or None when kind(lo) is
    kind(hi)."""
    i, j = fmt.ordered(lo), fmt.ordered(hi)
    k0 = kind(fmt.at(i))
    if k0 == kind(fmt.at(j)):
        return None
    while abs(j - i) > 1:
        m = (i + j) // 2
        if kind(fmt.at(m)) == k0:
            i = m
        else:
            j = m
    return fmt.at(i), fmt.at(j)


def around(fmt, x, reach=2):
    return [fmt.step(x, k) for k in range(-reach, reach + 1)]


def approach(fmt, x):
    """Points approaching x from both sides: x(1 ± 2^-k), in the type."""
    pts = []
    for k in (2, 4, 6, 8, 10, 12):
        for s in (-1, 1):
            v = x * (1 + s * 2.0**-k)
            if math.isfinite(v):
                pts.append(fmt.round(Fraction(v)) if v != 0 else v)
    return [p for p in pts if math.isfinite(p)]


def tiny_region(fmt, name):
    """Where f(x) = x (rounded) for tiny x, or f(x) = f(0): the last such
    x on each side, its neighbours and approaching points."""
    f = lambda x: oracle(name, fmt, (x,))
    pts = []
    for s in (1.0, -1.0):
        f0 = f(s * 0.0)
        same = lambda x: f(x) == x or f(x) == f0
        pair = boundary(fmt, s * fmt.min_sub, s * 1.0, same) if same(s * fmt.min_sub) else None
        if pair:
            pts += around(fmt, pair[0]) + approach(fmt, pair[1])
    return pts


def regions(fmt, name):
    """The kind-change thresholds of name on each side of 0, found by
    bisection between 1 and the largest value (and between the smallest
    subnormal and 1), plus its tiny region."""
    f = lambda x: oracle(name, fmt, (x,))
    kinds = [
        lambda r: math.isinf(r),
        lambda r: abs(r) < fmt.min_normal,
        lambda r: r == 0,
        lambda r: abs(r) == 1 or abs(r) == fmt.round(exact(mp.pi / 2)),
    ]
    pts = []
    for s in (1.0, -1.0):
        for lo, hi in ((fmt.min_sub, 1.0), (1.0, fmt.max)):
            for kind in kinds:
                pair = boundary(fmt, s * lo, s * hi, lambda x: kind(f(x)))
                if pair:
                    pts += around(fmt, pair[0]) + around(fmt, pair[1]) + approach(fmt, pair[1])
    return pts + tiny_region(fmt, name)


def common(fmt):
    pts = [0.0, -0.0, math.inf, -math.inf, math.nan]
    for v in (fmt.min_sub, 2 * fmt.min_sub, fmt.min_normal - fmt.min_sub, fmt.min_normal, fmt.max, fmt.step(fmt.max, -1),
              1.0, fmt.step(1.0, -1), fmt.step(1.0, 1), 0.5, 1.5, 2.0, 2.5, 3.0, 10.0):
        pts += [v, -v]
    return pts


def own_points(fmt, name):
    """Hand-picked inputs of each function's special regions."""
    p, big = fmt.prec, fmt.max
    pow2 = [2.0**k for k in (p - 1, p, p + 1, 2 * p, 100, fmt.emax // 2, fmt.emax - 1, fmt.emax)]
    if name in ("sin", "cos", "tan"):
        pts = pow2 + [1e10, 1e22, 1e30, fmt.step(big, -2)]
        for k in range(1, 9):  # the values closest to multiples of π/2
            c = fmt.round(exact(k * mp.pi / 2))
            pts += around(fmt, c, 1)
        return pts + [-v for v in pts]
    if name in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt"):
        pts = pow2 + [fmt.step(1.0, k) for k in (-3, -2, 2, 3)] + [1e3, 1e22 if p > 24 else 1e10, 4.0, 9.0, 8.0, 27.0]
        pts += [fmt.min_sub * 4, fmt.min_sub * 8, fmt.min_normal / 3]
        if name == "log1p":  # where 1 + x rounds to x or overflows
            pts += [fmt.step(-1.0, k) for k in (-1, 1, 2)] + approach(fmt, big) + approach(fmt, 2.0**p)
            pts += [1e38 if p == 24 else 1e307, 2e38 if p == 24 else 2e307, -0.5, -0.999]
        if name == "cbrt":
            pts += [-v for v in pts]
        return pts
    if name in ("floor", "ceil", "round", "trunc"):
        pts = [0.25, 0.49999997 if p == 24 else 0.49999999999999994, 0.75, 3.5, 4.5, 2.0 ** (p - 2) + 0.5,
               2.0 ** (p - 1) + 0.5, 2.0 ** (p - 1) - 0.5, 2.0**p - 1, 2.0**p, 2.0**p + 2]
        pts += [fmt.step(0.5, -1), fmt.step(0.5, 1), fmt.step(1.5, -1), fmt.step(1.5, 1)]
        return pts + [-v for v in pts]
    if name in ("asin", "acos", "atan"):
        pts = [fmt.step(1.0, k) for k in (-3, -2, 2)] + [0.7071067811865476, 1e10, 2.0**p]
        return pts + [-v for v in pts]
    return []


def unary_inputs(fmt, name):
    pts = common(fmt) + own_points(fmt, name)
    if FUNCTIONS[name][1] is not None:
        pts += regions(fmt, name)
    return pts


def binary_inputs(fmt, name):
    p, big, tiny, nrm = fmt.prec, fmt.max, fmt.min_sub, fmt.min_normal
    inf, nan = math.inf, math.nan
    if name == "atan2":
        vs = [0.0, -0.0, inf, -inf, nan, tiny, -tiny, nrm, -nrm, big, -big, 1.0, -1.0, 2.0, -2.0]
        pairs = [(y, x) for y in vs for x in vs]
        pairs += [(tiny, 1.0), (nrm, 3.0), (nrm, 2.0**p), (1.0, big), (-1.0, big), (1.0, -big), (big, tiny),
                  (tiny, -1.0), (-tiny, -1.0), (big, -tiny), (1.0, fmt.step(1.0, 1)), (nrm, big)]
        return pairs
    # pow: every special base with every special exponent (C99 F.9.4.4),
    # then the thresholds of overflow and underflow along x and along y
    xs = [0.0, -0.0, inf, -inf, nan, tiny, -tiny, nrm, -nrm, big, -big, 1.0, -1.0, fmt.step(1.0, -1),
          -fmt.step(1.0, -1), fmt.step(1.0, 1), 0.5, -0.5, 2.0, -2.0, 3.0, 10.0]
    odd = 2.0**p - 1
    ys = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 1.5, -1.5, tiny, -tiny, big, -big,
          2.0**p, odd, -odd, 2.0 ** (p + 1), float(fmt.emax), float(fmt.emax + 1), 149.0, -149.0, -150.0, -151.0,
          1074.0, -1074.0, -1075.0, 1e10, -1e10]
    pairs = [(x, y) for x in xs for y in ys]
    f_y = lambda x: lambda y: oracle("pow", fmt, (x, y))
    f_x = lambda y: lambda x: oracle("pow", fmt, (x, y))
    kinds = [lambda r: math.isinf(r), lambda r: abs(r) < nrm, lambda r: r == 0]
    for x in (2.0, -2.0, 10.0, 0.5, fmt.step(1.0, 1)):
        for lo, hi in ((1.0, big), (-big, -1.0)):
            for kind in kinds:
                pair = boundary(fmt, lo, hi, lambda y: kind(f_y(x)(y)))
                if pair:
                    pairs += [(x, y) for y in around(fmt, pair[0]) + around(fmt, pair[1])]
    for y in (2.0, -2.0, 3.0, 0.5, 1000.5 if p > 24 else 100.5):
        for kind in kinds:
            pair = boundary(fmt, 1.0, big, lambda x: kind(f_x(y)(x))) or boundary(fmt, tiny, 1.0, lambda x: kind(f_x(y)(x)))
            if pair:
                pairs += [(x, y) for x in around(fmt, pair[0]) + around(fmt, pair[1])]
    return pairs


def literal(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    if v == 0:
        return "-0.0" if math.copysign(1, v) < 0 else "0"
    h = v.hex()  # [-]0x1.hhhhp+e: trailing zeros dropped
    mant, exp = h.split("p")
    mant = mant.rstrip("0").rstrip(".")
    return mant + "p" + exp


def unique(rows):
    seen, out = set(), []
    for r in rows:
        key = tuple(struct.pack("<d", v) if not math.isnan(v) else b"nan" for v in r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def check_glibc(fmt, name, args, want):
    """The oracle against glibc: more than 2 ulps apart (4 in f64) means a
    mistake here (glibc's functions are within 1 or 2 of correct)."""
    if name in ("sigmoid", "rsqrt"):
        return
    f = libm(name, len(args), fmt is F32)
    got = f(*args)
    got = got if not math.isfinite(got) or got == 0 else fmt.round(Fraction(got))
    d = ulps(fmt, got, want)
    assert d <= (2 if fmt is F32 else 4), f"{name} {fmt.name} {args}: oracle {want!r}, glibc {got!r}"


def generate():
    groups = []
    for name, (arity, _, _) in FUNCTIONS.items():
        for fmt in (F32, F64):
            if arity == 1:
                rows = [(x, 0.0) for x in unary_inputs(fmt, name)]
            else:
                rows = binary_inputs(fmt, name)
            rows = [r for r in rows if all(fmt.round(Fraction(v)) == v for v in r if math.isfinite(v))]
            rows = unique(rows)
            out = []
            for x, z in rows:
                args = (x,) if arity == 1 else (x, z)
                want = oracle(name, fmt, args)
                check_glibc(fmt, name, args, want)
                out.append((x, z, want))
            groups.append((name, fmt, out))
    lines = [
        "/* math_edges.h — generated by tests/tilec/gen_math_edges.py (do not edit):",
        " * the range edges of every math function in f32 and f64, {x, z, f(x[, z])}",
        " * with f correctly rounded to the type (mpmath; C's special values), for",
        " * tests/tilec/test_math.c. */",
        "#ifndef TILEC_TESTS_MATH_EDGES_H",
        "#define TILEC_TESTS_MATH_EDGES_H",
        "",
        "#include <math.h>",
        "#include <stdbool.h>",
        "#include <stddef.h>",
        "",
        "typedef struct {",
        "    const char *name;",
        "    bool f32;",
        "    const double (*rows)[3]; /* x, z (the second operand; 0 for unary functions), result */",
        "    size_t n;",
        "} math_edge_group;",
        "",
    ]
    for name, fmt, rows in groups:
        lines.append(f"static const double math_edges_{name}_{fmt.name}[][3] = {{")
        lines += [f"    {{{literal(x)}, {literal(z)}, {literal(w)}}}," for x, z, w in rows]
        lines.append("};")
    lines.append("")
    lines.append("static const math_edge_group math_edge_groups[] = {")
    for name, fmt, rows in groups:
        arr = f"math_edges_{name}_{fmt.name}"
        lines.append(f"    {{\"{name}\", {'true' if fmt is F32 else 'false'}, {arr}, sizeof {arr} / sizeof {arr}[0]}},")
    lines += ["};", "", "#endif", ""]
    return "\n".join(lines)


def main():
    text = generate()
    if sys.argv[1:] == ["--check"]:
        if OUT.read_text() != text:
            sys.exit(f"{OUT} is not what {Path(__file__).name} writes: rerun it")
        return
    OUT.write_text(text)


if __name__ == "__main__":
    main()
