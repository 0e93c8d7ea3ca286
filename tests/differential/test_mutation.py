"""The harness can fail: deliberately wrong rules must show up as disagreements.

Each test swaps a registered spec (or the dim-range helper every spec uses) for a wrong
one, runs the same cases through the harness, and asserts it reports the API as failing.
"""
from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("torch", reason="the mutation check runs real PyTorch")

from . import harness as H  # noqa: E402
from .allowlist import Allow  # noqa: E402
from .case import Case, T  # noqa: E402

pytestmark = pytest.mark.torch

SP, S = H.SP, H.S


def _cases(api):
    families, _ = H.load_case_files()
    cases = [c for fam in families.values() for c in fam if c.api == api]
    assert cases, f"no differential cases for {api}"
    return cases


def _failures(api, cases, allowlist=()):
    return [r for r in H.run_api(api, cases, symbolic_every=1, allowlist=list(allowlist))
            if r.failed]


def _replace(monkeypatch, api, fn):
    old = SP.REGISTRY[api]
    monkeypatch.setitem(SP.REGISTRY, api, dataclasses.replace(old, fn=fn))
    return old


def _off_by_one_last(out):
    return SP.TensorValue(out.shape[:-1] + (S.add(out.shape[-1], 1),), out.dtype)


def test_off_by_one_output_dim_is_caught(monkeypatch):
    api = "torch.nn.functional.linear"
    cases = _cases(api)
    baseline = len(_failures(api, cases))
    old = SP.REGISTRY[api]
    _replace(monkeypatch, api, lambda ctx, *a, **k: _off_by_one_last(old.fn(ctx, *a, **k)))
    bad = _failures(api, cases)
    assert len(bad) > baseline + 10
    assert any(r.verdict == H.DISAGREE and r.torch.kind == H.OK and r.spec.kind == H.OK for r in bad)
    assert "disagree with torch" in H.format_failures(api, H.run_api(api, cases))


def test_off_by_one_dim_range_is_caught(monkeypatch):
    """wrap_dim accepting dim == rank (an off-by-one range) must fail the softmax family."""
    api = "torch.nn.functional.softmax"
    cases = _cases(api)
    baseline = len(_failures(api, cases))

    def wrong_wrap_dim(self, dim, rank, code=SP.IMPROPER_VALUE):
        dim = self.known_int(dim)
        lo, hi = -max(rank, 1), max(rank, 1)  # should be rank - 1
        if not lo <= dim <= hi:
            self.fail(code, f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
        return dim + rank if dim < 0 else dim

    monkeypatch.setattr(SP.OpContext, "wrap_dim", wrong_wrap_dim)
    bad = _failures(api, cases)
    assert len(bad) > baseline
    assert any(r.torch.kind == H.ERROR and r.spec.kind == H.OK for r in bad)


SPLIT_CASES = [Case("torch.split", (T(6), 4)), Case("torch.split", (T(5, 2), 2)),
               Case("torch.split", (T(3, 7), 3, 1)), Case("torch.split", (T(4, 2), 1)),
               Case("torch.split", (T(10,), 3))]


def _split_as_parts(ctx, tensor, split_size_or_sections, dim=0):
    """The deliberate bug: an int split size read as the number of parts (like chunk)."""
    shape = list(ctx.shape(tensor))
    d = ctx.wrap_dim(dim, len(shape))
    if not isinstance(split_size_or_sections, int):
        raise SP.Unknowable("sections")
    parts, size = split_size_or_sections, ctx.known_int(shape[d])
    each = -(-size // parts)
    out = []
    while size > 0:
        shape[d] = min(each, size)
        out.append(SP.TensorValue(tuple(shape), tensor.dtype))
        size -= each
    return tuple(out)


def test_split_as_number_of_parts_is_caught(monkeypatch):
    api = "torch.split"
    if api in SP.REGISTRY:
        baseline = len(_failures(api, SPLIT_CASES))
        _replace(monkeypatch, api, _split_as_parts)
    else:  # no split spec yet: register the wrong one on its own
        baseline = 0
        monkeypatch.setitem(SP.REGISTRY, api, SP.OpSpec(api, _split_as_parts, H.inspect_signature(
            _split_as_parts), "function"))
    bad = _failures(api, SPLIT_CASES)
    assert len(bad) > baseline
    assert all(r.torch.kind == H.OK for r in bad)


def test_symbolic_only_bug_is_caught(monkeypatch):
    """A spec that is right on ints but wrong on symbols is caught by the symbolic check."""
    api = "torch.nn.functional.linear"
    cases = _cases(api)
    old = SP.REGISTRY[api]

    def wrong(ctx, *a, **k):
        out = old.fn(ctx, *a, **k)
        if any(isinstance(d, S.Expr) for d in out.shape):
            return _off_by_one_last(out)
        return out

    _replace(monkeypatch, api, wrong)
    results = H.run_api(api, cases, symbolic_every=1, allowlist=[])
    assert any(r.symbolic_verdict == H.DISAGREE and r.verdict == H.AGREE for r in results)
    assert any(r.failed for r in results)


def test_crashing_spec_is_a_failure_not_a_harness_crash(monkeypatch):
    api = "torch.nn.functional.linear"

    def boom(ctx, *a, **k):
        raise ZeroDivisionError("deliberate")

    _replace(monkeypatch, api, boom)
    results = H.run_api(api, _cases(api)[:3], allowlist=[])
    assert results and all(r.verdict == H.CRASH and r.failed for r in results)
    assert "ZeroDivisionError: deliberate" in H.format_failures(api, results)


def test_allowlist_excuses_a_deviation(monkeypatch):
    api = "torch.nn.functional.linear"
    cases = _cases(api)
    old = SP.REGISTRY[api]
    _replace(monkeypatch, api, lambda ctx, *a, **k: _off_by_one_last(old.fn(ctx, *a, **k)))
    assert _failures(api, cases)
    assert not _failures(api, cases, [Allow(api, "deliberate test deviation")])


def test_hanging_spec_is_a_failure(monkeypatch):
    import time

    api = "torch.nn.functional.linear"

    def hang(ctx, *a, **k):
        time.sleep(5)

    _replace(monkeypatch, api, hang)
    monkeypatch.setattr(H, "CASE_SECONDS", 0.2)
    results = H.run_api(api, _cases(api)[:1], allowlist=[])
    assert results[0].verdict == H.CRASH and results[0].failed
    assert "exceeded" in results[0].spec.message


def test_data_dependent_case_is_flagged():
    """A case whose torch outcome depends on drawn values (an integer divisor that may be
    zero) is reported as a bad case, not silently judged by one draw."""
    case = Case("torch.div", (T(4, 3, dtype="int64"), T(3, dtype="int64")), {"rounding_mode": "floor"})
    r = H.run_case(case)
    assert r.verdict == H.BAD and r.failed
    assert "depends on the tensor data" in r.torch.message


def test_fallback_z3_encoding_matches_python_semantics():
    """The harness's own encoding (used without analysis/solver.py) floors like Python."""
    a = S.sym("a")
    check = H.PinnedChecker({"a": 7})
    assert check(S.eq(S.floordiv(a - 10, 3), -1))[0] == "valid"  # (7 - 10) // 3 == -1
    assert check(S.eq(S.mod(a - 9, 3), 1))[0] == "valid"  # (7 - 9) % 3 == 1
    assert check(S.eq(S.dmax(a, S.sym("b") * 0 + 9), 9))[0] == "valid"
    assert check(S.lt(a, 7))[0] == "unsat"
    assert H.PinnedChecker({})(S.lt(a, 7))[0] == "contingent"
