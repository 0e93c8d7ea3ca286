"""Differential cases for analysis/ops/elementwise.py: broadcasting, dtypes, unary ops,
softmax dim ranges, glu, where, in-place ops."""
from __future__ import annotations

from itertools import product

from ..case import DT, Case, T

CASES: list[Case] = []


def add(api, *args, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs)))


# -- broadcasting, bounded-exhaustive over small shapes (size-1, rank differences, zero) ----
SHAPES = [(), (1,), (3,), (0,), (2, 1), (1, 3), (2, 3), (3, 2), (2, 0), (0, 1), (4, 1, 3),
          (1, 2, 1), (2, 2, 3)]
for a, b in product(SHAPES, SHAPES):
    add("torch.add", T(*a), T(*b))

# Other binary entry points on a smaller grid (rank differences, 1s, mismatches).
SMALL = [(), (3,), (2, 1), (1, 3), (2, 3), (3, 2), (0, 3), (4, 1, 3)]
for api in ("torch.mul", "torch.sub", "Tensor.__add__", "Tensor.__mul__", "torch.maximum",
            "torch.eq", "Tensor.__lt__", "torch.atan2", "torch.logical_and"):
    for a, b in product(SMALL, SMALL):
        add(api, T(*a), T(*b))

# Mismatches at two dims: torch names the last one (it compares from the right).
add("torch.mul", T(2, 24, 14, 8), T(14, 4, 1))
add("Tensor.__add__", T(3, 2, 5), T(4, 3))

# Scalars on either side, alpha, reversed dunders.
add("torch.add", T(2, 3), 1)
add("torch.add", T(2, 3), 1.5)
add("torch.add", T(2, 3), T(3), alpha=2)
add("torch.add", T(2, 3), T(2), alpha=2)
add("torch.add", 2, T(2, 3))
add("torch.mul", T(2, 3, dtype="int64"), 0.5)
add("Tensor.__radd__", T(2, 3), 1)
add("Tensor.__rmul__", T(0, 3), 2.0)
add("Tensor.__rsub__", T(2, 3), 1)
add("Tensor.__rsub__", T(2, 3), T(4, 1, 3))
add("Tensor.__rtruediv__", T(2, 3), 1.0)
add("Tensor.__rpow__", T(2, 3), 2)
add("Tensor.__sub__", T(2, 3), T(3, 2))
add("Tensor.__truediv__", T(2, 3), T(2, 1))
add("Tensor.__floordiv__", T(2, 3), T(4, 1, 3))
add("Tensor.__mod__", T(2, 3), 2)
add("Tensor.__pow__", T(2, 3), T(3))
add("Tensor.__pow__", T(2, 3), T(2))

# dtype combinations (results and dtype errors).
for da, db in product(["float32", "float64", "int64", "int32", "bool"], repeat=2):
    add("torch.add", T(2, 3, dtype=da), T(3, dtype=db))
    add("torch.div", T(2, 3, dtype=da), T(3, dtype=db))
    add("torch.sub", T(2, 3, dtype=da), T(3, dtype=db))
    add("torch.bitwise_and", T(2, 3, dtype=da), T(3, dtype=db))
# Integer tensors hold values in [0, high): an integer tensor divisor could be zero, which
# is a data-dependent error, so integer division divides by a Python scalar.
add("torch.div", T(2, 3, dtype="int64"), 2, rounding_mode="floor")
add("torch.div", T(2, 3, dtype="int64"), 3, rounding_mode="trunc")
add("torch.div", T(2, 3), T(3, dtype="int64"), rounding_mode="floor")
add("torch.div", T(2, 3), T(4), rounding_mode="floor")
add("torch.floor_divide", T(2, 3, dtype="int64"), 2)
add("torch.floor_divide", T(2, 3), T(2, 1))
add("torch.remainder", T(2, 3), T(1, 3))
add("torch.pow", T(2, 3), 2)
add("torch.pow", T(2, 3), T(2, 3))
add("torch.pow", T(2, 3), T(3, 3))
add("torch.fmod", T(3), T(4))
add("torch.hypot", T(2, 3), T(3))
add("torch.logaddexp", T(2, 3), T(0, 3))
add("torch.minimum", T(2, 3), T(2, 3, dtype="float64"))
add("torch.maximum", T(2, 3), 1.0)  # torch.maximum does not take a Python scalar
add("torch.copysign", T(2, 3), T(1))
add("torch.xlogy", T(2, 3), T(2, 2))
add("torch.isclose", T(2, 3), T(3))
add("torch.isclose", T(2, 3), T(4))
add("torch.ne", T(2, 3), 0)
add("torch.gt", T(2, 3), T(2, 3, dtype="int64"))
add("torch.logical_or", T(2, 1), T(0, 1))
add("torch.logical_xor", T(2, 3), T(3, 3))

