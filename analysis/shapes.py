"""Dimensions, integer expressions over named symbols, and shape printing.

A dim is a plain `int` (the common, fast case), an `Expr` (a polynomial over symbols and
irreducible floor-division / modulo atoms, kept in a canonical form so equal dims compare
and print equally), or `UNKNOWN`. Conditions over dims are `Cond` trees; comparisons of
plain ints fold to Python bools immediately.
"""
from __future__ import annotations

from typing import Iterable, Union

from .limits import MAX_EXPR_SIZE, MAX_INT_BITS


class _Unknown:
    """The top value: nothing is known. A singleton."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    def __reduce__(self):
        return (_Unknown, ())

    def __bool__(self):
        # `if ceil_mode:` in a spec with an unknown flag must not pick a branch: it makes
        # the result Unknown (ops.spec.Unknowable), never a claim.
        from .ops.spec import Unknowable
        raise Unknowable("the truth of an unknown value")


UNKNOWN = _Unknown()


# ---------------------------------------------------------------------------------------
# Atoms and polynomials
# ---------------------------------------------------------------------------------------

class Atom:
    """A factor of a monomial: a symbol, or an irreducible floor-division / modulo."""

    __slots__ = ("kind", "args", "_hash", "size", "_text")

    def __init__(self, kind: str, args: tuple):
        self.kind = kind  # "sym" | "div" | "mod" | "max"
        self.args = args
        self._hash = hash((kind, args))
        # Nodes of the tree it prints as (nested atoms count in full): see Expr.make.
        self.size = 1 + sum(a.size if isinstance(a, Expr) else 1 for a in args)
        self._text = None  # printed once: sorting prints children again at every level

    def __eq__(self, other):
        return isinstance(other, Atom) and self.kind == other.kind and self.args == other.args

    def __hash__(self):
        return self._hash

    def sort_key(self):
        return (self.kind != "sym", str(self))

    def __str__(self) -> str:
        if self._text is None:
            self._text = self._print()
        return self._text

    def _print(self) -> str:
        if self.kind == "sym":
            return "?" if self.args[0].startswith(PIECE) else self.args[0]
        a, b = self.args
        if self.kind == "max":
            return f"max({a}, {b})"
        op = "//" if self.kind == "div" else "%"
        return f"{_paren(a)}{op}{_paren(b, right=True)}"


def _paren(e, right: bool = False) -> str:
    """Parentheses where Python's precedence needs them: a sum, a negative term, and on the
    right of // or % also a product (`a//(2*b)`, not `a//2*b`)."""
    s = str(e)
    if isinstance(e, Expr) and (len(e.terms) > 1 or any(c < 0 for c in e.terms.values())):
        return f"({s})"
    if right and isinstance(e, Expr):
        (mono, c), = e.terms.items()
        if len(mono) > 1 or (mono and c != 1):
            return f"({s})"
    return s


