"""Default flags in tests: `if not self.receives_context:`, `assert not (self.causal and
mask is None)`.

A bool flag of a class nobody builds is a `generic.DefaultBool`: an `if` on it runs both
ways. Each way knows which value the flag has there, and code inside that way that reads the
flag again (`self.to_k(x if not self.receives_context else context)`, a helper method) must
see that value, not the undecided flag. An `assert` keeps only the values for which it
holds; a way that ends (`raise`, `return`) leaves the other value to the code after it.

A test is split only when the flags are read directly by the boolean structure of the test
(names and attributes under `not`, `and`, `or`); every other part of it is evaluated once,
and must be decided, for the split to say anything.
"""
from __future__ import annotations

from itertools import product

from . import ir
from .generic import DefaultBool
from . import values as V
from .values import Instance, NNModule

MAX_FLAGS = 3


class Split:
    """The flags a test reads and, for each assignment of them, the test's truth."""

    def __init__(self, atoms, truths):
        self.atoms = atoms  # [(node, DefaultBool, where)]: where is ("name", id) or ("attr", obj, name)
        self.truths = truths  # {assignment tuple: True | False}

    def values_when(self, truth: bool) -> dict:
        """{atom index: the one value it has in every assignment giving `truth`}."""
        chosen = [a for a, t in self.truths.items() if t is truth]
        out = {}
        for i in range(len(self.atoms)):
            seen = {a[i] for a in chosen}
            if len(seen) == 1:
                out[i] = seen.pop()
        return out

    def possible(self, truth: bool) -> bool:
        return any(t is truth for t in self.truths.values())


def split(engine, frame, test, env) -> Split | None:
    """The test's truth for each value of the default flags it reads, or None when it reads
    none, reads too many, or depends on something else that is not decided."""
    atoms: list = []
    leaves: dict = {}
    if not _collect(engine, frame, test, env, atoms, leaves) or not atoms or len(atoms) > MAX_FLAGS:
        return None
    truths = {}
    for assignment in product((False, True), repeat=len(atoms)):
        t = _truth(engine, frame, test, dict(zip((id(a[0]) for a in atoms), assignment)), leaves)
        if t is None:
            return None
        truths[assignment] = t
    return Split(atoms, truths)


def _collect(engine, frame, node, env, atoms, leaves) -> bool:
    t = type(node)
    if t is ir.UnaryOp and node.op == "not":
        return _collect(engine, frame, node.operand, env, atoms, leaves)
    if t is ir.BoolOp:
        return all(_collect(engine, frame, v, env, atoms, leaves) for v in node.values)
    where = None
    if t is ir.Name:
        where = ("name", node.id)
    elif t is ir.Attr:
        obj = engine.eval(frame, node.obj, env, record=False)
        if isinstance(obj, (Instance, NNModule)) and isinstance(obj.attrs.get(node.name), DefaultBool):
            where = ("attr", obj, node.name)
    v = engine.eval(frame, node, env, record=False)
    if isinstance(v, DefaultBool) and where is not None:
        atoms.append((node, v, where))
        return True
    leaves[id(node)] = engine.truth(frame, v)
    return True


def _truth(engine, frame, node, assignment, leaves):
    t = type(node)
    if t is ir.UnaryOp and node.op == "not":
        v = _truth(engine, frame, node.operand, assignment, leaves)
        return None if v is None else not v
    if t is ir.BoolOp:
        results = [_truth(engine, frame, v, assignment, leaves) for v in node.values]
        stop = False if node.op == "and" else True
        for r in results:  # short-circuit: a decided operand before an undecided one decides
            if r is stop:
                return stop
            if r is None:
                return None
        return not stop
    if id(node) in assignment:
        return assignment[id(node)]
    return leaves.get(id(node))


def bind(engine, frame, sp: Split, env, values: dict) -> None:
    """Give the flags their values in one way (its own env; attributes on the heap, noted
    as that way's writes so the other way starts from the flags as they were)."""
    for i, value in values.items():
        _set(engine, env, sp.atoms[i][2], value, lasting=False)


def rebind(engine, env, sp: Split, values: dict) -> None:
    """Where the code goes on: each flag is its one value there, else the undecided flag
    again (the join of True and False would lose it). A flag left decided is a lasting
    write to its object (the call that made it is not pure)."""
    for i, (_node, flag, where) in enumerate(sp.atoms):
        _set(engine, env, where, values.get(i, flag), lasting=i in values)


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
        for writes in engine._branch_writes:
            writes.note(obj)
        V.changed(obj)
    obj.attrs[name] = value
