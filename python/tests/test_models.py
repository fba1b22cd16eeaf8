"""The decoder kernels of models/llama against NumPy formulas (run by
`make test` with the rest of python/tests): each compiled once with its
token count a runtime size and called at a decode step (T=1) and a short
prompt (T=7), through the Python package."""
import functools
import os

import numpy as np
import pytest

import tilec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLAMA = os.path.join(ROOT, "models", "llama")
TOL = 5e-5
RNG = np.random.default_rng(36)


@functools.lru_cache(maxsize=None)
def _compiled(name, threads, params):
    return tilec.compile(os.path.join(LLAMA, name + ".tir"), threads=threads, **dict(params))


def kernel(name, threads=2, **params):
    """models/llama/NAME.tir compiled once per shape (the cases share it)."""
    return _compiled(name, threads, tuple(sorted(params.items())))


@pytest.mark.parametrize("tokens", [1, 7])
def test_embedding(tokens):
    k = kernel("embedding", V=50, D=32)
    table = RNG.standard_normal((50, 32)).astype(np.float32)
    ids = RNG.integers(0, 50, tokens).astype(np.int32)
    np.testing.assert_array_equal(k(ids, table), table[ids])
    with pytest.raises(tilec.TilecError) as e:  # an id past the vocabulary: an error, not a zero row
        k(np.array([50] * tokens, np.int32), table)
    assert e.value.code == "TIR-I07"


@pytest.mark.parametrize("tokens", [1, 7])
def test_add_rmsnorm(tokens):
    k = kernel("add_rmsnorm", D=48)
    h = RNG.standard_normal((tokens, 48)).astype(np.float32)
    d = RNG.standard_normal((tokens, 48)).astype(np.float32)
    g = RNG.standard_normal((1, 48)).astype(np.float32)
    want_h = h.astype(np.float64) + d
    want_y = want_h / np.sqrt((want_h ** 2).mean(-1, keepdims=True) + 1e-6) * g
    given = h.copy()
    out_h, y = k(given, d, g, 1e-6)  # both outputs: the residual (the array given) and the normed rows
    assert out_h is given
    np.testing.assert_allclose(given, want_h, rtol=TOL, atol=TOL)  # the residual, updated in place
    np.testing.assert_allclose(y, want_y, rtol=TOL, atol=TOL)


def test_argmax():
    k = kernel("argmax", V=1000)
    for logits in (RNG.standard_normal(1000).astype(np.float32),
                   np.where(np.arange(1000) % 7 == 3, 5.0, 0.0).astype(np.float32),  # ties: the lowest index
                   np.full(1000, -np.inf, np.float32)):
        assert k(logits)[0] == np.argmax(logits)
    with_nan = np.zeros(1000, np.float32)
    with_nan[[10, 20]] = np.nan, 1.0
    assert k(with_nan)[0] == 20  # NaN is never the pick
    assert k(np.full(1000, np.nan, np.float32))[0] == 1000


