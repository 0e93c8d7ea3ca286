"""Values of small constant tensors, for code that computes sizes with tensor arithmetic.

Some models derive layer widths from tensors (`torch.arange(d) * w_a + w_0`, `torch.round`,
`.int().tolist()`). For 1-D tensors with at most MAX_ELEMENTS known elements, the values
are kept beside the shape (`TensorValue.values`) and folded here, after the op's spec has
computed the shape. Anything not listed simply drops the values (never a wrong value).
"""
from __future__ import annotations

import math

from .limits import int_too_big
from .ops.spec import TensorValue
from .shapes import UNKNOWN

MAX_ELEMENTS = 1024

_INT = {"int64", "int32", "int16", "int8", "uint8"}


def _vals(x):
    """The flat values of a tensor with values, or [x] for a Python number, else None."""
    if isinstance(x, TensorValue):
        return list(x.values) if x.values is not None else None
    if isinstance(x, bool):
        return [int(x)]
    if isinstance(x, (int, float)) and type(x) in (int, float):
        return [x]
    return None


def _cast(values, dtype):
    if dtype in _INT:
        return tuple(int(v) for v in values)
    if dtype == "bool":
        return tuple(bool(v) for v in values)
    return tuple(float(v) for v in values)


_INT64 = 1 << 63


def _binary(fn, op=None):
    """An elementwise op; with `op`, int operands are checked before computing (a huge
    power or product is never built) and results past int64, where torch wraps, are
    dropped."""
    def apply(out, args, kwargs):
        if len(args) < 2:
            return None
        a, b = _vals(args[0]), _vals(args[1])
        if a is None or b is None:
            return None
        if len(a) == 1 and len(b) > 1:
            a = a * len(b)
        if len(b) == 1 and len(a) > 1:
            b = b * len(a)
        if len(a) != len(b):
            return None
        if op is not None:
            ints = [(x, y) for x, y in zip(a, b) if type(x) is int and type(y) is int]
            if any(int_too_big(op, x, y) for x, y in ints):
                return None
        values = [fn(x, y) for x, y in zip(a, b)]
        if any(type(v) is int and not -_INT64 <= v < _INT64 for v in values):
            return None
        return values
    return apply


def _unary(fn):
    def apply(out, args, kwargs):
        a = _vals(args[0]) if args else None
        return None if a is None else [fn(x) for x in a]
    return apply


def _arange(out, args, kwargs):
    nums = [a for a in args if type(a) in (int, float)]
    if len(nums) != len(args) or not nums:
        return None
    start, end, step = (0, nums[0], 1) if len(nums) == 1 else (nums[0], nums[1], nums[2] if len(nums) > 2 else 1)
    n = out.shape[0] if out.shape else 0
    return [start + i * step for i in range(n)]


def _tensor(out, args, kwargs):
    flat = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif type(x) in (int, float, bool):
            flat.append(x)
        else:
            raise ValueError

    try:
        walk(args[0] if args else None)
    except ValueError:
        return None
    return flat


def _linspace(out, args, kwargs):
    if len(args) < 3 or any(type(a) not in (int, float) for a in args[:3]):
        return None
    start, end, steps = args[:3]
    if steps == 1:
        return [start]
    return [start + (end - start) * i / (steps - 1) for i in range(steps)]


def _diff(out, args, kwargs):
    a = _vals(args[0]) if args else None
    n = args[1] if len(args) > 1 else kwargs.get("n", 1)
    if a is None or n != 1 or len(args) > 2 or set(kwargs) - {"n", "dim"}:
        return None
    return [y - x for x, y in zip(a, a[1:])]


def _shape(x):
    return tuple(x.shape) if isinstance(x, TensorValue) and x.shape is not None else None


def _getitem(out, args, kwargs):
    """`t[2:]` / `t[i]` of a 1-D tensor with values."""
    if len(args) != 2 or kwargs or _shape(args[0]) is None or len(_shape(args[0])) != 1:
        return None
    a, index = _vals(args[0]), args[1]
    if a is None:
        return None
    if type(index) is int:
        return [a[index]] if -len(a) <= index < len(a) else None
    if isinstance(index, slice) and all(p is None or type(p) is int for p in (index.start, index.stop, index.step)) \
            and (index.step is None or index.step > 0):
        return a[index]
    return None


def _stack_or_cat(stack):
    """torch.stack / torch.cat of 1-D tensors with values (stack: rows, or columns for dim=1)."""
    def apply(out, args, kwargs):
        tensors = args[0] if args else kwargs.get("tensors")
        dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
        if not isinstance(tensors, (list, tuple)) or not tensors or type(dim) is not int:
            return None
        if any(_shape(t) is None or len(_shape(t)) != 1 for t in tensors):
            return None
        rows = [_vals(t) for t in tensors]
        if any(r is None for r in rows):
            return None
        if not stack or dim in (0, -2):
            return [v for r in rows for v in r]
        if dim in (1, -1) and len({len(r) for r in rows}) == 1:
            return [v for col in zip(*rows) for v in col]
        return None
    return apply


