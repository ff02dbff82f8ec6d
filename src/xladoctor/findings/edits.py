"""Fixes as edits to the text the user wrote: the lines a fix changes, found by printing.

The remedies edit the IR; printing the whole edited module would drop comments and respell
every line.  So the module and its fixed copy are printed, the printouts compared line by
line, and only the lines that differ are carried back onto the original text: an instruction
line is found there by its name, the module header by ``HloModule`` (where only
``entry_computation_layout={...}`` is replaced).  The result is the edits (``offload --fix``
applies them; the JSON carries them as machine-applicable edits, as ruff's fixes), or None
when a changed line has no single place in the original (then the whole printed module is
the fix).
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..ir.value import FrozenValue
from .model import Edit

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=")
_COMPUTATION = re.compile(r"^\s*(?:ENTRY\s+)?%?([\w.\-]+)\s*[({]")
_LAYOUT_ATTR = "entry_computation_layout="


class LineEdit(FrozenValue):
    """Replace original lines ``start``..``end`` (0-based, end exclusive; equal: insert) with ``lines``
    (a frozen value written out, not a dataclass: an E1200's fixes are on ``offload FILE``'s way)."""

    __slots__ = _FIELDS = ("start", "end", "lines")
    start: int
    end: int
    lines: tuple[str, ...]

    def __init__(self, start: int, end: int, lines: tuple[str, ...]) -> None:
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "lines", lines)


def _key(line: str) -> tuple[str, str] | None:
    """What identifies a printed or written line across the two texts (None: a blank or a comment)."""
    stripped = line.strip()
    if not stripped or stripped.startswith("//"):
        return None
    if stripped.startswith("HloModule"):
        return ("module", "")
    if stripped == "}":
        return None
    m = _INSTRUCTION.match(line)
    if m:
        return ("instruction", m.group(1))
    m = _COMPUTATION.match(line)
    return ("computation", m.group(1)) if m and stripped.endswith("{") else None


_NOT_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|/\*.*?(?:\*/|$)|//.*')


def _depth(line: str, depth: int) -> int:
    """``depth`` after ``line``'s brackets, its strings and comments left out (as XLA's lexer reads them)."""
    if '"' in line or "/" in line:
        line = _NOT_BRACKETS.sub("", line)
    opened = line.count("(") + line.count("{") + line.count("[")
    closed = line.count(")") + line.count("}") + line.count("]")
    return max(0, depth + opened - closed)


def _statements(lines: list[str]) -> dict[tuple[str, str], tuple[int, int]]:
    """Each written statement (the module header, a computation header, an instruction) by its key:
    its first line and the line after its last.  XLA's lexer reads a line break as a space, so a
    statement goes on over the lines after it while a bracket is open, after a line that ends
    with ``,``, on a line that starts with one, and over lines that are neither a new statement,
    a ``}``, a comment nor blank (an attribute written on a line of its own)."""
    spans: dict[tuple[str, str], tuple[int, int]] = {}
    key: tuple[str, str] | None = None  # the statement still open (the header, an instruction)
    start = depth = 0
    previous = ""
    for i, line in enumerate(lines):
        new = None
        if key is not None:
            stripped = line.strip()
            going_on = depth > 0 or previous.endswith(",") or stripped.startswith(",")
            if not going_on and stripped and not stripped.startswith(("}", "//")):
                new = _key(line)
                going_on = new is None
            if going_on:
                depth, previous = _depth(line, depth), line.rstrip()
                continue
            spans.setdefault(key, (start, i))
            key = None
        else:
            new = _key(line)
        if new is None:
            continue
        if new[0] == "computation":  # its `{` opens the body, not a bracket of the statement
            spans.setdefault(new, (i, i + 1))
            continue
        key, start, depth, previous = new, i, _depth(line, 0), line.rstrip()
    if key is not None:
        spans.setdefault(key, (start, len(lines)))
    return spans


def newline_of(text: str) -> str:
    """The file's line ending, as its first line has it (``\\r\\n`` or ``\\n``)."""
    at = text.find("\n")
    return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


