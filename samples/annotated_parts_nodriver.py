"""Parts handed to a constructor, named by their annotation: `patch_emb: PatchEmbeddings`.
Nobody builds the model in this file, so each such parameter is a generic instance of its
class (its own sizes as symbols), and calling it gives shapes instead of Unknown.
`Head.forward` sets `self.last` (an impure run): its own context stays beside the one of the
model that calls it, and both agree."""
import torch
from torch import nn


class PatchEmbeddings(nn.Module):
    def __init__(self, d_model: int, patch_size: int, in_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, x: torch.Tensor):
        x = self.conv(x)
        bs, c, h, w = x.shape
        x = x.permute(2, 3, 0, 1)
        x = x.view(h * w, bs, c)
       #^ Tensor[(H//patch_size)*(W//patch_size), N, d_model]
        return x


class Head(nn.Module):
    def __init__(self, d_model: int, n_classes: int):
        super().__init__()
        self.linear = nn.Linear(d_model, n_classes)

    def forward(self, x: torch.Tensor):
        logits = self.linear(x)
        return logits


class SequenceFirstClassifier(nn.Module):
    def __init__(self, d_model: int, patch_emb: PatchEmbeddings, head: Head):
        super().__init__()
        self.patch_emb = patch_emb
        self.head = head
        self.cls_token = nn.Parameter(torch.randn(1, 1, d_model))
        self.norm = nn.LayerNorm([d_model])

    def forward(self, x: torch.Tensor):
        tokens = self.patch_emb(x)
        cls = self.cls_token.expand(-1, tokens.shape[1], -1)
       #^ Tensor[1, N, d_model]
        tokens = torch.cat([cls, tokens])
        first = self.norm(tokens[0])
       #^ Tensor[N, d_model]
        out = self.head(first)
       #^ Tensor[N, n_classes]
        return out

# oracle: SequenceFirstClassifier(16, PatchEmbeddings(16, 4, 3), Head(16, 10))(torch.randn(2, 3, 8, 12))
