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
import sys
from itertools import chain

from ..base.errors import HloParseError
from ..base.lazy_pattern import LazyPattern
from ..ir.instruction import CALLED_COMPUTATION_ROLES, COMPILED, HloInstruction, OpMetadata
from ..ir.opcode_rules import operand_count_error
from ..ir.opcodes import CONSTANT, OPCODES_BY_SPELLING, PARAMETER, TUPLE, HloOpcode
from ..ir.packed_fields import NO_USERS, NOWHERE
from ..ir.rare_fields import (
    CALLS,
    NO_STRINGS,
    SHARED_NUMBERS,
    SharedRareFields,
    only_literal_or_frontend,
    shared_number,
)
from ..ir.shape import Shape
from .hlo_lexicon import BRACED_INT64_LIST_ATTRIBUTES, INT64_ATTRIBUTES, KEYWORDS, VALUE_GRAMMARS, metadata_fast
from .layout_warnings import warned
from .line_split import call_span, scalar_literal_form, split_line, split_names
from .literal import LiteralError, check_literal
from .metadata import TextMetadataCodec
from .reader import Reader
from .shape_parser import read_shape

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from ..ir.computation import HloComputation
    from ..ir.module import HloModule
    from .computation_reader import ComputationReader

_METADATA: Final = TextMetadataCodec()
_NEW: Final = object.__new__
_FRESH: Final = ((), NO_USERS, "", None, NOWHERE, 0, None)
"""What ``HloInstruction.__init__`` stores in an instruction's fields but its name, opcode and shape, in
the order :func:`read_fast` stores them (pure Python; tests/test_instruction_line.py compares them)."""
_NO_COUNT: Final = sys.maxsize
"""The operand count of a ``tuple`` whose shape is no tuple, in :data:`_HEADS`: no list has it."""


class ParsedInstruction(HloInstruction):
    """An instruction the parser made: it keeps its attributes and ``metadata={...}`` as the text
    read, decoded on first use (a 100k-instruction module rarely needs more than a few), by the
    readers of this layer -- the IR holds no hook for them (:class:`~xladoctor.ir.instruction.HloInstruction`)."""

    __slots__ = ()

    def _read_attribute_text(self, text: str) -> dict[str, str]:
        if "\n" in text:  # a call's kept as its template (_call_template): the callee's name where the newline is
            text = _with_callee(self, text)
        return read_attribute_text(text)

    def _metadata_codec(self) -> TextMetadataCodec:
        return _METADATA

    def _metadata_text(self, md: OpMetadata) -> str:
        return _METADATA.encode(md)

