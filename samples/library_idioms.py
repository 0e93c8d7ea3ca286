"""Library idioms around layers (issue 10): torch's own _pair/_ntuple helpers, weight_norm
wrappers, a subclass of a torch layer calling super().forward, functools.reduce and
operator.mul over sizes, math/numpy ceil and floor of sizes (also of symbols), slice()
objects in an index, unbind, collections.namedtuple configs (fields, _replace)."""
import collections
import copy
import enum
import inspect
import functools
import math
import operator
import re
from collections.abc import Mapping

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.utils import _ntuple, _pair, _single, _triple
from torch.nn.utils import parametrizations, spectral_norm, weight_norm

x = torch.randn(2, 16, 8, 8)
y = nn.Conv2d(16, 32, 3, (1, 1), _pair(1), (1, 1), groups=2)(x)
#^ Tensor[2, 32, 8, 8]
y1 = nn.Conv1d(4, 8, 3, padding=_single(1))(torch.randn(2, 4, 10))
#^ Tensor[2, 8, 10]
y3 = nn.Conv3d(4, 8, _triple(3), padding=_triple(1))(torch.randn(2, 4, 6, 6, 6))
#^ Tensor[2, 8, 6, 6, 6]
to_2tuple = _ntuple(2)
p = nn.MaxPool2d(to_2tuple(2))(x)
#^ Tensor[2, 16, 4, 4]

wn = weight_norm(nn.Conv1d(4, 8, 3))(torch.randn(2, 4, 10))
#^ Tensor[2, 8, 8]
pwn = parametrizations.weight_norm(nn.Linear(4, 8))(torch.randn(2, 4))
#^ Tensor[2, 8]
sn = spectral_norm(nn.Linear(4, 6))(torch.randn(3, 4))
#^ Tensor[3, 6]


class CausalConv1d(nn.Conv1d):
    """A torch layer's subclass: its attributes come from the base's __init__ arguments."""

    def __init__(self, in_channels, out_channels, kernel_size, dilation=1):
        super(CausalConv1d, self).__init__(in_channels=in_channels, out_channels=out_channels,
                                           kernel_size=kernel_size, dilation=dilation)
        self.pad_len = (kernel_size - 1) * dilation

    def forward(self, x):
        x = F.pad(x, (self.pad_len, 0))
        x = super().forward(x)
        return x


class FunctionalConv1d(nn.Conv1d):
    def forward(self, x):
        return F.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Doubled(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 2


c = CausalConv1d(4, 8, 3, dilation=2)(torch.randn(2, 4, 32))
#^ Tensor[2, 8, 32]
fc = FunctionalConv1d(4, 8, 3, padding=1)(torch.randn(2, 4, 32))
#^ Tensor[2, 8, 32]
d = Doubled(4, 8)(torch.randn(5, 4))
#^ Tensor[5, 8]

shape = (4, 8, 2)
n = functools.reduce(operator.mul, shape, 1)
flat = torch.randn(n)
#^ Tensor[64]
table = torch.randn(functools.reduce(lambda a, b: a * b, shape), math.prod(shape[:2]), int(np.prod(shape)))
#^ Tensor[64, 32, 64]

rows = torch.randn(10, 6)
chunks = rows.chunk(int(np.ceil(rows.shape[0] / 4)), 0)
first = chunks[0]
#^ Tensor[4, 6]
last = chunks[-1]
#^ Tensor[2, 6]
grid = torch.zeros(math.ceil(10 / 4), math.floor(10 / 4), int(np.floor(7 / 2)))
#^ Tensor[3, 2, 3]


class Landmarks(nn.Module):
    """Sizes computed with ceil/floor of a division of symbols stay exact."""

    def __init__(self, dim, num_landmarks=4):
        super().__init__()
        self.num_landmarks = num_landmarks
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        m = self.num_landmarks
        groups = math.ceil(n / m)
        whole = math.floor(n / m)
        scaled = self.proj(x) / groups
        padded = F.pad(x, (0, 0, 0, groups * m - n))
        parts = torch.zeros(b, groups, whole)
        return scaled, padded, parts


scaled, padded, parts = Landmarks(3)(torch.randn(2, 10, 3))
#^ Tensor[2, 10, 3]
probe = padded
#^ Tensor[2, 12, 3]
counts = parts
#^ Tensor[2, 3, 2]


def slice_at_dim(t, dim_slice: slice, *, dim):
    dim += (t.ndim if dim < 0 else 0)
    colons = [slice(None)] * t.ndim
    colons[dim] = dim_slice
    return t[tuple(colons)]


freqs = torch.randn(12, 16)
recent = slice_at_dim(freqs, slice(-8, None), dim=0)
#^ Tensor[8, 16]
cols = freqs[(slice(None), slice(2, 5))]
#^ Tensor[12, 3]
pairs = torch.randn(2, 3, 8, 2)
x1, x2 = pairs.unbind(dim=-1)
#^ Tensor[2, 3, 8]

GlobalParams = collections.namedtuple("GlobalParams", ["width", "num_classes", "block", "norm_layer"])
GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)
BlockArgs = collections.namedtuple("BlockArgs", "kernel_size stride channels")


