"""A cache of past keys and values the analysis cannot see into (here it comes back from
pickle; in real code, from a library's output object). The loop over
`zip(self.layers, past)` still runs each layer, with its past Unknown, so the layer's hovers
show that call too and not only the first one as if it were the only shape; and
`torch.cat((past_k, k), dim=-2)` keeps the rank and every dim the known part gives."""
import pickle

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, layer_past=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, -1).transpose(1, 2)
        #^ Tensor[2, 4, ?, 8]
        k = k.view(b, t, self.heads, -1).transpose(1, 2)
        v = v.view(b, t, self.heads, -1).transpose(1, 2)
        if layer_past is not None:
            past_k, past_v = layer_past
            k = torch.cat((past_k, k), dim=-2)
            #^ Tensor[2, 4, ?, 8]
            v = torch.cat((past_v, v), dim=-2)
        present = torch.stack((k, v))
        #^ Tensor[2, 2, 4, ?, 8]
        att = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        #^ Tensor[2, 4, ?, ?]
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        #^ Tensor[2, ?, 32]
        return self.out(y), present


class Decoder(nn.Module):
    def __init__(self, dim, heads, depth):
        super().__init__()
        self.layers = nn.ModuleList([Attention(dim, heads) for _ in range(depth)])

    def forward(self, x, past=None):
        if past is None:
            past = [None] * len(self.layers)
        for layer, layer_past in zip(self.layers, past):
            x, present = layer(x, layer_past)
        return x


model = Decoder(32, 4, 2)
x = torch.randn(2, 5, 32)
out = model(x)
#^ Tensor[2, 5, 32]
cache = pickle.loads(pickle.dumps([(torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8))] * 2))
step = torch.randn(2, 1, 32)
out_step = model(step, past=cache)
#^ Tensor[2, 1, 32]

# exactness: open
