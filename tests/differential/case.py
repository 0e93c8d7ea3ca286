"""The data format of differential cases: one call of a PyTorch API on small inputs.

Each family file in `cases/` defines `CASES: list[Case]`. The harness runs every case in
real PyTorch and through our spec, and compares output shapes and error versus no error.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class T:
    """A tensor argument. Integer dtypes draw values in [0, high) (indices, class labels)."""

    shape: tuple
    dtype: str = "float32"
    high: int = 2

    def __init__(self, *shape, dtype: str = "float32", high: int = 2):
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "high", high)


@dataclass(frozen=True)
class DT:
    """A torch dtype argument, by name: DT("int64") is torch.int64."""

    name: str


@dataclass(frozen=True)
class Case:
    """`api` is a qualified name from the spec registry: "torch.cat", "Tensor.view",
    "torch.nn.functional.conv2d", or a module "torch.nn.Conv2d" (then `ctor`/`ctor_kwargs`
    build it and `args`/`kwargs` go to its forward). Tuples and lists in args may nest T."""

    api: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    ctor: tuple = ()
    ctor_kwargs: dict = field(default_factory=dict)
    training: bool = False  # modules run in eval mode unless this is set

    def __hash__(self):
        return hash((self.api, repr(self.args), repr(sorted(self.kwargs.items(), key=str))))
