"""ViT-style blocks with no example call."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchEmbed(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        x = self.proj(x)
       #^ Tensor[B, embed_dim, H//patch_size, W//patch_size]
        x = x.flatten(2)
       #^ Tensor[B, embed_dim, (H//patch_size)*(W//patch_size)]
        x = x.transpose(1, 2)
       #^ Tensor[B, (H//patch_size)*(W//patch_size), embed_dim]
        return x


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
       #^ Tensor[3, B, num_heads, (H//patch_size)*(W//patch_size) + 1, embed_dim//num_heads]
        q, k, v = qkv.unbind(0)
       #^ Tensor[B, num_heads, (H//patch_size)*(W//patch_size) + 1, embed_dim//num_heads]
        attn = (q @ k.transpose(-2, -1)) * self.scale
       #^ Tensor[B, num_heads, (H//patch_size)*(W//patch_size) + 1, (H//patch_size)*(W//patch_size) + 1]
        attn = attn.softmax(dim=-1)
       #^ Tensor[B, num_heads, (H//patch_size)*(W//patch_size) + 1, (H//patch_size)*(W//patch_size) + 1]
        attn = self.attn_drop(attn)
       #^ Tensor[B, num_heads, (H//patch_size)*(W//patch_size) + 1, (H//patch_size)*(W//patch_size) + 1]
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        x = self.proj(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        x = self.proj_drop(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        return x


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None, drop=0.0):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, out_features)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        x = self.fc1(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, 4*embed_dim]
        x = self.act(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, 4*embed_dim]
        x = self.drop(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, 4*embed_dim]
        x = self.fc2(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        x = self.drop(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        return x


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4.0, qkv_bias=False):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(in_features=dim, hidden_features=int(dim * mlp_ratio))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        x = x + self.mlp(self.norm2(x))
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        return x


class VisionTransformer(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, num_classes=1000, embed_dim=768,
                 depth=12, num_heads=12):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, in_chans, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, embed_dim))
        self.blocks = nn.ModuleList([Block(embed_dim, num_heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
       #^ Tensor[B, (H//patch_size)*(W//patch_size), embed_dim]
        cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
       #^ Tensor[B, 1, embed_dim]
        x = torch.cat((cls_tokens, x), dim=1)
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        x = x + self.pos_embed
       #^ Tensor[B, (H//patch_size)*(W//patch_size) + 1, embed_dim]
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        return self.head(x[:, 0])

# No example call: a training script builds these. The oracle test runs them like this:
# oracle: VisionTransformer(img_size=32, patch_size=8, num_classes=5, embed_dim=24, depth=2, num_heads=4)(torch.randn(2, 3, 32, 32))
