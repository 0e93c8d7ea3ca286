"""A broadcast error inside a chain of operators spread over lines (performer's softmax
kernel): the error sits on the failing part of the chain, not nowhere."""
import torch


def softmax_kernel(data_dash, diag_data, eps=1e-4):
    return torch.exp(data_dash - diag_data -  # error: shape-mismatch
                     torch.amax(data_dash, dim=-1, keepdim=True)) + eps


q = torch.randn(2, 4, 32, 16)
ok = softmax_kernel(q, torch.randn(2, 4, 32, 1))
#^ Tensor[2, 4, 32, 16]
bad = softmax_kernel(q, torch.randn(2, 4, 1, 32))
