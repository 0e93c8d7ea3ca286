"""Layers made by factory functions passed as defaults (pytorchcv's `normalization=
lambda_batchnorm2d()`), checked with isinstance against nn.Module: a torch layer is an
nn.Module, so the assert holds and the block keeps its activation."""
import torch
import torch.nn as nn


def lambda_batchnorm2d(eps=1e-5):
    return lambda num_features: nn.BatchNorm2d(num_features=num_features, eps=eps)


def create_activation(activation):
    if activation is None:
        return None
    return activation() if not isinstance(activation, nn.Module) else activation


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, normalization=lambda_batchnorm2d(), activation=nn.ReLU):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.bn = normalization(out_channels)
        assert isinstance(self.bn, nn.Module)
        assert not isinstance(self.bn, nn.Conv2d)
        self.activ = create_activation(activation)
        assert isinstance(self.activ, nn.Module)

    def forward(self, x):
        x = self.bn(self.conv(x))
       #^ Tensor[2, 16, 8, 8]
        x = self.activ(x)
       #^ Tensor[2, 16, 8, 8]
        return x


block = ConvBlock(3, 16)
y = block(torch.randn(2, 3, 8, 8))
#^ Tensor[2, 16, 8, 8]
