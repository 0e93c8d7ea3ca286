"""Subclasses of dict (Hugging Face's ACT2FN, a ClassInstantier(OrderedDict) that builds the
activation it is asked for, and ModelOutput, an OrderedDict read by key, by attribute and by
position): their items are the dict's, reached through their own `__getitem__` and
`__setitem__` and `super()`."""
from collections import OrderedDict

import torch
from torch import nn


class ClippedGELU(nn.Module):
    def __init__(self, low, high):
        super().__init__()
        self.low, self.high = low, high

    def forward(self, x):
        return torch.clip(nn.functional.gelu(x), self.low, self.high)


class ClassInstantier(OrderedDict):
    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


ACT2FN = ClassInstantier({"gelu": nn.GELU, "gelu_10": (ClippedGELU, {"low": -10, "high": 10})})


class ModelOutput(OrderedDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]


class MLP(nn.Module):
    def __init__(self, dim, act):
        super().__init__()
        self.fc = nn.Linear(dim, 4 * dim)
        self.act = ACT2FN[act]
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        h = self.act(self.fc(x))
       #^ Tensor[2, 5, 32]
        out = ModelOutput()
        out["last_hidden_state"] = self.proj(h)
        out["pooled"] = h.mean(1)
        return out


mlp = MLP(8, "gelu_10")
outputs = mlp(torch.randn(2, 5, 8))
first = outputs[0]
# ^ Tensor[2, 5, 8]
pooled = outputs["pooled"]
# ^ Tensor[2, 32]
by_name = outputs.last_hidden_state
# ^ Tensor[2, 5, 8]
count = torch.zeros(len(outputs), int("pooled" in outputs))
# ^ Tensor[2, 1]
logits = nn.Linear(16, 3)(pooled)  # error: shape-mismatch
