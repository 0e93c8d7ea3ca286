"""Inputs only ever joined to each other (an xLSTM cell's gates): `torch.cat([q, k, v], -1)`
with no example call. The unpacking ranks `q`; the cat says `k` and `v` have its rank and
share every dim but the last, so the view and the gates after it have shapes. The view's
check `B*S*k_C % (B*S*heads) == 0` is `k_C % heads == 0` once the common factor cancels
(the solver timed out on the product)."""
import torch
from torch import nn


class Gates(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.igate = nn.Linear(3 * dim, heads)

    def forward(self, q, k, v):
        B, S, _ = q.shape
        gate_in = torch.cat([q, k, v], dim=-1)
       #^ Tensor[B, S, C + k_C + v_C]
        k = k.view(B, S, self.heads, -1)
       #^ Tensor[B, S, heads, k_C//heads]
        gates = self.igate(gate_in)
       #^ Tensor[B, S, heads]
        return gates.transpose(1, 2), k.transpose(1, 2)


# oracle: Gates(dim=8, heads=2)(torch.randn(2, 5, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8))
