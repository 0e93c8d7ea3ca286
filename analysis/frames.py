"""The interpreter's records: memo entries, frames, diagnostics, and small helpers."""
from __future__ import annotations

import itertools
import sys
from contextlib import contextmanager
from typing import Any, NamedTuple
from . import ir
from . import shapes as S
from .ops.spec import TensorValue
from .shapes import UNKNOWN
from .values import BoundMethod, Container, FunctionVal, Instance, NNModule, PartialVal, Ref, value_key

MAX_DEPTH = 48
MAX_UNROLL = 512
# Work budget of one analysis, in steps: one per statement and per expression evaluated,
# CALL_STEPS per call of a user function (a call costs far more than an expression: binding,
# memo keys, validation of reused entries). 1,000,000 steps is some seconds of interpretation;
# the largest benchmark model (60,000 lines) needs about 600,000.
MAX_STEPS = 1_000_000
CALL_STEPS = 20
POLL_EVERY = 256  # steps between two polls of the cancel hook
MAX_VARIANTS = 128
# What one def no call reached may spend (infer.run_uncalled): what is left of the budget but
# RESERVE_PER_DEF steps for each def after it (what a def's generic run takes, generously),
# and at least 1/UNCALLED_SHARE of the budget. A def that fans out (a test helper rendering a
# tensor item by item through a library) must not leave the file's other defs Unknown.
UNCALLED_SHARE = 4
RESERVE_PER_DEF = 10_000
# Python's recursion limit during an analysis. Fixed, so that the result never depends on
# what the process did before: jedi raises the limit from 1,000 to 3,000 when it is first
# imported (the engine imports it lazily), and a run that ended in a RecursionError at one
# limit went 48 calls deep and spent the whole budget at the other.
RECURSION_LIMIT = 3000


class Budget(Exception):
    """The run exceeded its work budget: the rest is Unknown."""


class Cancelled(BaseException):
    """The host's caller cancelled the analysis (`AnalysisHost.analyze(cancel=...)`).

    A BaseException so that no `except Exception` on the way (a spec's bug guard) swallows
    it: it ends the analysis and propagates out of `analyze`."""


def start_budget(engine, max_steps: int = MAX_STEPS, cancel=None) -> None:
    """Give an engine its step budget and cancel hook. The interpreter's hot paths compare
    `engine.steps` with `engine.step_limit` and call `over_step_limit` only past it, so
    polling costs one comparison per step."""
    if sys.getrecursionlimit() != RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    engine.max_steps = engine.whole_budget = max_steps
    engine.cancel = cancel
    engine.budget_hit = False
    engine.stopped = False
    engine.step_limit = min(max_steps, POLL_EVERY) if cancel is not None else max_steps


def over_step_limit(engine) -> None:
    """Past `step_limit`: poll the cancel hook, then stop the run if its budget is spent."""
    cancel = engine.cancel
    if cancel is not None and cancel():
        raise Cancelled()
    if engine.steps > engine.max_steps:
        if engine.max_steps >= engine.whole_budget and not engine.__dict__.get("budget_logged"):
            engine.budget_logged = True
            engine.log.append(f"budget:steps: the analysis stopped after {engine.max_steps:,} steps; "
                              "what follows is Unknown")
        engine.budget_hit = True  # (a partial run: the next analysis runs again, from scratch)
        raise Budget()
    engine.step_limit = min(engine.max_steps, engine.steps + POLL_EVERY) if cancel is not None else engine.max_steps


def stop_run(engine, why: str) -> None:
    """End the run as if its budget were spent (every later step raises Budget): code nested
    deeper than the Python stack allows (a RecursionError) leaves what ran before it."""
    engine.log.append(f"budget:{why}: the analysis stopped here; what follows is Unknown")
    engine.budget_hit = engine.stopped = True
    engine.max_steps = engine.step_limit = min(engine.max_steps, engine.steps)


