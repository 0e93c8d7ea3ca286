"""einops as op specs: rearrange / repeat / reduce, einsum, pack / unpack, parse_shape, and
the torch layers Rearrange / Reduce / EinMix. Checked against einops 0.8 (CPU torch).

A pattern is parsed once (cached) into the structure einops builds: axis groups, `...`,
anonymous axes (`2`; a `1` is an empty group). A recipe, cached by (pattern, operation, named
axes, rank), says which elementary axes each input dim splits into, which of them are reduced
and how the output groups them. Applying it to a shape is dim algebra, so `(h d)` with `h`
given yields `d = n // h` under the condition `n % h == 0`, with ints and symbols alike.
Messages are einops' own, on one line (the multi-line texts joined by spaces).
"""
from __future__ import annotations

import functools
import string

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (ILLEGAL_VALUE, SHAPE_MISMATCH, OpContext, ShapeError, TensorValue,
                   Unknowable, is_tensor, module, op)

_ELL = "…"  # einops' internal stand-in for `...` (one unicode character)
REDUCTIONS = ("min", "max", "sum", "mean", "prod", "any", "all")
_FLOAT = ("float16", "float32", "float64", "bfloat16")


class _EinopsError(Exception):
    """A failure einops reports; `kind` is the Python exception einops raises."""

    def __init__(self, message: str, kind: str = "EinopsError", static: bool = False):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.static = static  # from the pattern alone: fails whatever the tensor is


# =========================================================================================
# Parsing one side of a pattern (einops.parsing.ParsedExpression)
# =========================================================================================

class _Anon:
    """An anonymous axis (`2`): every occurrence is its own axis, equal only to itself."""

    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = value

    def __repr__(self) -> str:
        return f"{self.value}-axis"


class Side:
    """One side of a pattern: `composition` is a list of groups (lists of axes) and `_ELL`."""

    def __init__(self):
        self.has_ellipsis = False
        self.has_ellipsis_parenthesized = None
        self.identifiers: set = set()
        self.has_non_unitary_anonymous_axes = False
        self.composition: list = []

    def has_composed_axes(self) -> bool:
        return any(isinstance(g, list) and len(g) > 1 for g in self.composition)


def _axis_name_reason(name: str, allow_underscore: bool = False):
    if not name.isidentifier():
        return False, "not a valid python identifier"
    if name[0] == "_" or name[-1] == "_":
        if name == "_" and allow_underscore:
            return True, ""
        return False, "axis name should should not start or end with underscore"
    return True, ""


def valid_axis_name(name: str) -> bool:
    return _axis_name_reason(name)[0]  # keywords only get a warning from einops


def parse_side(expression: str, allow_underscore: bool = False, allow_duplicates: bool = False) -> Side:
    """A fresh parse (anonymous axes are new objects each time); raises _EinopsError."""
    side = Side()
    if "." in expression:
        if "..." not in expression:
            raise _EinopsError("Expression may contain dots only inside ellipsis (...)")
        if expression.count("...") != 1 or expression.count(".") != 3:
            raise _EinopsError("Expression may contain dots only inside ellipsis (...); only one ellipsis for tensor ")
        expression = expression.replace("...", _ELL)
        side.has_ellipsis = True
    group = None

    def add(x):
        if x in side.identifiers and not (allow_underscore and x == "_") and not allow_duplicates:
            raise _EinopsError(f'Indexing expression contains duplicate dimension "{x}"')
        if x == _ELL:
            side.identifiers.add(_ELL)
            if group is None:
                side.composition.append(_ELL)
                side.has_ellipsis_parenthesized = False
            else:
                group.append(_ELL)
                side.has_ellipsis_parenthesized = True
            return
        is_number = x.isdecimal()
        if is_number and int(x) == 1:
            if group is None:
                side.composition.append([])
            return
        ok, reason = _axis_name_reason(x, allow_underscore)
        if not (is_number or ok):
            raise _EinopsError(f"Invalid axis identifier: {x}\n{reason}")
        if is_number:
            value = int(x)
            if value <= 1:
                raise _EinopsError(f"Anonymous axis should have positive length, not {value}")
            x = _Anon(value)
            side.has_non_unitary_anonymous_axes = True
        side.identifiers.add(x)
        if group is None:
            side.composition.append([x])
        else:
            group.append(x)

    current = None
    for char in expression:
        if char in "() ":
            if current is not None:
                add(current)
            current = None
            if char == "(":
                if group is not None:
                    raise _EinopsError("Axis composition is one-level (brackets inside brackets not allowed)")
                group = []
            elif char == ")":
                if group is None:
                    raise _EinopsError("Brackets are not balanced")
                side.composition.append(group)
                group = None
        elif char.isalnum() or char in ("_", _ELL):
            current = char if current is None else current + char
        else:
            raise _EinopsError(f"Unknown character '{char}'")
    if group is not None:
        raise _EinopsError(f'Imbalanced parentheses in expression: "{expression}"')
    if current is not None:
        add(current)
    return side


