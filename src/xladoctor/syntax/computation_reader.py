"""Reading computations: the header, the signature, and the body line by line.

The body loop takes each line through the fast path (:mod:`.instruction_line`) and
gives the full reader (:class:`~.instruction_reader.InstructionReader`) any line the
fast path hands back; either way the same rules of XLA's one-pass parser follow
(names defined once, operands and called computations defined earlier, parameters
numbered from 0 without gaps), with XLA's wording.
"""

from __future__ import annotations

from collections.abc import Container
from sys import intern

from ..base.errors import HloParseError
from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.module_add import add_computation
from ..ir.name_uniquer import NameUniquer
from ..ir.opcode_rules import operand_count_error
from ..ir.opcodes import ASYNC_START, CONDITIONAL, PARAMETER, HloOpcode
from ..ir.packed_fields import MAX_LINE_OFFSET, NOWHERE
from ..ir.rare_fields import CALLS, SharedRareFields
from ..ir.shape import Shape
from ..ir.shape_inference import SHAPE_REPLACED, ShapeInferenceError, infer_shape, replaced_shape
from .async_sugar import ASYNC_OPS, check_async, inherited_computation, wrapped_computation
from .attributes import unquote
from .body_scope import Body, leave, share
from .conditional_rules import check_conditional
from .instruction_line import read_fast
from .instruction_reader import InstructionReader, _is_name_char
from .shape_parser import read_shape

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_BUILT_BY_XLA: Final = SHAPE_REPLACED | ASYNC_OPS | {HloOpcode.CONDITIONAL}  # what the loop hands to _set_built_shape / _check_async


MAX_NESTING = 100
"""The deepest operand written as an instruction inside an instruction (``negate(negate(...))``) or
computation written inline inside a computation (``to_apply={... to_apply={...}}``), together:
each level costs the parser several Python frames, and 250 nested operands ran past Python's
recursion limit (an internal RecursionError before this bound)."""


