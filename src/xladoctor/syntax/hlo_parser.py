"""Parser for HLO module text as XLA prints it (``HloModule::ToString``, dumps, ``as_text``).

Reads, in one pass over the text:

* the header ``HloModule name, k=v, ...`` (``entry_computation_layout``,
  ``input_output_alias``, ``buffer_donor``, ``frontend_attributes`` decoded; all
  kept raw for printing);
* the ``FileNames`` / ``FunctionNames`` / ``FileLocations`` / ``StackFrames``
  tables of compiled dumps, so instructions map back to Python lines;
* computations, with or without ``ENTRY``, ``%`` prefixes and signatures,
  ``execution_thread`` suffixes;
* instructions in both the current form (``add(x, y)``) and the older typed-operand
  form (``add(f32[2]{0} %x, f32[2]{0} %y)``), constants of any size, and every
  attribute (kept raw, the useful ones decoded).

Names are resolved after each computation (operands, control predecessors) and
after the module (called computations), so text order does not matter.  Every
problem raises :class:`~xladoctor.base.errors.HloParseError` with ``source:line:col``.
"""

from __future__ import annotations

import re
from array import array

from ..base.collector import building
from ..base.errors import HloParseError
from ..base.lazy_pattern import LazyPattern
from ..ir.module import FileLocation, HloModule, InputOutputAlias, ProgramShape, StackFrame
from .attributes import parse_aliasing, parse_buffer_donors, parse_key_values, scan_string, unquote
from .computation_reader import ComputationReader
from .header_attributes import HeaderAttributeError, check_header_attribute
from .hlo_lexicon import KEYWORDS
from .instruction_reader import _is_name_char
from .layout_warnings import collecting, located
from .reader import _SKIP_START, Reader
from .shape_parser import read_shape, read_shape_list

__all__ = ["KEYWORDS", "parse_module"]

_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_TABLE_ROW = LazyPattern(r"\s*(\d{1,19})\s+(?=[\"{])")
# Text that starts like a computation ('ENTRY main {', 'body.1 (p: f32[]) -> f32[] {'): a module without header.
_COMPUTATION_START = LazyPattern(r"(?:ENTRY\s+)?(?:%[A-Za-z_][A-Za-z0-9_.\-]*|[A-Za-z_][A-Za-z0-9_.\-]*:?)\s*[({]")
_SOURCE_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")

_NOT_HLO_HINTS = (
    ("BufferAssignment:", "XLA's buffer-assignment dump (*-buffer-assignment.txt)"),
    ("allocation 0:", "XLA's buffer-assignment dump (*-buffer-assignment.txt)"),
    ("Total bytes used:", "XLA's memory-usage report"),
    ("module @", "StableHLO/MLIR text (use Lowered.as_text('hlo') or the *.txt HLO dumps)"),
    ("func.func", "StableHLO/MLIR text (use Lowered.as_text('hlo') or the *.txt HLO dumps)"),
    ("digraph", "a Graphviz DOT file"),
)


