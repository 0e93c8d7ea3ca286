"""A layer or size looked up in a table by a name nobody passes here (`ACTIVATIONS[act]`,
`{"s": 1, "m": 2}[size]`): the lookup gives one of the table's values (or raises
KeyError), so an activation picked by name still keeps its input's shape and a depth
picked by name is a number. `torch.arange(n, device=device)` takes numbers: no sign that
n is a tensor."""
import torch
from torch import nn

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}


class Block(nn.Module):
    def __init__(self, dim, act, size):
        super().__init__()
        self.proj = nn.Linear(dim, dim * 2)
        self.act = ACTIVATIONS[act]()
        self.depth = {"s": 1, "m": 2, "l": 4}[size]
        self.out = nn.Linear(dim * 2, dim)

    def forward(self, x):
        b, n, d = x.shape
        h = self.act(self.proj(x))
       #^ Tensor[b, n, 2*dim]
        pos = torch.arange(n, device=x.device)
       #^ Tensor[n]
        for _ in range(self.depth):
            h = self.act(h)
           #^ Tensor[b, n, 2*dim]
        return self.out(h) + pos[:, None]


def positions(n, device):
    return torch.arange(n, device=device)
          #^ Tensor[?]

# oracle: Block(dim=8, act="relu", size="m")(torch.randn(2, 5, 8))