def get_params(override=None):
    params = GlobalParams(width=8, num_classes=1000, block=nn.Linear, norm_layer=None)
    if override:
        params = params._replace(**override)
    return params


params = get_params({"num_classes": 10})
norm = nn.BatchNorm1d if params.norm_layer is None else params.norm_layer
head = nn.Sequential(params.block(params.width, params.num_classes), norm(params.num_classes))
logits = head(torch.randn(4, 8))
#^ Tensor[4, 10]
block_args = BlockArgs(3, 1, 16)
kernel, stride, channels = block_args
conv = nn.Conv1d(8, block_args.channels, kernel, stride)(torch.randn(2, 8, 12))
#^ Tensor[2, 16, 10]


def center_crop(skip, x):
    """Sizes computed with tensor arithmetic on shapes (fepegar/unet's decoder)."""
    skip_shape = torch.tensor(skip.shape)
    x_shape = torch.tensor(x.shape)
    crop = skip_shape[2:] - x_shape[2:]
    half_crop = (crop / 2).int()
    pad = -torch.stack((half_crop, half_crop)).t().flatten()
    return F.pad(skip, pad.tolist())


cropped = center_crop(torch.randn(1, 8, 36, 40), torch.randn(1, 16, 32, 32))  # pads the last dim by the first pair
#^ Tensor[1, 8, 28, 36]
pool_class = getattr(nn, "{}Pool{}d".format("max".capitalize(), 2))
pooled = pool_class(2)(x)
#^ Tensor[2, 16, 4, 4]


def exists(v):
    return v is not None


def default(*args):
    for arg in args:
        if exists(arg):
            return arg() if callable(arg) else arg
    return None


class Wrapper(nn.Module):
    """`default(arg, ...)` helpers call a default that is callable; `type(v) is tuple` checks."""

    def __init__(self, dim, depth=2, emb_dim=None, act=None, local_heads=1):
        super().__init__()
        emb_dim = default(emb_dim, dim)
        if type(local_heads) is not tuple:
            local_heads = tuple([local_heads] * depth)
        self.act = default(act, nn.GELU)
        self.layers = nn.ModuleList([nn.Linear(emb_dim, dim * heads) for heads in local_heads])

    def forward(self, x):
        for layer in self.layers:
            out = self.act(layer(x))
        return out + torch.zeros(1).type(x.type())


wrapped = Wrapper(8, local_heads=3)(torch.randn(2, 8))
#^ Tensor[2, 24]

layer_types = ("a", "f", "a", "f")
num_attn = len(list(filter(lambda t: t == "a", layer_types)))
caches = iter([torch.zeros(2, 3), torch.zeros(2, 5)])
first_cache = next(caches, None)
#^ Tensor[2, 3]
second_cache = next(caches, None)
#^ Tensor[2, 5]
no_cache = next(caches, None)
per_layer = torch.zeros(num_attn, 1 if no_cache is None else 2)
#^ Tensor[2, 1]
scores = torch.randn(2, 4, 4)
masked = scores.masked_fill(scores > 0, -torch.finfo(scores.dtype).max)
#^ Tensor[2, 4, 4]


class Mode(str, enum.Enum):
    """A str enum looked up by value (monai's look_up_option / UpsampleMode)."""

    DECONV = "deconv"
    NONTRAINABLE = "nontrainable"


def look_up(opt, supported):
    if isinstance(supported, enum.EnumMeta) and opt in {item.value for item in supported}:
        return supported(opt)
    if isinstance(supported, Mapping) and opt in supported:
        return supported[opt]
    raise ValueError(opt)


