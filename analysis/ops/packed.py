"""Packed sequences (torch.nn.utils.rnn): pack_padded_sequence, an RNN run on the pack, and
pad_packed_sequence back. A pack is no tensor to the rest of the model (its `.data` is
(total length, features)); what the specs keep is the padded sequence it stands for, time
first, with the longest length as its time dim (known when the lengths are). Checked against
PyTorch 2.13.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable, is_tensor, op


@dataclass(frozen=True)
class PackedSeq:
    """A PackedSequence: `padded` is the (T, B, *features) it packs, time first; `total` the
    sum of the lengths (its `.data` is (total, *features)), UNKNOWN when they are not known."""

    padded: tuple
    dtype: object = None
    total: object = UNKNOWN

    def structural_key(self, key):  # (values.value_key)
        return ("packed", self.padded, self.dtype, self.total)

    @property
    def data_shape(self) -> tuple:
        return (self.total,) + tuple(self.padded[2:])


def _lengths(ctx, lengths):
    """(how many lengths, the longest, their sum; UNKNOWN where not known), from a 1-D
    tensor or a list of ints."""
    if isinstance(lengths, (list, tuple)):
        if lengths and all(isinstance(n, int) and not isinstance(n, bool) for n in lengths):
            return len(lengths), max(lengths), sum(lengths)
        return len(lengths), UNKNOWN, UNKNOWN
    if not is_tensor(lengths) or lengths.shape is None:
        raise Unknowable("lengths")
    if len(lengths.shape) != 1:
        ctx.fail(SHAPE_MISMATCH, f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                                 f"{len(lengths.shape)}D cpu Long tensor")
    values = lengths.values
    if values and all(isinstance(n, int) for n in values):
        return lengths.shape[0], max(values), sum(values)
    return lengths.shape[0], UNKNOWN, UNKNOWN


@op("torch.nn.utils.rnn.pack_padded_sequence")
def pack_padded_sequence(ctx, input, lengths, batch_first=False, enforce_sorted=True):
    x = ctx.shape(input)
    if len(x) < 2 or not isinstance(batch_first, bool):
        raise Unknowable("pack of a 1-D input")
    padded = (x[1], x[0], *x[2:]) if batch_first else tuple(x)
    count, longest, total = _lengths(ctx, lengths)
    ctx.require(S.eq(count, padded[1]), SHAPE_MISMATCH,
                f"Expected `len(lengths)` to be equal to batch_size, but got {S.dim_text(count)} "
                f"(batch_size={S.dim_text(padded[1])})")
    return PackedSeq((longest,) + padded[1:], input.dtype, total)


@op("torch.nn.utils.rnn.pad_packed_sequence")
def pad_packed_sequence(ctx, sequence, batch_first=False, padding_value=0.0, total_length=None):
    if not isinstance(sequence, PackedSeq) or not isinstance(batch_first, bool):
        raise Unknowable("not a pack")
    steps, batch, *rest = sequence.padded
    if total_length is not None:
        if isinstance(total_length, int) and isinstance(steps, int) and total_length < steps:
            ctx.fail(ILLEGAL_VALUE, f"Expected total_length to be at least the length of the longest sequence in "
                                    f"input, but got total_length={total_length} and max sequence length being "
                                    f"{steps}")
        steps = total_length
    shape = (batch, steps, *rest) if batch_first else (steps, batch, *rest)
    return TensorValue(shape, sequence.dtype), TensorValue((batch,), "int64")