def _braced_end(text: str, start: int) -> int:
    """The index just past the ``}`` closing the ``{`` at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return len(text)


def _layout_span(header: str) -> tuple[int, int] | None:
    at = header.find(_LAYOUT_ATTR)
    if at < 0 or header[at + len(_LAYOUT_ATTR):at + len(_LAYOUT_ATTR) + 1] != "{":
        return None
    return at, _braced_end(header, at + len(_LAYOUT_ATTR))


def _header(written: str, printed: str) -> str:
    """The written module header with the printed one's ``entry_computation_layout`` put in."""
    new = _layout_span(printed)
    if new is None:
        return written
    value = printed[new[0]:new[1]]
    body = written.rstrip("\r\n")
    old = _layout_span(body)
    spliced = f"{body[:old[0]]}{value}{body[old[1]:]}" if old else f"{body}, {value}"
    return spliced + written[len(body):]


def line_edits(original: str, before: str, after: str) -> list[LineEdit] | None:
    """The edits that turn ``original`` into the fixed text, from the printouts ``before`` and
    ``after`` of the module and its fixed copy; None when a changed line has no place in ``original``."""
    written = original.splitlines(keepends=True)
    spans = _statements(written)
    where = {key: start for key, (start, _) in spans.items()}
    nl = newline_of(original)
    old, new = before.splitlines(), after.splitlines()
    # A fix touches a few lines: the common head and tail are cut first, so the diff is of the
    # middle only (difflib on two 100k-line printouts costs seconds; this is linear).
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    import difflib  # here: only a fix's edits need it, not every offload run's findings module

    edits = []
    matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in ((t, a + head, b + head, c + head, d + head) for t, a, b, c, d in matcher.get_opcodes()):
        if tag == "equal":
            continue
        keys = [k for k in map(_key, old[i1:i2]) if k is not None]
        if any(k not in where for k in keys):
            return None
        spots = sorted(spans[k] for k in keys)
        if any(a[1] != b[0] for a, b in pairwise(spots)):
            return None  # the printed run is not one run of written statements
        if spots:
            start, end = spots[0][0], spots[-1][1]
        else:  # a pure insertion: before the written line of the next printed line that has one
            following = [where[k] for k in map(_key, old[i2:]) if k is not None and k in where]
            if not following:
                return None
            start = end = following[0]
        lines = tuple(_header(_span_text(written, spans[("module", "")]), line) if line.startswith("HloModule")
                      else line + nl for line in new[j1:j2] if line.strip())
        edits.append(LineEdit(start, end, lines))
    return edits


def apply_edits(original: str, edits: list[LineEdit]) -> str:
    """``original`` with ``edits``; every byte outside them as it was (line endings, a last line
    without its line break)."""
    written = original.splitlines(keepends=True)
    nl = newline_of(original)
    unterminated = bool(written) and not written[-1].endswith(("\n", "\r"))
    if unterminated:
        written[-1] += nl
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        written[edit.start:edit.end] = edit.lines
    text = "".join(written)
    return text[:-len(nl)] if unterminated and text.endswith(nl) else text


def _span_text(written: list[str], span: tuple[int, int]) -> str:
    return "".join(written[span[0]:span[1]])



def module_edits(original: str, before: str, after: str, path: str) -> tuple[Edit, ...] | None:
    """:func:`line_edits` as the findings model's :class:`~xladoctor.findings.model.Edit` (1-based lines)."""
    found = line_edits(original, before, after)
    if found is None:
        return None
    return tuple(Edit(path, e.start + 1, e.end + 1, "".join(e.lines)) for e in found)


FixEdits = tuple[tuple[Edit, ...], tuple[Edit, ...]]


