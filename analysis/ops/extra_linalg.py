"""More linear algebra: addmm/addmv/addbmm/baddbmm/addr, kron, tensordot, trace, and the
torch.linalg family (norm/matrix_norm, inv/det/slogdet/solve/cholesky/qr/svd/svdvals/eigh/
eigvalsh/pinv/matrix_power) with PyTorch's batched square-matrix rules."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import broadcast_shapes, dtype_name
from .reduction import reduce_shape
from .spec import (DTYPE_MISMATCH, FLOAT_DTYPES, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH,
                   Dtype, TensorValue, Unknowable, is_tensor, op, promote)

_COMPLEX = {"complex64", "complex128", "complex32"}
_REAL_OF = {"complex64": "float32", "complex128": "float64", "complex32": "float16"}
_T = S.dim_text


def _mat_text(shape):
    return S.mat_text(*shape)


def real_dtype(dt):
    return _REAL_OF.get(dt, dt)


def dmin(a, b):
    """min(a, b) in the dim algebra (plain ints fold)."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a == b:
        return a
    return S.sub(S.add(a, b), S.dmax(a, b))


def expand_to(ctx, src, target):
    """`Tensor.expand(target)` of a tensor of shape `src`, with PyTorch's messages."""
    if len(src) > len(target):
        ctx.fail(SHAPE_MISMATCH, f"expand(torch.FloatTensor{{{S.size_text(src)}}}, size="
                                 f"{S.size_text(target)}): the number of sizes provided "
                                 f"({len(target)}) must be greater or equal to the number of "
                                 f"dimensions in the tensor ({len(src)})")
    off = len(target) - len(src)
    for i, d in enumerate(src):
        t = target[off + i]
        ctx.require(S.or_(S.eq(d, 1), S.eq(d, t)), SHAPE_MISMATCH,
                    f"The expanded size of the tensor ({_T(t)}) must match the existing size "
                    f"({_T(d)}) at non-singleton dimension {off + i}.  Target sizes: "
                    f"{S.size_text(target)}.  Tensor sizes: {S.size_text(src)}")
    return tuple(target)


def _tensor(x):
    if not is_tensor(x):
        raise Unknowable("not a tensor")
    return x


def _same_dtypes(ctx, msg, *ts):
    dts = [t.dtype for t in ts]
    if any(d is None for d in dts):
        return None
    if len(set(dts)) > 1:
        ctx.fail(DTYPE_MISMATCH, msg(dts))
    return dts[0]


# ---------------------------------------------------------------------------------------
# add*mm family
# ---------------------------------------------------------------------------------------

@op("torch.addmm", "Tensor.addmm")
def addmm(ctx, input, mat1, mat2, *, beta=1, alpha=1, out=None):
    inp, a, b = ctx.shape(_tensor(input)), ctx.shape(_tensor(mat1)), ctx.shape(_tensor(mat2))
    if len(a) != 2:
        ctx.fail(SHAPE_MISMATCH, f"mat1 must be a matrix, got {len(a)}-D tensor")
    if len(b) != 2:
        ctx.fail(SHAPE_MISMATCH, f"mat2 must be a matrix, got {len(b)}-D tensor")
    _same_dtypes(ctx, lambda d: f"mat1 and mat2 must have the same dtype, but got "
                                f"{dtype_name(d[0])} and {dtype_name(d[1])}", mat1, mat2)
    _same_dtypes(ctx, lambda d: f"self and mat2 must have the same dtype, but got "
                                f"{dtype_name(d[0])} and {dtype_name(d[1])}", input, mat2)
    expand_to(ctx, inp, (a[0], b[1]))
    ctx.require(S.eq(a[1], b[0]), SHAPE_MISMATCH,
                f"mat1 and mat2 shapes cannot be multiplied ({_mat_text(a)} and {_mat_text(b)})")
    return TensorValue((a[0], b[1]), input.dtype)


