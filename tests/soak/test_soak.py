"""The fuzz and soak run (tests/soak/soak.py) with a small budget, as CI runs it.

The long run is `python -m tests.soak.soak` (20,000 edits); SHAPESENSE_SOAK_EDITS sets
the number of edits here too. No time is asserted: a crash, a hang (any answer missing
for a minute) or final diagnostics that differ from a fresh server's fail it.
"""
from __future__ import annotations

import os

from tests.soak.soak import soak


def test_fuzz_then_random_edits_end_like_a_fresh_server():
    edits = int(os.environ.get("SHAPESENSE_SOAK_EDITS", "400"))
    report = soak(edits=edits, lines=250, seed=int(os.environ.get("SHAPESENSE_SOAK_SEED", "1")),
                  pace_ms=1.0, hover_every=20, fuzz_messages=150, seconds=90, timeout=60)
    assert report["fuzz_messages"] > 0 and report["edits"] > 0
    assert report["hover"]["n"] > 0  # every hover was answered (a silent one fails earlier)
    assert report["final_equal_fresh"], report.get("difference")
    assert sum(report["final_diagnostics"].values()) > 0  # the comparison had something to compare
