"""The reproducible cases of the Refty paper's operators (see the research notes), each on
the line where PyTorch raises. The driver runs every case and catches its error."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_kernel_too_large():
    x = torch.randn(8, 3, 7, 7)
    return nn.Conv2d(3, 4, 15)(x)  # error: illegal-shape


def conv_nhwc_input():
    x = torch.randn(8, 7, 7, 3)
    return nn.Conv2d(3, 4, 3)(x)  # error: shape-mismatch


def conv_zero_stride():
    return nn.Conv2d(3, 4, 3, stride=0)(torch.randn(1, 3, 8, 8))  # error: illegal-value


def conv_groups():
    return nn.Conv2d(3, 4, 3, groups=2)  # error: improper-value


def conv_same_strided():
    return nn.Conv2d(3, 4, 3, stride=2, padding="same")  # error: improper-value


def conv_all_hyperparameters():
    y = nn.Conv2d(3, 4, 5, stride=3, padding=2, dilation=2)(torch.randn(2, 3, 32, 17))
    #   ^ Tensor[2, 4, 10, 5]
    return y


def linear_negative_out():
    return nn.Linear(147, -128)  # error: illegal-value


def figure1(size):
    x = torch.randn(16, 1, size, size)
    x = nn.Conv2d(1, 16, 3)(x)
    x = nn.AvgPool2d(2, 2)(x)
    x = x.reshape(x.size(0), -1)
    x = nn.Linear(2704, 10)(x)  # error: shape-mismatch; fix: Set in_features to 3600
    return nn.Softmax(dim=1)(x)


def add_and_broadcast():
    ok = torch.randn(8, 3, 7, 7) + torch.randn(1, 3, 1, 7)
    #    ^ Tensor[8, 3, 7, 7]
    bad = torch.randn(8, 3, 7, 7) + torch.randn(16, 3, 7, 7)  # error: shape-mismatch
    return ok, bad


def concat():
    ok = torch.cat([torch.randn(8, 3, 7, 7), torch.randn(8, 6, 7, 7)], dim=1)
    #    ^ Tensor[8, 9, 7, 7]
    bad = torch.cat([torch.randn(8, 3, 7, 7), torch.randn(8, 3, 14, 14)], dim=1)  # error: shape-mismatch
    return ok, bad


def gather_dim():
    x = torch.randn(2, 3, 4, 5)
    return torch.gather(x, 4, torch.zeros(2, 3, 4, 5, dtype=torch.long))  # error: improper-value


def seq2seq_hidden():
    encoder = nn.LSTM(32, 64, num_layers=2)
    decoder = nn.LSTM(32, 128, num_layers=2)
    out, state = encoder(torch.randn(5, 4, 32))
    return decoder(torch.randn(5, 4, 32), state)  # error: shape-mismatch


def matmul_cases():
    ok = torch.randn(3, 4) @ torch.randn(4, 5)
    #                      ^ Tensor[3, 5]
    bad = torch.randn(3, 4) @ torch.randn(5, 4)  # error: shape-mismatch
    return ok, bad


def matmul_dtype():
    return torch.ones(3, 4, dtype=torch.long) @ torch.randn(4, 5)  # error: dtype-mismatch


def pooling():
    a = nn.MaxPool2d(2, 2, ceil_mode=True)(torch.randn(1, 3, 7, 7))
    #   ^ Tensor[1, 3, 4, 4]
    b = nn.MaxPool2d(2, 2, padding=1, ceil_mode=True)(torch.randn(1, 3, 5, 5))
    #   ^ Tensor[1, 3, 3, 3]
    c = nn.AvgPool2d(3, 2, padding=1, ceil_mode=True)(torch.randn(1, 3, 8, 8))
    #   ^ Tensor[1, 3, 5, 5]
    d = nn.MaxPool2d(9, 4)(torch.randn(1, 3, 7, 7))  # error: illegal-shape
    return a, b, c, d


def batchnorm():
    bn = nn.BatchNorm2d(16)
    return bn(torch.randn(4, 8, 5, 5))  # error: shape-mismatch


def reshape_and_softmax():
    x = torch.randn(16, 16, 13, 13)
    y = x.reshape(16, -1)
    #   ^ Tensor[16, 2704]
    z = x.reshape(16, 2700)  # error: shape-mismatch
    return y, z


def softmax_dim():
    return F.softmax(torch.randn(16, 10), dim=2)  # error: improper-value; fix: Set dim to 1


if __name__ == "__main__":
    cases = [conv_kernel_too_large, conv_nhwc_input, conv_zero_stride, conv_groups,
             conv_same_strided, conv_all_hyperparameters, linear_negative_out, add_and_broadcast,
             concat, gather_dim, seq2seq_hidden, matmul_cases, matmul_dtype, pooling, batchnorm,
             reshape_and_softmax, softmax_dim]
    for case in cases:
        try:
            case()
        except (RuntimeError, ValueError, IndexError):
            pass
    try:
        figure1(32)
    except RuntimeError:
        pass
