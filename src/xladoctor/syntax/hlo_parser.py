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
problem raises :class:`~xladoctor.errors.HloParseError` with ``source:line:col``.
"""

from __future__ import annotations

import gc
import re

from ..errors import HloParseError
from ..ir.computation import HloComputation
from ..ir.instruction import CALLED_COMPUTATION_ROLES, HloInstruction
from ..ir.module import FileLocation, HloModule, InputOutputAlias, ProgramShape, StackFrame
from ..ir.opcode_rules import ALLOWED_ATTRIBUTES, FIXED_ARITY, METADATA_KEYS, REQUIRED_ATTRIBUTES
from ..ir.opcodes import OPCODES_BY_SPELLING, HloOpcode
from ..ir.primitive import ARRAY_TYPE_NAMES
from ..ir.shape import Shape
from .attributes import (
    parse_aliasing,
    parse_buffer_donors,
    parse_key_values,
    parse_name_list,
    parse_string_map,
    scan_string,
    scan_value,
    unquote,
)
from .reader import Reader, show_token
from .shape_parser import read_shape

_OPCODE = re.compile(r"[a-z][a-z0-9\-]*")
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_SHAPE_START = re.compile(r"\(|[a-z][a-z0-9]*\[|b\(")
_TABLE_ROW = re.compile(r"\s*(\d{1,19})\s+(?=[\"{])")
_INT64_MAX = 2**63 - 1
# Text that starts like a computation ('ENTRY main {', 'body.1 (p: f32[]) -> f32[] {'): a module without header.
_COMPUTATION_START = re.compile(r"(?:ENTRY\s+)?(?:%[A-Za-z_][A-Za-z0-9_.\-]*|[A-Za-z_][A-Za-z0-9_.\-]*:?)\s*[({]")
# Words XLA's lexer reads as their own tokens (primitive types and keywords), so they cannot
# be names; checked against jaxlib by defining an instruction, a computation and a module with each.
KEYWORDS = (ARRAY_TYPE_NAMES - {"opaque_type"}) | {
    "opaque", "token", "ENTRY", "HloModule", "ROOT", "false", "true", "inf", "nan", "last_tile_dim_replicate",
    "manual", "maximal", "replicated", "shard_as", "shard_like", "unknown"}
# The form XLA's parser requires of an attribute's value (its first character), for the
# attributes the analyses read.
_VALUE_FORM = {"custom_call_target": ('"', "a string"), "frontend_attributes": ("{", "'{'"),
               "metadata": ("{", "'{'"), "execution_thread": ('"', "a string")}
_METADATA_STRINGS = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
_METADATA_INTS = ("source_line", "source_end_line", "source_column", "source_end_column", "stack_frame_id")
_INT_VALUE = re.compile(r"-?[0-9]{1,19}")
# The metadata XLA and jax print: known keys, escape-free strings, small integers.  Anything
# else takes the slower exact path (_check_metadata).  One alternation per key=value pair,
# never per character, so the regex stays linear in memory on a huge string.
_METADATA_FAST = re.compile(
    r'\{\s*(?:(?:op_type|op_name|source_file|deduplicated_name|scheduling_name)="[^"\\]*"'
    r"|(?:source_line|source_end_line|source_column|source_end_column|stack_frame_id)=-?[0-9]{1,19}"
    r")?(?:\s+(?:(?:op_type|op_name|source_file|deduplicated_name|scheduling_name)=\"[^\"\\\\]*\""
    r"|(?:source_line|source_end_line|source_column|source_end_column|stack_frame_id)=-?[0-9]{1,19}))*\s*\}")


def _may_repeat_a_key(raw: str) -> bool:
    """Whether metadata the fast form accepts might give a key twice (XLA refuses that); a key's
    text inside a string value also counts, and the exact check then decides."""
    return any(raw.count(key + "=") > 1 for key in (*_METADATA_STRINGS, *_METADATA_INTS))


# Called-computation attributes XLA parses as a braced list; the others name one computation.
_COMPUTATION_LIST_ROLES = ("branch_computations",)
_BARE_NAME = re.compile(r"(%?)([A-Za-z_][A-Za-z0-9_.\-]*)(:?)")
_SOURCE_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")

_NOT_HLO_HINTS = (
    ("BufferAssignment:", "XLA's buffer-assignment dump (*-buffer-assignment.txt)"),
    ("allocation 0:", "XLA's buffer-assignment dump (*-buffer-assignment.txt)"),
    ("Total bytes used:", "XLA's memory-usage report"),
    ("module @", "StableHLO/MLIR text (use Lowered.as_text('hlo') or the *.txt HLO dumps)"),
    ("func.func", "StableHLO/MLIR text (use Lowered.as_text('hlo') or the *.txt HLO dumps)"),
    ("digraph", "a Graphviz DOT file"),
)


def parse_module(text: str, source: str = "<hlo>") -> HloModule:
    """Parse one HLO module; raises :class:`HloParseError` naming ``source:line:col``."""
    # The parse allocates millions of objects and frees none of them; CPython's cyclic
    # GC would rescan the growing heap again and again (superlinear time), so pause it.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _ModuleParser(text, source).parse()
    finally:
        if was_enabled:
            gc.enable()


class _ModuleParser:
    def __init__(self, text: str, source: str):
        self.r = Reader(text, source)
        self.text = text
        self.source = source
        self._line = 1
        self._line_pos = 0
        self._calls_to_resolve: list[tuple[HloInstruction, str, list[str], int]] = []

    # -- helpers -------------------------------------------------------------------
    def line_at(self, pos: int) -> int:
        """1-based line of ``pos``; positions are visited in increasing order, so this is O(n) total."""
        if pos < self._line_pos:
            return self.text.count("\n", 0, pos) + 1
        self._line += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

    def error(self, message: str, pos: int | None = None) -> HloParseError:
        return self.r.error(message, pos)

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
            r.pos += len("HloModule")
            if not r.text[r.pos:r.pos + 1].isspace():
                raise self.error("expected a module name after 'HloModule'")
            name = r.expect_name("a module name after 'HloModule'")
            self._not_keyword(name, "module")
            module = HloModule(name)
        module.source_name = self.source
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
        comp_name_pos: dict[str, int] = {}
        while not r.at_end():
            comp = self._parse_computation(module)
            if comp.name in comp_name_pos:
                raise self.error(f"computation '{comp.name}' is defined twice", comp_name_pos[comp.name])
            comp_name_pos[comp.name] = r.pos
            module.add_computation(comp)
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
        end = scan_value(r.text, start, self.source)
        if end == start:
            raise self.error(f"expected a value for attribute '{attr}' of {owner}")
        r.pos = end
        return attr, start, end

    def _parse_header_attributes(self, module: HloModule) -> None:
        r = self.r
        while r.accept(","):
            attr, start, end = self._read_attribute(f"module '{module.name}'")
            raw = r.text[start:end]
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
        params: list[Shape] = []
        if not sub.accept(")"):
            while True:
                params.append(read_shape(sub))
                if sub.accept(")"):
                    break
                sub.expect(",", "or ')' in entry_computation_layout parameters")
        sub.expect("->", "in entry_computation_layout")
        result = read_shape(sub)
        sub.expect("}", "to close entry_computation_layout")
        if sub.pos != end:
            raise self.error("unexpected text at the end of entry_computation_layout", sub.pos)
        return ProgramShape(params, result)

    def _string_map(self, raw: str, pos: int) -> dict[str, str]:
        try:
            return parse_string_map(raw)
        except ValueError as e:
            raise self.error(str(e), pos) from None

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
    def _parse_computation(self, module: HloModule) -> HloComputation:
        r = self.r
        r.skip()
        start = r.pos
        is_entry = False
        # 'ENTRY:' is a label token, the computation's name, not the keyword.
        if r.text.startswith("ENTRY", r.pos) and not _is_name_char(r.text[r.pos + 5:r.pos + 6]) \
                and not r.text.startswith(":", r.pos + 5):
            r.pos += 5
            is_entry = True
        name = r.accept_name()
        if name is None:
            raise self.error(f"expected a computation name, found {r.describe_here()}")
        self._not_keyword(name, "computation")
        if is_entry and module.entry is not None:
            raise self.error(f"second ENTRY computation '{name}' (the entry is '{module.entry.name}')", start)
        comp = HloComputation(name, is_entry)
        comp.line = self.line_at(start)
        if r.peek() == "(":
            comp.signature = self._parse_signature()
        r.expect("{", f"to open computation '{name}'")
        self._parse_instructions(comp, module)
        while r.accept(","):
            attr, vstart, vend = self._read_attribute(f"computation '{name}'")
            if attr == "execution_thread":
                comp.execution_thread = unquote(r.text[vstart:vend])
        return comp

    def _parse_signature(self) -> tuple[list[tuple[str, Shape]], Shape]:
        r = self.r
        r.expect("(")
        params: list[tuple[str, Shape]] = []
        if not r.accept(")"):
            while True:
                pname = r.expect_name("a parameter name in the computation signature")
                if not r.text.startswith(":", r.pos - 1):  # 'p:' is one label token in XLA's lexer
                    r.expect(":", f"after parameter '{pname}'")
                params.append((pname, read_shape(r)))
                if r.accept(")"):
                    break
                r.expect(",", "or ')' in the computation signature")
        r.expect("->", "after the computation's parameters")
        return params, read_shape(r)

    def _parse_instructions(self, comp: HloComputation, module: HloModule) -> None:
        """The body of one computation, read as XLA's one-pass parser reads it.

        Operands and control predecessors must name instructions defined earlier in
        the same computation (so no instruction uses itself and the graph has no
        cycle), called computations must be defined earlier in the module, and
        parameter numbers are 0..n-1, each once; all refused with XLA's wording.
        Parameter numbers are collected in a dict and checked at the closing brace,
        so ``parameter(1000000000)`` costs one entry, not a billion-slot list.
        """
        r = self.r
        root: HloInstruction | None = None
        name_pos: dict[str, int] = {}
        params: dict[int, tuple[HloInstruction, int]] = {}
        by_name = comp._by_name  # read directly: this loop runs once per instruction
        while True:
            r.skip()
            if r.pos >= len(r.text):
                raise self.error(f"unexpected end of input inside computation '{comp.name}': missing '}}'")
            if r.text[r.pos] == "}":
                r.pos += 1
                break
            instr_start = r.pos
            is_root = False
            if r.text.startswith("ROOT", r.pos) and r.text[r.pos + 4:r.pos + 5].isspace():
                r.pos += 4
                is_root = True
            instr, operand_refs, control_refs = self._parse_instruction(module)
            if instr.name in name_pos:
                raise self.error(f"instruction already exists: {instr.name} (defined twice in computation "
                                 f"'{comp.name}')", instr_start)
            if module.get_instruction(instr.name) is not None:
                raise self.error(f"instruction name '{instr.name}' is already used in another computation "
                                 "(XLA requires unique names in a module)", instr_start)
            if operand_refs:
                get = by_name.get
                ops = [get(ref) for ref, _ in operand_refs]
                if None in ops:
                    ref, pos = operand_refs[ops.index(None)]
                    raise self._undefined(comp, ref, pos)
                instr.operands = ops
            for ref, pos in control_refs:
                target = by_name.get(ref)
                if target is None:
                    raise self._undefined(comp, ref, pos)
                instr.control_predecessors.append(target)
            if self._calls_to_resolve:
                for owner, role, names, pos in self._calls_to_resolve:
                    self._resolve_called(module, owner, role, names, pos)
                self._calls_to_resolve.clear()
            name_pos[instr.name] = instr_start
            instr.line = self.line_at(instr_start)
            instr.col = instr_start - self.text.rfind("\n", 0, instr_start)
            if is_root:
                if root is not None:
                    raise self.error(f"computation '{comp.name}' has two ROOT instructions "
                                     f"('{root.name}' and '{instr.name}')", instr_start)
                root = instr
            number = instr.parameter_number
            if number is not None:
                if number in params:
                    raise self.error(f"Duplicate parameter number {number}", instr_start)
                params[number] = (instr, instr_start)
            comp.add_instruction(instr, index_parameter=False)
            module.register_instruction(instr)
        if not comp.instructions:
            raise self.error(f"computation '{comp.name}' has no instructions", r.pos - 1)
        comp.root = root if root is not None else comp.instructions[-1]
        for number, (_instr, pos) in params.items():
            if number >= len(params):
                missing = min(set(range(len(params))) - params.keys())
                raise self.error(f"parameter({number}) in computation '{comp.name}', which has no "
                                 f"parameter({missing}): parameters are numbered from 0 without gaps", pos)
        comp.parameters = [params[i][0] for i in range(len(params))]

    def _undefined(self, comp: HloComputation, ref: str, pos: int) -> HloParseError:
        return self.error(f"instruction does not exist: {ref} (operands and control-predecessors must be "
                          f"defined earlier in computation '{comp.name}', as XLA requires)", pos)

    def _parse_instruction(self, module: HloModule):
        r = self.r
        r.skip()
        if r.text.startswith("%", r.pos):
            module.print_percent = True
        name = r.accept_name()
        if name is None:
            raise self.error(f"expected an instruction name, found {r.describe_here()}")
        self._not_keyword(name, "instruction")
        if r.text.startswith("=", r.pos) and not r.text.startswith(":", r.pos - 1):
            # XLA's lexer reads 'name=' as one attribute-name token, so 'x= add(...)' has no name.
            raise self.error(f"expected an instruction name: XLA reads '{name}=' as an attribute name; "
                             "put a space before '='")
        r.expect("=", f"after instruction name '{name}'")
        r.skip()
        if not _SHAPE_START.match(r.text, r.pos):
            raise self.error(f"expected the shape of '{name}', found {r.describe_here()}")
        shape = read_shape(r)
        r.skip()
        op_pos = r.pos
        m = _OPCODE.match(r.text, r.pos)
        if not m:
            raise self.error(f"expected an opcode for '{name}', found {r.describe_here()}")
        opcode = OPCODES_BY_SPELLING.get(m.group(0))
        if opcode is None:
            raise self.error(f"unknown opcode '{m.group(0)}'", op_pos)
        r.pos = m.end()
        instr = HloInstruction(name, opcode, shape)
        r.expect("(", f"after opcode '{opcode.value}'")
        operand_refs: list[tuple[str, int]] = []
        if opcode is HloOpcode.PARAMETER:
            here = r.pos
            instr.parameter_number = r.expect_int("a parameter number")
            if instr.parameter_number < 0 or instr.parameter_number > _INT64_MAX:
                raise self.error("parameter number must be >= 0", here)
            r.expect(")", "to close parameter(...)")
        elif opcode is HloOpcode.CONSTANT:
            lit_start = r.pos
            end = _scan_parenthesized(r.text, lit_start - 1, self.source)
            instr.literal = r.text[lit_start:end].strip()
            r.pos = end + 1
        else:
            operand_refs = self._parse_operands(instr)
        control_refs = self._parse_attributes(instr)
        want = FIXED_ARITY.get(opcode)
        if opcode is HloOpcode.TUPLE:
            if not shape.is_tuple:
                raise self.error(f"a tuple instruction needs a tuple shape, not {shape}", op_pos)
            want = len(shape.tuple_shapes)
        if want is not None and len(operand_refs) != want:
            raise self.error(f"expects {want} operands, but has {len(operand_refs)} operands", m.end())
        required = REQUIRED_ATTRIBUTES.get(opcode)
        if required is not None and required not in instr.attributes:
            raise self.error(f"attribute {required} is expected but not seen", m.end())
        return instr, operand_refs, control_refs

    def _parse_operands(self, instr: HloInstruction) -> list[tuple[str, int]]:
        """Operand names up to ')'.  As in XLA, commas only separate: empty entries are skipped
        ('add(p,,p)', 'negate(p,)' and 'tuple(,)' are what jaxlib reads as 'add(p, p)', ...)."""
        r = self.r
        refs: list[tuple[str, int]] = []
        typed: list[str] = []
        while True:
            if r.accept(")"):
                break
            if r.accept(","):
                continue
            r.skip()
            pos = r.pos
            if _SHAPE_START.match(r.text, pos):
                # Older printers: "f32[2]{0} %x"; a bare name never starts with "type[" or "(".
                shape_start = r.pos
                read_shape(r)
                typed.append(r.text[shape_start:r.pos])
                r.skip()
                pos = r.pos
            name = r.accept_name()
            if name is None:
                raise self.error(f"expected an operand name, found {r.describe_here()}")
            refs.append((name, pos))
            if r.peek() not in (",", ")"):
                r.expect(",", f"or ')' in the operands of '{instr.name}'")
        if typed:
            instr.operand_shapes_text = tuple(typed)
        return refs

    def _parse_attributes(self, instr: HloInstruction) -> list[tuple[str, int]]:
        r = self.r
        control_refs: list[tuple[str, int]] = []
        text = r.text
        allowed = ALLOWED_ATTRIBUTES.get(instr.opcode)
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
            if attr == "metadata" and (not _METADATA_FAST.fullmatch(raw) or _may_repeat_a_key(raw)):
                self._check_metadata(raw, vstart)
            if attr in instr.attributes:
                raise self.error(f"attribute '{attr}' given twice for '{instr.name}'", vstart)
            instr.attributes[attr] = raw
            self._decode_attribute(instr, attr, raw, vstart, control_refs)
        return control_refs

    def _check_metadata(self, raw: str, pos: int) -> None:
        """``metadata={...}`` as XLA reads it: known keys only, strings where strings go."""
        if not (raw.startswith("{") and raw.endswith("}")):
            raise self.error("metadata must be {key=value ...}", pos)
        try:
            pairs = parse_key_values(raw)
        except ValueError as e:
            raise self.error(f"cannot read metadata: {e}", pos) from None
        seen: set[str] = set()
        for key, value in pairs:
            if key in seen:  # XLA's attribute parser: "attribute op_name already exists"
                raise self.error(f"metadata attribute {key} already exists", pos)
            seen.add(key)
            if key not in METADATA_KEYS:
                raise self.error(f'unexpected attribute "{key}" in metadata; XLA allows: '
                                 + ", ".join(sorted(METADATA_KEYS)), pos)
            if key in _METADATA_STRINGS and not value.startswith('"'):
                raise self.error(f"metadata {key} must be a string", pos)
            if key in _METADATA_INTS and not _INT_VALUE.fullmatch(value):
                raise self.error(f"metadata {key} must be an integer", pos)

    def _decode_attribute(self, instr: HloInstruction, attr: str, raw: str, pos: int,
                          control_refs: list[tuple[str, int]]) -> None:
        expected = _VALUE_FORM.get(attr)
        if expected is not None and not raw.startswith(expected[0]):
            raise self.error(f"attribute {attr} expects {expected[1]}, found {show_token(raw)}", pos)
        if attr == "custom_call_target":
            instr.custom_call_target = unquote(raw)
        elif attr == "index":
            try:
                instr.tuple_index = int(raw)
            except ValueError:
                raise self.error(f"index must be an integer, got {raw!r}", pos) from None
        elif attr == "frontend_attributes":
            instr.frontend_attributes = self._string_map(raw, pos)
        elif attr == "metadata":
            pass  # decoded on first use (HloInstruction.metadata): most are never read
        elif attr == "output_to_operand_aliasing":
            instr.output_to_operand_aliasing = [(o, p, pi) for o, p, pi, _ in parse_aliasing(raw)]
        elif attr == "control-predecessors":
            control_refs.extend((n, pos) for n in self._name_list(raw, pos))
        elif attr in CALLED_COMPUTATION_ROLES:
            if raw.startswith("{") and attr not in _COMPUTATION_LIST_ROLES:
                # XLA reads '{' after a one-computation attribute as an inline computation body
                # ('to_apply={c}' is refused there: 'expects '=' in instruction').
                raise self.error(f"{attr}= names one computation: XLA reads '{{' here as the start of an inline "
                                 "computation body, which xladoctor does not read", pos)
            self._calls_to_resolve.append((instr, attr, self._name_list(raw, pos), pos))

    def _name_list(self, raw: str, pos: int) -> list[str]:
        try:
            names = parse_name_list(raw)
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
    def _resolve_called(self, module: HloModule, instr: HloInstruction, role: str, names: list[str],
                        pos: int) -> None:
        """Called computations must already be defined, as in XLA's one-pass parser.

        That one rule is why the call graph of a parsed module has no cycles: a
        computation cannot call itself, a later computation, or the entry (which is
        being defined when its body is read).
        """
        comps = []
        for n in names:
            c = module.get_computation(n)
            if c is None:
                raise self.error(f"computation does not exist: {n} ({role}= must name a computation defined "
                                 "earlier in the module, as XLA requires)", pos)
            comps.append(c)
        for c in comps:
            c.callers.append(instr)
        instr.called.setdefault(role, []).extend(comps)

    def _finish_entry_layout(self, module: HloModule) -> None:
        entry = module.entry
        assert entry is not None and entry.root is not None
        if module.entry_computation_layout is None:
            # Without the header attribute XLA derives the layout from the entry's parameters and root.
            module.entry_computation_layout = ProgramShape([p.shape for p in entry.parameters], entry.root.shape)
            return
        ecl = module.entry_computation_layout
        if len(ecl.parameters) != len(entry.parameters):
            raise HloParseError(
                f"entry_computation_layout has {len(ecl.parameters)} parameters but ENTRY computation "
                f"'{entry.name}' has {len(entry.parameters)}", self.source, entry.line, 1)
        for i, (declared, param) in enumerate(zip(ecl.parameters, entry.parameters)):
            if not declared.compatible(param.shape):
                raise HloParseError(
                    f"entry_computation_layout parameter {i} is {declared} but parameter({i}) "
                    f"'{param.name}' is {param.shape}", self.source, param.line, 1)
        if not ecl.result.compatible(entry.root.shape):
            raise HloParseError(
                f"entry_computation_layout result is {ecl.result} but the ROOT '{entry.root.name}' is "
                f"{entry.root.shape}", self.source, entry.root.line, 1)


def _is_name_char(c: str) -> bool:
    return c.isalnum() or c in "_.-"


def _scan_parenthesized(text: str, open_pos: int, source: str) -> int:
    """Offset of the ')' matching the '(' at ``open_pos`` (constant literals: nested braces, strings)."""
    end = scan_value(text, open_pos, source)
    # scan_value treats the whole "(...)" group as one value and stops after it.
    if end <= open_pos or text[end - 1] != ")":
        raise HloParseError.at("unbalanced '(' in constant literal", text, open_pos, source)
    return end - 1
