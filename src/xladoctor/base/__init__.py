"""The base layer: text, files, processes and the words people read; nothing of XLA."""
