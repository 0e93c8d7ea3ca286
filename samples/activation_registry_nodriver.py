"""An activation picked by name from a registry of torch layers (`ACT2CLS[act]()`, Hugging
Face's and timm's way), in a model nobody builds: the name is not known, so the layer is
one of the registry's, and every one keeps the shape. The lines after it keep theirs."""
import torch
from torch import nn

ACT2CLS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU, "swish": nn.SiLU, "tanh": nn.Tanh,
           "sigmoid": nn.Sigmoid, "elu": nn.ELU, "selu": nn.SELU, "mish": nn.Mish,
           "softplus": nn.Softplus, "leaky_relu": nn.LeakyReLU, "quick_gelu": nn.GELU}


class FeedForward(nn.Module):
    def __init__(self, dim, hidden, act):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = ACT2CLS[act]()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        h = self.act(self.fc1(x))
       #^ Tensor[..., hidden]
        out = self.fc2(h)
       #^ Tensor[..., dim]
        return out


# oracle: FeedForward(8, 32, "gelu")(torch.randn(2, 5, 8))
