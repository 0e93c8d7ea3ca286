"""Calls, attributes, operators and subscripts on values the interpreter does not own:
torch functions and tensor methods (through the op spec registry), Python builtins, and
methods of lists, dicts and nn modules.
"""
from __future__ import annotations

import dataclasses
import re
import sys

import math
import itertools
from fractions import Fraction

from . import alternatives, shapes as S
from . import solver
from .ops.packed import PackedSeq
from .ops.spec import (ANY_INT, ILLEGAL_VALUE, REGISTRY, SHAPE_MISMATCH, Dtype, OpContext, ShapeError, SomeNumbers, SomeTensors, TensorValue, Unknowable,
                       run_spec)
from .shapes import UNKNOWN
from .values import (BoundRef, Container, DictVal, FunctionVal, Instance, ListVal, NNModule, Ref,
                     SliceVal, is_tensor)
from . import calltrace, pybuiltins, pysets
from . import layout
from .frames import escape
from .limits import format_too_big, replace_too_big
from .values import SOME_INT, MaybeNone, added_after_loop, alike, is_int_like, too_many
from . import datasources, generic, tails
from .constant_values import fold, item
from .ops.tensor_attrs import LegacyTypeName
from . import enums, library_models
from . import values

_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
           "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int64": "int64",
           "long": "int64", "int32": "int32", "int": "int32", "int16": "int16", "short": "int16",
           "int8": "int8", "uint8": "uint8", "bool": "bool", "complex64": "complex64"}


# =========================================================================================
# Spec-level conversion
# =========================================================================================
def to_spec(v, some_tensors: bool = False, zero=UNKNOWN):
    """The spec-level form of an engine value. A 0 default of a class nobody builds
    (`generic.DefaultZero`) is `zero`: 0 for a layer's constructor (`padding=padding`: the
    default switches nothing on), Unknown for an op (`x.expand(b, n_mem, -1)`: the model
    may be built with another size)."""
    if isinstance(v, (TensorValue, Dtype, LegacyTypeName, tails.TailedShape, tails.Spread)) or v is None or \
            v is UNKNOWN or v is Ellipsis:
        return v  # (a TailedShape or Spread only means something to trials: run_op)
    if isinstance(v, enums.EnumMember):  # a str/int enum member is its value to torch
        return v.value if v.mixin is not None else UNKNOWN
    if isinstance(v, generic.DefaultBool):
        return v.default
    if isinstance(v, generic.DefaultNone):
        return None
    if isinstance(v, generic.DefaultZero):
        return zero
    if v is SOME_INT:
        return UNKNOWN  # a size or bound of unknown value (indexing: _index_spec)
    if v is ANY_INT:
        return v
    if isinstance(v, (bool, int, float, complex, str, S.Expr)):
        return v
    if isinstance(v, ListVal):
        if getattr(v, "unknown", False):
            element = getattr(v, "element", None)
            if isinstance(element, TensorValue) and some_tensors is True:  # tensors a loop appended
                prefix = tuple(to_spec(x, zero=zero) for x in v.items[:getattr(v, "prefix", 0)])
                return SomeTensors(prefix, element, getattr(v, "whole", None) if not prefix else None)
            if some_tensors == "data" and _number_like(element) and all(_number_like(x) for x in v.items):
                return SomeNumbers(integers=is_int_like(element) and all(is_int_like(x) for x in v.items),
                                   length=getattr(v, "length", None))
            if some_tensors == "data" and getattr(v, "length", None) is not None and isinstance(element, ListVal) \
                    and not v.items:
                return _rows_of(v.length, to_spec(element, "data", zero))
            return UNKNOWN  # its items are not all known (a loop appended to it, *rest)
        items = [to_spec(x, zero=zero) for x in v.items]
        return items if v.kind == "list" else tuple(items)
    if isinstance(v, DictVal):
        if getattr(v, "unknown", False):
            return UNKNOWN
        return {k: to_spec(x, zero=zero) for k, x in v.items.items()}
    if isinstance(v, SliceVal):
        return slice(*(_slice_bound(b) for b in (v.start, v.stop, v.step)))  # a 0 default: a bound, not an option
    if isinstance(v, NNModule):  # a layer handed to a container spec (TransformerEncoder)
        return dict(v.attrs, training=v.training, __module__=v.name)  # its class: the summary's row
    if isinstance(v, PackedSeq):
        return v  # (a packed sequence, ops.packed)
    return UNKNOWN


def _rows_of(length, row):
    """`length` rows that each look like `row` (`[[f(pos, i) for i in range(d)] for pos in
    range(n)]`, a positional table): numbers of shape (length, *row's), or Unknown."""
    if isinstance(row, SomeNumbers) and row.length is not None:
        return SomeNumbers(integers=row.integers, length=length, inner=(row.length,) + tuple(row.inner))
    if isinstance(row, (list, tuple)) and row and all(_number_like(x) for x in row):
        return SomeNumbers(integers=all(is_int_like(x) for x in row), length=length, inner=(len(row),))
    return UNKNOWN


def _slice_bound(b):
    """A slice bound as the spec reads it: a 0-dim integer tensor (`y[..., :n]` with `n =
    torch.floor(t).long()`) is its value, or an int not known."""
    if isinstance(b, TensorValue) and b.shape == ():
        v = b.values
        if isinstance(v, (list, tuple)) and len(v) == 1:
            v = v[0]
        return v if type(v) is int else UNKNOWN
    return to_spec(b)


SOME_TENSORS_OPS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})
# ... and the ops making a tensor of data read a list of numbers of unknown length (SomeNumbers).
DATA_OPS = frozenset({"torch.tensor", "torch.as_tensor"})


def _number_like(v) -> bool:
    """An int or a float, its value known or not (`start * ratio ** i`: SOME_FLOAT)."""
    return (is_int_like(v) or isinstance(v, float) or is_some_float(v)) and not isinstance(v, bool)


def from_spec(r):
    if isinstance(r, SomeTensors):  # pieces of unknown count (chunk by a symbol)
        out = alike(from_spec(r.element), "tuple")
        out.items, out.prefix = [from_spec(x) for x in r.prefix], len(r.prefix)
        if r.whole is not None:
            out.whole = r.whole  # (kept by a comprehension over it: expressions.comprehension)
        return out
    if isinstance(r, tuple):
        return ListVal([from_spec(x) for x in r], "tuple")
    if isinstance(r, list):
        return ListVal([from_spec(x) for x in r], "list")
    if isinstance(r, dict):
        return DictVal({k: from_spec(x) for k, x in r.items()})
    return r


def run_op(engine, spec, args, kwargs, site, module=None, forward=False):
    """Run a spec at a call site: errors and warnings become diagnostics there."""
    frame = site[0] if site else (engine.stack[-1] if engine.stack else None)

    def checker(cond):
        if frame is None:
            return "unknown", "", ()
        if engine.probing:
            return "soft", "", ()  # a probing run only records how inputs are used
        if S.mentions_piece(cond):
            return "soft", "", ()  # one symbol for pieces of different sizes: decides nothing
        verdict, cex, core = solver.check(frame.assumptions, cond, engine.timeout_ms)
        if verdict == "unsat" and _rests_on_soft(engine, frame, cond):
            return "soft", "", ()  # fails only under assumptions a joined path may have made
        if verdict == "contingent" and not cond.symbols() <= frame.hard_syms:
            # Symbols the user never declared (from unknown inputs) only give errors, or a
            # warning when the model fails for every input once built with its defaults.
            built = _fails_with_defaults(engine, frame, cond)
            if built:
                return "contingent", f"the model is built with its defaults ({built})", core
            verdict = "soft"
        if verdict == "contingent" and _holds_with_defaults(engine, frame, cond):
            verdict = "soft"  # fails only for hyperparameters the model is not built with by default
        if verdict == "contingent" and _holds_for_callers(engine, frame, cond):
            verdict = "soft"  # the callers' asserts rule the counterexample out
        return verdict, cex, core

    if args and getattr(args[0], "numpy", False) and spec.name.startswith("Tensor.") and site is not None:
        return _array_method(engine, spec, args, kwargs)  # `h[::-1]`, `h * 2` on a NumPy array
    ctx = OpContext(op_name=spec.name, checker=checker)
    args = _none_raises(spec, args, forward)
    if spec.name in DATA_OPS and args and generic.untyped_parameter(engine, args[0]):
        return UNKNOWN  # `torch.as_tensor(mask)` of a parameter nobody passed: data of any shape
    # Only the joining ops read a list of tensors of unknown length (SomeTensors).
    joins = True if spec.name in SOME_TENSORS_OPS else "data" if spec.name in DATA_OPS else False
    zero = 0 if getattr(spec, "constructor", False) else UNKNOWN  # (to_spec)
    s_args = [to_spec(a, joins, zero) for a in args]
    s_kwargs = {k: to_spec(v, zero=zero) for k, v in kwargs.items()}
    _lone_int_size(spec, args, s_args)
    if "keepdims" in s_kwargs and spec.name not in _PYTHON_REDUCTIONS and "keepdim" in spec.signature.parameters \
            and "keepdims" not in spec.signature.parameters:
        s_kwargs["keepdim"] = s_kwargs.pop("keepdims")  # torch's argument parser takes NumPy's name
    if engine.probing and frame is not None:
        same = _record_probe_ranks(frame, spec, s_args, s_kwargs, module if forward else None)
        if same is not None:
            return same
    tailed = tails.tailed_arguments(s_args, s_kwargs) if not engine.probing else []
    if tailed is tails.SEVERAL and generic.is_elementwise(spec.name):
        out = tails.broadcast_tails(s_args, s_kwargs)
        if out is not None:  # `pos[:, :, None] - pos[:, None]`: the last dims they share
            return from_spec(out)
    if tailed is tails.SEVERAL or (not tailed and tails.marked_tensors(s_args, s_kwargs)):
        return UNKNOWN
    if tailed:
        return _run_on_tail(engine, spec, args, kwargs, s_args, s_kwargs, site, module, forward, checker, tailed)
    try:
        if forward:
            spec.forward.check_arguments(s_args, s_kwargs)
            attrs = dict(module.attrs, training=module.training)
            if module.dtype is not None:  # after module.double() / .half() / .to(dtype)
                attrs = {k: TensorValue(v.shape, module.dtype) if isinstance(v, TensorValue) else v
                         for k, v in attrs.items()}
            out = spec.forward.fn(ctx, attrs, *s_args, **s_kwargs)
        else:
            out = run_spec(spec, ctx, s_args, s_kwargs)
        if not forward:
            out = fold(spec.name, out, s_args, s_kwargs)
        out = layout.propagate(spec.name, out, s_args, s_kwargs)
    except ShapeError as e:
        if _has_unknown_value(s_args, s_kwargs, module) and not _fails_for_any_option(
                ctx, spec, s_args, s_kwargs, module, forward, e):
            return UNKNOWN  # a spec comparing an unknown `mode` with strings proves nothing
        _report_error(engine, site, e, args, module, spec)
        return UNKNOWN
    except (Unknowable, TypeError):
        return UNKNOWN
    except Exception:  # noqa: BLE001 - a bug in one spec makes its result Unknown, nothing more
        return UNKNOWN
    if frame is not None and site is not None:
        engine.note_origin(frame, site[1].nid, _describe(spec, args, kwargs, module, out))
    if frame is not None:
        for w in ctx.warnings:
            message = f"{w.message} (requires {w.condition}; fails for example when {w.counterexample})"
            engine.report(site, "warning", w.code, message, _related(engine, site, args, module))
        for cond in ctx.assumed:
            frame.assumptions.append((cond, ((frame.path, frame.unit.key), site[1].nid) if site else None))
        for cond in ctx.soft_assumed:
            engine.soft_conditions.add(cond)
            frame.assumptions.append((cond, ((frame.path, frame.unit.key), site[1].nid) if site else None))
        # Conditions the solver could not refute but did not warn about are assumed too:
        # later uses that contradict them are must-fail errors.
    return from_spec(out)


