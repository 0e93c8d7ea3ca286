"""Blocks kept as ModuleDicts (rtdl's FT-Transformer): the first block has no
'attention_normalization' entry, the others do, and `forward` tests `'...' in block`. The
test reads the ModuleDict's keys, so each block runs the layers it has (the test used to be
undecided, and the way that indexed a missing key left every line after it unknown)."""
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, d_block, n_blocks):
        super().__init__()
        self.blocks = nn.ModuleList([
            nn.ModuleDict({
                'ffn': nn.Linear(d_block, d_block),
                'output': nn.Identity(),
                **({} if layer_idx == 0 else {'attention_normalization': nn.LayerNorm(d_block)}),
            })
            for layer_idx in range(n_blocks)
        ])

    def forward(self, x):
        for block in self.blocks:
            x_identity = x
            if 'attention_normalization' in block:
                x = block['attention_normalization'](x)
            x = block['ffn'](x)
            x = x_identity + x
            #^ Tensor[2, 3, 8]
            x = block['output'](x)
        return x


net = Backbone(8, 2)
y = net(torch.randn(2, 3, 8))
#^ Tensor[2, 3, 8]