# In-place: the result must keep self's shape and dtype.
add("Tensor.add_", T(2, 3), T(3))
add("Tensor.add_", T(3), T(2, 3))
add("Tensor.add_", T(1, 3), T(2, 3))
add("Tensor.add_", T(2, 3, dtype="int64"), T(2, 3))
add("Tensor.add_", T(2, 3), T(2, 3, dtype="int64"))
add("Tensor.mul_", T(2, 3), T(2, 1))
add("Tensor.mul_", T(2, 1), T(2, 3))
add("Tensor.sub_", T(2, 3), T(4))
add("Tensor.__iadd__", T(2, 3), T(3))
add("Tensor.__iadd__", T(3), T(2, 3))
add("Tensor.__imul__", T(2, 3), 2)

# -- broadcast_shapes (sizes, not tensors) -----------------------------------------------
add("torch.broadcast_shapes", (2, 1), (3,))
add("torch.broadcast_shapes", (4, 1, 3), (5, 1), ())
add("torch.broadcast_shapes", 4, (2, 1))

# -- where / lerp / addcmul --------------------------------------------------------------
for c, x, y in [((2, 3), (2, 3), (2, 3)), ((2, 1), (1, 3), ()), ((3,), (2, 3), (2, 1)),
                ((2, 3), (3, 2), (2, 3)), ((0, 3), (3,), (1,)), ((4, 1, 1), (2, 3), (3,)),
                ((2, 3), (2,), (3,)), ((), (2, 3), (2, 3))]:
    add("torch.where", T(*c, dtype="bool"), T(*x), T(*y))
add("torch.where", T(2, 3, dtype="bool"), T(2, 3), 0.0)
add("torch.where", T(2, 3, dtype="bool"), 1.0, T(3))
add("torch.where", T(2, 3, dtype="bool"), T(2, 3), T(2, 3, dtype="int64"))
add("torch.where", T(2, 3, dtype="bool"), T(2, 3, dtype="float64"), T(3, dtype="int64"))
add("torch.where", T(2, 3), T(2, 3), T(2, 3))  # condition must be bool
add("torch.where", T(2, 3))  # one index tensor per dim; their length is the data's (all nonzero here)
add("torch.where", T(4))
add("Tensor.where", T(2, 3), T(2, 3, dtype="bool"), T(3))
add("Tensor.where", T(2, 3), T(3, 3, dtype="bool"), 0.0)
add("torch.lerp", T(2, 3), T(3), 0.5)
add("torch.lerp", T(2, 3), T(3), T(2, 1))
add("torch.lerp", T(3), T(2, 3), 0.5)
add("torch.lerp", T(2, 3), T(4), 0.5)
add("torch.addcmul", T(2, 3), T(3), T(2, 1))
add("torch.addcmul", T(3), T(2, 3), T(2, 3))
add("torch.addcmul", T(2, 3), T(4), T(2, 1), value=2)
add("torch.addcdiv", T(2, 3), T(1, 3), T(2, 1), value=0.5)

# -- unary ops: shape preserved, dtype conversions -------------------------------------------
UNARY_SHAPES = [(), (0,), (3,), (2, 0, 3), (2, 3, 4)]
for api in ("torch.relu", "torch.nn.functional.relu", "torch.sigmoid", "torch.tanh",
            "torch.exp", "torch.abs", "Tensor.neg", "Tensor.__neg__", "torch.nn.functional.gelu",
            "torch.nn.functional.silu", "torch.nn.functional.leaky_relu",
            "torch.nn.functional.hardtanh", "torch.nn.functional.softplus", "torch.sqrt",
            "torch.floor", "torch.clamp", "Tensor.contiguous", "Tensor.clone", "Tensor.detach",
            "torch.nn.functional.elu", "torch.nn.functional.relu6", "torch.nn.functional.mish",
            "torch.nn.functional.hardswish", "torch.isnan", "torch.logical_not", "torch.sign",
            "torch.erf", "torch.rsqrt", "torch.log1p"):
    for s in UNARY_SHAPES:
        add(api, T(*s))
for s in UNARY_SHAPES:
    for api in ("Tensor.float", "Tensor.double", "Tensor.half", "Tensor.long", "Tensor.int",
                "Tensor.bool", "Tensor.byte", "Tensor.char", "Tensor.short"):
        add(api, T(*s, dtype="int64" if api == "Tensor.float" else "float32"))