def as_numpy(v):
    """`v` as NumPy arrays: a tensor, or the tensors of a tuple or list."""
    if isinstance(v, TensorValue):
        return dataclasses.replace(v, numpy=True)
    if isinstance(v, ListVal) and any(isinstance(x, TensorValue) for x in v.items):
        return ListVal([as_numpy(x) for x in v.items], v.kind)
    return v


def _array_method(engine, spec, args, kwargs):
    """A method of a NumPy array (modelled as a tensor): torch's shape rule, never torch's
    errors (numpy's rules differ: `h[::-1]` is legal), run with no site to report at; what
    it gives is an array again."""
    return as_numpy(run_op(engine, spec, args, kwargs, None))


def _lone_int_size(spec, args, s_args) -> None:
    """`torch.zeros(x.size(0))`, `h.view(n)`: one int of unknown value where the op takes
    its sizes as `*size` is a size of one dim. The spec sees Unknown for it, which could be a
    whole tuple of sizes; the engine knows it is an int (SOME_INT), so it is passed as `(?,)`."""
    if not args or args[-1] is not SOME_INT:
        return  # (every op call passes here: the signature is read only for this case)
    params = list(spec.signature.parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), None)
    if at is None or len(args) != at + 1 or args[at] is not SOME_INT:
        return
    # (sizes: `view(*shape)`, `expand(*sizes)`, `repeat(*repeats)`, and a creation op's
    # `*args` beside its `size=` keyword; not `arange(*args)`, whose numbers are bounds)
    if params[at].name in _SIZE_VARARGS or (params[at].name == "args" and "size" in spec.signature.parameters):
        s_args[at] = (UNKNOWN,)


_SIZE_VARARGS = frozenset({"shape", "sizes", "repeats"})


def _none_raises(spec, args, forward) -> list:
    """The arguments with a tensor that may be None (values.MaybeNone) as that tensor where
    None raises: the input of a layer, the tensor whose method it is, an operand of
    arithmetic. (`global_tokens`, None unless a flag is set, is fed to a layer only when it
    is set; the way with None would have raised.)"""
    if forward or spec.name.startswith("Tensor."):
        where = 1
    elif generic.is_elementwise(spec.name) and spec.name.rsplit(".", 1)[-1].strip("_") in generic.ARITHMETIC:
        where = 2
    else:
        return args
    out = list(args)
    for i in range(min(where, len(out))):
        if isinstance(out[i], MaybeNone) and isinstance(out[i].value, TensorValue):
            out[i] = out[i].value
    return out


def _run_on_tail(engine, spec, args, kwargs, s_args, s_kwargs, site, module, forward, checker, tailed):
    """An op on a tensor of unknown rank with known last dims (tails.py): run on trials
    with 1, 2 and 3 leading dims; a `Tensor[..., tail]` when every trial agrees on the rest,
    a must-fail error when the op fails at every rank up to MAX_RANK for a reason that does
    not involve the leading dims (a rank it needs is always among the trials)."""
    frame = site[0] if site else (engine.stack[-1] if engine.stack else None)

    def trial_checker(cond):
        if tails.mentions_lead(cond):
            return "soft", "", ()  # about the made-up leading dims: decides nothing
        return checker(cond)

    def attempt(n):
        lead = tails.lead_symbols(n)
        trials = {id(t): TensorValue(lead + tuple(t.tail), t.dtype) for t in tailed}
        t_args = tails.spread_arguments(s_args, trials)
        t_kwargs = {k: tails.substitute(v, trials) for k, v in s_kwargs.items()}
        if t_args is None or any(isinstance(v, (tails.TailedShape, tails.Spread)) for v in t_kwargs.values()):
            return "no", None, None, None
        ctx = OpContext(op_name=spec.name, checker=trial_checker)
        try:
            if forward:
                spec.forward.check_arguments(t_args, t_kwargs)
                out = spec.forward.fn(ctx, dict(module.attrs, training=module.training), *t_args, **t_kwargs)
            else:
                out = run_spec(spec, ctx, t_args, t_kwargs)
        except ShapeError as e:
            return "error", e, None, None
        except Exception:  # noqa: BLE001 - Unknowable, or a spec that cannot take the trial
            return "no", None, None, None
        return "ok", tails.reading(out, lead), ctx, (out, lead)

    results = [attempt(n) for n in tails.TRIAL_LEADS]
    kinds = {r[0] for r in results}
    if "error" in kinds and kinds <= {"ok", "error"} and frame is not None:
        _note_lead_count(frame, tailed, dict(zip(tails.TRIAL_LEADS, results)), attempt)
    # Lead counts past the trials, up to MAX_RANK: what holds at the trials must hold there too.
    beyond = range(max(tails.TRIAL_LEADS) + 1, generic.MAX_RANK - max(len(t.tail) for t in tailed) + 1)
    if kinds == {"error"}:
        more = [attempt(n) for n in beyond]
        if all(r[0] == "error" for r in more) and not _has_unknown_value(s_args, s_kwargs, module):
            e = results[0][1]
            repair = {} if tails.mentions_lead(tuple(e.repair.values())) else e.repair
            _report_error(engine, site, ShapeError(e.code, tails.message(e.message), repair, e.core, e.static),
                          args, module, spec)
        return UNKNOWN
    readings = [r[1] for r in results]
    if "ok" in kinds and kinds <= {"ok", "error"} and \
            (readings[0] is tails.NO_READING or any(r != readings[0] for r in readings)):
        # The trials disagree on where the leading dims went (`torch.flatten(x, 1)`): a
        # tensor of the same rank at every rank the op takes still has that rank.
        leads = list(tails.TRIAL_LEADS) + list(beyond)
        every = results + [attempt(n) for n in beyond]
        joined = tails.same_rank_join([(n, r[1]) for n, r in zip(leads, every)]) \
            if all(r[0] == "ok" for r in every) else None
        if joined is None:
            spelled = _spelled_lead_count(spec, s_args, tailed)
            if spelled is not None and spelled in leads and every[leads.index(spelled)][0] == "ok":
                _note_spelled_rank(frame, tailed, spelled)
            else:
                _note_position_use(frame, tailed, dict(zip(leads, every)))
            # `pos[:, :, None, :]`: fails below a rank, then puts its new dims among the
            # leading ones; the last dims every rank it takes ends with still end it.
            out = tails.common_tail([r[3] for r in every]) if tails.needs_a_rank([r[0] for r in every]) else None
            if out is None:
                return UNKNOWN
            _assume_common(engine, frame, site, [r[2] for r in every if r[0] == "ok"])
            return from_spec(out)
        readings = [joined]
    elif kinds != {"ok"} or readings[0] is tails.NO_READING or any(r != readings[0] for r in readings):
        return UNKNOWN  # fails at some ranks only, moves the leading dims, or the ranks disagree
    elif tails.mentions_fixed(readings[0]):
        # A shape none of the leading dims reached must hold at every rank the op takes,
        # not only at the trials' (a mask of higher rank broadcasts the result up).
        for n in beyond:
            r = attempt(n)
            if r[0] == "no" or (r[0] == "ok" and r[1] != readings[0]):
                return UNKNOWN
    out = tails.rebuilt(readings[0], tailed[0].lead)
    if frame is not None and site is not None:
        engine.note_origin(frame, site[1].nid, _describe(spec, args, kwargs, module, out))
    _assume_common(engine, frame, site, [results[0][2]])
    return from_spec(out)


def _assume_common(engine, frame, site, contexts) -> None:
    """The conditions every trial of an op on a tensor of unknown rank asked that do not
    involve the made-up leading dims: they hold at any rank (`x * scale` with `x: Tensor[...,
    dim]` and `scale: Tensor[B, 1, 2*dim]` asks `dim == 2*dim or ...`, also when the trials
    disagree on where the leading dims go)."""
    if frame is None or not contexts:
        return
    first = contexts[0]
    soft = [c for c in first.soft_assumed if not tails.mentions_lead(c)]
    for cond in [c for c in first.assumed if not tails.mentions_lead(c)] + soft:
        if any(cond not in ctx.assumed and cond not in ctx.soft_assumed for ctx in contexts[1:]):
            continue
        if cond in soft:
            engine.soft_conditions.add(cond)
        frame.assumptions.append((cond, ((frame.path, frame.unit.key), site[1].nid) if site else None))


def _spelled_lead_count(spec, s_args, tailed):
    """The leading dims an index spells out by writing `:` for every dim of the tensor:
    new axes after all of them (`emb[:, :, None, None]`, a (B, C) embedding made to
    broadcast over H and W), or a no-op `:` written last (`scale[:, None, :]`). None when
    the index does neither."""
    if spec.name != "Tensor.__getitem__" or len(s_args) < 2 or s_args[0] is not tailed[0]:
        return None
    index = s_args[1]
    if not isinstance(index, tuple) or not any(i is None for i in index):
        return None
    full = [isinstance(i, slice) and i == slice(None) for i in index]
    if not all(f or i is None for f, i in zip(full, index)):
        return None  # (an Ellipsis, an int or a bounded slice: the rank is not written out)
    explicit = sum(full)
    first_none = index.index(None)
    appended = all(full[:first_none]) and len(index) - first_none >= 2
    if not (appended or full[-1]):
        return None
    lead = explicit - len(tailed[0].tail)
    return lead if lead >= 1 else None


def _note_spelled_rank(frame, tailed, count: int) -> None:
    """An index that spells the tensor's rank out (_spelled_lead_count): a use of the input
    the leading dims come from that needs exactly `count` of them (generic.lead_count)."""
    lead = tailed[0].lead if frame is not None else None
    if lead is None or any(f.blind for f in frame.engine.stack):
        return
    generic.record_lead_count(frame, lead, count)


def _note_position_use(frame, tailed, results: dict) -> None:
    """An op on `Tensor[..., tail]` whose result depends on how many leading dims there are
    (it reads dims by position): noted, with the counts it runs with, as a use of the input
    they come from (generic.lead_count)."""
    lead = tailed[0].lead if frame is not None else None
    if lead is None or any(f.blind for f in frame.engine.stack):
        return
    generic.record_position_use(frame, lead, [n for n, r in results.items() if r[0] == "ok"])


