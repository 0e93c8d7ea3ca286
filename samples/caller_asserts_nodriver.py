"""An assert in the caller rules out the counterexample of a check in the callee.

`forward` asserts that the sequence length is a multiple of `2 * bucket_size`; the helper it
calls asserts `n_buckets % 2 == 0` (so its sizes are the user's) and reduces over
`2 * (n_buckets // 2)` buckets, which is empty for a short sequence. The caller's assert says
the sequence is never that short: no warning."""
import torch
from torch import nn


class Bucketed(nn.Module):
    def __init__(self, bucket_size=8):
        super().__init__()
        self.bucket_size = bucket_size

    def buckets(self, n_buckets, x):
        assert n_buckets % 2 == 0
        rotated = torch.randn(x.shape[0], x.shape[1], n_buckets // 2)
        both = torch.cat([rotated, -rotated], dim=-1)
       #^ Tensor[b, n, 2*(n//(2*bucket_size))]
        return both.argmax(dim=-1)

    def forward(self, x):
        b, n, d = x.shape
        assert n % (self.bucket_size * 2) == 0
        return self.buckets(n // self.bucket_size, x)


# oracle: Bucketed(bucket_size=4)(torch.randn(2, 16, 3))