# What Python's \s takes as white space and XLA's lexer does not (it skips only ' ', \t, \n, \r).
_NOT_XLA_SPACE = re.compile("[\v\f\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_ASCII_NOT_XLA_SPACE = "\v\f\x1c\x1d\x1e\x1f"
_QUOTED_OR_COMMENT = LazyPattern(r'"(?:[^"\\]|\\.)*"|/\*.*?\*/|//[^\n]*|(' + _NOT_XLA_SPACE.pattern + ")", re.S)


def _check_white_space(text: str, source: str) -> None:
    """Refuse white space XLA's lexer does not skip (\\v, a no-break space, U+2003, ...) outside
    strings and comments, where the readers below (Python's ``\\s``) would take it."""
    if text.isascii() and not any(c in text for c in _ASCII_NOT_XLA_SPACE):
        return  # the usual text, told apart by C-speed scans (the class search costs 10 ns a character)
    if _NOT_XLA_SPACE.search(text) is None:
        return
    for m in _QUOTED_OR_COMMENT.finditer(text):
        if m.group(1) is not None:
            raise HloParseError.at(f"U+{ord(m.group(1)):04X} is not white space to XLA's lexer (only space, tab, "
                                   "CR and LF are)", text, m.start(1), source)


def parse_module(text: object, source: str = "<hlo>") -> HloModule:
    """Parse one HLO module (``str``, or UTF-8 ``bytes``); raises :class:`HloParseError` naming
    ``source:line:col``, and a TypeError for what is not text (``None``).  ``text`` is declared
    ``object`` so that the compiled core lets anything in and ``text_argument`` words the refusal,
    as in pure Python (a ``str | bytes`` argument is checked by mypyc first, in its own words)."""
    from ..base.files import text_argument

    text = text_argument(text, "parse_module", source)
    _check_white_space(text, source)
    # The parse allocates millions of objects and frees none of them; CPython's cyclic
    # GC would rescan the growing heap again and again (superlinear time), so pause it, and
    # what it built is promoted at the end, not rescanned by the next young collection (building).
    with building(), collecting() as warnings:
        module = _ModuleParser(text, source).parse()
    if warnings.count:  # layouts jaxlib's parser keeps and XLA's validation refuses (layout_warnings.py)
        module.layout_warnings = located(warnings, text)
    return module


class _ModuleParser(ComputationReader):
    """One parse: the text, the line counter and the called computations still to resolve."""

    def __init__(self, text: str, source: str):
        self.r = Reader(text, source)
        self.text = text
        self.source = source
        self._line = 1
        self._line_pos = 0
        self._calls_to_resolve = []  # declared by InstructionReader: annotated again, mypyc visits it twice (ir/instruction.py)
        self._computations_as_written = {}
        self._anon_names = None
        self._nested = []
        self.declared_operands = []
        self.shared_text = {}
        self.shared_literals = {}
        self.attribute_verdicts = {}
        self._wheres = {}
        self._shared = None
        self.has_backslash = "\\" in text

    # -- helpers -------------------------------------------------------------------
    def parse(self) -> HloModule:
        r = self.r
        r.skip()
        # 'HloModule' is the keyword only as a whole token: 'HloModulemp.1 {' and 'HloModule: {'
        # (a label) start a module without header whose first computation has that name.
        after = r.text[r.pos + 9:r.pos + 10]
        header = r.text.startswith("HloModule", r.pos) and not _is_name_char(after) and after != ":"
        headerless = not header and _COMPUTATION_START.match(r.text, r.pos)
        if not header and not headerless:
            head = r.text[r.pos:r.pos + 4000]
            for marker, what in _NOT_HLO_HINTS:
                if marker in head:
                    raise self.error(f"not an HLO module: this looks like {what}")
            if r.at_end():
                raise self.error("empty input: expected 'HloModule <name>'")
            raise self.error(f"expected 'HloModule <name>' at the start of an HLO module, found {r.describe_here()}")
        if headerless:
            # XLA reads computations without a header too, and names the module after the entry.
            module = HloModule("")
        else:
            # XLA's lexer needs no space after the keyword where no name character follows it
            # ('HloModule%m', 'HloModule/*c*/m'); the header test above already refused 'HloModulex'.
            r.pos += len("HloModule")
            name = r.expect_name("a module name after 'HloModule'")
            self._not_keyword(name, "module")
            module = HloModule(name)
        module.source_name = self.source
        self._module_being_read = module
        if not headerless:
            self._parse_header_attributes(module)
        while True:
            r.skip()
            m = _ATTR_NAME.match(r.text, r.pos)
            if m and m.group(0) in _SOURCE_TABLES:
                r.pos = m.end()
                self._parse_source_table(module, m.group(0))
            else:
                break
        written = self._computations_as_written
        ends = array("q")  # where each of them ends, in its order: an int object and a dict entry
        # each were ~50 bytes a computation held through the parse's peak (issue 36 item 3)
        # not at_end(): without its three calls where a name is next (Reader.skip's test; 10.5k a jax_entry 100k)
        while ((c := r.text[r.pos:r.pos + 1]) and c not in _SKIP_START) or not r.at_end():
            comp = self._parse_computation(module)
            if comp.name in written:
                raise self.error(f"computation '{comp.name}' is defined twice", ends[list(written).index(comp.name)])
            ends.append(r.pos)
            written[comp.name] = comp
            self._add_to_module(module, comp)
        if not module.computations:
            raise self.error("module has no computations")
        if module.entry is None:
            # XLA's parser: without ENTRY, the last computation is the entry.
            module.entry = module.computations[-1]
            module.entry.is_entry = True
        if headerless:
            module.name = f"module_{module.entry.name}"
        self._finish_entry_layout(module)
        return module

    def _parse_header_attributes(self, module: HloModule) -> None:
        r = self.r
        seen: set[str] = set()
        while r.accept(","):
            name_at = r.pos
            attr, start, end = self._read_attribute(f"module '{module.name}'")
            raw = r.text[start:end]
            try:
                check_header_attribute(attr, raw, seen)
            except HeaderAttributeError as e:
                raise self.error(str(e), start + e.offset if e.offset else name_at) from None
            module.attributes[attr] = raw
            if attr == "entry_computation_layout":
                module.entry_computation_layout = self._parse_program_shape(start, end)
                module.has_explicit_entry_layout = True
            elif attr == "input_output_alias":
                module.input_output_alias = [InputOutputAlias(o, p, pi, k or "may-alias")
                                             for o, p, pi, k in parse_aliasing(raw)]
            elif attr == "buffer_donor":
                module.buffer_donor = parse_buffer_donors(raw)
            elif attr == "frontend_attributes":
                module.frontend_attributes = self._string_map(raw, start)

    def _parse_program_shape(self, start: int, end: int) -> ProgramShape:
        sub = Reader(self.text, self.source, start)
        sub.expect("{", "to open entry_computation_layout")
        sub.expect("(", "to open the entry parameter list")
        params = read_shape_list(sub, "entry_computation_layout parameters")
        sub.expect("->", "in entry_computation_layout")
        result = read_shape(sub)
        sub.expect("}", "to close entry_computation_layout")
        if sub.pos != end:
            raise self.error("unexpected text at the end of entry_computation_layout", sub.pos)
        return ProgramShape(params, result)

    def _parse_source_table(self, module: HloModule, table: str) -> None:
        t = module.source_tables
        r = self.r
        while True:
            m = _TABLE_ROW.match(r.text, r.pos)
            if not m:
                break
            key = int(m.group(1))
            here = m.end()
            if r.text[here] == '"':
                end = scan_string(r.text, here, self.source)
            else:
                end = r.text.find("}", here)
                if end < 0:
                    raise self.error(f"unterminated {table} row", here)
                end += 1
            value = r.text[here:end]
            r.pos = end
            if table == "FileNames":
                t.file_names[key] = unquote(value)
            elif table == "FunctionNames":
                t.function_names[key] = unquote(value)
            else:
                try:
                    kv = {k: int(v) for k, v in parse_key_values(value)}
                except ValueError as e:
                    raise self.error(f"bad {table} row: {e}", here) from None
                try:
                    if table == "FileLocations":
                        t.file_locations[key] = FileLocation(kv["file_name_id"], kv["function_name_id"], kv["line"],
                                                             kv.get("end_line"), kv.get("column"), kv.get("end_column"))
                    else:
                        t.stack_frames[key] = StackFrame(kv["file_location_id"], kv.get("parent_frame_id", 0))
                except KeyError as e:
                    raise self.error(f"{table} row {key} lacks {e.args[0]}", here) from None

    # -- computations ----------------------------------------------------------------
    def _finish_entry_layout(self, module: HloModule) -> None:
        entry = module.entry
        assert entry is not None and entry.root is not None
        if module.entry_computation_layout is None:
            # Without the header attribute XLA derives the layout from the entry's parameters and root.
            module.entry_computation_layout = ProgramShape([p.shape for p in entry.parameters], entry.root.shape)
            return
        ecl = module.entry_computation_layout
        if len(ecl.parameters) != len(entry.parameters):
            # XLA's parser takes any entry layout (its verifier refuses this one); xladoctor's reports
            # pair each entry parameter with its layout, so a count that differs is refused here.
            raise HloParseError(
                f"entry_computation_layout has {len(ecl.parameters)} parameters but ENTRY computation "
                f"'{entry.name}' has {len(entry.parameters)}", self.source, entry.line, 1)
        # A declared shape that differs from the parameter's or the root's is kept as written, as
        # XLA's parser keeps it (the compiler then reports the mismatch).
