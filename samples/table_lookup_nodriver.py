"""A table looked up with integer steps whose rank nothing decides (DiffWave's diffusion
embedding interpolates between two rows), with no example call: the steps' dims come
first, then the table's others, so the result is `Tensor[..., 128]` and the projection
after it `Tensor[..., 512]`. A mask (bool) index would not keep them: only int dtypes."""
# exactness: open
import torch
from torch import nn


class DiffusionEmbedding(nn.Module):
    def __init__(self, max_steps):
        super().__init__()
        self.register_buffer("embedding", torch.randn(max_steps, 128), persistent=False)
        self.projection = nn.Linear(128, 512)

    def forward(self, t):
        low_idx = torch.floor(t).long()
        high_idx = torch.ceil(t).long()
        low = self.embedding[low_idx]
        #^ Tensor[..., 128]
        high = self.embedding[high_idx]
        x = low + (high - low) * (t - low_idx).unsqueeze(-1)
        return self.projection(x)


# oracle: DiffusionEmbedding(50)(torch.rand(2) * 40)
