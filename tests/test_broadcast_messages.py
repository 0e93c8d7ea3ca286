"""Broadcasting errors are worded as torch words them, down to the dim it names: torch
compares shapes from the last dim and reports the first mismatch it meets there."""
import pytest

from shapesense.analysis.ops.spec import REGISTRY, OpContext, ShapeError, TensorValue, run_spec

torch = pytest.importorskip("torch")

PAIRS = [((2, 24, 14, 8), (14, 4, 1)), ((3, 2, 5), (4, 3)), ((2, 3), (3, 2)), ((5, 4), (3, 4)),
         ((4, 1, 6), (2, 5, 7))]


@pytest.mark.parametrize("a, b", PAIRS)
def test_broadcast_error_names_the_dim_torch_names(a, b):
    with pytest.raises(RuntimeError) as real:
        torch.randn(*a) * torch.randn(*b)
    with pytest.raises(ShapeError) as ours:
        run_spec(REGISTRY["torch.mul"], OpContext(op_name="torch.mul"), [TensorValue(a, "float32"),
                                                                        TensorValue(b, "float32")], {})
    assert str(ours.value) == str(real.value)
