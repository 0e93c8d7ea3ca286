"""A model with many switches, with no example call.

`Stack` builds its layers in a loop whose rounds add a cross-attention layer when
`cross_attend` is set (`if not cross_attend: continue`); the model hands `cross_attend` and
two more flags down. Three things made `self.stack(x)` Unknown: the flags a part splits on
were recorded on the part only; with more flags than a world per combination allows, the
model ran with them joined (where a cross-attention layer, which needs a context this model
never passes, may be any layer of the stack); and the way that
leaves the round by `continue` was taken for one that raises, so the model was thought never
built with `cross_attend=False`. Now the flags are the model's own, the model runs once with
every flag at its default (a guess, labelled so, whose shapes are shown: what fails there is
a warning, since its other flags may be the ones used), and `continue` is no raise."""
import torch
from torch import nn


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, glu=False):
        super().__init__()
        self.glu = glu
        self.w1 = nn.Linear(dim, dim * mult * (2 if glu else 1))
        self.w2 = nn.Linear(dim * mult, dim)

    def forward(self, x, **kwargs):
        if self.glu:
            x, gate = self.w1(x).chunk(2, dim=-1)
            x = x * torch.sigmoid(gate)
        else:
            x = torch.relu(self.w1(x))
        return self.w2(x)


class CrossAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_kv = nn.Linear(dim, 2 * dim)

    def forward(self, x, context=None, **kwargs):
        assert context is not None, "cross attention needs a context"
        q = self.to_q(x)
        k, v = self.to_kv(context).chunk(2, dim=-1)
        attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
        return attn @ v


class Stack(nn.Module):
    def __init__(self, dim, depth, cross_attend=False, ff_glu=False, pre_norm=False):
        super().__init__()
        self.scale = 0.5 if pre_norm else 1.0
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(FeedForward(dim, glu=ff_glu))
            if not cross_attend:
                continue
            self.layers.append(CrossAttention(dim))

    def forward(self, x, **kwargs):
        for layer in self.layers:
            x = x + self.scale * layer(x, **kwargs)
        return x


class TokenModel(nn.Module):
    def __init__(self, num_tokens, dim, depth, cross_attend=False, ff_glu=False, pre_norm=False,
                 tie_embedding=False):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.stack = Stack(dim, depth, cross_attend, ff_glu, pre_norm)
        self.norm = nn.LayerNorm(dim)
        self.to_logits = nn.Linear(dim, num_tokens) if not tie_embedding else None

    def forward(self, x):
        x = self.token_emb(x)
        x = self.stack(x)
       #^ Tensor[B, T, dim]
        x = self.norm(x)
        return self.to_logits(x)


# oracle: TokenModel(50, 8, 2)(torch.randint(0, 50, (2, 5)))
# oracle: TokenModel(50, 8, 2, ff_glu=True, pre_norm=True)(torch.randint(0, 50, (2, 5)))
