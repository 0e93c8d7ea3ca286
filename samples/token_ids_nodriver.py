"""Token ids into an Embedding with nothing else fixing their rank: with no example call they
are read as a batch of sequences, Tensor[B, T] (int64), the way language models take them, so
every line after the embedding gets a shape."""
import torch
from torch import nn


class TokenLM(nn.Module):
    def __init__(self, num_tokens, dim):
        super().__init__()
        self.emb = nn.Embedding(num_tokens, dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x):
        h = self.emb(x)
       #^ Tensor[B, T, dim]
        h = h + self.ff(h)
       #^ Tensor[B, T, dim]
        logits = self.to_logits(h)
       #^ Tensor[B, T, num_tokens]
        return logits

# oracle: TokenLM(num_tokens=20, dim=8)(torch.randint(0, 20, (2, 5)))
