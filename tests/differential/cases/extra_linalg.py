"""Differential cases for analysis/ops/extra_linalg.py: addmm/addmv/addbmm/baddbmm/addr,
kron, tensordot, trace, torch.linalg norms and the square-matrix family."""
from __future__ import annotations

from itertools import product

from ..case import DT, Case, T

CASES: list[Case] = []


def add(api, *args, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs)))


# -- addmm ---------------------------------------------------------------------------------
for inp, a, b in product([(2, 4), (4,), (1,), (1, 4), (2, 1), (3, 4), (1, 2, 4), (), (2, 0)],
                         [(2, 3), (3,), (2, 4)], [(3, 4), (4, 4), (3,)]):
    add("torch.addmm", T(*inp), T(*a), T(*b))
add("Tensor.addmm", T(2, 4), T(2, 3), T(3, 4), beta=0.5, alpha=2)
add("torch.addmm", T(2, 4), T(2, 3, dtype="float64"), T(3, 4))
add("torch.addmm", T(2, 4, dtype="float64"), T(2, 3), T(3, 4))
add("torch.addmm", T(2, 0), T(2, 0), T(0, 0))
add("torch.addmm", T(2, 4, dtype="int64"), T(2, 3, dtype="int64"), T(3, 4, dtype="int64"), alpha=0.5)
add("torch.addmm", T(2, 4, dtype="int64"), T(2, 3, dtype="int64"), T(3, 4, dtype="int64"), alpha=2)

# -- addmv ---------------------------------------------------------------------------------
for inp, m, v in product([(2,), (1,), (3,), (), (1, 2)], [(2, 3), (3,), (4, 3)], [(3,), (4,), (3, 1)]):
    add("torch.addmv", T(*inp), T(*m), T(*v))
add("Tensor.addmv", T(2), T(2, 3), T(3), beta=2, alpha=0.5)
add("torch.addmv", T(2), T(2, 3), T(3, dtype="float64"))

# -- addbmm / baddbmm ----------------------------------------------------------------------
for inp, a, b in product([(2, 4), (4,), (3, 4), (5, 2, 4), ()],
                         [(5, 2, 3), (2, 3), (1, 2, 3)], [(5, 3, 4), (6, 3, 4), (5, 4, 4), (3, 4)]):
    add("torch.addbmm", T(*inp), T(*a), T(*b))
add("Tensor.addbmm", T(2, 4), T(5, 2, 3), T(5, 3, 4), alpha=2)
for inp, a, b in product([(5, 2, 4), (2, 4), (4,), (1, 1, 4), (3, 2, 4), (2, 5, 2, 4), ()],
                         [(5, 2, 3), (2, 3), (1, 2, 3)], [(5, 3, 4), (6, 3, 4), (5, 4, 4), (3, 4)]):
    add("torch.baddbmm", T(*inp), T(*a), T(*b))
add("Tensor.baddbmm", T(5, 2, 4), T(5, 2, 3), T(5, 3, 4), beta=0.0, alpha=0.125)
add("torch.baddbmm", T(5, 2, 4), T(5, 2, 3), T(5, 3, 4, dtype="float64"))

# -- addr ----------------------------------------------------------------------------------
for inp, a, b in product([(2, 3), (3,), (1,), (2, 1), (2, 4), (1, 2, 3), ()],
                         [(2,), (2, 1), ()], [(3,), (3, 1)]):
    add("torch.addr", T(*inp), T(*a), T(*b))
add("Tensor.addr", T(2, 3), T(2), T(3), beta=2, alpha=3)
add("torch.addr", T(2, 3), T(2), T(3, dtype="float64"))
add("torch.addr", T(2, 3, dtype="int64"), T(2, dtype="int64"), T(3, dtype="int64"), alpha=1.5)

# -- kron / tensordot / trace --------------------------------------------------------------
for a, b in product([(2, 3), (3,), (2, 1, 3), (0, 2)], [(4, 5, 6), (2,), (2, 2), (3, 0)]):
    add("torch.kron", T(*a), T(*b))
add("Tensor.kron", T(2, 3), T(2, dtype="float64"))
add("torch.kron", T(2, 3), T(2, dtype="int64"))
for a, b, d in [((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (4, 4, 5), 2), ((2, 3), (3, 5), 1),
                ((2, 3), (4, 5), 1), ((2, 3), (3, 5), 0), ((2, 3), (3, 5), 3), ((2, 3), (3, 5), -1),
                ((2, 1), (3, 5), 1), ((2, 3), (1, 5), 1), ((2, 3, 4), (3, 4), 2),
                ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (4, 3, 5), ([1, 2], [0, 1])),
                ((2, 3, 4), (4, 3, 5), ([1, 2], [0])), ((2, 3, 4), (4, 3, 5), ([2], [0])),
                ((2, 3, 4), (4, 3, 5), ([-1], [-3])), ((2, 3), (3, 3), ([1, 1], [0, 1])),
                ((2, 3, 4), (4, 3, 5), ([3], [0])), ((2, 3), (3, 5), ([], []))]:
    add("torch.tensordot", T(*a), T(*b), dims=d)
add("torch.tensordot", T(2, 3), T(3, 5, dtype="float64"), dims=1)
add("torch.tensordot", T(2, 3, 4), T(3, 4, 5))
for s in [(2, 3), (3, 3), (0, 3), (3,), (2, 3, 3), ()]:
    add("torch.trace", T(*s))
add("Tensor.trace", T(3, 4))
for dt in ["int32", "int64", "bool", "float64", "uint8"]:
    add("torch.trace", T(2, 3, dtype=dt))

