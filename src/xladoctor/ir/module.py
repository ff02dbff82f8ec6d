"""HloModule: computations, the entry computation layout, module attributes, source tables."""

from __future__ import annotations

from collections.abc import Iterator

from .callers import caller_index
from .computation import HloComputation
from .instruction import HloInstruction, SourceLocation
from .instruction_names import InstructionNames
from .module_add import add_computation
from .name_uniquer import ComputationNames
from .names import NameTable
from .record import MutableValue
from .shape import Shape
from .value import FrozenValue

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any


class ProgramShape(MutableValue):
    """``entry_computation_layout={(p0, p1, ...)->result}``: what the executable's caller sees.

    This module's records are written out, not dataclasses (:mod:`.value`: start-up, issue 36)."""

    _FIELDS = ("parameters", "result")

    parameters: list[Shape]
    result: Shape

    def __init__(self, parameters: list[Shape], result: Shape) -> None:
        self.parameters = parameters
        self.result = result

    def __str__(self) -> str:
        parts = []
        for i, p in enumerate(self.parameters):
            parts.append(f"/*index={i}*/{p}" if i and i % 5 == 0 else str(p))
        return "(" + ", ".join(parts) + ")->" + str(self.result)


class FileLocation(FrozenValue):
    """One row of a compiled dump's ``FileLocations`` table."""

    _FIELDS = ("file_name_id", "function_name_id", "line", "end_line", "column", "end_column")

    file_name_id: int
    function_name_id: int
    line: int
    end_line: int | None
    column: int | None
    end_column: int | None

    def __init__(self, file_name_id: int, function_name_id: int, line: int, end_line: int | None = None,
                 column: int | None = None, end_column: int | None = None) -> None:
        object.__setattr__(self, "file_name_id", file_name_id)
        object.__setattr__(self, "function_name_id", function_name_id)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "end_line", end_line)
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "end_column", end_column)


class StackFrame(FrozenValue):
    """One row of ``StackFrames``: a location and its caller frame, as printed.

    XLA prints ``parent_frame_id`` one higher than the id of the caller's row (an
    outermost frame prints its own id, or 1): for ``f`` calling ``g`` calling ``h``,
    ``h`` is row 4 and prints ``parent_frame_id=4`` while ``g`` is row 3 (checked on
    jaxlib 0.10.2 output).  :attr:`caller_id` undoes that.
    """

    _FIELDS = ("file_location_id", "parent_frame_id")

    file_location_id: int
    parent_frame_id: int

    def __init__(self, file_location_id: int, parent_frame_id: int) -> None:
        object.__setattr__(self, "file_location_id", file_location_id)
        object.__setattr__(self, "parent_frame_id", parent_frame_id)

    @property
    def caller_id(self) -> int:
        """The row of the calling frame; 0 when there is none."""
        return max(0, self.parent_frame_id - 1)


class InputOutputAlias(FrozenValue):
    """One entry of ``input_output_alias={ {out}: (param, {param index}, kind) }``."""

    _FIELDS = ("output_index", "parameter_number", "parameter_index", "kind")

    output_index: tuple[int, ...]
    parameter_number: int
    parameter_index: tuple[int, ...]
    kind: str

    def __init__(self, output_index: tuple[int, ...], parameter_number: int, parameter_index: tuple[int, ...],
                 kind: str = "may-alias") -> None:
        object.__setattr__(self, "output_index", output_index)
        object.__setattr__(self, "parameter_number", parameter_number)
        object.__setattr__(self, "parameter_index", parameter_index)
        object.__setattr__(self, "kind", kind)


class SourceTables(MutableValue):
    """FileNames / FunctionNames / FileLocations / StackFrames of compiled dumps."""

    _FIELDS = ("file_names", "function_names", "file_locations", "stack_frames")

    file_names: dict[int, str]
    function_names: dict[int, str]
    file_locations: dict[int, FileLocation]
    stack_frames: dict[int, StackFrame]

    def __init__(self, file_names: dict[int, str] | None = None, function_names: dict[int, str] | None = None,
                 file_locations: dict[int, FileLocation] | None = None,
                 stack_frames: dict[int, StackFrame] | None = None) -> None:
        self.file_names = {} if file_names is None else file_names
        self.function_names = {} if function_names is None else function_names
        self.file_locations = {} if file_locations is None else file_locations
        self.stack_frames = {} if stack_frames is None else stack_frames

    def __bool__(self) -> bool:
        return bool(self.file_names or self.function_names or self.file_locations or self.stack_frames)


