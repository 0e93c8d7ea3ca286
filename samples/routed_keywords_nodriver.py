"""Keywords routed to the layers of a stack of unknown depth (performer's and reformer's
`route_args`): a list of `depth` dict pairs, some of them rewritten in a loop, spread into
each layer as `f(x, **f_args)`. A dict that is `{key: val}` one way and `{}` the other is
one of the two, so the call runs once with each and the results join; the list's items stay
alike after `routed[i] = ...`. Also: an attention output list appended to on some ways only
(`torch.cat` of alike tensors, count not known), a layer that may be None (calling None
raises, so a call that returns called the layer), and `(n / m).is_integer()`."""
import math

import torch
import torch.nn.functional as F
from torch import nn


def route_args(router, args, depth):
    routed_args = [(dict(), dict()) for _ in range(depth)]
    matched_keys = [key for key in args.keys() if key in router]
    for key in matched_keys:
        val = args[key]
        for depth, ((f_args, g_args), routes) in enumerate(zip(routed_args, router[key])):
            new_f_args, new_g_args = map(lambda route: ({key: val} if route else {}), routes)
            routed_args[depth] = ({**f_args, **new_f_args}, {**g_args, **new_g_args})
    return routed_args


def pad_to_multiple(tensor, multiple, dim=-2):
    seqlen = tensor.shape[dim]
    m = seqlen / multiple
    if m.is_integer():
        return tensor
    remainder = math.ceil(m) * multiple - seqlen
    return F.pad(tensor, (0, 0, 0, remainder))


class Attention(nn.Module):
    def __init__(self, dim, heads=4, local_heads=0):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3)
        self.local = nn.Linear(dim // heads, dim // heads) if local_heads > 0 else None
        self.global_heads = heads - local_heads
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x, pos_emb=None):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q = q.reshape(b, n, self.heads, -1).transpose(1, 2)
       #^ Tensor[b, heads, n, dim//heads]
        if pos_emb is not None:
            q = q + pos_emb
        gq, lq = q[:, :self.global_heads], q[:, self.global_heads:]
        outs = []
        if gq.numel() > 0:
            outs.append(gq.softmax(dim=-1))
        if lq.numel() > 0:
            outs.append(self.local(lq))
        out = torch.cat(outs, dim=1)
       #^ Tensor[b, ?, ?, dim//heads]
        out = out.transpose(1, 2).reshape(b, n, -1)
       #^ Tensor[b, n, ?]
        return self.to_out(out)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Linear(dim, dim)

    def forward(self, x, **kwargs):
        return self.net(x)


class RoutedStack(nn.Module):
    def __init__(self, dim, depth, heads=4, local_heads=0, max_len=64):
        super().__init__()
        layers = nn.ModuleList([])
        for _ in range(depth):
            layers.append(nn.ModuleList([Attention(dim, heads, local_heads), FeedForward(dim)]))
        self.layers = layers
        self.args_route = {'pos_emb': ((True, False),) * depth}
        self.pos = nn.Parameter(torch.randn(1, 1, max_len, dim // heads))

    def forward(self, x):
        b, n, d = x.shape
        args = route_args(self.args_route, {'pos_emb': self.pos[:, :, :n]}, len(self.layers))
        for (f, g), (f_args, g_args) in zip(self.layers, args):
            x = x + f(x, **f_args)
           #^ Tensor[b, n, dim]
            x = x + g(x, **g_args)
           #^ Tensor[b, n, dim]
        return x


def padded(x):
    b, n, d = x.shape
    y = pad_to_multiple(x, 8)
   #^ Tensor[b, ?, d]
    return y

# oracle: RoutedStack(dim=16, depth=2, local_heads=2)(torch.randn(2, 8, 16))
# oracle: padded(torch.randn(2, 7, 3))
