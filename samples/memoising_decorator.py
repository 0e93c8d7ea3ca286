"""A decorator of the program that returns an object with `__call__` (speechbrain's
`memoise_at_least`: the call rounds its size argument up and keeps the result) replaces the
def: a call of the decorated name runs that `__call__`, not the def with the arguments as
given. Here the memo's state decides the size (`table(3, 4)` is `zeros(4, 4)`); where the
engine cannot follow it the result is unknown, never the `Tensor[3, 4]` of the bare def."""
import math

import torch


class AtLeast:
    def __init__(self, function, round_up):
        self.function = function
        self.round_up = round_up
        self.memo = {}

    def __call__(self, size, *args):
        if args not in self.memo or self.memo[args][0] < size:
            rounded_size = self.round_up(size)
            self.memo[args] = rounded_size, self.function(rounded_size, *args)
        return self.memo[args][1]


def at_least(round_up):
    def with_function(function):
        return AtLeast(function, round_up)
    return with_function


@at_least(lambda n: 2 ** int(math.ceil(math.log2(n))))
def table(n, width):
    return torch.zeros(n, width)


a = table(3, 4)
#^ none
b = table(2, 4)
#^ none
