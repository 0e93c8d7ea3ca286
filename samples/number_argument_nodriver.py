"""A number passed to a method nobody calls, used beside tensors.

`offsets * n_buckets` works whether `n_buckets` is a tensor or a number, so it is no sign
that `n_buckets` is a tensor: the method's contract leaves it untyped (it was shown as
`Tensor[..., n_hashes]`, and everything computed from it took that shape)."""
import torch
from torch import nn


class Hasher(nn.Module):
    def __init__(self, n_hashes):
        super().__init__()
        self.n_hashes = n_hashes

    def hash_vectors(self, n_buckets, vecs):
       #^ (n_buckets, vecs: Tensor[b, t, f])
        b, t, f = vecs.shape
        assert n_buckets % 2 == 0
        offsets = torch.arange(self.n_hashes)
        scaled = torch.reshape(offsets * n_buckets, (1, -1, 1))
        buckets = torch.zeros(b, self.n_hashes, t, dtype=torch.long)
       #^ Tensor[b, n_hashes, t]
        return torch.reshape(buckets + scaled, (b, -1))
