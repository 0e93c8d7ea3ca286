"""A config class that answers attribute reads and writes itself (Hugging Face's
PretrainedConfig: `attribute_map` aliases a common name, `config.hidden_size`, to the model's
own, `n_embd`, in `__getattribute__` and `__setattr__`). The model reads the aliases, so the
layer widths come from the config: a wrong width is found at the call that fails."""
import torch
from torch import nn


class BaseConfig:
    attribute_map = {}

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)


class GPTConfig(BaseConfig):
    attribute_map = {"hidden_size": "n_embd", "num_attention_heads": "n_head"}

    def __init__(self, n_embd=768, n_head=12, **kwargs):
        self.n_embd = n_embd
        self.n_head = n_head
        super().__init__(**kwargs)


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.qkv = nn.Linear(self.embed_dim, 3 * self.embed_dim)
        self.out = nn.Linear(self.embed_dim, config.n_embd)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(self.embed_dim, dim=-1)
       #^ Tensor[2, 7, 48]
        q = q.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)
       #^ Tensor[2, 4, 7, 12]
        k = k.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)).softmax(-1)
       #^ Tensor[2, 4, 7, 7]
        y = (att @ v.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)).transpose(1, 2).reshape(b, t, -1)
       #^ Tensor[2, 7, 48]
        return self.out(y)


# The alias is written through too: `hidden_size = 48` sets n_embd.
config = GPTConfig(n_embd=32, n_head=4, layer_norm_eps=1e-5)
config.hidden_size = 48
attn = SelfAttention(config)
out = attn(torch.randn(2, 7, 48))
# ^ Tensor[2, 7, 48]
eps = torch.full((config.n_embd,), config.layer_norm_eps)
# ^ Tensor[48]
head = nn.Linear(config.hidden_size, 10)
logits = head(torch.randn(2, 32))  # error: shape-mismatch
