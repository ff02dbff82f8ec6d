"""Reading one instruction token by token, as XLA's parser does: the full reader.

Used for every line the fast path (:mod:`.instruction_line`) does not take, so it decides
what is accepted and how a refusal is worded: operands (current and typed forms, XLA's
empty entries), ``parameter(N)``, constant literals, attributes with XLA's per-opcode
allow-lists, metadata keys and value forms, and the decoding of the attributes analyses read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Container, Mapping, Sequence
from types import MappingProxyType

from ..base.errors import HloParseError
from ..ir.computation import HloComputation
from ..ir.instruction import CALLED_COMPUTATION_ROLES, HloInstruction
from ..ir.module import HloModule
from ..ir.opcode_rules import (
    ASYNC_SUGAR_ATTRIBUTES,
    METADATA_KEYS,
)
from ..ir.opcodes import ASYNC_START, CONSTANT, FUSION, OPCODES_BY_SPELLING, PARAMETER, TUPLE, HloOpcode
from ..ir.primitive import ARRAY_TYPE_NAMES
from ..ir.shape import Shape
from ..ir.shape_inference import CAN_INFER
from .async_sugar import split_sugar
from .attributes import parse_aliasing, parse_key_values, parse_name_list, parse_string_map, scan_value, unquote
from .hlo_lexicon import (
    FUSION_KINDS,
    INT64_ATTRIBUTES,
    KEYWORDS,
    METADATA_INTS,
    METADATA_STRINGS,
    PRIMITIVE_WORDS,
    VALUE_FORM,
    VALUE_GRAMMARS,
    metadata_fast,
)
from .instruction_line import ParsedInstruction
from .literal import LiteralError, check_literal
from .reader import GAP, IDENT, Reader, lex_int64, match_end, show_token
from .shape_parser import read_shape

_ASYNC_START_OWN = frozenset({"async_execution_thread", "output_to_operand_aliasing"})
_LONG_INT = re.compile(r"(?<![\w.])-?[0-9]{20,}(?![\w.])")  # one XLA's lexer may refuse: over uint64
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_NOT_LEXED = frozenset({"backend_config", "frontend_attributes", "metadata"})  # strings and raw text inside
_OPCODE = re.compile(r"[a-z][a-z0-9\-]*")
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_SHAPE_START = re.compile(r"\(|[a-z][a-z0-9]*\[|b\(")
_INT64_MAX = 2**63 - 1
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
# Called-computation attributes XLA parses as a braced list; the others name one computation.
_COMPUTATION_LIST_ROLES = ("branch_computations",)
_BARE_NAME = re.compile(r"(%?)([A-Za-z_][A-Za-z0-9_.\-]*)(:?)")

# Decoded frontend_attributes by spelling, bounded as the shape cache is (a long-lived process).
_FRONTEND_MAPS: dict[str, Mapping[str, str]] = {}
_FRONTEND_MAPS_LIMIT = 4096

# A called computation waiting to be resolved: (caller, role, names, position of the value).
PendingCall = tuple[HloInstruction, str, list[str], int]


class InstructionReader:
    """The parser's state that instruction reading needs, and the token-by-token reader."""

    r: Reader
    text: str
    source: str
    _calls_to_resolve: list[PendingCall]
    declared_operands: list[tuple[int, Shape, int]]
    async_sugar: tuple[HloInstruction, HloOpcode] | None = None
    """The instruction just read if it was written in XLA's async sugar (``call-start``), and the op it wraps."""
    """The operands of the instruction being read that were written with a shape: (index, shape, where)."""

    def error(self, message: str, pos: int | None = None) -> HloParseError:
        return self.r.error(message, pos)

    # ComputationReader's readers, as methods: compiled (setup.py), declared attributes are slots they never fill.
    def read_inline_computation(self, start: int, end: int) -> HloComputation: raise NotImplementedError  # `{...}`
    def read_nested(self, scope: Container[str], start: int) -> str: raise NotImplementedError  # its name

    def _not_keyword(self, name: str, what: str) -> None:
        """XLA's lexer turns type names and keywords into their own tokens: they cannot name anything."""
        if name not in KEYWORDS:
            return
        labelled = self.r.text.startswith(":", self.r.pos - 1)  # 'f32:' is one label token, like '%f32'
        at = self.r.pos - len(name) - labelled
        if not labelled and not self.r.text.startswith("%", at - 1):
            raise self.error(f"expected a {what} name: '{name}' is a keyword in XLA's HLO lexer", at)
        if what == "instruction" and name in ARRAY_TYPE_NAMES | {"opaque", "token"}:
            raise self.error(f"illegal instruction name: {name} (a primitive type, even after '%')", at)

    # -- module --------------------------------------------------------------------
    def _read_attribute(self, owner: str) -> tuple[str, int, int]:
        """``name=value`` at the cursor (after its comma): the name and the value's span."""
        r = self.r
        r.skip()
        m = _ATTR_NAME.match(r.text, r.pos)
        if not m:
            raise self.error(f"expected an attribute name after ',' in {owner}, found {r.describe_here()}")
        attr = m.group(0)
        r.pos = m.end()
        if not r.text.startswith("=", r.pos):  # XLA lexes 'name=' as one token: nothing in between
            raise self.error(f"expected '=' right after attribute name '{attr}' of {owner}, found "
                             f"{r.describe_here()}")
        r.pos += 1
        r.skip()
        start = r.pos
        if attr == "backend_config" and r.text.startswith("{", start):
            end = _json_dict_end(r.text, start)
            if end < 0:
                raise self.error("unterminated backend_config={...}: its braces do not close", start)
        else:
            end = scan_value(r.text, start, self.source)
        if end == start:
            raise self.error(f"expected a value for attribute '{attr}' of {owner}")
        r.pos = end
        return attr, start, end

    def _string_map(self, raw: str, pos: int) -> dict[str, str]:
        try:
            return parse_string_map(raw)
        except ValueError as e:
            raise self.error(str(e), pos) from None

    def _frontend_attributes(self, raw: str, pos: int) -> Mapping[str, str]:
        """An instruction's decoded ``frontend_attributes``, one read-only map shared by every
        instruction that spells them alike (a jax module repeats a few spellings on thousands
        of lines; each had its own dict, 70 bytes an instruction on the bench's jax module)."""
        shared = _FRONTEND_MAPS.get(raw)
        if shared is None:
            shared = MappingProxyType(self._string_map(raw, pos))
            if len(_FRONTEND_MAPS) >= _FRONTEND_MAPS_LIMIT:
                _FRONTEND_MAPS.clear()
            _FRONTEND_MAPS[raw] = shared
        return shared

    def _parse_instruction(self, module: HloModule, scope: Container[str]
                           ) -> tuple[HloInstruction, list[tuple[str, int]], list[tuple[str, int]]]:
        """One instruction; ``scope`` holds the names defined so far in its computation (XLA's name table)."""
        r = self.r
        r.skip()
        percent = r.text.startswith("%", r.pos)
        if percent:
            module.print_percent = True
        name = r.accept_name()
        if name is None:
            raise self.error(f"expected an instruction name, found {r.describe_here()}")
        self._not_keyword(name, "instruction")
        if r.text.startswith("=", r.pos) and not percent and not r.text.startswith(":", r.pos - 1):
            # XLA's lexer reads 'name=' as one attribute-name token, so 'x= add(...)' has no name.
            raise self.error(f"expected an instruction name: XLA reads '{name}=' as an attribute name; "
                             "put a space before '='")
        r.expect("=", f"after instruction name '{name}'")
        return self._parse_rhs(name, scope, True)

    def _parse_rhs(self, name: str, scope: Container[str], allow_attributes: bool
                   ) -> tuple[HloInstruction, list[tuple[str, int]], list[tuple[str, int]]]:
        """XLA's ``ParseInstructionRhs``: ``[shape] opcode(operands)`` and, unless nested, attributes."""
        r = self.r
        r.skip()
        # XLA's CanBeShape: without a shape here, the opcode must be one XLA infers a shape for.
        shape = read_shape(r) if _SHAPE_START.match(r.text, r.pos) or self._primitive_word(r.pos) else None
        r.skip()
        op_pos = r.pos
        m = _OPCODE.match(r.text, r.pos)
        if not m:
            what = f"an opcode for '{name}'" if shape is not None else f"the shape of '{name}'"
            raise self.error(f"expected {what}, found {r.describe_here()}")
        opcode = OPCODES_BY_SPELLING.get(m.group(0))
        sugar = split_sugar(m.group(0)) if opcode is None else None
        if sugar is not None:
            opcode = sugar[0]
        elif opcode is None:
            raise self.error(f"unknown opcode '{m.group(0)}'", op_pos)
        if shape is None and opcode not in CAN_INFER:
            raise self.error(f"cannot infer shape for opcode: {opcode.value} (write the shape of '{name}')", op_pos)
        r.pos = m.end()
        instr = ParsedInstruction(name, opcode, shape)  # type: ignore[arg-type]  # None: inferred once resolved
        r.expect("(", f"after opcode '{opcode.value}'")
        operand_refs = self._read_inside(instr, scope)
        allowed = opcode.allowed_attributes
        if sugar is not None:
            wrapped_allowed = sugar[1].allowed_attributes
            allowed = ASYNC_SUGAR_ATTRIBUTES if opcode is not ASYNC_START else \
                None if wrapped_allowed is None else wrapped_allowed | _ASYNC_START_OWN
        control_refs = self._parse_attributes(instr, allowed) if allow_attributes else []
        if sugar is not None:
            self.async_sugar = (instr, sugar[1])  # the wrapped computation is built once operands resolve
            opcode = sugar[1] if opcode is ASYNC_START else opcode
        want = opcode.arity if sugar is None else None
        if opcode is TUPLE and shape is not None:
            if not shape.is_tuple:
                raise self.error(f"a tuple instruction needs a tuple shape, not {shape}", op_pos)
            want = len(shape.tuple_shapes)
        if want is not None and len(operand_refs) != want:
            raise self.error(f"expects {want} operands, but has {len(operand_refs)} operands", m.end())
        for required in opcode.required_attributes:
            if required not in instr.attributes:
                raise self.error(f"attribute {required} is expected but not seen", m.end())
        return instr, operand_refs, control_refs

    def _read_inside(self, instr: HloInstruction, scope: Container[str]) -> list[tuple[str, int]]:
        """What stands between the opcode's parentheses: a parameter number, a literal (checked as
        XLA reads it), or the operands (their names and where each stands)."""
        r = self.r
        opcode, shape = instr.opcode, instr.shape
        if opcode is PARAMETER:
            here = r.pos
            instr.parameter_number = r.expect_int("a parameter number")
            if instr.parameter_number < 0 or instr.parameter_number > _INT64_MAX:
                raise self.error("parameter number must be >= 0", here)
            r.expect(")", "to close parameter(...)")
        elif opcode is CONSTANT:
            lit_start = r.pos
            end = _scan_parenthesized(r.text, lit_start - 1, self.source)
            instr.literal = r.text[lit_start:end].strip()
            assert shape is not None  # a constant's shape is never inferred (not in CAN_INFER)
            try:
                check_literal(r.text[lit_start:end], shape)
            except LiteralError as e:
                raise self.error(str(e), lit_start + e.offset) from None
            r.pos = end + 1
        else:
            return self._parse_operands(instr, scope)
        return []

    def _parse_operands(self, instr: HloInstruction, scope: Container[str]) -> list[tuple[str, int]]:
        """Operand names up to ')'.  As in XLA, commas only separate: empty entries are skipped
        ('add(p,,p)', 'negate(p,)' and 'tuple(,)' are what jaxlib reads as 'add(p, p)', ...).

        An empty entry is one case of XLA's dropped operands (see :meth:`_operand_shape`); an
        undefined bare name that is an opcode, before ',' or ')', is another: read again as a nested
        instruction, the opcode is taken and its '(' is missing, so 'custom-call(add)' is
        ``custom-call()`` when nothing named 'add' is defined (campaign find)."""
        r = self.r
        refs: list[tuple[str, int]] = []
        typed: list[str] = []
        self.declared_operands = []
        while True:
            if r.accept(")"):
                break
            if r.accept(","):
                continue
            r.skip()
            pos = start = r.pos
            if _SHAPE_START.match(r.text, pos) or self._primitive_word(pos):
                # Older printers: "f32[2]{0} %x"; a bare name never starts with "type[" or "(".
                declared = self._operand_shape()
                if declared is None:
                    continue  # XLA's ParseOperands drops it: see _operand_shape
                typed.append(declared[0])
                self.declared_operands.append((len(refs), declared[1], pos))
                r.skip()
                pos = r.pos
            name = r.accept_name()
            if name is None:
                raise self.error(f"expected an operand name, found {r.describe_here()}")
            if name not in scope and name in OPCODES_BY_SPELLING and IDENT.fullmatch(r.text, pos, r.pos) \
                    and r.peek() in (",", ")"):
                continue  # a bare name (no '%', no ':'), which XLA's lexer makes the identifier ParseOpcode takes
            if r.peek() == "(" and name in OPCODES_BY_SPELLING:
                # XLA's ParseOperands, failing to read a name followed by ',' or ')', reads the operand
                # again as an instruction (ParseInstructionRhs without a name or attributes).
                if self.declared_operands and self.declared_operands[-1][2] == start:
                    self.declared_operands.pop()  # the shape was the nested instruction's
                    typed.pop()
                r.pos = start
                outer = self.declared_operands
                refs.append((self.read_nested(scope, start), start))
                self.declared_operands = outer
            else:
                refs.append((name, pos))
            if r.peek() not in (",", ")"):
                r.expect(",", f"or ')' in the operands of '{instr.name}'")
        if typed:
            instr.operand_shapes_text = tuple(typed)
        return refs

    def _primitive_word(self, pos: int) -> bool:
        """Whether a primitive type's name stands at ``pos`` as a whole token ('f32,'), which XLA's
        CanBeShape takes as the start of a shape, not as a name ('f32:' is the label token)."""
        m = IDENT.match(self.r.text, pos)
        return m is not None and m.group(0) in PRIMITIVE_WORDS and not self.r.text.startswith(":", m.end())

    def _operand_shape(self) -> tuple[str, Shape] | None:
        """The shape written before an operand's name, as text; or None where XLA's parser drops the
        operand, leaving the cursor where XLA's lexer stops.

        XLA's ParseOperands reads an operand as ``[shape] name``, then again as a nested instruction
        ``[shape] opcode(...)``; when both fail it records an error that nothing returns (the result
        of ``Error(...)`` in its do/while is unused) and goes on from where the second reading
        stopped.  If that is a ',' or ')', the list goes on as if the operand were not written:
        ``custom-call(b(), ...`` (a buffer shape failing at ')'; campaign disagree-1) and
        ``custom-call(f32[2]{0}, p)`` (a shape with no name) are read by jaxlib as ``custom-call()``
        and ``custom-call(p)``.  The shape is first read by a probe whose errors carry only an offset,
        so a dropped operand costs no pass over the text to number lines.
        """
        r = self.r
        start = r.pos
        probe = _Probe(r.text, self.source, start)
        try:
            shape = read_shape(probe)
            end = probe.pos
            stop = match_end(GAP, r.text, end)
        except _Stopped as e:
            end = -1
            stop = e.offset if e.message.startswith("expected") else -1  # a syntax error, as XLA's
        if 0 <= stop < len(r.text) and r.text[stop] in ",)":
            r.pos = stop
            return None
        if end < 0:
            read_shape(r)  # the same error, located
        r.pos = end
        return r.text[start:end], shape

    def check_declared_operands(self, operands: Sequence[HloInstruction]) -> None:
        """XLA's FindInstruction: a shape written before an operand's name must be compatible
        (ShapeUtil::Compatible: element type, dimensions, tuple structure; layout ignored) with
        that operand's own shape, else "The declared operand shape ... is not compatible"."""
        for index, declared, pos in self.declared_operands:
            actual = operands[index].shape
            if not declared.compatible(actual):
                raise self.error(f"The declared operand shape {declared} is not compatible with the shape of "
                                 f"the operand instruction {actual}.", pos)

    def _parse_attributes(self, instr: HloInstruction, allowed: frozenset[str] | None) -> list[tuple[str, int]]:
        """The attributes after the operands; one outside ``allowed`` (when known) is refused, as XLA does."""
        r = self.r
        control_refs: list[tuple[str, int]] = []
        text = r.text
        while True:
            # Attributes follow a comma; anything else ends the instruction.
            save = r.pos
            r.skip()
            if not text.startswith(",", r.pos):
                r.pos = save
                break
            r.pos += 1
            name_at = r.pos
            attr, vstart, vend = self._read_attribute(f"'{instr.name}'")
            raw = text[vstart:vend]
            if allowed is not None and attr not in allowed:
                raise self.error(f'unexpected attribute "{attr}" for {instr.opcode.value}; XLA allows: '
                                 + ", ".join(sorted(allowed)), name_at)
            if attr == "metadata" and not metadata_fast(raw):
                self._check_metadata(raw, vstart)
            if attr in instr.attributes:
                raise self.error(f"attribute '{attr}' given twice for '{instr.name}'", vstart)
            instr.attributes[sys.intern(attr)] = raw  # one copy of each name per process
            self._decode_attribute(instr, attr, raw, vstart, control_refs)
        return control_refs

    def _check_metadata(self, raw: str, pos: int) -> None:
        """``metadata={...}`` as XLA reads it: known keys only, strings where strings go."""
        if not (raw.startswith("{") and raw.endswith("}")):
            raise self.error("metadata must be {key=value ...}", pos)
        try:
            pairs = parse_key_values(raw, sub_attributes=True)
        except ValueError as e:
            raise self.error(f"cannot read metadata: {e}", pos) from None
        seen: set[str] = set()
        for key, value in pairs:
            if key in seen:  # XLA's attribute parser refuses a key given twice
                raise self.error(f"attribute {key} already exists in metadata", pos)
            seen.add(key)
            if key not in METADATA_KEYS:
                raise self.error(f'unexpected attribute "{key}" in metadata; XLA allows: '
                                 + ", ".join(sorted(METADATA_KEYS)), pos)
            if key in METADATA_STRINGS and not value.startswith('"'):
                raise self.error(f"metadata {key} must be a string", pos)
            if key in METADATA_INTS and not _is_int32(value):
                raise self.error(f"metadata {key} must be a 32-bit integer", pos)

    def _decode_attribute(self, instr: HloInstruction, attr: str, raw: str, pos: int,
                          control_refs: list[tuple[str, int]]) -> None:
        if _LONG_INT.search(raw) is not None and attr not in _NOT_LEXED and not raw.startswith('"'):
            for m in _LONG_INT.finditer(raw):
                if lex_int64(m.group(0)) is None:  # XLA's lexer: int64, else uint64, else an error token
                    raise self.error(f"integer {show_token(m.group(0))} in {attr}= is out of XLA's integer range",
                                     pos + m.start())
        expected = VALUE_FORM.get(attr)
        if expected is not None and not raw.startswith(expected[0]):
            raise self.error(f"attribute {attr} expects {expected[1]}, found {show_token(raw)}", pos)
        grammar = VALUE_GRAMMARS.get(attr)
        if grammar is not None and not grammar[0].match(_COMMENT.sub(" ", raw)):
            raise self.error(f"attribute {attr} expects {grammar[1]}, found {show_token(raw)}", pos)
        if attr == "kind" and instr.opcode is FUSION and raw not in FUSION_KINDS:
            raise self.error(f"Unknown fusion kind: {show_token(raw)} (XLA knows {', '.join(sorted(FUSION_KINDS))})",
                             pos)
        if attr == "custom_call_target":
            instr.custom_call_target = unquote(raw)
        elif attr == "index":
            index = lex_int64(raw)
            if index is None:  # XLA: 'expects integer' (a 64-bit one: its lexer refuses longer)
                raise self.error(f"index must be a 64-bit integer, got {show_token(raw)}", pos)
            instr.tuple_index = index
        elif attr in INT64_ATTRIBUTES:
            if lex_int64(raw) is None:  # XLA's AttrTy::kInt64: 'expects integer'
                raise self.error(f"attribute {attr} expects a 64-bit integer, found {show_token(raw)}", pos)
        elif attr == "frontend_attributes":
            instr.frontend_attributes = self._frontend_attributes(raw, pos)
        elif attr == "metadata":
            pass  # decoded on first use (HloInstruction.metadata): most are never read
        elif attr == "output_to_operand_aliasing":
            instr.output_to_operand_aliasing = [(o, p, pi) for o, p, pi, _ in parse_aliasing(raw)]
        elif attr == "control-predecessors":
            control_refs.extend((n, pos) for n in self._name_list(raw, pos, braced=True, empty=False))
        elif attr in CALLED_COMPUTATION_ROLES:
            if raw.startswith("{") and attr not in _COMPUTATION_LIST_ROLES:
                # XLA reads '{' after a one-computation attribute as an inline computation body, a
                # computation named '_' ('to_apply={c}' is refused there: 'expects '=' in instruction').
                comp = self.read_inline_computation(pos, pos + len(raw))
                instr.set_called_computations({**instr.called, attr: [comp]})
                instr.attributes[attr] = comp.name
                return
            listed = attr in _COMPUTATION_LIST_ROLES  # a conditional needs a branch: jaxlib refuses '{}'
            names = self._name_list(raw, pos, braced=listed, empty=not listed)
            self._calls_to_resolve.append((instr, attr, names, pos))

    def _name_list(self, raw: str, pos: int, braced: bool, empty: bool = True) -> list[str]:
        try:
            names = parse_name_list(raw, braced, empty)
        except ValueError as e:
            raise self.error(str(e), pos) from None
        if not KEYWORDS.isdisjoint(names):
            # A keyword names something only as '%true' or the label 'true:', as in XLA's lexer.
            for m in _BARE_NAME.finditer(raw):
                if m.group(2) in KEYWORDS and not m.group(1) and not m.group(3):
                    raise self.error(f"expected a name: '{m.group(2)}' is a keyword in XLA's HLO lexer "
                                     f"(write '%{m.group(2)}')", pos)
        return names

    # -- module-level resolution ------------------------------------------------------

