"""Library functions whose effect their source does not show to the analysis, modelled by
name: they read the caller's frame (`sys._getframe`), which no analysis of their body can
follow. One entry per function, keyed by its package and the def's
name (a def of that name in the package, read or not), so a function of the same name
elsewhere is not taken for it.

fastcore's `store_attr()` (fastai's modules, and user code written with fastai): the
calling method's arguments (all, or those named) become attributes of its `self`."""
from __future__ import annotations

import re

from .shapes import UNKNOWN
from .values import FunctionVal, ListVal, Ref

_OPTIONS = ("names", "self", "but", "cast", "store_args")


def _names(v):
    """A comma-separated string or a list of strings, as store_attr takes them."""
    if isinstance(v, str):
        return [n for n in re.split(r", *", v) if n]
    if isinstance(v, ListVal) and not getattr(v, "unknown", False) and all(isinstance(x, str) for x in v.items):
        return list(v.items)
    return None


def _store_attr(engine, args, kwargs, site):
    frame = site[0] if site else None
    unit = getattr(frame, "unit", None)
    bound = getattr(frame, "bound_args", None)
    if unit is None or bound is None:
        return UNKNOWN
    params = [p.name for p in unit.params if p.kind in ("pos", "kwonly")]
    obj = kwargs.get("self")
    if obj is None:
        if not params:
            return UNKNOWN
        obj, params = bound.get(params[0]), params[1:]
    names = args[0] if args else kwargs.get("names")
    chosen = params if names is None else _names(names)
    but = _names(kwargs.get("but", "")) if kwargs.get("but", "") != "" else []
    if chosen is None or but is None:
        return UNKNOWN
    attrs = {k: v for k, v in kwargs.items() if k not in _OPTIONS}
    for name in chosen:
        # (a local the method set before the call is not known here: Unknown, not absent)
        attrs[name] = bound.get(name, UNKNOWN)
    for name, value in attrs.items():
        if name not in but:
            engine.set_attr(frame, obj, name, value)
    return None


_MODELS = {("fastcore", "store_attr"): _store_attr}


def lookup(fn):
    """The model of a library function, or None: `fn` is a def read from the package's
    source (FunctionVal) or a name of a package not read (Ref, `fastcore.basics.store_attr`,
    also re-exported as `fastcore.all.store_attr`)."""
    if isinstance(fn, FunctionVal):
        if "." in fn.qualname:
            return None
        parts = fn.path.replace("\\", "/").split("/")
        name = fn.qualname
    elif isinstance(fn, Ref):
        parts = fn.name.split(".")[:-1]
        name = fn.name.rsplit(".", 1)[-1]
    else:
        return None
    for (package, def_name), model in _MODELS.items():
        if name == def_name and package in parts:
            return model
    return None
