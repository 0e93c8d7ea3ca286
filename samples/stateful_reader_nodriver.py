"""State one method leaves for another: `set_state` stores the states, `read` asserts they
were set and reads them back. In a model nobody builds each method runs on a fresh
instance, where __init__ left the attribute None; another method sets it, so when `read`
runs it may hold anything: the assert is not decided and the lines after it still run."""
import torch
from torch import nn


class StatefulReader(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.next_state = None

    def set_state(self, states):
        self.next_state = (states,)

    def read(self, x):
        assert self.next_state is not None, "call set_state first"
        states, = self.next_state
        q = self.proj(x)
       #^ Tensor[..., dim]
        h = self.out(q.relu())
       #^ Tensor[..., dim]
        return h + states.mean(dim=1, keepdim=True)


# oracle: reader = StatefulReader(8)
# oracle: reader.set_state(torch.randn(2, 3, 8))
# oracle: reader.read(torch.randn(2, 5, 8))
