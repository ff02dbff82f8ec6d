"""Words and value forms of XLA's HLO text, shared by the full instruction reader and its fast path."""

from __future__ import annotations

import re

from ..ir.primitive import ARRAY_TYPE_NAMES

# Words XLA's lexer reads as their own tokens (primitive types and keywords), so they cannot
# be names; checked against jaxlib by defining an instruction, a computation and a module with each.
KEYWORDS = (ARRAY_TYPE_NAMES - {"opaque_type"}) | {
    "opaque", "token", "ENTRY", "HloModule", "ROOT", "false", "true", "inf", "nan", "last_tile_dim_replicate",
    "manual", "maximal", "replicated", "shard_as", "shard_like", "unknown"}
# The form XLA's parser requires of an attribute's value (its first character), for the
# attributes the analyses read.
VALUE_FORM = {"custom_call_target": ('"', "a string"), "frontend_attributes": ("{", "'{'"),
              "metadata": ("{", "'{'"), "execution_thread": ('"', "a string")}
METADATA_STRINGS = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
METADATA_INTS = ("source_line", "source_end_line", "source_column", "source_end_column", "stack_frame_id")
# The metadata XLA and jax print: known keys, escape-free strings, integers of up to 9 digits
# (always within XLA's int32).  Anything else takes the slower exact path (the full reader's
# metadata check, which range-checks).  One alternation per key=value pair, never per character, so the regex stays linear in memory on a huge string.
METADATA_FAST = re.compile(
    r'\{\s*(?:(?:op_type|op_name|source_file|deduplicated_name|scheduling_name)="[^"\\]*"'
    r"|(?:source_line|source_end_line|source_column|source_end_column|stack_frame_id)=-?[0-9]{1,9}"
    r")?(?:\s+(?:(?:op_type|op_name|source_file|deduplicated_name|scheduling_name)=\"[^\"\\\\]*\""
    r"|(?:source_line|source_end_line|source_column|source_end_column|stack_frame_id)=-?[0-9]{1,9}))*\s*\}")
# The keys of metadata METADATA_FAST took (its strings hold no quote, so none is read inside one).
_METADATA_KEY = re.compile(r'([a-z_]+)=(?:"[^"]*"|-?[0-9]+)')


def metadata_fast(raw: str) -> bool:
    """Whether ``metadata={...}`` is the common form XLA accepts: METADATA_FAST, each key once."""
    if not METADATA_FAST.fullmatch(raw):
        return False
    keys = _METADATA_KEY.findall(raw)
    return len(set(keys)) == len(keys)