class Factory:
    """A registry answering names it lacks (__getattr__) and indexed with a name and args
    (monai's LayerFactory: Conv[Conv.CONV, 2])."""

    def __init__(self):
        self.components = {}

    def add(self, name, fn):
        self.components[name.upper()] = fn
        return fn

    def __getattr__(self, key):
        if key in self.components:
            return key
        return super().__getattribute__(key)

    def __getitem__(self, args):
        name, *rest = args
        return self.components[name](*rest)


Conv = Factory()
Conv.add("conv", lambda dim: [nn.Conv1d, nn.Conv2d, nn.Conv3d][dim - 1])


def has_option(obj, keyword):
    return callable(obj) and keyword in inspect.signature(obj).parameters


def make_norm(norm_type, channels):
    kw = {"num_features": channels} if has_option(norm_type, "num_features") else {"num_channels": channels}
    return norm_type(**kw)


class Upsampler(nn.Sequential):
    def __init__(self, channels, mode="deconv"):
        super().__init__()
        if look_up(mode, Mode) == Mode.DECONV:
            self.add_module("deconv", nn.ConvTranspose2d(channels, channels // 2, 2, stride=2))
        else:
            self.add_module("up", nn.Upsample(scale_factor=2, mode="nearest"))
        self.add_module("conv", Conv[Conv.CONV, 2](channels // 2 if mode == "deconv" else channels, 4, 1))
        self.add_module("norm", make_norm(nn.modules.BatchNorm2d, 4))


up = Upsampler(8)(torch.randn(1, 8, 5, 5))
#^ Tensor[1, 4, 10, 10]
plain = Upsampler(8, mode=Mode.NONTRAINABLE)(torch.randn(1, 8, 5, 5))
#^ Tensor[1, 4, 10, 10]

stage = {"kernel_size": 3, "stride": 2}
stage_args = [copy.deepcopy(stage) for _ in range(2)]
stage_args[1]["stride"] = 1  # the copies are separate dicts
strides = torch.zeros(stage_args[0]["stride"], stage_args[1]["stride"])
#^ Tensor[2, 1]
key, value = re.split(r"(\d.*)", "k3")[:2]
kernel = torch.zeros(int(value))
#^ Tensor[3]


def same_padding(kernel_size, dilation=1):
    """Paddings computed with numpy arrays (monai's convutils)."""
    kernel_size_np = np.atleast_1d(kernel_size)
    dilation_np = np.atleast_1d(dilation)
    padding_np = (kernel_size_np - 1) / 2 * dilation_np
    padding = tuple(int(p) for p in padding_np)
    return padding if len(padding) > 1 else padding[0]


strided = nn.Conv2d(4, 8, 3, stride=int(np.prod(2)), padding=same_padding(3))(torch.randn(1, 4, 16, 16))
#^ Tensor[1, 8, 8, 8]
wide = nn.Conv2d(4, 8, (3, 5), padding=same_padding((3, 5)))(torch.randn(1, 4, 16, 16))
#^ Tensor[1, 8, 16, 16]


class Embedder(nn.Module):
    """A bare `return` ends __init__ (pytorch-tabnet's EmbeddingGenerator without categories)."""

    def __init__(self, input_dim, cat_dims, emb_dim=4):
        super().__init__()
        if cat_dims == []:
            self.post_embed_dim = input_dim
            return
        self.post_embed_dim = input_dim + len(cat_dims) * (emb_dim - 1)


def collect(out, n):
    if n == 0:
        out.append(torch.zeros(1))
        return
    out.extend([torch.zeros(1)] * n)


embedded = torch.zeros(2, Embedder(12, []).post_embed_dim)
#^ Tensor[2, 12]
collected = []
collect(collected, 0)
stacked = torch.stack(collected)
#^ Tensor[1, 1]


# torch.nn.utils.skip_init builds the module (uninitialized); a Sequential's `_modules`
# holds its parts by name (OpenNMT's Embeddings: the last part gets the decoding step)
class StepEmbeddings(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.make_embedding = nn.Sequential()
        self.make_embedding.add_module("lut", nn.utils.skip_init(nn.Embedding, num_embeddings=vocab, embedding_dim=dim))
        self.make_embedding.add_module("proj", nn.Linear(dim, 2 * dim))

    def forward(self, source):
        for i, module in enumerate(self.make_embedding._modules.values()):
            source = module(source)
        return source


tokens = StepEmbeddings(20, 16)(torch.randint(0, 20, (2, 8)))
#^ Tensor[2, 8, 32]
parts = torch.zeros(len(StepEmbeddings(20, 16)._modules))
#^ Tensor[1]
