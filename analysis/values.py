"""Abstract values the interpreter computes with.

Scalars are plain Python values (`int`/`Expr` dims, `float`, `str`, `bool`, `None`),
tensors are `TensorValue`, and `UNKNOWN` is the top. Containers, user objects, modules and
callables are the classes below. Every value has a structural `value_key` used to memoize
calls (same key = same result) and to detect changed summaries.
"""
from __future__ import annotations

import itertools

from . import limits
from .ops.spec import Dtype, TensorValue
from .shapes import UNKNOWN, Expr

_ids = itertools.count()

# The engine's current run: train()/eval()/double() flags set during another run read as
# their defaults (a module is built in training mode and float32), so memoized modules can
# be shared across runs without resetting them.
RUN = [0]
# Bumped by every mutation of a heap object that is part of another object's cached key: a
# cached key is valid within an epoch. An object no other key has looked into (a module
# being built by its __init__) only drops its own cached key.
EPOCH = [0]


# Whether any train()/eval()/dtype flag was set in the current run: keys cached with those
# flags are stale in the next run, where the flags read as their defaults again.
FLAGS_SET = [False]


def new_run(run_id: int) -> None:
    RUN[0] = run_id
    if FLAGS_SET[0]:
        EPOCH[0] += 1
        FLAGS_SET[0] = False


def changed(obj) -> None:
    """Record a mutation of `obj` (see EPOCH)."""
    obj._key = None
    if obj._in_key:
        EPOCH[0] += 1


class Obj:
    """A mutable heap object (list, dict, instance): identity matters, key is structural."""

    _key = None  # (epoch, value_key)
    _flags = None  # (run, training, dtype) for modules
    _in_key = False  # part of the structural key of another object

    def __init__(self):
        self.oid = next(_ids)

    @property
    def training(self) -> bool:
        f = self._flags
        return f[1] if f is not None and f[0] == RUN[0] else True

    @property
    def dtype(self):
        f = self._flags
        return f[2] if f is not None and f[0] == RUN[0] else None

    def set_flags(self, training=None, dtype=...):
        changed(self)
        FLAGS_SET[0] = True
        self._flags = (RUN[0], self.training if training is None else training,
                       self.dtype if dtype is ... else dtype)


class ListVal(Obj):
    def __init__(self, items, kind: str = "list"):
        super().__init__()
        self.items = list(items)
        self.kind = kind  # "list" | "tuple" | "size" (torch.Size) | "set"


def tuple_val(items, kind: str = "tuple") -> ListVal:
    return ListVal(items, kind)


class _SomeInt:
    """A Python int the analysis does not know: a dim read from a shape where that dim is not
    known (`x.shape[0]` of `Tensor[?, 64]`), an item of `range(n)`, a loop counter. Unlike
    Unknown it is surely a number: `n ** -0.5` is a float, `x * n` keeps x's shape, and
    `x[:, i]` drops a dim. Specs see it as Unknown (dispatch.to_spec), indexing as an int
    (ANY_INT)."""

    def __repr__(self):
        return "<int>"

    def structural_key(self, key):
        return ("some-int",)


SOME_INT = _SomeInt()


def is_int_like(v) -> bool:
    """An int, a dim expression or SOME_INT (never a bool)."""
    return v is SOME_INT or (isinstance(v, (int, Expr)) and not isinstance(v, bool))


