"""A helper that broadcasts tensors over their leading dims and keeps the last ones
(normalizing-flow splines look up knots this way): `torch.broadcast_shapes(*sizes)` gives
the size the sizes broadcast to, so each tensor's `broadcast_to` is known."""
import torch


def broadcast(*tensors, ignore=0):
    if isinstance(ignore, int):
        ignore = [ignore] * len(tensors)
    dims = [t.dim() - i for t, i in zip(tensors, ignore)]
    common = torch.broadcast_shapes(*(t.shape[:i] for t, i in zip(tensors, dims)))
    return [torch.broadcast_to(t, common + t.shape[i:]) for t, i in zip(tensors, dims)]


k = torch.randint(0, 5, (2, 3, 4))
knots = torch.randn(3, 4, 7)
index, table = broadcast(k[..., None], knots, ignore=1)
#^ Tensor[2, 3, 4, 1]
values = table.gather(-1, index)
#^ Tensor[2, 3, 4, 1]

# exactness: open