def set_text(items) -> str:
    """A Python set as einops prints it, in a stable order (sets of str print in hash order)."""
    return "{" + ", ".join(sorted(repr(x) for x in items)) + "}"


# =========================================================================================
# Recipes (einops._prepare_transformation_recipe), cached
# =========================================================================================

class Recipe:
    """inputs: per input dim, (known axes, unknown axes); order: elementary axes after the
    transposition (kept ones in output order, then the reduced ones); n_reduced; groups: the
    output dims as lists of axes; anon: axis -> length of anonymous axes."""

    def __init__(self, inputs, order, n_reduced, groups, anon):
        self.inputs = inputs
        self.order = order
        self.n_reduced = n_reduced
        self.groups = groups
        self.anon = anon


def _split_arrow(pattern: str):
    parts = pattern.split("->")
    if len(parts) < 2:
        raise _EinopsError(f"not enough values to unpack (expected 2, got {len(parts)})", "ValueError")
    if len(parts) > 2:
        raise _EinopsError("too many values to unpack (expected 2)", "ValueError")
    return parts


@functools.lru_cache(1024)
def _recipe_cached(pattern: str, operation: str, op_text: str, axes_names: tuple, ndim):
    try:
        return _recipe(pattern, operation, op_text, axes_names, ndim)
    except _EinopsError as e:
        return e


def recipe(pattern, operation, op_text, axes_names, ndim) -> Recipe:
    r = _recipe_cached(pattern, operation, op_text, axes_names, ndim)
    if isinstance(r, _EinopsError):
        raise _EinopsError(r.message, r.kind, r.static)
    return r


def _recipe(pattern, operation, op_text, axes_names, ndim) -> Recipe:
    """`operation`: "rearrange" | "repeat" | a reduction name | "callable"; `ndim` None when
    unknown (then only the rank-independent checks run)."""
    try:
        left, right = _pattern_sides(pattern, operation, op_text, axes_names)
    except _EinopsError as e:
        e.static = True
        raise
    return _recipe_for_rank(left, right, operation, axes_names, ndim)


def _pattern_sides(pattern, operation, op_text, axes_names):
    """The pattern's two sides, parsed and checked against each other: what einops rejects
    whatever the tensor is."""
    left_str, right_str = _split_arrow(pattern)
    left, right = parse_side(left_str), parse_side(right_str)
    if not left.has_ellipsis and right.has_ellipsis:
        raise _EinopsError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.has_ellipsis and left.has_ellipsis_parenthesized:
        raise _EinopsError(f"Ellipsis inside parenthesis in the left side is not allowed: {pattern}")
    if operation == "rearrange":
        if left.has_non_unitary_anonymous_axes or right.has_non_unitary_anonymous_axes:
            raise _EinopsError("Non-unitary anonymous axes are not supported in rearrange (exception is length 1)")
        difference = left.identifiers ^ right.identifiers
        if difference:
            raise _EinopsError(f"Identifiers only on one side of expression (should be on both): {set_text(difference)}")
    elif operation == "repeat":
        difference = left.identifiers - right.identifiers
        if difference:
            raise _EinopsError(f"Unexpected identifiers on the left side of repeat: {set_text(difference)}")
        without_size = {a for a in right.identifiers if not isinstance(a, _Anon)} - {*left.identifiers, *axes_names}
        if without_size:
            raise _EinopsError(f"Specify sizes for new axes in repeat: {set_text(without_size)}")
    elif operation in REDUCTIONS or operation == "callable":
        difference = right.identifiers - left.identifiers
        if difference:
            raise _EinopsError(f"Unexpected identifiers on the right side of reduce {op_text}: {set_text(difference)}")
    else:
        raise _EinopsError(f"Unknown reduction {op_text}. Expect one of {REDUCTIONS}.")
    return left, right


def _recipe_for_rank(left, right, operation, axes_names, ndim) -> Recipe:
    left_ids, right_ids = set(left.identifiers), set(right.identifiers)
    if left.has_ellipsis:
        n_other = len(left.composition) - 1
        if ndim is None:
            ndim = n_other  # rank unknown: name-only checks below, with no ellipsis dims
        elif ndim < n_other:
            raise _EinopsError(f"Wrong shape: expected >={n_other} dims. Received {ndim}-dim tensor.")
        ell = [_ELL + str(i) for i in range(ndim - n_other)]
        left_comp = []
        for g in left.composition:
            left_comp.extend([[a] for a in ell] if g == _ELL else [g])
        right_comp = []
        for g in right.composition:
            if g == _ELL:
                right_comp.extend([a] for a in ell)
            else:
                right_comp.append([x for a in g for x in (ell if a == _ELL else [a])])
        left_ids.update(ell)
        left_ids.discard(_ELL)
        if right.has_ellipsis:
            right_ids.update(ell)
            right_ids.discard(_ELL)
    else:
        if ndim is not None and ndim != len(left.composition):
            raise _EinopsError(f"Wrong shape: expected {len(left.composition)} dims. Received {ndim}-dim tensor.")
        left_comp, right_comp = left.composition, right.composition

    known = {}  # axis -> True when its length is given (anonymous or a keyword)
    for g in left_comp:
        for a in g:
            known[a] = isinstance(a, _Anon)
    for a in right_ids:
        if a not in known:
            known[a] = isinstance(a, _Anon)
    for name in axes_names:
        if not valid_axis_name(name):
            raise _EinopsError(str(("Invalid name for an axis", name)))
        if name not in known:
            raise _EinopsError(f"Axis {name} is not used in transform")
        known[name] = True
    inputs = []
    for g in left_comp:
        unknown = [a for a in g if not known[a]]
        if len(unknown) > 1:
            raise _EinopsError(f"Could not infer sizes for {set_text(unknown)}")
        inputs.append(([a for a in g if known[a]], unknown))
    flat_left = [a for g in left_comp for a in g]
    flat_right = [a for g in right_comp for a in g]
    reduced = [a for a in flat_left if a not in right_ids]
    order = [a for a in flat_right if a in left_ids] + reduced
    anon = {a: a.value for a in known if isinstance(a, _Anon)}
    return Recipe(inputs, order, len(reduced), [list(g) for g in right_comp], anon)