class MaybeNone:
    """A tensor or a layer on some paths and None on the others (`nn.Parameter(...) if n > 0
    else None`, a layer that may be `Always(None)`, `nn.LayerNorm(dim) if use_norm else
    None`): a test `is None` / `exists()` on it runs both ways, and the not-None way sees
    `value` (analysis.flags). Anything else treats it as Unknown."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def structural_key(self, key):
        return ("maybe-none", key(self.value))


class TensorOrNumber:
    """A tensor on some paths and a plain number on the others: the result of calling a
    layer chosen by a hyperparameter (`self.pos_emb = Always(0)`, or a positional embedding
    when a flag is set). An elementwise op with it runs both ways and joins the results
    (`x + self.pos_emb(x)` keeps x's shape either way); anything else treats it as Unknown."""

    __slots__ = ("tensor", "number")

    def __init__(self, tensor, number):
        self.tensor = tensor
        self.number = number

    def structural_key(self, key):
        return ("tensor-or-number", key(self.tensor), key(self.number))


class DictVal(Obj):
    def __init__(self, items: dict | None = None):
        super().__init__()
        self.items = dict(items or {})  # python-hashable keys only


class DictOptions(DictVal):
    """One of a few known dicts whose keys differ by way (`{key: val} if route else {}`, the
    items of a list filled in a loop): spread into a call (`f(x, **f_args)`), the call runs
    once per option and the results join; read any other way, a dict of unknown keys."""

    MAX_OPTIONS = 4

    def __init__(self, options):
        super().__init__()
        self.unknown = True
        self.options = tuple(options)

    def structural_key(self, key):
        return ("dict-options", tuple(key(o) for o in self.options))


def dict_options(dicts):
    """The dict that is one of `dicts` (known dicts or DictOptions): the one dict when they
    are all alike, DictOptions of up to MAX_OPTIONS, else a dict of unknown keys."""
    flat, seen = [], set()
    for d in dicts:
        for o in (d.options if isinstance(d, DictOptions) else (d,)):
            if getattr(o, "unknown", False):
                return unknown_dict()
            k = value_key(o)
            if k not in seen:
                seen.add(k)
                flat.append(DictVal(dict(o.items)))
    if len(flat) == 1:
        return flat[0]
    return DictOptions(flat) if len(flat) <= DictOptions.MAX_OPTIONS else unknown_dict()


class SliceVal:
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


# Packages whose classes are no nn.Module whatever a subclass defines (the standard
# library's bases: `abc.ABC`, `typing.Generic`, `enum.Enum`, ...; `object` and builtins).
_PLAIN_BASE_PACKAGES = frozenset({"builtins", "object", "abc", "typing", "typing_extensions", "enum",
                                  "collections", "dataclasses", "Exception", "dict", "list", "tuple",
                                  "str", "int", "float", "torch"})


class ClassVal:
    """A user-defined class."""

    def __init__(self, qualname: str, bases: list, attrs: dict, digest: str, path: str):
        self.qualname = qualname
        self.bases = bases  # ClassVal | Ref (e.g. torch.nn.Module) | UNKNOWN
        self.attrs = attrs  # methods (FunctionVal) and class attributes
        self.digest = digest
        self.path = path

    def mro(self):
        out = [self]
        for b in self.bases:
            if isinstance(b, ClassVal):
                for c in b.mro():
                    if c not in out:
                        out.append(c)
        return out

    def lookup(self, name):
        for c in self.mro():
            if name in c.attrs:
                return c.attrs[name]
        return None

    def attribute_hook(self, name: str):
        """The class's own `__getattribute__` or `__setattr__` (a def of the program), else
        None. Kept once found: every attribute read of its instances asks (a class's
        methods are all bound when its body has run)."""
        return self._kept(name, lambda found: found if isinstance(found, FunctionVal) else None)

    def property_setter(self, name: str):
        """The setter def of the class's property `name` (`@x.setter`), else None; kept like
        attribute_hook's answers."""
        return self._kept(("setter", name), lambda found: getattr(found, "setter", None)
                          if isinstance(found, FunctionVal) else None)

    def _kept(self, key, answer):
        """answer(lookup of the name in `key`), kept per class until an attribute is set on
        it (statements.set_attr). On every attribute read and store of an instance: no
        allocation once kept."""
        hooks = self.__dict__.get("_attribute_hooks")
        if hooks is None:
            hooks = self._attribute_hooks = {}
        if key not in hooks:
            hooks[key] = answer(self.lookup(key if isinstance(key, str) else key[1]))
        return hooks[key]

    def is_module(self) -> bool:
        """Derives from torch.nn.Module (directly or through other classes), or from a class
        that cannot be read (an import not installed: `labml_helpers.module.Module`,
        `pl.LightningModule`) while it defines `forward`: model code calls such an instance
        as a module."""
        opaque = False
        for c in self.mro():
            for b in c.bases:
                if isinstance(b, Ref) and b.name.startswith("torch.nn"):
                    return True
                if (isinstance(b, Ref) and b.name.split(".", 1)[0] not in _PLAIN_BASE_PACKAGES) or b is UNKNOWN:
                    opaque = True
        return opaque and isinstance(self.lookup("forward"), FunctionVal)

    def builtin_bases(self):
        return [b for c in self.mro() for b in c.bases if isinstance(b, Ref)]


_USER_CONTAINERS = frozenset({"collections.UserDict", "collections.UserList"})
# A subclass of dict itself keeps its items in the object: the analysis holds them in a
# DictVal under this attribute (no Python name can clash with it).
DICT_BASES = frozenset({"builtins.dict", "dict", "collections.OrderedDict", "typing.OrderedDict",
                        "typing.Dict"})
MAPPING_ATTR = "<mapping>"


def is_dict_subclass(cls) -> bool:
    return isinstance(cls, ClassVal) and any(b.name in DICT_BASES for b in cls.builtin_bases())


def user_container_data(v):
    """The `data` dict or list of an instance of a UserDict or UserList subclass (gluonts'
    InputSpec), or the items of a dict subclass (transformers' ACT2FN, ModelOutput), which
    its inherited methods and `spec[name]` read; None otherwise."""
    if not isinstance(v, Instance):
        return None
    bases = v.cls.builtin_bases()
    if not bases:
        return None
    if any(b.name in _USER_CONTAINERS for b in bases):
        data = v.attrs.get("data")
    elif any(b.name in DICT_BASES for b in bases):
        data = v.attrs.get(MAPPING_ATTR)
    else:
        return None
    return data if isinstance(data, (DictVal, ListVal)) else None


class Instance(Obj):
    """An instance of a user class; modules keep their submodules in `attrs`."""

    def __init__(self, cls: ClassVal):
        super().__init__()
        self.cls = cls
        self.attrs: dict = {}


def new_mark() -> int:
    """A mark in the order objects are made: own_copy copies those made after it."""
    return next(_ids)


def original(v):
    """The object `v` was copied from by own_copy (records made while building it name that
    one), else `v` itself."""
    return v.__dict__.get("copied_from", v) if hasattr(v, "__dict__") else v


def own_copy(v, made_after: int, seen: dict | None = None):
    """A copy of a built object for one more holder of it: the instances, lists and dicts
    made after the mark (by the constructor run that built it) copied, each once (`seen`
    keeps shared parts shared); the rest (what its caller handed in, layers, tensors,
    numbers) kept. A memoized constructor call hands each caller its own copy, so a method
    that changes one model's state (`prune_heads` lowering `self.n_head`, `.eval()`) does
    not change another model built with the same arguments."""
    seen = {} if seen is None else seen
    if isinstance(v, (BoundMethod, BoundRef)):
        # `self.state_function = self._base_int`: the copy's own method, on the copy
        owner = own_copy(v.self_value, made_after, seen)
        return v if owner is v.self_value else type(v)(v.func if isinstance(v, BoundMethod) else v.name, owner)
    if not isinstance(v, (Instance, Container, ListVal, DictVal)) or v.oid < made_after or getattr(v, "unknown", False):
        return v  # (a list of unknown length is known by its identity: value_key)
    if v.oid in seen:
        return seen[v.oid]
    c = object.__new__(type(v))
    c.__dict__.update(v.__dict__)
    c.oid = next(_ids)
    c.copied_from = original(v)  # (what the summary's records name)
    seen[v.oid] = c
    if isinstance(v, Instance):
        c.attrs = {k: own_copy(x, made_after, seen) for k, x in v.attrs.items()}
    elif isinstance(v, DictVal):
        c.items = {k: own_copy(x, made_after, seen) for k, x in v.items.items()}
    else:
        c.items = [own_copy(x, made_after, seen) for x in v.items]
    return c


class NNModule(Obj):
    """An instance of a modelled torch.nn module (Conv2d, Linear, ...)."""

    def __init__(self, name: str, attrs: dict, site=None, arg_sites=None, site_digest=""):
        super().__init__()
        self.name = name  # "torch.nn.Conv2d"
        self.attrs = attrs  # spec-level attributes from the constructor spec
        self.site = site  # (unit key, nid) of the constructor call
        self.arg_sites = arg_sites or {}  # parameter name -> (unit key, nid) of its argument
        # The digest of the code holding `site`: node ids are numbered per version of a def,
        # so a module built by an older version of it is not the same value (its diagnostics
        # would point at the wrong nodes).
        self.site_digest = site_digest


class Container(Obj):
    """nn.Sequential / nn.ModuleList / nn.ModuleDict / nn.ParameterList."""

    def __init__(self, kind: str, items: list, keys: list | None = None):
        super().__init__()
        self.kind = kind  # "Sequential" | "ModuleList" | "ModuleDict"
        self.items = items
        self.keys = keys  # ModuleDict / Sequential(OrderedDict) names


class FunctionVal:
    """A user-defined function (or lambda); `closure` is the defining environment."""

    def __init__(self, qualname: str, unit_key: str, params: tuple, defaults: dict, closure,
                 path: str, decorators=()):
        self.qualname = qualname
        self.unit_key = unit_key
        self.params = params
        self.defaults = defaults  # param name -> value
        self.closure = closure  # Env of the enclosing function, or None for module level
        self.path = path
        self.decorators = decorators


class PartialVal:
    """functools.partial(func, *args, **kwargs)."""

    def __init__(self, func, args, kwargs):
        self.func, self.args, self.kwargs = func, list(args), dict(kwargs)


class BoundMethod:
    def __init__(self, func, self_value):
        self.func = func
        self.self_value = self_value


class Ref:
    """A name in an external library: `torch`, `torch.nn.functional.relu`, `math.sqrt`."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"Ref({self.name})"


# The class of `nn.Module()` built bare, a namespace of parts: a module with no methods of its own.
BARE_MODULE = ClassVal("torch.nn.Module", [Ref("torch.nn.Module")], {}, "torch.nn.Module", "")
# The class of `types.SimpleNamespace(...)` / `argparse.Namespace(...)`: an object of settings.
SETTINGS_NAMESPACE = ClassVal("types.SimpleNamespace", [], {}, "types.SimpleNamespace", "")

class BoundRef:
    """A method of a builtin value: `x.view` on a tensor, `list.append` ..."""

    def __init__(self, name: str, self_value):
        self.name = name
        self.self_value = self_value


class ModuleNS:
    """A module of the workspace or of a library (for `import mypkg.blocks`). A library
    package is lazy (`env` None): an attribute runs only the submodule that defines it."""

    def __init__(self, path: str, env: dict | None, dotted: str = ""):
        self.path = path
        self.env = env
        self.dotted = dotted


def is_tensor(v) -> bool:
    return isinstance(v, TensorValue)


# -- size caps (limits.py): checked before an operation builds its value -------------------
def unknown_list(kind: str = "list") -> ListVal:
    """A list (tuple, set) of unknown items and length: what a too-big one becomes."""
    v = ListVal([], kind)
    v.unknown = True
    return v


def unknown_dict() -> "DictVal":
    """A dict whose keys and values are not known."""
    v = DictVal()
    v.unknown = True
    return v


def alike(element, kind: str = "list") -> ListVal:
    """A list of unknown length whose items all look like `element` (`[Block(dim) for _ in
    range(depth)]`, `zip` over such lists): iterating it binds the element."""
    v = ListVal([], kind)
    v.unknown, v.element = True, element
    return v


def added_after_loop(engine, seq, items) -> None:
    """Items added to a list (or container) that a loop of unknown trip count filled: where
    they sit among the loop's items is not tracked (iterating binds the element, any number
    of times), so the element becomes the join with them: any item may be one of these.
    Without that, `layers.append(nn.Linear(dim, 10))` after the loop would be skipped by a
    `for layer in layers` and the hover would show the loop's shape, which is wrong."""
    if not getattr(seq, "unknown", False):
        return
    element = getattr(seq, "element", None)
    if isinstance(seq, Container) and seq.kind == "Sequential":
        # A Sequential runs them last, after the loop's layers: kept in order for its call
        # (nnmodules.call_module), while iterating it still meets them anywhere.
        if "suffix" not in seq.__dict__:
            seq.loop_element, seq.suffix = element, []
        if seq.suffix is not None:
            seq.suffix = seq.suffix + list(items) if items is not None else None
    for item in (items if items is not None else (UNKNOWN,)):
        if element is None or item is UNKNOWN:
            element = None
            break
        element = join_alike(engine, [element, item])
    seq.element = element


