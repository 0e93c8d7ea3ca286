"""A dataclass that is a UserDict (gluonts' InputSpec): its inherited `items()`, `spec[name]`
and `len(spec)` read its `data` dict, so the zero inputs it makes have the shapes it
describes."""
from collections import UserDict
from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple

import torch


@dataclass
class Input:
    shape: Tuple[int, ...]
    dtype: Any
    required: bool = True


@dataclass
class InputSpec(UserDict):
    data: Dict[str, Input]
    zeros_fn: Callable

    def zeros(self):
        return {name: self.zeros_fn(inp.shape, dtype=inp.dtype) for name, inp in self.items()}


spec = InputSpec({"past_target": Input(shape=(2, 16), dtype=torch.float),
                  "past_time_feat": Input(shape=(2, 16, 3), dtype=torch.float)}, zeros_fn=torch.zeros)
inputs = spec.zeros()
target = inputs["past_target"]
# ^ Tensor[2, 16]
feats = torch.randn(*spec["past_time_feat"].shape)
# ^ Tensor[2, 16, 3]
both = torch.cat([target.unsqueeze(-1), feats], dim=-1)
# ^ Tensor[2, 16, 4]
count = torch.zeros(len(spec))
# ^ Tensor[2]