@contextmanager
def budget_share(engine, steps: int, label: str):
    """Run a part of the analysis on at most `steps` more steps (and never past the whole
    budget): past them it raises Budget, which the caller catches to go on with the rest."""
    outer = engine.max_steps
    engine.max_steps = min(outer, engine.steps + steps)
    engine.step_limit = min(engine.step_limit, engine.max_steps)
    try:
        yield
    finally:
        if engine.max_steps < outer and engine.steps > engine.max_steps and not engine.stopped:
            engine.log.append(f"budget:share: {label} stopped after its share of the budget ({steps:,} "
                              "steps); what it did not reach is Unknown")
        # (stop_run ended the whole analysis meanwhile: it stays ended)
        engine.max_steps = min(outer, engine.steps) if engine.stopped else outer
        engine.step_limit = min(engine.max_steps, engine.steps + POLL_EVERY) if engine.cancel is not None \
            else engine.max_steps


def depth_exceeded(engine):
    """A call nested deeper than MAX_DEPTH: its result is Unknown (logged once a run)."""
    if not getattr(engine, "depth_hit", False):
        engine.depth_hit = True
        engine.log.append(f"budget:depth: calls nested deeper than {MAX_DEPTH} are Unknown")
    return UNKNOWN


class DiagRecord:
    __slots__ = ("unit", "nid", "severity", "code", "message", "related", "repair", "static", "method")

    def __init__(self, unit, nid, severity, code, message, related=(), repair=None, static=False, method=None):
        self.unit, self.nid = unit, nid
        self.severity, self.code, self.message = severity, code, message
        self.related = related  # tuple of (unit, nid, text)
        self.repair = repair  # (unit, nid, new_text, title) or None
        self.static = static  # wrong whatever the values (ShapeError.static): on any way
        # A method call (`x.transpose(1, 3)`): (the nid of `x.transpose`, the method name's
        # length). Python names the line of the method name when the call fails, and a
        # chain split over lines (`(...)\n.transpose(1, 3)`) is squiggled from there.
        self.method = method

    def key(self):
        # (one static error a line: its message may show each context's input shape)
        return (self.unit, self.nid, self.code, None if self.static else self.message)


class Dep(NamedTuple):
    """A call an entry made, to re-ask when validating it (memo._deps_hold)."""

    fn: Any  # FunctionVal or ClassVal
    args: tuple
    kwargs: tuple  # (name, value) pairs
    args_key: Any  # memo.arguments_key before the call (None: nothing mutable)
    result_key: Any
    pos: tuple  # module_pos items when the call was made
    child: Any  # the entry that answered it
    generic: bool  # a run with parameters from annotations (run_uncalled)


class Entry:
    """One memoized call of a unit (or a run of a module's top level)."""

    _ids = itertools.count()

    def __init__(self, key, unit_key):
        self.id = next(Entry._ids)
        self.key = key
        self.unit_key = unit_key
        self.result = None
        self.facts: dict = {}  # (unit, nid) -> list of values
        self.diags: dict = {}  # DiagRecord.key() -> DiagRecord
        self.deps: list = []  # Dep
        self.global_reads: dict = {}  # (path, name) -> value key
        self.units: dict = {}  # (path, unit key) -> digest of every unit run for this entry
        self.unknown_ops: dict = {}  # unmodelled API name -> calls made by this run
        self.children: list = []  # entries whose results this one used (for liveness)
        self.reach = None  # units and module globals its whole subtree depends on (memo._reach)
        self.stale = False
        self.last_run = 0
        self.bind_pos: dict = {}  # for module entries: name -> first binding statement
        self.may_raise = False  # its run may have raised (see Frame.may_raise)
        self.rank_blind = False  # a call with an argument of unknown rank (memo.call_user)
        self.escaped: set = set()  # unit keys of defs of the file handed to code not run (escape)
        self.replayed: set = set()  # ... of forwards of models whose own unknown methods ran (escape_receiver)
        self.seen_calls: dict = {}  # unit key -> {arguments key: (fn, bound arguments)} of calls it made