def join_alike(engine, items):
    """What every one of `items` looks like, or None. Layers of one type that differ in
    their sizes (`Conv2d(3, c)` first, then `Conv2d(c, c)`) merge into one whose differing
    sizes are not known (an unknown size gives no diagnostic); other modules that differ
    (blocks with other channel counts) are no repetition of one element (calling each in
    any order would report errors the real order never meets)."""
    from .alternatives import OneOf
    out = items[0]
    for x in items[1:]:
        joined = engine.join(out, x)
        if isinstance(joined, OneOf):
            joined = _merged_layer(engine, out, x)
            if joined is None:
                return None
        out = joined
    return out if out is not UNKNOWN and not isinstance(out, OneOf) else None


def _merged_layer(engine, a, b, depth=0):
    """One modelled layer standing for either of two of the same type, its attributes that
    differ unknown; also a Sequential (or a subclass of it, torchvision's
    Conv2dNormActivation) of such layers, item by item. None when they are not alike."""
    if isinstance(a, Container) and isinstance(b, Container):
        return _merged_sequential(engine, a, b, depth)
    if isinstance(a, Instance) and isinstance(b, Instance) and a.cls is b.cls and a.attrs.keys() == b.attrs.keys() \
            and depth < 3 and a.cls.is_module():
        # Blocks of one class built with other sizes (the first of a stage from `in_dim`,
        # the rest from `out_dim`): one block whose differing sizes are not known, its
        # layers merged the same way; any part that does not merge leaves them apart.
        sequential = isinstance(a.attrs.get("__container__"), Container)
        inst = Instance(a.cls)
        for k in a.attrs:
            x, y = a.attrs[k], b.attrs[k]
            if _same_value(x, y):
                inst.attrs[k] = x
            elif isinstance(x, Container) and isinstance(y, Container):
                merged = _merged_sequential(engine, x, y, depth + 1)
                if merged is None:
                    return None
                inst.attrs[k] = merged
            elif isinstance(x, (Obj, ClassVal)) or isinstance(y, (Obj, ClassVal)):
                merged = None if sequential else _merged_layer(engine, x, y, depth + 1)
                if merged is None:
                    return None  # (a layer kept beside a Sequential's container: not merged)
                inst.attrs[k] = merged
            else:
                inst.attrs[k] = engine.join(x, y)  # (`self.out_channels`)
        return engine.new_obj(inst)
    if not (isinstance(a, NNModule) and isinstance(b, NNModule) and a.name == b.name
            and a.attrs.keys() == b.attrs.keys()):
        return None
    attrs = {k: a.attrs[k] if _same_value(a.attrs[k], b.attrs[k]) else
             engine.join(a.attrs[k], b.attrs[k]) if is_tensor(a.attrs[k]) and is_tensor(b.attrs[k]) else UNKNOWN
             for k in a.attrs}
    m = NNModule(a.name, attrs, site=a.site, arg_sites=a.arg_sites, site_digest=a.site_digest)
    m._flags = a._flags if a._flags == b._flags else None
    return engine.new_obj(m)


