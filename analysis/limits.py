"""Caps on the plain Python values the interpreter builds from user code.

The engine computes ints, strings, lists, tuples and dicts as Python would, so hostile code
(`s = s + s` forty times, `1 << 10**10`, `'%0900000000d' % 1`) could make it build values of
gigabytes. Each operation that can grow a value is checked BEFORE it runs, from its operands'
sizes (bit lengths, lengths, format widths); past a cap its result is Unknown of its type and
is never materialised. The caps are far above anything shape code needs (a dim of 10**100 is
333 bits). No imports of other engine modules: shapes.py uses these too.
"""
from __future__ import annotations

import re

MAX_INT_BITS = 4096  # |int| < 2**4096 (about 1,233 decimal digits)
MAX_STR_LEN = 100_000  # characters
MAX_ITEMS = 10_000  # items of a list, tuple, set or dict
MAX_EXPR_SIZE = 4096  # nodes of a symbolic dim's tree (shapes.Expr.size)


def int_too_big(op: str, a: int, b: int) -> bool:
    """Would `a <op> b` on two ints exceed MAX_INT_BITS?"""
    la, lb = a.bit_length(), b.bit_length()
    if op in ("+", "-", "&", "|", "^"):
        return max(la, lb) + 1 > MAX_INT_BITS
    if op == "*":
        return la + lb > MAX_INT_BITS
    if op == "**":
        # |a| <= 1 stays small; a negative power is a float (Python raises if it overflows).
        return b > 0 and la > 1 and (la - 1) * b > MAX_INT_BITS
    if op == "<<":
        return b > 0 and a != 0 and la + b > MAX_INT_BITS
    return False  # //, %, >>, /: no bigger than the operands


def int_ok(v) -> bool:
    """An int (or bool) within the cap."""
    return v.bit_length() <= MAX_INT_BITS


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?.")
_DIGITS = re.compile(r"\d+")


def _number(digits: str) -> int:
    # A width of more than 9 digits is already past any cap (and int() of a long digit
    # string is itself costly).
    return int(digits) if len(digits) <= 9 else MAX_STR_LEN + 1


def _arg_len(x) -> int:
    if isinstance(x, str):
        return len(x)
    if isinstance(x, int):
        return x.bit_length() // 3 + 2  # decimal digits and a sign
    return 32  # a float's repr, or anything else that formats short


def percent_format_too_big(fmt: str, args: tuple) -> bool:
    """`fmt % args`: the text, each argument, and every width and precision in the format
    (a `*` width takes its value from the arguments)."""
    total = len(fmt) + sum(_arg_len(x) for x in args)
    stars = 0
    for m in _PERCENT_SPEC.finditer(fmt):
        for part in m.groups():
            if part == "*":
                stars += 1
            elif part:
                total += _number(part)
    if stars:
        total += sum(abs(x) for x in args if isinstance(x, int) and x.bit_length() < 64)
    return total > MAX_STR_LEN


def format_too_big(template: str, args) -> bool:
    """`template.format(*args)` or an f-string's `format(value, spec)`: every run of digits
    in the template may be a width or a precision (over-counting only makes a harmless
    string Unknown); a nested `{}` width comes from the arguments."""
    total = len(template) + sum(_arg_len(x) for x in args)
    total += sum(_number(d) for d in _DIGITS.findall(template))
    if template.count("{") > 1:
        total += sum(abs(x) for x in args if isinstance(x, int) and x.bit_length() < 64)
    return total > MAX_STR_LEN


def replace_too_big(s: str, old: str, new: str) -> bool:
    """`s.replace(old, new)`: every occurrence (len(s) + 1 of them for an empty `old`)."""
    count = len(s) + 1 if not old else len(s) // len(old)
    return len(s) + count * max(0, len(new) - len(old)) > MAX_STR_LEN
