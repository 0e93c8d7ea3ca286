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


def _first_tensor_shape(case: Case):
    for a in case.args:
        if isinstance(a, T):
            return a.shape
    return ()


def _one_value_per_channel(case: Case) -> bool:
    """Batch statistics over a single value: N * H * W ... == 1 (channel dim excluded)."""
    shape = _first_tensor_shape(case)
    n = 1
    for i, d in enumerate(shape):
        if i != 1:
            n *= d
    return len(shape) >= 2 and n == 1


def _one_spatial_element(case: Case) -> bool:
    shape = _first_tensor_shape(case)
    n = 1
    for d in shape[2:] if len(shape) >= 3 else shape[1:]:
        n *= d
    return n == 1


_TRAINING_STATS = (
    "the training-mode check on batch statistics ('Expected more than 1 value per channel "
    "when training') is made only on concrete sizes: as a symbolic condition it would warn on "
    "every annotated model whose batch could be 1, so the symbolic run skips it")
_INSTANCE_STATS = (
    "the 'Expected more than 1 spatial element' check is made only on concrete sizes, for the "
    "same reason as the batch-statistics check")

ALLOW: list[Allow] = [
    Allow("torch.nn.BatchNorm1d", _TRAINING_STATS, when=_one_value_per_channel),
    Allow("torch.nn.BatchNorm2d", _TRAINING_STATS, when=_one_value_per_channel),
    Allow("torch.nn.BatchNorm3d", _TRAINING_STATS, when=_one_value_per_channel),
    Allow("torch.nn.functional.batch_norm", _TRAINING_STATS, when=_one_value_per_channel),
    Allow("torch.nn.InstanceNorm1d", _INSTANCE_STATS, when=_one_spatial_element),
    Allow("torch.nn.InstanceNorm2d", _INSTANCE_STATS, when=_one_spatial_element),
    Allow("torch.nn.InstanceNorm3d", _INSTANCE_STATS, when=_one_spatial_element),
]
