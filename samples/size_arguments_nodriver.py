"""Sizes passed to a factory or to `view` are ints, not tensors: with no example call, a def
that only uses `b` and `n` as sizes once had the contract `(b: Tensor[...], n: Tensor[...])`.
Now only `x` is a tensor, and each result has its rank."""
import torch


def blank(b, n):
   #^ (b, n) -> Tensor[?, ?]
    return torch.zeros(b, n)


def fold(x, b, n):
   #^ (x: Tensor[...], b, n) -> Tensor[?, ?, ?]
    return x.view(b, n, -1)

# oracle: blank(2, 3)
# oracle: fold(torch.randn(6, 4), 2, 3)
