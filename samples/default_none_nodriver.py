"""Constructor parameters that default to None and get their value in the body: with no
example call the model may be built with any value, so the value is the parameter's symbol
(its default is only a variant), never the default as if it were given."""
import torch
from torch import nn


def default(val, d):
    return val if val is not None else d


class Classifier(nn.Module):
    def __init__(self, dim, num_classes=None, dim_out=None, hidden=None, norm_layer=None):
        super().__init__()
        if num_classes is None:
            num_classes = 1000
        dim_out = dim_out or dim
        hidden = default(hidden, 64)
        if norm_layer is None:
            norm_layer = nn.LayerNorm
        self.norm = norm_layer(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim_out)
        self.head = nn.Linear(dim_out, num_classes)

    def forward(self, x):
        b, n, d = x.shape
        x = self.norm(x)
       #^ Tensor[b, n, dim]
        x = self.fc1(x)
       #^ Tensor[b, n, hidden]
        x = self.fc2(x)
       #^ Tensor[b, n, dim_out]
        logits = self.head(x.mean(dim=1))
       #^ Tensor[b, num_classes]
        return logits

# oracle: Classifier(dim=12, num_classes=5, hidden=20)(torch.randn(2, 7, 12))
