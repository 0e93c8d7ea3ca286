"""Tests on values with a few known options: default flags and tensors that may be None.

- A bool flag of a class nobody builds is a `generic.DefaultBool`: `if not
  self.receives_context:` runs both ways, and each way sees the flag's value there; a 0
  default (`generic.DefaultZero`) is 0 where `num_mem_kv > 0` is false and a symbol (a
  size >= 1) where it is true.
- A tensor on some paths and None on others is a `values.MaybeNone` (`self.mem_kv =
  nn.Parameter(...) if num_mem_kv > 0 else None`, a positional embedding that may be
  `Always(None)`): in `if exists(pos_emb):` or `default_val if val is None else val` the
  not-None way sees the tensor.

An `assert` keeps only the options for which it holds; a way that ends (`raise`, `return`)
leaves the other options to the code after it. A test is split when it reads at most
MAX_ATOMS such values (names, or attributes of a module) and is decided for every
combination of their options; anything else in it must be decided too.
"""
from __future__ import annotations

from contextlib import contextmanager
from itertools import product

from . import ir
from . import values as V
from . import shapes as S
from .generic import DefaultBool, DefaultNone, DefaultZero, building_entry, building_parts
from .name_uses import number_parameters
from .values import Instance, MaybeNone, NNModule

MAX_ATOMS = 3
_SPLIT = (DefaultBool, DefaultZero, MaybeNone)  # the values with a few known options


class Split:
    """The values a test reads and, for each combination of their options, its truth."""

    def __init__(self, atoms, truths):
        self.atoms = atoms  # [(value, where)]: where is ("name", id) or ("attr", obj, name)
        self.truths = truths  # {options tuple: True | False}

    def values_when(self, truth: bool) -> dict:
        """{atom index: the one option it has in every combination giving `truth`}."""
        chosen = [a for a, t in self.truths.items() if t is truth]
        out = {}
        for i in range(len(self.atoms)):
            seen = {id(a[i]): a[i] for a in chosen}
            if len(seen) == 1:
                out[i] = next(iter(seen.values()))
        return out

    def possible(self, truth: bool) -> bool:
        return any(t is truth for t in self.truths.values())


def _options(v) -> tuple:
    if isinstance(v, DefaultBool):
        return (False, True)
    if isinstance(v, DefaultZero):
        return (0, S.sym(v.name))  # off, or a size the model is built with (a symbol >= 1)
    if isinstance(v, DefaultNone):
        return (None, S.sym(v.name))  # off, or (a size, a layer) the model is built with
    return (None, v.value)


def split(engine, frame, test, env, statement=False) -> Split | None:
    """The test's truth for each option of the values it reads, or None when it reads none,
    reads too many, or is not decided for some combination. `statement`: the test of an
    `if` statement (not of `a if t else b`)."""
    atoms: list = []
    in_init = statement and frame.unit.key.endswith(".__init__")
    if in_init:
        none_in_calls = number_parameters(frame.unit)
    elif not statement and frame.unit.key.endswith(".__init__"):
        # `Lambda(partial(softclamp, value=v)) if exists(v) else None` in a constructor: the
        # way where the test holds sees `v` given (its symbol), the other None; the two join.
        none_in_calls = _ALL_NAMES
    else:
        none_in_calls = ()
    _collect(engine, frame, test, env, atoms, set(), none_in_calls=none_in_calls)
    if not atoms or len(atoms) > MAX_ATOMS:
        return None
    _note_split_flags(engine, atoms, in_init)
    truths = {}
    for combination in product(*(_options(v) for v, _ in atoms)):
        with assumed(engine, env, atoms, dict(enumerate(combination))) as way_env:
            t = engine.truth(frame, engine.eval(frame, test, way_env, record=False))
        if t is None:
            return None
        truths[combination] = t
    return Split(atoms, truths)


class _AllNames:
    def __contains__(self, name) -> bool:
        return True


_ALL_NAMES = _AllNames()


def none_test(test, env):
    """`p is None` / `p is not None` where `p` names a None default of a class nobody builds
    (generic.DefaultNone): (name, that value, whether the test holds when p is given), else
    None. The way where p is given sees it as a number the model is built with (its symbol:
    `nn.Linear(hidden_dim, representation_size)`), not as None."""
    if type(test) is not ir.Compare or len(test.ops) != 1 or test.ops[0] not in ("is", "is not") or \
            type(test.left) is not ir.Name or type(test.comparators[0]) is not ir.Const or \
            test.comparators[0].value is not None or env is None:
        return None
    v = env.get(test.left.id)
    if not isinstance(v, DefaultNone) or not v.name:
        return None
    return test.left.id, v, test.ops[0] == "is not"


def _note_split_flags(engine, atoms, in_init=False) -> None:
    """Remember, on the generic instance being built, the flags its construction split on
    (`dim * mult * (2 if glu else 1)`): its methods then run on one instance per value of
    them (infer.flag_worlds), so a `forward` testing `self.glu` sees the layers built that way.
    A None default counts when an `if` statement of a constructor tests it (`if
    exists(rel_pos_length):` builds the tables `forward` reads on the same test); in a helper
    (`default(dim_out, dim)`) or `a if t else b` the ways join, keeping the parameter's symbol."""
    names = {v.name for v, _ in atoms if (isinstance(v, DefaultBool) or in_init and isinstance(v, DefaultNone))
             and v.name}
    if not names:
        return
    _note_on_builders(engine, names)


