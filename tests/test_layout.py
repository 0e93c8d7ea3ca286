"""layout.view_strides (ATen's computeStride) agrees with real torch on permuted tensors."""
import itertools
import random

import pytest

from shapesense.analysis.layout import contiguous, view_strides

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _factorizations(n, parts):
    if parts == 1:
        return [(n,)]
    out = []
    for d in range(1, n + 1):
        if n % d == 0:
            out += [(d,) + rest for rest in _factorizations(n // d, parts - 1)]
    return out


def test_view_strides_match_torch():
    rng = random.Random(0)
    checked = 0
    for shape in [(2, 3, 4), (4, 1, 6), (2, 2, 2, 3), (1, 5, 4), (6, 4)]:
        numel = 1
        for d in shape:
            numel *= d
        for perm in itertools.permutations(range(len(shape))):
            x = torch.empty(shape).permute(perm)
            strides = tuple(contiguous(shape)[p] for p in perm)
            assert strides == x.stride()
            targets = [t for k in (1, 2, 3) for t in _factorizations(numel, k)]
            for new_shape in rng.sample(targets, min(12, len(targets))):
                ours = view_strides(tuple(x.shape), strides, new_shape)
                try:
                    theirs = x.view(new_shape).stride()
                except RuntimeError:
                    theirs = None
                assert (ours is None) == (theirs is None), (shape, perm, new_shape)
                if ours is not None and all(d != 1 for d in new_shape):
                    assert ours == theirs, (shape, perm, new_shape)
                checked += 1
    assert checked > 300
