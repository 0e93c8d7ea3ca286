"""A small vision transformer written with einops: patches by a Rearrange layer, a class
token by repeat, attention heads split with map(lambda ...) over chunk, einsum, pack/unpack
of the class token, mean pooling by reduce. The last line splits 64 channels into 6 heads."""
import torch
import torch.nn as nn
from einops import einsum, pack, parse_shape, rearrange, reduce, repeat, unpack
from einops.layers.torch import EinMix, Rearrange, Reduce


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=16):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.to_qkv = nn.Linear(dim, inner * 3, bias=False)
        self.to_out = nn.Sequential(Rearrange("b h n d -> b n (h d)"), nn.Linear(inner, dim))

    def forward(self, x):
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: rearrange(t, "b n (h d) -> b h n d", h=self.heads), qkv)
        #   ^ Tensor[2, 4, 17, 16]
        dots = einsum(q, k, "b h i d, b h j d -> b h i j") * self.scale
        #      ^ Tensor[2, 4, 17, 17]
        attn = dots.softmax(dim=-1)
        out = torch.einsum("bhij,bhjd->bhid", attn, v)
        #     ^ Tensor[2, 4, 17, 16]
        return self.to_out(out)


class ViT(nn.Module):
    def __init__(self, image_size=32, patch=8, dim=48, channels=3, classes=10):
        super().__init__()
        self.to_patches = nn.Sequential(
            Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=patch, p2=patch),
            nn.Linear(patch * patch * channels, dim),
        )
        self.cls_token = nn.Parameter(torch.randn(dim))
        self.attn = Attention(dim)
        self.mix = EinMix("b n d -> b n e", weight_shape="d e", bias_shape="e", d=dim, e=2 * dim)
        self.pool = Reduce("b n e -> b e", "mean")
        self.head = nn.Linear(2 * dim, classes)

    def forward(self, img):
        x = self.to_patches(img)
        #   ^ Tensor[2, 16, 48]
        cls = repeat(self.cls_token, "d -> b d", b=img.shape[0])
        #     ^ Tensor[2, 48]
        x, ps = pack([cls, x], "b * d")
        x = x + self.attn(x)
        #   ^ Tensor[2, 17, 48]
        cls, patches = unpack(x, ps, "b * d")
        #    ^ Tensor[2, 16, 48]
        feats = self.mix(patches)
        #       ^ Tensor[2, 16, 96]
        return self.head(self.pool(feats)), reduce(patches, "b (h w) d -> b d h w", "max", h=4)


if __name__ == "__main__":
    model = ViT()
    images = torch.randn(2, 3, 32, 32)
    logits, grid = model(images)
    #       ^ Tensor[2, 48, 4, 4]
    sizes = parse_shape(images, "b c _ _")
    flat = rearrange(images, "b c h w -> b (c h w)", **sizes)
    #      ^ Tensor[2, 3072]
    heads = rearrange(torch.randn(2, 10, 64), "b n (h d) -> b h n d", h=6)  # error: shape-mismatch
