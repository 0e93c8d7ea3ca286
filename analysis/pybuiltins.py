"""Python builtins and the standard library, as far as shape code needs them.

Builtins are `Ref("builtins.len")` values; `dispatch.call_external` evaluates them here.
"""
from __future__ import annotations

import copy as copy_module
import math
import sys

from . import intervals, pyitertools, pysets, pytree, shapes as S
from .shapes import UNKNOWN
from .limits import MAX_INT_BITS
from .values import SOME_INT, Container, DictVal, Instance, ListVal, Ref, alike, is_int_like, is_tensor, too_many, unknown_list, user_container_data

MAX_INT_DIGITS = MAX_INT_BITS * 3 // 10  # decimal digits of the largest int kept

# Top-level packages that are never analysed as workspace modules. (transformers: its models
# are followed only in part, ModelOutput dataclasses and cache objects lost on the way, and a
# hover then shows the few calls that got through as if they were all; measured in stop 36:
# GPT-2's attention 29 lines wrong, so it stays opaque.)
EXTERNAL_ROOTS = {"torch", "numpy", "math", "typing", "collections", "functools",
                  "dataclasses", "jaxtyping", "torchtyping", "einops", "itertools", "os", "sys",
                  "abc", "enum", "copy", "warnings", "logging", "random", "time", "json", "re",
                  "inspect", "argparse", "pathlib", "types", "operator", "__future__",
                  "typing_extensions", "beartype", "pytorch_lightning", "lightning",
                  "tqdm", "numbers", "contextlib", "string", "builtins"}

_BUILTIN_NAMES = {"len", "range", "enumerate", "zip", "list", "tuple", "dict", "set", "int",
                  "float", "str", "bool", "isinstance", "issubclass", "hasattr", "getattr",
                  "setattr", "min", "max", "sum", "abs", "round", "print", "super", "reversed",
                  "sorted", "any", "all", "type", "callable", "iter", "next", "map", "filter",
                  "divmod", "pow", "repr", "id", "hash", "object", "NotImplementedError",
                  "ValueError", "RuntimeError", "TypeError", "Exception", "AssertionError",
                  "KeyError", "IndexError", "AttributeError", "property", "staticmethod",
                  "classmethod", "slice", "frozenset", "format", "vars", "open", "bytes", "bytearray",
                  "complex", "globals"}


def builtin(name: str):
    if name in _BUILTIN_NAMES:
        return Ref("builtins." + name)
    if name in ("True", "False", "None", "Ellipsis"):
        return {"True": True, "False": False, "None": None, "Ellipsis": Ellipsis}[name]
    return None


def import_name(module: str, name: str):
    full = f"{module}.{name}"
    if full in MATH_CONSTANTS:
        return MATH_CONSTANTS[full]  # `from math import pi`: the float, as `math.pi` is
    return Ref(canonical_name(full)) if module else Ref(name)


def canonical_name(full: str) -> str:
    """torch.nn.modules.LeakyReLU and torch.nn.modules.conv.Conv2d are torch.nn's layers:
    the name their specs are declared under."""
    if full.startswith("torch.nn.modules."):
        short = "torch.nn." + full.rsplit(".", 1)[-1]
        from .nnmodules import CONTAINERS
        from .ops.spec import REGISTRY
        if short in REGISTRY or short in CONTAINERS:
            return short
    return full


def _int_like(v):
    return isinstance(v, (int, S.Expr)) and not isinstance(v, bool)


def call_builtin(engine, name: str, args: list, kwargs: dict, site):
    """Evaluate a builtin or stdlib call; UNKNOWN when not modelled."""
    fn = _TABLE.get(name)
    if fn is None and name.startswith(_NAMEDTUPLE):
        return _namedtuple_new(name, args, kwargs)
    if fn is None:
        return UNKNOWN
    try:
        out = fn(engine, args, kwargs, site)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, IndexError, KeyError,
            AttributeError, RecursionError):
        return UNKNOWN
    # Builtins build from bounded inputs (a string of up to limits.MAX_STR_LEN characters
    # is as many items): past the item cap the result is Unknown of its type.
    if isinstance(out, (ListVal, DictVal)) and too_many(len(out.items)):
        return unknown_list("list" if getattr(out, "kind", "") == "list" else "tuple") \
            if isinstance(out, ListVal) else UNKNOWN
    return out


def _len(engine, args, kwargs, site):
    (v,) = args
    if isinstance(v, Instance) and isinstance(v.attrs.get("__container__"), Container):
        v = v.attrs["__container__"]  # an nn.ModuleList subclass
    v = user_container_data(v) or v  # (a UserDict subclass: its data)
    n = _length(engine, v)
    if n is UNKNOWN and (getattr(v, "unknown", False) or is_tensor(v)):
        return SOME_INT  # a list a loop filled, a tensor of unknown size: an int all the same
    return n


def _length(engine, v):
    if getattr(v, "unknown", False):
        return getattr(v, "length", None) if isinstance(v, ListVal) and getattr(v, "length", None) is not None \
            else UNKNOWN
    from .datasources import length
    n = length(v)
    if n is not None:
        return n
    if isinstance(v, (ListVal,)):
        return len(v.items)
    if isinstance(v, DictVal):
        return UNKNOWN if getattr(v, "unknown", False) else len(v.items)
    from .values import Instance
    if isinstance(v, Instance) and isinstance(v.attrs.get("__container__"), Container):
        v = v.attrs["__container__"]
    if isinstance(v, Container):
        return UNKNOWN if getattr(v, "unknown", False) else len(v.items)
    if isinstance(v, str):
        return len(v)
    if is_tensor(v):
        if v.shape is None:
            return UNKNOWN
        if len(v.shape) == 0:
            return UNKNOWN  # len() of a 0-d tensor raises TypeError
        return v.shape[0]
    return UNKNOWN


def _range(engine, args, kwargs, site):
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        if args and all(is_int_like(a) for a in args):
            out = alike(SOME_INT, "tuple")  # range(t): ints, how many is not known
            start, stop = (0, args[0]) if len(args) == 1 else args[:2]
            if len(args) <= 2 and type(start) is int and stop is not SOME_INT and site is not None \
                    and intervals.bounds(S.sub(stop, start))[0] >= 1:
                # range(depth), depth a size (>= 1): the first item is surely `start`, so
                # `if i == 0:` decides it (the first block built apart); the others are past
                # it (a number of their own, printed `?`, that decides no op's check).
                frame, node = site
                rest = S.sym(f"{S.PIECE}loop:{frame.unit.key}:{node.nid}")
                out.items, out.prefix, out.element = [start], 1, S.add(start, rest)
            if len(args) <= 2 and stop is not SOME_INT and start is not SOME_INT and \
                    intervals.bounds(S.sub(stop, start))[0] >= 0:
                out.length = S.sub(stop, start)  # (a comprehension over it: as many items)
            return out
        return UNKNOWN
    r = range(*args)
    if len(r) > 4096:
        return UNKNOWN
    return ListVal(list(r), "tuple")


def _enumerate(engine, args, kwargs, site):
    items = engine.iterate(None, args[0])
    start = args[1] if len(args) > 1 else kwargs.get("start", 0)
    if items is None:
        element = _element(engine, args[0])
        if element is None:
            return UNKNOWN
        from .statements import known_prefix
        prefix = known_prefix(args[0])  # [stem] + blocks a loop appended: the stem comes first
        out = alike(ListVal([UNKNOWN, element], "tuple"), "tuple")
        out.items = [ListVal([i + start if isinstance(start, int) else UNKNOWN, x], "tuple")
                     for i, x in enumerate(prefix)]
        out.prefix = len(prefix)
        return out
    if not isinstance(start, int):
        return UNKNOWN
    return ListVal([ListVal([i + start, x], "tuple") for i, x in enumerate(items)], "tuple")