# =========================================================================================
# Applying a recipe to a shape (einops._reconstruct_from_shape and _apply_recipe)
# =========================================================================================

def _length_arg(v):
    """A keyword axis length: an int or symbol >= 0 (negative ones are left to torch: Unknowable)."""
    if v is UNKNOWN:
        return UNKNOWN
    if isinstance(v, bool) or not isinstance(v, (int, S.Expr)):
        raise Unknowable(f"axis length {v!r}")
    if isinstance(v, int) and v < 0:
        raise Unknowable("a negative axis length")
    return v


def axis_lengths(ctx, rec: Recipe, shape, axes_lengths: dict) -> dict:
    """Every elementary axis's length; the checks einops makes on the input shape."""
    lengths = dict(rec.anon)
    for name, v in axes_lengths.items():
        lengths[name] = _length_arg(v)
    for length, (known, unknown) in zip(shape, rec.inputs):
        if not known and len(unknown) == 1:
            lengths[unknown[0]] = length
            continue
        product = S.prod(lengths[a] for a in known)
        if not unknown:
            ctx.require(S.eq(length, product), SHAPE_MISMATCH,
                        f"Shape mismatch, {S.dim_text(length)} != {S.dim_text(product)}")
            continue
        if isinstance(product, int) and product == 0:
            raise _EinopsError("integer modulo by zero", "ZeroDivisionError")
        ctx.require(S.eq(S.mod(length, product), 0), SHAPE_MISMATCH,
                    f"Shape mismatch, can't divide axis of length {S.dim_text(length)} in chunks of "
                    f"{S.dim_text(product)}")
        lengths[unknown[0]] = S.floordiv(length, product)
    return lengths


def _reduce_call(ctx, operation, op_text, t: TensorValue, dims: list, jit: bool) -> TensorValue:
    """The reduction einops' torch backend runs over the trailing (reduced) dims. `jit`: the
    layers' scripted backend, which knows fewer reductions."""
    if jit and operation not in ("min", "max", "sum", "mean", "prod") and op_text is not None:
        shown = repr(op_text) if operation != "callable" else op_text
        raise _EinopsError(f"('Unknown reduction ', {shown})", "NotImplementedError")
    if operation == "callable":  # a user function f(tensor, axes): assumed to reduce them
        return TensorValue(t.shape[:len(t.shape) - len(dims)], t.dtype)
    if operation == "mean" and not jit and t.dtype is not None and t.dtype not in _FLOAT:
        raise _EinopsError("reduce_mean is not available for non-floating tensors", "NotImplementedError")
    if operation in ("min", "max", "sum", "mean"):
        name = {"min": "Tensor.amin", "max": "Tensor.amax"}.get(operation, "Tensor." + operation)
        return ctx.call(name, t, dims)
    for d in sorted(dims)[::-1]:
        t = ctx.call("Tensor." + operation, t, d)
    return t


def apply(ctx, rec: Recipe, x: TensorValue, operation: str, axes_lengths: dict, op_text=None,
          jit=False) -> TensorValue:
    lengths = axis_lengths(ctx, rec, x.shape, axes_lengths)
    mid = TensorValue(tuple(lengths[a] for a in rec.order), x.dtype)
    if rec.n_reduced:
        n = len(rec.order)
        mid = _reduce_call(ctx, operation, op_text, mid, list(range(n - rec.n_reduced, n)), jit)
    out = tuple(_group_length(rec, x.shape, lengths, g) for g in rec.groups)
    return TensorValue(out, mid.dtype)


def _group_length(rec: Recipe, shape, lengths: dict, group: list):
    """An output dim: the product of its axes, where an input dim whose axes it holds all
    counts as that dim (so `(h d)` split from `c` and joined again is `c`, not `h*(c//h)`)."""
    rest, factor = list(group), 1
    for length, (known, unknown) in zip(shape, rec.inputs):
        axes = known + unknown
        if unknown and len(axes) > 1 and all(a in rest for a in axes):
            for a in axes:
                rest.remove(a)
            factor = S.mul(factor, length)
    return S.mul(factor, S.prod(lengths.get(a, UNKNOWN) for a in rest))


