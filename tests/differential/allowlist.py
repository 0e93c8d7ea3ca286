"""The one allow-list of intended deviations between a spec and real PyTorch.

Each entry excuses the failing cases of one API (all of them, or the one `case`, or those
for which `when(case)` is true) and says why the spec deliberately differs. Allow-listed
cases never fail the differential suite; they are reported, and listed with their reason in
docs/ops.md. An entry that no longer excuses anything is reported as stale.

    Allow("Tensor.expand", "torch accepts -1 ... ; we report it as an error because ...",
          case=Case("Tensor.expand", (T(2, 3), -2, 3)))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .case import Case, T  # noqa: F401  (for entries)


@dataclass(frozen=True)
class Allow:
    api: str
    reason: str
    case: Case | None = None  # exactly this case; None: every case (subject to `when`)
    when: Callable | None = None  # a predicate over the Case


ALLOW: list[Allow] = [
]