def _zip(engine, args, kwargs, site):
    lists = [engine.iterate(None, a) for a in args]
    if any(x is None for x in lists):
        # Over a list of unknown length whose items look alike: so do the tuples.
        elements = [_element(engine, a) for a in args]
        if all(e is None for e in elements):
            return UNKNOWN
        # An argument nothing is known of (`zip(self.h, past_key_values)`, the cache an
        # opaque library made) still leaves the others' items: how many pairs is not known,
        # and its part of each is Unknown.
        return alike(ListVal([UNKNOWN if e is None else e for e in elements], "tuple"), "tuple")
    return ListVal([ListVal(list(t), "tuple") for t in zip(*lists)], "tuple")


def _element(engine, v):
    """What every item of an iterable looks like, or None when that is not known."""
    element = engine.element_of(v)
    return None if element is UNKNOWN else element


def _list(engine, args, kwargs, site):
    if not args:
        return engine.new_obj(ListVal([], "list"))
    items = engine.iterate(None, args[0])
    if items is None:
        element = _element(engine, args[0]) if getattr(args[0], "unknown", False) else None
        return UNKNOWN if element is None else engine.new_obj(alike(element))
    return engine.new_obj(ListVal(items, "list"))


def _set(engine, args):
    return pysets.make(pysets.items_in_any_order(engine, args[0]) if args else [])


def _tuple(engine, args, kwargs, site):
    if not args:
        return ListVal([], "tuple")
    items = engine.iterate(None, args[0])
    return UNKNOWN if items is None else ListVal(items, "tuple")


def _dict(engine, args, kwargs, site):
    d = DictVal()
    if args:
        src = args[0]
        if isinstance(src, DictVal):
            d.items.update(src.items)
        else:
            items = engine.iterate(None, src)
            if items is None:
                return UNKNOWN
            for it in items:
                if isinstance(it, ListVal) and len(it.items) == 2:
                    d.items[it.items[0]] = it.items[1]
    d.items.update(kwargs)
    return engine.new_obj(d)


def _bool(engine, args, kwargs, site):
    """bool(x). A default flag of a class nobody builds stays one (`self.affine =
    bool(affine)`, then `if self.affine:` runs both ways), and a None or 0 default becomes
    a False one; a condition stays a condition (its `if` asks the solver)."""
    from . import generic
    if not args:
        return False
    v = args[0]
    if isinstance(v, generic.DefaultBool) or isinstance(v, S.Cond):
        return v
    if isinstance(v, (generic.DefaultNone, generic.DefaultZero)):
        return generic.DefaultBool(False)
    known = engine.truth(None, v)
    return UNKNOWN if known is None else known


def _int(engine, args, kwargs, site):
    if not args:
        return 0
    v = args[0]
    if _int_like(v) or v is SOME_INT:
        return v
    if type(v).__name__ == "_FloatDim":
        return v.floor()
    if is_tensor(v) and v.values is not None and len(v.values) == 1:
        return int(v.values[0])
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return int(v)
    if isinstance(v, str):
        return int(v)
    if is_tensor(v):
        return UNKNOWN
    return UNKNOWN


def _float(engine, args, kwargs, site):
    if not args:
        return 0.0
    v = args[0]
    if isinstance(v, (int, float, str)) and not isinstance(v, S.Expr):
        return float(v)
    from .dispatch import SOME_FLOAT, _is_number
    if _is_number(v):
        return SOME_FLOAT
    return UNKNOWN


def _isinstance(engine, args, kwargs, site):
    from .values import ClassVal, Instance, NNModule
    v, classes = args
    from .generic import untyped_parameter
    if untyped_parameter(engine, v):
        return UNKNOWN  # an int or a tuple, as the caller passes it: both ways run
    cands = classes.items if isinstance(classes, ListVal) else [classes]
    results = []
    from .enums import EnumMember
    for c in cands:
        if isinstance(c, ClassVal):
            if isinstance(v, Instance):
                results.append(c in v.cls.mro())
            elif isinstance(v, EnumMember):
                from .enums import same_class
                results.append(any(same_class(c, k) for k in v.cls.mro()))
            elif v is UNKNOWN:
                return UNKNOWN
            else:
                results.append(False)
        elif isinstance(c, Ref):
            results.append(_isinstance_ref(v, c.name))
        else:
            results.append(UNKNOWN)  # another candidate may still match
    if any(r is True for r in results):
        return True
    if all(r is False for r in results):
        return False
    return UNKNOWN


def _isinstance_ref(v, name):
    from .enums import EnumMember
    from .values import Instance, NNModule, FunctionVal
    short = name.rsplit(".", 1)[-1]
    if v is UNKNOWN:
        return UNKNOWN
    from . import generic
    if isinstance(v, (generic.DefaultNone, generic.DefaultZero)):
        return UNKNOWN  # a None (0) default of a class nobody builds: the model may pass anything
    if isinstance(v, generic.DefaultBool):
        return True if name in ("builtins.bool", "builtins.int") else UNKNOWN
    if isinstance(v, EnumMember):
        if name.startswith("enum."):
            return name in ("enum.Enum", "enum.ReprEnum") or any(b.name == name for b in v.cls.builtin_bases())
        return _isinstance_ref(v.value, name) if v.mixin is not None else UNKNOWN
    if name in ("builtins.bytes", "builtins.bytearray", "builtins.complex", "builtins.frozenset") and \
            (_plain_kind(v) is not None or is_tensor(v)):
        return False  # never made by the analysis
    if name == "numpy.ndarray" and _plain_kind(v) is not None:
        return False  # a Python value (numpy arrays are modelled as tensors)
    if name == "builtins.set":
        return _plain_kind(v) == "set" if _plain_kind(v) is not None or is_tensor(v) else UNKNOWN
    if name in ("builtins.int",):
        return _int_like(v) or isinstance(v, bool) or v is SOME_INT
    if name == "builtins.float":
        return isinstance(v, float)
    if name == "builtins.str":
        return isinstance(v, str)
    if name == "builtins.bool":
        return isinstance(v, bool)
    if getattr(v, "kind_joined", False) and name in ("builtins.list", "builtins.tuple"):
        return UNKNOWN  # a list one way, a tuple the other (expressions.join)
    if name in ("builtins.list",):
        return isinstance(v, ListVal) and v.kind == "list"
    if name in ("builtins.tuple",):
        return isinstance(v, ListVal) and v.kind in ("tuple", "size")
    if name == "builtins.dict":
        return isinstance(v, DictVal)
    if name in ("torch.Tensor", "torch.nn.Parameter"):
        return is_tensor(v)
    if name.startswith(("typing.", "collections.abc.")) and short in _ABC_KINDS:
        kind = _plain_kind(v)
        if kind is None and isinstance(v, Instance) and not v.cls.builtin_bases():
            return False  # `isinstance(config, Dict)` of a config object: no collection
        if kind is None:
            return UNKNOWN
        if short == "Hashable" and kind == "tuple":
            return UNKNOWN  # hashable when its items are
        return kind in _ABC_KINDS[short]
    if name in ("enum.EnumMeta", "enum.EnumType", "enum.Enum"):
        return _is_enum(v, of_class=name != "enum.Enum")
    if name.startswith("torch.nn."):
        if isinstance(v, NNModule):
            if v.name == name or v.name.rsplit(".", 1)[-1] == short or short == "Module":
                return True
            # Another layer class: False, but a base class torch keeps (nn.modules.conv._ConvNd,
            # _BatchNorm) may be one of its bases: not known.
            from .ops.spec import REGISTRY
            return UNKNOWN if short.startswith("_") or "torch.nn." + short not in REGISTRY else False
        if isinstance(v, Container):
            return v.kind == short or short == "Module"
        if isinstance(v, Instance):
            if short == "Module":
                return v.cls.is_module()
            return any(b.name == name for b in v.cls.builtin_bases())
        return False
    return UNKNOWN


