"""Words and value forms of XLA's HLO text, shared by the full instruction reader and its fast path."""

from __future__ import annotations

import re

from ..base.lazy_pattern import LazyPattern
from ..ir.primitive import ARRAY_TYPE_NAMES
from .reader import lex_int64

# Words XLA's lexer reads as their own tokens (primitive types and keywords), so they cannot
# be names; checked against jaxlib by defining an instruction, a computation and a module with each.
PRIMITIVE_WORDS = ARRAY_TYPE_NAMES - {"opaque_type"}  # 'opaque_type' is spelled 'opaque' in text
KEYWORDS = PRIMITIVE_WORDS | {
    "opaque", "token", "ENTRY", "HloModule", "ROOT", "false", "true", "inf", "nan", "last_tile_dim_replicate",
    "manual", "maximal", "replicated", "shard_as", "shard_like", "unknown"}
# The form XLA's parser requires of an attribute's value (its first character), for the
# attributes the analyses read.
VALUE_FORM = {"custom_call_target": ('"', "a string"), "frontend_attributes": ("{", "'{'"),
              "metadata": ("{", "'{'"), "execution_thread": ('"', "a string")}
# Attributes XLA's parser reads as a braced list of int64 (AttrTy::kBracedInt64List): '{' integers
# separated by commas '}', nothing else inside ('dimensions={0:T(2,1)}': "expects a list to end with kRbrace").
# (not slice_sizes: a collective-permute writes a list of lists there).
BRACED_INT64_LIST_ATTRIBUTES = frozenset((
    "dimensions", "dynamic_slice_sizes", "offset_dims", "collapsed_slice_dims", "start_index_map",
    "operand_batching_dims", "start_indices_batching_dims", "update_window_dims", "inserted_window_dims",
    "scatter_dims_to_operand_dims", "input_batching_dims", "scatter_indices_batching_dims", "lhs_batch_dims",
    "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims", "lhs_ragged_dims", "rhs_group_dims",
    "fft_length"))
BRACED_INT64_LIST = LazyPattern(r"\{\s*(?:[-+]?\w+\s*(?:,\s*[-+]?\w+\s*)*)?\}\Z")
_INT = r"\s*[-+]?\w+\s*"
_SLICE_RANGE = rf"\[{_INT}:{_INT}(?::{_INT})?\]"
_PAIR = rf"\{{{_INT},{_INT}\}}"
_GROUP = rf"\{{(?:{_INT}(?:,{_INT})*|\s*)\}}"
# Attribute values with a fixed grammar in XLA's parser (comments stripped first), and what it expects;
# compiled by the first such attribute the full reader meets (~1.5 ms of start-up that a train step never needs).
VALUE_GRAMMARS: dict[str, tuple[LazyPattern, str]] = {
    **{a: (BRACED_INT64_LIST, "a list of integers in braces (XLA: expects a list to end with kRbrace)")
       for a in BRACED_INT64_LIST_ATTRIBUTES},
    "slice": (LazyPattern(rf"\{{\s*(?:{_SLICE_RANGE}\s*(?:,\s*{_SLICE_RANGE}\s*)*)?\}}\Z"),
              "{[start:limit(:stride)], ...} of integers (XLA: expects integer)"),
    "result_accuracy": (LazyPattern(r"\{(?:mode=(?i:default|highest)|tolerance=\{[^{}]*\})\}\Z"),
                        "{mode=default|highest} or {tolerance={...}} (XLA: expects ResultAccuracy type)"),
    # the braced form only: the iota ('[2,4]<=[8]') and mesh forms are read as text
    "replica_groups": (LazyPattern(rf"(?:\{{\s*(?:{_GROUP}\s*(?:,\s*{_GROUP}\s*)*)?\}}|[^{{].*)\Z", re.S),
                       "a list of {integer, ...} groups (XLA: expects a list to end with kRbrace)"),
    "source_target_pairs": (LazyPattern(rf"\{{\s*(?:{_PAIR}\s*(?:,\s*{_PAIR}\s*)*)?\}}\Z"),
                            "a list of {source,target} integer pairs (XLA: expects a list of pairs)"),
    # CustomCallApiVersion by name in any case (XLA upper-cases it); a number or another name is refused.
    # API_VERSION_UNSPECIFIED is read, as torch_xla writes it on every custom call, though jaxlib then
    # refuses it ("Invalid API version"): --confirm compiles it as API_VERSION_ORIGINAL (oracle/api_version.py)
    "api_version": (LazyPattern(r"(?i:API_VERSION_(?:UNSPECIFIED|ORIGINAL|STATUS_RETURNING(?:_UNIFIED)?|TYPED_FFI))\Z"),
                    "a custom-call API version: API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING(_UNIFIED) or "
                    "API_VERSION_TYPED_FFI (XLA: expects custom-call API version)"),
}
# The fusion kinds XLA's parser knows (StringToFusionKind); any other is "Unknown fusion kind".
FUSION_KINDS = frozenset(("kLoop", "kInput", "kOutput", "kCustom"))
# Attributes XLA's parser reads as one int64 (AttrTy::kInt64): anything else is "expects integer".
INT64_ATTRIBUTES = frozenset(("iota_dimension", "exponent_bits", "mantissa_bits", "feature_group_count",
                              "batch_group_count", "channel_id"))