def note_reused_part(engine, entry) -> None:
    """A part built before (its construction served from the memo): the flags its
    construction split on are split on by every instance being built around it."""
    names = entry.__dict__.get("split_flags")
    if names:
        _note_on_builders(engine, names)


def _note_on_builders(engine, names) -> None:
    # Every instance being built, generic or a part of one: a flag the model hands down
    # (`Performer(..., cross_attend)`) and the part splits on is one of the model's own
    # (flag_worlds keeps those it passed).
    for owner in building_parts(engine):
        owner.__dict__.setdefault("split_flags", set()).update(names)


def note_dead_values(engine, sp: Split, values: dict) -> None:
    """The flag values of a way that cannot go on (it raises: an import of a package no
    file has): the generic instance being built is never built with them (flag_worlds)."""
    owner = building_entry(engine)
    if owner is None:
        return
    for i, v in values.items():
        flag = sp.atoms[i][0]
        if isinstance(flag, DefaultBool) and flag.name and isinstance(v, bool):
            owner.__dict__.setdefault("dead_flag_values", set()).add((flag.name, v))


def note_passed_flags(engine, values) -> None:
    """Flags of the generic instance being built that it hands to a part it builds
    (`FastAttention(dim, causal=causal)`): the part keeps them, like `self.causal = causal`
    (infer.flag_worlds)."""
    names = {v.name for v in values if isinstance(v, DefaultBool) and v.name}
    if names:
        owner = building_entry(engine)
        if owner is not None:
            owner.__dict__.setdefault("passed_flags", set()).update(names)


def _collect(engine, frame, node, env, atoms, seen, truthy=True, none_in_calls=()) -> None:
    """Names and module attributes under the test that hold a flag or a MaybeNone, and a
    None default read for its truth (`if representation_size:`; `p is None` is left to
    DefaultNone.join, which keeps the parameter's symbol where the ways meet)."""
    t = type(node)
    where = None
    kinds = _SPLIT + (DefaultNone,) if truthy else _SPLIT
    if t is ir.Name:
        where = ("name", node.id)
    elif t is ir.Attr:
        obj = engine.eval(frame, node.obj, env, record=False)
        if isinstance(obj, (Instance, NNModule)) and isinstance(obj.attrs.get(node.name), kinds):
            where = ("attr", obj, node.name)
        else:
            _collect(engine, frame, node.obj, env, atoms, seen, False)
    elif t is ir.UnaryOp:
        _collect(engine, frame, node.operand, env, atoms, seen, truthy, none_in_calls)
    elif t is ir.BoolOp:
        for v in node.values:
            _collect(engine, frame, v, env, atoms, seen, truthy, none_in_calls)
    elif t is ir.Compare:
        for v in (node.left,) + tuple(node.comparators):
            _collect(engine, frame, v, env, atoms, seen, False)
    elif t is ir.Call:
        # (in a constructor's `if` statement, `exists(rel_pos_length)` tests a None default
        # as `is not None` does: flag_worlds builds the model both ways)
        for a in node.args:
            _collect(engine, frame, a.value, env, atoms, seen,
                     type(a.value) is ir.Name and a.value.id in none_in_calls)
    if where is None:
        return
    key = where if where[0] == "name" else ("attr", id(where[1]), where[2])
    if key in seen:
        return
    v = engine.eval(frame, node, env, record=False)
    if isinstance(v, kinds):
        seen.add(key)
        atoms.append((v, where))


@contextmanager
def assumed(engine, env, atoms, values: dict):
    """An env (a copy) and module attributes with the atoms set to `values` while the block
    runs; the attributes are put back after it."""
    way_env = dict(env) if env is not None else None
    saved = []
    for i, value in values.items():
        where = atoms[i][1]
        if where[0] == "name":
            if way_env is not None:
                way_env[where[1]] = value
        else:
            _kind, obj, name = where
            saved.append((obj, name, obj.attrs.get(name)))
            obj.attrs[name] = value
            V.changed(obj)
    try:
        yield way_env
    finally:
        for obj, name, old in reversed(saved):
            obj.attrs[name] = old
            V.changed(obj)


def bind(engine, frame, sp: Split, env, values: dict) -> None:
    """Give the atoms their values in one way of an `if` (its own env; attributes on the
    heap, noted as that way's writes so the other way starts from them as they were)."""
    for i, value in values.items():
        _set(engine, env, sp.atoms[i][1], value, lasting=False)


def rebind(engine, env, sp: Split, values: dict) -> None:
    """Where the code goes on: each atom is its one value there, else what it was (the
    join of the options would lose it). A value left decided is a lasting write to its
    object (the call that made it is not pure)."""
    for i, (original, where) in enumerate(sp.atoms):
        _set(engine, env, where, values.get(i, original), lasting=i in values)


def _set(engine, env, where, value, lasting: bool) -> None:
    if where[0] == "name":
        if env is not None:
            env[where[1]] = value
        return
    _kind, obj, name = where
    if obj.attrs.get(name) is value:
        return
    if lasting:
        engine._mutated(obj)
    else:  # undone where the ways meet: only the other way must not see it
        engine._noted_write(obj)
    obj.attrs[name] = value
