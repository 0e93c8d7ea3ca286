"""A small transformer language model as it is published: no example call, token ids in.
The input's rank comes from the body (an Embedding adds a dim, the attention splits heads
with einops), the blocks come from a comprehension over range(depth), and every layer
reached from the model shows the model's shapes."""
import torch
from torch import nn, einsum
from einops import rearrange


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=16):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Linear(inner_dim, dim)

    def forward(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
       #^ Tensor[B, T, 16*heads]
        q, k, v = map(lambda t: rearrange(t, 'b n (h d) -> b h n d', h=self.heads), (q, k, v))
       #^ Tensor[B, heads, T, 16]
        sim = einsum('b h i d, b h j d -> b h i j', q, k) * self.scale
       #^ Tensor[B, heads, T, T]
        attn = sim.softmax(dim=-1)
        out = einsum('b h i j, b h j d -> b h i d', attn, v)
       #^ Tensor[B, heads, T, 16]
        out = rearrange(out, 'b h n d -> b n (h d)')
       #^ Tensor[B, T, 16*heads]
        return self.to_out(out)


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.w1 = nn.Linear(dim, dim * mult)
        self.w2 = nn.Linear(dim * mult, dim)

    def forward(self, x):
        h = self.w1(x)
       #^ Tensor[B, T, 4*dim]
        return self.w2(torch.relu(h))


def route_args(depth):
    return [({}, {}) for _ in range(depth)]


class SequentialBlocks(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, x):
        for (f, g), (f_args, g_args) in zip(self.layers, route_args(len(self.layers))):
            x = x + f(x, **f_args)
           #^ Tensor[B, T, dim]
            x = x + g(x, **g_args)
        return x


class TransformerLM(nn.Module):
    def __init__(self, num_tokens, dim, depth, max_seq_len=256, heads=8):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.pos_emb = nn.Embedding(max_seq_len, dim)
        self.blocks = SequentialBlocks(nn.ModuleList([
            nn.ModuleList([Attention(dim, heads=heads), FeedForward(dim)]) for _ in range(depth)]))
        self.norm = nn.LayerNorm(dim)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x):
        x = self.token_emb(x)
       #^ Tensor[B, T, dim]
        x = x + self.pos_emb(torch.arange(x.shape[1], device=x.device))
       #^ Tensor[B, T, dim]
        x = self.blocks(x)
       #^ Tensor[B, T, dim]
        return self.to_logits(self.norm(x))

# No example call: a training script builds it. The oracle test runs it like this:
# oracle: TransformerLM(num_tokens=50, dim=32, depth=2, heads=4)(torch.randint(0, 50, (2, 7)))
