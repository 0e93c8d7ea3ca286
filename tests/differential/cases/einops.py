"""Differential cases for einops (analysis/ops/einops.py), on generated patterns.

Patterns are drawn from a seeded generator: elementary axes with sizes, split into groups
(`(h d)`), permuted, with `...`, `1`/`()`, anonymous axes, keyword lengths, new axes for
repeat, every reduction; then mutated into the failures einops reports (a wrong length, a
composition that does not divide, a wrong rank, an axis on one side only, a duplicate, an
unused keyword, two unknowns in one group). Real einops 0.8 decides every case.
"""
from __future__ import annotations

import math
import random

from ..case import Case, T

CASES: list[Case] = []
add = CASES.append

NAMES = ["b", "c", "h", "w", "d", "k"]
REDUCTIONS = ["mean", "sum", "max", "min", "prod", "any", "all"]


def _amax(tensor, axes):  # a callable reduction, f(tensor, reduced_axes)
    return tensor.amax(dim=axes)


def _groups(rng, axes):
    """Split a list of axes into consecutive groups of 1-2 (sometimes 3)."""
    out, i = [], 0
    while i < len(axes):
        n = min(len(axes) - i, rng.choice([1, 1, 1, 2, 2, 3]))
        out.append(axes[i:i + n])
        i += n
    return out


def _side(groups) -> str:
    return " ".join(g[0] if len(g) == 1 else "(" + " ".join(g) + ")" for g in groups)


def _draw(rng, n_axes):
    names = rng.sample(NAMES, n_axes)
    sizes = {n: rng.choice([1, 2, 3, 4]) for n in names}
    return names, sizes


def _shape(groups, sizes):
    shape = []
    for g in groups:
        p = 1
        for a in g:
            p *= sizes[a]
        shape.append(p)
    return tuple(shape)


def _kwargs(rng, groups, sizes):
    """Lengths for enough axes that every group has at most one unknown."""
    kw = {}
    for g in groups:
        for a in g[1:] if rng.random() < 0.8 else g[:-1]:
            kw[a] = sizes[a]
        if len(g) == 1 and rng.random() < 0.15:
            kw[g[0]] = sizes[g[0]]
    return kw


rng = random.Random(20260524)

# -- rearrange: composition / decomposition / permutation, and their failures --------------
for i in range(160):
    names, sizes = _draw(rng, rng.randint(1, 5))
    left = _groups(rng, names)
    right = _groups(rng, rng.sample(names, len(names)))
    kw = _kwargs(rng, left, sizes)
    shape = list(_shape(left, sizes))
    pattern_left, pattern_right = _side(left), _side(right)
    mutation = i % 8
    if mutation == 1 and kw:  # a keyword length that does not fit (non-divisible or unequal)
        k = rng.choice(list(kw))
        kw[k] += rng.choice([1, 2])
    elif mutation == 2:  # one dim too many or too few
        shape = shape + [2] if rng.random() < 0.5 or len(shape) == 1 else shape[:-1]
    elif mutation == 3:  # an input length that is not what the pattern says
        j = rng.randrange(len(shape))
        shape[j] += 1
    elif mutation == 4:  # an axis on the output only
        pattern_right += " z"
    elif mutation == 5 and len(names) > 1:  # an axis dropped from the output
        pattern_right = _side(_groups(rng, rng.sample(names, len(names))[1:]))
    elif mutation == 6:  # a keyword for an axis the pattern does not have
        kw["q"] = 2
    add(Case("einops.rearrange", (T(*shape), f"{pattern_left} -> {pattern_right}"), dict(kw)))

# -- ellipsis ----------------------------------------------------------------------------
for i in range(60):
    names, sizes = _draw(rng, rng.randint(1, 3))
    left = _groups(rng, names)
    kw = _kwargs(rng, left, sizes)
    extra = tuple(rng.choice([2, 3]) for _ in range(rng.randint(0, 2)))
    at = rng.randint(0, len(left))
    left_text = " ".join(p for p in [_side(left[:at]), "...", _side(left[at:])] if p)
    shape = _shape(left[:at], sizes) + extra + _shape(left[at:], sizes)
    right = _groups(rng, rng.sample(names, len(names)))
    where = rng.randint(0, len(right))
    ell = "..." if i % 3 else "(...)"
    right_text = " ".join(p for p in [_side(right[:where]), ell, _side(right[where:])] if p)
    if i % 10 == 7:
        shape = shape[:max(0, len(left) - 1)]  # fewer dims than the named axes
    if i % 10 == 9:
        right_text = _side(right)  # `...` dropped on the right: one side only
    op = "einops.rearrange" if i % 4 else "einops.reduce"
    args = (T(*shape), f"{left_text} -> {right_text}") + (("sum",) if op == "einops.reduce" else ())
    add(Case(op, args, dict(kw)))