# The line regex's repeats are possessive ('*+', '++', '?+': Python 3.11's; 3.10 reads them as
# plain, ''): each stops where the next piece could not match what it gave back (a name before
# ' =', ', ' or ')'; digits before ']'; a run of spaces before what is no space), so the lines
# matched and every group are the same, and the engine keeps no backtracking state per repeat:
# a quarter of the match's cost on jax's lines (issue 36, h47p).
_P: Final = "+" if sys.version_info >= (3, 11) else ""
_NAME = rf"[A-Za-z_][A-Za-z0-9_.\-]*{_P}"
_ARRAY = rf"[a-z][a-z0-9]*{_P}\[[0-9,]*{_P}\](?:\{{[^{{}}\s]*{_P}\}})?{_P}"
# Attribute values the full reader's scan_value reads to exactly these ends: a string; a brace
# group holding no nested braces, parentheses or quotes other than strings and one level of
# [...]; a bare token without brackets, quotes, commas, spaces or '/' (which could start a
# comment) that starts with no digit, '-' or '?', or an integer.  They are only tried on one line
# holding no backslash (checked with str.find), so strings have no escapes and nothing spans
# lines: the classes leave those out, which keeps them short (the regex engine's cost per
# character grows with the class).
_STRING = r'"[^"]*"'
# Any character but {}()[]"'/ (a '/' may start a comment: the full reader).  Negated: the regex
# compiler makes one 256-bit map of it, tested in O(1) per character as the ranges it replaced
# ('[\x00-!#-&...~-\U0010ffff]', the same set) were; those made it fill a 65,536-entry map in
# Python, three times, ~10 ms of every process's start (issue 36).
_PLAIN_RUN = r"""[^"'()/\[\]{}]*"""
# Written as 'plain* (special plain*)*', whose specials start with characters a plain run never
# holds: one way to match any text, so a failing match costs linear time, and runs are matched
# by a character class, not by one alternation per character.
_BRACES = r"\{" + _PLAIN_RUN + r"(?:(?:" + _STRING + r"|\[" + _PLAIN_RUN + r"\])" + _PLAIN_RUN + r")*\}"
# A bare value starting with a digit, '-' or '?' is an XLA number token (LexNumberOrPattern), which
# can end before the next separator ('1x' is 1 then 'x'): only a plain integer is taken here, floats,
# DxD and pad patterns go to the full reader, which reads them as XLA's lexer does.
_BARE = r'(?:[^(){}\[\]",\s/0-9?\-][^(){}\[\]",\s/]*|-?[0-9]{1,18})'
_VALUE = f"(?:{_STRING}|{_BRACES}|{_BARE})"
# XLA's printer puts '/*index=5*/' before every fifth element of a tuple shape; the shape, comment
# included, is read by the full shape grammar once per spelling (:func:`_shape`).
_INDEX_COMMENT = rf"(?:/\*index=[0-9]+{_P}\*/)?{_P}"
# The whole line, its attributes taken as one span (group 8, split by _ATTRIBUTE below, which must tile it).
# The shape and the opcode are one group (4: one look-up of both, :data:`_HEADS`).  Operands as printers write
# them ('a, b': group 5) are split at ', ' (a regex's findall was ~3x the time); any other spelling of names is
# group 6, anything else inside the parentheses group 7.  The match ends after the attributes (or the ')'):
# the spaces after them are in the lookahead, so the attributes end where the match does.
_LINE: Final = re.compile(
    rf"[ \t\r\n]*{_P}(ROOT[ \t]+{_P})?(%?)({_NAME})[ \t]+{_P}=[ \t]+{_P}"
    rf"((?:{_ARRAY}|\((?:{_ARRAY}(?:,[ \t]*{_P}{_INDEX_COMMENT}{_ARRAY})*{_P})?\))[ \t]+{_P}"
    rf"[a-z][a-z0-9\-]*{_P})\((?:({_NAME}(?:, {_NAME})*{_P})"
    rf"|([ \t]*{_P}%?{_NAME}(?:[ \t]*{_P},[ \t]*{_P}%?{_NAME})*{_P}[ \t]*{_P})|([^()\n\"/\[\]]*{_P}))\)"
    rf"((?:[ \t]*{_P},[^\n]*[^\s])?)"  # (the value's run gives back its trailing spaces: not possessive)
    # The line ends here, and the next one does not go on with ', attr=...' or a comment.
    rf"(?=[ \t]*{_P}\r?\n(?![ \t\r\n]*{_P}[,/]))")
# One ', name=value' with its separator, so the lengths found show whether they tile the span.
_ATTRIBUTE: Final = re.compile(rf"([ \t]*,[ \t]*)([A-Za-z_][A-Za-z0-9_\-]*)=({_VALUE})")
# Per spelling, what the checks need: the opcode, its fixed arity (-1: any), its allowed
# attributes (None: not checked) and its required attribute (one dictionary look-up per line).
_OPCODE_INFO: Final[dict[str, tuple[HloOpcode, int, frozenset[str] | None, tuple[str, ...] | None]]] = {
    spelling: (op, -1 if op.arity is None else op.arity, op.allowed_attributes, op.required_attributes or None)
    for spelling, op in OPCODES_BY_SPELLING.items()}