class ComputationReader(InstructionReader):
    """Computations of a module; the line counter is shared with the module reader."""

    _line: int
    _line_pos: int
    _computations_as_written: dict[str, HloComputation]
    """Computations by the name the text gives them (the module renames some: :mod:`..ir.name_uniquer`)."""
    _anon_names: NameUniquer | None
    """XLA's parser-wide ``name_uniquer_`` (names of nested instructions); made at the first one."""
    _nested: list[tuple[HloInstruction, int]]
    """Nested instructions read in the current line, not yet in the computation."""
    _module_being_read: HloModule
    shared_text: dict[str, str]
    """One string per distinct attribute text (without metadata), scalar literal or custom-call
    target in this parse (a jax module spells ``, dimensions={}`` on thousands of lines: each kept
    its own copy); dropped with the parser, so it holds nothing after the parse."""
    shared_literals: dict[str, SharedRareFields]
    """The rare fields of a scalar constant by its literal's spelling, one per spelling, shared by
    every constant spelled so (:class:`~xladoctor.ir.rare_fields.SharedRareFields`)."""
    attribute_verdicts: dict[tuple[HloOpcode, str], tuple[str, frozenset[str], str | None, int | None,
                                                          SharedRareFields | None]]
    """The fast path's verdict on an attribute text by opcode, where it depends on nothing else
    (:func:`.instruction_line._attributes`): the shared text, the names, the decoded fields (the
    frontend attributes as the rare fields every such line shares)."""
    _wheres: dict[int, tuple[int, ...]]
    """The latest ``(line, col)`` an instruction's position counts from, by column
    (:meth:`HloInstruction.set_position <xladoctor.ir.instruction.HloInstruction.set_position>`):
    one pair per 256 lines of a column, shared by the instructions on them."""
    has_backslash: bool
    """Whether the text holds a backslash anywhere (the fast path takes no line that holds one)."""
    _shared: tuple[HloComputation, Body] | None
    """The computation whose body reads in the shared scope (:mod:`.body_scope`), from its first
    line to its join; None when none does."""
    _nesting: int = 0
    """How many nested instructions (:meth:`read_nested`) and inline computations
    (:meth:`read_inline_computation`) the reader is inside now (bounded by :data:`MAX_NESTING`)."""

    def line_at(self, pos: int) -> int:
        """1-based line of ``pos``; positions are visited in increasing order, so this is O(n) total."""
        if pos < self._line_pos:
            return self.text.count("\n", 0, pos) + 1
        self._line += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

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
        comp.set_line(self.line_at(start), self._wheres.values())  # (an int each was 3.2 MiB at jax_entry 1M)
        if r.text.startswith(" {", r.pos):  # the usual 'name {': what peek and expect read, without the skip's regex
            r.pos += 2
        else:
            if r.peek() == "(":
                comp.signature = self._parse_signature()
            r.expect("{", f"to open computation '{name}'")
        self._parse_instructions(comp, module)
        if comp.signature is not None and comp.root is not None and not comp.signature[1].compatible(comp.root.shape):
            raise self.error(f"Shape of computation {name}, {comp.signature[1].human_string()}, is not compatible "
                             f"with that of its root instruction {comp.root.name}, {comp.root.shape.human_string()}",
                             start)
        if r.text.startswith("\n\n", r.pos) and ((c := r.text[r.pos + 2:r.pos + 3]).isalnum() or c in "_.-"):  # (_is_name_char)
            r.pos += 2  # the usual blank line, then the next computation's name: no ',' (where the skip would stop)
            return comp
        while r.accept(","):
            attr, vstart, vend = self._read_attribute(f"computation '{name}'")
            if attr != "execution_thread":  # the one attribute XLA's parser takes after a computation
                raise self.error(f'unexpected attribute "{attr}" after computation \'{name}\'. Allowed '
                                 "attributes: execution_thread", vstart)
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
        """The body of one computation, read as XLA's one-pass parser reads it: operands and control predecessors
        defined earlier in the same computation (no cycle), called computations earlier in the module, parameters
        numbered 0..n-1, each once (a dict checked at the closing brace: ``parameter(1000000000)`` is one entry);
        all refused with XLA's wording.  Once per instruction: what it reads is bound to locals, compiled methods
        called as written (a bound local is called through Python's protocol).  The scope: :mod:`.body_scope`."""
        text, body, names = self.text, Body(), module.instruction_names
        owner = self._share_scope(comp, module, body)  # comp, where its scope is the module's table
        by_name = body.by_name  # this computation's scope (XLA's parser keeps one too)
        # The line counter in locals: ``line`` is the line of ``line_pos`` (it starts at ``line_start``), after a fast
        # line where it ended (no newline in it): the next count finds the one newline between two lines in one call.
        line, line_pos = self._line, self._line_pos
        line_start = text.rfind("\n", 0, line_pos) + 1  # once: per instruction it was quadratic on one line
        where_line, where_col = where = NOWHERE  # the (line, col) the last position counted from (see _where_for)
        r = self.r
        instructions = comp.instructions  # add_instruction(instr, False) inline: a new computation, in no module
        while True:
            got = read_fast(self, module, by_name, owner)
            if got is not None:
                instr, control_refs, instr_start, is_root = got
                if instr.name in by_name:
                    self._check_new_name(comp, instr, by_name, instr_start)
                end = r.pos  # the line's end: no newline since instr_start (instruction_line._LINE)
            else:
                got = self._read_by_full_reader(comp, module, body)
                if got is None:
                    break
                instr, control_refs, instr_start, is_root = got
                by_name, owner = body.by_name, None  # the full reader read it in a scope of its own
                end = instr_start  # (its text may span lines: nested instructions count from here)
            if text[line_pos] == "\n" and "\n" not in text[line_pos + 1:instr_start]:  # the last line's end, one newline
                line, line_start = line + 1, line_pos + 1  # (no str.rfind: its arguments are parsed as a tuple's)
            else:
                line, line_start = self._count_lines(line, line_pos, line_start, instr_start)
            line_pos = end
            col = instr_start - line_start + 1  # the position, as set_position keeps it (inline: once per line)
            if col != where_col or not 0 <= line - where_line <= MAX_LINE_OFFSET:  # (its fields as locals: no index a line)
                where_line, where_col = where = self._where_for(line, col)
            instr._where, instr._line_off = where, line - where_line
            if self._nested:  # after the line's own position: they stand inside it, maybe lines below
                line, line_pos = self._add_nested(comp, body, line, line_pos)
                line_start = text.rfind("\n", 0, line_pos) + 1
            if self._anon_names is not None:
                self._anon_names.unique(instr.name)
            if control_refs:
                instr.control_predecessors = self._control_predecessors(comp, control_refs, by_name)
            if self._calls_to_resolve:
                self._resolve_calls(module)
            if (instr.shape is None or instr.opcode in _BUILT_BY_XLA) and self._built_by_xla(instr, instr_start, body):
                by_name, owner = body.by_name, None  # a wrapped computation joined the module: the body's own scope
            if is_root or (instr.opcode is PARAMETER and (extra := instr._extra) is not None and extra.number is not None):  # parameter_number, unread
                self._note_root_or_parameter(comp, body, instr, instr_start, is_root)
            instructions.append(instr)
            instr.parent = comp
            if owner is None:
                by_name[instr.name] = instr
            elif not names.take_live(instr):  # given out as the join would now, or the scope leaves the table
                by_name, owner = self._own_scope(comp, body, instr), None
        self._line, self._line_pos = line, line_pos
        self._finish_body(comp, body.root, body.params)

    def _count_lines(self, line: int, line_pos: int, line_start: int, pos: int) -> tuple[int, int]:
        """The line of ``pos`` and where it starts, from ``line`` at ``line_pos`` (whose line starts at ``line_start``)."""
        last = self.text.rfind("\n", line_pos, pos)
        if last < 0:
            return line, line_start
        return line + self.text.count("\n", line_pos, last + 1), last + 1

    def _share_scope(self, comp: HloComputation, module: HloModule, body: Body) -> HloComputation | None:
        """A top-level body's scope: the module's name table (:mod:`.body_scope`; ``comp`` is returned
        as the owner of the names in scope there), or a dict of its own (None)."""
        if self._nesting or not share(module, body):
            return None
        self._shared = comp, body
        return comp

    def _own_scope(self, comp: HloComputation, body: Body, pending: HloInstruction | None = None
                   ) -> dict[str, HloInstruction]:
        """Leave the shared scope for a scope of the body's own (:func:`.body_scope.leave`)."""
        self._shared = None
        return leave(self._module_being_read, comp, body, pending)

    def _where_for(self, line: int, col: int) -> tuple[int, ...]:
        """The shared ``(line, col)`` an instruction at ``line``, ``col`` counts its position from
        (:meth:`HloInstruction.set_position <xladoctor.ir.instruction.HloInstruction.set_position>`):
        the column's latest while ``line`` is within reach of it, else a new one."""
        where = self._wheres.get(col)
        if where is None or not 0 <= line - where[0] <= MAX_LINE_OFFSET:
            where = self._wheres[col] = (line, col)
        return where

    def _read_by_full_reader(self, comp: HloComputation, module: HloModule, body: Body
                             ) -> tuple[HloInstruction, list[tuple[str, int]], int, bool] | None:
        """The next instruction of the body by the full reader (a line the fast path handed back),
        its name checked as new; None after the closing brace."""
        r, text = self.r, self.text
        if text.startswith("\n}", r.pos):  # the usual end of a body, after its last line: no skip's regex
            r.pos += 2
            return None
        r.skip()
        if r.pos >= len(text):
            raise self.error(f"unexpected end of input inside computation '{comp.name}': missing '}}'")
        if text[r.pos] == "}":
            r.pos += 1
            return None
        instr_start = r.pos
        is_root = text.startswith("ROOT", instr_start) and text[instr_start + 4:instr_start + 5].isspace()
        if is_root:
            r.pos += 4
        if body.shared:
            self._own_scope(comp, body)
        instr, control_refs = self._read_slow(comp, module, body.by_name, instr_start)
        return instr, control_refs, instr_start, is_root

    def _add_nested(self, comp: HloComputation, body: Body, line: int, line_pos: int) -> tuple[int, int]:
        """The nested instructions the last line held, into the computation before it."""
        text = self.text
        for instr, start in self._nested:
            line += text.count("\n", line_pos, start)
            line_pos = start
            col = start - text.rfind("\n", 0, start)
            instr.set_position(line, col, self._where_for(line, col))
            if instr.parameter_number is not None:
                self._note_root_or_parameter(comp, body, instr, start, False)
            comp.add_instruction(instr, index_parameter=False)
        self._nested.clear()
        return line, line_pos

    def _built_by_xla(self, instr: HloInstruction, instr_start: int, body: Body) -> bool:
        """An instruction whose shape XLA builds or whose async wrapping it checks (:data:`_BUILT_BY_XLA`):
        both done; True where its wrapped computation joined the module and the scope is now the body's own."""
        self._set_built_shape(instr, instr_start)
        if instr.opcode in ASYNC_OPS:
            self._check_async(instr, instr_start)
            return not body.shared
        return False

    def _set_built_shape(self, instr: HloInstruction, instr_start: int) -> None:
        """The shape XLA's parser gives an instruction written without one (inferred), or whatever
        shape was written for the opcodes whose ``Create*`` computes its own."""
        if instr.opcode is CONDITIONAL:
            problem = check_conditional(instr)
            if problem is not None:
                raise self.error(problem, instr_start)
        replaced = replaced_shape(instr)
        if replaced is not None:
            instr.shape = replaced
            return
        if instr.shape is None:
            try:
                instr.shape = infer_shape(instr)
            except ShapeInferenceError as e:
                raise self.error(f"failed to infer shape for opcode: {instr.opcode.value}, error: {e}",
                                 instr_start) from None

    def read_inline_computation(self, start: int, end: int) -> HloComputation:
        """``to_apply={ ... }``: XLA's ParseInstructionList, a computation named '_' with its own name
        scope, added to the module when complete (before the one being read).  The state of the
        instruction being read (its nested operands, declared operand shapes) waits meanwhile."""
        r = self.r
        saved = self._nested, self.declared_operands, self.async_sugar
        self._nested, self.async_sugar = [], None
        comp = HloComputation("_")
        comp.set_line(self.line_at(start), self._wheres.values())  # (an int each was 3.2 MiB at jax_entry 1M)
        r.pos = start + 1
        if self._nesting >= MAX_NESTING:
            raise self.error(f"computations nested inline more than {MAX_NESTING} levels deep: xladoctor's "
                             "limit (each level is a recursion of the parser, as in XLA's)", start)
        self._nesting += 1
        try:
            self._parse_instructions(comp, self._module_being_read)
        finally:
            self._nesting -= 1
        if r.pos != end:
            raise self.error("unexpected text after the inline computation", r.pos)
        self._nested, self.declared_operands, self.async_sugar = saved
        self._add_to_module(self._module_being_read, comp)
        return comp

    def read_nested(self, scope: Container[str], start: int) -> str:
        """An operand written as an instruction (``add(negate(p), q)``), as XLA's ParseOperands reads it:
        ParseInstructionRhs without a name or attributes, its shape inferred if not written, named
        ``<opcode>.anon`` by the parser's own NameUniquer (which has seen every name so far), and put
        in the computation, and its name table, before the instruction that uses it."""
        by_name = scope if isinstance(scope, dict) else {}
        self.declared_operands = []
        if self._nesting >= MAX_NESTING:
            raise self.error(f"instructions nested as operands more than {MAX_NESTING} levels deep: xladoctor's "
                             "limit (each level is a recursion of the parser, as in XLA's)", start)
        self._nesting += 1
        try:
            instr, refs, _ = self._parse_rhs("", scope, False)
        finally:
            self._nesting -= 1
        ops = [by_name.get(ref) for ref, _ in refs]
        if None in ops:
            ref, pos = refs[ops.index(None)]
            raise self.error(f"instruction does not exist: {ref}", pos)
        instr.operands = tuple([o for o in ops if o is not None])
        self.check_declared_operands(instr.operands)
        self._check_operand_count(instr, start)
        if instr.shape is None or instr.opcode in SHAPE_REPLACED:
            self._set_built_shape(instr, start)
        if self._anon_names is None:
            self._anon_names = anon = NameUniquer()
            for earlier in self._module_being_read.instructions():
                anon.unique(earlier.name)
            for pending, _ in self._nested:
                anon.unique(pending.name)
            for defined in by_name.values():
                anon.unique(defined.name)
        instr.name = self._anon_names.unique(f"{instr.opcode.value}.anon")
        by_name[instr.name] = instr
        self._nested.append((instr, start))
        return instr.name

    def _check_async(self, instr: HloInstruction, instr_start: int) -> None:
        """XLA's rules for an async chain (jaxlib's wording), and the wrapped computation of the
        sugared form (``call-start`` and kin: :mod:`.async_sugar`)."""
        sugar, self.async_sugar = self.async_sugar, None
        problem = check_async(instr)
        if problem is None and sugar is not None:
            if instr.opcode is ASYNC_START:
                self._add_to_module(self._module_being_read, wrapped_computation(instr, sugar[1]))
                return
            comp, problem = inherited_computation(instr, sugar[1])
            if comp is not None:
                instr.set_called_computations({"calls": [comp]})
        if problem is not None:
            raise self.error(problem, instr_start)

    def _add_to_module(self, module: HloModule, comp: HloComputation) -> None:
        """``HloModule::AddComputationInternal`` with ``uniquify_identifiers``: the module's uniquers
        name what it holds (a body read in the shared scope holds names given out already; one
        still being read leaves it first, as its names are given out after this computation's)."""
        shared = self._shared
        if shared is not None:
            if shared[0] is comp:
                self._shared = None
                add_computation(module, comp, True, True)  # (HloModule.add_computation's work: .module_add)
                return
            self._own_scope(*shared)
        add_computation(module, comp, True)

    def _control_predecessors(self, comp: HloComputation, refs: list[tuple[str, int]],
                              by_name: dict[str, HloInstruction]) -> list[HloInstruction]:
        """``control-predecessors={...}``: each must be defined earlier in the computation."""
        found = []
        for ref, pos in refs:
            target = by_name.get(ref)
            if target is None or target.parent is not comp:  # (the shared scope holds other computations')
                raise self._undefined(comp, ref, pos)
            found.append(target)
        return found

    def _resolve_calls(self, module: HloModule) -> None:
        """The called computations the last instruction queued, each defined earlier."""
        for owner, role, names, pos in self._calls_to_resolve:
            self._resolve_called(module, owner, role, names, pos)
        self._calls_to_resolve.clear()

    def _note_root_or_parameter(self, comp: HloComputation, body: Body, instr: HloInstruction,
                                instr_start: int, is_root: bool) -> None:
        """One ROOT per computation; each parameter number once (gaps are checked at the brace)."""
        if is_root:
            if body.root is not None:
                raise self.error(f"computation '{comp.name}' has two ROOT instructions "
                                 f"('{body.root.name}' and '{instr.name}')", instr_start)
            body.root = instr
        extra = instr._extra  # parameter_number read from its store, as the property reads it (no call a line)
        number = None if extra is None or instr.opcode is not PARAMETER or type(extra) is CALLS else extra.number
        if number is not None and not isinstance(number, str):
            if number in body.params:
                raise self.error(f"Duplicate parameter number {number}", instr_start)
            body.params[number] = (instr, instr_start)

    def _read_slow(self, comp: HloComputation, module: HloModule, by_name: dict[str, HloInstruction],
                   instr_start: int) -> tuple[HloInstruction, list[tuple[str, int]]]:
        """One instruction by the full reader, its name checked and its operands resolved."""
        instr, operand_refs, control_refs = self._parse_instruction(module, by_name)
        self._check_new_name(comp, instr, by_name, instr_start)
        if operand_refs:
            get = by_name.get
            ops = [get(ref) for ref, _ in operand_refs]
            if None in ops:
                ref, pos = operand_refs[ops.index(None)]
                raise self._undefined(comp, ref, pos)
            instr.operands = tuple([o for o in ops if o is not None])  # none is None here
            self.check_declared_operands(instr.operands)
        self._check_operand_count(instr, instr_start)
        return instr, control_refs

    def _check_operand_count(self, instr: HloInstruction, at: int) -> None:
        problem = operand_count_error(instr.opcode.value, instr.operands)
        if problem is not None:
            raise self.error(f"{problem} ({instr.opcode.value} '{instr.name}' has {len(instr.operands)})", at)

    def _finish_body(self, comp: HloComputation, root: HloInstruction | None,
                     params: dict[int, tuple[HloInstruction, int]]) -> None:
        """At the closing brace: the root, and parameters numbered from 0 without gaps."""
        if not comp.instructions:
            raise self.error(f"computation '{comp.name}' has no instructions", self.r.pos - 1)
        comp.root = root if root is not None else comp.instructions[-1]  # set_root_instruction's check holds: both comp's
        for number, (_instr, pos) in params.items():
            if number >= len(params):
                missing = min(set(range(len(params))) - params.keys())
                raise self.error(f"parameter({number}) in computation '{comp.name}', which has no "
                                 f"parameter({missing}): parameters are numbered from 0 without gaps", pos)
        comp.parameters = tuple([params[i][0] for i in range(len(params))])  # set_parameters' checks hold (keys 0..n-1, each in comp)

    def _check_new_name(self, comp: HloComputation, instr: HloInstruction,
                        by_name: dict[str, HloInstruction], instr_start: int) -> None:
        """Names are unique within a computation; another computation may reuse one (XLA's parser
        keeps a scope per computation and renames module-wide afterwards: :mod:`..ir.name_uniquer`).
        Defined before ``instr`` are the names in ``by_name`` but those of the instructions nested
        in its own line (entered as they were read, defined after it; their generated names avoid
        every earlier one)."""
        earlier = by_name.get(instr.name)
        if earlier is not None and (earlier.parent is comp or earlier.parent is None) \
                and all(earlier is not nested for nested, _ in self._nested):  # (the shared scope: another's is no duplicate)
            raise self.error(f"instruction already exists: {instr.name} (defined twice in computation "
                             f"'{comp.name}')", instr_start)

    def _undefined(self, comp: HloComputation, ref: str, pos: int) -> HloParseError:
        return self.error(f"instruction does not exist: {ref} (operands and control-predecessors must be "
                          f"defined earlier in computation '{comp.name}', as XLA requires)", pos)

    def _resolve_called(self, module: HloModule, instr: HloInstruction, role: str, names: list[str],
                        pos: int) -> None:
        """Called computations must already be defined, as in XLA's one-pass parser.

        That one rule is why the call graph of a parsed module has no cycles: a
        computation cannot call itself, a later computation, or the entry (which is
        being defined when its body is read).
        """
        comps = []
        for n in names:
            c = self._computations_as_written.get(n)
            if c is None:
                raise self.error(f"computation does not exist: {n} ({role}= must name a computation defined "
                                 "earlier in the module, as XLA requires)", pos)
            comps.append(c)
        # The role as a key every caller shares: the text's own 'to_apply' was a 57-byte string a
        # caller (jax_entry: one instruction in ten), kept for the module's life (issue 36 item 3).
        role = intern(role)
        if instr._extra is None:  # the first calls (most callers' only): no copy of the shared empty map
            instr.set_called_computations(CALLS({role: comps}))
            return
        called = dict(instr.called)  # replaced, not edited
        called[role] = called.get(role, []) + comps
        instr.set_called_computations(called)
