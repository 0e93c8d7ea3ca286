"""Fields of torch's named-tuple results (`torch.max(x, dim=-1, keepdim=True).values`,
`x.sort().indices`, `torch.linalg.qr(a).Q`) and `torch.is_tensor` on a value that starts as a
number and becomes a tensor in a loop, as hierarchical attention interpolates its levels."""
import torch
from einops import repeat

S = torch.randn(4, 8, 8)
S = S - torch.max(S, dim=-1, keepdim=True).values
#^ Tensor[4, 8, 8]
order = S.sort(dim=1).indices
#^ Tensor[4, 8, 8]
smallest = S.min(dim=-1).values
#^ Tensor[4, 8]
Q = torch.linalg.qr(torch.randn(6, 3)).Q
#^ Tensor[6, 3]

levels = [torch.randn(4, 16, 8), torch.randn(4, 32, 8)]
Y = 0
for level in levels:
    if torch.is_tensor(Y):
        Y = repeat(Y, 'b n d -> b (n r) d', r=2)
      # ^ Tensor[4, 32, 8]
    Y = level + Y
out = Y * 2
#^ Tensor[4, 32, 8]
