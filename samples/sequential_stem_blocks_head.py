"""A model built as one nn.Sequential by a function (MLP-Mixer style): a stem, blocks of a
count given by a hyperparameter spread in with `*[...]`, then a norm, a pooling and a head
after them. The Sequential runs the stem, the blocks, then the layers after them, so the
output is known; a layer given after the spread is still checked where it is built."""
import os

import torch
from torch import nn
from einops.layers.torch import Rearrange, Reduce


class Residual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Linear(dim, dim)

    def forward(self, x):
        return self.ff(self.norm(x)) + x


def mixer(*, patch_size, channels, dim, depth, num_classes):
    return nn.Sequential(
        Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=patch_size, p2=patch_size),
        nn.Linear(patch_size * patch_size * channels, dim),
        *[Residual(dim) for _ in range(depth)],
        nn.LayerNorm(dim),
        Reduce('b n c -> b c', 'mean'),
        nn.Linear(dim, num_classes),
    )


def broken_mixer(*, dim, depth):
    return nn.Sequential(
        *[Residual(dim) for _ in range(depth)],
        Reduce('b n c -> b cx', 'mean'),  # error: illegal-value
    )


model = mixer(patch_size=4, channels=3, dim=16, depth=3, num_classes=10)
logits = model(torch.randn(2, 3, 16, 16))
#^ Tensor[2, 10]


def classify(images, depth):
    net = nn.Sequential(
        nn.Conv2d(3, 8, 3),
        *[nn.Conv2d(8, 8, 3, padding=1) for _ in range(depth)],
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 10),
    )
    return net(images)


scores = classify(torch.randn(2, 3, 16, 16), int(os.environ.get("DEPTH", "2")))
#^ Tensor[2, 10]


def mix_heads(attn, weights):
    # an output subscript no input has: fails whatever the shapes are
    return torch.einsum('b h i j, h g -> b x i j', attn, weights)  # error: illegal-value
