"""An in-place reshape through another name for the same tensor: a question-answering head
drops the dim a batch split added with `for x in (start_positions, end_positions): ...
x.squeeze_(-1)`. The loop variable is the tensor itself, so `start_positions` is squeezed
too and the loss gets the 1-D targets it needs (no error)."""
import torch
from torch import nn


class SpanHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.start = nn.Linear(hidden, 1)

    def forward(self, hidden_states, start_positions, end_positions):
        logits = self.start(hidden_states).squeeze(-1)
        #^ Tensor[2, 7]
        for x in (start_positions, end_positions):
            if x.dim() > 1:
                x.squeeze_(-1)
        targets = start_positions
        #^ Tensor[2]
        loss = nn.CrossEntropyLoss()(logits, start_positions)
        #^ Tensor[]
        return loss


head = SpanHead(16)
loss = head(torch.randn(2, 7, 16), torch.tensor([[1], [3]]), torch.tensor([[4], [6]]))
