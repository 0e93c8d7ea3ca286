"""A parameter passed only where an op takes a count or a dim (`x.chunk(n, dim=-1)`,
`x.flatten(start)`), with no example call: an int, not a tensor input. Only `x` is an input."""
import torch


def scaled_parts(x, n, start):
    #^ (x: Tensor[..., C], n, start)
    parts = x.chunk(n, dim=-1)
    flat = x.flatten(start)
    return x * len(parts)