# -- linalg.norm / matrix_norm -------------------------------------------------------------
for s in [(3,), (3, 4), (3, 4, 5), (), (0, 3)]:
    for kw in [{}, {"ord": 2}, {"ord": "fro"}, {"ord": "nuc"}, {"ord": 1}, {"keepdim": True},
               {"dim": 0}, {"dim": (0, 1)}, {"dim": (0, 1, 2)}, {"dim": -1, "keepdim": True},
               {"ord": 3, "dim": (0, 1)}, {"dim": (1, 1)}, {"dtype": DT("float64")}]:
        add("torch.linalg.norm", T(*s), **kw)
add("torch.linalg.norm", T(3, 4, dtype="int64"))
add("torch.linalg.norm", T(3, 4, dtype="complex64"))
add("torch.linalg.norm", T(3, 4, dtype="complex64"), ord=2)
for s in [(3,), (3, 4), (2, 3, 4), (0, 3), (3, 0)]:
    for kw in [{}, {"ord": 2}, {"ord": "nuc"}, {"ord": float("inf")}, {"ord": -1}, {"ord": 3},
               {"ord": "abc"}, {"keepdim": True}, {"dim": (0, 0)}, {"dim": (0, 2)}, {"dim": (0, 1, 2)},
               {"dim": (-1, 0), "keepdim": True}]:
        add("torch.linalg.matrix_norm", T(*s), **kw)
add("torch.linalg.matrix_norm", T(2, 3, 4, dtype="int64"))
add("torch.linalg.matrix_norm", T(2, 3, 4, dtype="complex128"))

# -- square-matrix family ------------------------------------------------------------------
SQ = [(3, 3), (2, 3, 3), (2, 3), (3,), (), (0, 0), (2, 0, 0), (1, 1), (4, 1, 2, 2), (3, 4, 4)]
for api in ["torch.linalg.inv", "torch.inverse", "Tensor.inverse", "torch.linalg.det", "torch.det",
            "Tensor.det", "torch.linalg.slogdet", "torch.slogdet", "Tensor.slogdet",
            "torch.linalg.matrix_power", "torch.matrix_power", "Tensor.matrix_power"]:
    for s in SQ:
        if "matrix_power" in api:
            add(api, T(*s), 2)
        else:
            add(api, T(*s))
for api in ["torch.linalg.inv", "torch.linalg.det", "torch.linalg.slogdet"]:
    add(api, T(3, 3, dtype="int64"))
    add(api, T(3, 3, dtype="float64"))
    add(api, T(2, 3, 3, dtype="complex64"))
for n in [-1, 0, 1, 3]:
    add("torch.linalg.matrix_power", T(3, 3), n)
    add("torch.linalg.matrix_power", T(3, 3, dtype="int64", high=3), n)
    add("torch.linalg.matrix_power", T(2, 3), n)
for api in ["torch.linalg.cholesky", "torch.cholesky", "Tensor.cholesky"]:
    for s in [(1, 1), (2, 1, 1), (0, 0), (2, 3), (3,), (3, 2, 4)]:
        add(api, T(*s))
add("torch.linalg.cholesky", T(1, 1), upper=True)
add("torch.linalg.cholesky", T(1, 1, dtype="int64"))
for s in [(5, 3), (3, 5), (2, 4, 4), (2, 0, 3), (5,), ()]:
    for mode in ["reduced", "complete", "r"]:
        add("torch.linalg.qr", T(*s), mode=mode)
    add("torch.qr", T(*s))
    add("Tensor.qr", T(*s), False)
    for fm in [True, False]:
        add("torch.linalg.svd", T(*s), full_matrices=fm)
    add("torch.svd", T(*s))
    add("torch.svd", T(*s), some=False)
    add("Tensor.svd", T(*s), compute_uv=False)
    add("torch.linalg.svdvals", T(*s))
    add("torch.linalg.pinv", T(*s))
    add("torch.pinverse", T(*s))
add("torch.linalg.qr", T(3, 5), mode="x")
add("torch.linalg.qr", T(3, 3, dtype="int64"))
add("torch.linalg.svd", T(5, 3, dtype="complex64"))
add("torch.linalg.svd", T(5, 3, dtype="int64"))
add("torch.linalg.svdvals", T(2, 5, 3, dtype="complex128"))
add("torch.linalg.pinv", T(3, 3, dtype="int64"))
add("torch.linalg.pinv", T(3, 4), hermitian=True)
add("torch.linalg.pinv", T(4, 4), hermitian=True)
add("Tensor.pinverse", T(2, 3, 4))
for s in SQ:
    add("torch.linalg.eigh", T(*s))
    add("torch.linalg.eigvalsh", T(*s))
add("torch.linalg.eigh", T(3, 3), UPLO="U")
add("torch.linalg.eigh", T(3, 3), UPLO="X")
add("torch.linalg.eigvalsh", T(3, 3, dtype="int64"))
add("torch.linalg.eigh", T(2, 3, 3, dtype="complex64"))
for a, b in [((3, 3), (3,)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 4)),
             ((2, 3, 3), (4, 3, 4)), ((2, 3, 3), (2, 3, 4)), ((3, 3), (4,)), ((3, 4), (3,)),
             ((3, 3), (4, 2)), ((3, 3), (3, 2)), ((3, 3), (2, 3)), ((3,), (3,)), ((3, 3), ()),
             ((1, 3, 3), (2, 3)), ((2, 2, 3, 3), (2, 3))]:
    add("torch.linalg.solve", T(*a), T(*b))
    add("torch.linalg.solve", T(*a), T(*b), left=False)
add("torch.linalg.solve", T(3, 3), T(3, dtype="float64"))
add("torch.logdet", T(2, 3, 3))
add("torch.logdet", T(2, 3))
