"""No caller. An adaptive norm scales a sequence by a conditioning vector: `emb` goes through
a Linear to twice the width, `chunk(2, dim=1)` splits it into scale and shift, and
`[:, None, :]` lifts them over the sequence. Given the sequence convention (B, T, features),
the conditioning input would be split along T, and `norm(x) * scale` would then broadcast
`dim` against `2*dim`, which holds only for dim == 1: the input is read as a batch of
vectors (B, features) instead. A local `x: torch.Tensor = ...` annotation says no more than
the value, so the rank the body gives the input survives it (the BatchNorm's mistake is
found without a caller)."""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps, elementwise_affine=True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim)) if elementwise_affine else None

    def forward(self, hidden):
        variance = hidden.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden = hidden * torch.rsqrt(variance + self.eps)
        if self.weight is not None:
            hidden = hidden * self.weight
        return hidden


class AdaNorm(nn.Module):
    def __init__(self, embedding_dim, cond_dim, elementwise_affine=True, eps=1e-5, bias=True, norm_type="layer_norm"):
        super().__init__()
        self.linear = nn.Linear(cond_dim, embedding_dim * 2, bias=bias)
        if norm_type == "layer_norm":
            self.norm = nn.LayerNorm(embedding_dim, eps, elementwise_affine, bias)
        elif norm_type == "rms_norm":
            self.norm = RMSNorm(embedding_dim, eps, elementwise_affine)
        else:
            raise ValueError(f"unknown norm_type {norm_type}")

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        emb = self.linear(torch.nn.functional.silu(cond).to(x.dtype))
       #^ Tensor[x_B, 2*embedding_dim]
        scale, shift = torch.chunk(emb, 2, dim=1)
       #^ Tensor[x_B, embedding_dim]
        out = self.norm(x) * (1 + scale)[:, None, :] + shift[:, None, :]
       #^ Tensor[x_B, x_T, embedding_dim]
        return out


class PatchDescriptor(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2),
                                      nn.BatchNorm2d(17))

    @staticmethod
    def _standardize(x):
        sp, mp = torch.std_mean(x, dim=(-3, -2, -1), keepdim=True)
        return (x - mp) / (sp + 1e-6)

    def forward(self, patches):
        x: torch.Tensor = self._standardize(patches)
       #^ Tensor[N, 1, H, W]
        feats = self.features(x)  # error: shape-mismatch
        return feats.flatten(1)
