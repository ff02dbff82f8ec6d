"""The fast path for one instruction line: one compiled regex instead of a token-by-token walk.

Nearly every line XLA and jax print has one form: ``[%]name = shape opcode(operands),
attr=value, ...`` on one line, with plain operand names, values that are a string, a
one-level brace group or a bare token, and shapes that repeat a few spellings.
:func:`read_fast` reads such a line with one :data:`_LINE` match, decodes each distinct
shape spelling once (through the full shape grammar, then cached), and applies every
check the full reader makes (keywords, allowed and required attributes, arity, metadata
form, value forms).  Whatever it does not take, or would refuse, it hands back untouched
(``None``): the full reader then reads the line and gives XLA's acceptance and error
messages exactly as before, so this path changes speed only, never a verdict.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import HloParseError
from ..ir.instruction import CALLED_COMPUTATION_ROLES, HloInstruction
from ..ir.opcode_rules import ALLOWED_ATTRIBUTES, FIXED_ARITY, REQUIRED_ATTRIBUTES
from ..ir.opcodes import OPCODES_BY_SPELLING, HloOpcode
from ..ir.shape import Shape
from .hlo_lexicon import KEYWORDS, METADATA_FAST
from .reader import Reader
from .shape_parser import read_shape

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from .hlo_parser import _ModuleParser

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_ARRAY = r"[a-z][a-z0-9]*\[[0-9,]*\](?:\{[^{}\s]*\})?"
# Attribute values the full reader's scan_value reads to exactly these ends: an escape-free
# string; a brace group holding no nested braces, parentheses or quotes other than
# escape-free strings and one level of [...]; a bare token without brackets, quotes, commas,
# spaces or '/' (which could start a comment).
_STRING = r'"[^"\\\n]*"'
_BRACES = r'\{(?:[^{}()\[\]"\'\n]|' + _STRING + r"|\[[^{}()\[\]\"'\n]*\])*\}"
_BARE = r'[^(){}\[\]",\s/]+'
_VALUE = f"(?:{_STRING}|{_BRACES}|{_BARE})"
_LINE = re.compile(
    rf"[ \t]*(%?)({_NAME})[ \t]+=[ \t]+"
    rf"({_ARRAY}|\((?:{_ARRAY}(?:,[ \t]*{_ARRAY})*)?\))[ \t]+"
    r"([a-z][a-z0-9\-]*)\(([^()\n\"{}/\[\]]*)\)"
    rf"((?:[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_\-]*={_VALUE})*)"
    # The line ends here, and the next one does not go on with ', attr=...' or a comment.
    r"[ \t]*(?=\r?\n(?![ \t\r\n]*[,/]))")
_ATTRIBUTE = re.compile(rf"[ \t]*,[ \t]*([A-Za-z_][A-Za-z0-9_\-]*)=({_VALUE})")
_ARITY = FIXED_ARITY
_OPERAND_LIST = re.compile(rf"[ \t]*%?{_NAME}(?:[ \t]*,[ \t]*%?{_NAME})*[ \t]*")
_OPERAND = re.compile(rf"%?({_NAME})")
_PARAMETER_NUMBER = re.compile(r"[0-9]{1,18}")
# A scalar literal (constant(0), constant(-inf), constant(true)); array literals take the full reader.
_SCALAR_LITERAL = re.compile(r"[ \t]*[-+0-9A-Za-z_.]+[ \t]*")

# Shapes by spelling: real modules repeat a few dozen spellings over millions of lines.
_SHAPES: dict[str, Shape] = {}
_SHAPES_LIMIT = 100_000


def _shape(text: str, start: int, end: int, source: str) -> Shape | None:
    """The shape spelled ``text[start:end]``, read once by the full grammar, or None if it reads differently."""
    key = text[start:end]
    shape = _SHAPES.get(key)
    if shape is not None:
        return shape
    r = Reader(text, source, start)
    try:
        shape = read_shape(r)
    except HloParseError:
        return None
    if r.pos != end and (r.pos < end or not text[end:r.pos].isspace()):
        return None  # the grammar reads another extent (the shape reader may step over spaces after it)
    if len(_SHAPES) < _SHAPES_LIMIT:
        _SHAPES[key] = shape
    return shape


def read_fast(p: _ModuleParser, module: HloModule, by_name: dict[str, HloInstruction]
              ) -> tuple[HloInstruction, list[tuple[str, int]]] | None:
    """The instruction at the cursor, its operands resolved in ``by_name``, as the full reader
    would build it; or None (nothing consumed, nothing recorded) to let the full reader read it.

    Also returns the control predecessors by name; called computations are queued on the
    parser for resolution exactly as the full reader queues them.
    """
    r = p.r
    text = r.text
    m = _LINE.match(text, r.pos)
    if m is None:
        return None
    percent, name, shape_text, spelling, inside = m.group(1, 2, 3, 4, 5)
    opcode = OPCODES_BY_SPELLING.get(spelling)
    if opcode is None or name in KEYWORDS:
        return None
    shape = _SHAPES.get(shape_text)
    if shape is None:
        shape = _shape(text, m.start(3), m.end(3), p.source)
        if shape is None:
            return None
    if opcode is HloOpcode.PARAMETER or opcode is HloOpcode.CONSTANT:
        operands: list[HloInstruction] = []
    else:
        if inside and not _OPERAND_LIST.fullmatch(inside):
            return None  # empty entries ('add(p,,p)') and anything else unusual: the full reader
        names = _OPERAND.findall(inside)
        try:
            operands = [by_name[n] for n in names]
        except KeyError:
            return None  # the full reader names the undefined operand where it stands
        if len(operands) != _ARITY.get(spelling, len(operands)) and opcode is not HloOpcode.TUPLE:
            return None
    instr = HloInstruction(name, opcode, shape)
    if operands:
        if opcode is HloOpcode.TUPLE and (not shape.is_tuple or len(shape.tuple_shapes) != len(operands)):
            return None
        instr._operands = tuple(operands)
        for op in operands:
            op.users[instr] = None
    elif not _contents(instr, inside):
        return None
    control: list[tuple[str, int]] = []
    if m.end(6) > m.start(6):
        resolving = len(p._calls_to_resolve)
        if not _attributes(p, instr, spelling, text, m.start(6), m.end(6), control):
            _unhook(instr)
            del p._calls_to_resolve[resolving:]
            return None
    required = REQUIRED_ATTRIBUTES.get(spelling)
    if required is not None and required not in instr.attributes:
        _unhook(instr)
        return None
    if percent:
        module.print_percent = True
    r.pos = m.end()
    return instr, control


def _unhook(instr: HloInstruction) -> None:
    for op in instr._operands:
        op.users.pop(instr, None)  # it was appended last: removing it restores the order
    instr._operands = ()


def _contents(instr: HloInstruction, inside: str) -> bool:
    """An instruction without operands: a parameter number, a scalar literal, or nothing."""
    opcode = instr.opcode
    if opcode is HloOpcode.PARAMETER:
        if not _PARAMETER_NUMBER.fullmatch(inside):
            return False
        instr.parameter_number = int(inside)
        return True
    if opcode is HloOpcode.CONSTANT:
        if not _SCALAR_LITERAL.fullmatch(inside):
            return False
        instr.literal = inside.strip()
        return True
    if opcode is HloOpcode.TUPLE:
        return instr.shape.is_tuple and not instr.shape.tuple_shapes
    return _ARITY.get(instr.opcode.value, 0) == 0


# Attributes the full reader decodes or checks beyond storing them.
_DECODED = frozenset(("custom_call_target", "index", "frontend_attributes", "output_to_operand_aliasing",
                      "control-predecessors", "execution_thread", *CALLED_COMPUTATION_ROLES))


def _attributes(p: _ModuleParser, instr: HloInstruction, spelling: str, text: str, start: int, end: int,
                control: list[tuple[str, int]]) -> bool:
    """Record and decode the attributes in ``text[start:end]`` as the full reader does; False where it
    would refuse one.  Read in place: a 10 MB value is copied once, as the full reader copies it."""
    pairs = _ATTRIBUTE.findall(text, start, end)
    attributes = dict(pairs)
    if len(attributes) != len(pairs):
        return False  # an attribute given twice
    allowed = ALLOWED_ATTRIBUTES.get(spelling)
    if allowed is not None and not allowed.issuperset(attributes):
        return False
    metadata = attributes.get("metadata")
    if metadata is not None and not METADATA_FAST.fullmatch(metadata):
        return False
    instr.attributes = attributes
    if _DECODED.isdisjoint(attributes):
        return True
    for a in _ATTRIBUTE.finditer(text, start, end):  # again, for the positions the decoders' messages name
        if a.group(1) in _DECODED:
            try:
                p._decode_attribute(instr, a.group(1), a.group(2), a.start(2), control)
            except HloParseError:
                return False
    return True