def _merged_sequential(engine, a, b, depth):
    if a.kind != "Sequential" or b.kind != "Sequential" or len(a.items) != len(b.items) or \
            getattr(a, "unknown", False) or getattr(b, "unknown", False):
        return None
    items = []
    for x, y in zip(a.items, b.items):
        m = x if _same_value(x, y) else _merged_layer(engine, x, y, depth + 1)
        if m is None:
            return None
        items.append(m)
    return engine.new_obj(Container(a.kind, items, list(a.keys) if a.keys is not None else None))


def _same_value(x, y) -> bool:
    try:
        return x is y or value_key(x) == value_key(y)
    except RecursionError:
        return False


def too_big(op: str, a, b) -> bool:
    """Would the binary operation `a <op> b` on plain values build a value past a cap?
    Cheap for everything else (tensors, dims, floats): two type tests."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return limits.int_too_big(op, a, b)
    if ta is str or tb is str:
        if op == "+" and ta is str and tb is str:
            return len(a) + len(b) > limits.MAX_STR_LEN
        if op == "*" and (ta is int or tb is int):
            s, n = (a, b) if ta is str else (b, a)
            return n > 0 and len(s) * n > limits.MAX_STR_LEN
        if op == "%" and ta is str:
            args = tuple(b.items) if isinstance(b, ListVal) else (b,)
            return limits.percent_format_too_big(a, args)
        return False
    if op == "+" and isinstance(a, (ListVal, Container)) and isinstance(b, (ListVal, Container)):
        return len(a.items) + len(b.items) > limits.MAX_ITEMS
    if op == "*" and (ta is int and isinstance(b, ListVal) or tb is int and isinstance(a, ListVal)):
        seq, n = (a, b) if tb is int else (b, a)
        return n > 0 and len(seq.items) * n > limits.MAX_ITEMS
    if op in ("*", "/") and (hasattr(a, "scale") or hasattr(b, "scale")):
        # A float made from a dim keeps an exact rational scale (dispatch._FloatDim):
        # squaring it doubles the scale's digits.
        return _scale_bits(a) + _scale_bits(b) > limits.MAX_INT_BITS
    return False


def _scale_bits(v) -> int:
    scale = getattr(v, "scale", None)
    if scale is not None:
        return scale.numerator.bit_length() + scale.denominator.bit_length()
    return 1100 if isinstance(v, float) else 0  # an exact float: up to 1,075 bits


def unknown_result(op: str, a, b):
    """What a too-big `a <op> b` is: Unknown of its type (an unknown list for lists)."""
    for v in (a, b):
        if isinstance(v, ListVal):
            return unknown_list("list" if v.kind == "list" else "tuple")
    return UNKNOWN


def too_many(n: int) -> bool:
    """More items than a list, tuple or dict may hold."""
    return n > limits.MAX_ITEMS


_CLOSURES = itertools.count(1)


def _closure_serial(fn) -> int:
    serial = fn.__dict__.get("_serial")
    if serial is None:
        serial = fn.__dict__["_serial"] = next(_CLOSURES)
    return serial


def value_key(v, _seen=None):
    """A hashable structural key: equal keys mean the analysis sees equal values."""
    if v is None or isinstance(v, (bool, int, float, str, complex)) or v is UNKNOWN:
        return (type(v).__name__, v) if not isinstance(v, Dtype) else ("dtype", str(v))
    if isinstance(v, (Expr, TensorValue)):
        return v
    if v is Ellipsis:
        return "..."
    if isinstance(v, Obj) and _seen is None:
        cached = v._key
        if cached is not None and cached[0] == EPOCH[0]:
            return cached[1]
        key = _value_key(v, {v.oid})
        v._key = (EPOCH[0], key)
        return key
    if _seen is None:
        _seen = set()
    if isinstance(v, Obj):
        if v.oid in _seen:
            return ("cycle", type(v).__name__)
        v._in_key = True
        _seen = _seen | {v.oid}
    return _value_key(v, _seen)


def _value_key(v, _seen):
    structural = getattr(v, "structural_key", None)
    if structural is not None:  # values modelled elsewhere (datasources) say their own key
        return structural(lambda x: value_key(x, _seen))
    if getattr(v, "unknown", False):
        return ("unknown-items", type(v).__name__, v.oid)
    if isinstance(v, ListVal):
        kind = "list-or-tuple" if getattr(v, "kind_joined", False) else v.kind
        return (kind, tuple(value_key(x, _seen) for x in v.items))
    if isinstance(v, DictVal):
        items = tuple((k, value_key(x, _seen)) for k, x in v.items.items())
        factory = getattr(v, "default_factory", None)
        return ("dict", items) if factory is None else ("defaultdict", items, value_key(factory, _seen))
    # (`hooked`: a forward hook was registered on it, nnmodules._OUTPUT_HOOKS)
    if isinstance(v, Instance):
        return ("inst", value_key(v.cls, _seen), v.training,
                tuple(sorted((k, value_key(x, _seen)) for k, x in v.attrs.items())), v.__dict__.get("hooked", False))
    if isinstance(v, NNModule):
        return ("nn", v.name, v.training, v.dtype, tuple(sorted((k, _spec_key(x)) for k, x in v.attrs.items())),
                v.site, v.site_digest, v.__dict__.get("hooked", False))
    if isinstance(v, Container):
        return ("cont", v.kind, v.training, tuple(value_key(x, _seen) for x in v.items),
                tuple(v.keys or ()), v.__dict__.get("hooked", False))
    if isinstance(v, FunctionVal):
        if v.closure is not None:
            # A def or lambda made inside a call holds what that call bound (`lambda:
            # PreNorm(latent_dim, ...)`): two of them are equal only when they are one.
            return ("fn", v.path, v.qualname, _closure_serial(v))
        return ("fn", v.path, v.qualname)
    if isinstance(v, ClassVal):
        # The class body's code (digest) does not say what its bases and decorators turned
        # out to be (an import broken mid-typing makes `nn.Module` Unknown), nor the values
        # of its class attributes: those are part of the class, and so are the defs set on
        # it after its body (`Cls.make = staticmethod(make)`: their names). The key is kept
        # until an attribute is set (statements.set_attr drops it), unless an attribute
        # holds a mutable object.
        cached = v.__dict__.get("_key")
        if cached is not None:
            return cached
        data = [(k, x) for k, x in v.attrs.items() if not isinstance(x, FunctionVal)]
        key = ("cls", v.path, v.qualname, v.digest, tuple(value_key(b, _seen) for b in v.bases),
               tuple(getattr(v, "decorators", ())), tuple((k, value_key(x, _seen)) for k, x in data),
               len(v.attrs))
        if not any(isinstance(x, Obj) for _, x in data):
            v._key = key
        return key
    if isinstance(v, BoundMethod):
        return ("bm", value_key(v.func, _seen), value_key(v.self_value, _seen))
    if isinstance(v, Ref):
        return ("ref", v.name)
    if isinstance(v, BoundRef):
        return ("bref", v.name, value_key(v.self_value, _seen))
    if isinstance(v, SliceVal):
        return ("slice", value_key(v.start), value_key(v.stop), value_key(v.step))
    if isinstance(v, ModuleNS):
        return ("modns", v.path)
    if isinstance(v, PartialVal):
        return ("partial", value_key(v.func, _seen), tuple(value_key(a, _seen) for a in v.args),
                tuple(sorted((k, value_key(a, _seen)) for k, a in v.kwargs.items())))
    return ("other", type(v).__name__)


def _spec_key(x):
    if isinstance(x, (list, tuple)):
        return tuple(_spec_key(i) for i in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _spec_key(v)) for k, v in x.items()))
    try:
        hash(x)
        return x
    except TypeError:
        return repr(x)


def set_training(v, mode: bool, _seen=None):
    """module.train(mode) / module.eval(): a run-time flag, set on the whole module tree."""
    _seen = _seen if _seen is not None else set()
    if not isinstance(v, (Instance, NNModule, Container)) or v.oid in _seen:
        return
    _seen.add(v.oid)
    v.set_flags(training=mode)
    children = v.items if isinstance(v, Container) else list(v.attrs.values())
    for c in children:
        set_training(c, mode, _seen)


def set_dtype(v, dtype, _seen=None):
    """module.double() / .float() / .half() / .to(dtype): every layer's parameters change."""
    _seen = _seen if _seen is not None else set()
    if not isinstance(v, (Instance, NNModule, Container)) or v.oid in _seen:
        return
    _seen.add(v.oid)
    if isinstance(v, NNModule):
        v.set_flags(dtype=dtype)
        return
    children = v.items if isinstance(v, Container) else list(v.attrs.values())
    for c in children:
        set_dtype(c, dtype, _seen)