def _transpose_2d(out, args, kwargs):
    """`m.t()` of a 2-D tensor with values (a 1-D one is unchanged)."""
    shape = _shape(args[0]) if args else None
    a = _vals(args[0]) if args else None
    if a is None or shape is None or len(args) != 1 or kwargs:
        return None
    if len(shape) < 2:
        return a
    rows, cols = shape
    return [a[r * cols + c] for c in range(cols) for r in range(rows)]


def _flat_order(out, args, kwargs):
    """flatten / reshape to 1-D: the values in row-major order, as they are kept."""
    if not args or len(out.shape) != 1:
        return None
    return _vals(args[0])


def _reflected(folder):
    """The folder of `other OP tensor`, for the reflected dunder's (tensor, other) arguments."""
    def apply(out, args, kwargs):
        return folder(out, args[1::-1] + args[2:], kwargs) if len(args) >= 2 else None
    return apply


def _round(x):
    return float(round(x))  # torch.round: half to even, like Python's round


FOLDERS = {
    "torch.arange": _arange, "torch.tensor": _tensor, "torch.linspace": _linspace,
    "torch.add": _binary(lambda x, y: x + y, "+"), "torch.sub": _binary(lambda x, y: x - y, "-"),
    "torch.mul": _binary(lambda x, y: x * y, "*"), "torch.div": _binary(lambda x, y: x / y),
    "torch.true_divide": _binary(lambda x, y: x / y), "torch.divide": _binary(lambda x, y: x / y),
    "torch.floor_divide": _binary(lambda x, y: x // y), "torch.remainder": _binary(lambda x, y: x % y),
    "torch.pow": _binary(lambda x, y: x ** y, "**"), "torch.maximum": _binary(max),
    "torch.minimum": _binary(min),
    # comparisons (`if self.reset_mechanism_val == 0:` on a registered 0-d tensor)
    "torch.eq": _binary(lambda x, y: x == y), "torch.ne": _binary(lambda x, y: x != y),
    "torch.lt": _binary(lambda x, y: x < y), "torch.le": _binary(lambda x, y: x <= y),
    "torch.gt": _binary(lambda x, y: x > y), "torch.ge": _binary(lambda x, y: x >= y),
    "torch.log": _unary(math.log), "torch.exp": _unary(math.exp), "torch.sqrt": _unary(math.sqrt),
    "torch.round": _unary(_round), "torch.floor": _unary(math.floor), "torch.ceil": _unary(math.ceil),
    "torch.abs": _unary(abs), "torch.neg": _unary(lambda x: -x), "torch.int": _unary(int),
    "torch.long": _unary(int), "torch.float": _unary(float), "torch.double": _unary(float),
    "torch.diff": _diff, "torch.clone": _unary(lambda x: x), "torch.contiguous": _unary(lambda x: x),
    "Tensor.__getitem__": _getitem, "torch.stack": _stack_or_cat(True), "torch.cat": _stack_or_cat(False),
    "torch.t": _transpose_2d, "torch.flatten": _flat_order,
    # `2 ** torch.arange(n)`: the reflected operators see (tensor, number)
    "Tensor.__rpow__": _reflected(_binary(lambda x, y: x ** y, "**")),
    "Tensor.__rsub__": _reflected(_binary(lambda x, y: x - y, "-")),
    "Tensor.__rtruediv__": _reflected(_binary(lambda x, y: x / y)),
}
# Folders that keep the values of a 2-D result (row-major); every other folder computes
# elementwise and only runs on 0-D and 1-D results.
_TWO_D = {"torch.stack", "torch.t"}


def fold(spec_name: str, out, args, kwargs):
    """`out` with its values when the op and its inputs allow it, else `out` unchanged."""
    fn = FOLDERS.get(spec_name)
    if fn is None or not isinstance(out, TensorValue) or out.shape is None \
            or len(out.shape) > (2 if spec_name in _TWO_D else 1):
        return out
    if any(type(d) is not int for d in out.shape) or math.prod(out.shape) > MAX_ELEMENTS:
        return out
    if spec_name not in _TWO_D and spec_name not in ("torch.flatten", "torch.tensor") and \
            any(_shape(a) is not None and len(_shape(a)) > 1 for a in args):
        return out  # elementwise folders see flat values: 2-D inputs would broadcast wrongly
    try:
        values = fn(out, list(args), dict(kwargs))
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return out
    expected = math.prod(out.shape)
    if values is None or len(values) != expected:
        return out
    return TensorValue(out.shape, out.dtype, _cast(values, out.dtype))


def item(t):
    """`t.item()` / `int(t)` of a one-element tensor with a value."""
    if isinstance(t, TensorValue) and t.values is not None and len(t.values) == 1:
        return t.values[0]
    return UNKNOWN
