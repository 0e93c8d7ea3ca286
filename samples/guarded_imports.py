"""Imports guarded for old PyTorch releases (Whisper's `try: from torch.nn.functional import
scaled_dot_product_attention ... except (ImportError, RuntimeError, OSError): ... = None`): a
name the op specs model is there in the PyTorch they describe, so the import succeeds, the
fallback assignments never run, and `t[:, np.newaxis]` is `t[:, None]`."""
import numpy as np
import torch

try:
    from torch.nn.functional import scaled_dot_product_attention
    SDPA_AVAILABLE = True
except (ImportError, RuntimeError, OSError):
    scaled_dot_product_attention = None
    SDPA_AVAILABLE = False


def attend(q, k, v):
    if SDPA_AVAILABLE:
        a = scaled_dot_product_attention(q, k, v)
    else:
        a = torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
    return a


def sinusoids(length, channels):
    inv_timescales = torch.exp(-torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    #^ Tensor[12, 8]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


out = attend(torch.randn(2, 4, 10, 8), torch.randn(2, 4, 12, 8), torch.randn(2, 4, 12, 16))
#     ^ Tensor[2, 4, 10, 16]
pos = sinusoids(12, 16)