@op("torch.addmv", "Tensor.addmv")
def addmv(ctx, input, mat, vec, *, beta=1, alpha=1, out=None):
    inp, m, v = ctx.shape(_tensor(input)), ctx.shape(_tensor(mat)), ctx.shape(_tensor(vec))
    if len(m) != 2 or len(v) != 1 or len(inp) > 1:
        ctx.fail(SHAPE_MISMATCH, f"vector + matrix @ vector expected, got {len(inp)}, {len(m)}, {len(v)}")
    _same_dtypes(ctx, lambda d: "addmv input tensors must have the same dtype, but got "
                                + ", ".join(dtype_name(x) for x in d[:2]) + f", and {dtype_name(d[2])}",
                      input, mat, vec)
    msg = (f"size mismatch, got input ({_T(inp[0] if inp else 1)}), mat ({_mat_text(m)}), "
           f"vec ({_T(v[0])})")
    ctx.require(S.eq(m[1], v[0]), SHAPE_MISMATCH, msg)
    if inp:
        ctx.require(S.or_(S.eq(inp[0], 1), S.eq(inp[0], m[0])), SHAPE_MISMATCH, msg)
    return TensorValue((m[0],), input.dtype)


def _batched_operands(ctx, input, batch1, batch2):
    """Shapes of addbmm/baddbmm's operands; both batches must be 3-D."""
    inp, a, b = ctx.shape(_tensor(input)), ctx.shape(_tensor(batch1)), ctx.shape(_tensor(batch2))
    if len(a) != 3:
        ctx.fail(SHAPE_MISMATCH, "batch1 must be a 3D tensor")
    if len(b) != 3:
        ctx.fail(SHAPE_MISMATCH, "batch2 must be a 3D tensor")
    return inp, a, b


@op("torch.addbmm", "Tensor.addbmm")
def addbmm(ctx, input, batch1, batch2, *, beta=1, alpha=1, out=None):
    inp, a, b = _batched_operands(ctx, input, batch1, batch2)
    dt = _same_dtypes(ctx, lambda d: f"expected scalar type {dtype_name(d[0])} but found "
                                     f"{dtype_name(d[1])}", batch1, batch2)
    ctx.require(S.eq(a[0], b[0]), SHAPE_MISMATCH,
                f"batch1 and batch2 must have same number of batches, got {_T(a[0])} and {_T(b[0])}")
    ctx.require(S.eq(a[2], b[1]), SHAPE_MISMATCH,
                f"Incompatible matrix sizes for bmm ({_T(a[1])}x{_T(a[2])} and {_T(b[1])}x{_T(b[2])})")
    expand_to(ctx, inp, (a[1], b[2]))
    if input.dtype is not None and dt is not None and input.dtype != dt:
        ctx.fail(DTYPE_MISMATCH, f"expected scalar type {dtype_name(input.dtype)} but found {dtype_name(dt)}")
    return TensorValue((a[1], b[2]), input.dtype)


@op("torch.baddbmm", "Tensor.baddbmm")
def baddbmm(ctx, input, batch1, batch2, *, beta=1, alpha=1, out=None):
    inp, a, b = _batched_operands(ctx, input, batch1, batch2)
    _same_dtypes(ctx, lambda d: f"expected scalar type {dtype_name(d[0])} but found "
                                f"{dtype_name(d[1])}", input, batch1, batch2)
    msg = (f"Expected size for first two dimensions of batch2 tensor to be: [{_T(a[0])}, "
           f"{_T(a[2])}] but got: [{_T(b[0])}, {_T(b[1])}].")
    ctx.require(S.eq(a[0], b[0]), SHAPE_MISMATCH, msg)
    ctx.require(S.eq(a[2], b[1]), SHAPE_MISMATCH, msg)
    out = expand_to(ctx, inp, (a[0], a[1], b[2]))
    return TensorValue(out, input.dtype)