_intern = sys.intern
_NO_NAMES: Final[set[str] | frozenset[str]] = frozenset()  # the attribute names of a line without any
_OPERAND: Final = re.compile(rf"%?({_NAME})")
_KEYWORDS: Final = KEYWORDS  # read per line: a C static compiled, not a globals lookup (the names above are Final for that too)
_PARAMETER_NUMBER: Final = re.compile(r"[0-9]{1,18}")
# A literal without strings or parentheses: a scalar (constant(0), constant(-inf), constant(true)) or
# an array in braces (constant({13, 15, 26, 6})), checked by check_literal as the full reader checks it;
# anything else takes the full reader.
_ONE_COMPUTATION_ROLES: Final = frozenset(CALLED_COMPUTATION_ROLES) - {"branch_computations"}
_LONG_DIGITS: Final = re.compile(r"[0-9]{20}")
_SCALAR_LITERAL: Final = re.compile(r"[ \t]*[-+0-9A-Za-z_.{][-+0-9A-Za-z_.{}, \t]*")

# Shapes by spelling: real modules repeat a few dozen spellings over millions of lines.
_SHAPES: Final[dict[str, Shape]] = {}
_SHAPES_LIMIT: Final = 100_000


def _shape(text: str, start: int, end: int, source: str) -> Shape | None:
    """The shape spelled ``text[start:end]``, read once by the full grammar, or None if it reads differently."""
    key = text[start:end]
    shape = _SHAPES.get(key)
    if shape is not None:
        return shape
    r = Reader(text, source, start)
    before = warned()
    try:
        shape = read_shape(r)
    except HloParseError:
        return None
    if r.pos != end and (r.pos < end or not text[end:r.pos].isspace()):
        return None  # the grammar reads another extent (the shape reader may step over spaces after it)
    if len(_SHAPES) < _SHAPES_LIMIT and warned() == before:  # a warned layout warns at each use
        _SHAPES[key] = shape
    return shape


# Per spelling of a shape and an opcode together (the line regex's group 4: one substring, one hash and one
# look-up a line where the two were two of each), :data:`_OPCODE_INFO`'s tuple and the shape: jax's lines
# spell a few dozen.  Only where the shape is in :data:`_SHAPES` (it did not warn: a warned layout warns at
# each use).
_HEADS: Final[dict[str, tuple[HloOpcode, int, frozenset[str] | None, tuple[str, ...] | None, Shape]]] = {}


def _head(text: str, start: int, head: str, source: str
          ) -> tuple[HloOpcode, int, frozenset[str] | None, tuple[str, ...] | None, Shape] | None:
    """The opcode's checks and the shape of ``head`` (``text[start:]``: a shape, spaces, an opcode), or None
    where the opcode is unknown or the shape reads differently (the full reader then)."""
    shape_text, spelling = head.rsplit(None, 1)  # an opcode holds no space, nor does the shape before its end
    info = _OPCODE_INFO.get(spelling)
    if info is None:
        return None
    shape = _SHAPES.get(shape_text)
    if shape is None and (shape := _shape(text, start, start + len(shape_text), source)) is None:
        return None
    opcode, arity, allowed, required = info
    if opcode is TUPLE:  # its operands are as many as its shape's elements (a shape that is no tuple takes none)
        arity = len(shape.tuple_shapes) if shape.is_tuple else _NO_COUNT
    known = (opcode, arity, allowed, required, shape)
    if len(_HEADS) < _SHAPES_LIMIT and shape_text in _SHAPES:
        _HEADS[head] = known
    return known


