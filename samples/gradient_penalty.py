"""A WGAN-GP gradient penalty: torch.autograd.grad gives one gradient per input, shaped like
that input, so the penalty's reshape and norm have shapes (and a norm over a dim the
gradients lack is found)."""
import torch
from torch import nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten(),
                                 nn.Linear(8 * 8 * 8, 1))

    def forward(self, x):
        return self.net(x)


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.shape[0], 1, 1, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mixed)
    ones = torch.ones_like(score)
    gradients, *_ = torch.autograd.grad(outputs=score, inputs=mixed, grad_outputs=ones, create_graph=True)
   #^ Tensor[4, 3, 16, 16]
    gradients = gradients.reshape(gradients.shape[0], -1)
   #^ Tensor[4, 768]
    norm = gradients.norm(2, dim=-1)
   #^ Tensor[4]
    return ((norm - 1) ** 2).mean()


critic = Critic()
with torch.enable_grad():
    gp = gradient_penalty(critic, torch.randn(4, 3, 16, 16), torch.randn(4, 3, 16, 16))
#   ^ Tensor[]
