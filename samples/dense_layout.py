"""Every tensor the analysis knows is dense (strided), as torch.randn and the ops make them:
`x.layout == torch.sparse_csr` and `x.is_sparse` are False, so a library's branch for sparse
input (torch_geometric's CSR edge index) is not taken, and the dense way's shape is the
only one."""
import torch


def source_nodes(edge_index):
    if edge_index.layout == torch.sparse_csr or edge_index.is_sparse:
        ptr = edge_index.crow_indices()
        return torch.arange(ptr.numel() - 1).repeat_interleave(ptr.diff())
    row = edge_index[0]
    return row


edges = torch.randint(0, 5, (2, 7))
src = source_nodes(edges)
#^ Tensor[7]
layout = edges.layout == torch.strided