def read_fast(p: ComputationReader, module: HloModule, by_name: dict[str, HloInstruction],
              owner: HloComputation | None = None) -> tuple[HloInstruction, list[tuple[str, int]], int, bool] | None:
    """The line at the cursor as the full reader builds it (calls queued alike), its control predecessors' names, start
    and ROOT flag; operands from ``by_name`` (``owner``'s only, :mod:`.body_scope`).  None: nothing done, read it in full."""
    r, text = p.r, p.text
    if COMPILED and (split := split_line(text, r.pos, _HEADS)) is not None:  # the usual lines without the regex (.line_split)
        m, (root, percent, name, head, plain, names_text, inside, attributes, first, end) = None, split
    elif (m := _LINE.match(text, r.pos)) is not None:
        (root, percent, name, head, plain, names_text, inside, attributes), end = m.groups(), m.end()  # one call: no index per group
    else:
        return None
    if (p.has_backslash and text.find("\\", r.pos, end) >= 0) or name in _KEYWORDS or (
            (known := _HEADS.get(head)) is None and (m is None or (known := _head(text, m.start(4), head, p.source)) is None)):
        return None
    opcode, arity, allowed, required, shape = known
    instr = ParsedInstruction(name, opcode, shape) if COMPILED else _NEW(ParsedInstruction)
    if not COMPILED:  # HloInstruction.__init__'s stores (_FRESH): the class call runs __init__ in an interpreter loop of its own
        instr.name, instr.opcode, instr.shape = name, opcode, shape
        (instr._operands, instr._users, instr._attributes, instr.parent, instr._where, instr._line_off,
         instr._extra) = _FRESH
    operands: tuple[HloInstruction, ...] = ()
    if opcode is PARAMETER or opcode is CONSTANT or (plain is None and names_text is None):
        if not _contents(instr, plain or names_text or inside, p.shared_text, p.shared_literals):
            return None
    else:
        try:
            if plain is not None and ", " not in plain:
                operands = (by_name[plain],)  # one operand (half of jax's lines): no split, no map
            else:
                listed = _OPERAND.findall(names_text) if plain is None else split_names(plain) if COMPILED else plain.split(", ")
                operands = tuple([by_name[n] for n in listed]) if COMPILED else tuple(map(by_name.__getitem__, listed))
        except KeyError:
            return None  # the full reader names the undefined operand where it stands
        if owner is not None:
            for operand in operands:
                if operand.parent is not owner:
                    return None  # another computation's: the full reader's scope has no such name
        if 0 <= arity != len(operands) or (opcode in _COUNTED and operand_count_error(opcode.value, operands) is not None):
            return None  # the full reader refuses it where it stands (a tuple's arity is its shape's: _head)
    control, names = _NO_CONTROL, _NO_NAMES  # the attributes end the match (the spaces after: lookahead)
    if attributes:
        control = []
        resolving, start, attributes = len(p._calls_to_resolve), end - len(attributes), attributes if len(attributes) <= _LONG_TEXT else ""
        if (read := _attributes(p, instr, allowed, text, start, end, control, attributes)) is None:
            del p._calls_to_resolve[resolving:]
            return None
        names = read
    if required is not None and not names.issuperset(required):
        return None
    if operands:  # HloInstruction.link_operands on a new instruction (no old operands), inline: a call a line
        instr._operands = operands[0] if len(operands) == 1 else operands
        for operand in operands:
            if operand._users is NO_USERS:
                operand._users = instr
            else:
                operand._gain_new_user(instr)
    if percent:
        module.print_percent = True
    r.pos = end
    return instr, control, first if m is None else m.start(1) if root else m.start(2), root is not None


_NO_CONTROL: Final[list[tuple[str, int]]] = []
"""The control predecessors of a line without attributes (never added to)."""


def _contents(instr: HloInstruction, inside: str, shared: dict[str, str],
              shared_extras: dict[str, SharedRareFields]) -> bool:
    """An instruction without operands: a parameter number, a scalar literal, or nothing."""
    opcode = instr.opcode
    if opcode is PARAMETER:
        if not (len(inside) <= 18 and inside.isdigit() and inside.isascii()):  # _PARAMETER_NUMBER, without
            return False  # the regex's method call (every parameter line)
        number = int(inside)  # parameter_number: the shared rare fields holding it, where the table has room
        shared_fields = SHARED_NUMBERS.get(number)
        if shared_fields is not None:
            instr._extra = shared_fields  # a new instruction: no rare field set yet
        else:
            instr._set_number(number)
        return True
    if opcode is CONSTANT:
        if not (scalar_literal_form(inside) if COMPILED else _SCALAR_LITERAL.fullmatch(inside)):  # (.line_split)
            return False
        try:
            check_literal(inside, instr.shape)
        except LiteralError:
            return False  # the full reader says where and why
        literal = inside.strip()  # a scalar: short, and spelled alike on many lines (0, 1, -inf)
        extra = shared_extras.get(literal)
        if extra is None:  # one SharedRareFields per spelling, as one string per spelling
            literal = shared.setdefault(literal, literal)
            extra = shared_extras[literal] = SharedRareFields.holding(literal)
        instr._extra = extra  # a new instruction: no rare field set yet
        return True
    if inside.strip():
        return False  # operands this path does not read ('add(1)', typed operands, ...)
    if opcode is TUPLE:
        return instr.shape.is_tuple and not instr.shape.tuple_shapes
    return not opcode.arity


