"""Config objects handed to a model nobody builds.

Much model code takes its sizes from one object: `Mamba(config: MambaConfig)`, nanoGPT's
`GPT(config)` reading `config.n_embd`, llama's `Transformer(params: ModelArgs)`. With no
caller the parameter would be Unknown and so would every layer built from it. When the
parameter is annotated with a dataclass of the program, or reads only attributes that are
fields of exactly one dataclass of its file, the model is built with a generic instance of
that dataclass: each int field a size named after it (its default, if any, the hover's
"with the defaults" variant), as a constructor's own hyperparameters are (generic.py).
"""
from __future__ import annotations

from . import shapes as S
from .generic import context_notes, generic_hyperparameter
from .name_uses import name_uses
from .shapes import UNKNOWN
from .values import ClassVal


def is_dataclass(cls) -> bool:
    return isinstance(cls, ClassVal) and not cls.is_module() and \
        any("dataclass" in d for d in getattr(cls, "decorators", None) or ())


def fields(cls) -> list:
    """The dataclass fields of `cls` and its bases, base fields first (the __init__ order)."""
    out: list = []
    for c in reversed(cls.mro()):
        for f in getattr(c, "fields", []):
            if f not in out:
                out.append(f)
    return out


def matching_dataclass(unit, name: str, module_env: dict):
    """The one dataclass of the file whose fields include every attribute `name` reads in
    `unit` (and that is all the body does with it), else None."""
    use = name_uses(unit).get(name)
    if use is None or not use.attrs or use.called or use.indexed or use.iterated or use.scalar:
        return None
    found = [c for c in module_env.values() if is_dataclass(c) and use.attrs <= set(fields(c))]
    unique = []
    for c in found:
        if all(c is not u for u in unique):
            unique.append(c)
    return unique[0] if len(unique) == 1 else None


def generic_config(engine, cls):
    """An instance of the dataclass `cls` built with generic field values."""
    notes = context_notes(engine, "defaults")
    ints = getattr(cls, "int_fields", set())
    values = {}
    for f in fields(cls):
        owner = next((c for c in cls.mro() if f in c.attrs), None)
        default = owner.attrs[f] if owner is not None else None
        if owner is None or (type(default) is int and default < 0):
            # no default, or a placeholder the caller replaces (llama's `vocab_size: int = -1`,
            # set from the tokenizer): a size when annotated `int`
            values[f] = S.sym(f) if f in ints or owner is not None else UNKNOWN
        else:
            values[f] = generic_hyperparameter(f, default, notes)
    return engine.construct(cls, [], values, None, generic=True)
