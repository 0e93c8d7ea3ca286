"""Parts a model has only when built with some options, with no example call (the style of
x-transformers): the feed-forward's layers are filtered with `exists`, the bias flag is
negated (`bias=not no_bias`: a flag whose default is the other value, not Unknown), a soft
clamp exists only when its value is given (the way where it is given sees the value's
symbol), and global tokens are None unless a count is set. Fed to a layer, a value that may
be None is the tensor: with None the layer would have raised. Every line has its shape."""
from functools import partial

import torch
from torch import nn
from einops import repeat


def exists(v):
    return v is not None


def Sequential(*modules):
    return nn.Sequential(*filter(exists, modules))


def softclamp(t, value):
    return (t / value).tanh() * value


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, t):
        return self.fn(t)


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, swish=False, post_act_ln=False, no_bias=False, softclamp_value=None):
        super().__init__()
        inner_dim = int(dim * mult)
        activation = nn.SiLU() if swish else nn.GELU()
        self.net = Sequential(
            nn.Linear(dim, inner_dim, bias=not no_bias),
            Lambda(partial(softclamp, value=softclamp_value)) if exists(softclamp_value) else None,
            activation,
            nn.LayerNorm(inner_dim) if post_act_ln else None,
            nn.Linear(inner_dim, dim, bias=not no_bias),
        )

    def forward(self, x):
        b, n, d = x.shape
        out = self.net(x)
        #^ Tensor[b, n, dim]
        return out


class GlobalTokens(nn.Module):
    def __init__(self, dim, num_global_tokens=0):
        super().__init__()
        self.tokens = nn.Parameter(torch.randn(num_global_tokens, dim)) if num_global_tokens > 0 else None
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, n, d = x.shape
        tokens = None
        if exists(self.tokens):
            tokens = repeat(self.tokens, 'n d -> b n d', b=b)
        normed = self.norm(tokens)
        #^ Tensor[b, num_global_tokens, dim]
        return normed


# oracle: FeedForward(8, softclamp_value=5.0, post_act_ln=True)(torch.randn(2, 3, 8))
