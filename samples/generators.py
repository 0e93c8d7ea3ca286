"""Generator functions, as memory-augmented transformers use them to hand one slice of a
stacked memory to each layer: calling one runs its body and collects what it yields, so
`next(it)` is the next slice and `list(...)` all of them. Each call makes its own iterator
(two generators over equal inputs do not share one), and a generator that yields in a loop
of unknown count gives items alike, their count not known."""
import torch
from torch import nn


def iterate_tensor(t):
    for ind in range(t.shape[0]):
        yield t[ind]


def pairs(xs):
    for x in xs:
        yield x, x * 2


class MemoryLayers(nn.Module):
    def __init__(self, dim, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim * 2, dim) for _ in range(depth)])

    def forward(self, x, mems, cmems):
        mem_iter, cmem_iter = map(iterate_tensor, (mems, cmems))
        for layer in self.layers:
            mem, cmem = next(mem_iter), next(cmem_iter)
            #^ Tensor[2, 8, 16]
            context = torch.cat((mem, cmem), dim=-2)
            #^ Tensor[2, 12, 16]
            x = layer(torch.cat((x, context.mean(dim=1, keepdim=True).expand_as(x)), dim=-1))
        every = list(iterate_tensor(mems))
        stacked = torch.stack(every)
        #^ Tensor[2, 2, 8, 16]
        for a, b in pairs([x, x[:, :1]]):
            both = a + b
            #^ Tensor[2, ?, 16]
        return x


model = MemoryLayers(16)
out = model(torch.randn(2, 5, 16), torch.randn(2, 2, 8, 16), torch.randn(2, 2, 4, 16))
#^ Tensor[2, 5, 16]
