"""make_module.py — a module compiled ahead of time, and what the program
that runs it must reproduce (tests/cli/aot_module.sh).

    make_module.py DIR f32|q8

Builds the tiny Llama decoder (tilec.models.llama, seeded random weights,
weights as f32 or int8) and writes, for its prefill and its decode module:
the object and header (Module.compile_aot, symbols prefill_create and
decode_create), every constant as DIR/const.N.npy, and a manifest
DIR/manifest.txt of runs that tests/aot/module_program.c replays:

    module NAME                       the module the lines below are for
    const NAME FILE                   bind constant NAME to FILE's array
    run DIM...                        a run at these sizes; then one line
    arg FILE EXPECT                   per argument (inputs and outputs in
                                      order): its contents before the run
                                      and after ('-': an input, unchanged)

The expected contents are what the same modules produced in this process
(JIT), run after run: a prompt of 5 tokens, then 3 decode steps, each
decode step's caches those of the run before."""
import os
import sys

import numpy as np

from tilec.models import llama

out, weights_as = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
model = llama.Llama(llama.TINY, llama.random_weights(llama.TINY, seed=3), weights_as=weights_as, threads=2,
                    max_context=64)
lines, files = [], [0]


def save(array):
    name = f"a{files[0]}.npy"
    files[0] += 1
    np.save(os.path.join(out, name), np.ascontiguousarray(array))
    return name


for module in (model.prefill_module, model.decode_module):
    obj, header = module.compile_aot(symbol=f"{module.name}_m")
    with open(os.path.join(out, f"{module.name}_m.o"), "wb") as f:
        f.write(obj)
    with open(os.path.join(out, f"{module.name}_m.h"), "w") as f:
        f.write(header)
    lines.append(f"module {module.name}")
    lines += [f"const {v.name} {save(v.array)}" for v in module.values if v.kind == "constant"]


def run(module, arrays, **sizes):
    before = [a.copy() for a in arrays]
    module(*arrays, **sizes)
    lines.append(f"module {module.name}")
    lines.append("run " + " ".join(str(sizes[n]) for n in module.sizes))
    for v, b, a in zip(module.args, before, arrays):
        lines.append(f"arg {save(b)} {'-' if v.kind == 'input' else save(a)}")


c = llama.TINY
rng = np.random.default_rng(4)
prompt = rng.integers(0, c.vocab_size, 5).astype(np.int32)
logits = np.zeros((1, c.vocab_size), np.float32)
run(model.prefill_module, [prompt, np.zeros(1, np.int32), logits, *model.caches], T=5, L=5)
for step in range(3):
    token, pos = np.array([prompt[step]], np.int32), np.array([5 + step], np.int32)
    run(model.decode_module, [token, pos, np.zeros(c.vocab_size, np.float32), np.zeros(1, np.int32),
                              *model.caches], L=6 + step)
with open(os.path.join(out, "manifest.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
