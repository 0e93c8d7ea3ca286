"""Differential suite plumbing: mark everything here `torch`, and summarize coverage."""
from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.torch)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    try:
        from . import harness as H
    except Exception:  # pragma: no cover
        return
    results = H.RECORDED
    if not results:
        return
    tr = terminalreporter
    apis = {r.case.api for r in results}
    agree = sum(r.verdict == H.AGREE for r in results)
    unknown = [r for r in results if r.verdict in (H.NOVERDICT, H.PARTIAL)]
    allowed = [r for r in results if r.failing and r.allowed is not None]
    failed = sum(r.failed for r in results)
    sym = [r for r in results if r.symbolic_verdict is not None]
    sym_ok = sum(r.symbolic_verdict == H.AGREE for r in sym)
    dtype = [r for r in results if r.dtype_note]
    tr.section("differential summary")
    tr.write_line(f"{len(apis)} APIs, {len(results)} cases: {agree} agree, {failed} failing, "
                  f"{len(unknown)} without verdict, {len(allowed)} allow-listed; "
                  f"symbolic {sym_ok}/{len(sym)} agree; {len(dtype)} dtype differences (not failures)")
    if config.getoption("verbose") > 0:
        for r in unknown:
            tr.write_line(f"  unknown  {r.text}: {H._short(r.spec.message, 120)}")
        for r in allowed:
            tr.write_line(f"  allowed  {r.text}: {r.allowed.reason}")
        for r in dtype:
            tr.write_line(f"  dtype    {r.text}: {r.dtype_note}")
