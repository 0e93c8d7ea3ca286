"""Every annotated sample in samples/ is checked by one function (tests/expectations.py)."""
from pathlib import Path

import pytest

from shapesense.analysis.db import AnalysisHost

from .expectations import check

SAMPLES = sorted((Path(__file__).parent.parent / "samples").rglob("*.py"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample(path):
    text = path.read_text()
    host = AnalysisHost(workspace_root=str(path.parent))
    host.set_file(str(path), text)
    problems = check(text, host.analyze(str(path)), lambda d: host.verified_fixes(str(path), d))
    assert not problems, "\n".join(problems)
