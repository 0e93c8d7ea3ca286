"""Packed sequences around a recurrent encoder, as speech and text models write it: the
padded batch is packed with its lengths, run through a bidirectional LSTM, and padded back.
The pack is no tensor (no hover), the LSTM's states are as for a tensor input, and the
padded output is as long as the longest length (known here from the lengths' values), or
`total_length` when it is given. Lengths that do not match the batch fail as torch does."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * hidden, dim)

    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)
        outputs, (h, c) = self.lstm(packed)
        #^ none
        padded, out_lengths = pad_packed_sequence(outputs, batch_first=True)
        full, _ = pad_packed_sequence(outputs, total_length=x.shape[1])
        return self.proj(padded), h


encoder = Encoder(4, 6)
y, h_n = encoder(torch.randn(2, 7, 4), torch.tensor([5, 3]))
#^ Tensor[2, 5, 4]
bad = pack_padded_sequence(torch.randn(2, 7, 4), torch.tensor([7, 5, 3]), batch_first=True)  # error: shape-mismatch
