"""TPU topologies the oracle compiles for (names as ``jax.experimental.topologies`` takes them).

Kept import-free so the CLI can offer ``--topology`` without loading the oracle.
"""

DEFAULT_TOPOLOGY = "v5e:2x2"
TOPOLOGIES = ("v5e:2x2", "v4:2x2x1", "v5p:2x2x1", "v6e:2x2")