def _note_lead_count(frame, tailed, results: dict, attempt) -> None:
    """An op on `Tensor[..., tail]` that runs with exactly one number of leading dims and
    fails at every other (`einsum('ibhd,jbhd->ijbh', q, k)` with k `Tensor[..., h, d]`):
    the input those leading dims come from has that rank, or this line fails whatever it
    is. Noted as a use of that input for infer.probe_inputs, which binds it at that rank
    (the gradual seed's rank inference, carried through the ops that kept its last dims)."""
    lead = tailed[0].lead
    if lead is None or any(f.blind for f in frame.engine.stack):
        return  # (inside an `if` not decided, the op may not run at all)
    longest = max(len(t.tail) for t in tailed)
    for n in range(0, generic.MAX_RANK - longest + 1):
        if n not in results:
            results[n] = attempt(n)
    ok = [n for n, r in results.items() if r[0] == "ok"]
    if len(ok) == 1 and all(r[0] == "error" for n, r in results.items() if n != ok[0]):
        generic.record_lead_count(frame, lead, ok[0])


def _stack_defaults(engine) -> tuple:
    """({hyperparameter symbol: its default} of the generic instances running the current
    frames, {symbol: index of the first frame giving it}); ({}, {}) when two of them give
    one name different defaults: no verdict from those."""
    defaults: dict = {}
    given_by: dict = {}
    for i, f in enumerate(engine.stack):
        inst = (getattr(f, "bound_args", None) or {}).get("self")
        origin = getattr(inst, "origin", None)
        if origin is not None:
            for n, v in origin.__dict__.get("generic_notes", {}).get("defaults", {}).items():
                if not isinstance(v, int) or defaults.get(n, v) != v:
                    return {}, {}
                defaults[n] = v
                given_by.setdefault(n, i)
    return defaults, given_by


def _read_callers(engine, lowest: int) -> None:
    """A verdict read the frames from `lowest` up (their assumptions, their instances'
    defaults): the calls above that frame depend on more than their arguments, so they are
    not memoized but re-run with their caller. A call re-asked by a validation runs without
    its real callers, so it also makes the validated entry re-run in its own context
    (memo._merge_into_caller): incremental = fresh."""
    start = lowest + 1
    if engine._validating:
        start = min(start, engine._validating[-1][0])
    for f in engine.stack[start:]:
        f.pure = False


def _verdict_with_defaults(engine, frame, cond):
    """The solver's verdict on `cond` once the hyperparameter symbols of the instances
    running it take their defaults (the inputs stay free), and the defaults it used; None
    when no default is involved or the defaults contradict what the code assumed."""
    defaults, given_by = _stack_defaults(engine)
    if engine._validating:
        _read_callers(engine, len(engine.stack))  # its real callers may give defaults
    if not defaults:
        return None, {}
    slice_ = solver.relevant_slice(frame.assumptions, cond)
    used = (cond.symbols() | {n for c, _ in slice_ for n in c.symbols()}) & defaults.keys()
    if not used:
        return None, {}
    _read_callers(engine, min(given_by[n] for n in used))
    mapping = {n: defaults[n] for n in used}
    assumed = [(S.substitute_cond(c, mapping), o) for c, o in slice_]
    if any(c is False for c, _ in assumed):
        return None, {}
    target = S.substitute_cond(cond, mapping)
    if target is True or target is False:
        return ("valid" if target else "unsat"), mapping
    if not isinstance(target, S.Cond):
        return None, {}
    verdict, _, _ = solver.check([(c, o) for c, o in assumed if isinstance(c, S.Cond)], target,
                                 engine.timeout_ms)
    return verdict, mapping


def _holds_with_defaults(engine, frame, cond) -> bool:
    """In a context with no example call, does `cond` hold for every input once the
    hyperparameter symbols of the instances running it take their defaults? A warning whose
    counterexample needs a model built otherwise (`H = 1` under `assert H % (patch * window)
    == 0`, with patch 4 and window 7 by default) is noise; the inputs stay free."""
    return _verdict_with_defaults(engine, frame, cond)[0] == "valid"


def _fails_with_defaults(engine, frame, cond) -> str:
    """In a context with no example call: the defaults (`heads=8, dim_head=64`) with which
    `cond` fails for every input, or "". A model that cannot run as built by default has a
    bug for its default users even when other hyperparameters would make it run."""
    verdict, mapping = _verdict_with_defaults(engine, frame, cond)
    if verdict != "unsat":
        return ""
    return ", ".join(f"{n}={v}" for n, v in sorted(mapping.items()))


def _holds_for_callers(engine, frame, cond) -> bool:
    """Does `cond` hold once the assumptions of the frames that called this one are added
    (`assert seqlen % (bucket_size * 2) == 0` in forward, the failing op in a helper it
    calls)? A callee's entry is memoized by its arguments alone, so a call that relied on
    its callers' assumptions is made impure: it re-runs with them (incremental = fresh)."""
    if engine._validating:
        _read_callers(engine, len(engine.stack))  # its real callers may hold assumptions
    callers = [f for f in engine.stack if f is not frame and f.assumptions]
    if not callers:
        return False
    inherited = [a for f in callers for a in f.assumptions]
    verdict, _, _ = solver.check(inherited + list(frame.assumptions), cond, engine.timeout_ms)
    if verdict != "valid":
        return False
    for f in engine.stack[1:]:
        f.pure = False
    return True


def _rests_on_soft(engine, frame, cond) -> bool:
    """Is an unsat verdict due to soft assumptions (requirements on made-up symbols)? They
    make later lines exact, but an error needs the condition to fail without them."""
    soft = engine.soft_conditions
    if not soft:
        return False
    # A made-up dim a layer's size pins (`C == 3` after `Conv2d(3, ...)`, `C == dim` after
    # `Linear(dim, ...)`) is no joined path's artefact: an op that needs another value of it
    # fails for every input (one input fed to Conv2d(3, ...) and Conv2d(4, ...)).
    hard = [a for a in frame.assumptions if a[0] not in soft or _is_pin(a[0])]
    if len(hard) == len(frame.assumptions):
        return False
    verdict, _, _ = solver.check(hard, cond, engine.timeout_ms)
    return verdict != "unsat"


def _is_pin(cond) -> bool:
    """`C == 3`, `C == in_features`: one symbol alone on a side, equal to what has no
    part of it."""
    if not (isinstance(cond, S.Cond) and cond.op == "eq"):
        return False
    for one, other in (cond.args, cond.args[::-1]):
        name = _single_symbol(one)
        if name is not None and (not isinstance(other, S.Expr) or name not in other.symbols()):
            return True
    return False


def _single_symbol(e):
    """The name of an expression that is one symbol alone, else None."""
    names = e.symbols() if isinstance(e, S.Expr) else ()
    name = next(iter(names), None) if len(names) == 1 else None
    return name if name is not None and e == S.sym(name) else None


_OPTION_TEXT = re.compile(r"_option\d+")
# Reductions written in Python: their `keepdim` has no `keepdims` alias (native ones do).
_PYTHON_REDUCTIONS = frozenset({"torch.norm", "Tensor.norm"})


def _fails_for_any_option(ctx, spec, s_args, s_kwargs, module, forward, error) -> bool:
    """A shape mismatch in an op with an Unknown option (`Linear(dim + 1, kv_dim)` where
    kv_dim is one of two values): does it fail whatever the options are? Run again with a
    fresh symbol for each Unknown option; the same mismatch again means the unknown ones
    played no part (an unknown `mode` compared with strings would fail another way, or not)."""
    if error.code not in (SHAPE_MISMATCH, ILLEGAL_VALUE):
        return False
    fresh = (S.sym(f"_option{i}") for i in itertools.count())

    def filled(v, depth=0):
        if v is UNKNOWN:
            return next(fresh)
        if depth < 3 and isinstance(v, (list, tuple)):
            return type(v)(filled(x, depth + 1) for x in v)
        if depth < 3 and isinstance(v, dict):
            return {k: filled(x, depth + 1) for k, x in v.items()}
        return v
    args = [s_args[0]] + [filled(a) for a in s_args[1:]] if s_args else []
    kwargs = {k: filled(v) for k, v in s_kwargs.items()}
    retry = OpContext(op_name=spec.name, checker=ctx.checker)
    try:
        if forward:
            attrs = {k: filled(v) for k, v in dict(module.attrs, training=module.training).items()}
            spec.forward.fn(retry, attrs, *args, **kwargs)
        else:
            run_spec(spec, retry, args, kwargs)
    except ShapeError as again:
        # (an illegal value only when the very same: an einops pattern naming an axis one
        # side lacks fails whatever the axis lengths are)
        return again.code == SHAPE_MISMATCH if error.code == SHAPE_MISMATCH else \
            _OPTION_TEXT.sub("?", again.message) == error.message
    except Exception:  # noqa: BLE001 - Unknowable, or a spec that cannot take a symbol there
        return False
    return False


def _has_unknown_value(s_args, s_kwargs, module) -> bool:
    """Is an option (a module hyperparameter, a keyword, a positional argument after the
    input) Unknown, at the top or inside a list, tuple or dict? The input itself is not:
    specs reason about tensors of unknown shape, and a tensor of unknown dims is fine."""
    def unknown(v, depth=0):
        if v is UNKNOWN:
            return True
        if depth < 3 and isinstance(v, (list, tuple)):
            return any(unknown(x, depth + 1) for x in v)
        if depth < 3 and isinstance(v, dict):
            return any(unknown(x, depth + 1) for x in v.values())
        return False
    values = list(s_args[1:]) + list(s_kwargs.values())
    if module is not None:
        values += list(module.attrs.values())
    return any(unknown(v) for v in values)


def _tensor_index(spec, s_args, v) -> bool:
    """`x[:, -1:, ...]`, `x[..., 0]`, `x[:, None]`: an index a list or a number does not take,
    so the probe is surely a tensor (`x[0]` would do on a list: weak evidence only)."""
    if spec.name != "Tensor.__getitem__" or len(s_args) < 2 or s_args[0] is not v:
        return False
    index = s_args[1]
    return isinstance(index, tuple) and len(index) >= 2 and \
        any(isinstance(i, slice) or i is Ellipsis or i is None for i in index)