METADATA_STRINGS = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
METADATA_INTS = ("source_line", "source_end_line", "source_column", "source_end_column", "stack_frame_id")
# The metadata XLA and jax print: known keys, escape-free strings, integers of up to 9 digits
# (always within XLA's int32).  Anything else takes the slower exact path (the full reader's
# metadata check, which range-checks).  One alternation per key=value pair, never per character, so the regex stays linear in memory on a huge string.
_METADATA_FAST_TEXT = (
    r'\{\s*(?:(?:op_type|op_name|source_file|deduplicated_name|scheduling_name)="[^"\\]*"'
    r"|(?:source_line|source_end_line|source_column|source_end_column|stack_frame_id)=-?[0-9]{1,9}"
    r")?(?:\s+(?:(?:op_type|op_name|source_file|deduplicated_name|scheduling_name)=\"[^\"\\\\]*\""
    r"|(?:source_line|source_end_line|source_column|source_end_column|stack_frame_id)=-?[0-9]{1,9}))*\s*\}")
# The keys of metadata the fast pattern took (its strings hold no quote, so none is read inside one).
_METADATA_KEY_TEXT = r'([a-z_]+)=(?:"[^"]*"|-?[0-9]+)'
_METADATA: list[re.Pattern[str]] = []
"""The fast metadata pattern and the key pattern, compiled by the first metadata read: ~0.5 ms of start-up that a
module without metadata (jax's ``as_text("hlo")``, the train steps) never needs (issue 36)."""


def _metadata_patterns() -> list[re.Pattern[str]]:
    if not _METADATA:
        _METADATA.extend((re.compile(_METADATA_FAST_TEXT), re.compile(_METADATA_KEY_TEXT)))
    return _METADATA


def metadata_fast(raw: str) -> bool:
    """Whether ``metadata={...}`` is the common form XLA accepts: the fast pattern, each key once."""
    patterns = _METADATA or _metadata_patterns()
    if not patterns[0].fullmatch(raw):
        return False
    keys = patterns[1].findall(raw)
    return len(set(keys)) == len(keys)


# XLA's LexNumberOrPattern (hlo_lexer.cc): a token that starts with a digit, '-' or '?' is never a
# name.  It is the first of these its patterns consume (RE2 leftmost-first, as Python's re), and
# whatever follows is the next token: 'to_apply=1comp' is the integer 1 then the name 'comp'
# ("expects name"), 'index=0dd.7 = ...' is index 0, then the instruction 'dd.7'.
_NUMBER_TEXTS = (
    r"-?(?:(?:[0-9]+|[0-9]+[.][0-9]*|[0-9]*[.][0-9]+)(?:[eE][+-]?[0-9]+))|-?(?:[0-9]+[.][0-9]*|[0-9]*[.][0-9]+)",
    r"[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}",  # dim labels
    r"[0-9]+(?:x[0-9]+)+",  # DxD
    r"-?[0-9]+_-?[0-9]+(?:_[0-9]+)?(?:x-?[0-9]+_-?[0-9]+(?:_[0-9]+)?)*",  # pad
)
_NUMBERS: list[re.Pattern[str]] = []
"""The number patterns, then the integer and the negative words: compiled by the first token that
starts with a digit, '-' or '?' in an attribute the fast reader leaves to the full one (~0.4 ms of
start-up most modules never need, issue 36)."""


def _number_patterns() -> list[re.Pattern[str]]:
    if not _NUMBERS:
        _NUMBERS.extend(re.compile(p) for p in (*_NUMBER_TEXTS, r"-?[0-9]+", r"-inf|-nan"))
    return _NUMBERS


def number_token_end(text: str, pos: int) -> int:
    """End of the token XLA's lexer reads at ``text[pos]`` (a digit, '-' or '?'), or -1 where it
    reads none there (kError: '-a', an integer beyond 64 bits).  '->' is the arrow token.

    '-nan(...)' payloads are not read here: the caller's own value scan takes them.
    """
    patterns = _NUMBERS or _number_patterns()
    for i in range(4):
        m = patterns[i].match(text, pos)
        if m is not None:
            return m.end()
    m = patterns[4].match(text, pos)
    if m is not None:
        return m.end() if lex_int64(m.group(0)) is not None else -1  # LexInt64Impl: beyond 64 bits is an error
    if text.startswith("->", pos):
        return pos + 2
    m = patterns[5].match(text, pos)
    return m.end() if m is not None else -1