class Expr:
    """A polynomial: {monomial (sorted tuple of atoms): integer coefficient}.

    Never holds a pure constant: constructors return a plain int instead.
    """

    __slots__ = ("terms", "_hash", "size", "_text", "_symbols")

    def __init__(self, terms: dict):
        self.terms = terms
        # Computed once: nested dims share sub-expressions (a DAG), which a tree walk at
        # every use would revisit exponentially often.
        self._text = None
        self._symbols = None
        self._hash = hash(frozenset(terms.items()))
        self.size = sum(1 + sum(a.size for a in m) for m in terms)

    # -- construction ---------------------------------------------------------------
    @staticmethod
    def make(terms: dict) -> "Dim":
        terms = {m: c for m, c in terms.items() if c != 0}
        if not terms:
            return 0
        if len(terms) == 1 and () in terms:
            return terms[()]
        e = Expr(terms)
        # A dim built by hostile code (`n = n * n` forty times, nested `n // 2 + n`) would
        # print and solve in exponential time: past the cap it is Unknown (limits.py).
        if e.size > MAX_EXPR_SIZE or any(c.bit_length() > MAX_INT_BITS for c in terms.values()):
            return UNKNOWN
        return e

    def __eq__(self, other):
        return isinstance(other, Expr) and self.terms == other.terms

    def __hash__(self):
        return self._hash

    def constant(self) -> int:
        return self.terms.get((), 0)

    def symbols(self) -> set[str]:
        if self._symbols is None:
            out: set[str] = set()
            for mono in self.terms:
                for atom in mono:
                    if atom.kind == "sym":
                        out.add(atom.args[0])
                    else:
                        for a in atom.args:
                            if isinstance(a, Expr):
                                out |= a.symbols()
            self._symbols = frozenset(out)
        return set(self._symbols)

    def __str__(self) -> str:
        if self._text is None:
            self._text = self._print()
        return self._text

    def _print(self) -> str:
        parts = []
        monos = sorted(self.terms, key=lambda m: (m == (), [a.sort_key() for a in m]))
        for mono in monos:
            c = self.terms[mono]
            # (a leading minus binds tighter than //: `-((-d)//16)`, not `-(-d)//16`)
            body = "*".join(_atom_text(a, len(mono) > 1 or abs(c) != 1 or (c < 0 and not parts)) for a in mono)
            if not body:
                text = str(abs(c))
            elif abs(c) == 1:
                text = body
            else:
                text = f"{abs(c)}*{body}"
            if not parts:
                parts.append(text if c > 0 else f"-{text}")
            else:
                parts.append(f" + {text}" if c > 0 else f" - {text}")
        return "".join(parts)

    __repr__ = __str__

    # -- arithmetic (Python operators so op specs read like math) ----------------------
    def __add__(self, o):
        return add(self, o)

    __radd__ = __add__

    def __sub__(self, o):
        return sub(self, o)

    def __rsub__(self, o):
        return sub(o, self)

    def __mul__(self, o):
        return mul(self, o)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        return floordiv(self, o)

    def __rfloordiv__(self, o):
        return floordiv(o, self)

    def __mod__(self, o):
        return mod(self, o)

    def __rmod__(self, o):
        return mod(o, self)

    def __neg__(self):
        return mul(self, -1)


def _atom_text(atom: Atom, in_product: bool) -> str:
    s = str(atom)
    return f"({s})" if in_product and atom.kind in ("div", "mod") else s


Dim = Union[int, Expr, _Unknown]


def sym(name: str) -> Expr:
    return Expr({(Atom("sym", (name,)),): 1})


def symbol_name(d) -> str | None:
    """The name of a dim that is one symbol alone (`heads`, not `2*heads`), else None."""
    if not isinstance(d, Expr) or len(d.terms) != 1:
        return None
    (atoms, coeff), = d.terms.items()
    if coeff != 1 or len(atoms) != 1 or atoms[0].kind != "sym":
        return None
    return atoms[0].args[0]


PIECE = "_piece"  # the size of one piece of a chunk of unknown count (spec.SomeTensors.whole)


def piece_symbol(d: int, n) -> Expr:
    """The size of one of the pieces a dim of size `n` at `d` was cut into: it differs by
    piece (the last may be shorter), so it prints as `?` and decides nothing (dispatch)."""
    return sym(f"{PIECE}{d}:{n}")


def mentions_piece(c) -> bool:
    return any(s.startswith(PIECE) for s in c.symbols())


def _poly(x) -> dict:
    if isinstance(x, Expr):
        return x.terms
    return {(): x} if x else {}


def add(a: Dim, b: Dim) -> Dim:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    terms = dict(_poly(a))
    for m, c in _poly(b).items():
        terms[m] = terms.get(m, 0) + c
    return Expr.make(terms)


def sub(a: Dim, b: Dim) -> Dim:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    return add(a, mul(b, -1))


