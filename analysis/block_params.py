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

from .name_uses import name_uses
from .values import ClassVal, FunctionVal

MAX_CANDIDATES = 3


def _uses(units, name: str) -> tuple[bool, set, bool]:
    """(whether `name` is called, the attributes read of it, whether it is indexed) in the
    bodies of `units`."""
    called, attrs, indexed = False, set(), False
    for unit in units:
        u = name_uses(unit).get(name)
        if u is not None:
            called, indexed = called or u.called, indexed or u.indexed
            attrs.update(u.attrs)
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