class Frame:
    def __init__(self, engine, unit, path, entry, closure=None):
        self.engine = engine
        self.unit = unit
        self.path = path
        self.entry = entry
        self.closure = closure  # list of enclosing env dicts (innermost first)
        self.returns: list = []
        self.loops: list = []  # stack of (break_envs, continue_envs)
        self.assumptions: list = []  # (Cond, (unit, nid))
        self.hard_syms: set = set()
        self.blind = 0  # > 0 inside a branch whose test has an unknown value
        self.quiet = 0  # > 0 while calling one of a few modules (OneOf): no diagnostics here
        self.yields = None  # a generator's run: what it yielded (memo.call_user, generators.py)
        self.unknown_loops = 0  # > 0 inside a loop of unknown trip count (statements._fixpoint)
        self.pure = True
        self.globals_env = None  # the module env, for module-level functions
        self.is_module = unit.kind == "module"
        self.import_guard = 0  # > 0 in a try body whose handlers catch ImportError
        # Could the code run so far have raised? A `raise` reached, a value not known, a
        # shape error, an assert not known to hold, or a callee that may have: a try body
        # that ran with none of these does not take its handlers (statements, ir.Try).
        self.may_raise = False


def _copy_env(env):
    return None if env is None else dict(env)



_MISSING = object()  # a required parameter the call did not give


class _PseudoUnit:
    """The unit of a constructor call (it has no code of its own)."""

    kind = "function"
    params = ()
    body = ()

    def __init__(self, key):
        self.key = key


class _LazyIter:
    def __init__(self, items):
        self.items = items


def _is_module_value(v) -> bool:
    return isinstance(v, (NNModule, Container)) or (isinstance(v, Instance) and v.cls.is_module())


def _unknown_shape(v) -> bool:
    """A value that may be a tensor whose shape the analysis does not know."""
    if v is UNKNOWN:
        return True
    if isinstance(v, TensorValue):
        return v.shape is None or any(d is UNKNOWN for d in v.shape)
    return False


def _add_fact(facts, key, value):
    vals = facts.get(key)
    if vals is None:
        facts[key] = [value]
        return
    if len(vals) >= MAX_VARIANTS:
        facts[("<many>",) + key] = [True]  # more shapes than we keep: the join must say so
        return
    k = value_key(value)
    for v in vals:
        if value_key(v) == k:
            return
    vals.append(value)


def _definitely_broke(out, continues):
    return out is None and not continues


def _env_key(env):
    try:
        return tuple(sorted((k, value_key(v)) for k, v in env.items()))
    except (RecursionError, TypeError):
        return None


def _tensor_syms(t):
    out = set()
    for d in t.shape or ():
        out |= S.free_symbols(d)
    return out


def _hashable(v):
    return isinstance(v, (int, str, float, bool, type(None))) and not isinstance(v, S.Expr)


def _shape_source(node):
    """`x.shape` / `x.size()` -> "x" (the tensor variable whose shape is unpacked)."""
    if isinstance(node, ir.Attr) and node.name == "shape" and isinstance(node.obj, ir.Name):
        return node.obj.id
    if isinstance(node, ir.Call) and not node.args and isinstance(node.func, ir.Attr) \
            and node.func.name == "size" and isinstance(node.func.obj, ir.Name):
        return node.func.obj.id
    return None


def _ref_name(v):
    return v.name if isinstance(v, Ref) else None


def _is_static(fn):
    return "staticmethod" in fn.decorators


def _class_qualname(s, cls_env):
    """`Outer.Inner`, read off a method defined in the body (a function assigned there that
    was defined elsewhere, `load_tf_weights = load_tf_weights_in_gpt2`, names nothing)."""
    for v in cls_env.values():
        if isinstance(v, FunctionVal) and "." in v.unit_key:
            prefix = v.unit_key.rsplit(".", 1)[0]
            if prefix == s.name or prefix.endswith("." + s.name):
                return prefix
    return s.name


def _short(path):
    return path.rsplit("/", 1)[-1]


def _module_name(path):
    return _short(path).rsplit(".", 1)[0]


def reachable(entries, undecided_ways=True):
    """Each entry once, with every entry it called (its children, transitively); without
    the calls made only on undecided ways when `undecided_ways` is False (decided)."""
    seen, todo = set(), list(entries)
    while todo:
        e = todo.pop()
        if e.id in seen:
            continue
        seen.add(e.id)
        yield e
        blind = None if undecided_ways else e.__dict__.get("blind_edges")
        if blind:
            blind = blind - e.__dict__.get("decided_edges", set())
            todo.extend(c for c in e.children if c.id not in blind)
        else:
            todo.extend(e.children)


