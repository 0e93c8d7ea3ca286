"""A list of blocks whose first one differs, filled in a loop of unknown count, with no
example call.

The first block maps `in_dim` to `out_dim` and is put in the list before the loop; the loop
adds `n_blocks - 1` blocks from `out_dim` to `out_dim`. `self.blocks[0]` is that first block
exactly (the items a list surely starts with stay known), and an index past them is one of
the loop's blocks. (Reached from `Encoder`, the shapes are in its names: `hidden`.) Where any block may be meant (`self.blocks[i]` with `i` not known), the
blocks of one class merge into one whose differing sizes are not known: its output is still
`Tensor[N, out_dim]`, and an unknown size gives no diagnostic."""
import torch
from torch import nn


class GatedLayer(nn.Module):
    def __init__(self, in_dim, out_dim, fc=None):
        super().__init__()
        self.out_dim = out_dim
        if fc:
            self.fc = fc
        else:
            self.fc = nn.Linear(in_dim, 2 * out_dim, bias=False)
        self.bn = nn.BatchNorm1d(2 * out_dim)

    def forward(self, x):
        x = self.bn(self.fc(x))
        return x[:, : self.out_dim] * torch.sigmoid(x[:, self.out_dim :])


class GatedBlock(nn.Module):
    def __init__(self, in_dim, out_dim, n_blocks):
        super().__init__()
        self.n_blocks = n_blocks
        self.blocks = nn.ModuleList()
        self.blocks.append(GatedLayer(in_dim, out_dim))
        for _ in range(1, n_blocks):
            self.blocks.append(GatedLayer(out_dim, out_dim))

    def forward(self, x):
        x = self.blocks[0](x)
       #^ Tensor[N, hidden]
        for i in range(1, self.n_blocks):
            x = x + self.blocks[i](x)
                   #^ Tensor[N, hidden]
        return x


class Encoder(nn.Module):
    def __init__(self, in_dim, hidden, n_blocks, n_classes):
        super().__init__()
        self.norm = nn.BatchNorm1d(in_dim)
        self.body = GatedBlock(in_dim, hidden, n_blocks)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.body(self.norm(x))
       #^ Tensor[N, hidden]
        return self.head(h)


# oracle: Encoder(6, 8, 3, 4)(torch.randn(5, 6))
# oracle: Encoder(6, 8, 1, 4)(torch.randn(5, 6))