@op("torch.addr", "Tensor.addr")
def addr(ctx, input, vec1, vec2, *, beta=1, alpha=1, out=None):
    inp, a, b = ctx.shape(_tensor(input)), ctx.shape(_tensor(vec1)), ctx.shape(_tensor(vec2))
    if len(a) != 1:
        ctx.fail(SHAPE_MISMATCH, f"addr: Expected 1-D argument vec1, but got {len(a)}-D")
    if len(b) != 1:
        ctx.fail(SHAPE_MISMATCH, f"addr: Expected 1-D argument vec2, but got {len(b)}-D")
    out = expand_to(ctx, inp, (a[0], b[0]))
    dt = promote(input.dtype, vec1.dtype, vec2.dtype)
    if dt == "bool":
        raise Unknowable("boolean addr (scalar rules not modelled)")
    if dt is not None and dt not in FLOAT_DTYPES and dt not in _COMPLEX:
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                ctx.fail(ILLEGAL_VALUE, f"For integral input tensors, argument {name} must not be a "
                                        f"floating point number.")
    return TensorValue(out, dt)


# ---------------------------------------------------------------------------------------
# kron, tensordot, trace
# ---------------------------------------------------------------------------------------

@op("torch.kron", "Tensor.kron")
def kron(ctx, input, other, *, out=None):
    a, b = ctx.shape(_tensor(input)), ctx.shape(_tensor(other))
    r = max(len(a), len(b))
    a = (1,) * (r - len(a)) + tuple(a)
    b = (1,) * (r - len(b)) + tuple(b)
    return TensorValue(tuple(S.mul(x, y) for x, y in zip(a, b)), promote(input.dtype, other.dtype))


