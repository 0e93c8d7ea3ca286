"""Filter banks prepared with NumPy (pytorch_wavelets' style): NumPy arrays are modelled as
tensors, with torch's shape rules but not torch's errors, since NumPy's differ. A reversed
array (`h[::-1]`) is legal there, so no error is reported, and its shape is known."""
import numpy as np
import torch


def prep_filt(h0, h1):
    h0 = np.array(h0).ravel()[::-1]
   #^ Tensor[4]
    h1 = np.array(h1).ravel()[::-1]
    col = h0[None, :, None]
   #^ Tensor[1, 4, 1]
    row = np.arange(6)[::-2]
   #^ Tensor[3]
    return col, h1, row


col, h1, row = prep_filt([0.1, 0.2, 0.3, 0.4], [0.4, -0.3, 0.2, -0.1])
