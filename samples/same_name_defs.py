"""Two defs of one name in one body: a helper defined on each way of a check whose value is
not known (torchtune's `_sdpa_or_flex_attention`: flex attention when CUDA says so, SDPA
otherwise), and a property with its setter. Each def keeps its own body: the helper is
one of the two, called each way, and the property reads with the getter and is set
with the setter."""
import torch
from torch import nn

_SUPPORTS_FLEX = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (7, 5)


def sdpa_or_flex():
    if _SUPPORTS_FLEX:
        def attention_call(q, k, v, mask):
            return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    else:
        def attention_call(q, k, v, mask):
            if mask is not None:
                mask = mask[:, None, :, :]
            return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return attention_call


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self._heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attend = sdpa_or_flex()

    @property
    def heads(self):
        return self._heads

    @heads.setter
    def heads(self, value):
        self._heads = value
        self.scale = (32 // value) ** -0.5

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
       #^ Tensor[2, 4, 6, 8]
        out = self.attend(q, k, v, None)
       #^ Tensor[2, 4, 6, 8]
        return out.transpose(1, 2).reshape(b, n, d)


attn = Attention(32, heads=4)
y = attn(torch.randn(2, 6, 32))
#^ Tensor[2, 6, 32]
attn.heads = 2
q = attn.qkv(torch.randn(2, 6, 32)).view(2, 6, 3, attn.heads, -1)
#^ Tensor[2, 6, 3, 2, 16]