class HloModule:
    """A parsed HLO module.  Instruction names are unique module-wide, as XLA requires.

    The module keeps one name table (:attr:`names`) and one caller index
    (:meth:`callers_of`, XLA's call graph); its computations keep both in step when
    instructions are added or removed, so passes never register anything by hand.
    """

    def __init__(self, name: str):
        self.name = name
        self.attributes: dict[str, str] = {}
        """Header attributes after the name, raw text, in printed order."""
        self.computations: list[HloComputation] = []
        """In text order (XLA prints callees before callers, the entry last)."""
        self.entry: HloComputation | None = None
        self.entry_computation_layout: ProgramShape | None = None
        self.has_explicit_entry_layout = False
        """True when the header printed ``entry_computation_layout``; else it was derived."""
        self.input_output_alias: list[InputOutputAlias] = []
        self.buffer_donor: list[tuple[int, tuple[int, ...]]] = []
        self.frontend_attributes: dict[str, str] = {}
        self.source_tables = SourceTables()
        self.source_name = "<hlo>"
        self.layout_warnings: tuple[Any, ...] = ()
        """Layouts the text wrote that jaxlib's parser keeps and XLA's shape validation refuses, each read
        with the default layout (``syntax.layout_warnings.LayoutWarning``; the analyses see valid layouts)."""
        self.print_percent = False
        """Whether the text named instructions with ``%`` (the printer follows the input)."""
        self._computations_by_name: dict[str, HloComputation] = {}
        self.names = NameTable()
        """Every instruction of the module by name (kept by the computations)."""
        self.instruction_names = InstructionNames(self.names)
        """``instruction_name_uniquer_``: every instruction name the module ever gave out."""
        self.computation_names = ComputationNames(self._computations_by_name)
        """``computation_name_uniquer_``."""
        self._callers: dict[HloComputation, HloInstruction | list[HloInstruction]] | None = None
        """The call graph's callers, built on first use and dropped when calls change: a
        computation's one caller itself, a list from the second (:meth:`callers_of`)."""

    # -- building ------------------------------------------------------------------
    def add_computation(self, comp: HloComputation, uniquify: bool = False,
                        names_live: bool = False) -> HloComputation:
        """``AddComputationInternal``: attach ``comp`` (and the instructions it already has).

        With ``uniquify`` (the parser's), the module's uniquers rename the computation and its
        instructions; else their names go through the uniquers unchanged, so no later name takes them.
        ``names_live``: the parser already gave out each instruction's name in order and entered
        it in the name table (:meth:`~.instruction_names.InstructionNames.take_live`), as
        ``uniquify`` would have now.  The work is :func:`.module_add.add_computation`'s (compiled in
        the compiled core, where the parser and the copy call it directly).
        """
        return add_computation(self, comp, uniquify, names_live)

    def remove_computation(self, comp: HloComputation) -> None:
        """``RemoveEmbeddedComputation``: drop ``comp``; its own instructions' names are released."""
        self.remove_computations([comp])

    def remove_computations(self, dead: list[HloComputation]) -> None:
        """:meth:`remove_computation` for each of ``dead``, with the list rebuilt once (the
        inliner drops every inlined callee: one by one, that was quadratic in computations)."""
        for comp in dead:
            for instr in comp.instructions:
                if instr.parent is comp and self.names.remove(instr):
                    self.instruction_names.release(instr.name)
            if self._computations_by_name.pop(comp.name, None) is not None:
                self.computation_names.left(comp.name)
        gone = set(dead)
        self.computations = [c for c in self.computations if c not in gone]
        self._callers = None

    def calls_changed(self) -> None:
        """Forget the caller index (an instruction that calls computations came or went)."""
        self._callers = None

    def callers_of(self, comp: HloComputation | None) -> list[HloInstruction]:
        """``CallGraph::GetComputationCallers``: instructions calling ``comp``, in module order."""
        if comp is None:
            return []
        index = self._callers
        if index is None:
            index = self._callers = self._caller_index()
        held = index.get(comp)
        if held is None:
            return []
        return held if isinstance(held, list) else [held]

    def _caller_index(self) -> dict[HloComputation, HloInstruction | list[HloInstruction]]:
        """Each called computation's callers in module order (:func:`.callers.caller_index`: compiled
        in the compiled core, where this module is not)."""
        return caller_index(self.computations)

    def clone(self) -> HloModule:
        """A structurally independent copy with the same names (see :mod:`.clone`)."""
        from .clone import clone_module
        return clone_module(self)

    def lint(self) -> None:
        """Raise :class:`~.lint.LintError` listing every broken IR invariant (see :mod:`.lint`):
        what the tests call after each pass, so a pass that breaks a link fails where it did."""
        from .lint import LintError, lint_problems
        problems = lint_problems(self)
        if problems:
            raise LintError(problems)

    # -- lookups -------------------------------------------------------------------
    def entry_computation(self) -> HloComputation:
        """XLA's ``entry_computation()``: a parsed module always has one."""
        if self.entry is None:
            raise ValueError(f"module '{self.name}' has no entry computation")
        return self.entry

    def entry_layout(self) -> ProgramShape:
        """XLA's ``entry_computation_layout()``: printed or derived from the entry by the parser."""
        if self.entry_computation_layout is None:
            raise ValueError(f"module '{self.name}' has no entry computation layout")
        return self.entry_computation_layout

    def computation(self, name: str) -> HloComputation:
        return self._computations_by_name[name]

    def get_computation(self, name: str) -> HloComputation | None:
        return self._computations_by_name.get(name)

    def instruction(self, name: str) -> HloInstruction:
        return self.names[name]

    def get_instruction(self, name: str) -> HloInstruction | None:
        return self.names.get(name)

    def instructions(self) -> Iterator[HloInstruction]:
        for c in self.computations:
            yield from c.instructions

    def instruction_count(self) -> int:
        return sum(len(c.instructions) for c in self.computations)

    def unique_name(self, base: str) -> str:
        """A new instruction name: ``base`` if free, else ``base.N`` (the pre-passes' names:
        :meth:`~.name_uniquer.NameUniquer.unique_keeping_suffix`)."""
        return self.instruction_names.unique_keeping_suffix(base)

    def numbered_name(self, base: str) -> str:
        """A new instruction name ``root.N``, never the bare root (the host-offload passes' names:
        :meth:`~.name_uniquer.NameUniquer.numbered`)."""
        return self.instruction_names.numbered(base)

    def unique_computation_name(self, base: str) -> str:
        """A new computation name, from the module's computation uniquer."""
        return self.computation_names.unique(base)

    # -- source locations ------------------------------------------------------------
    def _frame_location(self, frame_id: int) -> SourceLocation | None:
        t = self.source_tables
        frame = t.stack_frames.get(frame_id)
        if frame is None:
            return None
        loc = t.file_locations.get(frame.file_location_id)
        if loc is None:
            return None
        return SourceLocation(t.file_names.get(loc.file_name_id, "?"), loc.line,
                              t.function_names.get(loc.function_name_id), loc.column)

    def stack_frame_location(self, frame_id: int) -> SourceLocation | None:
        """The innermost (most specific) frame of a stack, as an instruction's location."""
        return self._frame_location(frame_id)

    def user_frame_location(self, frame_id: int, op_name: str | None) -> SourceLocation | None:
        """The frame of a stack that is the user's line: the primary frame of :mod:`.frames`
        (within the jitted function named by ``op_name``'s ``jit(NAME)``, not in an installed
        package, not a helper that only hands the placed value back), so a helper that wraps the
        offload (``place_to_host``) points at the line that calls it."""
        from .frames import primary_frame, primitive_name, traced_name

        frames = self.stack_frames_for(frame_id)
        return primary_frame(frames, traced_name(op_name), primitive_name(op_name))

    def stack_frames_for(self, frame_id: int) -> list[SourceLocation]:
        """The frames from ``frame_id`` outwards to the outermost caller (cycle-safe)."""
        out: list[SourceLocation] = []
        seen: set[int] = set()
        fid = frame_id
        while fid and fid not in seen:
            seen.add(fid)
            loc = self._frame_location(fid)
            if loc is not None:
                out.append(loc)
            frame = self.source_tables.stack_frames.get(fid)
            if frame is None:
                break
            fid = frame.caller_id
        return out

    def __repr__(self) -> str:
        return f"<HloModule {self.name} ({len(self.computations)} computations)>"
