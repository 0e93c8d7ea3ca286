"""A model whose base class comes from a package that is not installed (`Module` of a
helper library, a trainer's `LightningModule`): nothing says it derives from nn.Module, but
a class that defines `forward` on an unreadable base is called as a module, so the call of
the feed-forward part gives shapes instead of Unknown."""
import torch
from torch import nn
from helper_library_not_installed import Module


class FeedForward(Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor):
        return self.down(torch.relu(self.up(x)))


class ConvMixer(Module):
    def __init__(self, dim, kernel_size=3):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, kernel_size, padding=kernel_size // 2)
        self.ff = FeedForward(dim, 4 * dim)

    def forward(self, x):
        h = self.conv(x).transpose(1, 2)
       #^ Tensor[N, L - kernel_size + 2*(kernel_size//2) + 1, dim]
        out = self.ff(h)
       #^ Tensor[N, L - kernel_size + 2*(kernel_size//2) + 1, dim]
        return out

# oracle: skip (it imports a package that is not installed, on purpose)