_ITERABLE = {"list", "tuple", "str", "dict", "set"}
# Which plain Python values are instances of an abstract collection type.
_ABC_KINDS = {"Sequence": {"list", "tuple", "str"}, "MutableSequence": {"list"}, "List": {"list"},
              "Tuple": {"tuple"}, "Iterable": _ITERABLE, "Collection": _ITERABLE, "Container": _ITERABLE,
              "Sized": _ITERABLE, "Reversible": {"list", "tuple", "str", "dict"},
              "Mapping": {"dict"}, "MutableMapping": {"dict"}, "Dict": {"dict"},
              "Set": {"set"}, "AbstractSet": {"set"}, "MutableSet": {"set"},
              "Hashable": {"str", "number", "none", "bool"}}


def _plain_kind(v):
    """A plain Python value's kind for the abstract types above, or None for other values."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, str):
        return "str"
    if isinstance(v, DictVal):
        return "dict"
    if isinstance(v, ListVal):
        return {"size": "tuple"}.get(v.kind, v.kind)
    from .dispatch import _is_number
    if _is_number(v):
        return "number"
    return None


def _is_enum(v, of_class):
    """isinstance(v, enum.EnumMeta) (v is an Enum class) or isinstance(v, enum.Enum)."""
    from .values import ClassVal, Instance
    cls = v if of_class else (v.cls if isinstance(v, Instance) else None)
    if isinstance(cls, ClassVal):
        bases = cls.builtin_bases()
        if any(b.name.startswith("enum.") for b in bases):
            return True
        return False if not bases and all(isinstance(b, ClassVal) for c in cls.mro() for b in c.bases) \
            else UNKNOWN
    if _plain_kind(v) is not None or is_tensor(v) or (of_class and isinstance(v, Instance)):
        return False
    return UNKNOWN


def _minmax(pick):
    def f(engine, args, kwargs, site):
        if "key" in kwargs or "default" in kwargs:
            return UNKNOWN
        items = args if len(args) > 1 else pysets.items_in_any_order(engine, args[0])
        if not items:
            return UNKNOWN
        if all(isinstance(x, (int, float)) and not isinstance(x, (bool, S.Expr)) for x in items):
            return pick(items)
        if all(_int_like(x) for x in items):
            out = items[0]
            for x in items[1:]:
                d = S.sub(x, out)
                if not isinstance(d, int):
                    # `max(bucket_size, 1)`: a symbol is a dim >= 1, so the sign may be known
                    from .intervals import bounds
                    lo, hi = bounds(d)
                    d = 0 if lo >= 0 and hi <= 0 else 1 if lo >= 0 else -1 if hi <= 0 else None
                    if d is None:
                        return UNKNOWN
                out = x if (d > 0) == (pick is max) and d != 0 else out
            return out
        return UNKNOWN
    return f


def _sum(engine, args, kwargs, site):
    items = pysets.items_in_any_order(engine, args[0])
    if items is None:
        element = getattr(args[0], "element", None)
        if len(args) == 1 and is_tensor(element) and not getattr(args[0], "prefix", 0):
            return element  # tensors alike (`sum(x.split(c, dim=1))`): added, the same shape
        return UNKNOWN
    total = args[1] if len(args) > 1 else 0
    for x in items:
        if _int_like(x) and _int_like(total):
            total = S.add(total, x)
        elif isinstance(x, (int, float)) and isinstance(total, (int, float)) and not isinstance(x, S.Expr):
            total = total + x
        elif is_tensor(x) or is_tensor(total):
            # sum(tensors): 0 + t0 + t1 + ..., broadcast like `+` (errors where `+` would)
            from .dispatch import binary_op
            total = binary_op(engine, "+", total, x, site)
            if total is UNKNOWN:
                return UNKNOWN
        else:
            return UNKNOWN
    return total


def _abs(engine, args, kwargs, site):
    v = args[0]
    if isinstance(v, (int, float)) and not isinstance(v, S.Expr):
        return abs(v)
    if is_tensor(v):  # `abs(t)` is `t.__abs__()`, torch.abs
        from .dispatch import REGISTRY, run_op
        return run_op(engine, REGISTRY["torch.abs"], [v], {}, site)
    return UNKNOWN


def _round(engine, args, kwargs, site):
    v = args[0]
    if len(args) > 1 and type(args[1]) is int and args[1] < -MAX_INT_DIGITS:
        return UNKNOWN  # round(n, -10**9) computes 10**(10**9) (limits.py)
    if isinstance(v, (int, float)) and not isinstance(v, S.Expr):
        return round(v, *args[1:])
    return UNKNOWN


def _reversed(engine, args, kwargs, site):
    items = engine.iterate(None, args[0])
    return UNKNOWN if items is None else ListVal(list(reversed(items)), "tuple")


def _sorted(engine, args, kwargs, site):
    items = pysets.items_in_any_order(engine, args[0])
    if items is None or set(kwargs) - {"reverse"} or not isinstance(kwargs.get("reverse", False), bool):
        return UNKNOWN
    keys = [_plain_key(x) for x in items]
    if any(k is None for k in keys):
        return UNKNOWN
    try:
        order = sorted(range(len(items)), key=lambda i: keys[i], reverse=kwargs.get("reverse", False))
    except TypeError:  # items Python cannot compare (a str with an int): sorted() raises
        return UNKNOWN
    return ListVal([items[i] for i in order], "list")


def _plain_key(v):
    """What Python compares when it sorts `v`: a number, a str, or a tuple of those (the pairs
    of `sorted(zip(arr, range(len(arr))))`); None when that is not known."""
    if isinstance(v, (int, float, str)) and not isinstance(v, S.Expr):
        return v
    if isinstance(v, ListVal) and v.kind in ("tuple", "list") and not getattr(v, "unknown", False):
        keys = [_plain_key(x) for x in v.items]
        return None if any(k is None for k in keys) else tuple(keys)
    return None


def _anyall(pick):
    def f(engine, args, kwargs, site):
        items = pysets.items_in_any_order(engine, args[0])
        if items is None:
            return UNKNOWN
        truths = [engine.truth(None, x) if not isinstance(x, S.Cond) else None for x in items]
        if pick is any:
            if any(t is True for t in truths):
                return True
            return False if all(t is False for t in truths) else UNKNOWN
        if any(t is False for t in truths):
            return False
        return True if all(t is True for t in truths) else UNKNOWN
    return f


def _callable(engine, args, kwargs, site):
    """callable(v): `default(arg)` helpers call a default that is a function or a class."""
    from .dispatch import is_some_float
    from .ops.spec import REGISTRY
    from .values import (BoundMethod, BoundRef, ClassVal, FunctionVal, Instance, NNModule, PartialVal,
                         TensorValue)
    if len(args) != 1 or kwargs:
        return UNKNOWN
    v = args[0]
    if isinstance(v, (FunctionVal, BoundMethod, ClassVal, PartialVal, BoundRef, NNModule, Container)):
        return True  # every nn.Module is callable (Module.__call__)
    if v is None or isinstance(v, (bool, int, float, str, S.Expr, ListVal, DictVal, TensorValue)) \
            or is_some_float(v):
        return False
    if isinstance(v, Instance):
        if v.cls.is_module() or v.cls.lookup("__call__") is not None:
            return True
        return False if not v.cls.builtin_bases() and all(isinstance(b, ClassVal) for c in v.cls.mro()
                                                          for b in c.bases) else UNKNOWN
    if isinstance(v, Ref) and (v.name in REGISTRY or v.name in _TABLE):
        return True  # a modelled function or layer
    return UNKNOWN


def _isfunction(engine, args, kwargs, site):
    """inspect.isfunction(v): `default(val, d)` helpers call `d()` when it is a def or a
    lambda (a partial, a class, a bound method or a layer is not a function)."""
    from .dispatch import is_some_float
    from .ops.spec import REGISTRY
    from .values import (BoundMethod, BoundRef, ClassVal, FunctionVal, Instance, NNModule, PartialVal,
                         TensorValue)
    if len(args) != 1 or kwargs:
        return UNKNOWN
    v = args[0]
    if isinstance(v, FunctionVal):
        return True
    if v is None or isinstance(v, (bool, int, float, str, S.Expr, ListVal, DictVal, TensorValue, BoundMethod,
                                   BoundRef, ClassVal, PartialVal, Instance, NNModule, Container)) \
            or is_some_float(v):
        return False
    if isinstance(v, Ref) and v.name in REGISTRY and v.name.rsplit(".", 1)[-1][:1].isupper():
        return False  # a modelled layer class (nn.GELU)
    return UNKNOWN


_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "str", type(None): "NoneType"}


def _type(engine, args, kwargs, site):
    """type(v) of a value whose type is known: `type(heads) is not tuple`."""
    from .values import ClassVal, Instance, NNModule, TensorValue
    if len(args) != 1 or kwargs:
        return UNKNOWN
    v = args[0]
    if type(v) in _TYPE_NAMES:
        return Ref("builtins." + _TYPE_NAMES[type(v)])
    if isinstance(v, S.Expr):
        return Ref("builtins.int")
    if isinstance(v, ListVal) and not isinstance(v, NamedTupleVal) and v.kind in ("list", "tuple", "set"):
        return Ref("builtins." + v.kind)
    if isinstance(v, DictVal):
        return Ref("builtins.dict")
    if isinstance(v, Instance):
        return v.cls
    if isinstance(v, NNModule):
        return Ref(v.name)
    if isinstance(v, TensorValue):
        return Ref("torch.Tensor")  # nn.Parameter is a tensor too, but its type is Parameter
    return UNKNOWN


_BUILTIN_TYPES = {"builtins." + n for n in ("bool", "int", "float", "str", "NoneType", "list", "tuple",
                                             "set", "dict", "frozenset", "bytes", "complex")}


def same_ref(a: Ref, b: Ref):
    """`a is b` of two library names: one name is one object; two builtin types differ;
    other names may be aliases of one object (torch.nn.Linear, torch.nn.modules.linear.Linear)."""
    if a.name == b.name:
        return True
    if a.name in _BUILTIN_TYPES and b.name in _BUILTIN_TYPES:
        return False
    return UNKNOWN


class IteratorVal(ListVal):
    """`iter(items)`: the items not yet taken; `next(it)` takes the first (it is stateful:
    a loop calling next(it, None) per layer gets one item per layer)."""

    def __init__(self, items):
        super().__init__(items, "list")

    def structural_key(self, key):
        return ("iter", tuple(key(x) for x in self.items))


def _iter(engine, args, kwargs, site):
    if len(args) != 1 or kwargs:
        return UNKNOWN
    if isinstance(args[0], IteratorVal):
        return args[0]  # iter(it) is it
    items = engine.iterate(None, args[0])
    return UNKNOWN if items is None else engine.new_obj(IteratorVal(items))


def _next(engine, args, kwargs, site):
    if not 1 <= len(args) <= 2 or kwargs:
        return UNKNOWN
    it = args[0]
    if isinstance(it, IteratorVal) and getattr(it, "unknown", False):
        element = getattr(it, "element", None)  # a generator that yields in a loop of unknown count
        return element if element is not None else UNKNOWN
    if isinstance(it, IteratorVal):
        if it.items:
            engine._mutated(it)
            return it.items.pop(0)
        return args[1] if len(args) == 2 else UNKNOWN  # StopIteration
    if getattr(it, "unknown", False):
        return UNKNOWN
    items = engine.iterate(None, it)  # a generator made by a call: its first item
    return items[0] if items else UNKNOWN


def _filter(engine, args, kwargs, site):
    """filter(fn, items) when fn decides every item (x-transformers counts its attention
    layers with len(list(filter(equals('a'), layer_types))))."""
    if len(args) != 2 or kwargs:
        return UNKNOWN
    items = engine.iterate(None, args[1])
    if items is None:
        return UNKNOWN
    def keeps(x):
        verdict = x if args[0] is None else engine.call_value(args[0], [x], {}, site)
        truth = engine.truth(None, verdict) if not isinstance(verdict, S.Cond) else None
        return None if truth is UNKNOWN else truth

    from .values import MaybeNone
    kept = []
    for x in items:
        truth = keeps(x)
        if truth is None and isinstance(x, MaybeNone) and keeps(None) is False and keeps(x.value) is True:
            truth = True  # `filter(exists, [..., norm_or_none, ...])`: kept where it is a layer
        if truth is None:
            return UNKNOWN
        if truth:
            kept.append(x)
    return ListVal(kept, "tuple")


# Layers whose torch signature is (*args, **kwargs).
VARARG_LAYERS = {"torch.nn." + n for n in ("Sigmoid", "Tanh", "Softsign", "Tanhshrink", "LogSigmoid",
                                          "Softmax2d", "RNN", "LSTM", "GRU")}


class SignatureParams(DictVal):
    """inspect.signature(f).parameters: the names (values not modelled). A layer's spec may
    not declare every parameter torch has, so a name it lacks is not known to be absent."""

    def __init__(self, names, complete: bool):
        super().__init__({n: UNKNOWN for n in names})
        self.complete = complete


def _signature(engine, args, kwargs, site):
    from .ops.spec import REGISTRY
    from .values import BoundMethod, ClassVal, FunctionVal
    if len(args) != 1 or kwargs:
        return UNKNOWN
    f, skip = args[0], 0
    if isinstance(f, ClassVal):
        f, skip = f.lookup("__init__"), 1
    elif isinstance(f, BoundMethod):
        f, skip = f.func, 1
    if isinstance(f, FunctionVal):
        params = getattr(f, "params", None)
        if params is None:
            return UNKNOWN
        names = [getattr(p, "name", p) for p in params][skip:]
        params_val = SignatureParams(names, complete=True)
    elif isinstance(f, Ref) and f.name in VARARG_LAYERS:
        params_val = SignatureParams(["args", "kwargs"], complete=True)
    elif isinstance(f, Ref) and f.name in REGISTRY:
        # a layer's constructor spec has torch's parameters (tests/test_library_idioms.py
        # checks it against torch); a function spec may have fewer
        spec = REGISTRY[f.name]
        params_val = SignatureParams(list(spec.signature.parameters), complete=spec.kind == "module")
    else:
        return UNKNOWN
    return NamedTupleVal("Signature", ("parameters",), [params_val])


def _hasattr(engine, args, kwargs, site):
    from .values import Instance
    obj, name = args
    if isinstance(obj, Instance) and isinstance(name, str):
        if name in getattr(obj, "maybe_absent", ()) and obj.cls.lookup(name) is None:
            return UNKNOWN  # set in one way of an `if` whose test was not known (branchheap)
        return name in obj.attrs or obj.cls.lookup(name) is not None
    from .ops.spec import REGISTRY
    if isinstance(obj, Ref) and isinstance(name, str) and f"{obj.name}.{name}" in REGISTRY:
        return True  # `hasattr(nn, 'GELU')`: what torch 2.13 has, we model
    if not isinstance(name, str):
        return UNKNOWN
    kind = _plain_kind(obj)
    if kind == "number" and not _int_like(obj):
        return UNKNOWN  # a float may be a numpy scalar in truth (np.float64 has .shape)
    if kind is not None and not isinstance(obj, NamedTupleVal):
        # a plain value has what its Python type has (`hasattr(obj, "ndim")` of a str)
        sample = {"none": None, "bool": True, "str": "", "dict": {}, "list": [], "tuple": (),
                  "set": set(), "number": 0 if _int_like(obj) else 0.0}[kind]
        return hasattr(sample, name)
    if is_tensor(obj) and (f"Tensor.{name}" in REGISTRY or name in ("shape", "ndim", "dtype", "device")):
        return True
    return UNKNOWN


# What every nn.Module has beside its own attributes (getattr with a default of a name not
# among these, nor set on the instance or its class, is the default). None of its methods
# calls the module's forward (nnmodules.module_method: a model's other unresolved methods may).
MODULE_NAMES = frozenset({
    "add_module", "apply", "bfloat16", "buffers", "children", "compile", "cpu", "cuda", "double", "eval",
    "extra_repr", "float", "forward", "get_buffer", "get_extra_state", "get_parameter", "get_submodule", "half",
    "ipu", "load_state_dict", "modules", "mtia", "named_buffers", "named_children", "named_modules",
    "named_parameters", "parameters", "register_backward_hook", "register_buffer", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook", "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook", "register_load_state_dict_pre_hook", "register_module",
    "register_parameter", "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_",
    "set_extra_state", "set_submodule", "share_memory", "state_dict", "to", "to_empty", "train", "training",
    "type", "xpu", "zero_grad", "dump_patches", "call_super_init"})


def _getattr(engine, args, kwargs, site):
    obj, name = args[0], args[1]
    if not isinstance(name, str):
        return UNKNOWN
    from .values import BoundRef, Instance
    v = engine.get_attr(None, obj, name)
    if len(args) > 2 and (v is UNKNOWN or (
            # a module lacking the name: get_attr's last resort, torch.nn.Module's attribute
            # of that name, which nn.Module does not have either (`getattr(self,
            # self.base_model_prefix, self)` on the base model itself)
            isinstance(obj, Instance) and isinstance(v, BoundRef) and v.self_value is obj and v.name == name
            and not name.startswith("_") and name not in MODULE_NAMES)):
        return args[2]
    return v


def _method_kind(kind: str):
    """`staticmethod(f)` / `classmethod(f)` called, not used as a decorator (a function set
    on a class after its body: `Cls.make = staticmethod(make)`): the def, marked so."""
    def f(engine, args, kwargs, site):
        from .values import FunctionVal
        if len(args) != 1 or kwargs or not isinstance(args[0], FunctionVal):
            return UNKNOWN
        marked = copy_module.copy(args[0])
        marked.decorators = tuple(marked.decorators) + (kind,)
        return marked
    return f


def _setattr(engine, args, kwargs, site):
    obj, name, value = args
    if isinstance(name, str):
        engine.set_attr(None, obj, name, value)
    return None


def _divmod(engine, args, kwargs, site):
    a, b = args
    if _int_like(a) and _int_like(b):
        return ListVal([S.floordiv(a, b), S.mod(a, b)], "tuple")
    return UNKNOWN


def _math(fn):
    def f(engine, args, kwargs, site):
        if all(isinstance(a, (int, float)) and not isinstance(a, S.Expr) for a in args):
            return fn(*args)
        from .dispatch import SOME_FLOAT, _is_number
        if args and all(_is_number(a) for a in args) and fn in _FLOAT_MATH:
            return SOME_FLOAT  # math.sqrt(d_k) of a symbolic dim: a float of unknown value
        return UNKNOWN
    return f


def _next_fast_len(primes):
    """scipy's next_fast_len(target): the least n >= target whose prime factors are all in
    `primes` (an FFT size). SOME_INT for a target not known (it is surely an int)."""
    def f(engine, args, kwargs, site):
        target = args[0] if args else kwargs.get("target")
        if kwargs.get("real") is True:
            ps = (2, 3, 5)
        else:
            ps = primes
        if not (isinstance(target, int) and not isinstance(target, (bool, S.Expr))):
            return SOME_INT if _int_like(target) else UNKNOWN
        if target > 1 << 20:
            return SOME_INT  # (the search below is linear: a hostile size must not stall it)
        n = max(target, 1)
        while True:
            m = n
            for p in ps:
                while m % p == 0:
                    m //= p
            if m == 1:
                return n
            n += 1
    return f


_FLOAT_MATH = {math.sqrt, math.log, math.log2, math.log10, math.exp, math.cos, math.sin, math.pow}


def _math_prod(engine, args, kwargs, site):
    items = engine.iterate(None, args[0])
    if items is None:
        return UNKNOWN
    out = 1
    for x in items:
        if is_tensor(x) and x.values is not None and len(x.values) == 1 and type(x.values[0]) is int:
            x = x.values[0]  # an item of an int array with values
        if _int_like(x):
            out = S.mul(out, x)
        else:
            return UNKNOWN
    return out


def _numpy_prod(engine, args, kwargs, site):
    """np.prod: also of a single number (np.prod(strides) with strides=2 is 2)."""
    if len(args) == 1 and not kwargs and _int_like(args[0]):
        return args[0]
    return _math_prod(engine, args, kwargs, site) if len(args) == 1 and not kwargs else UNKNOWN


def _rounding(to_int, as_float=False):
    """math.ceil / math.floor (ints) and numpy's ceil / floor (floats of the same value) of a
    number, or of a float made from dims (`n / m`: its floor and ceiling are dims)."""
    def f(engine, args, kwargs, site):
        if len(args) != 1 or kwargs:
            return UNKNOWN
        v = args[0]
        if isinstance(v, (int, float)) and not isinstance(v, (bool, S.Expr)):
            out = to_int(v)
            return float(out) if as_float else out
        if _int_like(v):
            from .dispatch import _FloatDim
            return _FloatDim(v) if as_float else v
        from .dispatch import _FloatDim
        if isinstance(v, _FloatDim):
            out = v.floor() if to_int is math.floor else v.ceil()
            if out is UNKNOWN:
                return UNKNOWN
            return _FloatDim(out) if as_float else out
        return UNKNOWN
    return f


def _numpy_sum(engine, args, kwargs, site):
    """np.sum of a list of numbers (a tensor's sum is the torch spec's job)."""
    if len(args) != 1 or kwargs or is_tensor(args[0]):
        return UNKNOWN
    items = engine.iterate(None, args[0])
    if items is None or not all(_int_like(x) or type(x) is float for x in items):
        return UNKNOWN
    return _sum(engine, [ListVal(items, "list")], {}, site)


def _reduce(engine, args, kwargs, site):
    """functools.reduce(fn, items[, initial]): fn folded over the items, as Python does."""
    if kwargs or len(args) not in (2, 3):
        return UNKNOWN
    items = engine.iterate(None, args[1])
    if items is None:
        return UNKNOWN
    items = list(items)
    if len(args) == 3:
        acc = args[2]
    elif items:
        acc = items.pop(0)
    else:
        return UNKNOWN  # reduce() of an empty sequence with no initial value raises
    for x in items:
        acc = engine.call_value(args[0], [acc, x], {}, site)
        if acc is UNKNOWN:
            return UNKNOWN
    return acc


# operator.mul & co.: the same as writing the operator (dims, floats, tensors alike).
_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
              "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^"}


def _operator(symbol):
    def f(engine, args, kwargs, site):
        if len(args) != 2 or kwargs:
            return UNKNOWN
        from .dispatch import binary_op
        return binary_op(engine, symbol, args[0], args[1], site)
    return f


def _itemgetter(engine, args, kwargs, site):
    """operator.itemgetter(*keys): a function of one object, what `_get_items` does."""
    from .values import PartialVal, Ref
    if not args or kwargs:
        return UNKNOWN
    return PartialVal(Ref("operator._get_items"), [ListVal(list(args), "tuple")], {})


def _get_items(engine, args, kwargs, site):
    """obj[key] for the one key of an itemgetter, else the tuple of obj[key] for each key."""
    if len(args) != 2 or kwargs or not isinstance(args[0], ListVal):
        return UNKNOWN
    from .dispatch import subscript_value
    keys, obj = args[0].items, args[1]
    got = [subscript_value(engine, obj, k, site) for k in keys]
    return got[0] if len(got) == 1 else ListVal(got, "tuple")


# torch.nn.modules.utils._single/_pair/_triple/_quadruple (also reached through the layer
# modules that import them, torch.nn.modules.conv._pair): a tuple of n, from an iterable
# as it is, else the value repeated; `_ntuple(n)` makes such a function.
_TORCH_NTUPLES = {"_single": 1, "_pair": 2, "_triple": 3, "_quadruple": 4}


# torch.finfo(dtype): its numbers, for `-torch.finfo(t.dtype).max` mask fills; attributes of
# a dtype not known are floats of unknown value.
_FINFO_FIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution")
_FINFO = {"float32": (32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06),
          "float64": (64, 2.220446049250313e-16, 1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15),
          "float16": (16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001),
          "bfloat16": (16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01)}


def _finfo(args, kwargs):
    from .dispatch import SOME_FLOAT
    from .ops.spec import DEFAULT_FLOAT, Dtype
    dtype = args[0] if args else kwargs.get("type", DEFAULT_FLOAT)
    if len(args) > 1 or (args and kwargs):
        return UNKNOWN
    if not isinstance(dtype, Dtype):
        return NamedTupleVal("finfo", _FINFO_FIELDS, [UNKNOWN] + [SOME_FLOAT] * 6)
    numbers = _FINFO.get(str(dtype))
    if numbers is None:
        return UNKNOWN  # an int dtype: finfo raises
    bits, eps, big, tiny, resolution = numbers
    return NamedTupleVal("finfo", _FINFO_FIELDS, [bits, eps, big, -big, tiny, tiny, resolution])


# torch.iinfo(dtype): an integer dtype's range (`n * n < torch.iinfo(torch.int32).max`, a
# guard before an op that cannot take more elements).
_IINFO_FIELDS = ("bits", "max", "min")
_IINFO = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def _iinfo(args, kwargs):
    from .ops.spec import Dtype
    if len(args) != 1 or kwargs or not isinstance(args[0], Dtype):
        return UNKNOWN
    if str(args[0]) == "uint8":
        return NamedTupleVal("iinfo", _IINFO_FIELDS, [8, 255, 0])
    bits = _IINFO.get(str(args[0]))
    if bits is None:
        return UNKNOWN  # a float dtype: iinfo raises
    return NamedTupleVal("iinfo", _IINFO_FIELDS, [bits, 2 ** (bits - 1) - 1, -2 ** (bits - 1)])


def is_torch_helper(name: str) -> bool:
    if name in ("torch.finfo", "torch.iinfo", "torch.jit.isinstance", "torch.autograd.grad"):
        return True
    if not name.startswith("torch.nn.modules."):
        return False
    short = name.rsplit(".", 1)[-1]
    return short in _TORCH_NTUPLES or short == "_ntuple" or short.startswith("_ntuple:")


def _autograd_grad(args, kwargs):
    """torch.autograd.grad(outputs, inputs, ...): one gradient per input, shaped like it (a
    gradient penalty's `gradients, *_ = torch.autograd.grad(outputs=d, inputs=x, ...)`).
    With allow_unused, an input the outputs do not use gets None: not known here."""
    inputs = args[1] if len(args) > 1 else kwargs.get("inputs")
    if kwargs.get("allow_unused") not in (None, False) and kwargs.get("materialize_grads") is not True:
        return UNKNOWN
    if is_tensor(inputs):
        inputs = ListVal([inputs], "tuple")
    if not isinstance(inputs, ListVal) or getattr(inputs, "unknown", False) or \
            not all(is_tensor(t) for t in inputs.items):
        return UNKNOWN
    from .ops.spec import TensorValue
    return ListVal([TensorValue(t.shape, t.dtype) for t in inputs.items], "tuple")


def call_torch_helper(engine, name, args, kwargs, site):
    if name == "torch.finfo":
        return _finfo(args, kwargs)
    if name == "torch.iinfo":
        return _iinfo(args, kwargs)
    if name == "torch.jit.isinstance":  # eager mode: isinstance
        return _isinstance(engine, args, kwargs, site) if len(args) == 2 and not kwargs else UNKNOWN
    if name == "torch.autograd.grad":
        return _autograd_grad(args, kwargs)
    short = name.rsplit(".", 1)[-1]
    if short == "_ntuple":
        n = args[0] if len(args) == 1 and not kwargs else kwargs.get("n") if not args else None
        if type(n) is not int or not 0 < n <= 8:
            return UNKNOWN
        return Ref(f"torch.nn.modules.utils._ntuple:{n}")  # the function it makes
    n = int(short.split(":")[1]) if short.startswith("_ntuple:") else _TORCH_NTUPLES[short]
    if len(args) != 1 or kwargs:
        return UNKNOWN
    return _ntuple_of(engine, n, args[0])


def _ntuple_of(engine, n, x):
    if x is UNKNOWN or is_tensor(x) or isinstance(x, (DictVal, Container, str)):
        return UNKNOWN  # str and tensors are iterable, but never a layer's sizes
    if isinstance(x, ListVal):
        items = engine.iterate(None, x)
        return UNKNOWN if items is None else ListVal(items, "tuple")
    if _int_like(x) or isinstance(x, (float, bool)):
        return ListVal([x] * n, "tuple")
    return UNKNOWN


def _slice(engine, args, kwargs, site):
    """slice(stop) / slice(start, stop[, step]): the value `a:b:c` in a subscript is."""
    from .values import SliceVal
    if kwargs or not 1 <= len(args) <= 3:
        return UNKNOWN
    start, stop, step = (None, args[0], None) if len(args) == 1 else (list(args) + [None])[:3]
    return SliceVal(start, stop, step)


# collections.namedtuple: the type is a Ref whose name carries its fields (so two types with
# the same fields are the same value); an instance is a tuple that also answers its field names.
_NAMEDTUPLE = "collections.namedtuple:"


class NamedTupleVal(ListVal):
    def __init__(self, typename: str, fields: tuple, items):
        super().__init__(items, "tuple")
        self.typename = typename
        self.fields = fields

    def structural_key(self, key):
        return ("namedtuple", self.typename, self.fields, tuple(key(x) for x in self.items))


def _namedtuple_type(engine, args, kwargs, site):
    names = args[1] if len(args) > 1 else kwargs.get("field_names")
    typename = args[0] if args else kwargs.get("typename")
    if isinstance(names, str):
        fields = names.replace(",", " ").split()
    else:
        fields = engine.iterate(None, names) if names is not None else None
    if not isinstance(typename, str) or fields is None or not all(isinstance(f, str) and f.isidentifier()
                                                                 for f in fields):
        return UNKNOWN
    if kwargs.get("defaults") is not None or kwargs.get("rename"):
        return UNKNOWN  # defaults fill the last fields: not modelled
    return Ref(f"{_NAMEDTUPLE}{typename}:{','.join(fields)}")


def _namedtuple_fields(name: str):
    typename, fields = name[len(_NAMEDTUPLE):].split(":", 1)
    return typename, tuple(fields.split(",")) if fields else ()


def _namedtuple_new(name, args, kwargs):
    """`Point(1, y=2)`: a field not given is Unknown (its default, if one was set, is not
    tracked); a name that is no field is Unknown too."""
    typename, fields = _namedtuple_fields(name)
    if len(args) > len(fields) or any(k not in fields for k in kwargs):
        return UNKNOWN
    values = dict(zip(fields, args))
    values.update(kwargs)
    return NamedTupleVal(typename, fields, [values.get(f, UNKNOWN) for f in fields])


NOT_NAMEDTUPLE = object()


def namedtuple_attr(obj, name):
    """A field of a namedtuple, its methods, or the type's `_fields`; NOT_NAMEDTUPLE for
    other values."""
    if isinstance(obj, NamedTupleVal):
        if name in obj.fields:
            return obj.items[obj.fields.index(name)]
        if name == "_fields":
            return ListVal(list(obj.fields), "tuple")
        from .values import BoundRef
        return BoundRef(name, obj)
    if isinstance(obj, Ref) and obj.name.startswith(_NAMEDTUPLE) and name == "_fields":
        return ListVal(list(_namedtuple_fields(obj.name)[1]), "tuple")
    return NOT_NAMEDTUPLE


def namedtuple_method(obj: NamedTupleVal, name, args, kwargs):
    if name == "_replace" and not args and all(k in obj.fields for k in kwargs):
        items = [kwargs.get(f, v) for f, v in zip(obj.fields, obj.items)]
        return NamedTupleVal(obj.typename, obj.fields, items)
    if name == "_asdict" and not args and not kwargs:
        return DictVal(dict(zip(obj.fields, obj.items)))
    return UNKNOWN


# re on constant strings (geffnet decodes its block strings with re.split): only small
# patterns without a repeated group or many quantifiers, on short strings, so matching
# stays cheap (no catastrophic backtracking).
_RE_MAX_PATTERN, _RE_MAX_TEXT, _RE_MAX_QUANTIFIERS = 64, 256, 3


def _safe_pattern(pattern) -> bool:
    import re
    if not isinstance(pattern, str) or len(pattern) > _RE_MAX_PATTERN:
        return False
    if re.search(r"\)[*+?{]", pattern) or len(re.findall(r"(?<!\\)[*+?{]", pattern)) > _RE_MAX_QUANTIFIERS:
        return False
    return True


def _regex_call(args, kwargs, n):
    """True when `re.<fn>(pattern, ..., text)` has n positional arguments, a pattern that
    cannot backtrack without bound and a short text (the last argument)."""
    return len(args) == n and not kwargs and _safe_pattern(args[0]) and isinstance(args[-1], str) \
        and len(args[-1]) <= _RE_MAX_TEXT


def _re_split(engine, args, kwargs, site):
    import re
    if not _regex_call(args, kwargs, 2):
        return UNKNOWN
    try:
        parts = re.split(args[0], args[1])
    except re.error:
        return UNKNOWN
    return ListVal([p if p is not None else None for p in parts], "list")


def _re_findall(engine, args, kwargs, site):
    import re
    if not _regex_call(args, kwargs, 2):
        return UNKNOWN
    try:
        found = re.findall(args[0], args[1])
    except re.error:
        return UNKNOWN
    return engine.new_obj(ListVal([ListVal(list(f), "tuple") if isinstance(f, tuple) else f for f in found], "list"))


def _re_sub(engine, args, kwargs, site):
    """re.sub(pattern, repl, text): with a str repl; with a function, only where nothing
    matches (einops_exts rewrites `...name` axes this way: a pattern without them is kept)."""
    import re
    if not _regex_call(args, kwargs, 3):
        return UNKNOWN
    try:
        if isinstance(args[1], str):
            return re.sub(args[0], args[1], args[2])
        return args[2] if re.search(args[0], args[2]) is None else UNKNOWN
    except re.error:
        return UNKNOWN


def _module_copy(engine, v, inner):
    """copy.deepcopy of a module (`nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])`):
    a module of its own with parameters of its own, so the model counts each copy's (the
    summary) and a hook or a mode set on one leaves the others alone. Other values as they are."""
    from .values import Container, Instance, NNModule, is_tensor
    if is_tensor(v):
        return copy_module.copy(v)  # the same shape, another parameter
    if isinstance(v, Instance) and (v.cls.is_module() or "__container__" in v.attrs):
        out = engine.new_obj(Instance(v.cls))
    elif isinstance(v, NNModule):
        out = engine.new_obj(NNModule(v.name, {}, v.site, v.arg_sites, v.site_digest))
    elif isinstance(v, Container) and not getattr(v, "unknown", False):
        out = engine.new_obj(Container(v.kind, [inner(x) for x in v.items], list(v.keys) if v.keys is not None else None))
        out.set_flags(training=v.training, dtype=v.dtype)
        return out
    else:
        return v
    out.attrs.update({k: inner(x) for k, x in v.attrs.items()})
    out.set_flags(training=v.training, dtype=v.dtype)
    return out


def _copier(deep):
    """copy.copy / copy.deepcopy of lists, dicts and plain objects: a new object, so a write
    to the copy (torchvision's `block_cnf = copy.copy(cnf); block_cnf.input_channels = ...`)
    leaves the original alone. Tensors and layers are kept as they are (same shapes)."""
    def copy_of(engine, v, depth, memo):
        # (`memo`: what this deepcopy copied already, as Python's own: a layer held at two
        # places, `self.self_attn` and `self.residual.fn`, stays one layer in the copy)
        key = getattr(v, "oid", None)
        if key is not None and key in memo:
            return memo[key]
        out = _copy_one(engine, v, depth, memo)
        if key is not None:
            memo[key] = out
        return out

    def _copy_one(engine, v, depth, memo):
        from .values import Instance
        if depth > 8:
            return UNKNOWN
        inner = (lambda x: copy_of(engine, x, depth + 1, memo)) if deep else (lambda x: x)
        if getattr(v, "unknown", False):
            return v
        if isinstance(v, NamedTupleVal):
            return NamedTupleVal(v.typename, v.fields, [inner(x) for x in v.items])
        if isinstance(v, ListVal) and type(v) is ListVal:
            return engine.new_obj(ListVal([inner(x) for x in v.items], v.kind))
        if isinstance(v, DictVal) and type(v) is DictVal:
            return engine.new_obj(DictVal({k: inner(x) for k, x in v.items.items()}))
        if isinstance(v, Instance) and not v.cls.is_module() and "__container__" not in v.attrs:
            out = engine.new_obj(Instance(v.cls))
            out.attrs.update({k: inner(x) for k, x in v.attrs.items()})
            return out
        if deep:
            return _module_copy(engine, v, inner)
        return v

    def f(engine, args, kwargs, site):
        return copy_of(engine, args[0], 0, {}) if len(args) >= 1 else UNKNOWN
    return f


def _numpy_array(at_least_1d):
    """np.array / np.asarray / np.atleast_1d of numbers or a list of them: a small tensor with
    its values (numpy arrays are modelled as tensors), as monai computes paddings."""
    def f(engine, args, kwargs, site):
        from .dispatch import as_numpy, run_op
        from .ops.spec import REGISTRY
        if len(args) != 1 or (kwargs and set(kwargs) - {"dtype"}) or is_tensor(args[0]):
            return as_numpy(args[0]) if len(args) == 1 and is_tensor(args[0]) and not kwargs else UNKNOWN
        data = args[0]
        if isinstance(data, ListVal) and data.items and all(is_tensor(x) for x in data.items):
            # arrays of one shape (`[np.cos(i * t) for i in range(p)]`): numpy stacks them
            # (torch.tensor would not); ragged ones are left unknown
            shapes = {x.shape for x in data.items}
            if len(shapes) != 1 or None in shapes:
                return UNKNOWN
            return as_numpy(run_op(engine, REGISTRY["torch.stack"], [data], {}, site))
        if at_least_1d and (_int_like(data) or type(data) is float):
            data = ListVal([data], "list")
        if not (isinstance(data, ListVal) or _int_like(data) or type(data) is float):
            return UNKNOWN
        return as_numpy(run_op(engine, REGISTRY["torch.tensor"], [data], {}, site))
    return f


# numpy's random sampling: arrays (modelled as tensors) of the size asked for, values unknown
# (`indices = np.random.choice(n, k, replace=False)`, then `X[indices]`).
def _np_size(size):
    """The shape a numpy `size=` asks for, or None."""
    if _int_like(size) and not isinstance(size, bool):
        return (size,)
    if isinstance(size, ListVal) and not getattr(size, "unknown", False) and \
            all(_int_like(d) and not isinstance(d, bool) for d in size.items):
        return tuple(size.items)
    return None


def _np_sample(dtype, size_at=None, dims=False):
    def f(engine, args, kwargs, site):
        from .ops.spec import TensorValue
        if dims:  # np.random.rand(2, 3)
            shape = _np_size(ListVal(list(args), "tuple")) if args and not kwargs else None
        else:
            size = kwargs.get("size", args[size_at] if size_at is not None and len(args) > size_at else None)
            shape = _np_size(size) if size is not None else None
        first = args[0] if args else None
        dt = first.dtype if size_at == 1 and is_tensor(first) else dtype  # (choice from an array: its dtype)
        return UNKNOWN if shape is None else TensorValue(shape, dt)
    return f


def _np_permutation(engine, args, kwargs, site):
    from .ops.spec import TensorValue
    if len(args) != 1 or kwargs:
        return UNKNOWN
    x = args[0]
    if _int_like(x) and not isinstance(x, bool):
        return TensorValue((x,), "int64")
    return TensorValue(x.shape, x.dtype) if is_tensor(x) and x.shape is not None else UNKNOWN


_NUMPY_RANDOM = {
    "numpy.random.choice": _np_sample("int64", size_at=1), "numpy.random.randint": _np_sample("int64", size_at=2),
    "numpy.random.uniform": _np_sample("float64", size_at=2), "numpy.random.normal": _np_sample("float64", size_at=2),
    "numpy.random.rand": _np_sample("float64", dims=True), "numpy.random.randn": _np_sample("float64", dims=True),
    "numpy.random.permutation": _np_permutation,
}


# `types.SimpleNamespace(multiway=False, ...)` / `argparse.Namespace(...)`: settings passed to
# a model as an object; its attributes are the keywords given (more may be set later).
def _namespace(engine, args, kwargs, site):
    from .values import SETTINGS_NAMESPACE
    if args:
        return UNKNOWN
    obj = engine.new_obj(Instance(SETTINGS_NAMESPACE))
    obj.attrs.update(kwargs)
    return obj


def _globals(engine, args, kwargs, site):
    """globals(): the module's names as a dict (`globals().get(norm_type)`, a registry of
    the classes a module defines). The call depends on every one of them, as reading each
    by name would (memo: global reads)."""
    from .values import value_key
    if args or kwargs or not engine.stack:
        return UNKNOWN
    frame = engine.stack[-1]
    genv = frame.globals_env
    if genv is None:
        return UNKNOWN
    names = {k: v for k, v in genv.items() if isinstance(k, str)}
    for name, v in names.items():
        frame.entry.global_reads[(frame.path, name)] = value_key(v)
    return engine.new_obj(DictVal(names))


def _ordered_dict(engine, args, kwargs, site):
    return _dict(engine, args, kwargs, site)


def _defaultdict(engine, args, kwargs, site):
    """collections.defaultdict(factory, ...): a dict whose missing keys are made on read
    (dispatch.subscript_value), so `router[layer].append(block)` in __init__ fills it."""
    d = _dict(engine, args[1:], kwargs, site)
    if isinstance(d, DictVal) and args and args[0] is not None and args[0] is not UNKNOWN:
        d.default_factory = args[0]
    return d


def _str(engine, args, kwargs, site):
    if args and isinstance(args[0], (int, float, str)) and not isinstance(args[0], S.Expr):
        return str(args[0])
    return UNKNOWN


def _none(engine, args, kwargs, site):
    return None


def _identity(engine, args, kwargs, site):
    return args[0] if args else UNKNOWN


def _first_arg(engine, args, kwargs, site):
    return args[0] if args else UNKNOWN


def _map(engine, args, kwargs, site):
    fn = args[0]
    lists = [engine.iterate(None, a) for a in args[1:]]
    if any(x is None for x in lists):
        elements = [_element(engine, a) if getattr(a, "unknown", False) else None for a in args[1:]]
        if any(e is None for e in elements):
            return UNKNOWN
        out = engine.call_value(fn, elements, {}, site)
        return UNKNOWN if out is UNKNOWN else alike(out)
    return ListVal([engine.call_value(fn, list(t), {}, site) for t in zip(*lists)], "list")


_TABLE = {
    "builtins.len": _len, "builtins.range": _range, "builtins.enumerate": _enumerate,
    "builtins.zip": _zip, "builtins.list": _list, "builtins.tuple": _tuple,
    "builtins.dict": _dict, "builtins.int": _int, "builtins.float": _float, "builtins.bool": _bool,
    "builtins.isinstance": _isinstance, "builtins.min": _minmax(min), "builtins.max": _minmax(max),
    "builtins.sum": _sum, "builtins.abs": _abs, "builtins.round": _round,
    "builtins.reversed": _reversed, "builtins.sorted": _sorted, "builtins.any": _anyall(any),
    "builtins.all": _anyall(all), "builtins.hasattr": _hasattr, "builtins.getattr": _getattr,
    "builtins.setattr": _setattr, "builtins.staticmethod": _method_kind("staticmethod"),
    "builtins.classmethod": _method_kind("classmethod"), "builtins.globals": _globals, "builtins.callable": _callable, "builtins.type": _type, "builtins.divmod": _divmod, "builtins.print": _none,
    "builtins.str": _str, "builtins.map": _map, "builtins.iter": _iter, "builtins.filter": _filter, "inspect.signature": _signature,
    "inspect.isfunction": _isfunction,
    "re.split": _re_split, "re.findall": _re_findall, "re.sub": _re_sub,
    "builtins.next": _next,
    "builtins.set": lambda e, a, k, s: _set(e, a), "builtins.slice": _slice,
    "math.sqrt": _math(math.sqrt), "math.ceil": _rounding(math.ceil), "math.floor": _rounding(math.floor),
    "math.log": _math(math.log), "math.log2": _math(math.log2), "math.exp": _math(math.exp),
    "math.pow": _math(math.pow), "math.prod": _math_prod, "math.gcd": _math(math.gcd),
    "math.isqrt": _math(math.isqrt), "math.cos": _math(math.cos), "math.sin": _math(math.sin),
    "math.log10": _math(math.log10), "math.fabs": _math(math.fabs),
    "numpy.prod": _numpy_prod, "numpy.sqrt": _math(math.sqrt),
    "numpy.ceil": _rounding(math.ceil, as_float=True), "numpy.floor": _rounding(math.floor, as_float=True),
    "numpy.log": _math(math.log), "numpy.log2": _math(math.log2), "numpy.exp": _math(math.exp),
    "numpy.power": _math(math.pow), "numpy.cos": _math(math.cos), "numpy.sin": _math(math.sin),
    "numpy.sum": _numpy_sum, "numpy.atleast_1d": _numpy_array(True), "numpy.array": _numpy_array(False),
    "numpy.asarray": _numpy_array(False),
    "collections.OrderedDict": _ordered_dict, "collections.namedtuple": _namedtuple_type,
    "collections.defaultdict": _defaultdict,
    "types.SimpleNamespace": _namespace, "argparse.Namespace": _namespace,
    "scipy.fftpack.next_fast_len": _next_fast_len((2, 3, 5)),
    "scipy.fftpack.helper.next_fast_len": _next_fast_len((2, 3, 5)),
    "scipy.fft.next_fast_len": _next_fast_len((2, 3, 5, 7, 11)),
    "functools.reduce": _reduce,
    "operator.itemgetter": _itemgetter, "operator._get_items": _get_items,
    "copy.deepcopy": _copier(deep=True), "copy.copy": _copier(deep=False),
}
_TABLE.update({"operator." + name: _operator(symbol) for name, symbol in _OPERATORS.items()})
_TABLE.update(pyitertools.TABLE)
_TABLE.update(pytree.TABLE)
_TABLE.update(_NUMPY_RANDOM)
MATH_CONSTANTS = {"math.pi": math.pi, "math.e": math.e, "math.inf": math.inf,
                  "numpy.pi": math.pi, "numpy.e": math.e, "numpy.inf": math.inf,
                  "numpy.newaxis": None,  # (`t[:, np.newaxis]` is `t[:, None]`)
                  # False when the code runs: `if TYPE_CHECKING: from .models import ...` (a
                  # library's import of everything for type checkers) is not followed.
                  "typing.TYPE_CHECKING": False, "typing_extensions.TYPE_CHECKING": False}
# `sys.version_info[0] == 2` (code kept for Python 2): the version of the interpreter running
# the analysis, a Python 3, so such tests take their Python 3 way.
MATH_CONSTANTS["sys.version_info"] = NamedTupleVal("version_info", ("major", "minor", "micro", "releaselevel", "serial"),
                                                   list(sys.version_info))
