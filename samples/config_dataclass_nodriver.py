"""Models sized by a config object, with no example call: `Block(config: BlockConfig)`, and
nanoGPT's style `GPT(config)` with no annotation, where every attribute the constructor reads
is a field of the file's one GPTConfig dataclass. The model is built with a generic config:
each int field a size named after it (defaults shown as "with the defaults" variants), fields
computed in __post_init__ included. A negative int default is a placeholder the caller
replaces (llama's `vocab_size: int = -1`, set from the tokenizer): a size too, never an
Embedding of -1 rows."""
import math
from dataclasses import dataclass

import torch
from torch import nn
import torch.nn.functional as F


@dataclass
class BlockConfig:
    d_model: int
    expand: int = 2
    dt_rank: str = "auto"

    def __post_init__(self):
        self.d_inner = self.expand * self.d_model
        if self.dt_rank == "auto":
            self.dt_rank = math.ceil(self.d_model / 16)


class Block(nn.Module):
    def __init__(self, config: BlockConfig):
        super().__init__()
        self.in_proj = nn.Linear(config.d_model, 2 * config.d_inner)
        self.dt_proj = nn.Linear(config.dt_rank, config.d_inner)
        self.out_proj = nn.Linear(config.d_inner, config.d_model)

    def forward(self, x, dt):
        xz = self.in_proj(x)
       #^ Tensor[..., 2*d_model*expand]
        x, z = xz.chunk(2, dim=-1)
        delta = self.dt_proj(dt)
       #^ Tensor[..., d_model*expand]
        return self.out_proj(x * F.silu(z) * delta)


@dataclass
class GPTConfig:
    vocab_size: int = 50304
    block_size: int = 1024
    n_embd: int = 768


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
       #^ Tensor[b, t, n_embd]
        logits = self.lm_head(x)
       #^ Tensor[b, t, vocab_size]
        return logits


@dataclass
class ModelArgs:
    dim: int = 512
    vocab_size: int = -1


class TokenModel(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
       #^ Tensor[B, T, dim]
        return self.output(h)


# oracle: Block(BlockConfig(d_model=32))(torch.randn(2, 5, 32), torch.randn(2, 5, 2))
# oracle: GPT(GPTConfig(vocab_size=100, block_size=16, n_embd=32))(torch.randint(0, 100, (2, 8)))
# oracle: TokenModel(ModelArgs(dim=16, vocab_size=50))(torch.randint(0, 50, (2, 7)))
