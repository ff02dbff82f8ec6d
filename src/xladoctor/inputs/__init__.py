"""Executable inputs: checking supplied buffers against what a compiled program expects (E0102)."""
