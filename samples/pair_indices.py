"""Metric-learning index helpers: `torch.where(mask)` gives one 1-D index tensor per dim, of
a length only the data decides (`Tensor[?]`); `.byte()`, `.char()` and `.short()` keep the
shape; and a guard against too many elements, `n * n < torch.iinfo(torch.int32).max`, is
decided from its numbers, so only the vectorized way runs for a small batch."""
import torch


def matches_and_diffs(labels):
    matches = (labels.unsqueeze(1) == labels.unsqueeze(0)).byte()
    #^ Tensor[8, 8]
    diffs = matches ^ 1
    return matches, diffs


def all_triplets(labels):
    matches, diffs = matches_and_diffs(labels)
    if matches.shape[0] * matches.shape[1] * matches.shape[1] < torch.iinfo(torch.int32).max:
        triplets = matches.unsqueeze(2) * diffs.unsqueeze(1)
        #^ Tensor[8, 8, 8]
        return torch.where(triplets)
    anchors = torch.arange(labels.shape[0]).repeat(2, 1)
    return anchors[0], anchors[1], anchors[1]


labels = torch.randint(0, 3, (8,))
a, p, n = all_triplets(labels)
#^ Tensor[?]

# exactness: open