add("torch.clamp", T(2, 3), min=0.0)
add("torch.clamp", T(2, 3), -1.0, 1.0)
add("torch.clamp", T(2, 3), T(3), T(2, 1))  # tensor bounds broadcast into the output
add("torch.clamp", T(2, 3), T(4))
add("Tensor.clamp_min", T(2, 3), 0.0)
add("torch.nn.functional.leaky_relu", T(2, 3), 0.2)
add("torch.nn.functional.dropout", T(2, 3), 0.5, True)
add("torch.nn.functional.dropout", T(2, 3), p=0.1, training=False)
add("torch.nn.functional.dropout", T(2, 3), p=1.5)
add("torch.nn.functional.dropout2d", T(2, 3, 4, 5), 0.5)
add("torch.nn.functional.threshold", T(2, 3), 0.1, 20.0)
add("torch.nn.functional.hardtanh", T(2, 3), -2.0, 2.0)
add("torch.abs", T(2, 3, dtype="int64"))
add("torch.sigmoid", T(2, 3, dtype="int64"))  # integer input: float output
add("torch.exp", T(2, 3, dtype="int64"))
add("torch.sqrt", T(2, 3, dtype="bool"))
add("torch.relu", T(2, 3, dtype="bool"))
add("Tensor.to", T(2, 3), DT("float64"))
add("Tensor.to", T(2, 3), dtype=DT("int64"))
add("Tensor.to", T(2, 3), T(4, dtype="int32"))
add("Tensor.to", T(0, 3), "cpu")
add("Tensor.type_as", T(2, 3), T(5, dtype="int64"))
add("Tensor.masked_scatter", T(2, 3), T(2, 3, dtype="bool"), T(6))
add("Tensor.masked_scatter", T(2, 3), T(3, dtype="bool"), T(6))
add("Tensor.masked_scatter", T(3), T(2, 3, dtype="bool"), T(6))
add("Tensor.masked_scatter", T(2, 3), T(4, 1, dtype="bool"), T(6))
add("Tensor.masked_scatter", T(2, 3), T(2, 3, dtype="int32"), T(6))
add("Tensor.masked_scatter", T(2, 3), T(2, 3, dtype="bool"), T(6, dtype="float64"))
add("torch.masked_scatter", T(2, 3), T(2, 1, dtype="bool"), T(6))
add("Tensor.masked_fill", T(2, 3), T(2, 3, dtype="bool"), 0.0)
add("Tensor.masked_fill", T(2, 3), T(3, dtype="bool"), 0.0)
add("Tensor.masked_fill", T(2, 3), T(2, 1, dtype="bool"), float("-inf"))
add("Tensor.masked_fill", T(2, 3), T(4, dtype="bool"), 0.0)
add("Tensor.masked_fill", T(3), T(2, 3, dtype="bool"), 0.0)  # mask may not grow self
add("Tensor.masked_fill", T(2, 3), T(2, 3), 0.0)  # the mask must be bool
add("Tensor.masked_fill_", T(2, 3), T(1, 3, dtype="bool"), 1.0)
add("Tensor.masked_fill_", T(3), T(2, 3, dtype="bool"), 1.0)

# -- softmax family: every dim in and just outside [-rank, rank - 1], ranks 0..3 -----------
for api in ("torch.softmax", "torch.nn.functional.softmax", "Tensor.softmax",
            "torch.nn.functional.log_softmax", "torch.log_softmax", "Tensor.log_softmax",
            "torch.nn.functional.softmin"):
    for shape in [(), (4,), (2, 3), (2, 0, 3)]:
        r = len(shape)
        lo, hi = -max(r, 1), max(r, 1) - 1
        for d in range(lo - 1, hi + 2):
            add(api, T(*shape), d)
add("torch.nn.functional.softmax", T(2, 3), dim=1, dtype=DT("float64"))
add("torch.softmax", T(2, 3), 1, dtype=DT("float64"))
add("torch.nn.functional.softmax", T(2, 3, dtype="int64"), dim=1)  # not for integers
add("torch.nn.functional.log_softmax", T(2, 3, dtype="int64"), dim=0, dtype=DT("float32"))
add("torch.nn.functional.softmax", T(2, 3))  # implicit dim (deprecated) still works

# -- glu ----------------------------------------------------------------------------------
for shape in [(4,), (3,), (2, 4), (2, 3), (0, 2), (2, 0), (3, 6, 5)]:
    for d in range(-len(shape) - 1, len(shape) + 1):
        add("torch.nn.functional.glu", T(*shape), d)
add("torch.nn.functional.glu", T())

# -- the rest of the registered binary entry points, on a small grid ------------------------
TINY = [(), (3,), (2, 1), (2, 3), (0, 3), (4, 2, 3), (3, 2)]
for api in ("torch.true_divide", "Tensor.true_divide", "torch.fmax", "Tensor.fmin",
            "torch.subtract", "Tensor.multiply", "torch.divide", "torch.le", "Tensor.__ge__",
            "torch.greater", "Tensor.less", "torch.greater_equal", "torch.less_equal",
            "torch.not_equal", "Tensor.__le__"):
    for a, b in product(TINY, TINY):
        add(api, T(*a), T(*b))