def _record_probe_ranks(frame, spec, s_args, s_kwargs, module):
    """First run of a generic context: which ranks each probed input admits here. Returns
    the probe when the op keeps its shape (its output is then the same probe), a derived
    probe when it keeps its rank (Linear, chunk), else None."""
    same = None
    ctor_tensors = _constructor_tensor_arguments(spec, s_args, s_kwargs) if getattr(spec, "constructor", False) else None
    counts = [x for x in list(s_args) + list(s_kwargs.values())
              if generic.is_probe(x) and _in_int_parameter(spec, s_args, s_kwargs, x)]
    if counts:
        # Another input passed as a count (`x.chunk(n + 1)`) is an int not known when the
        # ranks of the tensor are tried.
        s_args = [UNKNOWN if any(x is c for c in counts) else x for x in s_args]
        s_kwargs = {k: UNKNOWN if any(x is c for c in counts) else x for k, x in s_kwargs.items()}
    for v in _probes_among(s_args, s_kwargs):
        if ctor_tensors is not None and all(v is not t for t in ctor_tensors):
            continue  # a layer's size (`nn.Linear(dim, dim)`): an int, no sign of a tensor
        attrs = dict(module.attrs, training=module.training) if module is not None else None
        ranks, pins, preserving, kept, ignored = generic.admitted_ranks(
            spec, s_args, s_kwargs, v, attrs, join_probes=frame.engine.joining_probes > 0)
        if ignored == generic.RAISED and spec.name.startswith("Tensor.") and s_args and s_args[0] is v:
            pass  # `x.view(b, n, -1)`: the tensor whose method it is, whatever the sizes are
        elif ignored:
            # passed along (`device=device`), or where a tensor cannot go (`torch.zeros(b, n)`,
            # the sizes of `x.view(b, n, -1)`): not used as a tensor
            continue
        if _with_numbers_only(spec, s_args, s_kwargs, v):
            # `dim < 0`, `x * 0.5`: a number would do the same, so this is no sign that the
            # value is a tensor; a tensor's later uses still tell its rank.
            if same is None and preserving:
                same = v
            continue
        # An elementwise op with another tensor (`x / keep_prob`, `pos + x`) tells the rank
        # when the value is a tensor, but a number would do the same: weak evidence.
        weak = generic.is_elementwise(spec.name) and not _tensor_index(spec, s_args, v) \
            and not _with_own_kin_only(s_args, s_kwargs, v)
        generic.record(frame, v, "weak-ranks" if weak else "ranks", (ranks, pins))
        shaped = generic.broadcast_partner_rank(spec.name, s_args, s_kwargs, v)
        if shaped is not None:
            generic.record(frame, v, "partner-rank", shaped)
        if weak and not v.weak:
            v = dataclasses.replace(v, weak=True)  # what follows is the probe only if it is a tensor
        if generic._has_unbatched_form(spec.name):
            generic.record(frame, v, "spatial", True)
        if spec.name in generic.INDEX_INPUT_OPS and s_args and s_args[0] is v:
            generic.record(frame, v, "integer", True)  # token ids: the input is an index tensor
        if spec.name in generic.FEATURE_INPUT_OPS:
            generic.record(frame, v, "features", True)
        if same is None:
            same = v if preserving else generic.derived_from(v, kept)
    return same


def _with_own_kin_only(s_args, s_kwargs, v) -> bool:
    """Is every tensor the op combines `v` with computed from the same input at its rank
    (`x - x.mean(dim=1, keepdim=True)`)? Then `v` is no number that an elementwise op would
    take alike: the op computed the other from it as a tensor."""
    others = [x for x in list(s_args) + list(s_kwargs.values()) if x is not v and generic.is_probe(x)]
    return bool(others) and all(x.probe == v.probe and x.offset == v.offset and not x.weak for x in others) and \
        not any(isinstance(x, TensorValue) and not generic.is_probe(x) for x in list(s_args) + list(s_kwargs.values()))


def _probes_among(s_args, s_kwargs) -> list:
    """The probes an op is given, at the top or in a tuple or list (`torch.cat((x, y))`); of
    several from one input with one rank offset, the first (they take one trial together:
    generic.same_rank_probe)."""
    out: list = []
    for v in list(s_args) + list(s_kwargs.values()):
        for x in (v if type(v) in (tuple, list) else (v,)):
            if generic.is_probe(x) and not any(generic.same_rank_probe(x, o) for o in out):
                out.append(x)
    return out


# Op parameters that take ints (counts, dims, sizes): a value passed there is no tensor.
_INT_PARAMETERS = frozenset({"chunks", "sections", "split_size_or_sections", "dim", "dims", "start_dim",
                             "end_dim", "dim0", "dim1", "diagonal", "shifts", "repeats", "groups",
                             "upscale_factor", "downscale_factor", "num_classes"})


def _in_int_parameter(spec, s_args, s_kwargs, v) -> bool:
    """Is `v` passed to a parameter of the op that takes an int (`chunks`, `dim`)?"""
    if any(k in _INT_PARAMETERS and x is v for k, x in s_kwargs.items()):
        return True
    params = list(spec.signature.parameters.values())
    for i, x in enumerate(s_args):
        if x is not v:
            continue
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY, params[i].POSITIONAL_OR_KEYWORD):
            if params[i].name in _INT_PARAMETERS:
                return True
    return False


# Constructor parameters that take a tensor (`nn.CrossEntropyLoss(weight=w)`); every other
# one is a size, a flag or an option.
_TENSOR_CTOR_PARAMETERS = frozenset({"weight", "pos_weight", "_weight", "_freeze"})


def _constructor_tensor_arguments(spec, s_args, s_kwargs) -> list:
    """The arguments of a layer's constructor that bind to a tensor parameter."""
    names = list(spec.signature.parameters)
    bound = list(zip(names, s_args)) + list(s_kwargs.items())
    return [v for name, v in bound if name in _TENSOR_CTOR_PARAMETERS]


def _with_numbers_only(spec, s_args, s_kwargs, probe) -> bool:
    """An operator (`<`, `+`, `*` ...) between the probe and plain numbers only."""
    if not generic.is_elementwise(spec.name) or s_kwargs:
        return False
    others = [a for a in s_args if a is not probe]
    return bool(others) and all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in others)


def _show(v) -> str:
    """A value in a hover line. (Module level: a recursive closure made per call is a
    reference cycle, garbage only the cyclic collector frees.)"""
    if isinstance(v, TensorValue):
        return v.text()
    if isinstance(v, (int, float, str, bool, S.Expr)) or v is None:
        return repr(v) if isinstance(v, str) else str(v)
    if isinstance(v, ListVal) and len(v.items) <= 6:
        return "(" + ", ".join(_show(x) for x in v.items) + ")"
    return "…"


def _describe(spec, args, kwargs, module, out) -> str:
    """One line for hover: the op, its inputs' shapes and its hyperparameters."""
    show = _show
    name = spec.name.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    if module is not None:
        hyper = [f"{k}={show(from_spec(v))}" for k, v in module.attrs.items()
                 if isinstance(v, (int, tuple, str)) and not isinstance(v, bool) and k != "training"][:6]
        return f"{name}({', '.join(hyper)}) applied to {', '.join(parts)}"
    return f"{name}({', '.join(parts)})"


def _report_error(engine, site, e: ShapeError, args, module, spec=None):
    related = list(_related(engine, site, args, module))
    for origin in e.core:
        if origin:
            related.append((origin[0], origin[1], "the shape was constrained here"))
    repair = None
    if e.repair.get("view") == "reshape" and site is not None:
        func = getattr(site[1], "func", None)
        if func is not None and getattr(func, "name", None) == "view":
            frame = site[0]
            repair = ((frame.path, frame.unit.key), func.nid, "reshape", "Use reshape instead of view", 4)
    elif e.repair:
        # The argument that sets the parameter: in the module's constructor call, or in this
        # call itself (by keyword, or by position in the spec's signature).
        sites = module.arg_sites if module is not None else _call_arg_sites(site, spec, args)
        for param, value in e.repair.items():
            where = sites.get(param)
            if where is not None and type(value) is int:
                repair = (where[0], where[1], str(value), f"Set {param} to {value}", None)
                break
    engine.report(site, "error", e.code, e.message, tuple(related), repair, static=e.static)


def _call_arg_sites(site, spec, args) -> dict:
    if site is None or spec is None or not hasattr(site[1], "args"):
        return {}
    frame, node = site
    names = list(spec.signature.parameters)
    offset = 1 if len(args) == len(node.args) + 1 else 0  # a method call: self is the receiver
    out = {}
    for i, a in enumerate(node.args):
        if a.star:
            break
        name = a.name or (names[i + offset] if i + offset < len(names) else None)
        if name:
            out[name] = ((frame.path, frame.unit.key), a.value.nid)
    return out


def _related(engine, site, args, module):
    out = []
    if site is None:
        return ()
    frame, node = site
    exprs = [a.value for a in getattr(node, "args", ())]
    func = getattr(node, "func", None)
    if len(args) == len(exprs) + 1 and func is not None and hasattr(func, "obj"):
        exprs = [func.obj] + exprs  # a method call: the receiver is the first operand
    elif hasattr(node, "left") and len(args) == 2:
        exprs = [node.left, node.right]
    tensors = [(e, v) for e, v in zip(exprs, args) if is_tensor(v) and v.shape is not None]
    for e, v in tensors[:3]:
        out.append(((frame.path, frame.unit.key), e.nid, f"{{text}}: {v.text()}"))
    if module is not None and module.site is not None:
        out.append((module.site[0], module.site[1], f"{module.name.rsplit('.', 1)[-1]} defined here"))
    return tuple(out)


# =========================================================================================
# Calls
# =========================================================================================
_CHECKPOINT_OPTIONS = frozenset({"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check",
                                 "debug"})


