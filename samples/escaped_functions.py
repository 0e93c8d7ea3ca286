"""Functions handed to code the analysis does not run, and sizes with an empty default.

`torch.func.vmap(normalize)` calls `normalize` on slices the analysis never sees, so the
hovers in `normalize` do not show the direct call's `Tensor[4, 1]` as if it were the only
shape: that def also gets the run of a def nobody calls. `torch.func.jvp(f, primals,
tangents)` is modelled: it runs `f` on the primals. A def patched onto a torch class
(`Transform.doubled = doubled`) may be called by torch's code the same way. `random_angles(size=())` is called by
nobody here; its callers pass sizes of any length, so the empty default is not the rank."""
import math

import torch


def normalize(v):
    n = v.norm(dim=-1, keepdim=True)
    #^ Tensor[...]
    return v / n


def rotate(points):
    out = points.flip(-1)
    #^ Tensor[?, 3]
    return out


def random_angles(size=()):
    theta = (2.0 * math.pi) * torch.rand(size)
    #^ none
    return theta


def doubled(self, x):
    out = x * 2.0
    #^ Tensor[...]
    return out


# A monkeypatch: torch's own Transform code may now call `doubled` on anything.
torch.distributions.Transform.doubled = doubled

x = torch.randn(4, 3)
d = doubled(None, x)
#^ Tensor[4, 3]
y = normalize(x)
#^ Tensor[4, 3]
per_sample = torch.func.vmap(normalize)(torch.randn(5, 2, 3))
r = rotate(torch.randn(4, 3))
#^ Tensor[4, 3]
r_jvp, dr = torch.func.jvp(rotate, (torch.randn(6, 3),), (torch.randn(6, 3),))
#^ Tensor[6, 3]

# exactness: open