for api in ("torch.bitwise_or", "Tensor.__or__", "torch.bitwise_xor", "Tensor.__xor__",
            "Tensor.__and__"):
    for a, b in product(TINY, TINY):
        add(api, T(*a, dtype="int64"), T(*b, dtype="bool"))
    add(api, T(2, 3), T(2, 3, dtype="int64"))  # floats have no bitwise ops
for api in ("Tensor.__ior__", "Tensor.__ixor__", "Tensor.bitwise_or_"):
    add(api, T(2, 3, dtype="int64"), T(3, dtype="int64"))
    add(api, T(3, dtype="int64"), T(2, 3, dtype="int64"))
for api in ("Tensor.true_divide_", "Tensor.subtract_", "Tensor.multiply_", "Tensor.divide_",
            "Tensor.le_", "Tensor.greater_"):
    add(api, T(2, 3), T(3))
    add(api, T(3), T(2, 3))

# -- the rest of the registered unary ops: shapes and dtypes --------------------------------
UNARY_MORE = ["exp2", "expm1", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
              "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc", "erfinv", "ceil",
              "round", "trunc", "frac", "sgn", "reciprocal", "square", "nan_to_num", "logit",
              "positive", "negative", "isinf", "isfinite", "signbit", "angle", "conj", "real"]
for name in UNARY_MORE:
    for s in [(), (2, 0), (2, 3)]:
        add(f"torch.{name}", T(*s))
    add(f"Tensor.{name}", T(4, 1))
    add(f"torch.{name}", T(2, 3, dtype="int64"))
for name in ["exp2", "log", "sin", "ceil", "reciprocal", "square", "nan_to_num", "logit",
             "negative", "sigmoid"]:
    add(f"Tensor.{name}_", T(2, 3))
    add(f"Tensor.{name}_", T(2, 3, dtype="int64"))  # float result into an integer tensor
add("torch.sigmoid_", T(2, 3))
for name in ["selu", "celu", "hardsigmoid", "softsign", "tanhshrink", "logsigmoid",
             "softshrink", "hardshrink", "rrelu", "alpha_dropout", "feature_alpha_dropout",
             "dropout1d", "dropout3d"]:
    for s in [(2, 3), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 2)]:
        add(f"torch.nn.functional.{name}", T(*s))
add("torch.nn.functional.softshrink", T(2, 3), -0.5)
add("torch.nn.functional.alpha_dropout", T(2, 3), 0.5, True)
add("torch.nn.functional.alpha_dropout", T(2, 3), 2.0, True)
add("torch.selu", T(2, 3))
add("torch.hardshrink", T(2, 3), 0.5)
add("Tensor.bfloat16", T(2, 3))
add("Tensor.cpu", T(2, 3))
add("Tensor.requires_grad_", T(2, 3))
add("Tensor.requires_grad_", T(2, 3, dtype="int64"))  # only floats can require grad
add("Tensor.zero_", T(2, 0))
add("Tensor.fill_", T(2, 3), 1.5)
add("Tensor.fill_", T(2, 3), T())
add("Tensor.fill_", T(2, 3), T(1))  # fill_ only takes a 0-dim tensor
add("torch.fill_", T(2, 3), 2.0)
add("Tensor.normal_", T(2, 3))
add("Tensor.uniform_", T(2, 3), -1.0, 1.0)
add("Tensor.exponential_", T(2, 3))
add("torch.bernoulli", T(2, 3), 0.5)
add("Tensor.bernoulli_", T(2, 3), 0.5)
add("Tensor.share_memory_", T(2, 3))
add("Tensor.copy_", T(2, 3), T(3))
add("Tensor.copy_", T(2, 3), T(2, 3, dtype="int64"))
add("Tensor.copy_", T(3), T(2, 3))  # src must broadcast to self
add("Tensor.copy_", T(2, 3), T(4))
add("Tensor.lerp_", T(2, 3), T(3), 0.5)
add("Tensor.lerp_", T(3), T(2, 3), 0.5)
add("Tensor.clamp_", T(2, 3), 0.0, 1.0)
add("torch.clip", T(2, 3), -1.0, 1.0)
add("torch.clip", T(2, 3))
add("torch.clamp_max", T(2, 3), 0.5)
add("Tensor.clamp_max", T(2, 3), T(3))
add("torch.bitwise_not", T(2, 3, dtype="int64"))
add("torch.bitwise_not", T(2, 3, dtype="bool"))
add("torch.bitwise_not", T(2, 3))  # not for floats
add("Tensor.__invert__", T(2, 3, dtype="bool"))
add("Tensor.__pos__", T(2, 3))