def call_external(engine, func, args, kwargs, site):
    if isinstance(func, BoundRef):
        return _call_bound(engine, func, args, kwargs, site)
    name = func.name
    if name.startswith(("numpy.", "np.")) and name.split(".", 1)[1] in _NUMPY_LIKE_TORCH:
        # same shape rule; values are not tracked
        return as_numpy(call_external(engine, Ref("torch." + name.split(".", 1)[1]), args, kwargs, site))
    elif name.startswith("numpy.") and name[6:] in _NUMPY_ELEMENTWISE and any(is_tensor(a) for a in args):
        # An array (modelled as a tensor) in: torch's shape rule, but never torch's errors
        # (numpy's rules differ; numpy's failures are not modelled).
        return as_numpy(run_op(engine, REGISTRY[_NUMPY_ELEMENTWISE[name[6:]]], args, kwargs, None))
    spec = REGISTRY.get(name)
    if spec is not None:
        if spec.kind == "module":
            from .nnmodules import construct_module
            return construct_module(engine, spec, args, kwargs, site)
        if spec.kind == "function":
            return run_op(engine, spec, args, kwargs, site)
    if name == "functools.partial" and args:
        from .values import PartialVal
        return PartialVal(args[0], args[1:], kwargs)
    if pybuiltins.is_torch_helper(name):
        return pybuiltins.call_torch_helper(engine, name, args, kwargs, site)
    if name.startswith(("builtins.", "math.", "collections.", "numpy.", "copy.", "functools.", "operator.", "inspect.", "re.",
                        "itertools.", "types.SimpleNamespace", "argparse.Namespace",
                        "scipy.", "torch.utils._pytree.", "torch.utils.pytree.")):
        if name == "builtins.super":
            return _super(engine, site)
        if name == "builtins.__dataclass_init__" and len(args) >= 2:
            engine._dataclass_init(args[0], args[1], args[2:], kwargs)
            return None
        return pybuiltins.call_builtin(engine, name, args, kwargs, site)
    from .nnmodules import CONTAINERS, make_container
    if name in CONTAINERS:
        return make_container(engine, name, args, kwargs)
    if name in ("torch.nn.Module", "torch.nn.modules.module.Module") and not args and not kwargs:
        # `self.mid = nn.Module()`, then `self.mid.block_1 = ResnetBlock(...)`: a bare module
        # as a namespace of parts (a VQGAN's encoder levels)
        return engine.new_obj(Instance(values.BARE_MODULE))
    if name == "torch.jit.annotate":
        return args[1] if len(args) == 2 and not kwargs else UNKNOWN  # (the type, the value): the value
    if name in _PASSTHROUGH:
        if name in calltrace.PARAMETRIZATIONS:
            calltrace.parametrized(engine, name, args, kwargs)  # for the summary's rows and counts
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter") and args and \
                ("requires_grad" in kwargs or len(args) > 1):
            # `nn.Parameter(freqs, requires_grad=learned_freq)`: trainable or not (the summary)
            calltrace.requires_grad(engine, args[0], kwargs.get("requires_grad", args[1] if len(args) > 1 else True))
        return args[0] if args else UNKNOWN
    if name.startswith("torch.nn.init.") and name != "torch.nn.init.calculate_gain":
        return args[0] if args else UNKNOWN  # in-place initializers return their tensor
    if name == "typing.cast":
        return args[1] if len(args) == 2 else UNKNOWN
    if name in ("torch.nn.utils.skip_init", "torch.nn.utils.init.skip_init") and args:
        # The module built on the meta device and moved back uninitialized: the module itself
        return engine.call_value(args[0], list(args[1:]), {k: v for k, v in kwargs.items() if k != "device"}, site)
    if name == "torch.utils.checkpoint.checkpoint" and args:
        # Activation checkpointing runs the function on the arguments (and again in backward).
        own = {k: v for k, v in kwargs.items() if k not in _CHECKPOINT_OPTIONS}
        return engine.call_value(args[0], list(args[1:]), own, site)
    if name in ("torch.func.jvp", "torch.autograd.functional.jvp") and len(args) >= 2 and not kwargs.get("has_aux"):
        # Forward-mode AD runs the function on the primals; the tangent out is like the output.
        primals = engine.iterate(None, args[1]) if isinstance(args[1], ListVal) else [args[1]]
        if primals is not None:
            out = engine.call_value(args[0], list(primals), {}, site)
            return ListVal([out, out], "tuple")
    model = library_models.lookup(func)
    if model is not None:
        return model(engine, args, kwargs, site)
    if name in enums.FUNCTIONAL and args:
        frame = site[0] if site else None
        cls = enums.functional(name, args, kwargs, getattr(frame, "path", ""),
                               getattr(getattr(frame, "unit", None), "digest", ""))
        if cls is not None:
            return cls
    if name in _CONSTANT_CALLS:
        return _CONSTANT_CALLS[name]
    if name == "torch.is_tensor" and len(args) == 1:
        # (`Y = 0`, then `if torch.is_tensor(Y): Y = repeat(Y, ...)` in a loop)
        v = args[0]
        if is_tensor(v):
            return True
        return False if v is None or isinstance(v, (bool, int, float, str, S.Expr, ListVal, DictVal)) else UNKNOWN
    if name == "torch.Size":
        items = engine.iterate(None, args[0]) if args else []
        return ListVal(items, "size") if items is not None else UNKNOWN
    if name in ("dataclasses.field",):
        return kwargs.get("default", UNKNOWN)
    data = datasources.call(engine, name, args, kwargs)
    if data is not None:
        return data
    if name in _LEGACY_CONSTRUCTORS:
        return _legacy_constructor(engine, name, args, kwargs, site)

    if name.startswith("torch") and name not in _SILENT:
        engine.note_unknown_op(name)
    # A def handed to it may be called in ways not seen; a layer too when the callee is of a
    # library not read (a wrapper that runs its branch), not torch's or Python's own
    # utilities (`nn.utils.remove_weight_norm(m)`, `format(block)` in an f-string).
    root = name.split(".", 1)[0]
    escape(engine, args, kwargs, site, modules=root not in pybuiltins.EXTERNAL_ROOTS and root not in sys.stdlib_module_names)
    return UNKNOWN


# torch.FloatTensor(data) is torch.tensor(data, dtype=float32); torch.FloatTensor(2, 3) is
# torch.empty(2, 3, dtype=float32). torch.Tensor(...) works the same with the default dtype.
_LEGACY_CONSTRUCTORS = {"torch.FloatTensor": "float32", "torch.DoubleTensor": "float64",
                        "torch.HalfTensor": "float16", "torch.LongTensor": "int64",
                        "torch.IntTensor": "int32", "torch.ShortTensor": "int16",
                        "torch.ByteTensor": "uint8", "torch.BoolTensor": "bool", "torch.Tensor": "float32"}


def _legacy_constructor(engine, name, args, kwargs, site):
    dtype = Dtype(_LEGACY_CONSTRUCTORS[name])
    if set(kwargs) - {"device"}:
        return UNKNOWN  # (`device=` is the one keyword these take, and it changes no shape)
    if len(args) == 1 and isinstance(args[0], (ListVal, TensorValue)):
        spec = REGISTRY.get("torch.tensor")
        return run_op(engine, spec, [args[0]], {"dtype": dtype}, site) if spec else UNKNOWN
    if args and all(_is_int(a) and not isinstance(a, bool) for a in args):
        spec = REGISTRY.get("torch.empty")
        return run_op(engine, spec, list(args), {"dtype": dtype}, site) if spec else UNKNOWN
    return UNKNOWN


_NUMPY_LIKE_TORCH = {"linspace", "arange", "zeros", "ones", "logspace"}
_NUMPY_ELEMENTWISE = {**{n: "torch." + n for n in ("cos", "sin", "tan", "exp", "log", "log2", "log10", "sqrt",
                                                    "tanh", "abs", "floor", "ceil")},
                      "power": "torch.pow"}

_PASSTHROUGH = {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.jit.script",
                "torch.compile", "torch.autograd.Variable", "torch.nn.utils.weight_norm",
                "torch.nn.utils.spectral_norm", "torch.nn.utils.parametrizations.weight_norm",
                "torch.nn.utils.parametrizations.spectral_norm",
                "dataclasses.dataclass", "functools.wraps", "torch.no_grad",
                "torch.jit.ignore", "torch.jit.unused",
                # (compilation hints: eagerly, the function itself)
                "torch._dynamo.disable", "torch.compiler.disable", "torch._dynamo.allow_in_graph",
                "torch.compiler.allow_in_graph", "torch.jit.script_if_tracing"}
# Calls whose answer is known: model code runs eagerly, not under TorchScript or tracing.
_CONSTANT_CALLS = {"torch.jit.is_scripting": False, "torch.jit.is_tracing": False,
                   "torch._C._get_tracing_state": None, "torch._assert": None,
                   "torch.compiler.is_compiling": False, "torch._dynamo.is_compiling": False,
                   "torch.is_grad_enabled": True, "torch.get_default_dtype": Dtype("float32"),
                   "torch.is_autocast_enabled": False, "torch.is_autocast_cpu_enabled": False,
                   # one process, as the file runs on its own: no process group is set up
                   # (`if dist.is_initialized() and dist.get_world_size() > 1: all_gather(...)`)
                   "torch.distributed.is_initialized": False}
_SILENT = {"torch.manual_seed", "torch.set_grad_enabled", "torch.device", "torch.inference_mode",
           "torch.enable_grad", "torch.is_tensor", "torch.cuda.is_available", "torch.save",
           "torch.load", "torch.set_printoptions", "torch.use_deterministic_algorithms",
           "torch.get_default_dtype", "torch.set_default_dtype", "torch.Generator"}


class SuperVal:
    def __init__(self, inst, cls_qualname):
        self.inst = inst
        self.cls_qualname = cls_qualname


def _super(engine, site):
    frame = site[0] if site else None
    if frame is None:
        return UNKNOWN
    key = frame.unit.key
    cls_name = key.rsplit(".", 1)[0] if "." in key else None
    env_self = None
    # `self` is the first parameter of the current method.
    params = getattr(frame.unit, "params", ())
    if params:
        env_self = _frame_first_arg(engine, frame, params[0].name)
    if env_self is None or cls_name is None:
        return UNKNOWN
    return SuperVal(env_self, cls_name)


def _frame_first_arg(engine, frame, name):
    return getattr(frame, "bound_args", {}).get(name)


def super_attr(engine, sup: SuperVal, name):
    inst = sup.inst
    if not isinstance(inst, Instance):
        return UNKNOWN
    mro = inst.cls.mro()
    after = False
    for c in mro:
        if after:
            v = c.attrs.get(name)
            if isinstance(v, FunctionVal):
                from .values import BoundMethod
                return BoundMethod(v, inst)
            if v is not None:
                return v
        if c.qualname == sup.cls_qualname:
            after = True
        elif after and name == "__init__" and "dataclass" in getattr(c, "decorators", ()):
            # A @dataclass parent's generated __init__ fills its fields.
            from .values import PartialVal
            return PartialVal(Ref("builtins.__dataclass_init__"), [inst, c], {})
    if name == "__init__":
        return BoundRef("__super_init__", inst)
    if name == "forward":
        return BoundRef("__super_forward__", inst)
    if name in ("__getattribute__", "__setattr__"):  # object's: the plain lookup and store
        return BoundRef(f"__plain{name}", inst)
    data = values.user_container_data(inst)
    if data is not None:  # `super().__getitem__(key)` in a dict subclass: the dict's own
        return BoundRef(name, data)
    return UNKNOWN


def _call_bound(engine, func: BoundRef, args, kwargs, site):
    obj = func.self_value
    name = func.name
    if is_tensor(obj):
        if name == "tolist" and not args:
            if obj.values is not None and obj.shape is not None and len(obj.shape) == 1:
                return ListVal(list(obj.values), "list")
            return _tolist(obj.shape)
        if name == "item" and not args:
            return item(obj)
        if name == "requires_grad_":  # which parameters train: the summary's
            calltrace.requires_grad(engine, obj, calltrace.requires_grad_arg(args, kwargs))
        if name == "size" and not args and not kwargs and tails.has_tail(obj):
            return tails.TailedShape(obj)
        spec = REGISTRY.get("Tensor." + name)
        if spec is not None and spec.kind == "function" and getattr(obj, "numpy", False):
            return _array_method(engine, spec, [obj] + list(args), kwargs)  # `h.ravel()`: spec torch.ravel
        if spec is not None and spec.kind == "function":
            out = run_op(engine, spec, [obj] + list(args), kwargs, site)
            if name == "size":  # x.size(d) is an int, or raises
                return SOME_INT if out is UNKNOWN and (args or kwargs) else _some_ints(out)
            return out
        engine.note_unknown_op("Tensor." + name)
        return UNKNOWN
    if isinstance(obj, pybuiltins.NamedTupleVal):
        return pybuiltins.namedtuple_method(obj, name, args, kwargs)
    if name == "is_integer" and (type(obj) is float or isinstance(obj, _FloatDim)) and not args and not kwargs:
        return obj.is_integer()
    if isinstance(obj, ListVal):
        return _list_method(engine, obj, name, args, kwargs)
    if isinstance(obj, DictVal):
        return _dict_method(engine, obj, name, args, kwargs)
    if isinstance(obj, str):
        return _str_method(obj, name, args)
    from .nnmodules import container_method, module_method
    if isinstance(obj, Container):
        return container_method(engine, obj, name, args, kwargs, site)
    if isinstance(obj, (Instance, NNModule)):
        return module_method(engine, obj, name, args, kwargs, site)
    return UNKNOWN


