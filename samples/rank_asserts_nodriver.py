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

# oracle: EncoderBlock(num_heads=2, hidden_dim=8, mlp_dim=16)(torch.randn(3, 5, 8))
# oracle: Head(dim=8, classes=4)(torch.randn(3, 8))
