"""What libraries do at their top level before the model code: optional imports in
try/except, compatibility shims under `if hasattr(...)` or a version check, and
torch.autograd.Function subclasses called through `.apply` (reversible stacks,
memory-efficient activations), decorators of the program's own (a cache wrapper that takes
extra keywords, a registry). Nothing defined under or after them may go blind."""
from functools import wraps

import torch
from torch import nn

try:
    from apex import amp  # an optional accelerator: not installed here
    APEX_AVAILABLE = True
except ImportError:
    amp = None
    APEX_AVAILABLE = False

if hasattr(nn, "SiLU"):
    Swish = nn.SiLU
else:
    class Swish(nn.Module):
        def forward(self, x):
            return x * torch.sigmoid(x)

if torch.__version__ >= "1.7":  # a version check: which side runs is not known statically
    Act = nn.GELU
else:
    Act = nn.ReLU


class GELU_(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


GELU = nn.GELU if hasattr(nn, "GELU") else GELU_


def default(val, d):
    return val if val is not None else d


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, activation=None):
        super().__init__()
        activation = default(activation, nn.GELU)
        self.w1 = nn.Linear(dim, dim * mult)
        self.act = activation()
        self.swish = Swish()
        self.act2 = Act()
        self.gelu = GELU()
        self.w2 = nn.Linear(dim * mult, dim)

    def forward(self, x):
        h = self.act(self.w1(x))
       #^ Tensor[2, 5, 32]
        h = self.swish(h)
       #^ Tensor[2, 5, 32]
        h = self.act2(h)
       #^ Tensor[2, 5, 32]
        h = self.gelu(h)
       #^ Tensor[2, 5, 32]
        if APEX_AVAILABLE:
            h = h * 2
        out = self.w2(h)
       #^ Tensor[2, 5, 8]
        return out


class SwishImplementation(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i * torch.sigmoid(i)
        ctx.save_for_backward(i)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        i = ctx.saved_tensors[0]
        s = torch.sigmoid(i)
        return grad_output * (s * (1 + i * (1 - s)))


class MemoryEfficientSwish(nn.Module):
    def forward(self, x):
        return SwishImplementation.apply(x)


class Coupling(nn.Module):
    """y1 = x1 + f(x2), y2 = x2 + g(y1) on the two halves of the features."""

    def __init__(self, half):
        super().__init__()
        self.f = nn.Linear(half, half)
        self.g = nn.Sequential(nn.Linear(half, half), MemoryEfficientSwish())

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=2)
       #^ Tensor[2, 5, 4]
        y1 = x1 + self.f(x2)
        y2 = x2 + self.g(y1)
       #^ Tensor[2, 5, 4]
        return torch.cat([y1, y2], dim=2)


class _ReversibleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, blocks, kwargs):
        ctx.kwargs = kwargs
        for block in blocks:
            x = block(x, **kwargs)
           #^ Tensor[2, 5, 8]
        ctx.y = x.detach()
        ctx.blocks = blocks
        return x

    @staticmethod
    def backward(ctx, dy):
        return dy, None, None


class ReversibleSequence(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Coupling(dim // 2) for _ in range(depth)])

    def forward(self, x):
        out = _ReversibleFunction.apply(x, self.blocks, {})
       #^ Tensor[2, 5, 8]
        return out


MODELS = []


def register(fn):
    MODELS.append(fn)
    return fn


def cache_method(cache_attr, namespace):
    def inner(fn):
        @wraps(fn)
        def wrapper(self, *args, key_namespace=None, fetch=False, **kwargs):
            cache = getattr(self, cache_attr)
            key = f"{namespace}:{key_namespace}"
            if fetch:
                return cache[key]
            val = fn(self, *args, **kwargs)
            setattr(self, cache_attr, {**cache, key: val})
            return val
        return wrapper
    return inner


class Hasher(nn.Module):
    def __init__(self, dim, n_hashes):
        super().__init__()
        self._cache = {}
        self.n_hashes = n_hashes
        self.dim = dim

    @cache_method("_cache", "buckets")
    def hash_vectors(self, n_buckets, vecs):
        rotations = torch.randn(1, vecs.shape[-1], self.n_hashes, n_buckets // 2).expand(vecs.shape[0], -1, -1, -1)
        rotated = torch.einsum("btf,bfhi->bhti", vecs, rotations)
       #^ Tensor[2, 3, 5, 2]
        return torch.cat([rotated, -rotated], dim=-1).argmax(dim=-1)

    @torch.no_grad()
    def forward(self, x):
        buckets = self.hash_vectors(4, x, key_namespace=0)
       #^ Tensor[2, 3, 5]
        return buckets


@register
def hashed(x):
    return Hasher(8, 3)(x)


class Model(nn.Module):
    def __init__(self, dim=4, depth=2):
        super().__init__()
        self.rev = ReversibleSequence(dim * 2, depth)
        self.proj = nn.Linear(dim, dim * 2)
        self.ff = FeedForward(dim * 2)

    def forward(self, x):
        x = self.rev(self.proj(x))
       #^ Tensor[2, 5, 8]
        x = self.ff(x)
       #^ Tensor[2, 5, 8]
        return x


model = Model()
y = model(torch.randn(2, 5, 4))
#^ Tensor[2, 5, 8]
b = hashed(y)
#^ Tensor[2, 3, 5]
