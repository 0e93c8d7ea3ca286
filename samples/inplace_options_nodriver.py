"""`x += pos_emb(x)` where the positional embedding is one of several layers, with no
example call.

The model picks its positional embedding by flags: a sinusoid table sliced to the sequence
(`Tensor[1, ?, d]`), a learned `nn.Embedding` (`Tensor[?, dim]`), or none at all (a layer
returning 0). Each way is tried on its own; an in-place add never changes the shape of
what it adds to, so `x` keeps `Tensor[b, n, dim]` whichever way the model is built, and the
lines after it keep their shapes."""
import torch
from torch import nn


class Always(nn.Module):
    def __init__(self, val):
        super().__init__()
        self.val = val

    def forward(self, *args, **kwargs):
        return self.val


class SinusoidTable(nn.Module):
    def __init__(self, dim, max_seq_len):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        position = torch.arange(0, max_seq_len, dtype=torch.float)
        angles = torch.einsum("i,j->ij", position, inv_freq)
        self.register_buffer("emb", torch.cat((angles.sin(), angles.cos()), dim=-1))

    def forward(self, x):
        return self.emb[None, : x.shape[1], :].to(x)


class LearnedPositions(nn.Module):
    def __init__(self, dim, max_seq_len):
        super().__init__()
        self.emb = nn.Embedding(max_seq_len, dim)

    def forward(self, x):
        return self.emb(torch.arange(x.shape[1], device=x.device))


class TokenModel(nn.Module):
    def __init__(self, num_tokens, dim, max_seq_len, sinusoid=False, learned=False):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        if sinusoid:
            self.pos_emb = SinusoidTable(dim, max_seq_len)
        elif learned:
            self.pos_emb = LearnedPositions(dim, max_seq_len)
        else:
            self.pos_emb = Always(0)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x):
        b, n = x.shape
        x = self.token_emb(x)
        x += self.pos_emb(x)
       #^ Tensor[b, n, dim]
        logits = self.to_logits(x)
       #^ Tensor[b, n, num_tokens]
        return logits


# oracle: TokenModel(50, 8, 16, sinusoid=True)(torch.randint(0, 50, (2, 5)))
# oracle: TokenModel(50, 8, 16, learned=True)(torch.randint(0, 50, (2, 5)))
