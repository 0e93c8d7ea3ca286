"""numpy's random sampling (modelled as tensors, like every numpy array): a k-means
initialisation picks its centres with `np.random.choice(n, k, replace=False)`, a shuffle uses
`np.random.permutation(n)`, noise comes from `np.random.randn(*dims)`. The arrays have the size
asked for, so indexing with them and converting them keep shapes known."""
import numpy as np
import torch


def initialize(X, num_clusters):
    num_samples = len(X)
    indices = np.random.choice(num_samples, num_clusters, replace=False)
    initial_state = X[indices]
    #^ Tensor[3, 3]
    return initial_state


def shuffled(X):
    perm = torch.from_numpy(np.random.permutation(len(X)))
    return X[perm]


state = initialize(torch.randn(40, 3), 3)
rows = shuffled(torch.randn(12, 5))
#      ^ Tensor[12, 5]
noise = torch.from_numpy(np.random.randn(4, 5)).float()
#       ^ Tensor[4, 5]
labels = torch.from_numpy(np.random.randint(0, 10, size=(2, 3)))
#        ^ Tensor[2, 3]