# Attributes the full reader decodes or checks beyond storing them.
_DECODED: Final = frozenset(("custom_call_target", "index", "kind", "frontend_attributes", "output_to_operand_aliasing",
                      "control-predecessors", "execution_thread", *CALLED_COMPUTATION_ROLES, *INT64_ATTRIBUTES))
# A braced integer list as printers write it ('{0,1}'); any other value of such an attribute
# (spaces, comments, '{0:T(2,1)}', '{0,}') goes to the full reader, which accepts or refuses it as XLA.
_COUNTED: Final = frozenset((HloOpcode.DYNAMIC_SLICE, HloOpcode.DYNAMIC_UPDATE_SLICE))  # operand_count_error's opcodes
_PLAIN_INT_LIST = re.compile(r"\{(?:-?[0-9]+(?:,-?[0-9]+)*)?\}\Z")
_PLAIN_SLICE = re.compile(r"\{(?:\[[0-9]+:[0-9]+(?::[0-9]+)?\](?:, \[[0-9]+:[0-9]+(?::[0-9]+)?\])*)?\}\Z")
_PLAIN_FORMS: Final[dict[str, re.Pattern[str] | LazyPattern]] = {
    **dict.fromkeys(BRACED_INT64_LIST_ATTRIBUTES, _PLAIN_INT_LIST), "slice": _PLAIN_SLICE,
    "result_accuracy": VALUE_GRAMMARS["result_accuracy"][0]}
"""The values of VALUE_GRAMMARS' attributes as printers write them; any other goes to the full reader.
(result_accuracy's pattern is compiled by the first such attribute: hardly any module has one.)"""


def _attributes(p: ComputationReader, instr: HloInstruction, allowed: frozenset[str] | None, text: str,
                start: int, end: int, control: list[tuple[str, int]], kept: str) -> set[str] | frozenset[str] | None:
    """Record and decode the attributes in ``text[start:end]`` as the full reader does: their names,
    or None where it would refuse one.

    A jax module spells the same attribute text on thousands of lines (``, dimensions={}``, a
    placement annotation's target and frontend attributes): the verdict on a text that names no
    computation, control predecessor, aliasing or metadata depends on the opcode and the text only,
    so it is reached once per (opcode, text) and kept for the parse (``p.attribute_verdicts``).
    A text naming one computation (``, dimensions={0}, to_apply=region_0.2_c7``: a reduction per
    region) is seldom repeated, but the verdict on the rest is: kept per (opcode, text without the
    name) too, the name queued as the full reader queues it (:func:`_call_template`).  ``kept`` is
    ``text[start:end]``, or empty where that is longer than :data:`_LONG_TEXT` (:func:`read_fast` dropped it):
    sliced again after the checks, which copy every value once (a 10 MB value is not held twice meanwhile)."""
    verdicts = p.attribute_verdicts
    long = not kept
    template: tuple[tuple[HloOpcode, str], str, str, int] | None = None
    if not long:
        key = (instr.opcode, kept)
        reused = verdicts.get(key)
        if reused is not None:  # most lines with attributes: a text seen before
            if reused[2] is None and reused[3] is None and reused[4] is None:
                instr._attributes = reused[0]  # the text alone (most verdicts): _reuse's one store, without its call
            else:
                _reuse(instr, reused[0], reused[2], reused[3], reused[4])
            return reused[1]
        called = _call_template(p, instr, text, start, end, kept)
        if isinstance(called, frozenset):
            return called  # the verdict on the rest, reused
        template = called
    resolving = len(p._calls_to_resolve)
    names = _check_attributes(p, instr, allowed, text, start, end, control)
    if names is None:
        return None
    if long:
        kept = text[start:end]
        key = (instr.opcode, kept)
    if "metadata" in names:
        instr.set_attribute_text(kept)  # nearly all distinct (op names, source lines): not shared
        return names
    shared = p.shared_text.setdefault(kept, kept)
    instr.set_attribute_text(shared)
    target = instr.custom_call_target
    if target is not None:  # one string per target (a few spellings on thousands of lines)
        target = instr.custom_call_target = p.shared_text.setdefault(target, target)
    if _UNREUSABLE.isdisjoint(names):
        verdicts[key] = (shared, frozenset(names), target, instr.tuple_index, _shared_rare(instr, names))
    elif template is not None and _UNREUSABLE.intersection(names) == {template[1]} \
            and p._calls_to_resolve[resolving:] == [(instr, template[1], [template[2]], template[3])]:
        verdicts[template[0]] = (template[1], frozenset(names), target, instr.tuple_index,
                                 _shared_rare(instr, names))  # the one call checked where the template has it
    return names


