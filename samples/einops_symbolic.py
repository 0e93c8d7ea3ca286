"""einops on symbolic shapes (jaxtyping): a head split that only some channel counts allow
is a warning, one that no input allows is an error; asserts and named lengths settle them."""
from einops import rearrange, reduce, repeat
from jaxtyping import Float
from torch import Tensor


def split_heads(x: Float[Tensor, "B N C"]):
    return rearrange(x, "b n (h d) -> b h n d", h=8)  # warning: shape-mismatch


def split_heads_checked(x: Float[Tensor, "B N C"]):
    assert x.shape[-1] % 8 == 0
    heads = rearrange(x, "b n (h d) -> b h n d", h=8)
    #       ^ Tensor[B, 8, N, C//8]
    return rearrange(heads, "b h n d -> b n h d")
    #      ^ Tensor[B, N, 8, C//8]


def merge_again(x: Float[Tensor, "B N C"]):
    assert x.shape[-1] % 4 == 0
    return rearrange(x, "b n (h d) -> b n (d h)", h=4)
    #      ^ Tensor[B, N, C]


def patches(img: Float[Tensor, "B 3 H W"]):
    return rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4)  # warning: shape-mismatch


def fixed_width(x: Float[Tensor, "B 12 C"]):
    return rearrange(x, "b (h d) c -> b h d c", h=5)  # error: shape-mismatch


def pool(x: Float[Tensor, "B C 32 32"]):
    return reduce(x, "b c (h 2) (w 2) -> b c h w", "max")
    #      ^ Tensor[B, C, 16, 16]


def tile(x: Float[Tensor, "B C"]):
    return repeat(x, "b c -> b n c", n=4)
    #      ^ Tensor[B, 4, C]


def wrong_rank(x: Float[Tensor, "B C"]):
    return rearrange(x, "b c h -> b (c h)")  # error: shape-mismatch


def typo_in_pattern(x):
    # Whatever x is, einops refuses a pattern with an axis on one side only.
    return rearrange(x, "b n (h d) -> b h n dx", h=4)  # error: illegal-value
