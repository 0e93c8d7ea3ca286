"""Code written for distributed training run as one process, as this file runs: no process
group is set up, so `dist.is_initialized()` is False and the gather way is skipped
(CoCa's contrastive loss gathers latents across processes only when there are several)."""
import torch
import torch.distributed as dist
from torch import einsum

text_latents = torch.randn(4, 32)
image_latents = torch.randn(4, 32)
is_distributed = dist.is_initialized() and dist.get_world_size() > 1
if is_distributed:
    latents = torch.stack((text_latents, image_latents), dim=1)
    gathered = [torch.zeros_like(latents) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, latents)
    text_latents, image_latents = torch.cat(gathered, dim=0).unbind(dim=1)
sim = einsum('i d, j d -> i j', text_latents, image_latents)
#^ Tensor[4, 4]