# =========================================================================================
# rearrange / repeat / reduce
# =========================================================================================

def _operation(reduction) -> tuple:
    """(operation key for the recipe, its text in messages)."""
    if isinstance(reduction, str):
        return reduction, reduction
    if reduction is UNKNOWN:
        return "callable", None  # an unknown string or function: no pattern errors from it
    if callable(reduction):
        return "callable", str(reduction)
    raise Unknowable("reduction")


def _input(ctx, tensor):
    """The tensor einops works on: a list of tensors is stacked on a new leading axis."""
    if isinstance(tensor, list):
        if not tensor:
            ctx.fail(ILLEGAL_VALUE, "Rearrange/Reduce/Repeat can't be applied to an empty list")
        return ctx.call("torch.stack", tensor, 0)
    if isinstance(tensor, tuple) and tensor and all(is_tensor(t) for t in tensor):
        # Only a list is stacked; a tuple (or any other sequence) is not a tensor to einops.
        ctx.fail(ILLEGAL_VALUE, "Tensor type unknown to einops <class 'tuple'>")
    if not is_tensor(tensor):
        raise Unknowable("not a tensor")
    return tensor


def _shape_text(shape) -> str:
    return "torch.Size(" + S.size_text(shape) + ")"


def _dict_text(d: dict) -> str:
    return "{" + ", ".join(f"{k!r}: {v!r}" if isinstance(v, str) else f"{k!r}: {S.dim_text(v)}"
                           for k, v in d.items()) + "}"


def _fail(ctx, e: _EinopsError, prefix: str = ""):
    code = SHAPE_MISMATCH if e.message.startswith(("Shape mismatch", "Wrong shape")) else ILLEGAL_VALUE
    ctx.fail(code, " ".join((prefix + " " + e.message).split()), static=e.static)


def _prefixed(prefix: str, message: str) -> str:
    """einops' own shape checks get its context; torch's errors (stack, amin, ...) do not."""
    if prefix and message.startswith("Shape mismatch"):
        return " ".join((prefix + " " + message).split())
    return message


def _checked(ctx, prefix: str, fn, *args):
    """fn(*args) with einops' failures as diagnostics; `prefix` is the context einops adds
    to its own errors (not to ValueError & co., which it lets through unchanged). A shape
    condition that only may fail keeps einops' wording too."""
    sub = OpContext(op_name=ctx.op_name, checker=ctx.checker, call_hook=ctx.call_hook)
    try:
        out = fn(sub, *args)
    except _EinopsError as e:
        _fail(ctx, e, prefix if e.kind == "EinopsError" else "")
    except ShapeError as e:
        raise ShapeError(e.code, _prefixed(prefix, e.message), e.repair, e.core, e.static) from None
    for w in sub.warnings:
        w.message = _prefixed(prefix, w.message)
        ctx.warnings.append(w)
    ctx.assumed.extend(sub.assumed)
    return out


def _transform(ctx, tensor, pattern, reduction, axes_lengths, op_label):
    if not isinstance(pattern, str):
        raise Unknowable("pattern is not a known string")
    operation, op_text = _operation(reduction)
    try:
        x = _input(ctx, tensor)
    except Unknowable:
        # Nothing known of the input: a pattern that einops refuses for every rank still
        # fails (its rank-independent checks run); otherwise no verdict.
        _pattern_check(ctx, pattern, operation, op_text, axes_lengths)
        raise
    shape = x.shape
    prefix = (f'Error while processing {op_label if op_text is None else op_text}-reduction pattern "{pattern}". '
              # einops prints the stacked tensor's shape when given a list
              + f"Input tensor shape: {_shape_text(shape) if shape is not None else '?'}. "
              + f"Additional info: {_dict_text(axes_lengths)}.")

    def run(sub):
        try:
            rec = recipe(pattern, operation, op_text or "?", tuple(axes_lengths), None if shape is None else len(shape))
        except _EinopsError:
            if op_text is None:
                raise Unknowable("a pattern error that depends on an unknown reduction") from None
            raise
        if shape is None:
            raise Unknowable("unknown rank")
        return apply(sub, rec, x, operation, axes_lengths, op_text)

    out = _checked(ctx, prefix, run)
    return TensorValue(out.shape, out.dtype)


def _pattern_check(ctx, pattern, operation, op_text, axes_lengths):
    if op_text is None:
        return
    try:
        recipe(pattern, operation, op_text, tuple(axes_lengths), None)
    except _EinopsError as e:
        prefix = (f'Error while processing {op_text}-reduction pattern "{pattern}". Input tensor shape: ?. '
                  f"Additional info: {_dict_text(axes_lengths)}.")
        _fail(ctx, e, prefix if e.kind == "EinopsError" else "")


@op("einops.rearrange", "einops.einops.rearrange")
def rearrange(ctx, tensor, pattern, **axes_lengths):
    return _transform(ctx, tensor, pattern, "rearrange", axes_lengths, "rearrange")


