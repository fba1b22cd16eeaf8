"""A Llama-architecture decoder on tilec's kernels (docs/models.md).

    from tilec.models import llama
    model = llama.Llama(llama.TINY, llama.random_weights(llama.TINY, seed=0), threads=2)
    tokens = model.generate([1, 2, 3], 16)               # greedy
    logits = model.prefill([1, 2, 3])                    # the last token's logits (model.reset() first)

The model is two tilec modules (docs/modules.md) over the kernels of
models/llama: `prefill` runs a prompt's T tokens (T and the context L
runtime sizes), `decode` one token (L a runtime size) and picks the next
by argmax in the same call.  Weights stay where the caller has them (f32),
or are converted once to bf16, to int8 with one f32 scale per output row
(weights="bf16" / "q8"), or to llama.cpp's Q8_0 (weights="q8_0": int8 with
an f32 scale per group of 32 weights of a row, and each projection's input
quantized the same way per token, the products on int8 dot products).  The
KV caches are the modules' outputs, head-major [Hkv, S, Dh] per layer, S
the context the model was built for.

`python -m tilec.models.llama --help`: generation with a progress line, and
`--check`, which compares the logits with transformers' LlamaForCausalLM."""
import argparse
import dataclasses
import functools
import json
import os
import sys
import time

import numpy as np

import tilec
from tilec import _DTYPES, _SCALARS
from tilec.models import kernel_dir

F32, I32, I8 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.int8)
BF16 = _DTYPES[_SCALARS.index("bf16")]
WEIGHT_TYPES = ("f32", "bf16", "q8", "q8_0")
Q8_0_GROUP = 32  # llama.cpp's Q8_0 block
# The prompt GEMMs' buckets of token counts (compile option bucket_cuts).
# With the default cuts (2, 256, 4096) the planner serves 2..255 tokens with
# one plan chosen from the middle and both ends, and its model picks the
# token blocks' order outermost, which measured 3.5x slower at 128 tokens
# than the weight panels outermost (the issue "The planner's model tells the
# truth" is where it learns that); with these cuts each bucket's plan runs
# as fast as a kernel compiled for its exact size (measured at 8, 32, 128
# and 200 tokens, 2048 x 768 weights, one thread, AMD EPYC Zen 4).
PROMPT_CUTS = "2,16,64,256"


@dataclasses.dataclass(frozen=True)
class Config:
    """The fields of transformers' LlamaConfig the decoder needs."""
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    head_dim: int = 0  # 0: hidden_size / num_attention_heads
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    max_position_embeddings: int = 2048
    tie_word_embeddings: bool = False

    @property
    def dh(self):
        return self.head_dim or self.hidden_size // self.num_attention_heads

    @classmethod
    def from_dict(cls, d):
        """From a config.json's fields (or LlamaConfig.to_dict()); rope_theta
        may sit in rope_parameters (transformers 5) or rope_scaling-free."""
        rope = d.get("rope_parameters") or {}
        if rope.get("rope_type", "default") != "default" or d.get("rope_scaling"):
            raise ValueError("tilec.models.llama: only the default RoPE (no scaling) is supported")
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in d.items() if k in fields and v is not None}
        if "rope_theta" in rope:
            values["rope_theta"] = rope["rope_theta"]
        values.setdefault("num_key_value_heads", values.get("num_attention_heads"))
        return cls(**values)

    def to_dict(self):
        """transformers' LlamaConfig keyword arguments."""
        d = dataclasses.asdict(self)
        d["head_dim"] = self.dh
        return d


# A configuration small enough for the test suite: 2 layers, grouped-query
# attention (4 query heads over 2 KV heads), a 256-token vocabulary.
TINY = Config(vocab_size=256, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              intermediate_size=128, max_position_embeddings=128)