def e1200_fix_edits(text: str, module: Any, result: Any, path: str) -> dict[tuple[int, ...], FixEdits]:
    """Per offending output, the edits of remedy (a) (host layout) and (b) (move-to-device),
    each as if it were the only error; outputs whose edits cannot be placed are left out.

    Linear in the outputs, however many share one ROOT tuple: (a) is the header line alone, or
    for a result of more than :data:`_WIDE` leaves the one leaf's span in it; (b) is the
    move-to-device line and the ROOT tuple's changed operand (:class:`_DeviceEdits`, printed without
    copying the module), else printed from a fixed copy (:func:`_entry_edits`)."""
    written = text.splitlines(keepends=True)
    spans = _statements(written)
    nl = newline_of(text)
    header_at = spans.get(("module", ""))
    if header_at is None or not result.errors:
        return {}
    host = _HostEdits(module, written, header_at, path, nl)
    device = _DeviceEdits(module, result, written, spans, path, nl)
    out: dict[tuple[int, ...], FixEdits] = {}
    for err in result.errors:
        host_edit = host.edits(tuple(err.output_index))
        device_edits = device.edits(err)
        if device_edits is not None:
            out[tuple(err.output_index)] = (host_edit, device_edits)
    return out


_WIDE = 16
"""Above this many result leaves (or ROOT tuple operands) an edit is a span of the line, not the line."""


class _HostEdits:
    """Remedy (a) for each output: the written header with that output's layout in host memory."""

    def __init__(self, module: Any, written: list[str], header_at: tuple[int, int], path: str, nl: str):
        self.ecl = module.entry_layout()
        self.header, self.at, self.path, self.nl = _span_text(written, header_at), header_at, path, nl
        leaves = sum(1 for _ in self.ecl.result.leaves())
        one_line = header_at[1] - header_at[0] == 1  # a span of a line: only where the header is one line
        self.spans = _result_spans(self.header) if leaves > _WIDE and one_line else None

    def edits(self, index: tuple[int, ...]) -> tuple[Edit, ...]:
        from ..ir.module import ProgramShape
        from ..ir.shape import HOST_MEMORY_SPACE

        span = self.spans.get(index) if self.spans is not None else None
        if span is not None:
            leaf = str(self.ecl.result.subshape(index).with_memory_space(HOST_MEMORY_SPACE))
            return (Edit(self.path, self.at[0] + 1, self.at[0] + 1, leaf, span[0] + 1, span[1] + 1),)
        ecl = self.ecl
        layout = ProgramShape(list(ecl.parameters), ecl.result.with_memory_space(HOST_MEMORY_SPACE, index))
        header = _header(self.header, f"HloModule m, {_LAYOUT_ATTR}{{{layout}}}")
        return (Edit(self.path, self.at[0] + 1, self.at[1] + 1, header if header.endswith("\n") else header + self.nl),)


def _result_spans(header: str) -> dict[tuple[int, ...], tuple[int, int]] | None:
    """Where each subshape of the written ``entry_computation_layout``'s result is in ``header``
    (0-based, end excluded), by shape index; None when the header has no layout to read."""
    at = header.find(_LAYOUT_ATTR)
    if at < 0:
        return None
    i = at + len(_LAYOUT_ATTR)
    if header[i:i + 1] != "{":
        return None
    spans: dict[tuple[int, ...], tuple[int, int]] = {}
    try:
        i = _skip(header, _shape_spans(header, i + 1, (), {}))
        if header[i:i + 2] != "->":
            return None
        _shape_spans(header, i + 2, (), spans)
    except (IndexError, ValueError):
        return None
    return spans


def _skip(text: str, i: int) -> int:
    """Past blanks and ``/*...*/`` comments (the printer's ``/*index=5*/``)."""
    while True:
        while text[i] in " \t":
            i += 1
        if not text.startswith("/*", i):
            return i
        i = text.index("*/", i) + 2