def _reuse(instr: HloInstruction, shared: str, target: str | None, index: int | None,
           rare: SharedRareFields | None) -> None:
    """A verdict reached before, applied to ``instr`` (a line just read: its fields are unset): its text
    and decoded fields, the rare ones shared (``rare``: the frontend attributes, the target or index)."""
    instr._attributes = shared
    if rare is not None and instr._extra is None:
        instr._extra = rare  # shared by every line of this (opcode, text)
        return
    if target is not None:
        instr._set_number(target)
    if index is not None:
        instr._set_number(index)
    if rare is not None and rare.frontend_attributes is not NO_STRINGS:  # a constant's literal or a
        instr.frontend_attributes = rare.frontend_attributes  # parameter's number is there already: its own fields


def _shared_rare(instr: HloInstruction, names: set[str]) -> SharedRareFields | None:
    """The frontend attributes and the target or index ``instr`` read, as rare fields every line of
    its verdict can share (``instr``'s own become those where they hold nothing else)."""
    number = None if instr.opcode is PARAMETER else instr._number()  # a target or an index: the text's
    if "frontend_attributes" not in names:
        return None if number is None else shared_number(number)  # (what _set_number gave it)
    frontend = SharedRareFields.holding(frontend_attributes=instr.frontend_attributes, number=number)
    extra = instr._extra
    if extra is not None and type(extra) is not CALLS and extra.literal is None and extra.number == number \
            and only_literal_or_frontend(extra):
        instr._extra = frontend  # this line's own fields are those: shared with the lines to come
    return frontend


# ', to_apply=name' (or another role naming one computation) with a plain name, last or before a ','.
_CALL: Final = re.compile(r",[ \t]*(" + "|".join(sorted(_ONE_COMPUTATION_ROLES, key=len, reverse=True))
                          + r")=([A-Za-z_][A-Za-z0-9_.\-]*)(?=[ \t]*,|\Z)")


def _call_template(p: ComputationReader, instr: HloInstruction, text: str, start: int, end: int, kept: str
                   ) -> tuple[tuple[HloOpcode, str], str, str, int] | frozenset[str] | None:
    """The first ``role=name`` of the text, for :func:`_attributes`: where the verdict on the text
    around it (the name cut out, a newline in its place: no attribute text holds one) was reached
    before, applied, and the call queued as the full reader's decoder queues it (its names); else the
    key to keep the verdict under, the role, name and value position, to be checked by the caller
    (the full checks must find that attribute, the only call, there); None where there is none.

    The verdict does not depend on the name: its checks see the name as a bare value, which any
    name of the pattern is, but for the two they see in it (:data:`_KEYWORDS`, long digit runs:
    the full checks then)."""
    if COMPILED:  # the regex's match by string operations (.line_split.call_span): a native loop once compiled
        span = call_span(text, start, end, _ONE_COMPUTATION_ROLES)
        if span is None:
            return None
        rs, vs, ve = span
        role, name = text[rs:vs - 1], text[vs:ve]
    else:
        c = _CALL.search(text, start, end)
        if c is None:
            return None
        vs, ve = c.span(2)
        role, name = c.group(1, 2)
    template = (instr.opcode, text[start:vs] + "\n" + text[ve:end])
    known = p.attribute_verdicts.get(template)
    if known is None or name in _KEYWORDS or (ve - vs >= 20 and _LONG_DIGITS.search(name) is not None):
        return template, role, name, vs
    callee = p._computations_as_written.get(name)
    if callee is not None and callee.name == name:  # the text is the template's with the callee's name: that kept
        kept = template[1]
    _reuse(instr, p.shared_text.setdefault(kept, kept), known[2], known[3], known[4])
    if callee is not None and instr._extra is None:
        # The queue's resolution (_resolve_called), now: the callee is defined (no error to raise), no rare field
        # to merge with, no parent (no caller index) and no control edge (_UNREUSABLE), so nothing read in between
        # differs; a line refused later is read anew by the full reader.  jax_entry 100k parse -2.1% (cachegrind).
        instr._extra = CALLS({_intern(known[0]): [callee]})
    else:
        p._calls_to_resolve.append((instr, known[0], [name], vs))
    return known[1]


