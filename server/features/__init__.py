"""One module per LSP feature."""
