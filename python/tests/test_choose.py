"""Chosen parameters from Python (docs/tir.md "Chosen parameters"):
tilec.compile chooses a kernel's `NAME in {...}` parameters that its
keywords leave open and says how (kernel.chosen, kernel.chosen_how); under
`make test` (TILEC_CHOOSE=first) the first value listed; a keyword pins one.
tests/tilec/test_choose.c measures."""
import numpy as np

import tilec

SOURCE = """kernel @blocked<N=1000, B in {16, 64}>(%X: const view<f32>[X.0=N], %Y: view<f32>[Y.0=N]) {
  parallel (%b: b=ceil_div(N, B)) {
    %bs = const index B
    %o  = mul %b, %bs
    %x  = load %X[%o] tile [i=B] bounds=zero
    %c  = const f32 1.0
    %y  = add %x, %c
    store %Y[%o] tile [i=B] bounds=zero, %y
  }
}
"""


def test_chosen_parameters(monkeypatch):
    monkeypatch.setenv("TILEC_CHOOSE", "first")
    k = tilec.compile(SOURCE, threads=1)
    assert k.chosen == {"B": 16} and k.chosen_how == "B=16 (first listed: policy first)"
    x = np.arange(1000, dtype=np.float32)
    assert np.array_equal(k(x), x + 1)
    pinned = tilec.compile(SOURCE, threads=1, B=64)
    assert pinned.chosen == {} and pinned.chosen_how == ""
    assert np.array_equal(pinned(x), x + 1)