def _with_callee(instr: HloInstruction, text: str) -> str:
    """``text``, a call's attributes kept as their template (:func:`_call_template`: the one name cut
    out, a newline in its place), with the name of the computation the instruction calls under that
    role put back: the text as read while the call is unchanged (where it calls none now, as a detached
    copy before its calls are set, the attribute reads as absent).

    Why: a text naming its callee is one string per caller (``, dimensions={0}, to_apply=region_0.2_c7``:
    jax_entry, one line in ten, ~8 MiB at 1M instructions), where the template is one for them all."""
    head, tail = text.split("\n", 1)
    comps = instr.called.get(head[head.rindex(",") + 1:-1].strip(" \t"))  # the role: ``, role=`` ends the head
    return head + (comps[0].name if comps else "") + tail


_LONG_TEXT: Final = 4096
"""Attribute spans longer than this are sliced again after the checks rather than held through them."""

# Attributes whose reading depends on more than the opcode and their text: called computations and
# control predecessors are looked up by name (and an inline body moves the cursor); aliasing lists
# are mutable; metadata is nearly never repeated.
_UNREUSABLE: Final = frozenset(("control-predecessors", "output_to_operand_aliasing", "metadata", *CALLED_COMPUTATION_ROLES))


def _check_attributes(p: ComputationReader, instr: HloInstruction, allowed: frozenset[str] | None, text: str,
                      start: int, end: int, control: list[tuple[str, int]]) -> set[str] | None:
    """The checks and decoders of :func:`_attributes` on a text not seen before.  Read in place: a
    10 MB value is copied once, as the full reader copies it."""
    if _LONG_DIGITS.search(text, start, end) is not None:
        return None  # an integer XLA's lexer may refuse: the full reader checks it
    found = _ATTRIBUTE.findall(text, start, end)
    if sum(map(len, chain.from_iterable(found))) + len(found) != end - start:
        return None  # something between or around them that is not an attribute this path reads
    names = {name for _, name, _ in found}
    if len(names) != len(found):
        return None  # an attribute given twice
    if allowed is not None and not allowed.issuperset(names):
        return None
    if "metadata" in names or not _PLAIN_FORMS.keys().isdisjoint(names):
        for _, name, raw in found:
            if (name == "metadata" and not metadata_fast(raw)) or \
                    (name in _PLAIN_FORMS and _PLAIN_FORMS[name].match(raw) is None):
                return None
    del found  # holds a copy of every value: free it before the one copy that is kept
    if _DECODED.isdisjoint(names):
        return names
    for a in _ATTRIBUTE.finditer(text, start, end):  # again, for the positions the decoders' messages name
        if a.group(2) in _DECODED:
            if a.group(2) in _ONE_COMPUTATION_ROLES and a.group(3).startswith("{"):
                return None  # an inline computation body: the full reader reads it (it moves the cursor)
            try:
                p._decode_attribute(instr, a.group(2), a.group(3), a.start(3), control)
            except HloParseError:
                return None
    return names


def read_attribute_text(text: str) -> dict[str, str]:
    """The attributes in ``text`` (``, name=value, ...``, as :func:`_attributes` kept it) by name,
    in order: the same split the parse checked, so it cannot fail."""
    return {_intern(name): raw for _, name, raw in _ATTRIBUTE.findall(text)}
