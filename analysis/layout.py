"""Memory layout (strides) where it is known exactly, to catch `view` on a transposed tensor.

Strides are tracked only for concrete shapes, and only as far as they are certain: freshly
allocated results (matmul, linear, conv, creation ops, cat, `.contiguous()`) are
contiguous; transpose/permute/T permute the strides of a tensor with known strides; view and
reshape compute them with ATen's rule. Every other op drops them (`strides=None` means
"unknown", which never produces a diagnostic).
"""
from __future__ import annotations

from dataclasses import replace

from .ops.spec import SHAPE_MISMATCH, ShapeError, TensorValue

# Ops whose result is a newly allocated, contiguous tensor.
_FRESH = {
    "torch.matmul", "torch.mm", "torch.bmm", "torch.nn.functional.linear", "torch.randn",
    "torch.zeros", "torch.ones", "torch.full", "torch.arange", "torch.tensor", "torch.cat",
    "torch.stack", "torch.nn.functional.conv1d", "torch.nn.functional.conv2d",
    "torch.nn.functional.conv3d", "torch.nn.functional.embedding", "torch.contiguous",
    "torch.randint", "torch.linspace", "torch.eye", "torch.nn.Linear", "torch.nn.Conv1d",
    "torch.nn.Conv2d", "torch.nn.Conv3d", "torch.nn.Embedding",
}

VIEW_MESSAGE = ("view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def contiguous(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def _concrete(shape) -> bool:
    return shape is not None and all(type(d) is int for d in shape)


def view_strides(shape, strides, new_shape):
    """ATen's computeStride: the strides of a view, or None when no view exists."""
    if not shape or not new_shape:
        return contiguous(new_shape)
    numel = 1
    for d in shape:
        numel *= d
    if numel == 0:
        return contiguous(new_shape)
    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1]
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = strides[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(out)


def _wrap(d, rank):
    return d + rank if d < 0 else d


def _permuted(spec_name, x, args):
    """The strides of transpose/permute/T results, or None."""
    s = x.strides
    rank = len(s)
    try:
        if spec_name == "torch.transpose":
            a, b = _wrap(args[0], rank), _wrap(args[1], rank)
            s = list(s)
            s[a], s[b] = s[b], s[a]
            return tuple(s)
        if spec_name in ("Tensor.permute", "torch.permute"):
            dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            return tuple(s[_wrap(d, rank)] for d in dims)
        if spec_name in ("Tensor.T", "torch.t"):
            return tuple(reversed(s))
        if spec_name == "Tensor.mT":
            return s[:-2] + (s[-1], s[-2])
    except (TypeError, IndexError):
        return None
    return None


def propagate(spec_name, out, args, kwargs):
    """The result with its strides when they are certain; raises ShapeError for a view
    that cannot exist. `args` are the spec-level arguments (the tensor first)."""
    if not isinstance(out, TensorValue) or not _concrete(out.shape):
        return out
    if spec_name in _FRESH:
        return replace(out, strides=contiguous(out.shape))
    x = args[0] if args else None
    if not isinstance(x, TensorValue) or x.strides is None or not _concrete(x.shape):
        return out
    if spec_name in ("Tensor.view", "Tensor.reshape", "torch.reshape", "torch.flatten"):
        strides = view_strides(x.shape, x.strides, out.shape)
        if strides is None:
            if spec_name == "Tensor.view":
                raise ShapeError(SHAPE_MISMATCH, VIEW_MESSAGE, {"view": "reshape"})
            strides = contiguous(out.shape)  # reshape copies
        return replace(out, strides=strides)
    if spec_name in ("torch.transpose", "Tensor.permute", "torch.permute", "Tensor.T", "torch.t", "Tensor.mT"):
        strides = _permuted(spec_name, x, [a for a in args[1:]])
        return replace(out, strides=strides) if strides is not None and len(strides) == len(out.shape) else out
    return out