# What a dense tensor says of itself (the analysis models dense tensors only, as made by
# torch.randn and the ops): a library's sparse branch (`if src.layout == torch.sparse_csr:
# ptr2index(...)`) is not taken.
_DENSE_TENSOR_FLAGS = frozenset({"is_sparse", "is_sparse_csr", "is_mkldnn", "is_quantized", "is_nested"})


def _tolist(shape):
    """tensor.tolist(): nested lists of the right lengths; the values are not tracked."""
    if shape is None or not all(type(d) is int for d in shape) or S.prod(shape) > 4096:
        return UNKNOWN
    if not shape:
        return UNKNOWN
    return ListVal([_tolist(shape[1:]) for _ in range(shape[0])], "list")


def _list_method(engine, obj, name, args, kwargs):
    if obj.kind == "set" and not getattr(obj, "unknown", False):
        out = pysets.method(engine, obj, name, args)
        if out is not None or name in ("add", "discard", "update"):
            return out
    if name in ("append", "extend", "insert", "pop", "clear", "remove", "reverse", "sort"):
        engine._mutated(obj)
        obj.__dict__.pop("length", None)  # (a symbolic length no longer holds)
    if name in ("append", "insert") and args:
        added_after_loop(engine, obj, [args[-1]])
    if name == "append":
        obj.items.append(args[0])
        return None
    if name == "extend":
        items = engine.iterate(None, args[0])
        added_after_loop(engine, obj, items)
        if items is not None and too_many(len(obj.items) + len(items)):  # size cap (limits.py)
            obj.unknown = True
            return None
        if items is None:
            obj.items.append(UNKNOWN)
            obj.kind = "list"
        else:
            obj.items.extend(items)
        return None
    if name == "insert" and isinstance(args[0], int):
        obj.items.insert(args[0], args[1])
        return None
    if name == "pop":
        if obj.items:
            return obj.items.pop(args[0] if args and isinstance(args[0], int) else -1)
        return UNKNOWN
    if name == "index" and args and args[0] in obj.items:
        return obj.items.index(args[0])
    if name == "count":
        return UNKNOWN
    if name == "copy":
        return engine.new_obj(ListVal(list(obj.items), obj.kind))
    return UNKNOWN


def _dict_method(engine, obj, name, args, kwargs):
    unknown = getattr(obj, "unknown", False)
    if name == "__getitem__" and len(args) == 1:  # (`super().__getitem__(key)` of a dict subclass)
        return subscript_value(engine, obj, args[0], None)
    if name == "__setitem__" and len(args) == 2:
        engine.set_item(None, obj, args[0], args[1])
        return None
    if name == "__contains__" and len(args) == 1:
        return _contains(engine, obj, args[0])
    if name == "get":
        key = args[0]
        if key in obj.items:
            return obj.items[key]
        return UNKNOWN if unknown else (args[1] if len(args) > 1 else None)
    if name == "keys" and not unknown:
        return ListVal(list(obj.items.keys()), "tuple")
    if name == "values" and not unknown:
        return ListVal(list(obj.items.values()), "tuple")
    if name == "items" and not unknown:
        return ListVal([ListVal([k, v], "tuple") for k, v in obj.items.items()], "tuple")
    if name in ("update", "setdefault", "pop"):
        engine._mutated(obj)
        if name == "update" and args and isinstance(args[0], DictVal):
            if getattr(args[0], "unknown", False):
                obj.items.clear()  # any key may now hold another value
                obj.unknown = True
            obj.items.update(args[0].items)
            obj.items.update(kwargs)
            return None
        if name == "update" and args:
            obj.items.clear()  # from a mapping not known: any key, any value
            obj.unknown = True
            obj.items.update(kwargs)
            return None
        if name == "update":
            obj.items.update(kwargs)
            return None
        if name == "setdefault":
            return obj.items.setdefault(args[0], args[1] if len(args) > 1 else None)
        if name == "pop":
            return obj.items.pop(args[0], args[1] if len(args) > 1 else UNKNOWN)
    return UNKNOWN


_STR_NO_ARG = {"lower", "upper", "strip", "lstrip", "rstrip", "capitalize", "title", "casefold",
               "swapcase", "isdigit", "isidentifier", "isalpha", "isalnum", "isnumeric", "islower",
               "isupper", "isspace"}


def _str_method(s, name, args):
    plain = all(isinstance(a, (int, float, str)) and not isinstance(a, S.Expr) for a in args)
    if name == "format" and plain:
        if format_too_big(s, args):  # a width past the size cap (limits.py)
            return UNKNOWN
        try:
            return s.format(*args)
        except (IndexError, KeyError, ValueError):
            return UNKNOWN
    if name == "replace" and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]) \
            and replace_too_big(s, args[0], args[1]):  # size cap (limits.py)
        return UNKNOWN
    if name in ("split", "rsplit", "replace", "join") and plain and name != "join":
        r = getattr(s, name)(*args)
        return ListVal(r, "list") if isinstance(r, list) else r
    if name in _STR_NO_ARG and not args:
        return getattr(s, name)()  # never longer than s
    if name in ("startswith", "endswith") and args and isinstance(args[0], str):
        return getattr(s, name)(args[0])
    return UNKNOWN


# =========================================================================================
# Attributes
# =========================================================================================
# The fields of torch.return_types (`torch.max(x, dim=-1).values`, `x.sort().indices`,
# `torch.linalg.qr(a).Q`): a plain tuple has no attributes, so a tuple of tensors read this
# way is one of them.
_RETURN_TYPE_FIELDS = {"values": 0, "indices": 1, "min": 0, "max": 1, "Q": 0, "R": 1, "U": 0, "S": 1,
                       "Vh": 2, "V": 2, "sign": 0, "logabsdet": 1, "eigenvalues": 0, "eigenvectors": 1,
                       "mantissa": 0, "exponent": 1}


def external_attr(engine, obj, name, inst):
    field = pybuiltins.namedtuple_attr(obj, name)
    if field is not pybuiltins.NOT_NAMEDTUPLE:
        return field
    if isinstance(obj, ListVal) and obj.kind == "tuple" and name in _RETURN_TYPE_FIELDS and \
            2 <= len(obj.items) <= 3 and all(is_tensor(x) for x in obj.items):
        index = _RETURN_TYPE_FIELDS[name]
        return obj.items[index] if index < len(obj.items) else UNKNOWN
    if isinstance(obj, enums.EnumMember) and enums.field(obj, name) is not None:
        return enums.field(obj, name)
    if is_tensor(obj):
        if name == "shape" and tails.has_tail(obj):
            return tails.TailedShape(obj)
        spec = REGISTRY.get("Tensor." + name)
        if spec is not None and spec.kind == "attr":
            out = run_op(engine, spec, [obj], {}, None)
            return _some_ints(out) if name == "shape" else out
        if name in ("data", "grad"):
            return obj
        if name == "layout":
            return Ref("torch.strided")  # sparse tensors are not modelled: every tensor is dense
        if name in _DENSE_TENSOR_FLAGS:
            return False
        if name in ("device", "requires_grad", "is_cuda", "grad_fn", "names"):
            return UNKNOWN
        return BoundRef(name, obj)
    if isinstance(obj, Ref):
        full = obj.name + "." + name
        if obj.name == "torch" and name in _DTYPES:
            return Dtype(_DTYPES[name])
        if full in pybuiltins.MATH_CONSTANTS:
            return pybuiltins.MATH_CONSTANTS[full]
        if inst is not None:
            if name == "training":
                return True
            return BoundRef(name, inst)
        return Ref(pybuiltins.canonical_name(full))
    if isinstance(obj, SuperVal):
        return super_attr(engine, obj, name)
    from .nnmodules import container_attr, nn_attr
    if isinstance(obj, NNModule):
        return nn_attr(engine, obj, name)
    if isinstance(obj, Container):
        return container_attr(engine, obj, name)
    if isinstance(obj, (ListVal, DictVal, str)):
        return BoundRef(name, obj)
    if name == "is_integer" and (type(obj) is float or isinstance(obj, _FloatDim)):
        return BoundRef(name, obj)
    return UNKNOWN


# =========================================================================================
# Subscripts
# =========================================================================================
def _some_ints(size):
    """A shape read by the program (`x.shape`, `x.size()`): a dim not known is still an int."""
    if isinstance(size, ListVal) and any(x is UNKNOWN for x in size.items):
        return ListVal([SOME_INT if x is UNKNOWN else x for x in size.items], size.kind)
    return size


def _index_spec(index):
    """An index for Tensor.__getitem__: an int of unknown value (`x[:, i]` in a loop over
    range(t)) still selects one position, which the spec knows as ANY_INT."""
    if index is SOME_INT:
        return ANY_INT
    if isinstance(index, ListVal) and index.kind == "tuple" and any(x is SOME_INT for x in index.items):
        return ListVal([ANY_INT if x is SOME_INT else x for x in index.items], "tuple")
    return index


def subscript_value(engine, obj, index, site):
    if isinstance(obj, tails.TailedShape):
        return obj.item(index)
    if getattr(obj, "unknown", False):
        return _item_of_alike(engine, obj, index)
    if isinstance(obj, datasources.Dataset):
        return obj.item
    if is_tensor(obj):
        spec = REGISTRY.get("Tensor.__getitem__")
        if spec is None:
            return UNKNOWN
        return run_op(engine, spec, [obj, _index_spec(index)], {}, site)
    if isinstance(obj, ListVal):
        if isinstance(index, int) and not isinstance(index, bool):
            n = len(obj.items)
            if -n <= index < n:
                return obj.items[index]
            return UNKNOWN
        if isinstance(index, SliceVal):
            parts = (index.start, index.stop, index.step)
            if all(p is None or (isinstance(p, int) and not isinstance(p, S.Expr)) for p in parts):
                return ListVal(obj.items[slice(*parts)], obj.kind if obj.kind != "size" else "size")
        if (_key_not_known(index) or index is SOME_INT) and 0 < len(obj.items) <= _MAX_LOOKUP_JOIN:
            # `(nn.Conv1d, nn.Conv2d, nn.Conv3d)[dims - 1]`: one of the items (or IndexError)
            return engine._join_all(list(obj.items))
        return UNKNOWN
    if isinstance(obj, DictVal):
        if _key_not_known(index) and not getattr(obj, "unknown", False) and \
                0 < len(obj.items) <= _lookup_join_cap(obj.items.values()):
            # `params[model_name]` with the name not known: one of its values (or KeyError)
            return engine._join_all(list(obj.items.values()))
        try:
            if index in obj.items:
                return obj.items[index]
        except TypeError:
            return UNKNOWN
        factory = getattr(obj, "default_factory", None)
        if factory is None or getattr(obj, "unknown", False) or _key_not_known(index):
            return UNKNOWN
        made = engine.call_value(factory, [], {}, site)  # a defaultdict makes the key's value
        engine._mutated(obj)
        obj.items[index] = made
        return made
    if isinstance(obj, Instance) and isinstance(obj.cls.lookup("__getitem__"), FunctionVal):
        return engine.call_user(obj.cls.lookup("__getitem__"), [obj, index], {}, site)
    if isinstance(obj, Instance) and isinstance(obj.attrs.get("__container__"), Container):
        obj = obj.attrs["__container__"]
    data = values.user_container_data(obj)
    if data is not None:
        return subscript_value(engine, data, index, site)
    if isinstance(obj, Container):
        from .nnmodules import container_item
        return container_item(engine, obj, index)
    if isinstance(obj, str) and isinstance(index, int):
        try:
            return obj[index]
        except IndexError:
            return UNKNOWN
    return UNKNOWN


