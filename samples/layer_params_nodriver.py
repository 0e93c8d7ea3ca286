"""Layers handed in as parameters, pieces of unknown count, routed keyword arguments, and
tabular inputs, with no example call.

- `norm_layer=None` / `act_layer` (timm and ResNeSt style): a parameter named like a
  normalization or an activation keeps the shape of what it is applied to, whether it is
  built first (`norm_layer(channels)`) or called on the tensor (`act_fn(x)`).
- `x.split(C // radix, dim=1)` and `x.chunk(self.radix, dim=1)` with a hyperparameter count:
  pieces whose count is unknown but whose shape is known, summed with `sum(...)`.
- `forward(self, x, **kwargs)` that nobody calls: a training loop calls `model(x)`, so the
  keywords it routes on (`route_args`) are the ones the code itself passes.
- An input used only by `BatchNorm1d` and `Linear`: a batch of feature vectors (N, C)."""
import torch
from torch import nn
import torch.nn.functional as F


class SplitAttention(nn.Module):
    def __init__(self, in_channels, channels, radix=2, norm_layer=None, act_fn=None):
        super().__init__()
        self.radix = radix
        self.conv = nn.Conv2d(in_channels, channels * radix, 3, padding=1)
        self.use_bn = norm_layer is not None
        if self.use_bn:
            self.bn0 = norm_layer(channels * radix)
        self.act_fn = act_fn if act_fn is not None else F.relu
        self.fc = nn.Conv2d(channels, channels * radix, 1)

    def forward(self, x):
        x = self.conv(x)
        if self.use_bn:
            x = self.bn0(x)
           #^ Tensor[N, channels*radix, H, W]
        x = self.act_fn(x)
       #^ Tensor[N, channels*radix, H, W]
        batch, rchannel = x.shape[:2]
        splits = torch.split(x, rchannel // self.radix, dim=1)
        gap = sum(splits)
       #^ Tensor[N, channels, H, W]
        chunks = x.chunk(self.radix, dim=1)
        same = sum(chunks)
       #^ Tensor[N, channels, H, W]
        gap = F.adaptive_avg_pool2d(gap, 1)
       #^ Tensor[N, channels, 1, 1]
        return self.fc(gap)


def route_args(router, args, depth):
    routed = [(dict(), dict()) for _ in range(depth)]
    for key in [k for k in args.keys() if k in router]:
        val = args[key]
        for d, ((f_args, g_args), routes) in enumerate(zip(routed, router[key])):
            new_f, new_g = map(lambda route: ({key: val} if route else {}), routes)
            routed[d] = ({**f_args, **new_f}, {**g_args, **new_g})
    return routed


class Residuals(nn.Module):
    def __init__(self, layers, args_route={}):
        super().__init__()
        self.layers = layers
        self.args_route = args_route

    def forward(self, x, **kwargs):
        args = route_args(self.args_route, kwargs, len(self.layers))
        for (f, g), (f_args, g_args) in zip(self.layers, args):
            x = x + f(x, **f_args)
           #^ Tensor[B, T, dim]
            x = x + g(x, **g_args)
        return x


class Mixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, pos=None):
        if pos is not None:
            x = x + pos
        return self.proj(x)


class Stack(nn.Module):
    def __init__(self, num_tokens, dim, depth):
        super().__init__()
        self.emb = nn.Embedding(num_tokens, dim)
        layers = nn.ModuleList([nn.ModuleList([Mixer(dim), nn.Linear(dim, dim)]) for _ in range(depth)])
        self.net = Residuals(layers, args_route={"pos": ((True, False),) * depth})

    def forward(self, x, **kwargs):
        x = self.emb(x)
       #^ Tensor[B, T, dim]
        x = self.net(x, **kwargs)
       #^ Tensor[B, T, dim]
        return x


class TabularEncoder(nn.Module):
    def __init__(self, input_dim, hidden):
        super().__init__()
        self.bn = nn.BatchNorm1d(input_dim)
        self.fc = nn.Linear(input_dim, hidden)

    def forward(self, x):
        x = self.bn(x)
       #^ Tensor[N, input_dim]
        h = self.fc(x)
       #^ Tensor[N, hidden]
        return h[:, : hidden_half(h)]


def hidden_half(h):
    return h.shape[-1] // 2


# oracle: SplitAttention(in_channels=3, channels=4, radix=2, norm_layer=nn.BatchNorm2d, act_fn=torch.tanh)(torch.randn(2, 3, 8, 6))
# oracle: Stack(num_tokens=50, dim=8, depth=2)(torch.randint(0, 50, (2, 7)))
# oracle: TabularEncoder(input_dim=5, hidden=6)(torch.randn(4, 5))