def _int_list(v):
    if isinstance(v, bool):
        raise Unknowable("bool dims")
    if isinstance(v, int):
        return [v]
    if isinstance(v, (tuple, list)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return list(v)
    raise Unknowable(f"dims not known: {v!r}")


@op("torch.tensordot")
def tensordot(ctx, a, b, dims=2, out=None):
    sa, sb = ctx.shape(_tensor(a)), ctx.shape(_tensor(b))
    if isinstance(dims, bool):
        raise Unknowable("bool dims")
    if isinstance(dims, int):
        if dims < 0:
            ctx.fail(ILLEGAL_VALUE, f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > len(sa) or dims > len(sb):
            ctx.fail(ILLEGAL_VALUE, f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    elif isinstance(dims, (tuple, list)) and len(dims) == 2:
        if isinstance(dims[0], int) and not isinstance(dims[0], bool):
            raise Unknowable("tensordot(): dims as a pair of ints is a TypeError")
        da, db = _int_list(dims[0]), _int_list(dims[1])
    else:
        raise Unknowable("dims form not modelled")
    if len(da) != len(db):
        ctx.fail(ILLEGAL_VALUE, "both dimension lists should have same length")
    if a.dtype is not None and b.dtype is not None and a.dtype != b.dtype:
        ctx.fail(DTYPE_MISMATCH, "both inputs should have same dtype")
    wa, wb = [], []
    for x, y in zip(da, db):
        i, j = ctx.wrap_dim(x, len(sa)), ctx.wrap_dim(y, len(sb))
        ctx.require(S.or_(S.eq(sa[i], sb[j]), S.eq(sa[i], 1), S.eq(sb[j], 1)), SHAPE_MISMATCH,
                    f"contracted dimensions need to match, but first has size {_T(sa[i])} in dim {x} "
                    f"and second has size {_T(sb[j])} in dim {y}")
        for w, seen in ((i, wa), (j, wb)):
            if w in seen:
                ctx.fail(IMPROPER_VALUE, f"dim {w} appears multiple times in the list of dims")
            seen.append(w)
    out = tuple(d for i, d in enumerate(sa) if i not in wa) + tuple(d for j, d in enumerate(sb) if j not in wb)
    return TensorValue(out, a.dtype)


@op("torch.trace", "Tensor.trace")
def trace(ctx, input):
    s = ctx.shape(_tensor(input))
    if len(s) != 2:
        ctx.fail(SHAPE_MISMATCH, f"trace: expected a matrix, but got tensor with dim {len(s)}")
    dt = input.dtype
    if dt == "bool":
        ctx.fail(DTYPE_MISMATCH, "\"trace\" not implemented for 'Bool'")
    if dt is not None and dt not in FLOAT_DTYPES and dt not in _COMPLEX:
        dt = "int64"
    return TensorValue((), dt)


# ---------------------------------------------------------------------------------------
# torch.linalg: the square-matrix family
# ---------------------------------------------------------------------------------------

def _at_least_2d(ctx, name, s):
    if len(s) < 2:
        ctx.fail(SHAPE_MISMATCH, f"{name}: The input tensor A must have at least 2 dimensions.")


def _float_input(ctx, name, t, what="A"):
    dt = t.dtype
    if dt is not None and dt not in FLOAT_DTYPES and dt not in _COMPLEX:
        ctx.fail(DTYPE_MISMATCH, f"{name}: Expected a floating point or complex tensor as input. "
                                 f"Got {dtype_name(dt)}")
    if dt in ("float16", "bfloat16"):
        raise Unknowable(f"{name} on half precision (backend dependent)")


def _square(ctx, name, s, float_check=None):
    _at_least_2d(ctx, name, s)
    if float_check is not None:
        _float_input(ctx, name, float_check)
    ctx.require(S.eq(s[-1], s[-2]), SHAPE_MISMATCH,
                f"{name}: A must be batches of square matrices, but they are {_T(s[-2])} by "
                f"{_T(s[-1])} matrices")


@op("torch.linalg.inv", "torch.inverse", "Tensor.inverse")
def inv(ctx, A, *, out=None):
    s = ctx.shape(_tensor(A))
    _square(ctx, "linalg.inv", s, A)
    return TensorValue(s, A.dtype)


@op("torch.linalg.det", "torch.det", "Tensor.det")
def det(ctx, A, *, out=None):
    s = ctx.shape(_tensor(A))
    _square(ctx, "linalg.det", s, A)
    return TensorValue(s[:-2], A.dtype)


@op("torch.linalg.slogdet", "torch.slogdet", "Tensor.slogdet")
def slogdet(ctx, A, *, out=None):
    s = ctx.shape(_tensor(A))
    _square(ctx, "linalg.slogdet", s, A)
    return (TensorValue(s[:-2], A.dtype), TensorValue(s[:-2], real_dtype(A.dtype)))


@op("torch.logdet", "Tensor.logdet")
def logdet(ctx, input):
    s = ctx.shape(_tensor(input))
    _square(ctx, "linalg.slogdet", s, input)
    return TensorValue(s[:-2], input.dtype)


@op("torch.linalg.solve")
def solve(ctx, A, B, *, left=True, out=None):
    sa, sb = ctx.shape(_tensor(A)), ctx.shape(_tensor(B))
    _square(ctx, "linalg.solve", sa, A)
    if len(sb) < 1:
        ctx.fail(SHAPE_MISMATCH, "linalg.solve: The input tensor B must have at least 1 dimensions.")
    if A.dtype is not None and B.dtype is not None and A.dtype != B.dtype:
        ctx.fail(DTYPE_MISMATCH, f"linalg.solve: Expected A and B to have the same dtype, but found A "
                                 f"of type {dtype_name(A.dtype)} and B of type {dtype_name(B.dtype)} instead")
    if not isinstance(left, bool):
        raise Unknowable("left")
    n = sa[-1]
    vector = len(sb) == 1
    if not vector and len(sb) == len(sa) - 1:
        vector = ctx.decide(S.and_(*[S.eq(x, y) for x, y in zip(sb, sa[:-1])]))
    eq = "AX = B" if left else "XA = B"
    if vector and not left:
        ctx.fail(SHAPE_MISMATCH, f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                                 f"({_mat_text(sa[-2:])} and {_T(sb[-1])}x1)")
    if vector:
        ctx.require(S.eq(sb[-1], n), SHAPE_MISMATCH,
                    f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                    f"({_mat_text(sa[-2:])} and {_T(sb[-1])}x1)")
        batch = broadcast_shapes(ctx, sa[:-2], sb[:-1])
        return TensorValue(tuple(batch) + (n,), A.dtype)
    k_dim, n_dim = (sb[-1], sb[-2]) if left else (sb[-2], sb[-1])
    ctx.require(S.eq(n_dim, n), SHAPE_MISMATCH,
                f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                f"({_mat_text(sa[-2:])} and {_mat_text(sb[-2:])})")
    batch = broadcast_shapes(ctx, sa[:-2], sb[:-2])
    return TensorValue(tuple(batch) + tuple(sb[-2:]), A.dtype)


@op("torch.linalg.cholesky")
def cholesky(ctx, A, *, upper=False, out=None):
    s = ctx.shape(_tensor(A))
    _square(ctx, "linalg.cholesky", s, A)
    return TensorValue(s, A.dtype)


@op("torch.cholesky", "Tensor.cholesky")
def cholesky_old(ctx, input, upper=False, *, out=None):
    s = ctx.shape(_tensor(input))
    _square(ctx, "cholesky", s, input)
    return TensorValue(s, input.dtype)


@op("torch.linalg.qr")
def qr(ctx, A, mode="reduced", *, out=None):
    s = ctx.shape(_tensor(A))
    if not isinstance(mode, str):
        raise Unknowable("mode")
    if mode not in ("reduced", "complete", "r"):
        ctx.fail(ILLEGAL_VALUE, f"qr received unrecognized mode '{mode}' but expected one of "
                                f"'reduced' (default), 'r', or 'complete'")
    _at_least_2d(ctx, "linalg.qr", s)
    _float_input(ctx, "linalg.qr", A)
    m, n = s[-2], s[-1]
    k = dmin(m, n)
    batch = tuple(s[:-2])
    if mode == "reduced":
        return (TensorValue(batch + (m, k), A.dtype), TensorValue(batch + (k, n), A.dtype))
    if mode == "complete":
        return (TensorValue(batch + (m, m), A.dtype), TensorValue(batch + (m, n), A.dtype))
    return (TensorValue((0,), A.dtype), TensorValue(batch + (k, n), A.dtype))


@op("torch.qr", "Tensor.qr")
def qr_old(ctx, input, some=True, *, out=None):
    if not isinstance(some, bool):
        raise Unknowable("some")
    return qr(ctx, input, "reduced" if some else "complete")


@op("torch.linalg.svd")
def svd(ctx, A, full_matrices=True, *, driver=None, out=None):
    s = ctx.shape(_tensor(A))
    _at_least_2d(ctx, "linalg.svd", s)
    _float_input(ctx, "linalg.svd", A)
    if not isinstance(full_matrices, bool):
        raise Unknowable("full_matrices")
    m, n = s[-2], s[-1]
    k = dmin(m, n)
    b = tuple(s[:-2])
    u = b + ((m, m) if full_matrices else (m, k))
    vh = b + ((n, n) if full_matrices else (k, n))
    return (TensorValue(u, A.dtype), TensorValue(b + (k,), real_dtype(A.dtype)), TensorValue(vh, A.dtype))


@op("torch.svd", "Tensor.svd")
def svd_old(ctx, input, some=True, compute_uv=True, *, out=None):
    s = ctx.shape(_tensor(input))
    _at_least_2d(ctx, "linalg.svd", s)
    _float_input(ctx, "linalg.svd", input)
    if not isinstance(some, bool) or not isinstance(compute_uv, bool):
        raise Unknowable("some/compute_uv")
    m, n = s[-2], s[-1]
    k = dmin(m, n)
    b = tuple(s[:-2])
    reduced = some and compute_uv
    u = b + ((m, k) if reduced else (m, m))
    v = b + ((n, k) if reduced else (n, n))
    return (TensorValue(u, input.dtype), TensorValue(b + (k,), real_dtype(input.dtype)),
            TensorValue(v, input.dtype))


@op("torch.linalg.svdvals")
def svdvals(ctx, A, *, driver=None, out=None):
    s = ctx.shape(_tensor(A))
    _at_least_2d(ctx, "linalg.svd", s)
    _float_input(ctx, "linalg.svd", A)
    return TensorValue(tuple(s[:-2]) + (dmin(s[-2], s[-1]),), real_dtype(A.dtype))


def _uplo(ctx, UPLO):
    if not isinstance(UPLO, str):
        raise Unknowable("UPLO")
    if UPLO not in ("L", "U", "l", "u"):
        ctx.fail(ILLEGAL_VALUE, f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@op("torch.linalg.eigh")
def eigh(ctx, A, UPLO="L", *, out=None):
    s = ctx.shape(_tensor(A))
    _uplo(ctx, UPLO)
    _square(ctx, "linalg.eigh", s, A)
    return (TensorValue(s[:-1], real_dtype(A.dtype)), TensorValue(s, A.dtype))


@op("torch.linalg.eigvalsh")
def eigvalsh(ctx, A, UPLO="L", *, out=None):
    s = ctx.shape(_tensor(A))
    _uplo(ctx, UPLO)
    _square(ctx, "linalg.eigh", s, A)
    return TensorValue(s[:-1], real_dtype(A.dtype))


@op("torch.linalg.pinv")
def pinv(ctx, A, *, atol=None, rtol=None, hermitian=False, out=None):
    s = ctx.shape(_tensor(A))
    dt = A.dtype
    if len(s) < 2 or (dt is not None and dt not in ("float32", "float64") and dt not in _COMPLEX):
        ctx.fail(SHAPE_MISMATCH if len(s) < 2 else DTYPE_MISMATCH,
                 f"linalg.pinv({_TYPE.get(dt, dt)}{{{S.size_text(s)}}}): expected a tensor with 2 "
                 f"or more dimensions of float, double, cfloat or cdouble types")
    if hermitian is True:
        _square(ctx, "linalg.eigh", s)
    elif hermitian is not False:
        raise Unknowable("hermitian")
    return TensorValue(tuple(s[:-2]) + (s[-1], s[-2]), dt)


_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
         "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
         "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


@op("torch.pinverse", "Tensor.pinverse")
def pinverse(ctx, input, rcond=1e-15):
    return pinv(ctx, input)


@op("torch.linalg.matrix_power", "torch.matrix_power", "Tensor.matrix_power")
def matrix_power(ctx, A, n, *, out=None):
    s = ctx.shape(_tensor(A))
    _square(ctx, "linalg.matrix_power", s)
    if isinstance(n, bool) or not isinstance(n, int):
        raise Unknowable("n not a known int")
    if n < 0:
        _float_input(ctx, "linalg.inv", A)
    return TensorValue(s, A.dtype)


# ---------------------------------------------------------------------------------------
# torch.linalg.norm / matrix_norm
# ---------------------------------------------------------------------------------------

_MATRIX_ORDS = ("fro", "nuc")


def _norm_dtype(ctx, name, A, dtype):
    dt = A.dtype
    if dt is not None and dt not in FLOAT_DTYPES and dt not in _COMPLEX:
        ctx.fail(DTYPE_MISMATCH, f"{name}: Expected a floating point or complex tensor as input. "
                                 f"Got {dtype_name(dt)}")
    if dtype is not None:
        return str(dtype) if isinstance(dtype, Dtype) else None
    return real_dtype(dt)


def _matrix_ord_ok(ctx, ord):
    if isinstance(ord, str):
        if ord not in _MATRIX_ORDS:
            ctx.fail(ILLEGAL_VALUE, f"linalg.matrix_norm: Order {ord} not supported.")
        return
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise Unknowable("ord")
    if ord not in (1, -1, 2, -2, float("inf"), float("-inf")):
        shown = int(ord) if float(ord).is_integer() else ord
        ctx.fail(ILLEGAL_VALUE, f"linalg.matrix_norm: Order {shown} not supported.")


@op("torch.linalg.matrix_norm")
def matrix_norm(ctx, A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    s = ctx.shape(_tensor(A))
    _at_least_2d(ctx, "linalg.matrix_norm", s)
    if not isinstance(dim, (tuple, list)):
        raise Unknowable("dim")
    if len(dim) != 2:
        ctx.fail(IMPROPER_VALUE, "linalg.matrix_norm: dim must be a 2-tuple. Got "
                                 + " ".join(str(d) for d in dim))
    dt = _norm_dtype(ctx, "linalg.matrix_norm", A, dtype)
    d0, d1 = ctx.wrap_dim(dim[0], len(s)), ctx.wrap_dim(dim[1], len(s))
    if d0 == d1:
        ctx.fail(IMPROPER_VALUE, f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    _matrix_ord_ok(ctx, ord)
    if not isinstance(keepdim, bool):
        raise Unknowable("keepdim")
    if ord not in ("fro", "nuc", 2) and (s[d0] == 0 or s[d1] == 0):
        # max/min-based orders over an empty matrix: amax/amin's empty-dim rules apply
        raise Unknowable("matrix norm of an empty matrix with a max/min-based order")
    return TensorValue(reduce_shape(ctx, A, [d0, d1], keepdim), dt)


@op("torch.linalg.norm")
def linalg_norm(ctx, A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    s = ctx.shape(_tensor(A))
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    if dim is not None:
        if not isinstance(dim, (tuple, list)):
            raise Unknowable("dim")
        if len(dim) not in (1, 2):
            ctx.fail(IMPROPER_VALUE, "linalg.norm: If dim is specified, it must be of length 1 or 2. "
                                     "Got [" + ", ".join(str(d) for d in dim) + "]")
        if len(dim) == 2:
            return matrix_norm(ctx, A, "fro" if ord is None else ord, tuple(dim), keepdim, dtype=dtype)
        if isinstance(ord, str):
            ctx.fail(ILLEGAL_VALUE, f"linalg.vector_norm: Expected ord to be a number, got {ord}")
        return _vector_norm(ctx, A, 2 if ord is None else ord, dim, keepdim, dtype)
    if ord is None:
        return _vector_norm(ctx, A, 2, None, keepdim, dtype)
    if len(s) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, f"linalg.norm: If dim is not specified but ord is, the input must be "
                                 f"1D or 2D. Got {len(s)}D.")
    if len(s) == 2:
        return matrix_norm(ctx, A, ord, (0, 1), keepdim, dtype=dtype)
    if isinstance(ord, str):
        return matrix_norm(ctx, A, ord, (-2, -1), keepdim, dtype=dtype)
    return _vector_norm(ctx, A, ord, None, keepdim, dtype)


def _vector_norm(ctx, A, ord, dim, keepdim, dtype):
    dt = _norm_dtype(ctx, "linalg.vector_norm", A, dtype)
    if not isinstance(keepdim, bool):
        raise Unknowable("keepdim")
    ctx.shape(A)  # Unknowable unless the shape is known
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord < 0 or ord == float("inf"):
        # negative / infinite orders reduce with min/max: an empty reduced dim is an error
        raise Unknowable("vector norm of order <0 or inf: empty-dim rules not modelled")
    return TensorValue(reduce_shape(ctx, A, dim, keepdim), dt)
