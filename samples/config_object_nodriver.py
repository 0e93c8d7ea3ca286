"""A block built from a settings object (`config`, nanoGPT style) with no example call:
its attributes are symbols named after them (`config.n_embd`), so the layers built from
them and the ops after agree, and a test on one (`if config.bias:`) runs both ways."""
import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        if config.bias:
            self.scale = nn.Parameter(torch.ones(config.n_head))
        else:
            self.scale = None

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        #^ Tensor[B, T, config.n_embd]
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        #^ Tensor[B, config.n_head, T, config.n_embd//config.n_head]
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = q @ k.transpose(-2, -1)
        #^ Tensor[B, config.n_head, T, T]
        v = v.view(B, T, self.n_head, -1).transpose(1, 2)
        y = (att.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        #^ Tensor[B, T, config.n_embd]
        return self.c_proj(y)


# oracle: class Config:
# oracle:     n_embd, n_head, bias = 32, 4, True
# oracle: CausalSelfAttention(Config())(torch.randn(2, 5, 32))
