"""An input whose rank only an assert tells, with no example call: a block of LayerNorm,
attention and an MLP admits inputs of any rank, but `torch._assert(x.dim() == 3, ...)`
(or `assert x.ndim == 3`, `assert len(x.shape) in (3,)`) says which one the code expects."""
import torch
from torch import nn


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden_dim)
        self.attention = nn.MultiheadAttention(hidden_dim, num_heads, batch_first=True)
        self.ln_2 = nn.LayerNorm(hidden_dim)
        self.mlp = nn.Sequential(nn.Linear(hidden_dim, mlp_dim), nn.GELU(), nn.Linear(mlp_dim, hidden_dim))

    def forward(self, input):
        torch._assert(input.dim() == 3, f"Expected (batch, seq, hidden) got {input.shape}")
        x = self.ln_1(input)
       #^ Tensor[B, T, hidden_dim]
        x, _ = self.attention(x, x, x, need_weights=False)
        x = x + input
        y = self.mlp(self.ln_2(x))
       #^ Tensor[B, T, hidden_dim]
        return x + y


class Head(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)

    def forward(self, x):
        assert len(x.shape) in (2,), "a batch of vectors"
        out = self.fc(x)
       #^ Tensor[B, classes]
        return out



class LookBack(nn.Module):
    """A helper called with a rank-4 tensor and with one whose shape is not known (here a
    NumPy round trip): the second call could have any rank, so a line of the helper that call
    could not evaluate claims no rank (torch calls it with rank 4 and rank 3)."""

    def forward(self, a):
        b, t, c, d = a.shape

        def look_one_back(x):
            x_extra = torch.cat([x[:, -1:, ...], x[:, :-1, ...]], dim=1)
           #^ Tensor[...]
            return torch.cat([x, x_extra], dim=2)

        y = look_one_back(a)
       #^ Tensor[b, t, 2*c, d]
        s = y.sum(dim=1)
       #^ Tensor[b, 2*c, d]
        f = s.flatten(1)
       #^ Tensor[b, 2*c*d]
        g = f * 2
        z = look_one_back(torch.from_numpy(a.numpy()[..., 0]))
        return g, z

# oracle: EncoderBlock(num_heads=2, hidden_dim=8, mlp_dim=16)(torch.randn(3, 5, 8))
# oracle: Head(dim=8, classes=4)(torch.randn(3, 8))
# oracle: LookBack()(torch.randn(2, 4, 3, 5))
