#!/usr/bin/env python3
"""bench/model.py — the `model` family of `make bench`: a Llama decoder's
prefill and decode in tokens/s, tilec (tilec.models.llama) against
llama.cpp (llama-cpp-python, the same weights written as GGUF), PyTorch
eager and torch.compile (transformers' LlamaForCausalLM), plus the memory
bound of a decode step (docs/performance.md "The model family").

    bench/model.py [--size small,1b] [--kernel prefill,decode] [--peer NAME]... [--threads 1,2]
                   [--weights f32,bf16,q8,q8_0] [--prompts 128,512] [--contexts 128,1024,4096]
                   [--rounds N] [--python VENV_PYTHON] [--list]

Rows: `prefill` at prompts of 128 and 512 tokens, `decode` at contexts of
128, 1024 and 4096 (the step that writes the context's last row), for each
config, weight form and thread count.  Weights are random (seed 0), the
same for every peer: f32; bf16; int8 (q8) — tilec's one scale per output
row, llama.cpp's Q8_0 (a scale per 32 weights), PyTorch's f32 dequantized
(it has no int8 GEMV on the CPU; its row says so); and Q8_0 (q8_0) — tilec
and llama.cpp both a scale per 32 weights with each projection's input
quantized the same way (llama.cpp's arithmetic), PyTorch the weights'
values in f32.  A decode step at context C
runs with C − 1 rows already in the cache (tilec: its position set, the
cache rows whatever they hold; llama.cpp: a prompt of C − 1 tokens
evaluated once, then the step repeated after truncating to it; PyTorch: a
cache of C − 1 random rows).  The memory bound is the bytes a step must
read (every weight matrix once, in its form, and the KV cache's C rows)
over the bandwidth STREAM's Add (c = a + b, NumPy on as many threads)
measures.

Writes one JSON document (the drivers' format, bench/run) on stdout;
progress on stderr."""
import argparse
import dataclasses
import gc
import json
import os
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONFIGS = {
    # ~125M parameters: a small model every peer runs in seconds
    "small": dict(vocab_size=32000, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                  num_key_value_heads=4, intermediate_size=2048, max_position_embeddings=4096),
    # Llama 3.2 1B's shapes (untied, default RoPE)
    "1b": dict(vocab_size=128256, hidden_size=2048, num_hidden_layers=16, num_attention_heads=32,
               num_key_value_heads=8, intermediate_size=8192, head_dim=64, rope_theta=500000.0,
               max_position_embeddings=4096),
}
PROMPTS, CONTEXTS = (128, 512), (128, 1024, 4096)
PEERS = ("tilec", "llama.cpp", "torch", "torch.compile")


def log(msg):
    print(f"model: {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", action="append", default=[], help="configs (small, 1b; default both)")
    p.add_argument("--kernel", action="append", default=[], help="prefill, decode (default both)")
    p.add_argument("--peer", action="append", default=[], help="peers to run (default all)")
    p.add_argument("--weights", default="f32,bf16,q8,q8_0")
    p.add_argument("--prompts", default=",".join(map(str, PROMPTS)), help="prefill rows' prompt lengths")
    p.add_argument("--contexts", default=",".join(map(str, CONTEXTS)), help="decode rows' context lengths")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--round-ms", type=float, default=0, help="unused (the family times whole tokens)")
    p.add_argument("--warmup-ms", type=float, default=0, help="unused")
    p.add_argument("--python", help="the bench environment's Python (torch, transformers, llama_cpp)")
    p.add_argument("--list", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)  # one peer's job, in a process of its own (run_worker)
    a = p.parse_args(argv)
    split = lambda vs: [x for v in vs for x in v.split(",") if x]  # noqa: E731
    a.sizes = [s for s in CONFIGS if not a.size or s in split(a.size)]
    a.kernels = [k for k in ("prefill", "decode") if not a.kernel or k in split(a.kernel)]
    a.peers = [x for x in PEERS if not a.peer or x in split(a.peer)]
    a.weight_forms = split([a.weights])
    a.thread_counts = [int(t) for t in a.threads.split(",")]
    a.prompt_lengths = [int(n) for n in a.prompts.split(",") if n]
    a.context_lengths = [int(n) for n in a.contexts.split(",") if n]
    return a


def rows_of(a):
    for size in a.sizes:
        for form in a.weight_forms:
            for kernel in a.kernels:
                for n in a.prompt_lengths if kernel == "prefill" else a.context_lengths:
                    for threads in a.thread_counts:
                        yield size, form, kernel, n, threads


# ---- STREAM's Add, for the memory bound ----

