"""The region of a module host offloading can touch, found from its text without parsing it.

Why: XLA's HostOffloader (and every pass before it that matters to its verdict) acts from the
host-memory annotations outward (:mod:`xladoctor.triage.hlo_triage` lists them), so the instructions
that can reach or be reached from them are the most any verdict, message or fix can name.
Parsing builds one object per line (~7 µs in CPython against jaxlib's ~4), so knowing the region
before parsing is what lets the rest of a module stay text.

:func:`scan_module` reads each line with one compiled regex over the whole text (C speed, no
object per instruction but a list of words), keeping per instruction only its name, line,
operands (names defined in the same computation) and called computations.  Then, on instruction
numbers: :func:`region` closes the seeds under operands and users, through calls, loops and
conditionals (a computation any member of which is reached goes in whole, with its callers);
:func:`forward` is what the seeds' values reach; :func:`backward` what a set needs; :func:`live`
what the entry's root needs.

The graph is a superset of the parser's (any name a line mentions outside strings and metadata
that is defined in the same computation counts as an operand), which only makes a region larger,
never wrong; ``tests/test_region_scan.py`` checks it against the parsed module on every corpus
and that the region holds every instruction the analysis names.  What the scan does
not model -- comments other than whole ``//`` lines and XLA's
``/*index=5*/``, a line that is no header, instruction, brace or stack-frame table row, a name
defined twice -- makes :func:`scan_module` give ``None``: the caller then parses as before.

Measured (bench/region_scan.py, bench/README.md): on the real train steps and jax's repeated
ENTRY module the region is the whole module, so this alone does not let parsing be skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..base.collector import paused

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
# One item per line: an instruction (ROOT, name, shape, opcode, operand list up to its first ')',
# the rest), a computation's header, a closing brace, or anything else (group 9: comments, the
# HloModule line, blank lines).
_ITEM = re.compile(
    r"^(?:[ \t]*(ROOT[ \t]+)?%?(" + _NAME + r")[ \t]*=[ \t]*"
    r"(\([^\n]*?\)(?=[ \t]+[a-z][\w\-]*\()|[^ \t\n]+)[ \t]+([a-z][\w\-]*)\(([^)\n]*)\)([^\n]*)"
    r"|(ENTRY[ \t]+)?%?(" + _NAME + r")(?:[^\n={}]|=(?=[0-9]+\*/))*\{[ \t]*"
    r"|[ \t]*(\})[^\n]*"
    r"|([^\n]*))$", re.M)
# Outside strings, every name a text mentions (the superset the module docstring allows).
_WORD = re.compile(r'"(?:[^"\\\n]|\\.)*"|%?(' + _NAME + r")")
_CUT = ", metadata={"
"""Metadata holds only strings and numbers: nothing after it (on XLA's printed lines, it comes
after the operands and called computations) names an instruction or computation."""

_SEED_TOKENS = ("MoveToHost", "MoveToDevice", "annotate_device_placement", "_xla_buffer_placement", "AllocateBuffer",
                "_xla_compute_type", "async_execution_thread", "S(")
"""What makes an instruction line a seed of the region: the custom calls and attributes
:mod:`xladoctor.offload.annotations` reads, and any memory space (``S(5)`` host, ``S(6)``
unpinned host; ``S(`` followed by a digit) in its shape or an operand's."""
_ATTR_TOKENS = ("to_apply=", "calls=", "body=", "condition=", "branch_computations=", "true_computation=",
                "false_computation=", "called_computations=", "control-predecessors=")
"""Attributes that name called computations or instructions (control predecessors)."""


def _positions(text: str, start: int, tokens: tuple[str, ...]) -> list[int]:
    """Where any of ``tokens`` occurs from ``start`` on (``S(`` only before a digit): one
    ``str.find`` loop per token, which runs at memory speed where a regex alternation without a
    common literal prefix would try every position."""
    out: list[int] = []
    find = text.find
    for token in tokens:
        at = find(token, start)
        while at >= 0:
            if token != "S(" or text[at + 2:at + 3].isdigit():
                out.append(at)
            at = find(token, at + 1)
    return out


def _unmodelled(text: str) -> bool:
    """Text the scan does not model (comments other than XLA's ``/*index=5*/`` in tuple shapes and
    whole ``//`` lines, which may hide names or braces): the caller parses the whole module.  Plain substring counts: a regex alternation without a literal prefix would
    cost as much as the scan's own pass."""
    if text.count("/*") != text.count("/*index="):
        return True
    comments = text.count("//")
    return comments > 0 and comments != len(_LINE_COMMENT.findall(text))


_LINE_COMMENT = re.compile(r"^[ \t]*//", re.M)
_HEADER = re.compile(r"^[ \t]*HloModule\b[^\n]*", re.M)
_TABLE_LINE = re.compile(r"(?:FileNames|FunctionNames|FileLocations|StackFrames)[ \t]*|[0-9]+ [^\n]*")
"""The stack frame tables XLA prints between the module's header and its computations: a heading
or a numbered row, outside any computation."""


@dataclass
class ModuleScan:
    """What :func:`scan_module` found, instructions numbered in text order.

    Per instruction ``i``: ``names[i]``, its 1-based ``lines[i]``, the computation ``comp_of[i]``
    (an index into ``computations``), ``operands[i]`` (instruction numbers) and ``callees[i]``
    (computation numbers, only for instructions that call any).  Per computation: its name, its
    instructions ``members[c]`` (a range), its ``roots[c]``, and whether it is the entry."""

    computations: list[str]
    entry: int
    members: list[range]
    roots: list[int]
    names: list[str]
    lines: list[int]
    comp_of: list[int]
    operands: list[tuple[int, ...]]
    callees: dict[int, tuple[int, ...]]
    seeds: list[int]
    header_memory_space: bool

    @property
    def instruction_count(self) -> int:
        return len(self.names)


def scan_module(text: str) -> ModuleScan | None:
    """The module's graph from its text, or ``None`` where the scan cannot vouch for it."""
    if _unmodelled(text):
        return None
    with paused():  # lists per instruction and no cycles: the collector's rescans would be waste
        return _scan(text)


class _Lines:
    """What the line loop of :func:`_read_lines` collects (see :class:`ModuleScan`)."""

    def __init__(self) -> None:
        self.comps: list[str] = []
        self.comp_index: dict[str, int] = {}
        self.members: list[range] = []
        self.roots: list[int] = []
        self.names: list[str] = []
        self.lines: list[int] = []
        self.starts: list[int] = []
        self.comp_of: list[int] = []
        self.words: list[str] = []
        """Each instruction's operand list as written (up to its first ')')."""
        self.tails: list[str] = []
        self.entry = -1
        self.threaded: list[int] = []
        """Computations with an ``execution_thread`` (a host computation's every instruction is a seed)."""


def _scan(text: str) -> ModuleScan | None:
    found = _HEADER.search(text)
    if found is None:
        return None
    got = _read_lines(text)
    if got is None:
        return None
    starts, tails = got.starts, got.tails
    extra: dict[int, list[str]] = {}
    for at in _positions(text, found.end(), _ATTR_TOKENS):  # the words of those lines' attributes
        i = bisect_right(starts, at) - 1
        if i >= 0:
            extra[i] = _WORD.findall(tails[i].split(_CUT, 1)[0])
    graph = _resolve(got, extra)
    if graph is None:
        return None
    operands, callees = graph
    seeds = sorted({bisect_right(starts, at) - 1 for at in _positions(text, found.end(), _SEED_TOKENS)}
                   | {i for c in got.threaded for i in got.members[c]})
    return ModuleScan(got.comps, got.entry, got.members, got.roots, got.names, got.lines, got.comp_of, operands,
                      callees, [s for s in seeds if s >= 0], bool(_positions(found.group(0), 0, _SEED_TOKENS)))


def _read_lines(text: str) -> _Lines | None:
    """One pass of :data:`_ITEM` over the text; ``None`` at the first line it does not model."""
    got = _Lines()
    names, lines, starts, comp_of, words, tails = got.names, got.lines, got.starts, got.comp_of, got.words, got.tails
    current = first = line = last = 0
    current = root = -1
    count = text.count
    for m in _ITEM.finditer(text):
        pos = m.start()
        line += count("\n", last, pos)
        last = pos
        is_root, name, _shape, _opcode, ops, attrs, is_entry, comp_name, close, other = m.groups()
        if name is not None:
            if current < 0:
                return None  # an instruction outside a computation: the parser says why
            if is_root:
                root = len(names)
            names.append(name)
            lines.append(line + 1)
            starts.append(pos)
            comp_of.append(current)
            words.append(ops)
            tails.append(attrs)
        elif comp_name is not None:
            if current >= 0 or comp_name in got.comp_index:
                return None
            current = got.comp_index[comp_name] = len(got.comps)
            got.comps.append(comp_name)
            first, root = len(names), -1
            if is_entry:
                got.entry = current
        elif close is not None:
            if current < 0:
                return None
            if "execution_thread=" in m.group(0):  # `}, execution_thread="host"`: all of it is a seed
                got.threaded.append(current)
            got.members.append(range(first, len(names)))
            got.roots.append(root if root >= 0 else len(names) - 1)
            current = -1
        elif other and other.strip() and not other.lstrip().startswith(("//", "HloModule")) \
                and (current >= 0 or not _TABLE_LINE.fullmatch(other)):
            return None  # a line that is none of these (a wrapped attribute): not modelled
    if current >= 0 or got.entry < 0 or any(not r for r in got.members):
        return None
    return got


def _resolve(got: _Lines, extra: dict[int, list[str]]) -> tuple[list[tuple[int, ...]], dict[int, tuple[int, ...]]] | None:
    """Each instruction's operands (names defined in its computation) and callees (names of
    computations, among ``extra``: the words of its attributes); ``None`` for a name defined twice
    in one computation.  A plain operand list (``a, b``) is split; any other (``%a``, operand
    shapes, a number, a list that holds a ')' of its own) gives every word it and, where it was
    cut short, the line's attributes hold."""
    names, tails, comp_index = got.names, got.tails, got.comp_index
    operands: list[tuple[int, ...]] = []
    callees: dict[int, tuple[int, ...]] = {}
    for members_c in got.members:
        defined = {names[i]: i for i in members_c}
        if len(defined) != len(members_c):
            return None
        get = defined.get
        for i in members_c:
            ops = got.words[i]
            found = tuple(map(get, ops.split(", "))) if ops else ()
            if None in found or i in found:
                ws: list[str] = _WORD.findall(ops)
                if "(" in ops:
                    ws += _WORD.findall(tails[i].split(_CUT, 1)[0])
                    extra[i] = ws
                found = tuple(j for w in ws if w and (j := get(w)) is not None and j != i)
            more = extra.get(i)
            if more:  # control predecessors (and any attribute word naming an instruction here)
                found += tuple(j for w in more if w and (j := get(w)) is not None and j != i and j not in found)
            operands.append(found)  # type: ignore[arg-type]  # no None left: checked above
        for i in members_c:
            attr_words = extra.get(i)
            if attr_words:
                called = tuple(c for w in attr_words if w and w not in defined and (c := comp_index.get(w)) is not None)
                if called:
                    callees[i] = called
    return operands, callees


@dataclass
class Region:
    """Instruction numbers in the region, and the computations wholly inside it."""

    instructions: set[int]
    whole: set[int]


def _users_and_callers(scan: ModuleScan) -> tuple[list[list[int]], dict[int, list[int]]]:
    """The reverse edges the walks follow: each instruction's users, each computation's callers."""
    users: list[list[int]] = [[] for _ in scan.names]
    for i, ops in enumerate(scan.operands):
        for o in ops:
            users[o].append(i)
    callers: dict[int, list[int]] = {}
    for i, called in scan.callees.items():
        for c in called:
            callers.setdefault(c, []).append(i)
    return users, callers


def region(scan: ModuleScan) -> Region:
    """Close the seeds (and, with host memory in the module header's entry layout, every entry
    instruction) under operands, users and calls: a computation any member of which is reached
    goes in whole, with every instruction that calls it."""
    users, callers = _users_and_callers(scan)
    inside: set[int] = set()
    whole: set[int] = set()
    todo = list(scan.seeds)
    if scan.header_memory_space:
        todo.extend(scan.members[scan.entry])
    comp_of, operands, callees, members, entry = scan.comp_of, scan.operands, scan.callees, scan.members, scan.entry
    while todo:
        i = todo.pop()
        if i in inside:
            continue
        inside.add(i)
        todo.extend(operands[i])
        todo.extend(users[i])
        c = comp_of[i]
        for callee in (*callees.get(i, ()), *((c,) if c != entry else ())):
            if callee not in whole:
                whole.add(callee)
                todo.extend(members[callee])
                todo.extend(callers.get(callee, ()))
    return Region(inside, whole)


def forward(scan: ModuleScan) -> set[int]:
    """What the seeds' values reach, following users, into what a reached instruction calls (all
    of it), and from a computation's root to the instructions that call it (a bound on what
    HostOffloader's walks can visit)."""
    users, callers = _users_and_callers(scan)
    seen: set[int] = set()
    entered: set[int] = set()
    todo = list(scan.seeds)
    roots = set(scan.roots)
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        todo.extend(users[i])
        if i in roots:
            todo.extend(callers.get(scan.comp_of[i], ()))
        for c in scan.callees.get(i, ()):  # the value goes in through the callee's parameters
            if c not in entered:
                entered.add(c)
                todo.extend(scan.members[c])
    return seen


def backward(scan: ModuleScan, start: list[int] | set[int]) -> set[int]:
    """What ``start`` needs: operands, and all of every computation a needed instruction calls."""
    seen: set[int] = set()
    done: set[int] = set()
    todo = list(start)
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        todo.extend(scan.operands[i])
        for c in scan.callees.get(i, ()):
            if c not in done:
                done.add(c)
                todo.extend(scan.members[c])
    return seen


def live(scan: ModuleScan) -> set[int]:
    """What the entry's root needs (the instructions dead-code removal keeps, modulo side effects)."""
    return backward(scan, [scan.roots[scan.entry]])
