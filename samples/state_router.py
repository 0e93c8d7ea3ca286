"""A recurrent block's state containers, as block-recurrent transformers wire them: a
`defaultdict(list)` routes each container to the layers that read it (filled in `__init__`),
a layer reads `[self.container, *others]` (its own first, then any routed to it), and the
container's state is set by one method and read by the next. The container's methods run
with the states they are given, so their lines have shapes, and the attention they call
sees both the tokens' and the states' queries.
"""
from collections import defaultdict

import torch
from torch import nn


class Attention(nn.Module):
    def forward(self, q, k):
        sim = q @ k.transpose(-1, -2)
        #^ Tensor[2, ?, ?]
        return sim.softmax(dim=-1) @ k


class StateContainer(nn.Module):
    def __init__(self, dim, num_states=4):
        super().__init__()
        self.init_state = nn.Parameter(torch.randn(num_states, dim))
        self.to_q = nn.Linear(dim, dim)
        self.read_attn = Attention()
        self.write_attn = Attention()
        self.next_state = None
        self.cache = None

    def set_next_state(self, states=None):
        if states is None:
            states = self.init_state
        self.next_state = states

    def read(self, x):
        assert self.next_state is not None
        states = self.next_state.expand(x.shape[0], -1, -1)
        #^ Tensor[2, 4, 32]
        self.cache = (states, x)
        return self.read_attn(self.to_q(x), states)

    def write(self):
        assert self.cache is not None
        states, x = self.cache
        updated = self.write_attn(self.to_q(states), x)
        #^ Tensor[2, 4, 32]
        return updated


class Block(nn.Module):
    def __init__(self, dim, recurrent):
        super().__init__()
        self.recurrent = recurrent
        self.norm = nn.LayerNorm(dim)
        if recurrent:
            self.container = StateContainer(dim)

    def forward(self, x, read_from=[]):
        x = self.norm(x)
        if self.recurrent:
            read_from = [self.container, *read_from]
        for container in read_from:
            x = x + container.read(x)
            #^ Tensor[2, 16, 32]
        new_states = self.container.write() if self.recurrent else None
        return x, new_states


class Model(nn.Module):
    def __init__(self, dim, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, recurrent=(i == 0)) for i in range(depth)])
        self.router = defaultdict(list)
        self.router[1].append(self.blocks[0].container)

    def forward(self, x):
        self.blocks[0].container.set_next_state()
        for i, block in enumerate(self.blocks):
            x, states = block(x, read_from=self.router[i])
        return x


model = Model(32)
out = model(torch.randn(2, 16, 32))
#^ Tensor[2, 16, 32]