class _Stopped(HloParseError):
    """Where a probe read stopped, without the line and column (numbering them costs a pass over the text)."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


class _Probe(Reader):
    """A reader whose errors are :class:`_Stopped`: for reads whose failure is not yet an error."""

    __slots__ = ()

    def error(self, message: str, pos: int | None = None) -> HloParseError:
        return _Stopped(message, self.pos if pos is None else pos)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _json_dict_end(text: str, start: int) -> int:
    """End of ``{...}`` as XLA's LexJsonDict finds it: braces counted, strings skipped, nothing else
    read (``/*`` is no comment there), or -1 if the braces do not close."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            m = _JSON_STRING.match(text, i)
            if m is None:
                return -1
            i = m.end()
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _is_int32(raw: str) -> bool:
    """XLA reads metadata's line and column numbers as int32, after its lexer's uint64 wrap (2**64-1 is -1)."""
    value = lex_int64(raw)
    return value is not None and _INT32_MIN <= value <= _INT32_MAX


def _is_name_char(c: str) -> bool:
    return c.isalnum() or c in "_.-"



def _scan_parenthesized(text: str, open_pos: int, source: str) -> int:
    """Offset of the ')' matching the '(' at ``open_pos`` (constant literals: nested braces, strings)."""
    end = scan_value(text, open_pos, source)
    # scan_value treats the whole "(...)" group as one value and stops after it.
    if end <= open_pos or text[end - 1] != ")":
        raise HloParseError.at("unbalanced '(' in constant literal", text, open_pos, source)
    return end - 1