def _is_part(x) -> bool:
    return isinstance(x, (Instance, NNModule, Container))


def named_children(v) -> list | None:
    """(name, module) pairs of module.named_children(), in registration order; None when a
    part is not known (a container of unknown length)."""
    if isinstance(v, NNModule):
        return []
    if isinstance(v, Container):
        if getattr(v, "unknown", False):
            return None
        named = zip(v.keys or [str(i) for i in range(len(v.items))], v.items)
    elif isinstance(v, Instance):
        inner = v.attrs.get("__container__")
        named = list((k, x) for k, x in v.attrs.items() if k != "__container__")
        if isinstance(inner, Container):
            more = named_children(inner)
            if more is None:
                return None
            named = more + named
    else:
        return None
    return [(str(k), x) for k, x in named if _is_part(x)]


def named_modules(v, prefix="", _seen=None) -> list | None:
    """(dotted name, module) pairs of module.named_modules(): the module first, then its
    parts depth first, each once; None when a part is not known."""
    _seen = _seen if _seen is not None else set()
    if v.oid in _seen:
        return []
    _seen.add(v.oid)
    out = [(prefix, v)]
    children = named_children(v)
    if children is None:
        return None
    for k, c in children:
        below = named_modules(c, f"{prefix}.{k}" if prefix else k, _seen)
        if below is None:
            return None
        out.extend(below)
    return out