def weight_names(c):
    """The weights as transformers' LlamaForCausalLM names them, with shapes."""
    d, f, hq, hkv = c.hidden_size, c.intermediate_size, c.num_attention_heads * c.dh, c.num_key_value_heads * c.dh
    shapes = {"model.embed_tokens.weight": (c.vocab_size, d)}
    for i in range(c.num_hidden_layers):
        p = f"model.layers.{i}."
        shapes.update({p + "input_layernorm.weight": (d,), p + "self_attn.q_proj.weight": (hq, d),
                       p + "self_attn.k_proj.weight": (hkv, d), p + "self_attn.v_proj.weight": (hkv, d),
                       p + "self_attn.o_proj.weight": (d, hq), p + "post_attention_layernorm.weight": (d,),
                       p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d),
                       p + "mlp.down_proj.weight": (d, f)})
    shapes["model.norm.weight"] = (d,)
    if not c.tie_word_embeddings:
        shapes["lm_head.weight"] = (c.vocab_size, d)
    return shapes


def random_weights(c, seed=0):
    """Weights from a seed, the same on every machine (PCG64's uniform
    doubles): matrices uniform with unit-variance rows out, norms near 1."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in weight_names(c).items():
        u = rng.random(shape) * 2 - 1
        if len(shape) == 1:
            weights[name] = (1 + 0.1 * u).astype(np.float32)
        else:
            scale = 1.0 if "embed" in name else np.sqrt(3.0 / shape[1])
            weights[name] = (u * scale).astype(np.float32)
    return weights


def to_bf16(w):
    """f32 → bf16 bits, rounded to nearest even (as torch's .to(bfloat16))."""
    u = np.ascontiguousarray(w, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16).view(BF16)


def from_bf16(bits):
    return (np.ascontiguousarray(bits).view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_q8(w):
    """Symmetric int8 with one f32 scale per output row: w ≈ q · s[:, None]."""
    s = (np.abs(w).max(axis=1) / 127).astype(np.float32)
    s[s == 0] = 1
    q = np.clip(np.rint(w / s[:, None]), -127, 127).astype(np.int8)
    return q, s.reshape(1, -1)


def to_q8_0(w):
    """llama.cpp's Q8_0 of each row's groups of 32 weights, with
    quantize_q8.tir's arithmetic (f32): d = max|w| / 127 and codes round(w /
    d) halfway away from zero (0 for an all-zero group); stored biased, u =
    q + 128 as u8 (the operand of the u8 × i8 dot products, gemv_q8q.tir):
    w ≈ (u − 128) · d per group."""
    n, k = w.shape
    if k % Q8_0_GROUP:
        raise ValueError(f"tilec.models.llama: q8_0 needs rows of a multiple of {Q8_0_GROUP} weights, not {k}")
    blocks = np.ascontiguousarray(w, np.float32).reshape(n, k // Q8_0_GROUP, Q8_0_GROUP)
    amax = np.abs(blocks).max(-1)
    d = amax / np.float32(127)
    scaled = (blocks * (np.float32(1) / np.where(amax > 0, d, np.float32(1)))[..., None]).astype(np.float64)
    q = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    return (q + 128).astype(np.uint8).reshape(n, k), d.astype(np.float32)


def from_q8_0(u, d):
    """The f32 weights Q8_0's (u, d) stand for."""
    n, k = u.shape
    q = u.astype(np.float32).reshape(n, -1, Q8_0_GROUP) - np.float32(128)
    return (q * d[..., None]).reshape(n, k).astype(np.float32)


def _f32(array):
    """A weight as a C-contiguous f32 NumPy array (a torch tensor too)."""
    if hasattr(array, "detach"):
        array = array.detach().float().cpu().numpy()
    return np.ascontiguousarray(array, np.float32)


class Llama:
    """The decoder, built once for a context of up to max_context tokens
    (default: the config's max_position_embeddings, at most 4096) and
    prompts of up to max_prompt tokens (default: max_context).  weights: a
    dict of arrays under transformers' names (weight_names); weights_as:
    "f32", "bf16" or "q8".  all_logits: prefill returns every prompt
    token's logits, not only the last one's (--check).  pack_weights: the
    prompt GEMMs' weights packed into panels once, at build, instead of at
    every prefill (a second copy of those weights)."""

    def __init__(self, config, weights, *, weights_as="f32", threads=None, max_context=None, max_prompt=None,
                 all_logits=False, pack_weights=False, progress=None):
        if weights_as not in WEIGHT_TYPES:
            raise ValueError(f"tilec.models.llama: weights_as is one of {', '.join(WEIGHT_TYPES)}")
        c = self.config = config
        if c.num_attention_heads % c.num_key_value_heads:
            raise ValueError("tilec.models.llama: the query heads must be a multiple of the KV heads")
        self.weights_as, self.all_logits, self.pack_weights = weights_as, all_logits, pack_weights
        self.S = -(-min(max_context or c.max_position_embeddings, 4096) // 16) * 16  # whole blocks of 16 rows
        self.P = min(max_prompt or self.S, self.S)
        self.runtime = tilec.Runtime(threads)
        self._dir = kernel_dir("llama")
        self._kernels, self._progress = {}, progress
        self.compile_seconds = 0.0
        self._weights(weights)
        self.caches = [np.zeros((c.num_key_value_heads, self.S, c.dh), np.float32)
                       for _ in range(2 * c.num_hidden_layers)]
        self.decode_module = self._build(decode=True)
        self.prefill_module = self._build(decode=False)
        self._tok, self._pos, self._next, self._pick = (np.zeros(1, I32) for _ in range(4))
        self._logits1 = np.zeros(c.vocab_size, np.float32)
        self.pos = 0

    # ---- weights ----

    def _weights(self, weights):
        """Each weight once in the form the kernels read (bf16 and q8
        converted here)."""
        c, self.w = self.config, {}
        missing = [n for n in weight_names(c) if n not in weights and not (n == "lm_head.weight" and
                                                                          "model.embed_tokens.weight" in weights)]
        if missing:
            raise KeyError(f"tilec.models.llama: weights missing: {', '.join(missing[:4])}"
                           f"{' …' if len(missing) > 4 else ''}")
        shapes = dict(weight_names(c))
        if c.tie_word_embeddings:  # the projection reads the embedding's matrix, in the projections' form
            shapes["lm_head.weight"] = shapes["model.embed_tokens.weight"]
        for name, shape in shapes.items():
            w = _f32(weights["model.embed_tokens.weight" if name not in weights else name])
            if w.shape != shape:
                raise ValueError(f"tilec.models.llama: {name} has shape {w.shape}, the config says {shape}")
            if len(shape) == 2 and "embed" not in name and self.weights_as != "f32":
                convert = {"bf16": lambda a: (to_bf16(a),), "q8": to_q8, "q8_0": to_q8_0}[self.weights_as]
                self.w[name] = convert(w)
            else:
                self.w[name] = (w.reshape(1, -1) if len(shape) == 1 else w,)
        self.inv_freq = (1.0 / (c.rope_theta ** (np.arange(0, c.dh, 2, dtype=np.int64).astype(np.float32) / c.dh))
                         ).astype(np.float32)
        self.eps = np.array([c.rms_norm_eps], np.float32)

    @property
    def effective(self):
        """The f32 weights the model computes with, under transformers' names
        (bf16 and int8 weights as the values they stand for; made on each
        call: a copy of every matrix in those forms)."""
        out = {}
        for name, arrays in self.w.items():
            if self.weights_as == "bf16" and arrays[0].dtype == BF16:
                out[name] = from_bf16(arrays[0])
            elif self.weights_as == "q8" and arrays[0].dtype == np.int8:
                out[name] = (arrays[0].astype(np.float32) * arrays[1].reshape(-1, 1)).astype(np.float32)
            elif self.weights_as == "q8_0" and arrays[0].dtype == np.uint8:
                out[name] = from_q8_0(*arrays)
            else:
                out[name] = arrays[0].reshape(-1) if arrays[0].shape[0] == 1 and name.endswith("norm.weight") \
                    else arrays[0]
        return out

    # ---- kernels and modules ----

    def _kernel(self, name, options=None, cold=False, **params):
        key = (name, tuple(sorted(params.items())), tuple(sorted((options or {}).items())), cold)
        if key not in self._kernels:
            start = time.perf_counter()
            self._kernels[key] = tilec.compile(os.path.join(self._dir, name + ".tir"), runtime=self.runtime,
                                               options=options, cold=cold, **params)
            self.compile_seconds += time.perf_counter() - start
            if self._progress:
                chosen = self._kernels[key].chosen_how
                self._progress(f"compiled {name} {params}{', chose ' + chosen if chosen else ''} "
                               f"({len(self._kernels)} kernels, {self.compile_seconds:.1f} s)")
        return self._kernels[key]

    def _quantized(self, m, x, k, one):
        """What the projections of a k-wide input x read: x itself, or with
        q8_0 weights its Q8_0 (quantize_q8.tir, `one` row or the prompt's T)
        in the module's temporaries: codes, word and group sums, scales."""
        if self.weights_as != "q8_0":
            return x
        m.step(self._kernel("quantize_q8", K=k, **({"T": 1} if one else {})), x, *self._q8_0)
        return self._q8_0

    def _linear(self, m, consts, decode, x, name, y, rows=None):
        """y = x · Wᵀ for weight `name` (x as _quantized gave it): a GEMV at
        one token (decode, or a prompt's last row: gemv*.tir), else a GEMM
        over the prompt's T tokens (linear*.tir)."""
        n, k = self.w[name][0].shape
        form = {"f32": "", "bf16": "_bf16", "q8": "_q8", "q8_0": "_q8q"}[self.weights_as]
        if decode or rows == 1:  # its blocks timed cold: a step streams the weights from memory
            kernel = self._kernel("gemv" + form, N=n, K=k, cold=True)
        else:
            kernel = self._kernel("linear" + form, N=n, K=k, BT=8, options={"bucket_cuts": PROMPT_CUTS})
        if self.weights_as == "q8_0":  # codes, then the dots' starting values: per word (GEMV) or group (GEMM)
            codes, words, groups, scales = x
            x = (codes, words if decode or rows == 1 else groups, scales)
        else:
            x = (x,)
        m.step(kernel, *x, *consts[name], y)

    def _build(self, decode):
        c, S = self.config, self.S
        hq, hkv, dh, d = c.num_attention_heads, c.num_key_value_heads, c.dh, c.hidden_size
        m = tilec.Module("decode" if decode else "prefill", **({"L": (1, S)} if decode else {"T": (1, self.P),
                                                                                              "L": (1, S)}))
        tokens, pos = m.input("tokens", I32), m.input("pos", I32)
        logits = m.output("logits", F32)
        nxt = m.output("next", I32) if decode else None
        caches = [m.output(f"{'kv'[i % 2]}{i // 2}", F32) for i in range(2 * c.num_hidden_layers)]
        consts = {name: tuple(m.constant(name + (f"#{j}" if j else ""), a) for j, a in enumerate(arrays))
                  for name, arrays in self.w.items()}
        eps, freq = m.constant("eps", self.eps), m.constant("inv_freq", self.inv_freq)
        zeros = m.constant("zeros", np.zeros((1 if decode else self.P, d), np.float32))
        h, xn, q, k, v, o, dlt, g, u = (m.temporary(n, F32) for n in ("h", "xn", "q", "k", "v", "o", "d", "g", "u"))
        if self.weights_as == "q8_0":
            self._q8_0 = tuple(m.temporary(n, t) for n, t in (("xq", I8), ("xq_words", I32), ("xq_groups", I32),
                                                               ("xq_scales", F32)))
        T1 = dict(T=1) if decode else {}
        K = self._kernel
        Q = functools.partial(self._quantized, m)
        m.step(K("embedding", V=c.vocab_size, D=d, **T1), tokens, consts["model.embed_tokens.weight"][0], h)
        prev = zeros
        for i in range(c.num_hidden_layers):
            p = f"model.layers.{i}."
            m.step(K("add_rmsnorm", D=d, **T1), h, prev, consts[p + "input_layernorm.weight"][0], eps, xn)
            qx = Q(xn, d, decode)
            for proj, out in (("q", q), ("k", k), ("v", v)):
                self._linear(m, consts, decode, qx, p + f"self_attn.{proj}_proj.weight", out)
            m.step(K("rope", H=hq, Dh=dh, **T1), q, freq, pos)
            m.step(K("rope_append", Hkv=hkv, Dh=dh, S=S, **T1), k, v, freq, pos, caches[2 * i], caches[2 * i + 1])
            if decode:
                m.step(K("attention_decode", Hq=hq, Hkv=hkv, Dh=dh, S=S), q, caches[2 * i], caches[2 * i + 1], o)
            else:
                m.step(K("attention_prefill", Hq=hq, Hkv=hkv, Dh=dh, S=S), q, caches[2 * i], caches[2 * i + 1], o)
            self._linear(m, consts, decode, Q(o, hq * dh, decode), p + "self_attn.o_proj.weight", dlt)
            m.step(K("add_rmsnorm", D=d, **T1), h, dlt, consts[p + "post_attention_layernorm.weight"][0], eps, xn)
            qx = Q(xn, d, decode)
            self._linear(m, consts, decode, qx, p + "mlp.gate_proj.weight", g)
            self._linear(m, consts, decode, qx, p + "mlp.up_proj.weight", u)
            m.step(K("swiglu", F=c.intermediate_size, **T1), g, u, g)
            self._linear(m, consts, decode, Q(g, c.intermediate_size, decode), p + "mlp.down_proj.weight", dlt)
            prev = dlt
        m.step(K("add_rmsnorm", D=d, **T1), h, prev, consts["model.norm.weight"][0], eps, xn)
        if decode:
            self._linear(m, consts, True, Q(xn, d, True), "lm_head.weight", logits)
            m.step(K("argmax", V=c.vocab_size), logits, nxt)
        elif self.all_logits:
            self._linear(m, consts, False, Q(xn, d, False), "lm_head.weight", logits)
        else:
            last = m.temporary("last", F32)
            m.step(K("last_row", D=d), xn, last)
            self._linear(m, consts, False, Q(last, d, True), "lm_head.weight", logits, rows=1)
        if self.pack_weights and not decode:
            m.pack_constants()
        return m.finish()

    # ---- running ----

    def reset(self):
        """Forgets the context (the caches' rows past it are never read)."""
        self.pos = 0

    def prefill(self, tokens):
        """Runs a prompt at the current position; returns the last token's
        logits [V] (every token's [T, V] with all_logits)."""
        ids = np.ascontiguousarray(tokens, np.int32).reshape(-1)
        t = len(ids)
        if not 1 <= t <= self.P or self.pos + t > self.S:
            raise ValueError(f"tilec.models.llama: a prompt of {t} tokens at position {self.pos} does not fit "
                             f"(prompts 1..{self.P}, context {self.S})")
        self._pos[0] = self.pos
        logits = np.zeros((t if self.all_logits else 1, self.config.vocab_size), np.float32)
        self.prefill_module(ids, self._pos, logits, *self.caches, T=t, L=self.pos + t)
        self.pos += t
        return logits if self.all_logits else logits[0]

    def decode(self, token):
        """One token at the current position: its logits [V] (a view the
        next call overwrites) and the argmax of them."""
        if self.pos >= self.S:
            raise ValueError(f"tilec.models.llama: the context of {self.S} tokens is full")
        self._tok[0], self._pos[0] = token, self.pos
        self.decode_module(self._tok, self._pos, self._logits1, self._next, *self.caches, L=self.pos + 1)
        self.pos += 1
        return self._logits1, int(self._next[0])

    def generate(self, prompt, new_tokens, *, temperature=0.0, top_k=0, seed=0, on_token=None):
        """The prompt's continuation by new_tokens tokens: greedy at
        temperature 0, else sampled (softmax at the temperature over the
        top_k logits, 0: all; sample()) with draws from a generator seeded
        with `seed`.
        on_token(token, seconds) after each."""
        self.reset()
        rng = np.random.default_rng(seed)
        logits = self.prefill(prompt)
        pick = int(np.argmax(logits)) if temperature == 0 else self.sample(logits, temperature, top_k, rng)
        out = []
        start = time.perf_counter()
        for i in range(new_tokens):
            out.append(pick)
            if on_token:
                on_token(pick, time.perf_counter() - start)
            if i + 1 == new_tokens:
                break
            logits, top = self.decode(pick)
            pick = top if temperature == 0 else self.sample(logits, temperature, top_k, rng)
        return out

    def sample(self, logits, temperature, top_k, rng):
        """A token drawn from softmax(logits / temperature) over the top_k
        largest logits (0: all) by sample.tir, with a uniform draw from rng
        (a numpy.random.Generator)."""
        if not temperature > 0:
            raise ValueError("tilec.models.llama: sampling takes a temperature > 0 (0 is greedy: argmax)")
        v = self.config.vocab_size
        block = next(b for b in (64, 32, 16, 8, 4, 2, 1) if v % b == 0)
        kernel = self._kernel("sample", V=v, K=top_k if 0 < top_k < v else 0, BS=block)
        logits = np.ascontiguousarray(logits, np.float32).reshape(v // block, block)
        kernel(logits, temperature, float(rng.random(dtype=np.float32)), self._pick)
        return int(self._pick[0])


# ---- transformers, for --check and for loading weights ----

def transformers_model(config, weights):
    """transformers' LlamaForCausalLM (PyTorch, f32, eager attention) with
    these weights."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(**config.to_dict(), attn_implementation="eager")
    model = LlamaForCausalLM(cfg).float().eval()
    state = {n: torch.from_numpy(np.ascontiguousarray(w)) for n, w in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [n for n in missing if "rotary" not in n and not (n == "lm_head.weight" and
                                                                      config.tie_word_embeddings)]:
        raise ValueError(f"transformers' model did not take the weights: missing {missing}, unexpected {unexpected}")
    return model


def reference_logits(config, weights, prompt, new_tokens):
    """transformers' logits for the prompt and each greedily picked token
    after it, decoded one at a time through its KV cache: ([T, V] for the
    prompt, [new_tokens − 1, V] for the steps, the tokens picked)."""
    import torch
    model = transformers_model(config, weights)
    with torch.no_grad():
        out = model(torch.tensor([prompt]), use_cache=True)
        prompt_logits = out.logits[0].numpy().copy()
        cache, pick, steps, picks = out.cache, int(prompt_logits[-1].argmax()), [], []
        for _ in range(new_tokens):
            picks.append(pick)
            if len(picks) == new_tokens:
                break
            out = model(torch.tensor([[pick]]), cache=cache, use_cache=True)
            cache = out.cache
            steps.append(out.logits[0, -1].numpy().copy())
            pick = int(steps[-1].argmax())
    return prompt_logits, np.array(steps, np.float32).reshape(-1, config.vocab_size), picks


def load(path):
    """(config, weights) from a transformers checkpoint directory:
    config.json and *.safetensors."""
    from safetensors.numpy import load_file
    with open(os.path.join(path, "config.json")) as f:
        config = Config.from_dict(json.load(f))
    weights = {}
    for name in sorted(os.listdir(path)):
        if name.endswith(".safetensors"):
            weights.update(load_file(os.path.join(path, name)))
    return config, weights


def _config(args):
    if args.model:
        return load(args.model)
    c = TINY if args.config == "tiny" else Config.from_dict(json.loads(args.config))
    return c, random_weights(c, args.seed)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tilec generate", description="Generate tokens with a Llama-architecture "
                                 "decoder on tilec's kernels (random weights from a seed unless --model is given).")
    ap.add_argument("--model", help="a transformers checkpoint directory (config.json, *.safetensors)")
    ap.add_argument("--config", default="tiny", help="with no --model: 'tiny' or a config as JSON (random weights)")
    ap.add_argument("--seed", type=int, default=0, help="the random weights' seed, and the sampler's")
    ap.add_argument("--weights", choices=WEIGHT_TYPES, default="f32", help="the weights' form (default f32)")
    ap.add_argument("--prompt", default="1,2,3,4,5,6,7,8", help="token ids, comma-separated")
    ap.add_argument("-n", "--tokens", type=int, default=16, help="tokens to generate")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--top-k", type=int, default=0)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--context", type=int, help="the longest context (default: the config's, at most 4096)")
    ap.add_argument("--check", action="store_true", help="compare the logits with transformers' LlamaForCausalLM "
                    "(PyTorch) and the greedy tokens with its")
    args = ap.parse_args(argv)
    if args.check and args.weights == "q8_0":  # transformers has no quantized activations to compare with
        ap.error("--check compares with transformers' f32 activations; q8_0 rounds each projection's input as "
                 "llama.cpp does (python/tests/test_llama.py checks it against a NumPy decoder that does too)")
    prompt = [int(t) for t in args.prompt.split(",")]
    config, weights = _config(args)
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    model = Llama(config, weights, weights_as=args.weights, threads=args.threads, max_context=args.context,
                  all_logits=args.check, progress=say)
    say(f"built: {len(model._kernels)} kernels in {model.compile_seconds:.1f} s; "
        f"prefill {model.prefill_module.arena_bytes} arena bytes")
    if args.check:
        return _check(model, prompt, args.tokens)
    start = time.perf_counter()

    def progress(token, seconds):
        done = len(out) + 1
        rate = (done - 1) / seconds if seconds > 0 and done > 1 else 0.0
        print(f"\r{done}/{args.tokens} tokens, {rate:.1f} tokens/s", end="", file=sys.stderr, flush=True)
    out = []
    for tok in model.generate(prompt, args.tokens, temperature=args.temperature, top_k=args.top_k, seed=args.seed,
                              on_token=lambda t, s: (progress(t, s), out.append(t))):
        pass
    print(file=sys.stderr)
    print(",".join(map(str, out)))
    say(f"{args.tokens} tokens in {time.perf_counter() - start:.2f} s (prompt of {len(prompt)} included)")
    return 0


def _check(model, prompt, new_tokens):
    """transformers with the weights the model computes with (model.effective:
    bf16 and int8 weights as the f32 values they stand for; the vocabulary
    projection its own matrix even when the config ties it)."""
    untied = dataclasses.replace(model.config, tie_word_embeddings=False)
    ref_prompt, ref_steps, ref_tokens = reference_logits(untied, model.effective, prompt, new_tokens)
    model.reset()
    got_prompt = model.prefill(prompt)
    steps, tokens, pick = [], [], int(got_prompt[-1].argmax())
    for _ in range(new_tokens):
        tokens.append(pick)
        if len(tokens) == new_tokens:
            break
        logits, pick = model.decode(pick)
        steps.append(logits.copy())
    err_prompt = float(np.abs(got_prompt - ref_prompt).max())
    err_steps = float(np.abs(np.array(steps).reshape(ref_steps.shape) - ref_steps).max()) if steps else 0.0
    same = tokens == ref_tokens
    print(f"prompt logits: max abs error {err_prompt:.3g}; decode logits ({len(steps)} steps): {err_steps:.3g}; "
          f"greedy tokens {'equal' if same else 'differ'}: {tokens}")
    ok = max(err_prompt, err_steps) <= 1e-4 and same
    print("check: ok" if ok else "check: FAILED (tolerance 1e-4)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
