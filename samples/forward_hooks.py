"""Forward hooks can change what a module returns: a decoder's key/value cache prepends
the cached keys to a Linear's output (`module.register_forward_hook(save_to_cache)`). Calls of
a module after a hook is registered on it (or on a part of it) claim no shape; the calls
before it keep theirs.
"""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.key = nn.Linear(n, n)

    def forward(self, x):
        k = self.key(x)
        return k


def install_cache(model, cache):
    def save(module, _, output):
        cache[module] = output if module not in cache else torch.cat([cache[module], output], dim=1)
        return cache[module]
    return [model.key.register_forward_hook(save)]


attn = Attention(8)
before = attn(torch.randn(2, 4, 8))
#        ^ Tensor[2, 4, 8]
cache = {}
hooks = install_cache(attn, cache)
step1 = attn(torch.randn(2, 4, 8))
step2 = attn(torch.randn(2, 1, 8))
for hook in hooks:
    hook.remove()

# exactness: open
