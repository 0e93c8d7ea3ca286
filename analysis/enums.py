"""enum.Enum classes in user and library code (monai's `look_up_option(mode, UpsampleMode)`,
`mode == UpsampleMode.DECONV`): members, `.value` / `.name`, lookup by value, iteration,
equality and `in`. A member of a str or int mixin enum equals its value, as in Python."""
from __future__ import annotations

from .shapes import UNKNOWN
from .values import ClassVal, FunctionVal, ListVal

_PLAIN = (str, int, float, bool)


def same_class(a, b) -> bool:
    """One class, also when one side is the class object an earlier run made (a member kept
    in a memoized result): the same definition, by file, name and code."""
    return a is b or (isinstance(a, ClassVal) and isinstance(b, ClassVal) and a.path == b.path
                      and a.qualname == b.qualname and a.digest == b.digest)


def is_enum_class(cls) -> bool:
    return isinstance(cls, ClassVal) and any(b.name.startswith("enum.") for b in cls.builtin_bases())


def _mixin(cls):
    """The plain type the members also are (class X(str, Enum), IntEnum), or None."""
    names = {b.name for b in cls.builtin_bases()}
    if "builtins.str" in names or "enum.StrEnum" in names:
        return str
    if "builtins.int" in names or names & {"enum.IntEnum", "enum.IntFlag"}:
        return int
    return None


class EnumMember:
    def __init__(self, cls: ClassVal, name: str, value):
        self.cls = cls
        self.name = name
        self.value = value
        self.mixin = _mixin(cls)

    def structural_key(self, key):
        return ("enum-member", key(self.cls), self.name)


def _members(cls):
    """(name, value) of the members, in definition order: plain class attributes that are
    not dunder/private names (methods and nested classes are not members)."""
    out, seen = [], set()
    for c in reversed(cls.mro()):
        for name, v in c.attrs.items():
            if name.startswith("_") or isinstance(v, (FunctionVal, ClassVal)) or name in seen:
                continue
            if isinstance(v, _PLAIN) or (isinstance(v, ListVal) and v.kind == "tuple"):
                out.append((name, v))
                seen.add(name)
    return out


def members(cls) -> list:
    return [EnumMember(cls, n, v) for n, v in _members(cls)]


def member_attr(cls, name):
    """`Color.RED`: the member, or None when `name` is no member."""
    if not is_enum_class(cls):
        return None
    for n, v in _members(cls):
        if n == name:
            return EnumMember(cls, n, v)
    return None


def field(m: EnumMember, name):
    """`.value` / `.name` of a member; None for other attributes."""
    if name == "value":
        return m.value
    if name == "name":
        return m.name
    return None


def call(cls, args, kwargs):
    """`Color("red")` is the member with that value; `Color(Color.RED)` is the member."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    v = args[0]
    if isinstance(v, EnumMember):
        return v if same_class(v.cls, cls) else UNKNOWN
    if not isinstance(v, _PLAIN):
        return UNKNOWN
    for m in members(cls):
        if type(m.value) is type(v) and m.value == v:
            return m
    return UNKNOWN  # ValueError in Python: no member has it


def equal(a, b):
    """`a == b` with a member on either side: True / False, or UNKNOWN."""
    if isinstance(a, EnumMember) and isinstance(b, EnumMember):
        return same_class(a.cls, b.cls) and a.name == b.name
    m, other = (a, b) if isinstance(a, EnumMember) else (b, a)
    if isinstance(other, _PLAIN) and not isinstance(other, bool):
        if m.mixin is None:
            return False  # a plain Enum member never equals a plain value
        if m.mixin is int:
            return isinstance(other, (int, float)) and m.value == other  # IntEnum(2) == 2.0
        return isinstance(other, m.mixin) and m.value == other
    if other is None:
        return False
    return UNKNOWN


def contains(cls, item):
    """`item in EnumClass`: a member of it, or (3.12+) a value one of its members has."""
    if isinstance(item, EnumMember):
        return same_class(item.cls, cls)
    if isinstance(item, _PLAIN):
        return any(type(m.value) is type(item) and m.value == item for m in members(cls))
    return UNKNOWN


def in_items(item: EnumMember, items):
    """`norm_type in (NormType.Batch, NormType.BatchZero)`: equal to one of the items (True),
    to none (False), or UNKNOWN."""
    found = [equal(item, x) if isinstance(x, EnumMember) or x is None or isinstance(x, _PLAIN) else UNKNOWN
             for x in items]
    if any(f is True for f in found):
        return True
    return False if all(f is False for f in found) else UNKNOWN


FUNCTIONAL = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})


def functional(name: str, args, kwargs, site_path: str, site_key: str):
    """`Enum('NormType', 'Batch Weight Spectral')` (fastai), or with a list of names, of
    (name, value) pairs or a dict: the class of those members, values numbered from 1 (for
    Flag and IntFlag by powers of two; StrEnum's are the names in lower case), as Python's
    functional API makes it. None when the arguments are not all known."""
    from .values import DictVal, Ref
    if len(args) != 2 or set(kwargs) - {"start"} or not isinstance(args[0], str):
        return None
    spec = args[1]
    start = kwargs.get("start", 1)
    if type(start) is not int:
        return None
    if isinstance(spec, str):
        names = spec.replace(",", " ").split()
        pairs = None
    elif isinstance(spec, ListVal) and not getattr(spec, "unknown", False):
        items = spec.items
        if all(isinstance(i, str) for i in items):
            names, pairs = list(items), None
        elif all(isinstance(i, ListVal) and len(i.items) == 2 and isinstance(i.items[0], str) for i in items):
            pairs = [(i.items[0], i.items[1]) for i in items]
        else:
            return None
    elif isinstance(spec, DictVal) and not getattr(spec, "unknown", False) and \
            all(isinstance(k, str) for k in spec.items):
        pairs = list(spec.items.items())
    else:
        return None
    if pairs is None:
        if name == "enum.StrEnum":
            pairs = [(n, n.lower()) for n in names]
        elif name in ("enum.Flag", "enum.IntFlag"):
            pairs = [(n, 1 << i) for i, n in enumerate(names)]
        else:
            pairs = [(n, start + i) for i, n in enumerate(names)]
    if not pairs or any(not isinstance(v, _PLAIN) and not (isinstance(v, ListVal) and v.kind == "tuple")
                        for _, v in pairs):
        return None
    return ClassVal(args[0], [Ref(name)], dict(pairs), f"enum:{site_key}:{args[0]}", site_path)
