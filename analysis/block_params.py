"""Block classes handed to a model that nobody builds.

`class ResNet(nn.Module): def __init__(self, block, layers, ...)` builds its stages with
`block(inplanes, planes, stride)` and sizes them with `block.expansion`; the factories that
pass `BasicBlock` or `Bottleneck` often live in another file. With no factory in the file,
the generic instance has a symbol for `block`, and every stage is Unknown. The classes of
the file that the body could mean are few: module classes with every class attribute the
body reads of the parameter (`expansion`). The model's methods run once per such class
(infer.flag_worlds' mechanism): each way is a guess, so its shapes are shown and the
diagnostics of the model's own methods are not.
"""
from __future__ import annotations

from . import ir
from .ircodec import FIELDS
from .values import ClassVal, FunctionVal

MAX_CANDIDATES = 3


def _nodes(root):
    """Every IR node under `root`."""
    stack = [root]
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            stack.extend(v)
            continue
        names = FIELDS.get(type(v))
        if names is None:
            continue
        yield v
        stack.extend(getattr(v, n) for n in names)


_NAME_USES: dict = {}  # unit digest -> {name: (called, attributes read, indexed)}; units are immutable by digest
_NAME_USES_CAP = 4096


def _name_uses(unit) -> dict:
    """{name: (whether it is called, the attributes read of it, whether it is indexed)} for
    the plain names of a unit's body: one walk per unit digest (flag_worlds asks once per
    method of every class nobody builds, on every analysis)."""
    found = _NAME_USES.get(unit.digest)
    if found is not None:
        return found
    found = {}
    for n in _nodes(unit.body):
        t = type(n)
        if t is ir.Call and type(n.func) is ir.Name:
            found.setdefault(n.func.id, [False, set(), False])[0] = True
        elif t is ir.Attr and type(n.obj) is ir.Name:
            found.setdefault(n.obj.id, [False, set(), False])[1].add(n.name)
        elif t is ir.Subscript and type(n.obj) is ir.Name:
            found.setdefault(n.obj.id, [False, set(), False])[2] = True
    if len(_NAME_USES) >= _NAME_USES_CAP:
        _NAME_USES.clear()
    _NAME_USES[unit.digest] = found
    return found


def _uses(units, name: str) -> tuple[bool, set, bool]:
    """(whether `name` is called, the attributes read of it, whether it is indexed) in the
    bodies of `units`."""
    called, attrs, indexed = False, set(), False
    for unit in units:
        c, a, i = _name_uses(unit).get(name, (False, (), False))
        called, indexed = called or c, indexed or i
        attrs.update(a)
    return called, attrs, indexed


def block_choices(program, module_env: dict, cls: ClassVal) -> tuple[str, list, list] | None:
    """(parameter, candidate classes, the other parameters with no default it indexes) for
    the first constructor parameter with no default that the class calls and reads class
    attributes of, when the file has 1 to MAX_CANDIDATES module classes with all of them;
    else None. The indexed ones (`layers[0]`, blocks per stage) are lists of numbers."""
    init = cls.lookup("__init__")
    if not isinstance(init, FunctionVal):
        return None
    methods = [v for v in cls.attrs.values() if isinstance(v, FunctionVal)]
    units = [u for u in (program.unit(m.path, m.unit_key) for m in methods) if u is not None]
    init_unit = program.unit(init.path, init.unit_key)
    if init_unit is None:
        return None
    free = [p for p in init_unit.params[1:]
            if p.kind in ("pos", "kwonly") and p.name not in init.defaults and p.annotation is None]
    uses = {p.name: _uses(units, p.name) for p in free}
    for name, (called, attrs, _) in uses.items():
        if not (called and attrs):
            continue
        found = []
        for v in module_env.values():
            if isinstance(v, ClassVal) and v is not cls and v.is_module() and all(v is not o for o in found) \
                    and all(_class_attribute(v, a) for a in attrs):
                found.append(v)
        if 1 <= len(found) <= MAX_CANDIDATES:
            return name, found, [n for n, (c, _, indexed) in uses.items() if indexed and not c and n != name]
        return None
    return None


def _class_attribute(cls: ClassVal, name: str) -> bool:
    v = cls.lookup(name)
    return v is not None and not isinstance(v, FunctionVal)