add(Case("einops.rearrange", (T(2, 3), "(...) b -> b ...")))  # ellipsis in parentheses on the left
add(Case("einops.rearrange", (T(2, 3), "b c -> ... b c")))    # ellipsis on the right only
add(Case("einops.rearrange", (T(2, 3), "b .. c -> b c")))

# -- anonymous axes: 1, (), numbers --------------------------------------------------------
for shape, pattern in [((2, 1, 3), "b 1 c -> b c"), ((2, 3), "b c -> b 1 c 1"), ((2, 3), "b c -> b () c"),
                       ((2, 1, 3), "b () c -> c b"), ((2, 2, 3), "b 1 c -> b c"), ((2, 3), "b c -> (b 1) c"),
                       ((2, 6), "b (c 2) -> b c"), ((2, 3), "b c -> b c 2"), ((2, 1), "b 1 -> 1 b 1"),
                       ((1,), "1 -> "), ((), " -> 1 1"), ((2, 3), "b c -> (1 b) (c 1)"),
                       ((2, 3), "b 0 -> b"), ((2, 3), "b c -> b c 01")]:
    add(Case("einops.rearrange", (T(*shape), pattern)))

# -- repeat: new axes from keywords or numbers, composed with old ones ---------------------
for i in range(80):
    names, sizes = _draw(rng, rng.randint(1, 3))
    left = _groups(rng, names)
    kw = _kwargs(rng, left, sizes)
    new = [n for n in NAMES if n not in names][:rng.randint(1, 2)]
    for n in new:
        kw[n] = rng.choice([0, 1, 2, 3]) if i % 9 else 2
    anon = [str(rng.choice([2, 3]))] if i % 3 == 0 else []
    order = rng.sample(names + new + anon, len(names) + len(new) + len(anon))
    right = _groups(rng, order)
    shape = _shape(left, sizes)
    mutation = i % 7
    if mutation == 1:
        del kw[new[0]]  # a new axis without a size
    elif mutation == 2 and len(names) > 1:
        right = _groups(rng, [a for a in order if a != names[0]])  # an input axis dropped
    elif mutation == 3:
        shape = shape + (2,)
    elif mutation == 4 and any(a in names for a in kw):
        kw[next(a for a in kw if a in names)] += 1  # a length the input does not have
    add(Case("einops.repeat", (T(*shape), f"{_side(left)} -> {_side(right)}"), dict(kw)))
add(Case("einops.repeat", (T(2, 3), "h w -> h w 2")))
add(Case("einops.repeat", (T(2, 3), "h w -> (2 h) (w 3)")))
add(Case("einops.repeat", (T(2, 3), "h 3 -> h 3")))  # anonymous input axes never reach the right

# -- reduce: every reduction, reduced compositions, anonymous reduced axes -----------------
for i in range(150):
    names, sizes = _draw(rng, rng.randint(1, 4))
    left = _groups(rng, names)
    kw = _kwargs(rng, left, sizes)
    kept = [a for a in names if rng.random() < 0.5]
    right = _groups(rng, rng.sample(kept, len(kept)))
    reduction = REDUCTIONS[i % len(REDUCTIONS)]
    dtype = "float32"
    if i % 11 == 3:
        dtype = "int64"   # mean of integers: einops refuses
    elif i % 11 == 5:
        dtype = "bool"
    shape = list(_shape(left, sizes))
    if i % 13 == 4:
        shape[0] = 0  # an empty reduced axis: amin/amax refuse it
    right_text = _side(right)
    if i % 17 == 6:
        right_text += " z"  # an axis on the right only
    if i % 19 == 8:
        right_text += " 1"
    x = T(*shape, dtype=dtype, high=3) if dtype != "float32" else T(*shape)
    add(Case("einops.reduce", (x, f"{_side(left)} -> {right_text}", reduction), dict(kw)))
