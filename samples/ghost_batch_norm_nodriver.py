"""Ghost batch normalization (TabNet): the batch is cut into virtual batches whose count
depends on the batch size, each is normalized, and the pieces are joined again. The count
is not known, nor the size of each piece (the last may be shorter), but every piece of
`x.chunk(k, 0)`, each once, joined along the dim they were cut from, is that dim again.
A list that may hold other items (`+ [x]`, a filter) gives no such size."""
import numpy as np
import torch
from torch import nn


class GhostBatchNorm(nn.Module):
    def __init__(self, input_dim, virtual_batch_size=128, momentum=0.01):
        super().__init__()
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(input_dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)
        res = [self.bn(x_) for x_ in chunks]
        out = torch.cat(res, dim=0)
       #^ Tensor[b, hidden]
        doubled = torch.cat([self.bn(x_) for x_ in chunks] + [x], dim=0)
       #^ Tensor[?, hidden]
        return out


class GatedBlock(nn.Module):
    def __init__(self, input_dim, hidden):
        super().__init__()
        self.fc = nn.Linear(input_dim, hidden)
        self.bn = GhostBatchNorm(hidden, virtual_batch_size=4)

    def forward(self, x):
        b, _ = x.shape
        h = self.bn(self.fc(x))
       #^ Tensor[b, hidden]
        return h

# oracle: GatedBlock(6, 8)(torch.randn(10, 6))