@op("einops.repeat", "einops.einops.repeat")
def repeat(ctx, tensor, pattern, **axes_lengths):
    return _transform(ctx, tensor, pattern, "repeat", axes_lengths, "repeat")


@op("einops.reduce", "einops.einops.reduce")
def reduce(ctx, tensor, pattern, reduction, **axes_lengths):
    return _transform(ctx, tensor, pattern, reduction, axes_lengths, "<callable>")


# =========================================================================================
# parse_shape
# =========================================================================================

@op("einops.parse_shape", "einops.einops.parse_shape")
def parse_shape(ctx, x, pattern):
    if not isinstance(pattern, str):
        raise Unknowable("pattern is not a known string")
    try:
        exp = parse_side(pattern, allow_underscore=True)
    except _EinopsError as e:
        _fail(ctx, e)
    shape = ctx.shape(x)
    where = f"{pattern} {_shape_text(shape)}"
    if exp.has_composed_axes():
        ctx.fail(ILLEGAL_VALUE, f"Can't parse shape with composite axes: {where}")
    comp = exp.composition
    if len(shape) != len(comp):
        if not exp.has_ellipsis:
            ctx.fail(SHAPE_MISMATCH, f"Can't parse shape with different number of dimensions: {where}")
        if len(shape) < len(comp) - 1:
            ctx.fail(SHAPE_MISMATCH, f"Can't parse shape with this number of dimensions: {where}")
    if exp.has_ellipsis:
        i = comp.index(_ELL)
        comp = comp[:i] + [["_"]] * (len(shape) - len(comp) + 1) + comp[i + 1:]
    result = {}
    for axes, length in zip(comp, shape):
        if not axes:
            ctx.require(S.eq(length, 1), SHAPE_MISMATCH, f"Length of axis is not 1: {where}")
            continue
        (axis,) = axes
        if isinstance(axis, _Anon):
            ctx.require(S.eq(length, axis.value), SHAPE_MISMATCH,
                        f"Length of anonymous axis does not match: {where}")
        elif axis != "_":
            result[axis] = length
    return result


# =========================================================================================
# einsum (einops' form: tensors first, spaced axis names, then torch.einsum)
# =========================================================================================

def _einsum_axis(group):
    if len(group) == 0:
        raise _EinopsError("Singleton () axes are not yet supported in einsum.", "NotImplementedError")
    if len(group) > 1:
        raise _EinopsError("Shape rearrangement is not yet supported in einsum.", "NotImplementedError")
    if isinstance(group[0], _Anon):
        raise _EinopsError("Anonymous axes are not yet supported in einsum.", "NotImplementedError")
    return group[0]


@functools.lru_cache(256)
def compact_einsum_pattern(pattern: str):
    """einops' translation to torch's one-letter form; an _EinopsError when it raises."""
    try:
        if "->" not in pattern:
            raise _EinopsError("Einsum pattern must contain '->'.", "ValueError")
        lefts_str, right_str = _split_arrow(pattern)
        lefts = [parse_side(s, allow_underscore=True, allow_duplicates=True) for s in lefts_str.split(",")]
        right = parse_side(right_str, allow_underscore=True)
        letters, mapping, terms = string.ascii_letters, {}, []
        for left in lefts:
            term = ""
            for g in left.composition:
                if g == _ELL:
                    term += "..."
                    continue
                name = _einsum_axis(g)
                if name not in mapping:
                    if len(mapping) >= len(letters):
                        raise _EinopsError("Too many axes in einsum.", "RuntimeError")
                    mapping[name] = letters[len(mapping)]
                term += mapping[name]
            terms.append(term)
        out = ",".join(terms) + "->"
        for g in right.composition:
            if g == _ELL:
                out += "..."
                continue
            name = _einsum_axis(g)
            if name not in mapping:
                raise _EinopsError(f"Unknown axis {name} on right side of einsum {pattern}.")
            out += mapping[name]
        return out
    except _EinopsError as e:
        return e


@op("einops.einsum", "einops.einops.einsum")
def einops_einsum(ctx, *tensors_and_pattern):
    if len(tensors_and_pattern) <= 1:
        ctx.fail(ILLEGAL_VALUE, "`einops.einsum` takes at minimum two arguments: the tensors (at least one), "
                                "followed by the pattern.")
    pattern = tensors_and_pattern[-1]
    if pattern is UNKNOWN:
        raise Unknowable("pattern")
    if not isinstance(pattern, str):
        ctx.fail(ILLEGAL_VALUE, "The last argument passed to `einops.einsum` must be a string, representing "
                                "the einsum pattern.")
    compact = compact_einsum_pattern(pattern)
    if isinstance(compact, _EinopsError):
        _fail(ctx, compact)
    return ctx.call("torch.einsum", compact, *tensors_and_pattern[:-1])


# =========================================================================================
# pack / unpack
# =========================================================================================

