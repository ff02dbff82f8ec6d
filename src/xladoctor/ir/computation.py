"""HloComputation: an ordered list of instructions with a root and numbered parameters."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import filterfalse

from .computation_header import HEADER_SLOTS, ComputationHeader
from .instruction import COMPILED, HloInstruction
from .opcodes import PARAMETER, HloOpcode
from .operands import WideOperands
from .rare_fields import CALLS, calls_anything
from .shape import Shape
from .users import Users

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .calls import Calls
    from .module import HloModule
    from .rare_fields import RareFields


_OWN_SLOTS: Final = ("name", "instructions", "root", "parameters", "is_entry", "module")
COMPUTATION_SLOTS: Final = _OWN_SLOTS + HEADER_SLOTS
""":class:`HloComputation`'s fields, named outside the class (read by :func:`.clone.clone_module`;
a compiled core reads no ``__slots__`` through the class object)."""


_NONE_LEFT: Final[Iterator[HloInstruction]] = iter(())
"""An iterator with nothing left, shared: what the walk resumes a node of one operand with (an
exhausted iterator stays exhausted)."""


def listed_without(instructions: list[HloInstruction], gone: set[HloInstruction]) -> list[HloInstruction]:
    """``instructions`` but those in ``gone``, in order: the set's own test called from C in pure Python
    (``filterfalse``: ~25% less time than a comprehension's loop, which passes run over whole
    computations after each batch of removals); compiled, the comprehension is the native loop."""
    if COMPILED:
        return [i for i in instructions if i not in gone]
    return list(filterfalse(gone.__contains__, instructions))


def _children(ops: tuple[HloInstruction, ...] | HloInstruction | WideOperands, extra: RareFields | Calls | None
              ) -> tuple[HloInstruction, ...]:
    """A node's children in the order the stack's walk pops them, where it has rare fields or a wide list:
    the control predecessors last first, then the operands as stored (a tuple, one kept bare, a wide list)."""
    children = ops if type(ops) is tuple else ops.as_tuple() if type(ops) is WideOperands else (ops,)
    if extra is not None and extra.control_predecessors:
        children = (*reversed(extra.control_predecessors), *children)
    return children  # type: ignore[return-value]


def _with_parameter(parameters: tuple[HloInstruction, ...], number: int, instr: HloInstruction
                    ) -> tuple[HloInstruction, ...]:
    """``parameters`` with ``instr`` at ``number`` (None fills the slots up to it, as a list grown to it was)."""
    if number < len(parameters):
        return (*parameters[:number], instr, *parameters[number + 1:])
    return (*parameters, *(None,) * (number - len(parameters)), instr)  # type: ignore[arg-type]


class _Positions(dict[HloInstruction, int]):
    """Each instruction's place in a list (instructions hash by identity); anything else is
    after them all: :meth:`HloComputation.sort_users_by_position`'s key, read without a Python
    call per user (the rebuild sorts every user list of the module)."""

    def __missing__(self, key: HloInstruction) -> int:
        return len(self)


class HloComputation(ComputationHeader):
    """A computation.  ``instructions`` keeps text order (for scheduled modules: the schedule).

    Adding or removing an instruction keeps the module's name table and caller index
    in step (XLA's ``AddInstruction`` / ``RemoveInstruction``); ``instructions`` is read
    freely but only changed through these methods.  Names are looked up in the module's
    one table (an instruction of another computation is not found here).
    """

    __slots__ = _OWN_SLOTS

    def __init__(self, name: str, is_entry: bool = False):
        self.name = name
        self.instructions: list[HloInstruction] = []
        self.root: HloInstruction | None = None
        self.parameters: tuple[HloInstruction, ...] = ()
        """Indexed by parameter number; a tuple, replaced on change, never edited in place (a list
        was 80 bytes of a jax_entry computation's ~450 with its one or two parameters, a tuple is
        48-64, the empty one shared: tracemalloc at jax_entry 100k, 0.72 -> 0.51 MiB)."""
        self.is_entry = is_entry
        self.module: HloModule | None = None
        self._line = 0
        self._header = None

    @property
    def callers(self) -> list[HloInstruction]:
        """Instructions that call this computation (``call``, ``while``, ``fusion``, ``to_apply``
        users, ...), from the module's caller index; none outside a module."""
        return self.module.callers_of(self) if self.module is not None else []

    def _added(self, instr: HloInstruction) -> None:
        instr.parent = self
        module = self.module
        if module is not None:
            module.names.add(instr)
            if calls_anything(instr._extra):  # the store: no property call per instruction
                module.calls_changed()

    def _removed(self, instr: HloInstruction, release_name: bool = False) -> None:
        module = self.module
        if module is not None:
            if module.names.remove(instr) and release_name:
                module.instruction_names.release(instr.name)
            if (extra := instr._extra) is not None and (type(extra) is CALLS or extra.called):  # calls_anything, inline: removals are per instruction
                module.calls_changed()
        instr.parent = None

    def root_instruction(self) -> HloInstruction:
        """XLA's ``root_instruction()``: a parsed computation always has one (the parser refuses an empty one)."""
        if self.root is None:
            raise ValueError(f"computation '{self.name}' has no root")
        return self.root

    def set_root_instruction(self, instr: HloInstruction) -> None:
        """XLA's ``set_root_instruction``: ``instr``, one of this computation's, is its root (the
        one write of :attr:`root`)."""
        if instr.parent is not self:
            raise ValueError(f"cannot make {instr.name} the root of {self.name}: it is not one of its instructions")
        self.root = instr

    def set_parameters(self, params: list[HloInstruction]) -> None:
        """The parameters by number, ``params[k]`` being ``parameter(k)`` of this computation (the
        parser's, once it has checked the numbering)."""
        for k, param in enumerate(params):
            extra = param._extra  # parameter_number read from its store, as the property reads it (no call each)
            number = None if extra is None or param.opcode is not PARAMETER or type(extra) is CALLS else extra.number
            if param.parent is not self or isinstance(number, str) or number != k:
                raise ValueError(f"{param.name} is not parameter({k}) of {self.name}")
        self.parameters = tuple(params)

    def replace_parameter(self, number: int, new: HloInstruction) -> None:
        """XLA's ``ReplaceParameter`` (the slot only): ``new``, already added to this computation
        as ``parameter(number)``, takes the old one's slot; the caller rewires and removes the old."""
        if new.parent is not self or new.parameter_number != number:
            raise ValueError(f"{new.name} is not parameter({number}) of {self.name}")
        self.parameters = _with_parameter(self.parameters, number, new)

    def add_instruction(self, instr: HloInstruction, index_parameter: bool = True) -> HloInstruction:
        """Append ``instr``; a parameter is also put at its number in ``parameters`` unless the
        caller (the parser, which checks numbering first) fills ``parameters`` itself."""
        self.instructions.append(instr)
        instr.parent = self
        module = self.module
        if module is not None:  # as _added (inline: the parser adds every instruction here)
            module.names.add(instr)
            if calls_anything(instr._extra):  # the store: no property call per instruction
                module.calls_changed()
        if index_parameter and instr.opcode is PARAMETER and instr.parameter_number is not None:
            self.parameters = _with_parameter(self.parameters, instr.parameter_number, instr)
        return instr

    def add_instructions(self, instrs: list[HloInstruction]) -> None:
        """:meth:`add_instruction` of each of ``instrs`` in order, in one loop (a computation
        outside a module: ``clone_module`` fills every computation of a module this way)."""
        if self.module is not None:
            for instr in instrs:
                self.add_instruction(instr)
            return
        self.instructions.extend(instrs)
        parameters: list[HloInstruction] | None = None
        parameter = PARAMETER
        for instr in instrs:
            instr.parent = self
            # parameter_number read from its store, as the property reads it (two calls a parameter, interpreted)
            if instr.opcode is parameter and (extra := instr._extra) is not None and type(extra) is not CALLS \
                    and (n := extra.number) is not None and not isinstance(n, str):
                if parameters is None:
                    parameters = list(self.parameters)
                while len(parameters) <= n:
                    parameters.append(None)  # type: ignore[arg-type]
                parameters[n] = instr
        if parameters is not None:
            self.parameters = tuple(parameters)

    def insert_before(self, anchor: HloInstruction, instr: HloInstruction) -> HloInstruction:
        """Insert a new instruction just before ``anchor`` in text order (for rewrites)."""
        self.instructions.insert(self.instructions.index(anchor), instr)
        self._added(instr)
        return instr

    def remove_instruction(self, instr: HloInstruction) -> None:
        """Remove an instruction that nothing uses any more (raises otherwise)."""
        self.unhook(instr)
        self.instructions.remove(instr)
        self._removed(instr)

    def replace_instruction(self, old: HloInstruction, new: HloInstruction) -> None:
        """``ReplaceInstruction``: every use of ``old`` (and the root, if it is) becomes ``new``,
        which must be in this computation already; then ``old`` is removed."""
        if new.parent is not self:
            raise ValueError(f"cannot replace {old.name} by {new.name}: {new.name} is not in {self.name}")
        old.replace_all_uses_with(new)
        self.remove_instruction(old)

    def replace_and_unhook(self, old: HloInstruction, new: HloInstruction,
                           removed: set[HloInstruction]) -> None:
        """The batched :meth:`replace_instruction`: every use of ``old`` becomes ``new``; unless
        ``old`` stays the root, it is unhooked and added to ``removed`` for one
        :meth:`drop_removed` sweep after the pass's loop."""
        old.replace_all_uses_with(new)
        if self.root is not old:
            self.unhook(old)
            removed.add(old)

    def unhook(self, instr: HloInstruction) -> None:
        """The first half of :meth:`remove_instruction`: ``instr`` (unused, not the root) lets go
        of its operands now, so their users are reordered exactly when XLA's
        ``RemoveInstruction`` would; :meth:`drop_removed` takes a batch of them out later in one
        sweep (removing each from the list at once costs a scan of the list each)."""
        if instr._users:
            raise ValueError(f"cannot remove {instr.name}: still used by {[u.name for u in instr.users]}")
        if self.root is instr:
            raise ValueError(f"cannot remove {instr.name}: it is the root of {self.name}")
        instr.drop_operands()

    def remove_unused(self, dead: set[HloInstruction], release_names: bool = False) -> None:
        """Remove instructions used only by each other (none is the root), keeping the order
        of every other instruction's users, as rebuilding the computation without them
        would (XLA's HLO -> StableHLO -> HLO route drops dead code that way).  ``release_names``:
        their names may be given again (tuple folding, which the pre-passes model as a rebuild)."""
        HloInstruction.unlink(dead)  # a stable removal, unlike Users::RemoveUser
        self.instructions = listed_without(self.instructions, dead)
        for instr in dead:
            self._removed(instr, release_names)

    def drop_removed(self, removed: set[HloInstruction], release_names: bool = True) -> None:
        """Take out instructions a pass already unhooked (no operands; users rewired), in one
        sweep, so a pass removing many stays linear.  ``release_names``: their names may be
        given again; otherwise they stay reserved, as after :meth:`remove_instruction`."""
        if not removed:
            return
        self.instructions = listed_without(self.instructions, removed)
        self.forget_removed(removed, release_names)

    def forget_removed(self, removed: set[HloInstruction], release_names: bool = True) -> None:
        """:meth:`drop_removed` of instructions already out of the list (a pass that left them out
        as it placed its insertions: :meth:`~..offload.passes.insertions.Insertions.place`)."""
        module = self.module
        if module is None or release_names:
            for instr in removed:
                if instr.parent is self:
                    self._removed(instr, release_name=release_names)
            return
        # :meth:`_removed` of each, its steps batched (each instruction's are independent of the
        # others', and forgetting the caller index twice is once): two calls per instruction fewer
        mine = [instr for instr in removed if instr.parent is self]
        module.names.remove_each(mine)
        calls = False
        for instr in mine:
            if (extra := instr._extra) is not None and (type(extra) is CALLS or extra.called):
                calls = True
            instr.parent = None
        if calls:
            module.calls_changed()

    def adopt(self, instr: HloInstruction) -> None:
        """Make ``instr`` this computation's (parent, name, calls) before :meth:`splice` places it:
        the inliner names each clone against the ones made before it."""
        self._added(instr)

    def forget(self, instr: HloInstruction) -> None:
        """The inliner's ``call``, replaced by the callee's body: its name is released and it
        leaves the call graph at once (later clones may take the name); :meth:`splice` then
        lists the computation without it."""
        self._removed(instr, release_name=True)

    def splice(self, instructions: list[HloInstruction]) -> None:
        """Replace the instruction list by ``instructions``: the inliner's rebuilt body, with the
        callee's (adopted) instructions in place of each forgotten ``call``."""
        for instr in instructions:
            if instr.parent is not self:
                self._added(instr)
        self.instructions = instructions

    def unused(self) -> list[HloInstruction]:
        """The instructions no instruction uses, in order (dead-code elimination's starts), read
        from each one's users store: the ``users`` property makes a tuple per read of a bare user."""
        return [i for i in self.instructions if not i._users]

    def sort_users_by_position(self) -> None:
        """Order every instruction's users as the instructions are ordered: what building
        the computation afresh in that order gives (XLA rebuilding HLO from StableHLO)."""
        position = _Positions(zip(self.instructions, range(len(self.instructions))))
        key = position.__getitem__  # C-level per user; one of another computation sorts last
        for instr in self.instructions:
            users = instr._users  # the store: no user or one (most, kept bare) is in order already
            if type(users) is Users and len(users) > 1:
                instr.sort_users(key)  # the instruction's write path, as every change of a Users

    def instruction(self, name: str) -> HloInstruction:
        instr = self.get(name)
        if instr is None:
            raise KeyError(name)
        return instr

    def get(self, name: str) -> HloInstruction | None:
        """The instruction called ``name`` in this computation (the module's table, or a scan
        for a computation not yet in a module)."""
        if self.module is not None:
            instr = self.module.names.get(name)
            return instr if instr is not None and instr.parent is self else None
        return next((i for i in self.instructions if i.name == name), None)

    def parameter(self, number: int) -> HloInstruction:
        return self.parameters[number]

    @property
    def program_shape(self) -> tuple[list[Shape], Shape]:
        """Parameter shapes by number and the root shape (what the entry layout defaults to)."""
        assert self.root is not None
        return [p.shape for p in self.parameters], self.root.shape

    def has_opcode(self, opcode: HloOpcode) -> bool:
        """Whether an instruction of this computation has ``opcode``: the test passes make of every
        computation before a post order.  A loop, not ``any()`` of a generator, which resumes a
        frame per instruction (~4,000 per test on a train step's entry, six such tests a run)."""
        for instr in self.instructions:  # noqa: SIM110
            if instr.opcode is opcode:
                return True
        return False

    def post_order(self) -> list[HloInstruction]:
        """Operands before users, in exactly the order of XLA's ``MakeInstructionPostOrder``.

        The order decides which MoveToHost HostOffloader handles first, hence which E1200 XLA reports,
        so it follows XLA's algorithm step by step: a DFS from each instruction without users, in text
        order, whose stack receives the operands in reverse (the first operand is finished first) and
        then the control predecessors; an instruction may sit on the stack twice, emitted when first finished.
        Shortcuts, same order (issue 36): a node that pushes nothing is emitted at once; operands read as
        stored; the states are two sets; methods called as written (aliased: vectorcall compiled); operands by
        index (compiled, ``reversed`` is a lookup and an iterator).  Pure Python walks it as the recursion it is
        (:meth:`_post_order_walk`), and comes to the stack only where it meets a cycle."""
        return self._post_order_stack() if COMPILED else self._post_order_walk()

    def _post_order_stack(self) -> list[HloInstruction]:
        """:meth:`post_order` as XLA writes it (the compiled core's, and where a cycle is met)."""
        order: list[HloInstruction] = []
        done: set[HloInstruction] = set()  # visited; in visiting: its operands pushed, not finished
        visiting: set[HloInstruction] = set()
        dep: HloInstruction  # declared: read from the untyped operand store it would be Any (compiled: generic reads)
        for start in self.instructions:
            if start._users or start in done:  # has users: the store, not the property (no tuple per read)
                continue
            stack = [start]
            while stack:
                node = stack[-1]
                if node in done:
                    stack.pop()
                    continue
                if node in visiting:  # back on top with its operands finished: finished
                    stack.pop()
                    done.add(node)
                    order.append(node)
                    continue
                depth = len(stack)
                ops = node._operands
                cls = type(ops)
                if cls is tuple or cls is WideOperands:
                    many: tuple[HloInstruction, ...] = ops if cls is tuple else ops.as_tuple()  # type: ignore[assignment,union-attr]
                    for i in range(len(many) - 1, -1, -1):  # by index: native reads compiled
                        dep = many[i]
                        if dep.parent is self and dep not in done:
                            stack.append(dep)
                else:  # the one operand, kept bare (declared: a native read of its parent)
                    dep = ops  # type: ignore[assignment]
                    if dep.parent is self and dep not in done:
                        stack.append(dep)
                extra = node._extra  # control_predecessors without the property: read per node
                if extra is not None:
                    for dep in extra.control_predecessors:
                        if dep.parent is self and dep not in done:
                            stack.append(dep)
                if len(stack) == depth:  # nothing pushed: finished now, as XLA's next step would
                    stack.pop()
                    done.add(node)
                    order.append(node)
                else:
                    visiting.add(node)
        if len(order) != len(self.instructions):  # a cycle or users outside: keep every instruction
            order.extend(i for i in self.instructions if i not in done)  # done: what order holds
        return order

    def _post_order_walk(self) -> list[HloInstruction]:
        """:meth:`post_order` in pure Python: the same order, each node entered once (:meth:`_walk_from`).

        The stack's walk holds each node twice (entered, then finished) and tests both sets at each pop; popped first
        is the last control predecessor, then the others backwards, then the operands in order, each skipped if
        finished by then.  That is a recursive DFS over those children in that order.  In a DAG the path never holds
        a node twice, so it is never longer than the computation; longer is a cycle, where the stack's walk finishes
        a node that is still on it: that walk then answers.  Per node ~2,990 machine instructions on a train step's
        entry (cachegrind): ~30% less time than the stack's walk in pure Python (issue 36)."""
        order: list[HloInstruction] = []
        done: set[HloInstruction] = set()
        limit = len(self.instructions)
        # The path above the node entered, and for each of them the iterator over its children left, as
        # lists of the computation's size indexed by the depth (a store, not an append and a length test):
        # in a DAG the path is shorter, so a store past the end is a cycle.
        nodes: list[HloInstruction | None] = [None] * limit
        iters: list[Iterator[HloInstruction] | None] = [None] * limit
        for start in self.instructions:
            if not (start._users or start in done) and not self._walk_from(start, done, order, nodes, iters):
                return self._post_order_stack()  # a cycle
        if len(order) != len(self.instructions):  # a cycle or users outside: keep every instruction
            order.extend(i for i in self.instructions if i not in done)
        return order

    def _walk_from(self, start: HloInstruction, done: set[HloInstruction], order: list[HloInstruction],
                   nodes: list[HloInstruction | None], iters: list[Iterator[HloInstruction] | None]) -> bool:
        """:meth:`_post_order_walk` from ``start``: False at a cycle.  One iterator per node on the path: a child is
        tested when its turn comes (finished, or of another computation: skipped), one without operands or control
        edges finished at once.  A node of one operand kept bare and no control edges (a third of a train step's)
        makes no tuple and no iterator: its child is tested at once, and it waits on a shared exhausted one."""
        emit, finish, none_left = order.append, done.add, _NONE_LEFT
        # ``extra``: a node's rare fields where they hold control edges, else None (numbers, literals, calls: none to walk)
        node, ops, extra, depth = start, start._operands, e if (e := start._extra) is None or e.control_predecessors else None, 0
        dep: HloInstruction
        while True:  # ``node`` entered: its children in the order the stack's walk pops them
            cls = type(ops)
            it: Iterator[HloInstruction]
            if cls is tuple and extra is None:
                it = iter(ops)  # type: ignore[arg-type]
            elif cls is tuple or cls is WideOperands or extra is not None:
                it = iter(_children(ops, extra))
            else:  # the one operand, kept bare, no rare fields
                dep = ops  # type: ignore[assignment]
                if dep not in done and dep.parent is self:
                    ops, extra = dep._operands, e if (e := dep._extra) is None or e.control_predecessors else None
                    if ops or extra is not None:  # entered below; ``node`` then has no child left
                        try:
                            nodes[depth] = node
                        except IndexError:  # a cycle
                            return False
                        iters[depth] = none_left
                        depth += 1
                        node = dep
                        continue
                    finish(dep)  # a leaf: finished on entry
                    emit(dep)
                it = none_left
            while True:  # resume ``node``'s children
                for dep in it:
                    if dep not in done and dep.parent is self:
                        ops, extra = dep._operands, e if (e := dep._extra) is None or e.control_predecessors else None
                        if ops or extra is not None:
                            break  # entered below
                        finish(dep)  # a leaf: finished on entry
                        emit(dep)
                else:  # every child finished: so is the node
                    finish(node)
                    emit(node)
                    if not depth:
                        return True  # the start
                    depth -= 1
                    node = nodes[depth]  # type: ignore[assignment]
                    it = iters[depth]  # type: ignore[assignment]
                    continue
                try:
                    nodes[depth] = node
                except IndexError:  # a cycle
                    return False
                iters[depth] = it
                depth += 1
                node = dep
                break

    def __repr__(self) -> str:
        return f"<HloComputation {'ENTRY ' if self.is_entry else ''}{self.name} ({len(self.instructions)} instructions)>"

