"""A transformer language model with sinusoidal positional encoding (sequence-first)."""
import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=500):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        #    ^ Tensor[500, 1, 32]
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def generate_square_subsequent_mask(self, sz):
        return torch.triu(torch.full((sz, sz), float("-inf")), diagonal=1)

    def forward(self, src):
        mask = self.generate_square_subsequent_mask(src.size(0))
        src = self.encoder(src) * math.sqrt(self.ninp)
        #     ^ Tensor[35, 4, 32]
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, mask)
        output = self.decoder(output)
        return torch.log_softmax(output, dim=-1)


if __name__ == "__main__":
    model = TransformerModel(ntoken=100, ninp=32, nhead=4, nhid=64, nlayers=2)
    tokens = torch.randint(0, 100, (35, 4))
    log_probs = model(tokens)
    # ^ Tensor[35, 4, 100]
    loss = nn.NLLLoss()(log_probs.view(-1, 100), torch.randint(0, 100, (35 * 4,)))
