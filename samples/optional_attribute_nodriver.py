"""A layer that exists only when the model is built with an option (`if representation_size:
self.pre_logits = nn.Linear(...)`, ViT's pre-logits), and a `forward` that asks
`hasattr(self, 'pre_logits')`, with no example call. The option decides whether the
attribute exists, so the class is built once per value of it: each way of the `hasattr`
meets the layers built that way, and the features are `dim` or `representation_size`
wide, not unknown: a head built for the wrong width when the option is off (the default)
fails for every input, an error (joined, the width was unknown and nothing was said)."""
import torch
from torch import nn


class ViTHead(nn.Module):
    def __init__(self, dim, num_classes, representation_size=None):
        super().__init__()
        if representation_size:
            self.pre_logits = nn.Linear(dim, representation_size)
            pre_logits_size = representation_size
        else:
            pre_logits_size = dim
        self.norm = nn.LayerNorm(pre_logits_size)
        self.fc = nn.Linear(pre_logits_size, num_classes)

    def forward(self, x):
        b, n, d = x.shape
        if hasattr(self, 'pre_logits'):
            x = torch.tanh(self.pre_logits(x))
        x = self.norm(x)[:, 0]
        #^ Tensor[b, ?]
        return self.fc(x)


class BuggyHead(nn.Module):
    def __init__(self, dim, num_classes, representation_size=None):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        if representation_size:
            self.pre_logits = nn.Linear(dim, representation_size)
            pre_logits_size = representation_size
        else:
            pre_logits_size = dim + 1
        self.fc = nn.Linear(pre_logits_size, num_classes)

    def forward(self, x):
        x = self.proj(x)
        if hasattr(self, 'pre_logits'):
            x = self.pre_logits(x)
        return self.fc(x)  # error: shape-mismatch


# oracle: ViTHead(8, 3, representation_size=16)(torch.randn(2, 5, 8))
