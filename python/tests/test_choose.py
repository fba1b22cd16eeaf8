"""Chosen parameters from Python (docs/tir.md "Chosen parameters"):
tilec.compile chooses a kernel's `NAME in {...}` parameters that its
keywords leave open and says how (kernel.chosen, kernel.chosen_how); under
`make test` (TILEC_CHOOSE=first) the first value listed; a keyword pins one;
cold=True times the choice cold and records it apart.
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


def test_cold(monkeypatch, tmp_path):
    """cold=True times the choice with the read-only arguments cold, and
    records it apart from a warm one (a fresh cache directory: measured)."""
    monkeypatch.setenv("TILEC_CHOOSE", "measure")
    monkeypatch.setenv("TILEC_CACHE", "1")
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    warm = tilec.compile(CHOSEN, kernel="blocked", threads=1)
    cold = tilec.compile(CHOSEN, kernel="blocked", threads=1, cold=True)
    assert warm.chosen_how.endswith("(measured)") and cold.chosen_how.endswith("(measured cold)")
    again = tilec.compile(CHOSEN, kernel="blocked", threads=1, cold=True)
    assert again.chosen_how.endswith("(measured cold on this host before)") and again.chosen == cold.chosen
    x = np.arange(4096, dtype=np.float32)
    assert np.array_equal(cold(x), x + 1)
