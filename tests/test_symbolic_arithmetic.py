"""Simplifications of symbolic dims agree with Python's integers: each expression, built
symbolically and then given values, equals the same expression computed on the values."""
import itertools
import operator

import pytest

from shapesense.analysis import shapes as S

B, T, D, H = (S.sym(n) for n in ("B", "T", "D", "H"))

# (symbolic numerator, denominator) pairs that share factors, and some that do not
PAIRS = [
    (S.mul(S.mul(B, T), D), S.mul(S.mul(B, T), H)),  # a view's check: B*T*D % (B*T*H)
    (S.mul(6, D), S.mul(4, H)),
    (S.add(S.mul(B, D), S.mul(B, T)), S.mul(B, H)),
    (S.mul(3, S.mul(B, D)), S.mul(3, B)),
    (S.add(D, 1), H),
]


@pytest.mark.parametrize("num, den", PAIRS, ids=lambda v: str(v))
@pytest.mark.parametrize("op", [(S.mod, operator.mod), (S.floordiv, operator.floordiv)],
                         ids=["mod", "floordiv"])
def test_simplified_division_agrees_with_python(num, den, op):
    symbolic, plain = op
    result = symbolic(num, den)
    for values in itertools.product((1, 2, 3, 5, 12), repeat=4):
        env = dict(zip(("B", "T", "D", "H"), values))
        got = S.substitute(result, env)
        want = plain(S.substitute(num, env), S.substitute(den, env))
        assert got == want, (str(result), env)


def test_a_shared_factor_leaves_the_modulus():
    # the solver times out on `B*T*D % (B*T*H) == 0`; `D % H` it decides
    assert str(S.mod(PAIRS[0][0], PAIRS[0][1])) == "B*T*(D%H)"
