"""einops specs beyond the shared differential test. Failures are reported in einops' own words: for every einops case on which real
einops raises, the spec fails too, with the same message (whitespace joined; the items of a
printed set sorted, since einops prints Python sets in hash order). One deliberate exception:
a layer's bare `KeyError: <rank>` becomes einops' "Wrong shape" message."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("torch", reason="needs real PyTorch")
pytest.importorskip("einops", reason="needs real einops (the test extra)")

from . import harness as H  # noqa: E402

_SET = re.compile(r"\{([^{}:]*)\}")


def normalized(message: str) -> str:
    text = " ".join(message.split())
    return _SET.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


def _einops_cases():
    families, _ = H.load_case_files()
    return families.get("einops", [])


def _torch_error(case):
    t = H.run_torch(case)
    if t.kind != H.ERROR:
        return None
    return t.message.split(": ", 1)[1] if ": " in t.message else t.message


@pytest.mark.parametrize("api", sorted({c.api for c in _einops_cases()}))
def test_einops_errors_are_worded_like_einops(api):
    cases = [c for c in _einops_cases() if c.api == api]
    checked, wrong = 0, []
    for case in cases:
        expected = _torch_error(case)
        if expected is None:
            continue
        outcome, _ = H.run_spec_case(case)
        checked += 1
        got = outcome.message.split("] ", 1)[1] if outcome.kind == H.ERROR else f"<{outcome.kind}>"
        if expected.isdigit():
            # A layer given a rank it has no recipe for fails with `KeyError: <rank>`, which
            # says nothing; we say it with einops' functional wording instead.
            if re.fullmatch(rf"Wrong shape: expected >?=?\d+ dims\. Received {expected}-dim tensor\.", got):
                continue
        if normalized(got) != normalized(expected):
            wrong.append(f"{H.render(case)}\n  einops: {normalized(expected)}\n  spec:   {normalized(got)}")
    assert checked, f"no failing {api} case: the wording is not tested"
    assert not wrong, f"{len(wrong)} of {checked} messages differ:\n" + "\n".join(wrong)


# -- the cases can fail: deliberately wrong einops rules show up as disagreements ----------

def _einops_module():
    try:
        import shapesense.analysis.ops.einops as E
    except ImportError:  # pragma: no cover - a checkout without install
        import analysis.ops.einops as E
    return E


def _failing(api):
    cases = [c for c in _einops_cases() if c.api == api]
    return [r for r in H.run_api(api, cases, symbolic_every=1, allowlist=[]) if r.failed]


def test_a_rule_without_the_length_checks_is_caught(monkeypatch):
    checked = H.SP.OpContext.require

    def lenient(self, cond, code, message, repair=None):  # einops' own length checks vanish
        if not message.startswith("Shape mismatch"):
            checked(self, cond, code, message, repair)

    monkeypatch.setattr(H.SP.OpContext, "require", lenient)
    for api in ("einops.rearrange", "einops.repeat", "einops.reduce", "einops.layers.torch.Rearrange"):
        assert _failing(api), f"{api}: dropping einops' length checks went unnoticed"


def test_a_rule_that_keeps_reduced_axes_is_caught(monkeypatch):
    E = _einops_module()
    monkeypatch.setattr(E, "_reduce_call", lambda ctx, operation, op_text, t, dims, jit: t)
    assert _failing("einops.reduce"), "keeping the reduced axes went unnoticed"
    assert _failing("einops.layers.torch.Reduce"), "keeping the reduced axes went unnoticed"
