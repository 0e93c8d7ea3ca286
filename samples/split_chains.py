"""A method call split over lines (`(...)` then `.transpose(1, 3)` on the next line): Python's
traceback names the line of the method name, and so does the squiggle. A function call
split over lines (`torch.cat(` then its arguments), and a method call given `*args` (which
Python does not compile as a method call: `(...).reshape(*shape)`), are named at their first
line."""
import torch


def features(x):
    h = (
        x.flatten(2)
        * 2
    ).transpose(1, 2)
   #^ Tensor[4, 64, 8]
    return torch.cat(
        [h, h], dim=-1
    )


def broken(x):
    return (
        x.flatten(2)
        + 1
    ).transpose(1, 3)  # error: improper-value


def broken_starred(x, shape):
    return (  # error: shape-mismatch
        x.flatten(2)
        * 2
    ).reshape(*shape)


out = features(torch.randn(4, 8, 8, 8))
#^ Tensor[4, 64, 16]
bad_starred = broken_starred(torch.randn(4, 8, 8, 8), (4, 8, 65))
bad = broken(torch.randn(4, 8, 8, 8))