for reduction in REDUCTIONS + ["median", _amax]:
    add(Case("einops.reduce", (T(2, 6, 4), "b (c 2) w -> b c", reduction)))
    add(Case("einops.reduce", (T(2, 6, 4), "b c w -> b c w", reduction)))
add(Case("einops.reduce", (T(2, 6, 4), "b c w -> b", _amax)))
add(Case("einops.reduce", (T(2, 6, 4), "b c w -> b z", _amax)))
add(Case("einops.reduce", (T(2, 3, 4), "b c w -> b c", "mean"), {}))
add(Case("einops.reduce", (T(2, 3, 4), "b c w -> b c"), {"reduction": "max"}))

# -- a list of tensors is stacked on a new leading axis ------------------------------------
for shapes, pattern in [([(2, 3), (2, 3)], "n h w -> h (n w)"), ([(2, 3)] * 3, "n h w -> (n h) w"),
                        ([(2, 3), (2, 4)], "n h w -> h (n w)"), ([(2, 3), (2, 3)], "h w -> h w"),
                        ([(4,), (4,)], "n (a b) -> a n b")]:
    add(Case("einops.rearrange", ([T(*s) for s in shapes], pattern), {"a": 2} if "(a b)" in pattern else {}))
add(Case("einops.reduce", ([T(2, 3), T(2, 3)], "n h w -> h w", "mean")))
add(Case("einops.rearrange", ([], "n h -> h n")))
add(Case("einops.rearrange", ((T(2, 3), T(2, 3)), "n h w -> h n w")))  # a tuple is not stacked
add(Case("einops.repeat", ((T(2, 3),), "n h w -> h n w r"), {"r": 2}))

# -- pattern syntax errors -----------------------------------------------------------------
for pattern in ["b c", "b c -> c -> b", "b (c -> b c", "b c) -> b c", "b ((c)) -> b c", "b c -> b c!",
                "b b -> b", "b _c -> b _c", "b c -> b c c", "b (c d) (e f) -> b c d e f", "b c -> b c 0"]:
    add(Case("einops.rearrange", (T(2, 3) if "(c d)" not in pattern else T(2, 4, 4), pattern)))
add(Case("einops.reduce", (T(2, 3), "b c -> b", "median")))

# -- einsum: spaced axis names, `...`, traces, and what einops refuses --------------------
for shapes, pattern in [([(2, 3), (3, 4)], "i j, j k -> i k"), ([(2, 3, 5), (5, 4)], "batch seq d, d out -> batch seq out"),
                        ([(3, 3)], "i i -> i"), ([(3, 3)], "i i ->"), ([(2, 3, 4), (4, 5)], "... d, d o -> ... o"),
                        ([(2, 3), (4, 4)], "i j, j k -> i k"), ([(2, 3)], "i j -> i k"), ([(2, 3)], "i j -> (i j)"),
                        ([(2, 3)], "i j -> i j 1"), ([(2, 3)], "i 3 -> i"), ([(2, 3)], "i j"),
                        ([(2, 3)], "i j -> i i"), ([(2, 3), (3,)], "i j, j -> i"), ([(2, 3)], "i j k -> i")]:
    add(Case("einops.einsum", tuple(T(*s) for s in shapes) + (pattern,)))
add(Case("einops.einsum", (T(2, 3),)))
for i in range(40):  # generated: named axes shared between operands, contracted or kept
    names = rng.sample(["batch", "seq", "d", "heads", "k", "out"], rng.randint(2, 5))
    sizes = {n: rng.choice([1, 2, 3]) for n in names}
    operands = [rng.sample(names, rng.randint(1, len(names))) for _ in range(rng.randint(1, 3))]
    used = sorted({a for o in operands for a in o})
    right = rng.sample(used, rng.randint(0, len(used)))
    shapes = [[sizes[a] for a in o] for o in operands]
    ell = i % 6 == 5
    if i % 5 == 1:
        right.append("zz")  # an axis no operand has
    elif i % 5 == 2 and len(operands) > 1 and operands[1]:
        shapes[1][0] += 2  # a shared axis with two sizes
    elif i % 5 == 3:
        shapes[0].append(2)  # one dim more than named
    lefts = [("... " if ell else "") + " ".join(o) for o in operands]
    text = ", ".join(lefts) + " -> " + ("... " if ell else "") + " ".join(right)
    tensors = tuple(T(*(([2] if ell else []) + s)) for s in shapes)
    add(Case("einops.einsum", tensors + (text,)))

