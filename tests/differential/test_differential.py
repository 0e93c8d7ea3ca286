"""The differential suite: every case in tests/differential/cases/ against real PyTorch.

One test per API (all its cases compared; the failure lists every disagreeing case with
torch's and the spec's result). Run it with `pytest -m torch tests/differential`.
"""
from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="the differential suite needs real PyTorch (pip install torch==2.13.0)")

from . import harness as H  # noqa: E402
from .allowlist import ALLOW  # noqa: E402

pytestmark = pytest.mark.torch

_FAMILIES, _LOAD_ERRORS = H.load_case_files()
_BY_API = H.cases_by_api(_FAMILIES)


@pytest.mark.parametrize("family", sorted(set(_FAMILIES) | set(_LOAD_ERRORS)))
def test_case_file_loads(family):
    if family in _LOAD_ERRORS:
        pytest.fail(f"tests/differential/cases/{family}.py does not load:\n{_LOAD_ERRORS[family]}",
                    pytrace=False)
    assert _FAMILIES[family], f"cases/{family}.py defines no CASES"


@pytest.mark.parametrize("api", sorted(_BY_API))
def test_api(api):
    results = H.run_api(api, [c for _, c in _BY_API[api]])
    H.RECORDED.extend(results)
    if any(r.failed for r in results):
        pytest.fail(H.format_failures(api, results), pytrace=False)


def test_allowlist_entries_name_cased_apis():
    """Every allow-list entry is for an API that has cases (else it is dead weight)."""
    dead = [f"{e.api}: {e.reason}" for e in ALLOW if e.api not in _BY_API]
    assert not dead, "allow-list entries for APIs without cases:\n" + "\n".join(dead)
