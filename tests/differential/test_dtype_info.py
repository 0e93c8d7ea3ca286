"""torch.iinfo / torch.finfo as the engine knows them (pybuiltins) against torch's own."""
import pytest
import torch

from shapesense.analysis import pybuiltins
from shapesense.analysis.ops.spec import Dtype


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    ours = pybuiltins._iinfo([Dtype(name)], {})
    theirs = torch.iinfo(getattr(torch, name))
    assert [ours.items[ours.fields.index(f)] for f in ("bits", "max", "min")] == \
        [theirs.bits, theirs.max, theirs.min]


def test_iinfo_of_a_float_dtype_is_unknown_as_torch_raises():
    with pytest.raises(TypeError):
        torch.iinfo(torch.float32)
    assert pybuiltins._iinfo([Dtype("float32")], {}) is pybuiltins.UNKNOWN
