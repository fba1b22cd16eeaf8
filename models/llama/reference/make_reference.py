"""Writes tiny.npz: transformers' LlamaForCausalLM logits for the tiny
config (tilec.models.llama.TINY) with the random weights of seed 0, a
prompt and 16 greedy steps — what python/tests/test_llama.py checks tilec's
decoder against in `make test`, which needs no PyTorch.  `make check-model`
runs it with --compare: the committed file must be what transformers gives
today.  Run with the bench environment's Python (torch, transformers):

    PYTHONPATH=python build-bench/venv/bin/python models/llama/reference/make_reference.py [--compare]
"""
import argparse
import os
import sys

import numpy as np

from tilec.models import llama

HERE = os.path.dirname(os.path.abspath(__file__))
SEED, PROMPT, STEPS = 0, [1, 2, 3, 4, 5, 6, 7, 8], 16


def reference():
    import torch
    import transformers
    weights = llama.random_weights(llama.TINY, SEED)
    prompt_logits, step_logits, tokens = llama.reference_logits(llama.TINY, weights, PROMPT, STEPS)
    checksum = np.float64(sum(float(np.sum(w, dtype=np.float64)) for w in weights.values()))
    return dict(seed=np.int64(SEED), prompt=np.array(PROMPT, np.int32), prompt_logits=prompt_logits,
                step_logits=step_logits, tokens=np.array(tokens, np.int32), weights_checksum=checksum,
                made_by=np.array(f"transformers {transformers.__version__}, torch {torch.__version__}"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compare", action="store_true", help="compare with the committed tiny.npz instead of writing it")
    args = ap.parse_args()
    path = os.path.join(HERE, "tiny.npz")
    r = reference()
    if not args.compare:
        np.savez_compressed(path, **r)
        print(f"wrote {path}: {r['made_by']}, tokens {r['tokens'].tolist()}")
        return 0
    old = np.load(path)
    err = max(float(np.abs(old[k] - r[k]).max()) for k in ("prompt_logits", "step_logits"))
    same = (old["tokens"] == r["tokens"]).all() and old["weights_checksum"] == r["weights_checksum"]
    print(f"{path} against {r['made_by']}: max logit difference {err:.3g}, tokens and weights "
          f"{'the same' if same else 'DIFFER'}")
    return 0 if same and err <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