# -- pack / unpack -------------------------------------------------------------------------
for shapes, pattern in [([(2, 3, 5), (2, 3, 7, 5), (2, 3, 7, 9, 5)], "i j * k"), ([(2, 3), (2, 4)], "b *"),
                        ([(2, 3), (3, 4)], "b *"), ([(2,), (2, 3)], "b * c"), ([(2, 3), (2, 3)], "* c"),
                        ([(2, 3)], "b c"), ([(2, 3)], "b * b"), ([(0, 3), (0, 4)], "b *"), ([(2, 0)], "* c"),
                        ([(2, 3)], "b * _x")]:
    add(Case("einops.pack", ([T(*s) for s in shapes], pattern)))
for shape, packed, pattern in [((2, 10), [(3,), (7,)], "b *"), ((2, 10), [(3,), (-1,)], "b *"),
                               ((2, 10), [(-1,), (2, 2)], "b *"), ((2, 10), [(3,), (8,)], "b *"),
                               ((2, 10), [(-1,), (-1,)], "b *"), ((2, 10, 5), [(), (3, 3)], "b * c"),
                               ((2, 10), [(2, -1), (4,)], "b *"), ((2, 10), [(3, -1), (4,)], "b *"),
                               ((2, 10), [(12,), (-1,)], "b *"), ((2, 10), [(2,), (3,)], "b *"),
                               ((2, 10), [(3,), (7,)], "b * c"), ((2, 10), [(10,)], "b *"),
                               ((10,), [(4,), (-1,), (3,)], "*"), ((10,), [(4,), (-1,), (7,)], "*")]:
    add(Case("einops.unpack", (T(*shape), packed, pattern)))

for i in range(40):  # generated: axes before and after `*`, inputs of several ranks, round trips
    before, after = rng.randint(0, 2), rng.randint(0, 1)
    lead = tuple(rng.choice([1, 2, 3]) for _ in range(before))
    tail = tuple(rng.choice([2, 4]) for _ in range(after))
    packed = [tuple(rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))) for _ in range(rng.randint(1, 3))]
    pattern = " ".join(["a", "b"][:before] + ["*"] + ["z"][:after])
    shapes = [lead + p + tail for p in packed]
    if i % 5 == 1:
        shapes[-1] = shapes[-1][:max(0, before + after - 1)]  # too few dims for the pattern
    elif i % 5 == 2 and before:
        shapes[0] = (lead[0] + 1,) + shapes[0][1:]  # a leading axis that does not match
    add(Case("einops.pack", ([T(*s) for s in shapes], pattern)))
    total = sum(1 if not p else math.prod(p) for p in packed)
    asked = [list(p) for p in packed]
    if i % 4 == 1:
        asked[rng.randrange(len(asked))].append(-1) if i % 8 == 1 else asked[0].append(2)
    elif i % 4 == 3:
        total += 1  # an axis longer than the pieces
    add(Case("einops.unpack", (T(*(lead + (total,) + tail)), [tuple(p) for p in asked], pattern)))

# -- parse_shape ---------------------------------------------------------------------------
for shape, pattern in [((2, 3, 4), "b c w"), ((2, 3, 4), "b _ w"), ((2, 3, 4), "b ..."), ((2, 3, 4), "... w"),
                       ((2, 1, 4), "b 1 w"), ((2, 3, 4), "b 1 w"), ((2, 3, 4), "b 3 w"), ((2, 3, 4), "b 2 w"),
                       ((2, 3, 4), "b (c w)"), ((2, 3, 4), "b c"), ((2,), "b c ..."), ((2, 3, 4), "b _ _"),
                       ((2, 3), "b c d ...")]:
    add(Case("einops.parse_shape", (T(*shape), pattern)))

