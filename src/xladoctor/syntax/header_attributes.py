"""The attributes of the ``HloModule`` header, checked as XLA's ``ParseHloModule`` reads them.

XLA's parser knows a fixed set of header attributes (:data:`HEADER_ATTRIBUTES`,
jaxlib 0.10.2's list), each once, each of one kind: a bool (``true``/``false``),
an int64, a bool or braced bool list, or a structured value whose grammar
``ParseAliasing`` / ``ParseBufferDonor`` / ``ParseShapeIndex`` read strictly.
:func:`check_header_attribute` raises :class:`HeaderAttributeError` with XLA's message.
"""

from __future__ import annotations

import re

from ..base.lazy_pattern import LazyPattern
from .reader import lex_int64

HEADER_ATTRIBUTES = ("alias_passthrough_params", "allow_spmd_sharding_propagation_to_output",
                     "allow_spmd_sharding_propagation_to_parameters", "buffer_donor", "entry_computation_layout",
                     "frontend_attributes", "input_output_alias", "is_scheduled", "num_partitions",
                     "origin_recovery_table", "replica_count")
_BOOLS = frozenset({"is_scheduled", "alias_passthrough_params"})
_INTS = frozenset({"replica_count", "num_partitions"})
_BOOL_LISTS = frozenset({"allow_spmd_sharding_propagation_to_output", "allow_spmd_sharding_propagation_to_parameters"})
_TOKEN = LazyPattern(r"\s*(?:(/\*.*?\*/)|([{}():,])|(-?[0-9]+)(?![A-Za-z0-9_.])|([A-Za-z_][A-Za-z0-9_.\-]*)|(\S))", re.S)


class HeaderAttributeError(ValueError):
    """XLA's message, and the offset in the value where it stands."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.offset = offset


def check_header_attribute(name: str, raw: str, seen: set[str]) -> None:
    """One ``name=raw`` of the header, after the ones in ``seen``; raises where XLA refuses it."""
    if name not in HEADER_ATTRIBUTES:
        raise HeaderAttributeError(f'unexpected attribute "{name}". Allowed attributes: '
                                   + ", ".join(HEADER_ATTRIBUTES))
    if name in seen:
        raise HeaderAttributeError(f"attribute {name} already exists")
    seen.add(name)
    if name in _BOOLS and raw not in ("true", "false"):
        raise HeaderAttributeError("expects true or false")
    if name in _INTS and lex_int64(raw) is None:
        raise HeaderAttributeError("expects integer")
    if name in _BOOL_LISTS and raw not in ("true", "false"):
        _Tokens(raw).bool_list()
    if name == "input_output_alias":
        _Tokens(raw).aliasing()
    elif name == "buffer_donor":
        _Tokens(raw).buffer_donor()


class _Tokens:
    """The value's tokens (XLA's lexer: comments skipped) and a cursor."""

    def __init__(self, raw: str):
        self.toks = [(m.group(0).strip(), m.start(m.lastindex or 0), m.lastindex)
                     for m in _TOKEN.finditer(raw) if m.lastindex != 1]
        self.at = 0
        self.end = len(raw)

    def peek(self) -> str | None:
        return self.toks[self.at][0] if self.at < len(self.toks) else None

    def fail(self, message: str) -> HeaderAttributeError:
        pos = self.toks[self.at][1] if self.at < len(self.toks) else self.end
        return HeaderAttributeError(message, pos)

    def expect(self, tok: str, message: str) -> None:
        if self.peek() != tok:
            raise self.fail(message)
        self.at += 1

    def accept(self, tok: str) -> bool:
        if self.peek() == tok:
            self.at += 1
            return True
        return False

    def int64(self) -> None:
        if self.at >= len(self.toks) or self.toks[self.at][2] != 3 or lex_int64(self.toks[self.at][0]) is None:
            raise self.fail("expects integer")
        self.at += 1

    def done(self) -> None:
        if self.at < len(self.toks):
            raise self.fail("unexpected text after the attribute value")

    def shape_index(self) -> None:
        self.expect("{", "Expects '{' at the start of ShapeIndex")
        while self.peek() != "}":
            self.int64()
            if not self.accept(","):
                break
        self.expect("}", "Expects '}' at the end of ShapeIndex")

    def aliasing(self) -> None:
        """``{ {out}: (param, {index}[, may-alias|must-alias]), ... }``"""
        form = ("Expected format: <output_shape_index>: (<input_param>, <input_param_shape_index>) OR "
                "<output_shape_index>: <input_param>")
        self.expect("{", "Expects '{' at the start of aliasing description")
        while self.peek() != "}":
            self.shape_index()
            self.expect(":", form)
            self.expect("(", form)
            self.int64()
            self.expect(",", form)
            self.shape_index()
            if self.accept(","):
                if self.peek() not in ("must-alias", "may-alias"):
                    raise self.fail("Unexpected aliasing kind; expected SYSTEM or USER")
                self.at += 1
            self.expect(")", form)
            if not self.accept(","):
                break
        self.expect("}", "Expects '}' at the end of aliasing description")
        self.done()

    def buffer_donor(self) -> None:
        """``{ (param, {index}), ... }``"""
        form = "Expected format: (<input_param>, <input_param_shape_index>)"
        self.expect("{", "Expects '{' at the start of buffer donor description")
        while self.peek() != "}":
            self.expect("(", form)
            self.int64()
            self.expect(",", form)
            self.shape_index()
            self.expect(")", form)
            if not self.accept(","):
                break
        self.expect("}", "Expects '}' at the end of buffer donor description")
        self.done()

    def bool_list(self) -> None:
        self.expect("{", "expects '{' or a bool")
        while self.peek() != "}":
            if self.peek() not in ("true", "false"):
                raise self.fail("expects true or false")
            self.at += 1
            if not self.accept(","):
                break
        self.expect("}", "expects '}' at the end of a bool list")
        self.done()
