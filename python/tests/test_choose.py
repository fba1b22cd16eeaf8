"""Chosen parameters from Python (docs/tir.md "Chosen parameters"):
tilec.compile chooses a kernel's `NAME in {...}` parameters that its
keywords leave open and says how (kernel.chosen, kernel.chosen_how); under
`make test` (TILEC_CHOOSE=first) the first value listed; a keyword pins one.
tests/tilec/test_choose.c measures."""
import os

import numpy as np

import tilec

CHOSEN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "kernels", "chosen.tir")


def test_chosen_parameters(monkeypatch):
    monkeypatch.setenv("TILEC_CHOOSE", "first")
    k = tilec.compile(CHOSEN, kernel="blocked", threads=1)
    assert k.chosen == {"B": 16, "U": 1} and k.chosen_how == "B=16 U=1 (first listed: policy first)"
    x = np.arange(4096, dtype=np.float32)
    assert np.array_equal(k(x), x + 1)
    pinned = tilec.compile(CHOSEN, kernel="blocked", threads=1, B=64, U=2)
    assert pinned.chosen == {} and pinned.chosen_how == ""
    assert np.array_equal(pinned(x), x + 1)
