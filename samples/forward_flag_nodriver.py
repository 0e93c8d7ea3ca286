"""A forward with a bool flag the training loop passes (`return_loss=True`), with no
example call. The generic run calls it once with the default and once with the flag
flipped, as constructor flags get one instance per value: the code after
`if not return_loss: return logits` has shapes, and each way's shapes stay its own (one
run joined at the `if` would give `labels` no value and the loss no shape). A line both ways
reach with different shapes shows their join, each way's shape listed in the hover. A way
with a flag not at its default is a guess: its diagnostics are not shown."""
import torch
from torch import nn
import torch.nn.functional as F
from einops import rearrange


class TinyLM(nn.Module):
    def __init__(self, num_tokens, dim):
        super().__init__()
        self.embed = nn.Embedding(num_tokens, dim)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, text, return_loss=False):
        if return_loss:
            text, labels = text[:, :-1], text[:, 1:]
                 # ^ Tensor[B, T - 1]
        tokens = self.embed(text)
      # ^ Tensor[B, ?, dim]
        logits = self.to_logits(tokens)
        if not return_loss:
            return logits
                 # ^ Tensor[B, T, num_tokens]
        logits = rearrange(logits, 'b n c -> b c n')
      # ^ Tensor[B, num_tokens, T - 1]
        loss = F.cross_entropy(logits, labels)
      # ^ Tensor[]
        return loss
