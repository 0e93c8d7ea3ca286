"""A constructor parameter that holds sizes, not a size, with no example call.

A model nobody builds gets a symbol for each hyperparameter, and a symbol is a number. The
body shows when a parameter is a sequence instead: `len(categories)`, `sum(categories)`,
`list(categories)`, `for h in hidden_dims`. Such a parameter is a sequence of unknown length
of ints, so `torch.tensor(list(categories))` is a one-dimensional tensor of unknown size and
the MLP built over `hidden_dims` is layers that look alike. An Embedding of `x_categ +
offsets` tells that `x_categ` holds token ids: a batch of rows (B, T), as an Embedding of
`x_categ` itself would."""
import torch
import torch.nn.functional as F
from torch import nn


class TabularEmbedder(nn.Module):
    def __init__(self, categories, dim, num_special_tokens=2):
        super().__init__()
        self.num_categories = len(categories)
        total_tokens = sum(categories) + num_special_tokens
        offsets = F.pad(torch.tensor(list(categories)), (1, 0), value=num_special_tokens)
       #^ Tensor[?]
        offsets = offsets.cumsum(dim=-1)[:-1]
        self.register_buffer("offsets", offsets)
        self.embeds = nn.Embedding(total_tokens, dim)

    def forward(self, x_categ):
        assert x_categ.shape[-1] == self.num_categories
        x = self.embeds(x_categ + self.offsets)
       #^ Tensor[B, ?, dim]
        return x.flatten(1)


class MLP(nn.Module):
    def __init__(self, dim_in, hidden_dims, dim_out):
        super().__init__()
        layers = []
        prev = dim_in
        for h in hidden_dims:
            layers += [nn.Linear(prev, h), nn.ReLU()]
            prev = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(prev, dim_out)

    def forward(self, x):
        b, d = x.shape
        h = self.body(x)
       #^ Tensor[b, ?]
        return self.head(h)
              #^ Tensor[b, dim_out]


# oracle: TabularEmbedder((3, 5, 7), 4)(torch.tensor([[0, 1, 2], [2, 4, 6]]))
# oracle: MLP(6, [8, 5], 3)(torch.randn(2, 6))
