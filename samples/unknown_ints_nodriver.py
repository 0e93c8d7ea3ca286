"""Ints the analysis does not know are still ints, with no example call.

- `q.shape[1] ** -0.5` where that dim is `?` (a slice by a bound not known): a float, so
  scaling a tensor by it keeps the tensor's shape.
- `for t in range(seq_len)` over a symbolic length: `x[:, t]` picks one step (the dim goes),
  and the steps stacked back have every dim but the stacked one.
- `assert isinstance(layers, tuple)` on a None default: the model passes a value, so the
  assert does not end the constructor.
- `if cfg is None: act = nn.ReLU` with no else: where `act` is read, it is the ReLU (the
  other path raises NameError there)."""
import torch
from torch import nn


class Recurrent(nn.Module):
    def __init__(self, dim, hidden, layers=None, cfg=None):
        super().__init__()
        assert isinstance(layers, tuple), "layers must be a tuple"
        if cfg is None:
            act = nn.ReLU
        self.act = act()
        self.cell = nn.Linear(dim + hidden, hidden)
        self.hidden = hidden

    def forward(self, x, n_skip: int):
        b, seq_len, d = x.shape
        q = x[:, n_skip:]
        scale = q.shape[1] ** -0.5
        q = q * scale
       #^ Tensor[b, ?, d]
        h = x.new_zeros(b, self.hidden)
        outs = []
        for t in range(seq_len):
            step = x[:, t]
           #^ Tensor[b, d]
            h = self.act(self.cell(torch.cat([step, h], dim=-1)))
           #^ Tensor[b, hidden]
            outs.append(h)
        out = torch.stack(outs, dim=1)
       #^ Tensor[b, ?, hidden]
        return out, q

# oracle: Recurrent(dim=4, hidden=6, layers=(1,))(torch.randn(2, 5, 4), 2)