def stream_gbs(threads, mib=512):
    import numpy as np
    n = mib * (1 << 20) // 12
    a, b, c = (np.ones(n, np.float32) for _ in range(3))
    parts = [slice(i * n // threads, (i + 1) * n // threads) for i in range(threads)]

    def run():
        ts = [threading.Thread(target=lambda s=s: np.add(a[s], b[s], out=c[s])) for s in parts]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    run()
    best = min(timed(run) for _ in range(5))
    return 3 * n * 4 / best / 1e9  # STREAM's Add: a and b read, c written, three arrays' bytes


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


# ---- peers ----

class TilecPeer:
    name = "tilec"

    def __init__(self, config, weights, form, threads, context):
        from tilec.models import llama
        self.model = llama.Llama(config, weights, weights_as=form, threads=threads, max_context=context,
                                 pack_weights=True)

    def prefill(self, tokens):
        self.model.reset()
        return self.model.prefill(tokens)

    def decode_at(self, context, token):
        self.model.pos = context - 1
        return self.model.decode(token)[0]


class LlamaCppPeer:
    name = "llama.cpp"

    def __init__(self, config, weights, form, threads, context):
        import llama_cpp
        self.path = write_gguf(config, weights, form)
        self.llm = llama_cpp.Llama(self.path, n_ctx=context, n_batch=512, n_ubatch=512, n_threads=threads,
                                   n_threads_batch=threads, logits_all=False, verbose=False)
        self.filled = 0

    def prefill(self, tokens):
        self.llm.reset()
        self.llm.eval(list(tokens))
        self.filled = 0
        return None

    def decode_at(self, context, token):
        if self.filled != context - 1:  # the context's rows, once
            self.llm.reset()
            self.llm.eval([1 + i % 100 for i in range(context - 1)])
            self.filled = context - 1
        self.llm.n_tokens = context - 1
        self.llm.eval([token])
        return None

    def close(self):
        self.llm.close()
        os.unlink(self.path)


class TorchPeer:
    name = "torch"
    compiled = False

    def __init__(self, config, weights, form, threads, context):
        import torch
        from tilec.models import llama
        torch.set_num_threads(threads)
        self.torch = torch
        w = dict(weights)
        if form in ("q8", "q8_0"):  # no int8 GEMV on the CPU: the weights they stand for, in f32
            for name, arr in w.items():
                if arr.ndim == 2 and "embed" not in name:
                    if form == "q8":
                        q, s = llama.to_q8(arr)
                        w[name] = (q.astype("float32") * s.reshape(-1, 1))
                    else:
                        w[name] = llama.from_q8_0(*llama.to_q8_0(arr))
        self.model = llama.transformers_model(config, w)
        if form == "bf16":
            self.model = self.model.to(torch.bfloat16)
        self.c = config
        self.forward = torch.compile(self.model, dynamic=True) if self.compiled else self.model
        self.cache_len = None

    def prefill(self, tokens):
        with self.torch.no_grad():
            return self.forward(self.torch.tensor([list(tokens)]), use_cache=False).logits[0, -1]

    def decode_at(self, context, token):
        torch = self.torch
        from transformers import DynamicCache
        with torch.no_grad():
            if self.cache_len != context - 1:
                c, dtype = self.c, next(self.model.parameters()).dtype
                self.cache = DynamicCache(config=self.model.config)
                for layer in range(c.num_hidden_layers):
                    kv = torch.randn(2, 1, c.num_key_value_heads, context - 1, c.dh, dtype=dtype)
                    self.cache.update(kv[0], kv[1], layer)
                self.cache_len = context - 1
            pos = torch.tensor([[context - 1]])
            out = self.forward(torch.tensor([[token]]), cache=self.cache, position_ids=pos, use_cache=True)
            self.cache.crop(-1)  # the step's row
            return out.logits[0, -1]


class TorchCompilePeer(TorchPeer):
    name = "torch.compile"
    compiled = True


PEER_CLASSES = {"tilec": TilecPeer, "llama.cpp": LlamaCppPeer, "torch": TorchPeer, "torch.compile": TorchCompilePeer}


def write_gguf(config, weights, form):
    """The weights as a llama.cpp GGUF file: F32, BF16 or Q8_0 matrices
    (norms and the token embedding F32), q/k rows permuted to llama.cpp's
    RoPE pairing, a placeholder vocabulary."""
    import gguf
    import numpy as np
    from tilec.models import llama
    c = config
    fd, path = tempfile.mkstemp(suffix=".gguf", dir=os.environ.get("TMPDIR"))
    os.close(fd)
    w = gguf.GGUFWriter(path, "llama")
    for key, value in (("context_length", c.max_position_embeddings), ("embedding_length", c.hidden_size),
                       ("block_count", c.num_hidden_layers), ("feed_forward_length", c.intermediate_size),
                       ("rope_dimension_count", c.dh), ("head_count", c.num_attention_heads),
                       ("head_count_kv", c.num_key_value_heads), ("key_length", c.dh), ("value_length", c.dh),
                       ("layer_norm_rms_eps", c.rms_norm_eps), ("rope_freq_base", c.rope_theta),
                       ("vocab_size", c.vocab_size), ("tokenizer_model", "llama"),
                       ("token_list", [f"<t{i}>".encode() for i in range(c.vocab_size)]),
                       ("token_scores", [0.0] * c.vocab_size), ("token_types", [1] * c.vocab_size),
                       ("bos_token_id", 1), ("eos_token_id", 2)):
        getattr(w, "add_" + key)(value)

    def permute(m, heads):
        return m.reshape(heads, 2, m.shape[0] // heads // 2, *m.shape[1:]).swapaxes(1, 2).reshape(m.shape)

    def matrix(name, m):
        if form == "f32":
            w.add_tensor(name, np.ascontiguousarray(m, np.float32))
        elif form == "bf16":
            bits = llama.to_bf16(m).view(np.uint16)
            w.add_tensor(name, bits, raw_shape=bits.shape, raw_dtype=gguf.GGMLQuantizationType.BF16)
        else:
            q = gguf.quants.quantize(np.ascontiguousarray(m, np.float32), gguf.GGMLQuantizationType.Q8_0)
            w.add_tensor(name, q, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    names = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
             "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
             "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}
    w.add_tensor("token_embd.weight", weights["model.embed_tokens.weight"])
    for i in range(c.num_hidden_layers):
        for hf, gg in names.items():
            m = weights[f"model.layers.{i}.{hf}.weight"]
            if hf == "self_attn.q_proj":
                m = permute(m, c.num_attention_heads)
            elif hf == "self_attn.k_proj":
                m = permute(m, c.num_key_value_heads)
            if m.ndim == 1:
                w.add_tensor(f"blk.{i}.{gg}.weight", m)
            else:
                matrix(f"blk.{i}.{gg}.weight", m)
    w.add_tensor("output_norm.weight", weights["model.norm.weight"])
    matrix("output.weight", weights["lm_head.weight"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


# ---- measuring ----

def bytes_per_step(config, form, context):
    """What a decode step reads: every weight matrix once in its form (the
    embedding one row), and the f32 KV cache's rows."""
    from tilec.models import llama
    per = {"f32": 4, "bf16": 2, "q8": 1, "q8_0": 1.125}[form]  # q8_0: an f32 scale per 32 weights (tilec's)
    total = 0
    for name, shape in llama.weight_names(config).items():
        if len(shape) == 1:
            total += 4 * shape[0]
        elif "embed" in name:
            total += 4 * shape[1]
        else:
            total += int(per * shape[0] * shape[1]) + (4 * shape[0] if form == "q8" else 0)
    kv = 2 * config.num_hidden_layers * config.num_key_value_heads * context * config.dh * 4
    return total + kv


def measure(peer, kernel, n, rounds):
    """Seconds per token: the median round of `rounds` after one warm-up."""
    if kernel == "prefill":
        tokens = [1 + i % 1000 for i in range(n)]
        peer.prefill(tokens)
        times = [timed(lambda: peer.prefill(tokens)) / n for _ in range(rounds)]
    else:
        peer.decode_at(n, 5)
        steps = 4
        times = [timed(lambda: [peer.decode_at(n, 5 + i) for i in range(steps)]) / steps for _ in range(rounds)]
    times.sort()
    return times[len(times) // 2], times[0], times[-1]


def ratios(row):
    """The drivers' ratio fields (bench/harness.c): tilec's time per token
    over each peer's (medians; the min and max over the rounds' extremes),
    the best peer, and tilec over the memory bound."""
    ok = {p["name"]: p for p in row["peers"] if p.get("status") == "ok"}
    t = ok.get("tilec")
    row["ratios"], row["best_peer"], row["ratio_to_best"], row["ratio_to_bound"] = [], None, None, None
    if not t:
        return
    for name, p in ok.items():
        if name == "tilec":
            continue
        r = {"peer": name, "median": t["median_us"] / p["median_us"]}
        if "min_us" in p:
            r.update(min=t["min_us"] / p["max_us"], max=t["max_us"] / p["min_us"])
        row["ratios"].append(r)
        if p.get("bound"):
            row["ratio_to_bound"] = r["median"]
        elif row["best_peer"] is None or p["median_us"] < ok[row["best_peer"]]["median_us"]:
            row["best_peer"] = name
    if row["best_peer"]:
        row["ratio_to_best"] = t["median_us"] / ok[row["best_peer"]]["median_us"]


def versions():
    out = {}
    for mod in ("torch", "transformers", "llama_cpp", "gguf", "numpy"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception as e:  # noqa: BLE001 — a missing peer is a result
            out[mod] = f"unavailable: {type(e).__name__}"
    import tilec
    out["tilec"] = tilec.version()
    return out


def main(argv):
    a = parse_args(argv)
    if a.python and os.path.realpath(sys.executable) != os.path.realpath(a.python):
        os.execv(a.python, [a.python, os.path.abspath(__file__)] + argv)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("TILEC_LIBRARY", os.path.join(ROOT, "build-bench", "libtilec.so"))
    from tilec.models import llama
    if a.worker:
        return worker(json.loads(a.worker))
    if a.list:
        for row in rows_of(a):
            print("%s %s %s %d threads=%d" % row)
        return 0
    doc = {"family": "model", "cpu": cpu_model(), "cores_online": os.cpu_count(),
           "protocol": {"rounds": a.rounds, "round": "prefill: the prompt once; decode: 4 steps",
                        "statistic": "median round after a warm-up", "isolation": "each peer in a process of its own"},
           "peer_versions": versions(),
           "bandwidth_gbs": {t: round(stream_gbs(t), 2) for t in a.thread_counts}}
    head = json.dumps(doc)[:-1] + ', "rows": ['
    print(head, flush=True)
    first = True
    groups = {}
    for size, form, kernel, n, threads in rows_of(a):
        groups.setdefault((size, form, threads), []).append((kernel, n))
    for (size, form, threads), cases in groups.items():
        config = llama.Config.from_dict(CONFIGS[size])
        rows = {case: {"kernel": case[0], "shape": f"{size}-{form}-{'p' if case[0] == 'prefill' else 'c'}{case[1]}",
                       "threads": threads, "unit": "tokens/s", "peers": []} for case in cases}
        for name in a.peers:
            log(f"{size} {form} {threads} threads: {name}")
            job = dict(size=size, form=form, threads=threads, peer=name, cases=cases, rounds=a.rounds,
                       context=max(a.context_lengths + a.prompt_lengths))
            for case, entry in zip(cases, run_worker(job)):
                rows[case]["peers"].append(entry)
        for (kernel, n), r in rows.items():
            if kernel == "decode":
                b = bytes_per_step(config, form, n)
                gbs = doc["bandwidth_gbs"][threads]
                r["peers"].append({"name": "bound", "status": "ok", "median_us": b / gbs / 1e3,
                                   "throughput": gbs * 1e9 / b, "bytes": b, "bound": True})
            ratios(r)
            print(("" if first else ",") + json.dumps(r), flush=True)
            first = False
    print("]}", flush=True)
    return 0


def run_worker(job):
    """One peer's rows of one (config, form, threads) group, in a process of
    its own (this file with --worker): no peer's threads, allocator or
    caches are left over for the next (a tilec row measured 1.4x slower
    right after PyTorch's in one process).  One entry per case."""
    import subprocess
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", json.dumps(job)],
                          stdout=subprocess.PIPE, stderr=None, text=True)
    try:
        entries = json.loads(proc.stdout.strip().splitlines()[-1])
        if len(entries) == len(job["cases"]):
            return entries
    except (ValueError, IndexError):
        pass
    why = f"its process ended with status {proc.returncode} and no results"
    return [{"name": job["peer"], "status": "error", "message": why} for _ in job["cases"]]


def worker(job):
    """Builds the peer with the group's weights and measures its cases:
    prints a JSON list of their entries."""
    from tilec.models import llama
    config = llama.Config.from_dict(CONFIGS[job["size"]])
    weights = llama.random_weights(config, 0)
    name, form = job["peer"], job["form"]
    try:
        t0 = time.perf_counter()
        peer = PEER_CLASSES[name](config, weights, form, job["threads"], job["context"])
        build_s = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 — a peer that cannot run is a result
        print(json.dumps([{"name": name, "status": "skipped", "message": f"{type(e).__name__}: {e}"[:300]}
                          for _ in job["cases"]]))
        return 0
    del weights
    gc.collect()
    out = []
    for kernel, n in job["cases"]:
        try:
            med, lo, hi = measure(peer, kernel, n, job["rounds"])
            entry = {"name": name, "status": "ok", "median_us": med * 1e6, "min_us": lo * 1e6, "max_us": hi * 1e6,
                     "throughput": 1 / med, "build_s": round(build_s, 2)}
            if name.startswith("torch") and form in ("q8", "q8_0"):
                entry["note"] = "the int8 weights dequantized to f32 (no int8 GEMV on the CPU)"
            log(f"  {kernel} {n}: {1 / med:.1f} tokens/s")
        except Exception as e:  # noqa: BLE001
            entry = {"name": name, "status": "error", "message": f"{type(e).__name__}: {e}"[:300]}
        out.append(entry)
    if hasattr(peer, "close"):
        peer.close()
    print(json.dumps(out), flush=True)
    return 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