def mul(a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:  # checked before it is built
            return UNKNOWN
        return a * b
    if a is UNKNOWN or b is UNKNOWN:
        if a == 0 or b == 0:
            return 0
        return UNKNOWN
    if len(_poly(a)) * len(_poly(b)) > MAX_EXPR_SIZE:  # the product's terms, before building it
        return UNKNOWN
    terms: dict = {}
    for m1, c1 in _poly(a).items():
        for m2, c2 in _poly(b).items():
            m = tuple(sorted(m1 + m2, key=Atom.sort_key))
            terms[m] = terms.get(m, 0) + c1 * c2
    return Expr.make(terms)


def floordiv(a: Dim, b: Dim) -> Dim:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            return UNKNOWN
        return a // b
    if b == 1:
        return a
    nested = _nested_div(a)
    if nested is not None and _positive(b):
        # floor((floor(x/m) + k) / b) = floor((x + k*m) / (m*b)) for m, b >= 1: two stride-2
        # convs are `(H + 3)//4`, not `((H + 1)//2 + 1)//2`
        x, m, k = nested
        return floordiv(add(x, mul(k, m)), mul(m, b))
    if isinstance(b, int) and b > 0:
        # Split a = b*q + r with r the part whose coefficients are not multiples of b.
        q, r = {}, {}
        for m, c in _poly(a).items():
            if m == ():
                q[m], r[m] = c // b, c % b
            elif c % b == 0:
                q[m] = c // b
            else:
                r[m] = c
        rest = Expr.make(r)
        if isinstance(rest, int):  # 0 <= rest < b: exact
            return Expr.make(q)
        # floor((b*q + r) / b) = q + floor(r / b), q being an int: `(H - 16)//16 + 1` is
        # `H//16`, and `(H - 1)//2 + 1` (a stride-2 conv) is `(H + 1)//2`
        return add(Expr.make(q), Expr.make({(Atom("div", (rest, b)),): 1}))
    if isinstance(b, Expr):
        quotient = _exact_divide(a, b)
        if quotient is not None:
            return quotient
        reduced = _cancel_common(a, b)
        if reduced is not None:
            return floordiv(*reduced)
        split = _split_multiples(a, b)
        if split is not None:  # (the same for a symbol: `(H - p)//p + 1` is `H//p`)
            return add(split[0], floordiv(split[1], b))
    return Expr.make({(Atom("div", (a, b)),): 1})


def _positive(d) -> bool:
    """An int >= 1, or a single monomial of symbols (each >= 1) with a positive coefficient."""
    if isinstance(d, int):
        return d >= 1
    if not isinstance(d, Expr) or len(d.terms) != 1:
        return False
    (m, c), = d.terms.items()
    return c >= 1 and all(atom.kind == "sym" for atom in m)


def _nested_div(a):
    """(x, m, k) when a is `x//m + k` (k an int, m positive), else None."""
    if not isinstance(a, Expr):
        return None
    k, found = 0, None
    for m, c in a.terms.items():
        if m == ():
            k = c
        elif c == 1 and len(m) == 1 and m[0].kind == "div" and found is None:
            found = m[0].args
        else:
            return None
    if found is None or not isinstance(k, int) or not _positive(found[1]):
        return None
    return found[0], found[1], k


def _split_multiples(a: Dim, b: Expr):
    """(q, r) with a = b*q + r, q the terms of a that b (a single monomial) divides, when
    there are some and some others; else None."""
    if len(b.terms) != 1:
        return None
    q, r = {}, {}
    for m, c in _poly(a).items():
        part = _exact_divide(Expr.make({m: c}), b) if m else None
        if part is None:
            r[m] = c
        else:
            for qm, qc in _poly(part).items():
                q[qm] = q.get(qm, 0) + qc
    if not q or not r:
        return None
    return Expr.make(q), Expr.make(r)


def _common_factor(a: Dim, b: Expr):
    """(symbols, coefficient) of the positive factor g every term of a and b shares
    (symbols, which are >= 1, and the gcd of the coefficients), or None when it is 1."""
    import math

    terms = list(_poly(a).items()) + list(b.terms.items())
    if any(c == 0 for _, c in terms):
        return None
    common = None
    coef = 0
    for mono, c in terms:
        syms = [x for x in mono if x.kind == "sym"]
        if common is None:
            common = syms
        else:
            rest = list(syms)
            common = [x for x in common if x in rest and not rest.remove(x)]
        coef = math.gcd(coef, abs(c))
    if not common and coef <= 1:
        return None
    return tuple(common), coef


def _cancel_common(a: Dim, b: Expr):
    """(a/g, b/g) for the common factor g (_common_factor), or None: floor(g*x / (g*y)) =
    floor(x / y) for g > 0, so `3*b*n*dim // (3*b*n*heads)` is `dim//heads`."""
    found = _common_factor(a, b)
    if found is None:
        return None
    common, coef = found

    def divide(poly):
        out = {}
        for mono, c in poly.items():
            rest = list(mono)
            for x in common:
                rest.remove(x)
            out[tuple(rest)] = c // coef
        return Expr.make(out)

    return divide(_poly(a)), divide(b.terms)


def _exact_divide(a: Dim, b: Expr):
    """a / b when b is a single monomial dividing every term of a, else None."""
    if len(b.terms) != 1:
        return a if a == b else None
    (bm, bc), = b.terms.items()
    out = {}
    for m, c in _poly(a).items():
        rest = list(m)
        for atom in bm:
            if atom in rest:
                rest.remove(atom)
            else:
                return None
        if c % bc:
            return None
        out[tuple(rest)] = c // bc
    return Expr.make(out)


def mod(a: Dim, b: Dim) -> Dim:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            return UNKNOWN
        return a % b
    if isinstance(b, int) and b > 0:
        if all(c % b == 0 for c in _poly(a).values()):
            return 0
    elif isinstance(b, Expr):
        if _exact_divide(a, b) is not None:
            return 0
        reduced = _cancel_common(a, b)
        if reduced is not None:
            # g*x mod g*y = g*(x mod y) for g > 0: `B*S*dim % (B*S*heads)`, a view's check,
            # is `B*S*(dim % heads)`, which the solver decides where the product times out
            common, coef = _common_factor(a, b)
            return mul(Expr.make({common: coef}), mod(*reduced))
    return Expr.make({(Atom("mod", (a, b)),): 1})


def dmax(a: Dim, b: Dim) -> Dim:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    d = sub(a, b)
    if isinstance(d, int):
        return a if d >= 0 else b
    for m, other in ((a, b), (b, a)):  # max(max(x, y), y) is max(x, y)
        if other in _max_args(m):
            return m
    x, y = sorted((a, b), key=str)
    return Expr.make({(Atom("max", (x, y)),): 1})


def _max_args(e) -> tuple:
    """(x, y) when `e` is max(x, y), else ()."""
    if isinstance(e, Expr) and len(e.terms) == 1:
        (atoms, coeff), = e.terms.items()
        if coeff == 1 and len(atoms) == 1 and atoms[0].kind == "max":
            return atoms[0].args
    return ()


def cdiv(a: Dim, b: Dim) -> Dim:
    """Ceiling division, as -(-a // b)."""
    return sub(0, floordiv(sub(0, a), b))


def prod(dims: Iterable[Dim]) -> Dim:
    out: Dim = 1
    for d in dims:
        out = mul(out, d)
    return out


def is_known(d) -> bool:
    return d is not UNKNOWN


def free_symbols(d) -> set[str]:
    return d.symbols() if isinstance(d, Expr) else set()


def substitute(d: Dim, mapping: dict, memo: dict | None = None) -> Dim:
    """Replace symbols by dims (ints, exprs or UNKNOWN). `memo` holds the atoms already
    replaced: a shared sub-expression is replaced once, not once per path to it."""
    if not isinstance(d, Expr):
        return d
    if memo is None:
        memo = {}
    out: Dim = 0
    for mono, c in d.terms.items():
        term: Dim = c
        for atom in mono:
            term = mul(term, _subst_atom(atom, mapping, memo))
        out = add(out, term)
    return out


def _subst_atom(atom: Atom, mapping: dict, memo: dict) -> Dim:
    if atom.kind == "sym":
        name = atom.args[0]
        return mapping.get(name, Expr({(atom,): 1}))
    if atom in memo:
        return memo[atom]
    a, b = (substitute(x, mapping, memo) for x in atom.args)
    memo[atom] = out = {"div": floordiv, "mod": mod, "max": dmax}[atom.kind](a, b)
    return out


def dim_text(d: Dim) -> str:
    return "?" if d is UNKNOWN else str(d)


def mat_text(*dims: Dim) -> str:
    """Dims in PyTorch's `128x32` notation; a compound one in parentheses: `(dim + 1)x32`."""
    texts = (dim_text(d) for d in dims)
    return "x".join(t if t.isidentifier() or t.isdigit() or t == "?" else f"({t})" for t in texts)


# ---------------------------------------------------------------------------------------
# Conditions
# ---------------------------------------------------------------------------------------

class Cond:
    """A boolean condition over dims: ("eq"|"le"|"lt", a, b), ("and"|"or", c...), ("not", c)."""

    __slots__ = ("op", "args", "_hash")

    def __init__(self, op: str, args: tuple):
        self.op = op
        self.args = args
        self._hash = hash((op, args))

    def __eq__(self, other):
        return isinstance(other, Cond) and self.op == other.op and self.args == other.args

    def __hash__(self):
        return self._hash

    def symbols(self) -> set[str]:
        out: set[str] = set()
        for a in self.args:
            if isinstance(a, (Cond, Expr)):
                out |= a.symbols()
        return out

    def __str__(self) -> str:
        if self.op in ("eq", "le", "lt"):
            a, b = self.args
            return f"{a} {_REL_TEXT[self.op]} {b}"
        if self.op == "not":
            inner = self.args[0]
            if inner.op in ("eq", "le", "lt"):
                a, b = inner.args
                return f"{a} {_NEG_TEXT[inner.op]} {b}"
            return f"not ({inner})"
        joiner = " and " if self.op == "and" else " or "
        return joiner.join(f"({c})" if isinstance(c, Cond) and c.op in ("and", "or") else str(c) for c in self.args)

    __repr__ = __str__


_REL_TEXT = {"eq": "==", "le": "<=", "lt": "<"}
_NEG_TEXT = {"eq": "!=", "le": ">", "lt": ">="}

BoolLike = Union[bool, Cond, _Unknown]


def _rel(op: str, a: Dim, b: Dim) -> BoolLike:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    d = sub(b, a)
    if isinstance(d, int):
        return {"eq": d == 0, "le": d >= 0, "lt": d > 0}[op]
    if op == "eq":
        # Canonical orientation so equal conditions hash equally.
        left, right = sorted((a, b), key=str)
        return Cond("eq", (left, right))
    return Cond(op, (a, b))


def eq(a: Dim, b: Dim) -> BoolLike:
    return _rel("eq", a, b)


def ne(a: Dim, b: Dim) -> BoolLike:
    return not_(eq(a, b))


def le(a: Dim, b: Dim) -> BoolLike:
    return _rel("le", a, b)


def lt(a: Dim, b: Dim) -> BoolLike:
    return _rel("lt", a, b)


def ge(a: Dim, b: Dim) -> BoolLike:
    return _rel("le", b, a)


def gt(a: Dim, b: Dim) -> BoolLike:
    return _rel("lt", b, a)


def substitute_cond(c: BoolLike, mapping: dict) -> BoolLike:
    """A condition with symbols replaced by dims (folded where that decides it)."""
    if not isinstance(c, Cond):
        return c
    if c.op in ("eq", "le", "lt"):
        a, b = (substitute(x, mapping) for x in c.args)
        return {"eq": eq, "le": le, "lt": lt}[c.op](a, b)
    parts = [substitute_cond(x, mapping) for x in c.args]
    return not_(parts[0]) if c.op == "not" else and_(*parts) if c.op == "and" else or_(*parts)


def not_(c: BoolLike) -> BoolLike:
    if c is UNKNOWN or isinstance(c, bool):
        return c if c is UNKNOWN else not c
    if c.op == "not":
        return c.args[0]
    return Cond("not", (c,))


def and_(*cs: BoolLike) -> BoolLike:
    rest = []
    for c in cs:
        if c is False:
            return False
        if c is True:
            continue
        rest.append(c)
    if any(c is UNKNOWN for c in rest):
        return UNKNOWN
    if not rest:
        return True
    return rest[0] if len(rest) == 1 else Cond("and", tuple(rest))


def or_(*cs: BoolLike) -> BoolLike:
    rest = []
    for c in cs:
        if c is True:
            return True
        if c is False:
            continue
        rest.append(c)
    if any(c is UNKNOWN for c in rest):
        return UNKNOWN
    if not rest:
        return False
    return rest[0] if len(rest) == 1 else Cond("or", tuple(rest))


# ---------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------

def shape_text(dims) -> str:
    """`Tensor[B, 16, (H - 1)//2 + 1, W]`; `Tensor[...]` when the rank is unknown."""
    if dims is None or dims is UNKNOWN:
        return "Tensor[...]"
    if len(dims) == 0:
        return "Tensor[]"
    return "Tensor[" + ", ".join(dim_text(d) for d in dims) + "]"


def tuple_text(dims) -> str:
    """A torch.Size as the user sees it in code: `(2, 3)`."""
    inner = ", ".join(dim_text(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"


def size_text(dims) -> str:
    """PyTorch's wording of a shape in messages: `[2, 3]`."""
    return "[" + ", ".join(dim_text(d) for d in dims) + "]"