@functools.lru_cache(128)
def _pack_pattern(pattern: str, opname: str):
    axes = pattern.split()
    if len(axes) != len(set(axes)):
        return _EinopsError(f'Duplicates in axes names in {opname}(..., "{pattern}")')
    if "*" not in axes:
        return _EinopsError(f'No *-axis in {opname}(..., "{pattern}")')
    for axis in axes:
        if axis != "*" and not _axis_name_reason(axis)[0]:
            return _EinopsError(f'Invalid axis name {axis} in {opname}(..., "{pattern}")')
    before = axes.index("*")
    after = len(axes) - before - 1
    return before, after, before + after


def pack_pattern(ctx, pattern, opname):
    if not isinstance(pattern, str):
        raise Unknowable("pattern is not a known string")
    r = _pack_pattern(pattern, opname)
    if isinstance(r, _EinopsError):
        _fail(ctx, r)
    return r


@op("einops.pack", "einops.packing.pack")
def pack(ctx, tensors, pattern):
    before, after, min_axes = pack_pattern(ctx, pattern, "pack")
    if not isinstance(tensors, (list, tuple)):
        raise Unknowable("not a sequence of tensors")
    if not tensors:
        ctx.fail(ILLEGAL_VALUE, "list index out of range")
    reshaped, packed_shapes = [], []
    for i, t in enumerate(tensors):
        shape = ctx.shape(t)
        if len(shape) < min_axes:
            ctx.fail(SHAPE_MISMATCH, f"packed tensor #{i} (enumeration starts with 0) has shape "
                                     f"{_shape_text(shape)}, while pattern {pattern} assumes at least "
                                     f"{min_axes} axes")
        end = len(shape) - after
        packed_shapes.append(tuple(shape[before:end]))
        reshaped.append(ctx.call("torch.reshape", t, tuple(shape[:before]) + (-1,) + tuple(shape[end:])))
    packed = ctx.call("torch.cat", reshaped, before)
    return TensorValue(packed.shape, packed.dtype), packed_shapes


