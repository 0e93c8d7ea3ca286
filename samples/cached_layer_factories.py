"""Layers made by cached factories (perceiver-pytorch's `cache_fn`, for weight tying): the
factory is a lambda made inside `__init__`, so it holds that call's `dim`. Two models built
with different sizes hand `cache_fn` two different lambdas, and each model's layers are
its own: the second model's layers are 6 wide, not the first one's 8."""
from functools import wraps

import torch
from torch import nn


def cache_fn(f):
    cache = dict()

    @wraps(f)
    def cached_fn(*args, _cache=True, key=None, **kwargs):
        if not _cache:
            return f(*args, **kwargs)
        nonlocal cache
        if key in cache:
            return cache[key]
        result = f(*args, **kwargs)
        cache[key] = result
        return result
    return cached_fn


class Tied(nn.Module):
    def __init__(self, dim, depth=3, weight_tie_layers=False):
        super().__init__()
        get_ff = lambda: nn.Linear(dim, dim)
        get_norm = lambda: nn.LayerNorm(dim)
        get_ff, get_norm = map(cache_fn, (get_ff, get_norm))
        self.layers = nn.ModuleList([])
        for i in range(depth):
            cache_args = {'_cache': i > 0 and weight_tie_layers}
            self.layers.append(nn.Sequential(get_norm(**cache_args), get_ff(**cache_args)))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


untied = Tied(8)
y1 = untied(torch.randn(2, 8))
# ^ Tensor[2, 8]
tied = Tied(6, weight_tie_layers=True)
y2 = tied(torch.randn(2, 6))
# ^ Tensor[2, 6]