@pytest.mark.parametrize("top", [0, 1, 7])
def test_sample(top):
    """Inverse-transform sampling: the pick for each draw u is the index
    where the kept logits' cumulative softmax (float64 here) passes u, but
    for draws within 1e-5 of a boundary; only the top `top` (0: all) are
    ever picked, NaN and inf never."""
    v, temp = 512, 0.7
    k = kernel("sample", V=v, K=top, BS=64)
    logits = np.random.default_rng(top).standard_normal(v).astype(np.float32) * 3
    logits[[5, 6]] = np.nan, np.inf
    real = np.where(np.isfinite(logits), logits, -np.inf).astype(np.float64)
    floor = np.sort(real)[-top] if top else -np.inf
    w = np.where(real >= floor, np.exp((real - real.max()) / np.float32(temp)), 0.0)
    cdf = np.cumsum(w) / w.sum()
    picks = set()
    for u in np.linspace(0.0, 0.999, 400):
        got = int(k(logits.reshape(v // 64, 64), temp, u)[0])
        picks.add(got)
        if np.abs(cdf - u).min() > 1e-5:
            assert got == int(np.argmax(cdf > u)), u
    assert picks <= set(np.flatnonzero(w > 0)) and (top != 1 or picks == {int(np.argmax(real))})
    assert int(k(logits.reshape(v // 64, 64), temp, 0.5)[0]) == int(k(logits.reshape(v // 64, 64), temp, 0.5)[0])


def rotated(x, pos, inv_freq):
    """transformers' rotate_half RoPE of x[T, H, Dh] at positions pos.., in f64
    from the f32 angles."""
    dh = x.shape[-1]
    angle = (np.arange(pos, pos + x.shape[0], dtype=np.float32)[:, None] * inv_freq).astype(np.float64)
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    x1, x2 = x[..., :dh // 2].astype(np.float64), x[..., dh // 2:].astype(np.float64)
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


@pytest.mark.parametrize("tokens,pos", [(1, 37), (7, 0), (5, 4090)])
def test_rope(tokens, pos):
    heads, dh = 3, 16
    k = kernel("rope", H=heads, Dh=dh)
    inv_freq = (1.0 / (10000.0 ** (np.arange(0, dh, 2, dtype=np.float32) / dh))).astype(np.float32)
    x = RNG.standard_normal((tokens, heads, dh)).astype(np.float32)
    want = rotated(x, pos, inv_freq)
    got = x.copy()
    k(got, inv_freq, pos)
    np.testing.assert_allclose(got, want, rtol=TOL, atol=2e-4)  # angles near 4096 rad: cos/sin to f32 rounding


@pytest.mark.parametrize("tokens", [1, 7])
def test_swiglu(tokens):
    k = kernel("swiglu", F=96)
    g = RNG.standard_normal((tokens, 96)).astype(np.float32) * 4
    u = RNG.standard_normal((tokens, 96)).astype(np.float32)
    g64 = g.astype(np.float64)
    np.testing.assert_allclose(k(g, u), g64 / (1 + np.exp(-g64)) * u, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("tokens,pos", [(1, 63), (7, 0), (3, 61)])
def test_rope_append(tokens, pos):
    heads, dh, rows = 2, 16, 64
    k = kernel("rope_append", Hkv=heads, Dh=dh, S=rows)
    inv_freq = (1.0 / (10000.0 ** (np.arange(0, dh, 2, dtype=np.float32) / dh))).astype(np.float32)
    keys = RNG.standard_normal((tokens, heads, dh)).astype(np.float32)
    values = RNG.standard_normal((tokens, heads, dh)).astype(np.float32)
    kc = RNG.standard_normal((heads, rows, dh)).astype(np.float32)
    vc = RNG.standard_normal((heads, rows, dh)).astype(np.float32)
    want_k, want_v = kc.astype(np.float64), vc.copy()
    want_k[:, pos:pos + tokens] = rotated(keys, pos, inv_freq).transpose(1, 0, 2)
    want_v[:, pos:pos + tokens] = values.transpose(1, 0, 2)
    k(keys, values, inv_freq, pos, kc, vc)
    np.testing.assert_allclose(kc, want_k, rtol=TOL, atol=TOL)  # the other rows untouched
    np.testing.assert_array_equal(vc, want_v)
    with pytest.raises(tilec.TilecError) as e:  # past the cache: an error, nothing written outside it
        k(keys, values, inv_freq, rows - tokens + 1, kc, vc)
    assert e.value.code == "TIR-I07"


@pytest.mark.parametrize("length,threads", [(1, 1), (17, 2), (300, 2), (1000, 1)])
def test_attention_decode(length, threads):
    hq, hkv, dh, rows = 8, 2, 32, 1024
    k = kernel("attention_decode", threads=threads, Hq=hq, Hkv=hkv, Dh=dh, S=rows)
    q = RNG.standard_normal((hkv, hq // hkv, dh)).astype(np.float32)
    kc = RNG.standard_normal((hkv, rows, dh)).astype(np.float32)
    vc = RNG.standard_normal((hkv, rows, dh)).astype(np.float32)
    kc[:, length:], vc[:, length:] = np.nan, np.nan  # rows past the length are never read into the result
    scores = np.einsum("hgd,hjd->hgj", q.astype(np.float64), kc[:, :length]) / np.sqrt(dh)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    want = np.einsum("hgj,hjd->hgd", weights, vc[:, :length])
    np.testing.assert_allclose(k(q, kc, vc, L=length), want, rtol=TOL, atol=TOL)


def bf16_bits(x):
    """x rounded to bf16 (nearest even), as its 16 bits, and the values they hold."""
    bits = x.astype(np.float32).view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return rounded, (rounded.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("weights", ["f32", "bf16", "q8"])
@pytest.mark.parametrize("tokens", [1, 19])
def test_linear(weights, tokens):
    """A decode step's GEMV (gemv*.tir, one token) and a prompt's GEMM
    (linear*.tir, T a runtime size, blocks of 8 tokens)."""
    n, kdim = 72, 200  # ragged against the blocks (8 or 32 outputs, 64 or 16 inputs)
    form = {"f32": "", "bf16": "_bf16", "q8": "_q8"}[weights]
    k = kernel("gemv" + form, N=n, K=kdim) if tokens == 1 else kernel("linear" + form, N=n, K=kdim, BT=8)
    x = RNG.standard_normal((tokens, kdim)).astype(np.float32)
    w = RNG.standard_normal((n, kdim)).astype(np.float32)
    if weights == "f32":
        args, wide = (w,), w
    elif weights == "bf16":
        bits, wide = bf16_bits(w)
        args = (bits.view("V2"),)
    else:
        scale = (np.abs(w).max(-1) / 127).astype(np.float32)
        q = np.round(w / scale[:, None]).astype(np.int8)
        args, wide = (q, scale if tokens == 1 else scale[None, :]), q.astype(np.float64) * scale[:, None]
    want = x.astype(np.float64) @ wide.astype(np.float64).T
    got = k(x[0], *args) if tokens == 1 else k(x, *args)
    np.testing.assert_allclose(got, want[0] if tokens == 1 else want, rtol=TOL, atol=1e-4)


@pytest.mark.parametrize("group", [32, 64, 128])
def test_gemv_q8_groups(group):
    """int8 weights with an f32 scale per group of `group` weights of a row
    (gemv_q8g.tir) against NumPy's dequantize-then-multiply in f64; rows
    ragged against the kernel's blocks, groups of every magnitude."""
    n, kdim = 37, 4 * group + 2 * group  # 6 groups: a ragged last block of groups
    k = kernel("gemv_q8g", N=n, K=kdim, G=group)
    w = RNG.standard_normal((n, kdim)).astype(np.float32) * np.repeat(RNG.uniform(0.01, 10, (n, kdim // group)), group, 1)
    blocks = w.reshape(n, kdim // group, group)
    scale = (np.abs(blocks).max(-1) / 127).astype(np.float32)
    q = np.round(blocks / scale[..., None]).astype(np.int8)
    x = RNG.standard_normal(kdim).astype(np.float32)
    want = (q.astype(np.float64) * scale[..., None].astype(np.float64)).reshape(n, kdim) @ x.astype(np.float64)
    got = k(x.reshape(kdim // group, group), q, scale)
    np.testing.assert_allclose(got, want, rtol=TOL, atol=1e-3 * np.abs(want).max())


def q8_0(v):
    """NumPy's Q8_0 of the rows of v [..., G] in f32 as quantize_q8.tir
    computes it: D = max|v| / 127, codes round(v · (1/D)) halfway away from
    zero (0 for an all-zero group)."""
    amax = np.abs(v).max(-1)
    d = amax / np.float32(127)
    inv = np.float32(1) / np.where(amax > 0, d, np.float32(1))
    scaled = (v * inv[..., None]).astype(np.float64)
    return (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype(np.int8), d


@pytest.mark.parametrize("group", [32, 64])
def test_q8_0_decode(group):
    """llama.cpp's Q8_0 × Q8_0 decode product: quantize_q8.tir bitwise
    against NumPy's quantization (an all-zero group included), then
    gemv_q8q.tir (int8 dot products, weights stored q + 128 as u8) against
    the same integer sums scaled in f64; rows ragged against the blocks."""
    n, kdim = 37, 6 * group
    x = RNG.standard_normal(kdim).astype(np.float32)
    x[group : 2 * group] = 0
    words = (kdim // group, group // 4, 4)
    xq, xn, xg, d = kernel("quantize_q8", K=kdim, G=group)(x.reshape(1, *words))
    want_q, want_d = q8_0(x.reshape(-1, group))
    np.testing.assert_array_equal(xq.reshape(-1, group), want_q)
    np.testing.assert_array_equal(d.reshape(-1), want_d)
    np.testing.assert_array_equal(xn.reshape(words[:2]), -128 * want_q.astype(np.int32).reshape(words).sum(-1))
    np.testing.assert_array_equal(xg.reshape(-1), -128 * want_q.astype(np.int32).sum(-1))
    xq, xn, d = xq.reshape(words), xn.reshape(words[:2]), d.reshape(-1)
    w = (RNG.standard_normal((n, kdim)) * np.repeat(RNG.uniform(0.01, 10, (n, kdim // group)), group, 1)).astype(np.float32)
    q, s = q8_0(w.reshape(n, -1, group))
    u = (q.astype(np.int16) + 128).astype(np.uint8)
    got = kernel("gemv_q8q", N=n, K=kdim, G=group)(xq, xn, d, u.reshape(n, *words), s)
    sums = np.einsum("ngk,gk->ng", q.astype(np.int64), want_q.astype(np.int64))
    want = (sums * s.astype(np.float64) * want_d.astype(np.float64)).sum(-1)
    np.testing.assert_allclose(got, want, rtol=TOL, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("tokens", [3, 19, 70])
def test_q8_0_prompt(tokens):
    """A prompt's Q8_0 × Q8_0 projection: quantize_q8.tir over T tokens,
    then linear_q8q.tir (int8 dot products on packed quads, group scales)
    against the same integer sums scaled in f64; tokens and outputs ragged
    against the blocks, K over several groups."""
    n, kdim, group = 37, 160, 32
    x = RNG.standard_normal((tokens, kdim)).astype(np.float32)
    xq, _, xg, d = kernel("quantize_q8", K=kdim, G=group)(x.reshape(tokens, kdim // group, group // 4, 4))
    want_q, want_d = q8_0(x.reshape(tokens, -1, group))
    np.testing.assert_array_equal(xq.reshape(tokens, -1, group), want_q)
    w = RNG.standard_normal((n, kdim)).astype(np.float32)
    q, s = q8_0(w.reshape(n, -1, group))
    u = (q.astype(np.int16) + 128).astype(np.uint8)
    got = kernel("linear_q8q", N=n, K=kdim, G=group)(xq.reshape(tokens, -1, group), xg, d, u, s)
    sums = np.einsum("tgk,ngk->tng", want_q.astype(np.int64), q.astype(np.int64))
    want = (sums * s[None].astype(np.float64) * want_d[:, None].astype(np.float64)).sum(-1)
    np.testing.assert_allclose(got, want, rtol=TOL, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("tokens,length", [(1, 1), (5, 9), (16, 16), (11, 40)])
def test_attention_prefill(tokens, length):
    hq, hkv, dh, rows = 8, 2, 16, 64
    k = kernel("attention_prefill", Hq=hq, Hkv=hkv, Dh=dh, S=rows)
    group = hq // hkv
    q = RNG.standard_normal((tokens, hkv, group, dh)).astype(np.float32)
    kc = RNG.standard_normal((hkv, rows, dh)).astype(np.float32)
    vc = RNG.standard_normal((hkv, rows, dh)).astype(np.float32)
    kc[:, length:], vc[:, length:] = np.nan, np.nan  # rows past the length never reach the result
    scores = np.einsum("thgd,hjd->thgj", q.astype(np.float64), kc[:, :length]) / np.sqrt(dh)
    first = length - tokens  # token t sees keys j <= first + t
    visible = np.arange(length)[None, :] <= first + np.arange(tokens)[:, None]
    scores = np.where(visible[:, None, None, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    want = np.einsum("thgj,hjd->thgd", weights, vc[:, :length])
    np.testing.assert_allclose(k(q, kc, vc, L=length), want, rtol=TOL, atol=TOL)