# -- layers --------------------------------------------------------------------------------
LAYER = "einops.layers.torch."
for shape, pattern, kw in [((2, 3, 4, 4), "b c h w -> b (c h w)", {}), ((2, 3, 8, 8), "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", {"p1": 4, "p2": 4}),
                           ((2, 3, 8, 6), "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", {"p1": 4, "p2": 4}),
                           ((2, 3, 4), "b c h w -> b (c h w)", {}), ((2, 3, 4, 5), "b ... -> b (...)", {}),
                           ((2,), "b c ... -> b (...) c", {}), ((2, 16, 12), "b n (h d) -> b h n d", {"h": 4}),
                           ((2, 16, 12), "b n (h d) -> b h n d", {"h": 5}), ((2, 3), "b c -> b c d", {}),
                           ((2, 3), "b c -> b c", {"z": 1})]:
    add(Case(LAYER + "Rearrange", (T(*shape),), ctor=(pattern,), ctor_kwargs=dict(kw)))
for shape, pattern, red, kw in [((2, 3, 4, 4), "b c h w -> b c", "mean", {}), ((2, 3, 4, 4), "b c (h 2) (w 2) -> b c h w", "max", {}),
                                ((2, 3, 5, 4), "b c (h h2) (w w2) -> b c h w", "max", {"h2": 2, "w2": 2}),
                                ((2, 3, 4), "b c h -> b c", "any", {}), ((2, 3, 4), "b c h -> b c", "prod", {}),
                                ((2, 3, 4), "b c h -> b c", "min", {}), ((2, 3, 4), "b c h -> b c", "sum", {}),
                                ((2, 3, 4), "b c h -> b c", "all", {}), ((2, 3, 4), "b c h -> b c", "median", {}),
                                ((2, 3, 4), "b c h -> b c h", "all", {}), ((2, 3, 4), "b c h -> b c", _amax, {}),
                                ((2, 3), "b c h -> b c", "sum", {}), ((2, 3, 4), "b c h -> b z", "sum", {})]:
    add(Case(LAYER + "Reduce", (T(*shape),), ctor=(pattern, red), ctor_kwargs=dict(kw)))
for shape, ctor, kw in [((2, 5, 8), ("b t c -> b t c_out", "c c_out", "c_out"), {"c": 8, "c_out": 16}),
                        ((2, 5, 8), ("b t c -> b t c_out", "c c_out", None), {"c": 8, "c_out": 16}),
                        ((2, 5, 7), ("b t c -> b t c_out", "c c_out", "c_out"), {"c": 8, "c_out": 16}),
                        ((2, 3, 8, 8), ("b c (h p1) (w p2) -> b (h w) d", "c p1 p2 d", "d"), {"p1": 4, "p2": 4, "c": 3, "d": 10}),
                        ((2, 3, 8, 8), ("b c (h p1) (w p2) -> b (h w) d", "c p1 p2 d", "d"), {"p1": 4, "p2": 4, "c": 4, "d": 10}),
                        ((2, 5, 8), ("b t c -> b t (h d)", "c h d", "h d"), {"c": 8, "h": 2, "d": 3}),
                        ((2, 4, 5, 8), ("... c -> ... c_out", "c c_out", "c_out"), {"c": 8, "c_out": 6}),
                        ((2, 5, 8), ("b t c -> b t c_out", "c c_out", None), {"c": 8}),
                        ((2, 5, 8), ("b t c -> b t c_out", "c c_out", None), {"c": 8, "c_out": 2, "z": 3}),
                        ((2, 5, 8), ("b t c -> b t c_out", "c c_out z", None), {"c": 8, "c_out": 2, "z": 3}),
                        ((2, 5, 8), ("b t c -> b t c_out q", "c c_out", None), {"c": 8, "c_out": 2}),
                        ((2, 5, 8), ("b t c -> b t c_out", "c (c_out)", None), {"c": 8, "c_out": 2}),
                        ((2, 5, 8), ("b t c -> b t c_out", "c c_out", "t"), {"c": 8, "c_out": 2}),
                        ((2, 5, 8), ("b t c -> ... c_out", "c c_out", None), {"c": 8, "c_out": 2})]:
    add(Case(LAYER + "EinMix", (T(*shape),), ctor=ctor, ctor_kwargs=dict(kw)))
