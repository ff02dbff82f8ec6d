"""The text of ``metadata={op_type=... op_name=... source_file=... source_line=...}``.

XLA's parser reads this attribute into an ``OpMetadata`` proto; here the instruction keeps
the text and decodes it on first use with this reader, which the parser's instructions supply
(:class:`.instruction_line.ParsedInstruction`).
"""

from __future__ import annotations

from ..ir.instruction import OpMetadata
from .attributes import parse_key_values, quote, unquote

_INT_METADATA_FIELDS = ("source_line", "source_end_line", "source_column", "stack_frame_id")
_STR_METADATA_FIELDS = ("op_type", "op_name", "source_file")


def decode_metadata(raw: str) -> OpMetadata:
    """``{op_name="x" source_line=3}`` -> OpMetadata; unreadable text is kept in ``extra``."""
    try:
        pairs = parse_key_values(raw)
    except ValueError:
        return OpMetadata(extra=(("raw", raw),))
    fields: dict = {}
    extra = []
    for k, v in pairs:
        if k in _STR_METADATA_FIELDS:
            fields[k] = unquote(v)
        elif k in _INT_METADATA_FIELDS and v.lstrip("-").isdigit():
            fields[k] = int(v)
        else:
            extra.append((k, v))
    return OpMetadata(extra=tuple(extra), **fields)


def encode_metadata(md: OpMetadata) -> str:
    parts = []
    for k in ("op_type", "op_name", "source_file"):
        v = getattr(md, k)
        if v is not None:
            parts.append(f"{k}={quote(v)}")
    for k in _INT_METADATA_FIELDS:
        v = getattr(md, k)
        if v is not None:
            parts.append(f"{k}={v}")
    parts.extend(f"{k}={v}" for k, v in md.extra)
    return "{" + " ".join(parts) + "}"


class TextMetadataCodec:
    """:class:`xladoctor.ir.instruction.MetadataCodec` for HLO text."""

    def decode(self, raw: str) -> OpMetadata:
        return decode_metadata(raw)

    def encode(self, md: OpMetadata) -> str:
        return encode_metadata(md)