def _seq_text(v) -> str:
    """packed_shapes as Python prints the list (tuples and lists of ints)."""
    if isinstance(v, tuple):
        inner = ", ".join(_seq_text(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(_seq_text(x) for x in v) + "]"
    return S.dim_text(v)


def _slice_lengths(n, lengths: list):
    """The lengths of the pieces unpack slices off an axis of length n (Python's slicing
    semantics when everything is concrete; plain differences otherwise)."""
    k = lengths.index(-1) if -1 in lengths else None
    pos = [0] * len(lengths) + [n]
    if k is None:
        for i, x in enumerate(lengths[:-1]):
            pos[i + 1] = S.add(pos[i], x)
    else:
        for i in range(k):
            pos[i + 1] = S.add(pos[i], lengths[i])
        for j in range(len(lengths) - 1, k, -1):
            pos[j] = S.sub(pos[j + 1], lengths[j])
    if all(type(p) is int for p in pos):
        return [len(range(n)[pos[i]:pos[i + 1]]) for i in range(len(lengths))], pos
    return [S.sub(pos[i + 1], pos[i]) for i in range(len(lengths))], pos


@op("einops.unpack", "einops.packing.unpack")
def unpack(ctx, tensor, packed_shapes, pattern):
    before, after, _ = pack_pattern(ctx, pattern, "unpack")
    shape = ctx.shape(tensor)
    if len(shape) != before + 1 + after:
        ctx.fail(SHAPE_MISMATCH, f"unpack(..., {pattern}) received input of wrong dim with shape {_shape_text(shape)}")
    if not isinstance(packed_shapes, (list, tuple)) or not all(isinstance(p, (list, tuple)) for p in packed_shapes):
        raise Unknowable("packed shapes")
    for p in packed_shapes:
        for d in p:
            if not (d is UNKNOWN or isinstance(d, S.Expr) or (type(d) is int and d >= -1)):
                raise Unknowable(f"packed shape entry {d!r}")
    lengths = [-1 if any(type(d) is int and d == -1 for d in p) else S.prod(p) for p in packed_shapes]
    if lengths.count(-1) > 1:
        ctx.fail(ILLEGAL_VALUE, f"unpack(..., {pattern}) received more than one -1 in "
                                f"{_seq_text(packed_shapes)} and can't infer dimensions")
    n = shape[before]
    pieces, pos = _slice_lengths(n, lengths)
    # With symbols, pieces are plain differences. Without a -1 that is exact: every piece
    # but the last is what was asked, and the last one's reshape fails exactly when the
    # lengths do not add up. With a -1 it is right only while the split positions ascend
    # (else Python's slicing clamps them, which may even succeed): no verdict then.
    if -1 in lengths and not ctx.decide(S.and_(*[c for c in (S.ge(p, 0) for p in pieces) if c is not UNKNOWN])):
        raise Unknowable("split positions that may not ascend")
    message = (f'Error during unpack(..., "{pattern}"): could not split axis of size {S.dim_text(n)} '
               f"into requested {_seq_text(packed_shapes)}")
    start, end = tuple(shape[:before]), tuple(shape[before + 1:])

    def run(sub):
        out = []
        for piece, p in zip(pieces, packed_shapes):
            sliced = TensorValue(start + (piece,) + end, tensor.dtype)
            out.append(sub.call("torch.reshape", sliced, start + tuple(p) + end))
        return out

    sub = OpContext(op_name=ctx.op_name, checker=ctx.checker, call_hook=ctx.call_hook)
    try:
        out = run(sub)
    except ShapeError as e:
        raise ShapeError(SHAPE_MISMATCH, message, None, e.core) from None
    for w in sub.warnings:
        w.message = message
        ctx.warnings.append(w)
    ctx.assumed.extend(sub.assumed)
    return [TensorValue(t.shape, tensor.dtype) for t in out]


# =========================================================================================
# Layers: einops.layers.torch.Rearrange / Reduce / EinMix
# =========================================================================================

def _layer_repr(name, params: str, axes_lengths: dict) -> str:
    for axis, length in axes_lengths.items():
        params += f", {axis}={S.dim_text(length)}"
    return f"{name}({params})"


@functools.lru_cache(1024)
def _layer_ranks(pattern: str):
    """The ranks a layer prepares recipes for (einops' _prepare_recipes_for_all_dims); any
    other rank is a KeyError in its forward."""
    try:
        left = parse_side(_split_arrow(pattern)[0])
    except _EinopsError as e:
        return e
    n = len(left.composition)
    return tuple(range(n - 1, n + 7)) if left.has_ellipsis else (n,)


def _layer_check(ctx, pattern, operation, op_text, axes_lengths, text):
    """The constructor's check: the recipe for the first rank it accepts."""
    if not isinstance(pattern, str):
        raise Unknowable("pattern is not a known string")
    ranks = _layer_ranks(pattern)
    try:
        if isinstance(ranks, _EinopsError):
            raise ranks
        recipe(pattern, operation, op_text or "?", tuple(axes_lengths), ranks[0])
    except _EinopsError as e:
        if e.kind != "EinopsError":
            _fail(ctx, e)
        if op_text is None:
            raise Unknowable("a pattern error that depends on an unknown reduction") from None
        _fail(ctx, e, f"Error while preparing {text}")


def _layer_apply(ctx, pattern, axes_lengths, operation, op_text, input):
    shape = ctx.shape(input)
    ranks = _layer_ranks(pattern)
    if isinstance(ranks, _EinopsError):
        raise Unknowable("the constructor failed")
    if len(shape) not in ranks:
        expected = f"{ranks[0]}" if len(ranks) == 1 else f">={ranks[0]}"
        ctx.fail(SHAPE_MISMATCH, f"Wrong shape: expected {expected} dims. Received {len(shape)}-dim tensor.")

    def run(sub):
        rec = recipe(pattern, operation, op_text or "?", tuple(axes_lengths), len(shape))
        return apply(sub, rec, input, operation, axes_lengths, op_text, jit=True)

    out = _checked(ctx, "", run)
    return TensorValue(out.shape, out.dtype)


@module("einops.layers.torch.Rearrange")
def Rearrange(ctx, pattern, **axes_lengths):
    _layer_check(ctx, pattern, "rearrange", "rearrange", axes_lengths,
                 _layer_repr("Rearrange", repr(pattern), axes_lengths))
    return {"pattern": pattern, "axes_lengths": dict(axes_lengths)}


@Rearrange.forward
def _rearrange_forward(ctx, m, input):
    return _layer_apply(ctx, m["pattern"], m["axes_lengths"], "rearrange", "rearrange", input)


@module("einops.layers.torch.Reduce")
def Reduce(ctx, pattern, reduction, **axes_lengths):
    operation, op_text = _operation(reduction)
    _layer_check(ctx, pattern, operation, op_text, axes_lengths,
                 _layer_repr("Reduce", f"{pattern!r}, {reduction!r}", axes_lengths))
    return {"pattern": pattern, "reduction": reduction, "axes_lengths": dict(axes_lengths)}


@Reduce.forward
def _reduce_forward(ctx, m, input):
    operation, op_text = _operation(m["reduction"])
    return _layer_apply(ctx, m["pattern"], m["axes_lengths"], operation, op_text, input)


def _einmix_fail(ctx, message):
    ctx.fail(ILLEGAL_VALUE, message)


@functools.lru_cache(256)
def _einmix_reshapes(pattern: str):
    """The Rearrange patterns EinMix puts before and after its einsum (None: not needed)."""
    left_str, right_str = _split_arrow(pattern)
    left, right = parse_side(left_str), parse_side(right_str)

    def names(side):  # einops' `names += group` also spreads the one-character ellipsis
        return " ".join("..." if a == _ELL else a for g in side.composition for a in g)

    # A group's len() is 1 for the ellipsis too (a one-character string), as in einops.
    pre = f"{left_str}-> {names(left)}" if any(len(g) != 1 for g in left.composition) else None
    post = (f"{names(right)} ->{right_str}"
            if any(len(g) != 1 for g in right.composition) or right.has_ellipsis_parenthesized else None)
    left_names = {a for g in left.composition for a in g}
    return pre, post, left_names


@module("einops.layers.torch.EinMix")
def EinMix(ctx, pattern, weight_shape, bias_shape=None, **axes_lengths):
    if not isinstance(pattern, str) or not isinstance(weight_shape, str) or bias_shape is UNKNOWN:
        raise Unknowable("patterns are not known strings")
    try:
        left_str, right_str = _split_arrow(pattern)
        left, right, weight = parse_side(left_str), parse_side(right_str), parse_side(weight_shape)
    except _EinopsError as e:
        _fail(ctx, e)
    extra = right.identifiers - {*left.identifiers, *weight.identifiers}
    if extra:
        _einmix_fail(ctx, f"Unrecognized identifiers on the right side of EinMix {set_text(extra)}")
    if weight.has_ellipsis:
        _einmix_fail(ctx, "Ellipsis is not supported in weight, as its shape should be fully specified")
    if left.has_ellipsis or right.has_ellipsis:
        if not (left.has_ellipsis and right.has_ellipsis):
            _einmix_fail(ctx, f"Ellipsis in EinMix should be on both sides, {pattern}")
        if left.has_ellipsis_parenthesized:
            _einmix_fail(ctx, f"Ellipsis on left side can't be in parenthesis, got {pattern}")
    if any(s.has_non_unitary_anonymous_axes for s in (left, right, weight)):
        _einmix_fail(ctx, "Anonymous axes (numbers) are not allowed in EinMix")
    if "(" in weight_shape or ")" in weight_shape:
        _einmix_fail(ctx, f"Parenthesis is not allowed in weight shape: {weight_shape}")
    pre, post, left_names = _einmix_reshapes(pattern)
    if pre is not None:
        lengths = {k: v for k, v in axes_lengths.items() if k in left_names}
        _layer_check(ctx, pre, "rearrange", "rearrange", lengths, _layer_repr("Rearrange", repr(pre), lengths))
    if post is not None:
        _layer_check(ctx, post, "rearrange", "rearrange", {}, _layer_repr("Rearrange", repr(post), {}))
    for axis in weight.identifiers:
        if axis not in axes_lengths:
            _einmix_fail(ctx, f"Dimension {axis} of weight should be specified")
    unused = set(axes_lengths) - {*left.identifiers, *weight.identifiers}
    if unused:
        _einmix_fail(ctx, f"Axes {set_text(unused)} are not used in pattern")
    redundant = weight.identifiers - {*left.identifiers, *right.identifiers}
    if redundant:
        _einmix_fail(ctx, f"Weight axes {set_text(redundant)} are redundant")
    w_shape = tuple(_length_arg(axes_lengths[a]) for (a,) in weight.composition)
    fan_in = S.prod(axes_lengths[a] for (a,) in weight.composition if a not in right.identifiers)
    if isinstance(fan_in, int) and fan_in == 0:
        _einmix_fail(ctx, "float division by zero")
    bias = None
    if bias_shape is not None:
        if not isinstance(bias_shape, str):
            _einmix_fail(ctx, "bias shape should be string specifying which axes bias depends on")
        try:
            b = parse_side(bias_shape)
        except _EinopsError as e:
            _fail(ctx, e)
        if b.identifiers - right.identifiers:
            _einmix_fail(ctx, f"Bias axes {set_text(b.identifiers - right.identifiers)} not present in output")
        if b.identifiers - set(axes_lengths):
            _einmix_fail(ctx, f"Sizes not provided for bias axes {set_text(b.identifiers - set(axes_lengths))}")
        dims, used = [], False
        for g in right.composition:
            for a in g:  # the ellipsis is a one-character string: iterating it gives itself
                if a == _ELL:
                    if used:
                        _einmix_fail(ctx, "all bias dimensions should go after ellipsis in the output")
                elif a in b.identifiers:
                    dims.append(_length_arg(axes_lengths[a]))
                    used = True
                else:
                    dims.append(1)
        bias = TensorValue(tuple(dims), "float32")
    ids = sorted({*left.identifiers, *right.identifiers, *weight.identifiers} - {_ELL})
    letters = dict(zip(ids, string.ascii_lowercase))
    letters[_ELL] = "..."
    if len(ids) > 26:
        raise Unknowable("more axes than letters")

    def flat(side):
        return "".join(letters[a] for g in side.composition for a in g)

    return {"pattern": pattern, "weight_shape": weight_shape, "bias_shape": bias_shape,
            "axes_lengths": dict(axes_lengths), "weight": TensorValue(w_shape, "float32"), "bias": bias,
            "einsum_pattern": f"{flat(left)},{flat(weight)}->{flat(right)}"}


@EinMix.forward
def _einmix_forward(ctx, m, input):
    pre, post, left_names = _einmix_reshapes(m["pattern"])
    x = input
    if pre is not None:
        lengths = {k: v for k, v in m["axes_lengths"].items() if k in left_names}
        x = _layer_apply(ctx, pre, lengths, "rearrange", "rearrange", x)
    out = ctx.call("torch.einsum", m["einsum_pattern"], x, m["weight"])
    if post is not None:
        out = _layer_apply(ctx, post, {}, "rearrange", "rearrange", out)
    return TensorValue(out.shape, out.dtype)