def note_call_edge(caller_frame, callee) -> None:
    """Record whether `callee` was called on a way of an `if` its caller could not decide
    (caller_frame.blind): such a call may never run, so what fails in it is no diagnostic
    unless some call on a decided way reaches it too (decided)."""
    edges = "blind_edges" if caller_frame.blind else "decided_edges"
    caller_frame.entry.__dict__.setdefault(edges, set()).add(callee.id)


def decided(entries):
    """Each entry once that `entries` reach by calls made on decided ways (note_call_edge)."""
    return reachable(entries, undecided_ways=False)


def _is_own_self(frame, v) -> bool:
    params = getattr(frame.unit, "params", ())
    return bool(params) and getattr(frame, "bound_args", {}).get(params[0].name) is v


def user_call_on_other(engine, obj, site) -> bool:
    """A call made by the user's own code (not a library's: it calls its hooks on its own
    objects), on an object other than the calling method's own `self`."""
    frame = site[0] if site else None
    if frame is None or getattr(frame, "entry", None) is None or engine.program.is_library(frame.path):
        return False
    return not _is_own_self(frame, obj)


def _has_unread_base(cls) -> bool:
    """A base class the analysis has no source of (Unknown, or a library's class it does not
    read; torch's and Python's own are known): where a method it cannot find may live."""
    for c in cls.mro():
        for b in c.bases:
            if b is UNKNOWN:
                return True
            if isinstance(b, Ref):
                root = b.name.split(".", 1)[0]
                if root not in ("torch", "builtins") and root not in sys.stdlib_module_names:
                    return True
    return False


def escape_receiver(engine, obj, args, kwargs, site) -> None:
    """`model.generate(ids, num_beams=2)`, a method of a user model that the analysis does
    not run (a library mixin's decorated method): it runs with the model as `self` and may
    call the model's forward with inputs of other sizes than the calls seen (batch x beams,
    one token at a time). The forward is escaped, and its seen calls are run again with
    every size made a symbol (infer.replay_widened), so the layers it calls show those dims
    as not known either. A library calling its own hooks, or a method on its own `self`, is
    not this (user_call_on_other)."""
    if not user_call_on_other(engine, obj, site) or not _has_unread_base(obj.cls):
        return
    escape(engine, [obj] + list(args), kwargs, site, modules=True)
    forward = obj.cls.lookup("forward")
    if isinstance(forward, FunctionVal):
        site[0].entry.replayed.add(forward.unit_key)


def escape(engine, args, kwargs, site, modules=False) -> None:
    """Defs of the program handed to a call the analysis does not run (`torch.func.vmap(f)`,
    a library's `register_hook(fn)`, a method of an opaque object): that code may call them
    with other arguments than the calls seen, so they also get the generic run of a def
    nobody calls (infer.run_uncalled), and their hovers do not show a seen call's shapes as
    the only ones. Recorded on the calling frame's entry, so a reused call still carries it."""
    frame = site[0] if site else None
    if frame is None or getattr(frame, "entry", None) is None:
        return
    for v in list(args) + list(kwargs.values()):
        while isinstance(v, (PartialVal, BoundMethod)):  # (a partial of a bound method of ...)
            v = v.func
        v = getattr(v, "wrapped", v)
        if isinstance(v, FunctionVal):
            frame.entry.escaped.add(v.unit_key)
        elif modules and isinstance(v, Instance) and not _is_own_self(frame, v):
            # A layer handed to something nothing is known of (`init_hyper_conn(branch=
            # Attention(...))` with init_hyper_conn not known) is called by it in ways not
            # seen: its forward's hovers must not show the calls seen as the only ones. (Not
            # a module handing itself over: to an inspector or registry of its own methods.)
            forward = v.cls.lookup("forward")
            if isinstance(forward, FunctionVal):
                frame.entry.escaped.add(forward.unit_key)
