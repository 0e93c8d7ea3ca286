"""A model built either from its own keyword sizes or from a table of named configurations
(`ViT(name='B_16')`), with no example call. On the `name is None` way the sizes are the
parameters (symbols, their defaults shown as variants); on the other they are read from the
table by a name not known here. Both are some int the model is built with, so where the
ways meet a size stays its parameter's symbol instead of becoming unknown, and every layer
built from it keeps its shape."""
import torch
from torch import nn

CONFIGS = {
    "tiny": {"dim": 192, "patches": 16, "num_classes": 1000},
    "base": {"dim": 768, "patches": 16, "num_classes": 1000},
}


class PatchClassifier(nn.Module):
    def __init__(self, name=None, dim=768, patches=16, in_channels=3, num_classes=None):
        super().__init__()
        if name is None:
            if num_classes is None:
                num_classes = 1000
        else:
            config = CONFIGS[name]
            dim = config["dim"]
            patches = config["patches"]
            num_classes = config["num_classes"]
        self.embed = nn.Conv2d(in_channels, dim, kernel_size=patches, stride=patches)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.embed(x)
      # ^ Tensor[N, dim, H//patches, W//patches]
        x = x.flatten(2).transpose(1, 2)
        x = self.norm(x)
      # ^ Tensor[N, (H//patches)*(W//patches), dim]
        return self.head(x.mean(dim=1))
                    # ^ Tensor[N, num_classes]
