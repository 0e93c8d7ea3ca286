"""A rank checked by a test that raises (`if emissions.dim() != 3: raise ValueError(...)`),
in the method itself or in a validation helper it calls, as a CRF layer does. Nobody calls
`decode` here: the code goes on only for rank 3, so that is the input's rank, as with
`assert emissions.dim() == 3`."""
import torch
from torch import nn


class CRF(nn.Module):
    def __init__(self, num_tags):
        super().__init__()
        self.num_tags = num_tags
        self.transitions = nn.Parameter(torch.randn(num_tags, num_tags))

    def _validate(self, emissions):
        if emissions.dim() != 3:
            raise ValueError(f"emissions must have dimension of 3, got {emissions.dim()}")

    def decode(self, emissions):
        self._validate(emissions)
        emissions = emissions.transpose(0, 1)
        #^ Tensor[T, B, C]
        score = emissions[0].unsqueeze(2) + self.transitions
        #^ Tensor[B, max(C, num_tags), num_tags]
        return score

    def scores(self, emissions):
        if emissions.ndim not in (3,):
            raise ValueError("expected a batch of sequences")
        flat = emissions.flatten(0, 1)
        #^ Tensor[B*T, C]
        return flat


# oracle: CRF(num_tags=5).decode(torch.randn(2, 7, 5))
# oracle: CRF(num_tags=5).scores(torch.randn(2, 7, 5))