_MAX_LOOKUP_JOIN = 8  # values of a config table joined when the key is not known


def _lookup_join_cap(values) -> int:
    """... or as many as a join of torch layers holds (an activation registry: `ACT[name]()`;
    alternatives.MAX_TORCH_OPTIONS)."""
    if all(alternatives.torch_ref(v) for v in values):
        return alternatives.MAX_TORCH_OPTIONS
    return _MAX_LOOKUP_JOIN


def _key_not_known(index) -> bool:
    """A dict key whose value is not known here: Unknown, or a symbol (the name of an
    architecture passed to a factory nobody calls)."""
    return index is UNKNOWN or isinstance(index, S.Expr)


def _item_of_alike(engine, seq, index):
    """`self.blocks[step]` where the blocks are a list or container of unknown length whose
    items look alike (values.alike, `for _ in range(n_steps): blocks.append(...)`): any item
    is the element or one of the items it tracks beside it (added after the loop)."""
    element = getattr(seq, "element", None)
    if getattr(seq, "kind", None) == "ModuleDict" or not is_int_like(index) or isinstance(index, bool):
        return UNKNOWN
    # The items it surely starts with (put there before the loop): an int index below their
    # count is one of them, one past them never is (`range(1, n_glu)` over blocks whose
    # first one differs).
    known = getattr(seq, "prefix", 0) if type(index) is int and isinstance(seq.items, list) else 0
    if known and 0 <= index < known:
        return seq.items[index]
    if element is None:
        return UNKNOWN
    joined = values.join_alike(engine, [element, *(seq.items[known:] if known else seq.items)])
    return UNKNOWN if joined is None else joined


# =========================================================================================
# Operators
# =========================================================================================
_DUNDERS = {"+": ("__add__", "__radd__"), "-": ("__sub__", "__rsub__"),
            "*": ("__mul__", "__rmul__"), "/": ("__truediv__", "__rtruediv__"),
            "//": ("__floordiv__", None), "%": ("__mod__", None), "**": ("__pow__", "__rpow__"),
            "@": ("__matmul__", "__rmatmul__"), "&": ("__and__", "__and__"),
            "|": ("__or__", "__or__"), "^": ("__xor__", "__xor__")}


def _is_int(v):
    return isinstance(v, (int, S.Expr))


def _repeat_unknown_times(engine, op, a, b):
    """`[x] * n` with n not a known number: a list of unknown length of items like x."""
    if op != "*":
        return None
    seq, n = (a, b) if isinstance(a, ListVal) else (b, a)
    if not isinstance(seq, ListVal) or getattr(seq, "unknown", False) or not seq.items:
        return None
    if isinstance(n, int) and not isinstance(n, S.Expr):
        return None
    if not (n is UNKNOWN or isinstance(n, S.Expr)):
        return None
    element = engine.element_of(seq)
    return None if element is UNKNOWN else engine.new_obj(alike(element, seq.kind))


def _concat_unknown_length(engine, a, b, kind):
    """`a + b` where a list has unknown length (`[f(c) for c in chunks] + [x]`): its sure
    leading items, then items like the joined rest. (Read as the known items alone, a cat of
    it gave x's shape for the whole list.)"""
    if not getattr(a, "unknown", False):
        if getattr(b, "element", None) is None:
            return UNKNOWN
        out = alike(b.element, kind)
        out.items = list(a.items) + list(b.items[:getattr(b, "prefix", 0)])
        out.prefix = len(out.items)
        return engine.new_obj(out)
    rest = [getattr(a, "element", None)] + list(b.items) + \
        ([getattr(b, "element", None)] if getattr(b, "unknown", False) else [])
    if any(x is None or x is UNKNOWN for x in rest):
        return UNKNOWN
    element = values.join_alike(engine, rest)
    if element is None:
        return UNKNOWN
    out = alike(element, kind)
    out.items = list(a.items[:getattr(a, "prefix", 0)])
    out.prefix = len(out.items)
    return engine.new_obj(out)


def _alike_again(seq):
    """`seq * n` of a list of unknown length: still one, of the same items."""
    element = getattr(seq, "element", None)
    return alike(element, seq.kind) if element is not None else UNKNOWN


def binary_op(engine, op, a, b, site, inplace=False):
    if isinstance(a, tails.TailedShape) and op == "+" and isinstance(b, ListVal) and not getattr(b, "unknown", False):
        return a.plus(b.items) or UNKNOWN  # `x.size()[:-1] + (h, d)`
    if isinstance(a, generic.DefaultZero) or isinstance(b, generic.DefaultZero):
        return UNKNOWN  # 0 by default, another number when the model is built with one
    if is_tensor(a) or is_tensor(b):
        # A Python number of unknown value (`head_dim ** -0.5`) scales a tensor without
        # changing its shape: any float (int) stands for it.
        a = 1.0 if is_some_float(a) else 1 if a is SOME_INT else a
        b = 1.0 if is_some_float(b) else 1 if b is SOME_INT else b
        left, right = _DUNDERS.get(op, (None, None))
        if inplace and is_tensor(a) and left:
            # `out += identity` keeps out's shape: identity must broadcast to it.
            spec = REGISTRY.get("Tensor.__i" + left[2:])
            if spec is not None:
                out = run_op(engine, spec, [a, b], {}, site)
                return a if out is UNKNOWN else out  # in place: never another shape
        if is_tensor(a) and left:
            spec = REGISTRY.get("Tensor." + left)
            if spec is not None:
                return run_op(engine, spec, [a, b], {}, site)
        if is_tensor(b) and right:
            spec = REGISTRY.get("Tensor." + right)
            if spec is not None:
                return run_op(engine, spec, [b, a], {}, site)
        return UNKNOWN
    repeated = _repeat_unknown_times(engine, op, a, b)
    if repeated is not None:
        return repeated
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if (a is SOME_INT or b is SOME_INT) and _is_number(a) and _is_number(b):
        if is_int_like(a) and is_int_like(b) and op in ("+", "-", "*", "//", "%"):
            return SOME_INT  # an int of unknown value still
        if op in ("+", "-", "*", "/", "**"):
            return SOME_FLOAT
        return UNKNOWN
    if isinstance(a, Container) and op == "+" and a.kind != "ModuleDict":
        items = engine.iterate(None, b)
        if items is None:
            return UNKNOWN
        if inplace:  # module_list += [...] extends it
            from .nnmodules import container_method
            container_method(engine, a, "extend", [ListVal(items, "list")], {}, site)
            return a
        return engine.new_obj(Container(a.kind, a.items + items,
                                        None if a.keys is None else a.keys + [str(len(a.items) + i) for i in range(len(items))]))
    if _is_int(a) and _is_int(b):
        if op == "+":
            return S.add(a, b)
        if op == "-":
            return S.sub(a, b)
        if op == "*":
            return S.mul(a, b)
        if op == "//":
            return S.floordiv(a, b)
        if op == "%":
            return S.mod(a, b)
        if op == "**" and isinstance(b, int) and not isinstance(b, S.Expr) and 0 <= b <= 8:
            power = 1
            for _ in range(b):
                power = S.mul(power, a)
            return power
        if isinstance(a, int) and isinstance(b, int):
            try:
                return _py_binop(op, a, b)
            except (ZeroDivisionError, ValueError, OverflowError):
                return UNKNOWN
        if op == "/":
            q = S.floordiv(a, b)
            if S.mul(q, b) == a:
                return _FloatDim(q)
            return _quotient(a, b)
        return UNKNOWN
    scaled = _scaled_op(op, a, b)
    if scaled is not None:
        return scaled
    if isinstance(a, _FloatDim) and a.scale == 1 and a.den == 1:
        a = a.dim
    if isinstance(b, _FloatDim) and b.scale == 1 and b.den == 1:
        b = b.dim
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, S.Expr) and not isinstance(b, S.Expr):
        try:
            return _py_binop(op, a, b)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return UNKNOWN
    if isinstance(a, str) and isinstance(b, str) and op == "+":
        return a + b
    if isinstance(a, str) and op == "%":
        args = b.items if isinstance(b, ListVal) else [b]
        if all(isinstance(x, (int, float, str)) and not isinstance(x, S.Expr) for x in args):
            try:
                return a % tuple(args)
            except (TypeError, ValueError):
                return UNKNOWN
        return UNKNOWN
    if inplace and op == "+" and isinstance(a, ListVal) and a.kind == "list" and not getattr(a, "unknown", False):
        # `layers += [conv, nn.ReLU()]` extends the list in place, as Python does (a loop
        # of unknown count then knows what it appended: statements._fixpoint)
        items = engine.iterate(None, b)
        if items is not None:
            engine._mutated(a)
            a.items.extend(items)
            return a
    of_sets = pysets.binary_op(op, a, b)
    if of_sets is not None:
        return of_sets
    if isinstance(a, ListVal) and isinstance(b, ListVal) and op == "+":
        kind = "list" if a.kind == "list" else "tuple"
        if getattr(a, "unknown", False) or getattr(b, "unknown", False):
            return _concat_unknown_length(engine, a, b, kind)
        return ListVal(a.items + b.items, kind)
    if isinstance(a, ListVal) and isinstance(b, int) and not isinstance(b, S.Expr) and op == "*" and b < 10000:
        return ListVal(a.items * b, a.kind) if not getattr(a, "unknown", False) else _alike_again(a)
    if isinstance(b, ListVal) and isinstance(a, int) and not isinstance(a, S.Expr) and op == "*" and a < 10000:
        return ListVal(b.items * a, b.kind) if not getattr(b, "unknown", False) else _alike_again(b)
    if op in ("+", "-", "*", "/", "**") and _is_number(a) and _is_number(b):
        return SOME_FLOAT  # e.g. a dim to a fractional power: a float, value unknown
    return UNKNOWN


class _SomeFloat:
    """A Python float whose value the analysis does not know (`dim ** -0.5`,
    `math.sqrt(d_k)`): never a tensor, so it cannot change a tensor's shape."""

    def __repr__(self):
        return "<float>"


SOME_FLOAT = _SomeFloat()


def is_some_float(v) -> bool:
    return v is SOME_FLOAT or isinstance(v, _FloatDim)


def _is_number(v) -> bool:
    return (isinstance(v, (int, float, S.Expr)) and not isinstance(v, bool)) or is_some_float(v) or v is SOME_INT


