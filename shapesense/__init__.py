"""ShapeSense: PyTorch tensor shapes while you type."""