def _shape_spans(text: str, i: int, index: tuple[int, ...], out: dict[tuple[int, ...], tuple[int, int]]) -> int:
    """Read one shape at ``i``, recording its span and its elements' (by index) in ``out``; the end."""
    i = _skip(text, i)
    start = i
    if text[i] == "(":
        i = _skip(text, i + 1)
        k = 0
        while text[i] != ")":
            i = _skip(text, _shape_spans(text, i, (*index, k), out))
            k += 1
            if text[i] == ",":
                i += 1
            elif text[i] != ")":
                raise ValueError("not a tuple shape")
        out[index] = (start, i + 1)
        return i + 1
    depth = 0
    while True:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}" or (c == "," and not depth):
            if not depth:
                break
            depth -= 1
        i += 1
    end = i
    while text[end - 1] in " \t":
        end -= 1
    out[index] = (start, end)
    return i


class _DeviceEdits:
    """Remedy (b) for each output: a move-to-device before the ROOT line, the returned operand
    pointing at it.  An output the ROOT tuple (or a tuple under it) returns directly costs two printed
    lines and no copy of the module: the move-to-device is made (and unlinked again), named as a copy
    of the module would name it (:func:`~xladoctor.ir.clone.clone_names`), and the tuple printed with
    that one operand's name changed, its users left as they are; so N outputs cost N lines, not N copies
    of the module (it was one copy per run: the second whole copy of an E1200 run).  Any other output is
    printed from a copy fixed for it."""

    def __init__(self, module: Any, result: Any, written: list[str], spans: dict[tuple[str, str], tuple[int, int]],
                 path: str, nl: str):
        self.module, self.result, self.written, self.spans, self.path, self.nl = module, result, written, spans, path, nl
        self.pct = "%" if module.print_percent else ""
        self.external = False
        self.name = ""
        self.operand_spans: dict[str, list[tuple[int, int]] | None] = {}
        entry = module.entry_computation()
        self.placeable = all(("instruction", i.name) in spans for i in entry.instructions)

    def edits(self, err: Any) -> tuple[Edit, ...] | None:
        from ..offload import fix_device

        found = self._returned_directly(err.output_index)
        if found is None:
            return _entry_edits(self.module, fix_device(self.module, self.result.replace(errors=[err])),
                                self.written, self.spans, self.path, self.nl)
        if not self.placeable:
            return None
        return self._direct(*found)

    def _returned_directly(self, index: tuple[int, ...]) -> tuple[Any, int] | None:
        """(the tuple holding output ``index``, its slot), when the output is a whole operand of
        the ROOT tuple or of a tuple under it (no get-tuple-element to add around it)."""
        from ..ir.opcodes import HloOpcode

        instr = self.module.entry_computation().root_instruction()
        parent = None
        rest = index
        while rest and instr.opcode is HloOpcode.TUPLE:
            parent = (instr, rest[0])
            instr, rest = instr.operand(rest[0]), rest[1:]
        return parent if parent is not None and not rest else None

    def _direct(self, tup: Any, slot: int) -> tuple[Edit, ...]:
        from ..ir.clone import clone_names
        from ..offload.fixes import external_annotations, make_move_to_device
        from ..syntax.hlo_printer import print_instruction

        if not self.name:
            self.external = external_annotations(self.module)
            self.name = clone_names(self.module).unique_keeping_suffix(
                "device_put" if self.external else "move_to_device")
        value = tup.operand(slot)
        mtd = make_move_to_device(self.name, value, self.external)
        root = self.module.entry_computation().root_instruction()
        root_at, root_end = self.spans[("instruction", root.name)]
        tup_at, tup_end = self.spans[("instruction", tup.name)]
        indent = _indent(self.written[root_at])
        mtd_line = f"{indent}{print_instruction(mtd, self.pct)}{self.nl}"
        one_line = tup_end - tup_at == 1  # a span of a line: only where the tuple is written on one
        span = self._operand_span(tup, slot) if len(tup.operands) > _WIDE and one_line else None
        if span is None:
            names = [o.name for o in tup.operands]
            names[slot] = mtd.name
            changed = f"{_indent(self.written[tup_at])}{print_instruction(tup, self.pct, names)}{self.nl}"
        mtd.operands = ()  # made last among value's users: unlinking it leaves their order as it was
        if span is not None:
            change = Edit(self.path, tup_at + 1, tup_at + 1, self.pct + mtd.name, span[0] + 1, span[1] + 1)
            insert = Edit(self.path, root_at + 1, root_at + 1, mtd_line)
            return (insert, change) if tup is root or root_at < tup_at else (change, insert)
        if tup is root:
            return (Edit(self.path, root_at + 1, root_end + 1, mtd_line + changed),)
        change = Edit(self.path, tup_at + 1, tup_end + 1, changed)
        insert = Edit(self.path, root_at + 1, root_at + 1, mtd_line)
        return (change, insert) if self._before_root(tup) else (insert, change)

    def _before_root(self, tup: Any) -> bool:
        """Whether ``tup`` comes before the ROOT in the entry's order (whose edit comes first)."""
        entry = self.module.entry_computation()
        if not hasattr(self, "order"):
            self.order = {id(i): k for k, i in enumerate(entry.instructions)}
        return bool(self.order[id(tup)] < self.order[id(entry.root_instruction())])

    def _operand_span(self, tup: Any, slot: int) -> tuple[int, int] | None:
        """Where operand ``slot``'s name is in the written line of ``tup`` (read once per line)."""
        if tup.name not in self.operand_spans:
            line = self.written[self.spans[("instruction", tup.name)][0]]
            self.operand_spans[tup.name] = _operand_name_spans(line, [o.name for o in tup.operands])
        spans = self.operand_spans[tup.name]
        return spans[slot] if spans is not None else None


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _operand_name_spans(line: str, names: list[str]) -> list[tuple[int, int]] | None:
    """Each operand name's span in a written ``tuple(...)`` line (``%`` included); None unless the
    line's operands are exactly ``names`` (an older printer's ``f32[2]{0} %x`` is read too)."""
    at = line.find(" tuple(")
    if at < 0:
        return None
    i = start = at + len(" tuple(")
    spans: list[tuple[int, int]] = []
    depth = 0
    while i < len(line):
        c = line[i]
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif c in ",)" and not depth:
            part = line[start:i].rstrip()
            if part.strip():
                cut = max(part.rfind(" "), part.rfind("/"), part.rfind("\t")) + 1  # after a shape or /*index=N*/
                spans.append((start + cut, start + len(part)))
            if c == ")":
                break
            start = i + 1
        i += 1
    if len(spans) != len(names) or any(line[a:b].lstrip("%") != n for (a, b), n in zip(spans, names)):
        return None
    return spans


