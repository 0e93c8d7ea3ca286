"""Pure shape-analysis library: no LSP, no I/O, never imports torch."""
