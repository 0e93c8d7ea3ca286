"""The symbolic oracle can fail: wrong ranks, dims and expressions are caught."""
from .symbolic_oracle import check_def, dims_of


def test_agreeing_facts_pass():
    facts = [("x", ["N", "C", "H", "W"], (2, 3, 8, 6)),
             ("y", ["N", "planes", "(H - 1)//stride + 1", "(W - 1)//stride + 1"], (2, 16, 4, 3))]
    assert check_def(facts) == []


def test_a_wrong_expression_fails():
    facts = [("x", ["N", "C", "H", "W"], (2, 3, 8, 6)),
             ("y", ["N", "16", "H - 2", "W - 2"], (2, 16, 4, 3))]
    assert any("H - 2" in p for p in check_def(facts))


def test_a_symbol_bound_twice_differently_fails():
    facts = [("x", ["N", "C"], (2, 3)), ("y", ["N", "C"], (2, 4))]
    assert check_def(facts)


def test_rank_and_concrete_dims():
    assert check_def([("x", ["N", "10"], (2, 10, 1))])
    assert check_def([("x", ["N", "10"], (2, 11))])
    assert dims_of("Tensor[N, max(C, 3), (H - 1)//2 + 1]") == ["N", "max(C, 3)", "(H - 1)//2 + 1"]


def test_last_dims_after_an_ellipsis():
    assert check_def([("x", ["...", "dim"], (2, 5, 8))]) == []
    assert check_def([("x", ["...", "8"], (2, 5, 9))])
    assert check_def([("x", ["...", "a", "b", "c"], (2, 3))])
    assert check_def([("x", ["...", "dim"], (2, 8)), ("y", ["...", "dim"], (3, 9))])


def test_sizes_the_oracle_call_passes_bind_the_symbols_of_expressions():
    from .symbolic_oracle import given_sizes
    given = given_sizes(["DenseNet(block_config=(2, 2), growth_rate=4, num_init_features=6)(x)"])
    assert given == {"block_config": (2, 2), "block_config_0": 2, "block_config_1": 2, "growth_rate": 4,
                     "num_init_features": 6}
    dims = ["N", "block_config[0]*growth_rate + block_config[1]*growth_rate + num_init_features"]
    assert check_def([("x", dims, (2, 22))], given) == []
    assert check_def([("x", dims, (2, 23))], given)