def _entry_edits(module: Any, fixed: Any, written: list[str], spans: dict[tuple[str, str], tuple[int, int]],
                 path: str, nl: str) -> tuple[Edit, ...] | None:
    """The written entry's lines for what ``fixed`` adds (new instructions, before the next one
    that was there) or changes (other operands, or ROOT moved); None when one has no written line."""
    from ..syntax.hlo_printer import print_instruction

    pct = "%" if module.print_percent else ""
    entry, new_entry = module.entry_computation(), fixed.entry_computation()
    before = {i.name: i for i in entry.instructions}
    edits: list[Edit] = []
    pending: list[Any] = []
    last: int | None = None
    for instr in new_entry.instructions:
        old = before.get(instr.name)
        if old is None:
            pending.append(instr)
            continue
        span = spans.get(("instruction", instr.name))
        if span is None:
            return None
        at, last = span[0], span[1] - 1
        indent = written[at][:len(written[at]) - len(written[at].lstrip())]
        changed = ([o.name for o in instr.operands] != [o.name for o in old.operands]
                   or (instr is new_entry.root) != (old is entry.root))
        lines = [f"{indent}{print_instruction(i, pct)}{nl}" for i in [*pending, *([instr] if changed else [])]]
        if lines:
            edits.append(Edit(path, at + 1, span[1] + 1 if changed else at + 1, "".join(lines)))
        pending = []
    if pending:
        if last is None:
            return None
        edits.append(Edit(path, last + 2, last + 2, "".join(f"  {print_instruction(i, pct)}{nl}" for i in pending)))
    return tuple(edits)