def parameters(v, _seen=None) -> list:
    """The tensors of module.parameters(), in registration order (buffers included)."""
    return [t for _, t in named_parameters(v, "", _seen)]


def named_parameters(v, prefix="", _seen=None) -> list:
    """(dotted name, tensor) pairs of module.named_parameters()."""
    _seen = _seen if _seen is not None else set()
    if not isinstance(v, (Instance, NNModule, Container)) or v.oid in _seen:
        return []
    _seen.add(v.oid)
    out = []
    if isinstance(v, NNModule):
        for k, x in v.attrs.items():
            if isinstance(x, TensorValue) and not k.startswith("running_"):
                # The tensor itself, unless .double() & co. changed its dtype: `p.requires_grad =
                # False` in a loop over them says which parameter it froze (analysis.summary).
                out.append((prefix + k, x if (v.dtype or x.dtype) == x.dtype else TensorValue(x.shape, v.dtype)))
        return out
    if isinstance(v, Container):
        named = zip(v.keys or [str(i) for i in range(len(v.items))], v.items)
    else:
        named = ((k, x) for k, x in v.attrs.items() if k != "__container__")
    for k, c in named:
        if isinstance(c, TensorValue):
            out.append((prefix + str(k), c))
        else:
            out.extend(named_parameters(c, f"{prefix}{k}.", _seen))
    return out
