"""A positional embedding chosen by a flag: `Always(0)` by default (adding 0 keeps the
tokens' shape) or a learned table of `Tensor[T, dim]` (which broadcasts to it). Calling the
layer gives a number one way and a tensor the other; adding it to the tokens runs both
ways, and they agree. A running loss that starts at 0 is the same kind of value."""
import torch
from torch import nn


class Always(nn.Module):
    def __init__(self, val):
        super().__init__()
        self.val = val

    def forward(self, *args, **kwargs):
        return self.val


class AbsolutePositions(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.emb = nn.Embedding(max_len, dim)

    def forward(self, x):
        t = torch.arange(x.shape[1], device=x.device)
        return self.emb(t)


class TinyLM(nn.Module):
    def __init__(self, num_tokens, dim, max_len, absolute_positions=False):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.pos_emb = Always(0)
        if absolute_positions:
            self.pos_emb = AbsolutePositions(dim, max_len)
        self.norm = nn.LayerNorm(dim)
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

    def forward(self, tokens):
        x = self.token_emb(tokens)
       #^ Tensor[B, T, dim]
        x = x + self.pos_emb(x)
       #^ Tensor[B, T, dim]
        penalty = 0
        for block in self.blocks:
            x = self.norm(block(x))
            penalty = penalty + x.pow(2).mean()
        out = penalty * x
       #^ Tensor[B, T, dim]
        return out

# oracle: TinyLM(50, 8, 16, absolute_positions=True)(torch.randint(0, 50, (2, 5)))
# oracle: TinyLM(50, 8, 16)(torch.randint(0, 50, (2, 5)))
