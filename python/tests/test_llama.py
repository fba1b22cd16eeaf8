"""tilec.models.llama's decoder (docs/models.md) on the tiny config with the
random weights of seed 0: its logits for a prompt and 16 greedy decode
steps match the ones transformers' LlamaForCausalLM gave
(models/llama/reference/tiny.npz, made by make_reference.py there; `make
check-model` compares live) within 1e-4, and its greedy tokens are the
same.  The bf16, int8 and Q8_0 weight forms match a float64 NumPy decoder
over the weights they stand for (itself checked against the same file;
Q8_0's activations quantized there too).
Sampling is seeded and repeatable."""
import os

import numpy as np
import pytest

from tilec.models import llama

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = np.load(os.path.join(ROOT, "models", "llama", "reference", "tiny.npz"))
C = llama.TINY
WEIGHTS = llama.random_weights(C, int(REFERENCE["seed"]))
PROMPT = REFERENCE["prompt"].tolist()
TOKENS = REFERENCE["tokens"].tolist()
TOL = 1e-4


def q8_0(x):
    """x's rows as llama.cpp's Q8_0 stands for them: per group of 32, codes
    round(x / d) halfway away from zero, d = max|x| / 127 (in float64)."""
    g = x.reshape(*x.shape[:-1], -1, 32)
    d = np.abs(g).max(-1, keepdims=True) / 127
    q = g / np.where(d > 0, d, 1)
    return (np.sign(q) * np.floor(np.abs(q) + 0.5) * d).reshape(x.shape)


def numpy_logits(c, w, tokens, act=lambda x: x):
    """Every position's logits for tokens, the decoder in float64 NumPy
    (no cache: the whole causal sequence at once); `act` is what each
    projection's input becomes first (the q8_0 form quantizes it)."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    n, dh, hq, hkv = len(tokens), c.dh, c.num_attention_heads, c.num_key_value_heads
    inv = 1.0 / c.rope_theta ** (np.arange(0, dh, 2) / dh)
    ang = np.arange(n)[:, None] * np.concatenate([inv, inv])[None]
    cos, sin = np.cos(ang)[:, None], np.sin(ang)[:, None]

    def norm(x, g):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + c.rms_norm_eps) * g

    def rope(t):
        return t * cos + np.concatenate([-t[..., dh // 2:], t[..., :dh // 2]], -1) * sin
    x = w["model.embed_tokens.weight"][tokens]
    for i in range(c.num_hidden_layers):
        p = f"model.layers.{i}."
        h = act(norm(x, w[p + "input_layernorm.weight"]))
        q = rope((h @ w[p + "self_attn.q_proj.weight"].T).reshape(n, hq, dh))
        k = rope((h @ w[p + "self_attn.k_proj.weight"].T).reshape(n, hkv, dh)).repeat(hq // hkv, axis=1)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(n, hkv, dh).repeat(hq // hkv, axis=1)
        s = np.einsum("thd,shd->hts", q, k) / np.sqrt(dh) + np.triu(np.full((n, n), -np.inf), 1)
        e = np.exp(s - s.max(-1, keepdims=True))
        o = np.einsum("hts,shd->thd", e / e.sum(-1, keepdims=True), v).reshape(n, hq * dh)
        x = x + act(o) @ w[p + "self_attn.o_proj.weight"].T
        h = act(norm(x, w[p + "post_attention_layernorm.weight"]))
        g, u = h @ w[p + "mlp.gate_proj.weight"].T, h @ w[p + "mlp.up_proj.weight"].T
        x = x + act(g / (1 + np.exp(-g)) * u) @ w[p + "mlp.down_proj.weight"].T
    return act(norm(x, w["model.norm.weight"])) @ w["lm_head.weight"].T


def run(model, prompt, steps):
    """The model's logits for the prompt ([T, V]) and each greedy decode
    step after it, and the tokens it picked."""
    model.reset()
    logits = [model.prefill(prompt)]
    picks = [int(logits[0][-1].argmax())]
    while len(picks) < steps:
        step, pick = model.decode(picks[-1])
        logits.append(step.copy()[None])
        picks.append(pick)
    return np.concatenate(logits), picks


def test_numpy_decoder_is_transformers():
    """The NumPy decoder the bf16/int8 forms are checked with is itself
    transformers' model, as the committed logits say."""
    want = np.concatenate([REFERENCE["prompt_logits"], REFERENCE["step_logits"]])
    got = numpy_logits(C, WEIGHTS, PROMPT + TOKENS[:-1])
    assert np.abs(got - want).max() <= TOL


