"""Broadcasting and reshape bugs, each on the line where PyTorch raises."""
import torch


def broadcasting():
    a = torch.randn(8, 1, 6, 1)
    b = torch.randn(7, 1, 5)
    c = a * b
    #     ^ Tensor[8, 7, 6, 5]
    e, f = torch.broadcast_tensors(torch.randn(2, 1, 3), torch.randn(4, 1))
    #      ^ (Tensor[2, 4, 3], Tensor[2, 4, 3])
    d = torch.randn(3, 4) + torch.randn(5, 4)  # error: shape-mismatch
    return c


def reshapes():
    x = torch.randn(4, 3, 32, 32)
    flat = x.reshape(x.size(0), -1)
    #      ^ Tensor[4, 3072]
    y = x.view(4, 3, -1)
    #   ^ Tensor[4, 3, 1024]
    pairs = torch.triu_indices(5, 5, 1)
    #       ^ Tensor[2, 10]
    z = x.view(16, 2700)  # error: shape-mismatch
    w = x.permute(0, 2, 3, 1)
    #   ^ Tensor[4, 32, 32, 3]
    s = torch.cat([x, x], dim=1)
    #   ^ Tensor[4, 6, 32, 32]
    t = torch.stack([x, x])
    #   ^ Tensor[2, 4, 3, 32, 32]
    u = x.unsqueeze(1).squeeze(2)
    #   ^ Tensor[4, 1, 3, 32, 32]
    bad = torch.cat([x, torch.randn(4, 3, 16, 16)], dim=1)  # error: shape-mismatch
    channels_last = x.permute(0, 2, 3, 1).view(4, -1)  # error: shape-mismatch; fix: Use reshape instead of view
    fine = x.permute(0, 2, 3, 1).reshape(4, -1)
    #      ^ Tensor[4, 3072]
    return flat


if __name__ == "__main__":
    try:
        broadcasting()
    except RuntimeError:
        pass
    try:
        reshapes()
    except RuntimeError:
        pass
