"""Differential cases for reductions, scans and selection (analysis/ops/reduction.py)."""
from __future__ import annotations

from ..case import DT, Case, T

CASES: list[Case] = []
add = CASES.append

SHAPES = [(), (0,), (3,), (2, 3), (2, 0), (2, 3, 4), (1, 1)]
DIMS = [None, -4, -3, -1, 0, 1, 2, 3, (0, 1), (0, -1), (0, 0), (), (1, -2), [0, 2]]

for shape in SHAPES:
    x = T(*shape)
    for name in ["torch.sum", "torch.mean", "torch.std", "torch.var", "torch.norm",
                 "torch.amax", "torch.amin", "torch.all", "torch.any", "torch.nansum",
                 "torch.nanmean", "torch.count_nonzero"]:
        for dim in DIMS:
            if name == "torch.norm":
                add(Case(name, (x,), {"dim": dim}))
            elif name == "torch.count_nonzero":
                add(Case(name, (x, dim)))
            else:
                add(Case(name, (x, dim)))
                if dim is not None:
                    add(Case(name, (x, dim, True)))
    for name in ["Tensor.sum", "Tensor.mean", "Tensor.std", "Tensor.var", "Tensor.norm",
                 "Tensor.amax", "Tensor.amin", "Tensor.all", "Tensor.any", "Tensor.nansum",
                 "Tensor.nanmean", "Tensor.count_nonzero", "Tensor.prod", "Tensor.logsumexp",
                 "Tensor.max", "Tensor.min", "Tensor.argmax", "Tensor.argmin", "Tensor.median",
                 "Tensor.nanmedian", "Tensor.mode", "Tensor.aminmax"]:
        if name == "Tensor.logsumexp":
            add(Case(name, (x, -1)))
        else:
            add(Case(name, (x,)))
    for dim in [-4, -3, -1, 0, 1, 2, 3, None, (0, 1)]:
        for keepdim in (False, True):
            kw = {"keepdim": keepdim}
            for name in ["torch.prod", "torch.max", "torch.min", "torch.argmax", "torch.argmin",
                         "torch.median", "torch.nanmedian", "torch.mode", "torch.logsumexp"]:
                if dim is None and name in ("torch.mode", "torch.logsumexp"):
                    continue
                if dim is None and name in ("torch.max", "torch.min", "torch.median", "torch.nanmedian") and keepdim:
                    continue
                add(Case(name, (x,) if dim is None else (x, dim), kw))
            add(Case("torch.aminmax", (x,), {"dim": dim, "keepdim": keepdim} if dim is not None else kw))
    add(Case("torch.std", (x, 1), {"correction": 0}))
    add(Case("torch.var", (x, 0, False)))
    add(Case("torch.var", (x, False)))
    add(Case("torch.std_mean", (x, 0)))
    add(Case("torch.var_mean", (x,), {"dim": -1, "keepdim": True}))
    add(Case("torch.norm", (x, 2, 0, True)))
    add(Case("Tensor.norm", (x, 1, -1)))
    add(Case("torch.linalg.vector_norm", (x,), {"dim": -1}))
    add(Case("torch.linalg.vector_norm", (x, 2, (0,))))

# dtypes
for dt in ["int64", "int32", "bool", "uint8", "float64"]:
    x = T(2, 3, dtype=dt)
    for name in ["torch.sum", "torch.prod", "torch.mean", "torch.std", "torch.all", "torch.any",
                 "torch.cumsum", "torch.argmax", "torch.max", "torch.amax", "torch.count_nonzero"]:
        add(Case(name, (x, 1) if name in ("torch.cumsum", "torch.max") else (x,)))
    add(Case("torch.sum", (x,), {"dtype": DT("float64")}))
    add(Case("torch.mean", (x,), {"dtype": DT("float64")}))
    add(Case("torch.mean", (x, 0)))

# max/min with another tensor
for a, b in [((2, 3), (3,)), ((2, 3), (4,)), ((2, 1), (1, 3)), ((), (2,))]:
    add(Case("torch.max", (T(*a), T(*b))))
    add(Case("torch.min", (T(*a), T(*b))))
    add(Case("Tensor.max", (T(*a), T(*b))))

# scans
for shape in SHAPES:
    x = T(*shape)
    for dim in (-4, -3, -1, 0, 1, 2, 3):
        for name in ["torch.cumsum", "torch.cumprod", "torch.logcumsumexp", "torch.cummax",
                     "torch.cummin", "torch.sort", "torch.argsort"]:
            add(Case(name, (x, dim)))
    for name in ["Tensor.cumsum", "Tensor.cumprod", "Tensor.logcumsumexp", "Tensor.cummax",
                 "Tensor.cummin", "Tensor.cumsum_"]:
        add(Case(name, (x, 0)))
    for name in ["Tensor.sort", "Tensor.argsort", "torch.msort", "Tensor.msort"]:
        add(Case(name, (x,)))
    add(Case("torch.sort", (x,), {"descending": True}))

# topk / kthvalue
for shape in SHAPES:
    x = T(*shape)
    for k in (-1, 0, 1, 2, 3, 4):
        for dim in (-1, 0, 1, 3):
            add(Case("torch.topk", (x, k, dim)))
            add(Case("torch.kthvalue", (x, k, dim)))
        add(Case("Tensor.topk", (x, k)))
        add(Case("Tensor.kthvalue", (x, k), {"keepdim": True}))

for shape in SHAPES:
    add(Case("Tensor.cumprod_", (T(*shape), 0)))
    add(Case("torch.special.logsumexp", (T(*shape), -1)))