class _FloatDim:
    """A float computed from a dim: `dim * scale` for a rational scale (`C / n_head` when it
    divides exactly, `dim * 4.0`, `planes * (base_width / 64.0)`). `int()` of it floors:
    `int(dim * 2.5)` is `(5*dim)//2`, exact for dims >= 0."""

    def __init__(self, dim, scale: Fraction = Fraction(1), den=1):
        self.dim = dim
        self.scale = scale
        self.den = den  # a dim divisor (`n / m`, both symbols): the value is dim * scale / den

    def floor(self):
        if self.scale == 1 and self.den == 1:
            return self.dim
        if self.scale < 0:
            return UNKNOWN
        return S.floordiv(S.mul(self.dim, self.scale.numerator), S.mul(self.den, self.scale.denominator))

    def ceil(self):
        """math.ceil of it: -(-a // b) is exact for any sign of the divisor."""
        if self.scale < 0:
            return UNKNOWN
        return S.cdiv(S.mul(self.dim, self.scale.numerator), S.mul(self.den, self.scale.denominator))

    def is_integer(self):
        """float.is_integer(): `(n / m).is_integer()` is `n % m == 0` (pad_to_multiple)."""
        if self.scale < 0:
            return UNKNOWN
        return S.eq(S.mod(S.mul(self.dim, self.scale.numerator), S.mul(self.den, self.scale.denominator)), 0)

    def structural_key(self, key):
        return ("floatdim", key(self.dim), self.scale, key(self.den))


def float_symbol(name: str):
    """A float parameter whose value is not known, standing for the symbol `name`: scaled
    and rounded into a size, it gives a dim in that symbol (`int(in_channels * width)` is
    `in_channels*width`, exact whenever the product is a whole number)."""
    return _FloatDim(S.sym(name))


def _quotient(a, b):
    """`a / b` of dims that need not divide: a float whose floor and ceiling are dims
    (`math.ceil(n / m)` is `-(-n // m)`)."""
    if isinstance(b, int) and not isinstance(b, S.Expr):
        return _FloatDim(a, Fraction(1, b)) if b != 0 else UNKNOWN
    return _FloatDim(a, Fraction(1), b)


def _as_scaled(v):
    """(dim, scale) for a dim, a float made from one, or a plain float; None otherwise."""
    if isinstance(v, _FloatDim):
        return (v.dim, v.scale) if v.den == 1 else None
    if _is_int(v):
        return v, Fraction(1)
    if isinstance(v, float) and math.isfinite(v):
        return 1, Fraction(v)
    return None


def _scaled_op(op, a, b):
    """`*` and `/` of a dim-made float with a dim or a float (see _FloatDim); None when the
    operands are not of that kind (plain ints and floats are computed elsewhere)."""
    if op not in ("*", "/") or not (isinstance(a, (_FloatDim, float)) or isinstance(b, (_FloatDim, float))):
        return None
    if not any(isinstance(v, (_FloatDim, S.Expr)) for v in (a, b)):
        return None  # plain numbers: Python computes them (2 * 0.5 is the float 1.0)
    x, y = _as_scaled(a), _as_scaled(b)
    if x is None or y is None or (isinstance(a, float) and isinstance(b, float)):
        return None
    (da, fa), (db, fb) = x, y
    if op == "*":
        return _FloatDim(S.mul(da, db), fa * fb)
    if isinstance(db, int) and not isinstance(db, S.Expr) and db != 0 and fb != 0:
        return _FloatDim(da, fa / (db * fb))
    return SOME_FLOAT  # by a dim (`math.log(10000) / (half_dim - 1)`): a float all the same


def _py_binop(op, a, b):
    if op == "**" and isinstance(b, int) and abs(b) > 64:
        raise OverflowError
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
            "//": lambda: a // b, "%": lambda: a % b, "**": lambda: a ** b,
            "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b, "|": lambda: a | b,
            "^": lambda: a ^ b}[op]()


def unary_op(engine, op, a, site):
    if generic.is_probe(a):
        # `-n` on an input of the first generic run: a number does the same (`s[:-n_dims]`),
        # so it is no sign of a tensor; a tensor's result has its shape.
        return a
    if is_tensor(a):
        name = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}.get(op)
        spec = REGISTRY.get("Tensor." + name) if name else None
        return run_op(engine, spec, [a], {}, site) if spec else a
    if _is_int(a):
        return S.mul(a, -1) if op == "-" else (a if op == "+" else (~a if isinstance(a, int) else UNKNOWN))
    if isinstance(a, float):
        return -a if op == "-" else a
    if (a is SOME_FLOAT or isinstance(a, _FloatDim)) and op in ("-", "+"):
        return SOME_FLOAT if op == "-" else a  # `-emb`: still a float (it scales a tensor)
    return UNKNOWN


_CMP_DUNDER = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__",
               ">=": "__ge__"}


def _sequence_kind(v) -> str:
    """What equality sees: a torch.Size is a tuple."""
    return "tuple" if v.kind == "size" else v.kind


def compare_values(engine, op, a, b, site):
    if isinstance(a, generic.DefaultZero) or isinstance(b, generic.DefaultZero):
        return UNKNOWN
    if (isinstance(a, generic.DefaultStr) or isinstance(b, generic.DefaultStr)) and \
            op in ("==", "!=", "in", "not in"):
        return UNKNOWN  # a str option of a class nobody builds: the test runs both ways
    if op in ("is", "is not"):
        default_none = a if isinstance(a, generic.DefaultNone) else b if isinstance(b, generic.DefaultNone) else None
        if default_none is not None and (a is None or b is None) and default_none.name:
            # `self.adanorm = adanorm_num_embeddings is not None`: a flag of the class, its
            # default value None's (infer.flag_worlds builds one world per value)
            return generic.DefaultBool(op == "is", default_none.name)
        r = _identity(a, b)
        if r is UNKNOWN:
            return UNKNOWN
        return r if op == "is" else not r
    if op in ("in", "not in"):
        r = _contains(engine, b, a)
        if r is UNKNOWN:
            return UNKNOWN
        return r if op == "in" else not r
    if is_tensor(a) or is_tensor(b):
        t, other = (a, b) if is_tensor(a) else (b, a)
        spec = REGISTRY.get("Tensor." + _CMP_DUNDER.get(op, ""))
        if spec is None:
            return UNKNOWN
        return run_op(engine, spec, [t, other], {}, site)
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if (isinstance(a, enums.EnumMember) or isinstance(b, enums.EnumMember)) and op in ("==", "!="):
        same = enums.equal(a, b)
        return same if same is UNKNOWN else same == (op == "==")
    if _is_int(a) and _is_int(b):
        return {"==": S.eq, "!=": S.ne, "<": S.lt, "<=": S.le, ">": S.gt, ">=": S.ge}[op](a, b)
    if isinstance(a, ListVal) and isinstance(b, ListVal) and op in ("==", "!="):
        kinds = {_sequence_kind(a), _sequence_kind(b)}
        if len(kinds) > 1:
            return op == "!="  # a list never equals a tuple, nor a set either
        if getattr(a, "unknown", False) or getattr(b, "unknown", False) or kinds == {"set"}:
            return UNKNOWN  # items not known (or unordered)
        if len(a.items) != len(b.items):
            return op == "!="
        parts = [compare_values(engine, "==", x, y, site) for x, y in zip(a.items, b.items)]
        r = S.and_(*[p for p in parts])
        return r if op == "==" else S.not_(r)
    if op in ("==", "!=") and (isinstance(a, ListVal) or isinstance(b, ListVal)) and \
            (_is_int(a) or _is_int(b) or isinstance(a, (float, str, type(None))) or isinstance(b, (float, str, type(None)))):
        return op == "!="  # `stride == 1` with stride = [1]: a sequence never equals a number
    if a is None or b is None:
        if op == "==":
            return a is b if _known_value(a) and _known_value(b) else UNKNOWN
        if op == "!=":
            return a is not b if _known_value(a) and _known_value(b) else UNKNOWN
    plain = (int, float, str, bool)
    if isinstance(a, plain) and isinstance(b, plain) and not isinstance(a, S.Expr) and not isinstance(b, S.Expr):
        try:
            return {"==": a == b, "!=": a != b}[op] if op in ("==", "!=") else \
                {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()
        except TypeError:
            return UNKNOWN
    if isinstance(a, Dtype) or isinstance(b, Dtype):
        if isinstance(a, Dtype) and isinstance(b, Dtype) and op in ("==", "!="):
            return (a == b) == (op == "==")
    if isinstance(a, Ref) and isinstance(b, Ref) and op in ("==", "!=") and \
            a.name in _TORCH_LAYOUTS and b.name in _TORCH_LAYOUTS:
        return (a.name == b.name) == (op == "==")  # `src.layout == torch.sparse_csr`
    return UNKNOWN


_TORCH_LAYOUTS = frozenset({"torch.strided", "torch.sparse_coo", "torch.sparse_csr", "torch.sparse_csc",
                            "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn", "torch.jagged"})


def _known_value(v):
    return v is not UNKNOWN


def _identity(a, b):
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, generic.DefaultNone) or isinstance(b, generic.DefaultNone):
        return UNKNOWN  # None by default, a value when the model is built with one
    if isinstance(a, MaybeNone) or isinstance(b, MaybeNone):
        return UNKNOWN  # None on some paths (analysis.flags splits the test)
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) and isinstance(b, bool):
        return a is b
    if isinstance(a, (Instance, NNModule, Container, ListVal, DictVal)) and isinstance(b, (Instance, NNModule, Container, ListVal, DictVal)):
        return a is b
    if isinstance(a, Ref) and isinstance(b, Ref):
        return pybuiltins.same_ref(a, b)
    if isinstance(a, enums.EnumMember) and isinstance(b, enums.EnumMember):
        return enums.same_class(a.cls, b.cls) and a.name == b.name  # members are singletons
    return UNKNOWN


def _contains(engine, container, item):
    if isinstance(container, Instance) and container.cls.lookup("__contains__") is None:
        container = values.user_container_data(container) or container  # (a dict subclass)
    if enums.is_enum_class(container):
        return enums.contains(container, item)
    if isinstance(item, enums.EnumMember) and isinstance(container, ListVal) and \
            not getattr(container, "unknown", False):
        found = enums.in_items(item, container.items)
        if found is not UNKNOWN:
            return found
    if isinstance(item, enums.EnumMember) and item.mixin is not None:
        item = item.value  # a str/int enum member hashes and compares as its value
    if isinstance(container, pybuiltins.SignatureParams) and not container.complete and \
            isinstance(item, str) and item not in container.items:
        return UNKNOWN
    if isinstance(container, DictVal) and not getattr(container, "unknown", False):
        try:
            return item in container.items
        except TypeError:
            return UNKNOWN
    if isinstance(container, ListVal) and isinstance(item, (str, int, float)) and not isinstance(item, S.Expr):
        if all(isinstance(x, (str, int, float)) and not isinstance(x, S.Expr) for x in container.items):
            return item in container.items
        if not getattr(container, "unknown", False) and \
                any(type(x) is type(item) and x == item for x in container.items if not isinstance(x, S.Expr)):
            return True  # `-1 in [heads, -1]`: whatever heads is
    if isinstance(container, str) and isinstance(item, str):
        return item in container
    if isinstance(container, Container) and container.kind == "ModuleDict" and isinstance(item, str) and \
            not getattr(container, "unknown", False) and container.keys is not None:
        return item in container.keys  # `if 'attention_normalization' in block:`
    return UNKNOWN