def test_f32_matches_transformers():
    model = llama.Llama(C, WEIGHTS, threads=2, all_logits=True)
    logits, picks = run(model, PROMPT, len(TOKENS))
    want = np.concatenate([REFERENCE["prompt_logits"], REFERENCE["step_logits"]])
    assert np.abs(logits - want).max() <= TOL
    assert picks == TOKENS
    # generate() picks the same tokens, with the prompt's last logits only;
    # a prompt prefilled in two parts (the second at position 5, over the
    # cache the first wrote) ends with the same logits
    lean = llama.Llama(C, WEIGHTS, threads=2)
    assert lean.generate(PROMPT, len(TOKENS)) == TOKENS
    lean.reset()
    lean.prefill(PROMPT[:5])
    assert np.abs(lean.prefill(PROMPT[5:]) - want[len(PROMPT) - 1]).max() <= TOL


@pytest.mark.parametrize("form", ["bf16", "q8", "q8_0"])
def test_weight_forms(form):
    """Each form against the NumPy decoder over the weights it stands for;
    q8_0 also quantizes each projection's input, in float64 there and f32
    in tilec, so a value within rounding of a code's halfway point may take
    the next code (one code of one activation: a logit moves by ~1e-2): most
    rows agree within TOL and none by more than a few such codes."""
    model = llama.Llama(C, WEIGHTS, weights_as=form, threads=2, all_logits=True)
    logits, picks = run(model, PROMPT, 12)
    packed = llama.Llama(C, WEIGHTS, weights_as=form, threads=2, all_logits=True, pack_weights=True)
    np.testing.assert_array_equal(run(packed, PROMPT, 12)[0], logits)  # packed once or at each call: the same
    want = numpy_logits(C, model.effective, PROMPT + picks[:-1], q8_0 if form == "q8_0" else lambda x: x)
    rows = np.abs(logits - want).max(-1)
    if form == "q8_0":
        assert (rows <= TOL).mean() >= 0.8 and rows.max() <= 0.1, rows
    else:
        assert rows.max() <= TOL
    assert picks == [int(row.argmax()) for row in want[len(PROMPT) - 1:]]


def test_sampling_is_seeded():
    model = llama.Llama(C, WEIGHTS, threads=2)
    a = model.generate(PROMPT, 10, temperature=0.8, top_k=20, seed=5)
    assert a == model.generate(PROMPT, 10, temperature=0.8, top_k=20, seed=5)
    assert all(0 <= t < C.vocab_size for t in a)
    logits = np.arange(C.vocab_size, dtype=np.float32)
    rng = np.random.default_rng(0)
    assert {model.sample(logits, 1.0, 2, rng) for _ in range(50)} == {254, 255}  # only the top 2 are drawn


def test_errors():
    with pytest.raises(KeyError, match="weights missing"):
        llama.Llama(C, {k: v for k, v in WEIGHTS.items() if "layers.1." not in k})
    model = llama.Llama(C, WEIGHTS, threads=2)
    with pytest.raises(ValueError, match="does not fit"):
        model.prefill(list(range(129)))  # past the context of 128
    model.prefill(list(range(120)))
    with pytest.raises(ValueError, match="does not fit"):
        model.prefill(PROMPT + [1])  # 120 + 9 rows
